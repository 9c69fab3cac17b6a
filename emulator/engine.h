/* SPDX-License-Identifier: Apache-2.0 */
/*
 * engine.h - the engine core: registers, PIO FIFO, DMA ring, faults and counters.
 *
 * The core knows nothing of sockets or eventfds. It works on a BAR2 mapping and a guest RAM
 * mapping, is told about doorbells by hwemu_engine_doorbell() and raises MSI-X through a
 * callback, so the server and the unit tests drive the same code.
 */
#ifndef HWEMU_ENGINE_H
#define HWEMU_ENGINE_H

#include <stdbool.h>
#include <stdint.h>

#include "cipher.h"
#include "gcm.h"
#include "hash.h"
#include "timing.h"

#define HWEMU_ENGINE_PEER_ID	1	/* QEMU is peer 0 */

struct hwemu_engine_config {
	uint8_t *bar2;			/* HWE_BAR2_SIZE bytes */
	uint8_t *ram;			/* guest RAM: guest-physical address == offset */
	uint64_t ram_size;
	unsigned int vectors;		/* HWE_MIN_VECTORS .. HWE_MAX_VECTORS */
	struct hwemu_timing timing;
	void (*raise_irq)(void *opaque, unsigned int vector);
	void *irq_opaque;
	bool quiet;			/* no error log lines */
};

/* The context record a DMA request loaded, which its DATA descriptors feed. */
enum hwemu_record {
	HWEMU_RECORD_AES, /* struct hwe_aes_ctx: ECB, CBC, CTR */
	HWEMU_RECORD_GCM, /* struct hwe_gcm_ctx */
	HWEMU_RECORD_HASH, /* struct hwe_hash_ctx */
};

/* State of the DMA request the ring walk is in (it may span several walks). */
struct hwemu_dma_request {
	bool open;			/* a descriptor was taken since the last END_OF_REQ */
	bool inject_fault;		/* FAULT_DMA_ERROR chose this request */
	bool failed;
	bool ctx_loaded;
	enum hwemu_record record;
	uint64_t ctx_addr;		/* where to write the context back */
	uint64_t start_ns;
	uint64_t bytes;
};

struct hwemu_engine {
	struct hwemu_engine_config cfg;
	struct hwemu_cipher cipher;
	struct hwemu_stream pio_stream;
	struct hwemu_stream dma_stream;
	struct hwemu_aes_state dma_ctx;
	struct hwemu_hash_stream *pio_hash;
	struct hwemu_hash_stream *dma_hash;
	struct hwemu_gcm_stream pio_gcm;
	struct hwemu_gcm_stream dma_gcm;
	uint8_t dma_gcm_tag[HWE_GCM_TAG_SIZE]; /* a decrypt's expected tag, from LOAD_CTX */
	struct hwemu_dma_request req;
	uint64_t ring_base;		/* latched at reset */
	uint32_t ring_size;
	bool ring_valid;
	bool dma_halted;
	uint32_t cur;
	uint32_t pio_done_seq;
	bool stalled;			/* FAULT_STALL hit: deaf until reset */
	uint8_t bounce[HWE_FIFO_DEPTH];
};

/* Returns 0, or -1 if OpenSSL could not provide AES, or on no memory or a bad configuration. */
int hwemu_engine_init(struct hwemu_engine *e, const struct hwemu_engine_config *cfg);
void hwemu_engine_fini(struct hwemu_engine *e);

/* A doorbell arrived on @vector (several coalesced doorbells may arrive as one). */
void hwemu_engine_doorbell(struct hwemu_engine *e, unsigned int vector);

#endif /* HWEMU_ENGINE_H */
