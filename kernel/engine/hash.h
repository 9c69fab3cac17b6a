/*
 * hash.h - the engine's hash unit: MD5, SHA-1, SHA-224/256/384/512 with a saveable state.
 *
 * Like a cipher stream, a hash stream runs one request: started from a context (the PIO
 * hash registers or a DMA hash context record), fed any number of times, then read back:
 * the chaining state and length, or the digest if the context asked for FINAL.
 */
#ifndef HWOFF_HASH_H
#define HWOFF_HASH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../hwoffload_regs.h"

/* Host-endian copy of a context: HWOFF_REG_HASH_* or struct hwoff_hash_ctx. */
struct hwoff_hash_state {
	uint32_t cfg;
	uint64_t len_lo;		/* bytes hashed so far, 128-bit */
	uint64_t len_hi;
	uint8_t state[HWOFF_HASH_STATE_SIZE];
};

struct hwoff_hash_stream;

struct hwoff_hash_stream *hwoff_hash_stream_new(void);
void hwoff_hash_stream_free(struct hwoff_hash_stream *h);

/* Validate @st and load its state (or the standard IV on HWOFF_HASH_INIT). */
enum hwoff_err hwoff_hash_start(struct hwoff_hash_stream *h, const struct hwoff_hash_state *st);

/*
 * Hash @len bytes. Whole blocks only (and not none), except that the data of a FINAL request
 * may end in a partial block; after one, the stream takes no more data.
 */
enum hwoff_err hwoff_hash_run(struct hwoff_hash_stream *h, const uint8_t *in, size_t len);

/* Store the state and length (padded and finished into the digest on FINAL); end the stream. */
void hwoff_hash_finish(struct hwoff_hash_stream *h, struct hwoff_hash_state *st);

/* End the stream without reading it back (error or reset). */
void hwoff_hash_abort(struct hwoff_hash_stream *h);

#endif /* HWOFF_HASH_H */
