// SPDX-License-Identifier: GPL-2.0
/*
 * hwoffload ahashes: md5, sha1, sha224, sha256, sha384 and sha512 on the engine's hash unit
 * (ENGINE.md section 11), each on three paths as the skciphers are:
 *
 *   HASH-hwoffload-pio		PIO only
 *   HASH-hwoffload-dma		DMA only
 *   HASH-hwoffload		PIO up to the hash's threshold, DMA above it
 *
 * at priorities 30, 20 and 10 below the kernel's generic C driver of the same hash: on x86 the
 * bare name keeps the kernel's software (generic C, SSSE3/AVX2/SHA-NI above it), which beats an
 * engine reached over a round trip per request; the engine is taken by driver name. md5-generic
 * sits at 0 and the kernel refuses a negative priority, so the md5 drivers are at 0 too: a tie,
 * which the lookup of the bare name resolves to the driver registered last.
 *
 * hmac(HASH) comes on the same three paths, as drivers named hmac(HASH-hwoffload[-pio|-dma]): the
 * kernel's hmac template (before 6.16) takes only synchronous hashes and cannot be built over
 * these, so the driver does HMAC itself, as omap-sham and CESA do. setkey() derives the
 * chaining states after the ipad and opad blocks with the generic C hash (a block each, once
 * per key); a stream starts from the ipad state, and its final request runs the outer hash
 * from the opad state over the inner digest on the engine, in the same PIO round or DMA
 * publication.
 *
 * The unit keeps no stream between requests: every request carries the stream's length and
 * chaining state in and gets them back, so any number of streams share the engine, and
 * export() is a copy of the request context's struct hwoff_hash_state. Updates that leave at
 * most a block (with what is buffered) stay in the request, as omap-sham and CESA do; only
 * whole blocks go to the engine before the final request, whose partial block the engine pads.
 */
#include <crypto/hmac.h>
#include <crypto/md5.h>
#include <crypto/sha1.h>
#include <crypto/sha2.h>
#include <linux/module.h>
#include <linux/scatterlist.h>

#include "hwoffload.h"

static const struct hwoff_hash_info {
	const char *name;
	u32 hw_alg;
	unsigned int digestsize;
	unsigned int blocksize;
	int generic_priority;		/* the kernel's generic C driver's */
	/* the chaining words, as the generic driver exports them (native) and the engine keeps */
	unsigned int words;
	unsigned int word_size;
	bool little_endian;
} hwoff_hashes[HWOFF_HASH_COUNT] = {
	[HWOFF_MD5] = { "md5", HWOFF_HASH_MD5, MD5_DIGEST_SIZE, MD5_HMAC_BLOCK_SIZE, 0, 4, 4,
			true },
	[HWOFF_SHA1] = { "sha1", HWOFF_HASH_SHA1, SHA1_DIGEST_SIZE, SHA1_BLOCK_SIZE, 100, 5, 4 },
	[HWOFF_SHA224] = { "sha224", HWOFF_HASH_SHA224, SHA224_DIGEST_SIZE, SHA224_BLOCK_SIZE,
			   100, 8, 4 },
	[HWOFF_SHA256] = { "sha256", HWOFF_HASH_SHA256, SHA256_DIGEST_SIZE, SHA256_BLOCK_SIZE,
			   100, 8, 4 },
	[HWOFF_SHA384] = { "sha384", HWOFF_HASH_SHA384, SHA384_DIGEST_SIZE, SHA384_BLOCK_SIZE,
			   100, 8, 8 },
	[HWOFF_SHA512] = { "sha512", HWOFF_HASH_SHA512, SHA512_DIGEST_SIZE, SHA512_BLOCK_SIZE,
			   100, 8, 8 },
};

static const struct hwoff_hash_path_info {
	const char *suffix;
	int below_generic;
	u32 flags;
} hwoff_hash_paths[HWOFF_PATH_COUNT] = {
	/* DMA may allocate a bounce list per request */
	[HWOFF_PATH_AUTO] = { "", 10, CRYPTO_ALG_ALLOCATES_MEMORY },
	[HWOFF_PATH_DMA] = { "-dma", 20, CRYPTO_ALG_ALLOCATES_MEMORY },
	[HWOFF_PATH_PIO] = { "-pio", 30, 0 },
};

