// SPDX-License-Identifier: Apache-2.0
/*
 * cipher_mode.c - the mode state of a cipher stream (cipher.h): CBC's chaining value, CTR's
 * counter and its position in a keystream block, and the request that moves them on.
 */
#include <string.h>

#include "provider/cipher.h"

/*
 * What the chaining value after a request of len bytes from in needs before the request runs
 * (in may be out): CBC decryption's last ciphertext block, into kept.
 */
static void chain_keep(const struct cipher_ctx *c, const unsigned char *in, size_t len,
		       unsigned char kept[HWOFF_AES_BLOCK])
{
	if (c->base.alg->mode == HWOFF_MODE_CBC && !c->base.encrypt)
		memcpy(kept, in + len - HWOFF_AES_BLOCK, HWOFF_AES_BLOCK);
}

/* The chaining value moves past a request of len bytes that wrote out. */
static void chain_advance(struct cipher_ctx *c, const unsigned char kept[HWOFF_AES_BLOCK],
			  const unsigned char *out, size_t len)
{
	switch (c->base.alg->mode) {
	case HWOFF_MODE_CBC:
		memcpy(c->chain, c->base.encrypt ? out + len - HWOFF_AES_BLOCK : kept,
		       HWOFF_AES_BLOCK);
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

int cipher_crypt(struct cipher_ctx *c, const unsigned char *in, unsigned char *out, size_t len,
		 size_t route_size)
{
	struct hwoff_path *path =
		hwprov_route(c->base.prov, c->base.alg, cipher_base_direction(&c->base), route_size,
			     &c->base.route);
	unsigned char kept[HWOFF_AES_BLOCK];

	if (!path)
		return 0;
	chain_keep(c, in, len, kept);
	path = cipher_serve(c, path, in, out, len);
	if (!path)
		return 0;
	hwprov_tally_add(c->base.prov, &c->base.tally, path, len);
	chain_advance(c, kept, out, len);
	return 1;
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
	cipher_chain_held_by_none(c);
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
