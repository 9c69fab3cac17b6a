/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cipher.c - AES-128/192/256 ECB, CBC and CTR for the engine model, on OpenSSL EVP.
 *
 * CTR state is OpenSSL's own: the IV is the counter of the next unused keystream block
 * (the Linux output-IV convention, counter + ceil(len / 16)) and ctr_offset is how many
 * bytes of block IV - 1 are already used. The counter is 128 bits, big-endian.
 */
#include <string.h>

#include <openssl/crypto.h>

#include "cipher.h"

static const char *const alg_names[3][3] = {
	{ "AES-128-ECB", "AES-192-ECB", "AES-256-ECB" },
	{ "AES-128-CBC", "AES-192-CBC", "AES-256-CBC" },
	{ "AES-128-CTR", "AES-192-CTR", "AES-256-CTR" },
};

int hwemu_cipher_init(struct hwemu_cipher *c)
{
	int m, k;

	memset(c, 0, sizeof(*c));
	for (m = 0; m < 3; m++) {
		for (k = 0; k < 3; k++) {
			c->alg[m][k] = EVP_CIPHER_fetch(NULL, alg_names[m][k], NULL);
			if (!c->alg[m][k]) {
				hwemu_cipher_fini(c);
				return -1;
			}
		}
	}
	return 0;
}

void hwemu_cipher_fini(struct hwemu_cipher *c)
{
	int m, k;

	for (m = 0; m < 3; m++)
		for (k = 0; k < 3; k++)
			EVP_CIPHER_free(c->alg[m][k]);
	memset(c, 0, sizeof(*c));
}

int hwemu_stream_init(struct hwemu_stream *s)
{
	memset(s, 0, sizeof(*s));
	s->evp = EVP_CIPHER_CTX_new();
	return s->evp ? 0 : -1;
}

void hwemu_stream_fini(struct hwemu_stream *s)
{
	EVP_CIPHER_CTX_free(s->evp);	/* cleanses the key schedule */
	s->evp = NULL;
}

/* 128-bit big-endian decrement: the counter of the partially used block. */
static void counter_decrement(uint8_t ctr[HWEMU_AES_BLOCK])
{
	int i;

	for (i = HWEMU_AES_BLOCK - 1; i >= 0; i--)
		if (ctr[i]-- != 0)
			break;
}

enum hwe_err hwemu_stream_start(struct hwemu_stream *s, const struct hwemu_cipher *c,
				const struct hwemu_aes_state *st)
{
	uint32_t unit = (st->cfg & HWE_CFG_UNIT_MASK) >> HWE_CFG_UNIT_SHIFT;
	uint32_t mode = st->cfg & HWE_CFG_MODE_MASK;
	uint32_t keylen = (st->cfg & HWE_CFG_KEYLEN_MASK) >> HWE_CFG_KEYLEN_SHIFT;
	int enc = !(st->cfg & HWE_CFG_DECRYPT);
	uint8_t iv[HWEMU_AES_BLOCK], skip[HWEMU_AES_BLOCK];
	int outl, ok;

	hwemu_stream_abort(s);
	if (unit != HWE_UNIT_AES || mode < HWE_MODE_ECB || mode > HWE_MODE_CTR)
		return HWE_ERR_BAD_CTX;
	if (keylen != 16 && keylen != 24 && keylen != 32)
		return HWE_ERR_BAD_CTX;
	if (st->ctr_offset >= HWEMU_AES_BLOCK || (st->ctr_offset && mode != HWE_MODE_CTR))
		return HWE_ERR_BAD_CTX;

	memcpy(iv, st->iv, sizeof(iv));
	if (st->ctr_offset)
		counter_decrement(iv);
	ok = EVP_CipherInit_ex2(s->evp, c->alg[mode - 1][keylen / 8 - 2], st->key,
				mode == HWE_MODE_ECB ? NULL : iv, enc, NULL) &&
	     EVP_CIPHER_CTX_set_padding(s->evp, 0);
	/* resume mid-block: burn the keystream bytes the previous request used */
	if (ok && st->ctr_offset)
		ok = EVP_CipherUpdate(s->evp, skip, &outl, skip, (int)st->ctr_offset);
	OPENSSL_cleanse(iv, sizeof(iv));
	OPENSSL_cleanse(skip, sizeof(skip));
	if (!ok)
		return HWE_ERR_BAD_CTX;
	s->mode = mode;
	s->active = true;
	return HWE_ERR_NONE;
}

enum hwe_err hwemu_stream_run(struct hwemu_stream *s, const uint8_t *in, uint8_t *out, size_t len)
{
	int outl;

	if (len == 0 || len > INT32_MAX)
		return HWE_ERR_BAD_LEN;
	if (s->mode != HWE_MODE_CTR && len % HWEMU_AES_BLOCK)
		return HWE_ERR_BAD_LEN;
	if (!EVP_CipherUpdate(s->evp, out, &outl, in, (int)len) || (size_t)outl != len)
		return HWE_ERR_BAD_CTX;
	return HWE_ERR_NONE;
}

void hwemu_stream_finish(struct hwemu_stream *s, struct hwemu_aes_state *st)
{
	int num;

	if (s->mode != HWE_MODE_ECB)
		EVP_CIPHER_CTX_get_updated_iv(s->evp, st->iv, sizeof(st->iv));
	if (s->mode == HWE_MODE_CTR) {
		num = EVP_CIPHER_CTX_get_num(s->evp);
		st->ctr_offset = num > 0 ? (uint32_t)num : 0;
	}
	hwemu_stream_abort(s);
}

void hwemu_stream_abort(struct hwemu_stream *s)
{
	if (s->active)
		EVP_CIPHER_CTX_reset(s->evp);
	s->active = false;
}