/* the plain hashes, then the HMACs */
#define HWOFF_HASH_ALG_COUNT	(2 * HWOFF_HASH_COUNT * HWOFF_PATH_COUNT)

static struct hwoff_hash_alg *hwoff_hash_alg_of(struct crypto_ahash *tfm)
{
	return container_of(__crypto_ahash_alg(crypto_ahash_tfm(tfm)->__crt_alg),
			    struct hwoff_hash_alg, engine_alg.base);
}

static struct hwoff_hash_alg *hwoff_hash_req_alg(struct ahash_request *req)
{
	return hwoff_hash_alg_of(crypto_ahash_reqtfm(req));
}

unsigned int hwoff_hash_blocksize(struct ahash_request *req)
{
	return crypto_ahash_blocksize(crypto_ahash_reqtfm(req));
}

unsigned int hwoff_hash_digestsize(struct ahash_request *req)
{
	return crypto_ahash_digestsize(crypto_ahash_reqtfm(req));
}

/* The opad state the outer hash starts from, if this is an HMAC's final request; else NULL. */
const u8 *hwoff_hash_outer_state(struct ahash_request *req)
{
	struct hwoff_hash_req_ctx *rctx = ahash_request_ctx(req);
	struct hwoff_hash_tfm_ctx *ctx = crypto_ahash_ctx(crypto_ahash_reqtfm(req));

	return rctx->hmac_final ? ctx->opad_state : NULL;
}

/* HASH_CFG of a request, or of its @first and @last FIFO loads when PIO splits it. */
u32 hwoff_hash_cfg(struct ahash_request *req, bool first, bool last)
{
	struct hwoff_hash_req_ctx *rctx = ahash_request_ctx(req);
	u32 cfg = HWOFF_CFG(HWOFF_UNIT_HASH, hwoff_hashes[hwoff_hash_req_alg(req)->hash].hw_alg,
			    0, 0);

	if (first && !rctx->st.started)
		cfg |= HWOFF_HASH_INIT;
	if (last && rctx->final)
		cfg |= HWOFF_HASH_FINAL;
	return cfg;
}

/* Bytes @off..@off + @len of what the engine hashes for this request: st.buf, then req->src. */
void hwoff_hash_copy(struct ahash_request *req, void *buf, unsigned int off, unsigned int len)
{
	struct hwoff_hash_req_ctx *rctx = ahash_request_ctx(req);
	unsigned int n;

	if (off < rctx->st.buflen) {
		n = min(len, rctx->st.buflen - off);
		memcpy(buf, rctx->st.buf + off, n);
		buf += n;
		off += n;
		len -= n;
	}
	if (len)
		sg_pcopy_to_buffer(req->src, sg_nents(req->src), buf, len, off - rctx->st.buflen);
}

/*
 * The engine is done with a request (by PIO, or by DMA from the interrupt thread), bottom
 * halves off. On success the engine's length and state are in st already: the update's tail
 * becomes the buffer, or the digest goes out. On failure st is as before the request (the
 * engine writes nothing back), so the stream is intact.
 */
void hwoff_hash_done(struct hwoff_dev *hw, struct ahash_request *req, int err)
{
	struct hwoff_hash_req_ctx *rctx = ahash_request_ctx(req);

	if (!err) {
		rctx->st.started = 1;
		if (rctx->final) {
			memcpy(req->result, rctx->st.state,
			       crypto_ahash_digestsize(crypto_ahash_reqtfm(req)));
			rctx->st.buflen = 0;
		} else {
			if (rctx->keep)
				sg_pcopy_to_buffer(req->src, sg_nents(req->src), rctx->st.buf,
						   rctx->keep, rctx->src_len);
			rctx->st.buflen = rctx->keep;
		}
	}
	crypto_finalize_hash_request(hw->engine, req, err);
	hwoff_dev_put(hw);
}

/* The device of the request's transform (hwoff_dev_get), or NULL. */
static struct hwoff_dev *hwoff_hash_dev_get(struct ahash_request *req)
{
	struct hwoff_hash_tfm_ctx *ctx = crypto_ahash_ctx(crypto_ahash_reqtfm(req));

	return hwoff_dev_get(ctx->generation);
}

