/*
 * engine.h - the engine core: registers, PIO FIFO, DMA ring, faults and counters.
 *
 * The core knows nothing of sockets or eventfds. It works on a BAR2 mapping and a guest RAM
 * mapping, is told about doorbells by hwoff_engine_doorbell() and raises MSI-X through a
 * callback, so the server and the unit tests drive the same code.
 */
#ifndef HWOFF_ENGINE_H
#define HWOFF_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "cipher.h"
#include "hash.h"
#include "timing.h"

#define HWOFF_ENGINE_PEER_ID	1	/* QEMU is peer 0 */

struct hwoff_engine_config {
	uint8_t *bar2;			/* HWOFF_BAR2_SIZE bytes */
	uint8_t *ram;			/* guest RAM: guest-physical address == offset */
	uint64_t ram_size;
	unsigned int vectors;		/* HWOFF_MIN_VECTORS .. HWOFF_MAX_VECTORS */
	struct hwoff_timing timing;
	void (*raise_irq)(void *opaque, unsigned int vector);
	void *irq_opaque;
	bool quiet;			/* no error log lines */
};

/* State of the DMA request the ring walk is in (it may span several walks). */
struct hwoff_dma_request {
	bool open;			/* a descriptor was taken since the last END_OF_REQ */
	bool inject_fault;		/* FAULT_DMA_ERROR chose this request */
	bool failed;
	bool ctx_loaded;
	bool hash;			/* the loaded context is a hash context */
	uint64_t ctx_addr;		/* where to write the context back */
	uint64_t start_ns;
	uint64_t bytes;
};

struct hwoff_engine {
	struct hwoff_engine_config cfg;
	struct hwoff_cipher cipher;
	struct hwoff_stream pio_stream;
	struct hwoff_stream dma_stream;
	struct hwoff_aes_state dma_ctx;
	struct hwoff_hash_stream *pio_hash;
	struct hwoff_hash_stream *dma_hash;
	struct hwoff_dma_request req;
	uint64_t ring_base;		/* latched at reset */
	uint32_t ring_size;
	bool ring_valid;
	bool dma_halted;
	uint32_t cur;
	uint32_t pio_done_seq;
	bool stalled;			/* FAULT_STALL hit: deaf until reset */
	uint8_t bounce[HWOFF_FIFO_DEPTH];
};

/* Returns 0, or -1 if OpenSSL could not provide AES, or on no memory or a bad configuration. */
int hwoff_engine_init(struct hwoff_engine *e, const struct hwoff_engine_config *cfg);
void hwoff_engine_fini(struct hwoff_engine *e);

/* A doorbell arrived on @vector (several coalesced doorbells may arrive as one). */
void hwoff_engine_doorbell(struct hwoff_engine *e, unsigned int vector);

#endif /* HWOFF_ENGINE_H */
