/* SPDX-License-Identifier: Apache-2.0 */
/*
 * hash.c - MD5, SHA-1, SHA-224/256/384/512 for the engine model, on libcrypto.
 *
 * Context save and restore needs the raw chaining state and bit counter, which EVP does not
 * expose. OpenSSL 3.0 still has the low-level MD5_CTX / SHA_CTX / SHA256_CTX / SHA512_CTX
 * with public fields, deprecated but present: this file alone uses them, hence the
 * suppression below. The model loads the state and counter into the context, lets
 * *_Update hash whole blocks and *_Final do the standard padding, and reads the state back.
 *
 * The state's byte layout is that of the digest: the chaining words big-endian (MD5:
 * little-endian), SHA-224 and SHA-384 keeping all eight words. So after FINAL the first
 * digest-size bytes of the same field are the digest.
 */
#define OPENSSL_SUPPRESS_DEPRECATED
#include <endian.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/crypto.h>
#include <openssl/md5.h>
#include <openssl/sha.h>

#include "hash.h"

struct hwemu_hash_stream {
	uint32_t alg;
	bool final;
	bool tail_taken;	/* a partial block was hashed: no more data */
	bool active;
	uint64_t len_lo;	/* bytes, 128-bit */
	uint64_t len_hi;
	union {
		MD5_CTX md5;
		SHA_CTX sha1;
		SHA256_CTX sha256;
		SHA512_CTX sha512;
	} ctx;
};

static const unsigned int block_size[] = {
	[HWE_HASH_MD5] = MD5_CBLOCK,
	[HWE_HASH_SHA1] = SHA_CBLOCK,
	[HWE_HASH_SHA224] = SHA256_CBLOCK,
	[HWE_HASH_SHA256] = SHA256_CBLOCK,
	[HWE_HASH_SHA384] = SHA512_CBLOCK,
	[HWE_HASH_SHA512] = SHA512_CBLOCK,
};

#define HASH_CFG_VALID (HWE_CFG_UNIT_MASK | HWE_CFG_MODE_MASK | HWE_HASH_INIT | HWE_HASH_FINAL)

struct hwemu_hash_stream *hwemu_hash_stream_new(void)
{
	return calloc(1, sizeof(struct hwemu_hash_stream));
}

void hwemu_hash_stream_free(struct hwemu_hash_stream *h)
{
	if (h)
		OPENSSL_cleanse(h, sizeof(*h));
	free(h);
}

/*
 * The 32-bit chaining words and bit counter of MD5, SHA-1 and SHA-224/256; returns the
 * number of words.
 */
static unsigned int words32(struct hwemu_hash_stream *h, uint32_t *w[8], uint32_t **nl,
			    uint32_t **nh)
{
	unsigned int i;

	switch (h->alg) {
	case HWE_HASH_MD5:
		w[0] = &h->ctx.md5.A;
		w[1] = &h->ctx.md5.B;
		w[2] = &h->ctx.md5.C;
		w[3] = &h->ctx.md5.D;
		*nl = &h->ctx.md5.Nl;
		*nh = &h->ctx.md5.Nh;
		return 4;
	case HWE_HASH_SHA1:
		w[0] = &h->ctx.sha1.h0;
		w[1] = &h->ctx.sha1.h1;
		w[2] = &h->ctx.sha1.h2;
		w[3] = &h->ctx.sha1.h3;
		w[4] = &h->ctx.sha1.h4;
		*nl = &h->ctx.sha1.Nl;
		*nh = &h->ctx.sha1.Nh;
		return 5;
	default:	/* SHA-224, SHA-256 */
		for (i = 0; i < 8; i++)
			w[i] = &h->ctx.sha256.h[i];
		*nl = &h->ctx.sha256.Nl;
		*nh = &h->ctx.sha256.Nh;
		return 8;
	}
}

static bool wide(uint32_t alg)
{
	return alg == HWE_HASH_SHA384 || alg == HWE_HASH_SHA512;
}

/* Restore the chaining state and the bit counter (the byte count times 8, 128 bits). */
static void load_state(struct hwemu_hash_stream *h, const struct hwemu_hash_state *st)
{
	uint64_t bits_lo = st->len_lo << 3, bits_hi = st->len_hi << 3 | st->len_lo >> 61;
	uint32_t *w[8], *nl, *nh, v32;
	unsigned int i, n;
	uint64_t v64;

	if (wide(h->alg)) {
		for (i = 0; i < 8; i++) {
			memcpy(&v64, st->state + 8 * i, 8);
			h->ctx.sha512.h[i] = be64toh(v64);
		}
		h->ctx.sha512.Nl = bits_lo;
		h->ctx.sha512.Nh = bits_hi;
		return;
	}
	n = words32(h, w, &nl, &nh);
	for (i = 0; i < n; i++) {
		memcpy(&v32, st->state + 4 * i, 4);
		*w[i] = h->alg == HWE_HASH_MD5 ? le32toh(v32) : be32toh(v32);
	}
	*nl = (uint32_t)bits_lo;	/* 64-bit counters: the length modulo 2^64 bits */
	*nh = (uint32_t)(bits_lo >> 32);
}