/* A new stream; an HMAC's starts after its ipad block. */
static int hwoff_hash_init(struct ahash_request *req)
{
	struct hwoff_hash_req_ctx *rctx = ahash_request_ctx(req);
	struct hwoff_hash_tfm_ctx *ctx = crypto_ahash_ctx(crypto_ahash_reqtfm(req));

	memset(&rctx->st, 0, sizeof(rctx->st));
	if (hwoff_hash_req_alg(req)->hmac) {
		rctx->st.started = 1;
		rctx->st.len_lo = hwoff_hash_blocksize(req);
		memcpy(rctx->st.state, ctx->ipad_state, sizeof(rctx->st.state));
	}
	return 0;
}

/*
 * One engine request: st.buf, then the first @src_len bytes of req->src; @keep bytes of
 * req->src after them are buffered when it succeeds. The path goes by the bytes hashed.
 */
static int hwoff_hash_enqueue(struct ahash_request *req, unsigned int src_len,
			      unsigned int keep, bool final)
{
	struct hwoff_hash_req_ctx *rctx = ahash_request_ctx(req);
	struct hwoff_hash_alg *alg = hwoff_hash_req_alg(req);
	struct hwoff_dev *hw = hwoff_hash_dev_get(req);
	int ret;

	if (!hw)
		return -ENODEV;
	rctx->req = req;
	rctx->hw = hw;
	rctx->final = final;
	rctx->hmac_final = final && alg->hmac;
	rctx->src_len = src_len;
	rctx->keep = keep;
	rctx->path = hwoff_choose_path(hw, alg->path, HWOFF_THRESHOLD_HASH(alg->hash),
				       rctx->st.buflen + src_len, true);
	ret = crypto_transfer_hash_request_to_engine(hw->engine, req);
	/* -EBUSY: backlogged, still queued */
	if (ret != -EINPROGRESS && ret != -EBUSY)
		hwoff_dev_put(hw);
	return ret;
}

static int hwoff_hash_update(struct ahash_request *req)
{
	struct hwoff_hash_req_ctx *rctx = ahash_request_ctx(req);
	unsigned int bs = hwoff_hash_blocksize(req);
	unsigned int total = rctx->st.buflen + req->nbytes, send;
	struct hwoff_dev *hw;

	/*
	 * Up to a block stays here: a round trip for less would cost more than it hashes. It
	 * fails all the same without the device, as the stream cannot end.
	 */
	if (total <= bs) {
		hw = hwoff_hash_dev_get(req);
		if (!hw)
			return -ENODEV;
		if (req->nbytes)
			sg_pcopy_to_buffer(req->src, sg_nents(req->src),
					   rctx->st.buf + rctx->st.buflen, req->nbytes, 0);
		rctx->st.buflen = total;
		hwoff_stat_inc(hw, HWOFF_STAT_HASH_BUFFERED);
		hwoff_dev_put(hw);
		return 0;
	}
	send = ALIGN_DOWN(total, bs);
	return hwoff_hash_enqueue(req, send - rctx->st.buflen, total - send, false);
}

static int hwoff_hash_final(struct ahash_request *req)
{
	return hwoff_hash_enqueue(req, 0, 0, true);
}

static int hwoff_hash_finup(struct ahash_request *req)
{
	return hwoff_hash_enqueue(req, req->nbytes, 0, true);
}

static int hwoff_hash_digest(struct ahash_request *req)
{
	hwoff_hash_init(req);
	return hwoff_hash_finup(req);
}

static int hwoff_hash_export(struct ahash_request *req, void *out)
{
	struct hwoff_hash_req_ctx *rctx = ahash_request_ctx(req);

	memcpy(out, &rctx->st, sizeof(rctx->st));
	return 0;
}

static int hwoff_hash_import(struct ahash_request *req, const void *in)
{
	struct hwoff_hash_req_ctx *rctx = ahash_request_ctx(req);
	const struct hwoff_hash_state *st = in;

	/* a state from elsewhere must not make hwoff_hash_copy() read past st.buf */
	if (st->buflen > hwoff_hash_blocksize(req))
		return -EINVAL;
	memcpy(&rctx->st, st, sizeof(rctx->st));
	return 0;
}

