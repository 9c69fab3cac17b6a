// SPDX-License-Identifier: Apache-2.0
/*
 * cipher_mode.c - the mode state of a cipher stream (cipher.h): CBC's chaining value, CTR's
 * counter and its position in a keystream block.
 */
#include <string.h>

#include "provider/cipher.h"

void cipher_chain_keep(const struct cipher_ctx *c, const unsigned char *in, size_t len,
		       unsigned char kept[HWOFF_AES_BLOCK])
{
	if (c->alg->mode == HWOFF_MODE_CBC && !c->encrypt)
		memcpy(kept, in + len - HWOFF_AES_BLOCK, HWOFF_AES_BLOCK);
}

void cipher_chain_advance(struct cipher_ctx *c, const unsigned char kept[HWOFF_AES_BLOCK],
			  const unsigned char *out, size_t len)
{
	switch (c->alg->mode) {
	case HWOFF_MODE_CBC:
		memcpy(c->chain, c->encrypt ? out + len - HWOFF_AES_BLOCK : kept, HWOFF_AES_BLOCK);
		break;
	case HWOFF_MODE_CTR:
		hwoff_ctr_add(c->chain, (len + HWOFF_AES_BLOCK - 1) / HWOFF_AES_BLOCK);
		c->num = len % HWOFF_AES_BLOCK;
		c->keystream_known = false;
		break;
	default:
		break;
	}
}

static void counter_sub_one(unsigned char *counter)
{
	for (int i = HWOFF_AES_BLOCK - 1; i >= 0 && counter[i]-- == 0; i--)
		;
}

/* The keystream block before the counter: the rest of it is what a partial block left unused. */
static int recover_keystream(struct cipher_ctx *c)
{
	static const unsigned char zeros[HWOFF_AES_BLOCK];
	unsigned char counter[HWOFF_AES_BLOCK];
	int ok;

	memcpy(counter, c->chain, HWOFF_AES_BLOCK);
	counter_sub_one(c->chain);
	c->chain_holder = CHAIN_NOBODY;
	/* Encrypting zeros from there gives that block's keystream, and leaves software at counter.
	 */
	ok = cipher_software_crypt(c, zeros, c->keystream, HWOFF_AES_BLOCK);
	memcpy(c->chain, counter, HWOFF_AES_BLOCK);
	c->keystream_known = ok;
	return ok;
}

int cipher_ctr_crypt(struct cipher_ctx *c, unsigned char *out, const unsigned char *in, size_t len)
{
	size_t n = 0;

	while (c->num && n < len) {
		if (!c->keystream_known && !recover_keystream(c))
			return 0;
		out[n] = in[n] ^ c->keystream[c->num];
		n++;
		c->num = (c->num + 1) % HWOFF_AES_BLOCK;
	}
	return n == len || cipher_crypt(c, in + n, out + n, len - n, len - n);
}
