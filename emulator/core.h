/* SPDX-License-Identifier: Apache-2.0 */
/*
 * core.h - what the engine core's three files share: BAR2 access, errors, interrupts and
 * fault injection (engine.c, which also resets, sets up and dispatches the doorbells), the PIO
 * FIFO (pio.c) and the DMA ring (dma.c).
 */
#ifndef HWEMU_CORE_H
#define HWEMU_CORE_H

#include <endian.h>
#include <stdbool.h>
#include <stdint.h>

#include "engine.h"

/* ---- BAR2 access: 32/64-bit little-endian words, atomically ---- */

static inline uint32_t *hwemu_reg32(struct hwemu_engine *e, uint32_t off)
{
	return (uint32_t *)(e->cfg.bar2 + off);
}

static inline uint64_t *hwemu_reg64(struct hwemu_engine *e, uint32_t off)
{
	return (uint64_t *)(e->cfg.bar2 + off);
}

static inline uint32_t hwemu_reg_read(struct hwemu_engine *e, uint32_t off)
{
	return le32toh(__atomic_load_n(hwemu_reg32(e, off), __ATOMIC_ACQUIRE));
}

static inline uint64_t hwemu_reg_read64(struct hwemu_engine *e, uint32_t off)
{
	return le64toh(__atomic_load_n(hwemu_reg64(e, off), __ATOMIC_ACQUIRE));
}

static inline void hwemu_reg_write(struct hwemu_engine *e, uint32_t off, uint32_t val)
{
	__atomic_store_n(hwemu_reg32(e, off), htole32(val), __ATOMIC_RELEASE);
}

static inline void hwemu_reg_write64(struct hwemu_engine *e, uint32_t off, uint64_t val)
{
	__atomic_store_n(hwemu_reg64(e, off), htole64(val), __ATOMIC_RELEASE);
}

/* The engine's half of write-1-to-clear: set bits with a locked OR. */
static inline void hwemu_reg_set_bits(struct hwemu_engine *e, uint32_t off, uint32_t bits)
{
	__atomic_fetch_or(hwemu_reg32(e, off), htole32(bits), __ATOMIC_SEQ_CST);
}

static inline void hwemu_reg_clear_bits(struct hwemu_engine *e, uint32_t off, uint32_t bits)
{
	__atomic_fetch_and(hwemu_reg32(e, off), htole32(~bits), __ATOMIC_SEQ_CST);
}

static inline void hwemu_counter_add(struct hwemu_engine *e, uint32_t off, uint64_t n)
{
	/* the engine is the only writer */
	hwemu_reg_write64(e, off, hwemu_reg_read64(e, off) + n);
}

static inline bool hwemu_ram_range_ok(const struct hwemu_engine *e, uint64_t addr, uint64_t len)
{
	return len <= e->cfg.ram_size && addr <= e->cfg.ram_size - len;
}

/* The guest-physical address of ring slot @index (the ring's size is a power of two). */
static inline uint64_t hwemu_ring_slot_addr(const struct hwemu_engine *e, uint32_t index)
{
	return e->ring_base + (uint64_t)(index & (e->ring_size - 1)) * sizeof(struct hwe_desc);
}

/* ---- errors, interrupts and fault injection (engine.c) ---- */

/* Take one event from a fault-injection count the driver armed; false if none is armed. */
bool hwemu_fault_take(struct hwemu_engine *e, uint32_t off);

/* LAST_ERROR, LAST_ERROR_ADDR, ERR_STATUS and the error counter; a log line unless quiet. */
void hwemu_record_error(struct hwemu_engine *e, const char *where, enum hwe_err err, uint64_t addr);

/* Set @bits in INT_STATUS; send one MSI-X message on @vector if any of them is enabled. */
void hwemu_raise_interrupt(struct hwemu_engine *e, uint32_t bits, unsigned int vector,
			   uint32_t irq_counter);

/* ---- the PIO FIFO (pio.c) and the DMA ring (dma.c) ---- */

/* Run the request posted in FIFO_IN, if PIO_SEQ says one was. */
void hwemu_pio_doorbell(struct hwemu_engine *e);

/* Walk the ring from CUR to HEAD (re-reading HEAD as it goes); one interrupt for the walk. */
void hwemu_dma_doorbell(struct hwemu_engine *e);

/* Drop the DMA request in progress: its streams, its context copies, its state. */
void hwemu_dma_end_request(struct hwemu_engine *e);

#endif /* HWEMU_CORE_H */