/* The chaining state after one block of @key ^ @fill, in the engine's layout (ENGINE.md s11). */
static int hwoff_hmac_pad_state(struct shash_desc *desc, const struct hwoff_hash_info *h,
				const u8 *key, u8 fill, u8 *state)
{
	union {
		struct md5_state md5;
		struct sha1_state sha1;
		struct sha256_state sha256;
		struct sha512_state sha512;
	} exported;
	u8 block[HWOFF_HASH_BLOCK_MAX];
	unsigned int i;
	int ret;

	for (i = 0; i < h->blocksize; i++)
		block[i] = key[i] ^ fill;
	ret = crypto_shash_init(desc) ?: crypto_shash_update(desc, block, h->blocksize) ?:
	      crypto_shash_export(desc, &exported);
	memset(state, 0, HWOFF_HASH_STATE_SIZE);
	/* the state words lead every generic export */
	for (i = 0; !ret && i < h->words; i++) {
		if (h->word_size == 8)
			put_unaligned_be64(((u64 *)&exported)[i], state + 8 * i);
		else if (h->little_endian)
			put_unaligned_le32(((u32 *)&exported)[i], state + 4 * i);
		else
			put_unaligned_be32(((u32 *)&exported)[i], state + 4 * i);
	}
	memzero_explicit(block, sizeof(block));
	memzero_explicit(&exported, sizeof(exported));
	return ret;
}

static int hwoff_hmac_setkey(struct crypto_ahash *tfm, const u8 *key, unsigned int keylen)
{
	struct hwoff_hash_tfm_ctx *ctx = crypto_ahash_ctx(tfm);
	const struct hwoff_hash_info *h = &hwoff_hashes[hwoff_hash_alg_of(tfm)->hash];
	u8 pad[HWOFF_HASH_BLOCK_MAX] = { 0 };
	int ret = 0;

	SHASH_DESC_ON_STACK(desc, ctx->generic);
	desc->tfm = ctx->generic;
	/* a key longer than a block is its digest (RFC 2104) */
	if (keylen > h->blocksize)
		ret = crypto_shash_tfm_digest(ctx->generic, key, keylen, pad);
	else
		memcpy(pad, key, keylen);
	ret = ret ?: hwoff_hmac_pad_state(desc, h, pad, HMAC_IPAD_VALUE, ctx->ipad_state);
	ret = ret ?: hwoff_hmac_pad_state(desc, h, pad, HMAC_OPAD_VALUE, ctx->opad_state);
	memzero_explicit(pad, sizeof(pad));
	shash_desc_zero(desc);
	return ret;
}

/* In the crypto_engine thread, as hwoff_skcipher_do_one(). */
static int hwoff_hash_do_one(struct crypto_engine *engine, void *areq)
{
	struct ahash_request *req = container_of(areq, struct ahash_request, base);
	struct hwoff_hash_req_ctx *rctx = ahash_request_ctx(req);
	struct hwoff_dev *hw = rctx->hw;
	int err;

	if (READ_ONCE(hw->unbound)) {
		err = -ENODEV;
	} else if (rctx->path == HWOFF_PATH_DMA) {
		err = hwoff_dma_submit_hash(hw, req);
		if (!err)
			return 0;
	} else {
		err = hwoff_pio_hash(hw, req);
	}
	local_bh_disable();
	hwoff_hash_done(hw, req, err);
	local_bh_enable();
	return 0;
}

static int hwoff_hash_init_tfm(struct crypto_ahash *tfm)
{
	struct hwoff_hash_tfm_ctx *ctx = crypto_ahash_ctx(tfm);
	struct hwoff_hash_alg *alg = hwoff_hash_alg_of(tfm);
	char generic[CRYPTO_MAX_ALG_NAME];
	int ret;

	hwoff_engine_tfm_init(&ctx->engine, &alg->engine_alg.op);
	crypto_ahash_set_reqsize(tfm, sizeof(struct hwoff_hash_req_ctx));
	ctx->generic = NULL;
	if (alg->hmac) {
		/* by driver name: its export format is the one hwoff_hmac_pad_state() reads */
		snprintf(generic, sizeof(generic), "%s-generic", hwoff_hashes[alg->hash].name);
		ctx->generic = crypto_alloc_shash(generic, 0, 0);
		if (IS_ERR(ctx->generic))
			return PTR_ERR(ctx->generic);
	}
	ret = hwoff_tfm_attach(&ctx->generation, HWOFF_CAP_HASH);
	if (ret)
		crypto_free_shash(ctx->generic);
	return ret;
}

