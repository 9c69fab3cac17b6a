/* SPDX-License-Identifier: Apache-2.0 */
/*
 * gcm.c - AES-GCM (NIST SP 800-38D) for the engine model, 96-bit IVs only.
 *
 * The block cipher is the model's OpenSSL AES (ECB for H and AES_K(J0), CTR for the
 * keystream); GHASH is written here, by 4-bit tables of multiples of H (Shoup's method: 32
 * look-ups a block). A bitwise multiply (128 shifts a block) ran at 112 MB/s on the build
 * host, 147 µs of every 16 KiB TLS record on the engine, where a hardware engine hashes at
 * line rate; the tables, by the data, are no timing concern here, as the engine is a process
 * of its own. OpenSSL's own GCM is not used, so that the unit test's comparison with it checks
 * an independent implementation.
 *
 * Elements of GF(2^128) are held as two big-endian 64-bit halves of the 16-byte block: bit 0
 * of the field (the coefficient of x^0) is the most significant bit of byte 0, as the
 * standard numbers them.
 */
#include <endian.h>
#include <string.h>

#include <openssl/crypto.h>

#include "gcm.h"

/* x^128 = x^7 + x^2 + x + 1, in the reflected bit order: 11100001 followed by 120 zeros */
#define GF128_R 0xe100000000000000ULL

static bool tag_len_valid(uint32_t tag_len)
{
	return tag_len == 4 || tag_len == 8 || (tag_len >= 12 && tag_len <= HWE_GCM_TAG_SIZE);
}

static void block_load(uint64_t v[2], const uint8_t b[HWEMU_AES_BLOCK])
{
	uint64_t w;

	memcpy(&w, b, 8);
	v[0] = be64toh(w);
	memcpy(&w, b + 8, 8);
	v[1] = be64toh(w);
}

static void block_store(uint8_t b[HWEMU_AES_BLOCK], const uint64_t v[2])
{
	uint64_t w;

	w = htobe64(v[0]);
	memcpy(b, &w, 8);
	w = htobe64(v[1]);
	memcpy(b + 8, &w, 8);
}

/*
 * The multiples of H by every 4-bit polynomial: index 8 (the top bit, x^0) is H, 4 is H.x,
 * 2 is H.x^2, 1 is H.x^3, the others their sums.
 */
static void ghash_tables(struct hwemu_gcm_stream *g, const uint64_t h[2])
{
	uint64_t hi = h[0], lo = h[1], carry;
	unsigned int i, j;

	g->hh[0] = g->hl[0] = 0;
	g->hh[8] = hi;
	g->hl[8] = lo;
	for (i = 4; i; i >>= 1) {
		carry = 0 - (lo & 1);
		lo = lo >> 1 | hi << 63;
		hi = hi >> 1 ^ (GF128_R & carry);
		g->hh[i] = hi;
		g->hl[i] = lo;
	}
	for (i = 2; i <= 8; i <<= 1)
		for (j = 1; j < i; j++) {
			g->hh[i + j] = g->hh[i] ^ g->hh[j];
			g->hl[i + j] = g->hl[i] ^ g->hl[j];
		}
}

/* x^4 times the 4 bits shifted out, reduced: what multiplying by x^4 adds at the top */
static const uint16_t reduce4[16] = {
	0x0000, 0x1c20, 0x3840, 0x2460, 0x7080, 0x6ca0, 0x48c0, 0x54e0,
	0xe100, 0xfd20, 0xd940, 0xc560, 0x9180, 0x8da0, 0xa9c0, 0xb5e0,
};

/* z = z.x^4 + n.H: one step of Horner's rule, by the nibble n */
static inline void mul_x4_add(const struct hwemu_gcm_stream *g, uint64_t z[2], unsigned int n)
{
	unsigned int rem = z[1] & 0xf;

	z[1] = (z[1] >> 4 | z[0] << 60) ^ g->hl[n];
	z[0] = (z[0] >> 4 ^ (uint64_t)reduce4[rem] << 48) ^ g->hh[n];
}

