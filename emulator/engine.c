/* SPDX-License-Identifier: Apache-2.0 */
/*
 * engine.c - the engine core: what the emulated hardware does when a doorbell rings: reset,
 * errors and interrupts here, the request on the PIO FIFO in pio.c, the DMA ring in dma.c.
 *
 * BAR2 is shared memory that the guest writes without trapping, so the engine reads the
 * driver's registers only when a doorbell arrives, and keeps its own state (CUR, the latched
 * ring, PIO_DONE_SEQ) internally: the BAR2 copies are mirrors it never reads back.
 * Guest RAM is read and written exactly at the addresses the descriptors give, every time,
 * through a bounce buffer the size of the FIFO (no caching: a driver that skips a DMA sync
 * gets stale data, as on real hardware).
 */
#include <endian.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>

#include "core.h"

static const char *const err_names[HWE_ERR_COUNT] = {
	[HWE_ERR_NONE] = "none",
	[HWE_ERR_BAD_ADDR] = "address outside guest RAM",
	[HWE_ERR_MISALIGNED] = "misaligned address or length",
	[HWE_ERR_BAD_LEN] = "bad length",
	[HWE_ERR_BAD_CTX] = "bad context",
	[HWE_ERR_NO_CTX] = "no context loaded",
	[HWE_ERR_BAD_DESC] = "bad descriptor type",
	[HWE_ERR_DMA_FAULT] = "DMA fault (injected)",
	[HWE_ERR_FIFO] = "FIFO error",
	[HWE_ERR_RING] = "ring error",
	[HWE_ERR_ABORTED] = "aborted",
	[HWE_ERR_TAG_MISMATCH] = "tag mismatch",
};

/* ---- fault injection, errors and interrupts ---- */

bool hwemu_fault_take(struct hwemu_engine *e, uint32_t off)
{
	uint32_t *word = hwemu_reg32(e, off);
	uint32_t old = __atomic_load_n(word, __ATOMIC_ACQUIRE);

	do {
		if (old == 0)
			return false;
	} while (!__atomic_compare_exchange_n(word, &old, htole32(le32toh(old) - 1), false,
					      __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE));
	return true;
}

void hwemu_record_error(struct hwemu_engine *e, const char *where, enum hwe_err err, uint64_t addr)
{
	hwemu_reg_write(e, HWE_REG_LAST_ERROR, err);
	hwemu_reg_write64(e, HWE_REG_LAST_ERROR_ADDR, addr);
	hwemu_reg_set_bits(e, HWE_REG_ERR_STATUS, HWE_BIT(err));
	hwemu_counter_add(e, HWE_REG_CNT_ERRORS, 1);
	if (!e->cfg.quiet)
		fprintf(stderr, "hwoffload-engine: %s: %s (address 0x%llx)\n", where,
			err_names[err], (unsigned long long)addr);
}

void hwemu_raise_interrupt(struct hwemu_engine *e, uint32_t bits, unsigned int vector,
			   uint32_t irq_counter)
{
	hwemu_reg_set_bits(e, HWE_REG_INT_STATUS, bits);
	if (!(hwemu_reg_read(e, HWE_REG_INT_ENABLE) & bits))
		return;
	if (hwemu_fault_take(e, HWE_REG_FAULT_LOST_IRQ)) {
		hwemu_counter_add(e, HWE_REG_CNT_IRQS_LOST, 1);
		return;
	}
	hwemu_counter_add(e, irq_counter, 1);
	e->cfg.raise_irq(e->cfg.irq_opaque, vector);
}

/* ---- reset ---- */

static void latch_ring(struct hwemu_engine *e)
{
	uint64_t base = hwemu_reg_read64(e, HWE_REG_RING_BASE);
	uint32_t size = hwemu_reg_read(e, HWE_REG_RING_SIZE);

	e->ring_valid = false;
	e->ring_base = base;
	e->ring_size = size;
	if (size == 0)
		return;		/* DMA not configured: not an error until a DMA doorbell */
	if (size > HWE_RING_MAX_ENTRIES || (size & (size - 1)) || base & (HWE_RING_ALIGN - 1) ||
	    !hwemu_ram_range_ok(e, base, (uint64_t)size * sizeof(struct hwe_desc))) {
		hwemu_record_error(e, "reset: ring configuration", HWE_ERR_RING, base);
		return;
	}
	e->ring_valid = true;
}