static void hwoff_hash_exit_tfm(struct crypto_ahash *tfm)
{
	struct hwoff_hash_tfm_ctx *ctx = crypto_ahash_ctx(tfm);

	/* the pad states are as good as the key */
	memzero_explicit(ctx->ipad_state, sizeof(ctx->ipad_state));
	memzero_explicit(ctx->opad_state, sizeof(ctx->opad_state));
	crypto_free_shash(ctx->generic);
	hwoff_tfm_detach(ctx->generation);
}

static void hwoff_hash_alg_init(struct hwoff_hash_alg *alg, enum hwoff_hash_index hash,
				enum hwoff_path path, bool hmac)
{
	const struct hwoff_hash_info *h = &hwoff_hashes[hash];
	const struct hwoff_hash_path_info *p = &hwoff_hash_paths[path];
	struct ahash_alg *ahash = &alg->engine_alg.base;
	struct crypto_alg *base = &ahash->halg.base;

	alg->hash = hash;
	alg->path = path;
	alg->hmac = hmac;
	if (hmac) {
		/* the name the hmac template would give, so AF_ALG binds it by that name */
		snprintf(base->cra_name, sizeof(base->cra_name), "hmac(%s)", h->name);
		snprintf(base->cra_driver_name, sizeof(base->cra_driver_name),
			 "hmac(%s-hwoffload%s)", h->name, p->suffix);
		ahash->setkey = hwoff_hmac_setkey;
	} else {
		snprintf(base->cra_name, sizeof(base->cra_name), "%s", h->name);
		snprintf(base->cra_driver_name, sizeof(base->cra_driver_name), "%s-hwoffload%s",
			 h->name, p->suffix);
	}
	base->cra_priority = max(h->generic_priority - p->below_generic, 0);
	base->cra_flags = CRYPTO_ALG_ASYNC | CRYPTO_ALG_KERN_DRIVER_ONLY | p->flags;
	base->cra_blocksize = h->blocksize;
	base->cra_ctxsize = sizeof(struct hwoff_hash_tfm_ctx);
	base->cra_module = THIS_MODULE;
	ahash->halg.digestsize = h->digestsize;
	ahash->halg.statesize = sizeof(struct hwoff_hash_state);
	ahash->init = hwoff_hash_init;
	ahash->update = hwoff_hash_update;
	ahash->final = hwoff_hash_final;
	ahash->finup = hwoff_hash_finup;
	ahash->digest = hwoff_hash_digest;
	ahash->export = hwoff_hash_export;
	ahash->import = hwoff_hash_import;
	ahash->init_tfm = hwoff_hash_init_tfm;
	ahash->exit_tfm = hwoff_hash_exit_tfm;
	alg->engine_alg.op.do_one_request = hwoff_hash_do_one;
}

/* The module's hashes (hwoffload.h, "Lifetime"); registering is serialized by binding. */
static struct hwoff_hash_alg hwoff_hash_algs[HWOFF_HASH_ALG_COUNT];
static bool hwoff_hash_registered;

/* Unless they are already: their self-tests run on @hw. */
int hwoff_hash_register(struct hwoff_dev *hw)
{
	int i, ret;

	BUILD_BUG_ON(sizeof(struct hwoff_hash_state) > HASH_MAX_STATESIZE);
	for (i = 0; !hwoff_hash_registered && i < HWOFF_HASH_ALG_COUNT; i++) {
		hwoff_hash_alg_init(&hwoff_hash_algs[i], i / HWOFF_PATH_COUNT % HWOFF_HASH_COUNT,
				    i % HWOFF_PATH_COUNT, i >= HWOFF_HASH_ALG_COUNT / 2);
		ret = crypto_engine_register_ahash(&hwoff_hash_algs[i].engine_alg);
		if (ret) {
			dev_err(hw->dev, "cannot register %s: %d\n",
				hwoff_hash_algs[i].engine_alg.base.halg.base.cra_driver_name, ret);
			goto err_unregister;
		}
	}
	hwoff_hash_registered = true;
	return 0;

err_unregister:
	while (i--)
		crypto_engine_unregister_ahash(&hwoff_hash_algs[i].engine_alg);
	return ret;
}

/* At module exit: no transform is left. */
void hwoff_hash_unregister(void)
{
	int i;

	for (i = 0; hwoff_hash_registered && i < HWOFF_HASH_ALG_COUNT; i++)
		crypto_engine_unregister_ahash(&hwoff_hash_algs[i].engine_alg);
}
