/*
 * cipher.h - the engine's AES unit on OpenSSL EVP: one stream per data path.
 *
 * A stream runs one request: started from a context (the PIO registers or a DMA context
 * record), fed any number of times (scatter-gather), then read back (IV and CTR offset).
 */
#ifndef HWOFF_CIPHER_H
#define HWOFF_CIPHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "../hwoffload_regs.h"

#define HWOFF_AES_BLOCK		16
#define HWOFF_AES_MAX_KEY	32

/* Host-endian copy of a context: HWOFF_REG_AES_* or struct hwoff_aes_ctx. */
struct hwoff_aes_state {
	uint32_t cfg;
	uint32_t ctr_offset;
	uint8_t iv[HWOFF_AES_BLOCK];
	uint8_t key[HWOFF_AES_MAX_KEY];
};

struct hwoff_cipher {
	EVP_CIPHER *alg[3][3];	/* [mode - 1][key length / 8 - 2] */
};

struct hwoff_stream {
	EVP_CIPHER_CTX *evp;
	uint32_t mode;
	bool active;
};

int hwoff_cipher_init(struct hwoff_cipher *c);
void hwoff_cipher_fini(struct hwoff_cipher *c);

int hwoff_stream_init(struct hwoff_stream *s);
void hwoff_stream_fini(struct hwoff_stream *s);

/* Validate @st and key the stream; CTR resumes @st->ctr_offset bytes into block IV - 1. */
enum hwoff_err hwoff_stream_start(struct hwoff_stream *s, const struct hwoff_cipher *c,
				  const struct hwoff_aes_state *st);

/* Process @len bytes; @in may equal @out. ECB and CBC take whole blocks only. */
enum hwoff_err hwoff_stream_run(struct hwoff_stream *s, const uint8_t *in, uint8_t *out,
				size_t len);

/* Store the output IV (and CTR offset) in @st and end the stream. */
void hwoff_stream_finish(struct hwoff_stream *s, struct hwoff_aes_state *st);

/* End the stream without reading it back (error or reset). */
void hwoff_stream_abort(struct hwoff_stream *s);

#endif /* HWOFF_CIPHER_H */