/* Drop all work, wipe the key registers, latch the ring; CUR = HEAD so nothing is pending. */
static void engine_reset(struct hwemu_engine *e)
{
	static const uint32_t zeroed_regs[] = {
		HWE_REG_STATUS, HWE_REG_INT_STATUS, HWE_REG_ERR_STATUS,
		HWE_REG_LAST_ERROR, HWE_REG_AES_CFG, HWE_REG_AES_CTR_OFFSET,
		HWE_REG_PIO_RESULT, HWE_REG_FIFO_IN_LEVEL, HWE_REG_FIFO_OUT_LEVEL,
		HWE_REG_PIO_UNIT, HWE_REG_FAULT_DMA_ERROR, HWE_REG_FAULT_STALL,
		HWE_REG_FAULT_LOST_IRQ,
		HWE_REG_FAULT_FIFO_ERROR,
	};
	size_t i;

	hwemu_stream_abort(&e->pio_stream);
	hwemu_hash_abort(e->pio_hash);
	hwemu_gcm_abort(&e->pio_gcm);
	hwemu_dma_end_request(e);
	e->stalled = false;
	e->dma_halted = false;
	for (i = 0; i < sizeof(zeroed_regs) / sizeof(zeroed_regs[0]); i++)
		hwemu_reg_write(e, zeroed_regs[i], 0);
	hwemu_reg_write64(e, HWE_REG_LAST_ERROR_ADDR, 0);
	OPENSSL_cleanse(e->cfg.bar2 + HWE_REG_AES_IV, HWEMU_AES_BLOCK);
	OPENSSL_cleanse(e->cfg.bar2 + HWE_REG_AES_KEY, HWEMU_AES_MAX_KEY);
	OPENSSL_cleanse(e->cfg.bar2 + HWE_REG_GCM_BASE, HWE_REG_GCM_END - HWE_REG_GCM_BASE);
	OPENSSL_cleanse(e->cfg.bar2 + HWE_REG_HASH_BASE, HWE_REG_HASH_END - HWE_REG_HASH_BASE);

	e->pio_done_seq = hwemu_reg_read(e, HWE_REG_PIO_SEQ);
	hwemu_reg_write(e, HWE_REG_PIO_DONE_SEQ, e->pio_done_seq);

	latch_ring(e);
	e->cur = hwemu_reg_read(e, HWE_REG_RING_HEAD);
	hwemu_reg_write(e, HWE_REG_RING_CUR, e->cur);
	hwemu_reg_write64(e, HWE_REG_RING_CUR_ADDR,
			  e->ring_valid ? hwemu_ring_slot_addr(e, e->cur) : 0);
	if (e->ring_valid)
		hwemu_reg_write(e, HWE_REG_STATUS, HWE_STATUS_RING_VALID);
	hwemu_counter_add(e, HWE_REG_CNT_RESETS, 1);
	hwemu_reg_clear_bits(e, HWE_REG_CTRL, HWE_CTRL_RESET);	/* self-clearing: reset done */
}

/* ---- setup and dispatch ---- */

