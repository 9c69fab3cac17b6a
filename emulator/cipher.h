/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cipher.h - the engine's AES unit on OpenSSL EVP: one stream per data path.
 *
 * A stream runs one request: started from a context (the PIO registers or a DMA context
 * record), fed any number of times (scatter-gather), then read back (IV and CTR offset).
 */
#ifndef HWEMU_CIPHER_H
#define HWEMU_CIPHER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "kernel/hwoffload_regs.h"

#define HWEMU_AES_BLOCK		16
#define HWEMU_AES_MAX_KEY	32

/* Host-endian copy of a context: HWE_REG_AES_* or struct hwe_aes_ctx. */
struct hwemu_aes_state {
	uint32_t cfg;
	uint32_t ctr_offset;
	uint8_t iv[HWEMU_AES_BLOCK];
	uint8_t key[HWEMU_AES_MAX_KEY];
};

struct hwemu_cipher {
	EVP_CIPHER *alg[3][3];	/* [mode - 1][key length / 8 - 2] */
};

struct hwemu_stream {
	EVP_CIPHER_CTX *evp;
	uint32_t mode;
	bool active;
};

int hwemu_cipher_init(struct hwemu_cipher *c);
void hwemu_cipher_fini(struct hwemu_cipher *c);

int hwemu_stream_init(struct hwemu_stream *s);
void hwemu_stream_fini(struct hwemu_stream *s);

/* Validate @st and key the stream; CTR resumes @st->ctr_offset bytes into block IV - 1. */
enum hwe_err hwemu_stream_start(struct hwemu_stream *s, const struct hwemu_cipher *c,
				const struct hwemu_aes_state *st);

/* Process @len bytes; @in may equal @out. ECB and CBC take whole blocks only. */
enum hwe_err hwemu_stream_run(struct hwemu_stream *s, const uint8_t *in, uint8_t *out, size_t len);

/* Store the output IV (and CTR offset) in @st and end the stream. */
void hwemu_stream_finish(struct hwemu_stream *s, struct hwemu_aes_state *st);

/* End the stream without reading it back (error or reset). */
void hwemu_stream_abort(struct hwemu_stream *s);

#endif /* HWEMU_CIPHER_H */