/* y = y.H over y's nibbles, from the last (the x^127 end) to the first. */
static void gf128_mul_h(struct hwemu_gcm_stream *g)
{
	uint8_t b[HWEMU_AES_BLOCK];
	uint64_t z[2] = { 0, 0 };
	int i;

	block_store(b, g->y);
	for (i = HWEMU_AES_BLOCK - 1; i >= 0; i--) {
		mul_x4_add(g, z, b[i] & 0xf);
		mul_x4_add(g, z, b[i] >> 4);
	}
	g->y[0] = z[0];
	g->y[1] = z[1];
}

static void ghash_block(struct hwemu_gcm_stream *g, const uint8_t b[HWEMU_AES_BLOCK])
{
	uint64_t v[2];

	block_load(v, b);
	g->y[0] ^= v[0];
	g->y[1] ^= v[1];
	gf128_mul_h(g);
}

static void ghash_update(struct hwemu_gcm_stream *g, const uint8_t *p, size_t len)
{
	size_t n;

	while (len) {
		n = HWEMU_AES_BLOCK - g->partial_len;
		if (n > len)
			n = len;
		memcpy(g->partial + g->partial_len, p, n);
		g->partial_len += n;
		p += n;
		len -= n;
		if (g->partial_len == HWEMU_AES_BLOCK) {
			ghash_block(g, g->partial);
			g->partial_len = 0;
		}
	}
}

/* The AAD and the ciphertext are each padded with zeros to a whole block. */
static void ghash_pad(struct hwemu_gcm_stream *g)
{
	if (!g->partial_len)
		return;
	memset(g->partial + g->partial_len, 0, HWEMU_AES_BLOCK - g->partial_len);
	ghash_block(g, g->partial);
	g->partial_len = 0;
}

int hwemu_gcm_init(struct hwemu_gcm_stream *g)
{
	memset(g, 0, sizeof(*g));
	g->ctr = EVP_CIPHER_CTX_new();
	return g->ctr ? 0 : -1;
}

void hwemu_gcm_fini(struct hwemu_gcm_stream *g)
{
	hwemu_gcm_abort(g);
	EVP_CIPHER_CTX_free(g->ctr); /* cleanses the key schedule */
	g->ctr = NULL;
}

enum hwe_err hwemu_gcm_start(struct hwemu_gcm_stream *g, const struct hwemu_cipher *c,
			     const struct hwemu_gcm_state *st)
{
	static const uint8_t zero[HWEMU_AES_BLOCK];
	uint32_t unit = (st->cfg & HWE_CFG_UNIT_MASK) >> HWE_CFG_UNIT_SHIFT;
	uint32_t keylen = (st->cfg & HWE_CFG_KEYLEN_MASK) >> HWE_CFG_KEYLEN_SHIFT;
	uint8_t counter[HWEMU_AES_BLOCK], hash_key[HWEMU_AES_BLOCK];
	uint64_t h[2];
	int outl, ok;

	hwemu_gcm_abort(g);
	if (unit != HWE_UNIT_AES || (st->cfg & HWE_CFG_MODE_MASK) != HWE_MODE_GCM)
		return HWE_ERR_BAD_CTX;
	if (keylen != 16 && keylen != 24 && keylen != 32)
		return HWE_ERR_BAD_CTX;
	if (!tag_len_valid(st->tag_len))
		return HWE_ERR_BAD_CTX;

	g->active = true; /* from here on the stream holds key material: abort wipes it */
	/* J0 = IV || 0^31 || 1 */
	memcpy(counter, st->iv, HWE_GCM_IV_SIZE);
	memset(counter + HWE_GCM_IV_SIZE, 0, HWEMU_AES_BLOCK - HWE_GCM_IV_SIZE);
	counter[HWEMU_AES_BLOCK - 1] = 1;
	ok = EVP_EncryptInit_ex2(g->ctr, c->alg[HWE_MODE_ECB - 1][keylen / 8 - 2], st->key, NULL,
				 NULL) &&
	     EVP_CIPHER_CTX_set_padding(g->ctr, 0) &&
	     EVP_EncryptUpdate(g->ctr, hash_key, &outl, zero, HWEMU_AES_BLOCK) &&
	     EVP_EncryptUpdate(g->ctr, g->ek_j0, &outl, counter, HWEMU_AES_BLOCK);
	/*
	 * The data's first counter is inc32(J0), J0 + 1. EVP's CTR carries across all 128 bits,
	 * GCM's inc32 across the low 32 only; they agree here, as the low word starts at 2 and a
	 * message of fewer than 2^32 bytes takes fewer than 2^28 blocks.
	 */
	counter[HWEMU_AES_BLOCK - 1] = 2;
	ok = ok && EVP_EncryptInit_ex2(g->ctr, c->alg[HWE_MODE_CTR - 1][keylen / 8 - 2], st->key,
				       counter, NULL);
	block_load(h, hash_key);
	ghash_tables(g, h);
	OPENSSL_cleanse(h, sizeof(h));
	OPENSSL_cleanse(hash_key, sizeof(hash_key));
	OPENSSL_cleanse(counter, sizeof(counter));
	if (!ok) {
		hwemu_gcm_abort(g);
		return HWE_ERR_BAD_CTX;
	}
	g->y[0] = 0;
	g->y[1] = 0;
	g->partial_len = 0;
	g->aad_len = st->aad_len;
	g->data_len = st->data_len;
	g->done = 0;
	g->tag_len = st->tag_len;
	g->decrypt = st->cfg & HWE_CFG_DECRYPT;
	return HWE_ERR_NONE;
}

