/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hash.h - the engine's hash unit: MD5, SHA-1, SHA-224/256/384/512 with a saveable state.
 *
 * Like a cipher stream, a hash stream runs one request: started from a context (the PIO
 * hash registers or a DMA hash context record), fed any number of times, then read back:
 * the chaining state and length, or the digest if the context asked for FINAL.
 */
#ifndef HWEMU_HASH_H
#define HWEMU_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "kernel/hwoffload_regs.h"

/* Host-endian copy of a context: HWE_REG_HASH_* or struct hwe_hash_ctx. */
struct hwemu_hash_state {
	uint32_t cfg;
	uint64_t len_lo;		/* bytes hashed so far, 128-bit */
	uint64_t len_hi;
	uint8_t state[HWE_HASH_STATE_SIZE];
};

struct hwemu_hash_stream;

struct hwemu_hash_stream *hwemu_hash_stream_new(void);
void hwemu_hash_stream_free(struct hwemu_hash_stream *h);

/* Validate @st and load its state (or the standard IV on HWE_HASH_INIT). */
enum hwe_err hwemu_hash_start(struct hwemu_hash_stream *h, const struct hwemu_hash_state *st);

/*
 * Hash @len bytes. Whole blocks only (and not none), except that the data of a FINAL request
 * may end in a partial block; after one, the stream takes no more data.
 */
enum hwe_err hwemu_hash_run(struct hwemu_hash_stream *h, const uint8_t *in, size_t len);

/* Store the state and length (padded and finished into the digest on FINAL); end the stream. */
void hwemu_hash_finish(struct hwemu_hash_stream *h, struct hwemu_hash_state *st);

/* End the stream without reading it back (error or reset). */
void hwemu_hash_abort(struct hwemu_hash_stream *h);

#endif /* HWEMU_HASH_H */
