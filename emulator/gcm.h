/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gcm.h - the AES unit's GCM mode: one request is one whole message, AAD || data in, the same
 * stream out with the data encrypted or decrypted, and the tag computed (and, on a decrypt,
 * compared) by the engine.
 *
 * Like a cipher stream, a GCM stream is started from a context (the PIO registers or a DMA
 * GCM record), fed the message in any number of pieces, then finished.
 */
#ifndef HWEMU_GCM_H
#define HWEMU_GCM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <openssl/evp.h>

#include "cipher.h"

/* Host-endian copy of a GCM context: HWE_REG_GCM_* with AES_CFG/KEY/IV, or struct hwe_gcm_ctx. */
struct hwemu_gcm_state {
	uint32_t cfg;
	uint32_t tag_len;
	uint32_t aad_len;
	uint32_t data_len;
	uint8_t iv[HWE_GCM_IV_SIZE];
	uint8_t key[HWEMU_AES_MAX_KEY];
	uint8_t tag[HWE_GCM_TAG_SIZE];
};

struct hwemu_gcm_stream {
	EVP_CIPHER_CTX *ctr; /* the keystream from inc32(J0) */
	/* the hash key H = AES_K(0^128) times each 4-bit polynomial, big-endian halves */
	uint64_t hh[16], hl[16];
	uint64_t y[2]; /* the GHASH accumulator */
	uint8_t ek_j0[HWEMU_AES_BLOCK]; /* AES_K(J0), masks the tag */
	uint8_t partial[HWEMU_AES_BLOCK]; /* GHASH input short of a block */
	size_t partial_len;
	uint64_t aad_len, data_len;
	uint64_t done; /* stream bytes taken */
	uint32_t tag_len;
	bool decrypt;
	bool active;
};

int hwemu_gcm_init(struct hwemu_gcm_stream *g);
void hwemu_gcm_fini(struct hwemu_gcm_stream *g);

/* Validate @st (mode GCM, key and tag lengths) and key the stream. */
enum hwe_err hwemu_gcm_start(struct hwemu_gcm_stream *g, const struct hwemu_cipher *c,
			     const struct hwemu_gcm_state *st);

/* Stream bytes (AAD and data) the message still expects. */
uint64_t hwemu_gcm_remaining(const struct hwemu_gcm_stream *g);

/* The next @len bytes of AAD || data; @in may equal @out. BAD_LEN past the message's end. */
enum hwe_err hwemu_gcm_run(struct hwemu_gcm_stream *g, const uint8_t *in, uint8_t *out, size_t len);

/*
 * End the message and the stream: BAD_LEN if it is short; else an encrypt stores the tag in
 * @st->tag, and a decrypt compares @st->tag (TAG_MISMATCH) and leaves it as it is.
 */
enum hwe_err hwemu_gcm_finish(struct hwemu_gcm_stream *g, struct hwemu_gcm_state *st);

/* End the stream without a tag (error or reset). */
void hwemu_gcm_abort(struct hwemu_gcm_stream *g);

#endif /* HWEMU_GCM_H */