static void write_identification(struct hwemu_engine *e)
{
	const struct hwemu_timing *t = &e->cfg.timing;

	memset(e->cfg.bar2, 0, HWE_BAR2_SIZE);
	hwemu_reg_write(e, HWE_REG_ID, HWE_ID_MAGIC);
	hwemu_reg_write(e, HWE_REG_VERSION, HWE_VERSION);
	hwemu_reg_write(e, HWE_REG_CAPS, HWE_CAP_AES_ECB | HWE_CAP_AES_CBC | HWE_CAP_AES_CTR |
			HWE_CAP_AES_GCM | HWE_CAP_PIO | HWE_CAP_DMA | HWE_CAP_HASH |
			HWE_CAP_FAULT_INJECTION);
	hwemu_reg_write(e, HWE_REG_PEER_ID, HWEMU_ENGINE_PEER_ID);
	hwemu_reg_write(e, HWE_REG_NUM_VECTORS, e->cfg.vectors);
	hwemu_reg_write(e, HWE_REG_FIFO_DEPTH, HWE_FIFO_DEPTH);
	hwemu_reg_write(e, HWE_REG_DMA_ALIGN, HWE_DMA_ALIGN);
	hwemu_reg_write(e, HWE_REG_DMA_MAX_LEN, HWE_DMA_MAX_LEN);
	hwemu_reg_write64(e, HWE_REG_RAM_SIZE, e->cfg.ram_size);
	hwemu_reg_write(e, HWE_REG_RING_MAX, HWE_RING_MAX_ENTRIES);
	hwemu_reg_write(e, HWE_REG_PIO_SETUP_NS, (uint32_t)t->pio.setup_ns);
	hwemu_reg_write(e, HWE_REG_PIO_PS_PER_BYTE, (uint32_t)t->pio.ps_per_byte);
	hwemu_reg_write(e, HWE_REG_DMA_SETUP_NS, (uint32_t)t->dma.setup_ns);
	hwemu_reg_write(e, HWE_REG_DMA_PS_PER_BYTE, (uint32_t)t->dma.ps_per_byte);
}

int hwemu_engine_init(struct hwemu_engine *e, const struct hwemu_engine_config *cfg)
{
	memset(e, 0, sizeof(*e));
	e->cfg = *cfg;
	if (cfg->vectors < HWE_MIN_VECTORS || cfg->vectors > HWE_MAX_VECTORS || !cfg->raise_irq)
		return -1;
	if (hwemu_cipher_init(&e->cipher))
		return -1;
	e->pio_hash = hwemu_hash_stream_new();
	e->dma_hash = hwemu_hash_stream_new();
	if (hwemu_stream_init(&e->pio_stream) || hwemu_stream_init(&e->dma_stream) ||
	    hwemu_gcm_init(&e->pio_gcm) || hwemu_gcm_init(&e->dma_gcm) || !e->pio_hash ||
	    !e->dma_hash) {
		hwemu_engine_fini(e);
		return -1;
	}
	write_identification(e);
	engine_reset(e);
	hwemu_reg_write64(e, HWE_REG_CNT_RESETS, 0);	/* count only resets the driver asks for */
	return 0;
}

void hwemu_engine_fini(struct hwemu_engine *e)
{
	hwemu_stream_fini(&e->pio_stream);
	hwemu_stream_fini(&e->dma_stream);
	hwemu_gcm_fini(&e->pio_gcm);
	hwemu_gcm_fini(&e->dma_gcm);
	hwemu_hash_stream_free(e->pio_hash);
	hwemu_hash_stream_free(e->dma_hash);
	e->pio_hash = NULL;
	e->dma_hash = NULL;
	hwemu_cipher_fini(&e->cipher);
	OPENSSL_cleanse(&e->dma_ctx, sizeof(e->dma_ctx));
}

void hwemu_engine_doorbell(struct hwemu_engine *e, unsigned int vector)
{
	hwemu_counter_add(e, HWE_REG_CNT_DOORBELLS, 1);
	/* a reset request is honoured on any doorbell, before anything else */
	if (hwemu_reg_read(e, HWE_REG_CTRL) & HWE_CTRL_RESET)
		engine_reset(e);
	if (e->stalled)
		return;

	switch (vector) {
	case HWE_DB_DMA:
		hwemu_dma_doorbell(e);
		break;
	case HWE_DB_PIO:
		hwemu_pio_doorbell(e);
		break;
	default:
		break;		/* reserved vectors only carry the reset check above */
	}
}
