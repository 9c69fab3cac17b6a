// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwoffload HMAC keys, for the hmac(HASH) drivers of hwoffload-hash.c: the kernel's hmac template
 * (before 6.16) takes only synchronous hashes and cannot be built over those, so the driver does
 * HMAC itself, as omap-sham and CESA do. setkey() derives the chaining states after the ipad and
 * opad blocks with the generic C hash (a block each, once per key); the hash file starts a
 * stream from the ipad state and ends it with the outer hash from the opad state.
 */
#include <crypto/hmac.h>
#include <crypto/md5.h>
#include <crypto/sha1.h>
#include <crypto/sha2.h>

#include "hwoffload.h"

/* The generic C hash of an HMAC transform, by driver name: its export is what we read. */
int hwoffload_hmac_init_tfm(struct hwoffload_hash_tfm_ctx *ctx)
{
	char generic[CRYPTO_MAX_ALG_NAME];

	snprintf(generic, sizeof(generic), "%s-generic", ctx->info->name);
	ctx->generic = crypto_alloc_shash(generic, 0, 0);
	return PTR_ERR_OR_ZERO(ctx->generic);
}

/* The chaining state after one block of @key ^ @fill, in the engine's layout (ENGINE.md s11). */
static int hwoffload_hmac_pad_state(struct shash_desc *desc, const struct hwoffload_hash_info *h,
				    const u8 *key, u8 fill, u8 *state)
{
	union {
		struct md5_state md5;
		struct sha1_state sha1;
		struct sha256_state sha256;
		struct sha512_state sha512;
	} exported;
	u8 block[HWE_HASH_BLOCK_MAX];
	unsigned int i;
	int ret;

	for (i = 0; i < h->blocksize; i++)
		block[i] = key[i] ^ fill;
	ret = crypto_shash_init(desc) ?: crypto_shash_update(desc, block, h->blocksize) ?:
	      crypto_shash_export(desc, &exported);
	if (ret)
		memset(state, 0, HWE_HASH_STATE_SIZE);
	else
		hwoffload_hash_words_to_state(h, &exported, state);
	memzero_explicit(block, sizeof(block));
	memzero_explicit(&exported, sizeof(exported));
	return ret;
}

int hwoffload_hmac_setkey(struct crypto_ahash *tfm, const u8 *key, unsigned int keylen)
{
	struct hwoffload_hash_tfm_ctx *ctx = crypto_ahash_ctx(tfm);
	const struct hwoffload_hash_info *h = ctx->info;
	u8 pad[HWE_HASH_BLOCK_MAX] = { 0 };
	int ret = 0;

	SHASH_DESC_ON_STACK(desc, ctx->generic);
	desc->tfm = ctx->generic;
	/* a key longer than a block is its digest (RFC 2104) */
	if (keylen > h->blocksize)
		ret = crypto_shash_tfm_digest(ctx->generic, key, keylen, pad);
	else
		memcpy(pad, key, keylen);
	ret = ret ?: hwoffload_hmac_pad_state(desc, h, pad, HMAC_IPAD_VALUE, ctx->ipad_state);
	ret = ret ?: hwoffload_hmac_pad_state(desc, h, pad, HMAC_OPAD_VALUE, ctx->opad_state);
	memzero_explicit(pad, sizeof(pad));
	shash_desc_zero(desc);
	/* the auto driver's software tier, with the caller's request flags */
	if (!ret && ctx->software) {
		crypto_ahash_clear_flags(ctx->software, CRYPTO_TFM_REQ_MASK);
		crypto_ahash_set_flags(ctx->software,
				       crypto_ahash_get_flags(tfm) & CRYPTO_TFM_REQ_MASK);
		ret = crypto_ahash_setkey(ctx->software, key, keylen);
	}
	return ret;
}