static void save_state(struct hwemu_hash_stream *h, struct hwemu_hash_state *st)
{
	uint32_t *w[8], *nl, *nh, v32;
	unsigned int i, n;
	uint64_t v64;

	if (wide(h->alg)) {
		for (i = 0; i < 8; i++) {
			v64 = htobe64(h->ctx.sha512.h[i]);
			memcpy(st->state + 8 * i, &v64, 8);
		}
		return;
	}
	n = words32(h, w, &nl, &nh);
	for (i = 0; i < n; i++) {
		v32 = h->alg == HWE_HASH_MD5 ? htole32(*w[i]) : htobe32(*w[i]);
		memcpy(st->state + 4 * i, &v32, 4);
	}
}

enum hwe_err hwemu_hash_start(struct hwemu_hash_stream *h, const struct hwemu_hash_state *st)
{
	uint32_t unit = (st->cfg & HWE_CFG_UNIT_MASK) >> HWE_CFG_UNIT_SHIFT;
	uint32_t alg = st->cfg & HWE_CFG_MODE_MASK;
	bool init = st->cfg & HWE_HASH_INIT;

	hwemu_hash_abort(h);
	if (unit != HWE_UNIT_HASH || alg < HWE_HASH_MD5 || alg > HWE_HASH_SHA512 ||
	    st->cfg & ~HASH_CFG_VALID)
		return HWE_ERR_BAD_CTX;
	/* a saved state is always at a block boundary */
	if (!init && st->len_lo % block_size[alg])
		return HWE_ERR_BAD_CTX;

	h->alg = alg;
	switch (alg) {
	case HWE_HASH_MD5:
		MD5_Init(&h->ctx.md5);
		break;
	case HWE_HASH_SHA1:
		SHA1_Init(&h->ctx.sha1);
		break;
	case HWE_HASH_SHA224:
		SHA224_Init(&h->ctx.sha256);	/* also sets the digest length Final uses */
		break;
	case HWE_HASH_SHA256:
		SHA256_Init(&h->ctx.sha256);
		break;
	case HWE_HASH_SHA384:
		SHA384_Init(&h->ctx.sha512);
		break;
	default:
		SHA512_Init(&h->ctx.sha512);
		break;
	}
	if (init) {
		h->len_lo = 0;
		h->len_hi = 0;
	} else {
		load_state(h, st);
		h->len_lo = st->len_lo;
		h->len_hi = st->len_hi;
	}
	h->final = st->cfg & HWE_HASH_FINAL;
	h->tail_taken = false;
	h->active = true;
	return HWE_ERR_NONE;
}

enum hwe_err hwemu_hash_run(struct hwemu_hash_stream *h, const uint8_t *in, size_t len)
{
	if (h->tail_taken || (len == 0 && !h->final))
		return HWE_ERR_BAD_LEN;
	if (len % block_size[h->alg]) {
		if (!h->final)
			return HWE_ERR_BAD_LEN;
		h->tail_taken = true;
	}
	switch (h->alg) {
	case HWE_HASH_MD5:
		MD5_Update(&h->ctx.md5, in, len);
		break;
	case HWE_HASH_SHA1:
		SHA1_Update(&h->ctx.sha1, in, len);
		break;
	case HWE_HASH_SHA224:
	case HWE_HASH_SHA256:
		SHA256_Update(&h->ctx.sha256, in, len);
		break;
	default:
		SHA512_Update(&h->ctx.sha512, in, len);
		break;
	}
	h->len_lo += len;
	if (h->len_lo < len)
		h->len_hi++;
	return HWE_ERR_NONE;
}

void hwemu_hash_finish(struct hwemu_hash_stream *h, struct hwemu_hash_state *st)
{
	memset(st->state, 0, sizeof(st->state));
	if (!h->final) {
		save_state(h, st);
	} else {
		/* SHA-224 and SHA-384 Final truncate by the md_len their Init set */
		switch (h->alg) {
		case HWE_HASH_MD5:
			MD5_Final(st->state, &h->ctx.md5);
			break;
		case HWE_HASH_SHA1:
			SHA1_Final(st->state, &h->ctx.sha1);
			break;
		case HWE_HASH_SHA224:
		case HWE_HASH_SHA256:
			SHA256_Final(st->state, &h->ctx.sha256);
			break;
		default:
			SHA512_Final(st->state, &h->ctx.sha512);
			break;
		}
	}
	st->len_lo = h->len_lo;
	st->len_hi = h->len_hi;
	hwemu_hash_abort(h);
}

void hwemu_hash_abort(struct hwemu_hash_stream *h)
{
	if (h->active)
		OPENSSL_cleanse(&h->ctx, sizeof(h->ctx));
	h->active = false;
}