uint64_t hwemu_gcm_remaining(const struct hwemu_gcm_stream *g)
{
	return g->aad_len + g->data_len - g->done;
}

enum hwe_err hwemu_gcm_run(struct hwemu_gcm_stream *g, const uint8_t *in, uint8_t *out, size_t len)
{
	size_t n;
	int outl;

	if (len > hwemu_gcm_remaining(g) || len > INT32_MAX)
		return HWE_ERR_BAD_LEN;
	if (g->done < g->aad_len) {
		/* the AAD is hashed and passes through unchanged */
		n = g->aad_len - g->done < len ? g->aad_len - g->done : len;
		ghash_update(g, in, n);
		if (out != in)
			memmove(out, in, n);
		g->done += n;
		if (g->done == g->aad_len)
			ghash_pad(g);
		in += n;
		out += n;
		len -= n;
	}
	if (!len)
		return HWE_ERR_NONE;
	/* GHASH takes the ciphertext: before an in-place decrypt overwrites it */
	if (g->decrypt)
		ghash_update(g, in, len);
	if (!EVP_EncryptUpdate(g->ctr, out, &outl, in, (int)len) || (size_t)outl != len)
		return HWE_ERR_BAD_CTX;
	if (!g->decrypt)
		ghash_update(g, out, len);
	g->done += len;
	return HWE_ERR_NONE;
}

enum hwe_err hwemu_gcm_finish(struct hwemu_gcm_stream *g, struct hwemu_gcm_state *st)
{
	uint8_t lengths[HWEMU_AES_BLOCK], tag[HWE_GCM_TAG_SIZE];
	uint64_t bits[2] = { g->aad_len * 8, g->data_len * 8 };
	enum hwe_err err = HWE_ERR_NONE;
	int i;

	if (hwemu_gcm_remaining(g)) {
		hwemu_gcm_abort(g);
		return HWE_ERR_BAD_LEN;
	}
	ghash_pad(g);
	block_store(lengths, bits);
	ghash_block(g, lengths);
	block_store(tag, g->y);
	for (i = 0; i < HWE_GCM_TAG_SIZE; i++)
		tag[i] ^= g->ek_j0[i];
	if (!g->decrypt)
		memcpy(st->tag, tag, sizeof(tag));
	else if (CRYPTO_memcmp(tag, st->tag, g->tag_len))
		err = HWE_ERR_TAG_MISMATCH;
	OPENSSL_cleanse(tag, sizeof(tag));
	hwemu_gcm_abort(g);
	return err;
}

void hwemu_gcm_abort(struct hwemu_gcm_stream *g)
{
	if (!g->active)
		return;
	EVP_CIPHER_CTX_reset(g->ctr);
	OPENSSL_cleanse(g->hh, sizeof(g->hh));
	OPENSSL_cleanse(g->hl, sizeof(g->hl));
	OPENSSL_cleanse(g->y, sizeof(g->y));
	OPENSSL_cleanse(g->ek_j0, sizeof(g->ek_j0));
	OPENSSL_cleanse(g->partial, sizeof(g->partial));
	g->partial_len = 0;
	g->active = false;
}
