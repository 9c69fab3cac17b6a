// SPDX-License-Identifier: GPL-2.0-only
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
 * export() is a copy of the request context's struct hwoffload_hash_state. Updates that leave at
 * most a block (with what is buffered) stay in the request, as omap-sham and CESA do; only
 * whole blocks go to the engine before the final request, whose partial block the engine pads.
 *
 * A PIO request whose caller may sleep runs in update/final/finup/digest when nothing waits in
 * the crypto_engine queue, as the skciphers' do (hwoffload-cipher.c); AF_ALG's hash sockets do
 * not say their caller may sleep, so theirs go through crypto_engine.
 */
#include <crypto/hmac.h>
#include <crypto/md5.h>
#include <crypto/sha1.h>
#include <crypto/sha2.h>
#include <linux/module.h>
#include <linux/scatterlist.h>

#include "hwoffload.h"

static const struct hwoffload_hash_info {
	const char *name;
	u32 hw_alg;
	unsigned int digestsize;
	unsigned int blocksize;
	int generic_priority;		/* the kernel's generic C driver's */
	/* the chaining words, as the generic driver exports them (native) and the engine keeps */
	unsigned int words;
	unsigned int word_size;
	bool little_endian;
} hwoffload_hashes[HWOFFLOAD_HASH_COUNT] = {
	[HWOFFLOAD_MD5] = { "md5", HWE_HASH_MD5, MD5_DIGEST_SIZE, MD5_HMAC_BLOCK_SIZE, 0, 4, 4,
			true },
	[HWOFFLOAD_SHA1] = { "sha1", HWE_HASH_SHA1, SHA1_DIGEST_SIZE, SHA1_BLOCK_SIZE, 100, 5, 4 },
	[HWOFFLOAD_SHA224] = { "sha224", HWE_HASH_SHA224, SHA224_DIGEST_SIZE, SHA224_BLOCK_SIZE,
			   100, 8, 4 },
	[HWOFFLOAD_SHA256] = { "sha256", HWE_HASH_SHA256, SHA256_DIGEST_SIZE, SHA256_BLOCK_SIZE,
			   100, 8, 4 },
	[HWOFFLOAD_SHA384] = { "sha384", HWE_HASH_SHA384, SHA384_DIGEST_SIZE, SHA384_BLOCK_SIZE,
			   100, 8, 8 },
	[HWOFFLOAD_SHA512] = { "sha512", HWE_HASH_SHA512, SHA512_DIGEST_SIZE, SHA512_BLOCK_SIZE,
			   100, 8, 8 },
};

static const struct hwoffload_hash_path_info {
	const char *suffix;
	int below_generic;
	u32 flags;
} hwoffload_hash_paths[HWOFFLOAD_PATH_COUNT] = {
	/* DMA may allocate a bounce list per request */
	[HWOFFLOAD_PATH_AUTO] = { "", 10, CRYPTO_ALG_ALLOCATES_MEMORY },
	[HWOFFLOAD_PATH_DMA] = { "-dma", 20, CRYPTO_ALG_ALLOCATES_MEMORY },
	[HWOFFLOAD_PATH_PIO] = { "-pio", 30, 0 },
};

/* the plain hashes, then the HMACs */
#define HWOFFLOAD_HASH_ALG_COUNT	(2 * HWOFFLOAD_HASH_COUNT * HWOFFLOAD_PATH_COUNT)

static struct hwoffload_hash_alg *hwoffload_hash_alg_of(struct crypto_ahash *tfm)
{
	return container_of(__crypto_ahash_alg(crypto_ahash_tfm(tfm)->__crt_alg),
			    struct hwoffload_hash_alg, engine_alg.base);
}

static struct hwoffload_hash_alg *hwoffload_hash_req_alg(struct ahash_request *req)
{
	return hwoffload_hash_alg_of(crypto_ahash_reqtfm(req));
}

unsigned int hwoffload_hash_blocksize(struct ahash_request *req)
{
	return crypto_ahash_blocksize(crypto_ahash_reqtfm(req));
}

unsigned int hwoffload_hash_digestsize(struct ahash_request *req)
{
	return crypto_ahash_digestsize(crypto_ahash_reqtfm(req));
}

/* The opad state the outer hash starts from, if this is an HMAC's final request; else NULL. */
const u8 *hwoffload_hash_outer_state(struct ahash_request *req)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);
	struct hwoffload_hash_tfm_ctx *ctx = crypto_ahash_ctx(crypto_ahash_reqtfm(req));

	return rctx->hmac_final ? ctx->opad_state : NULL;
}

/* HASH_CFG of a request, or of its @first and @last FIFO loads when PIO splits it. */
u32 hwoffload_hash_cfg(struct ahash_request *req, bool first, bool last)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);
	u32 cfg = HWE_CFG(HWE_UNIT_HASH, hwoffload_hashes[hwoffload_hash_req_alg(req)->hash].hw_alg,
			  0, 0);

	if (first && !rctx->st.started)
		cfg |= HWE_HASH_INIT;
	if (last && rctx->final)
		cfg |= HWE_HASH_FINAL;
	return cfg;
}

/* Bytes @off..@off + @len of what the engine hashes for this request: st.buf, then req->src. */
void hwoffload_hash_copy(struct ahash_request *req, void *buf, unsigned int off, unsigned int len)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);
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
 * The engine is done with a request. On success the engine's length and state are in st
 * already: the update's tail becomes the buffer, or the digest goes out. On failure st is as
 * before the request (the engine writes nothing back), so the stream is intact.
 */
static void hwoffload_hash_end(struct ahash_request *req, int err)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);

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
}

/*
 * The engine is done with a queued request (by PIO, or by DMA from the interrupt thread) or a
 * synchronous DMA request, bottom halves off: the caller is told, as hwoffload_cipher_done().
 */
void hwoffload_hash_done(struct hwoffload_dev *hw, struct ahash_request *req, int err)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);

	hwoffload_hash_end(req, err);
	if (rctx->dma.sync) {
		complete(&rctx->dma.done);
		return;
	}
	crypto_finalize_hash_request(hw->engine, req, err);
	hwoffload_dev_put(hw);
}

/*
 * Start a request, as hwoffload_skcipher_start(): PIO runs to the end, DMA is published (0)
 * and the interrupt finishes it; once the device is being unbound, it fails.
 */
static int hwoffload_hash_start(struct hwoffload_dev *hw, struct ahash_request *req)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);

	if (READ_ONCE(hw->unbound))
		return -ENODEV;
	if (rctx->path == HWOFFLOAD_PATH_DMA)
		return hwoffload_dma_submit_hash(hw, req);
	return hwoffload_pio_hash(hw, req);
}

/* The device of the request's transform (hwoffload_dev_get), or NULL. */
static struct hwoffload_dev *hwoffload_hash_dev_get(struct ahash_request *req)
{
	struct hwoffload_hash_tfm_ctx *ctx = crypto_ahash_ctx(crypto_ahash_reqtfm(req));

	return hwoffload_dev_get(ctx->generation);
}

/* A new stream; an HMAC's starts after its ipad block. */
static int hwoffload_hash_init(struct ahash_request *req)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);
	struct hwoffload_hash_tfm_ctx *ctx = crypto_ahash_ctx(crypto_ahash_reqtfm(req));

	memset(&rctx->st, 0, sizeof(rctx->st));
	if (hwoffload_hash_req_alg(req)->hmac) {
		rctx->st.started = 1;
		rctx->st.len_lo = hwoffload_hash_blocksize(req);
		memcpy(rctx->st.state, ctx->ipad_state, sizeof(rctx->st.state));
	}
	return 0;
}

/*
 * One engine request: st.buf, then the first @src_len bytes of req->src; @keep bytes of
 * req->src after them are buffered when it succeeds. The path goes by the bytes hashed.
 */
static int hwoffload_hash_enqueue(struct ahash_request *req, unsigned int src_len,
				  unsigned int keep, bool final)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);
	struct hwoffload_hash_alg *alg = hwoffload_hash_req_alg(req);
	struct hwoffload_dev *hw = hwoffload_hash_dev_get(req);
	int ret;

	if (!hw)
		return -ENODEV;
	rctx->req = req;
	rctx->hw = hw;
	rctx->final = final;
	rctx->hmac_final = final && alg->hmac;
	rctx->src_len = src_len;
	rctx->keep = keep;
	rctx->path = hwoffload_choose_path(hw, alg->path, HWOFFLOAD_THRESHOLD_HASH(alg->hash),
					   rctx->st.buflen + src_len, HWOFFLOAD_STAT_HASH_AUTO_PIO,
					   HWOFFLOAD_STAT_HASH_AUTO_DMA);
	rctx->dma.sync = hwoffload_run_sync(hw, &req->base, rctx->path);
	if (rctx->dma.sync) {
		ret = hwoffload_hash_start(hw, req);
		/* published: hwoffload_hash_done() ends it */
		if (rctx->path == HWOFFLOAD_PATH_DMA && !ret)
			ret = hwoffload_dma_wait(&rctx->dma);
		else
			hwoffload_hash_end(req, ret);
		hwoffload_dev_put(hw);
		return ret;
	}
	hwoffload_queue_enter(hw);
	ret = crypto_transfer_hash_request_to_engine(hw->engine, req);
	return hwoffload_queue_result(hw, ret);
}

static int hwoffload_hash_update(struct ahash_request *req)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);
	unsigned int bs = hwoffload_hash_blocksize(req);
	unsigned int total = rctx->st.buflen + req->nbytes, send;
	struct hwoffload_dev *hw;

	/*
	 * Up to a block stays here: a round trip for less would cost more than it hashes. It
	 * fails all the same without the device, as the stream cannot end.
	 */
	if (total <= bs) {
		hw = hwoffload_hash_dev_get(req);
		if (!hw)
			return -ENODEV;
		if (req->nbytes)
			sg_pcopy_to_buffer(req->src, sg_nents(req->src),
					   rctx->st.buf + rctx->st.buflen, req->nbytes, 0);
		rctx->st.buflen = total;
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_HASH_BUFFERED);
		hwoffload_dev_put(hw);
		return 0;
	}
	send = ALIGN_DOWN(total, bs);
	return hwoffload_hash_enqueue(req, send - rctx->st.buflen, total - send, false);
}

static int hwoffload_hash_final(struct ahash_request *req)
{
	return hwoffload_hash_enqueue(req, 0, 0, true);
}

static int hwoffload_hash_finup(struct ahash_request *req)
{
	return hwoffload_hash_enqueue(req, req->nbytes, 0, true);
}

static int hwoffload_hash_digest(struct ahash_request *req)
{
	hwoffload_hash_init(req);
	return hwoffload_hash_finup(req);
}

static int hwoffload_hash_export(struct ahash_request *req, void *out)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);

	memcpy(out, &rctx->st, sizeof(rctx->st));
	return 0;
}

static int hwoffload_hash_import(struct ahash_request *req, const void *in)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);
	const struct hwoffload_hash_state *st = in;

	/* a state from elsewhere must not make hwoffload_hash_copy() read past st.buf */
	if (st->buflen > hwoffload_hash_blocksize(req))
		return -EINVAL;
	memcpy(&rctx->st, st, sizeof(rctx->st));
	return 0;
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
	memset(state, 0, HWE_HASH_STATE_SIZE);
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

static int hwoffload_hmac_setkey(struct crypto_ahash *tfm, const u8 *key, unsigned int keylen)
{
	struct hwoffload_hash_tfm_ctx *ctx = crypto_ahash_ctx(tfm);
	const struct hwoffload_hash_info *h = &hwoffload_hashes[hwoffload_hash_alg_of(tfm)->hash];
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
	return ret;
}

/* In the crypto_engine thread, as hwoffload_skcipher_do_one(). */
static int hwoffload_hash_do_one(struct crypto_engine *engine, void *areq)
{
	struct ahash_request *req = container_of(areq, struct ahash_request, base);
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);
	struct hwoffload_dev *hw = rctx->hw;
	bool dma = rctx->path == HWOFFLOAD_PATH_DMA;
	int err;

	err = hwoffload_hash_start(hw, req);
	hwoffload_queue_leave(hw);
	/* published: the request may be finalized already */
	if (dma && !err)
		return 0;
	local_bh_disable();
	hwoffload_hash_done(hw, req, err);
	local_bh_enable();
	return 0;
}

static int hwoffload_hash_init_tfm(struct crypto_ahash *tfm)
{
	struct hwoffload_hash_tfm_ctx *ctx = crypto_ahash_ctx(tfm);
	struct hwoffload_hash_alg *alg = hwoffload_hash_alg_of(tfm);
	char generic[CRYPTO_MAX_ALG_NAME];
	int ret;

	hwoffload_engine_tfm_init(&ctx->engine, &alg->engine_alg.op);
	crypto_ahash_set_reqsize(tfm, sizeof(struct hwoffload_hash_req_ctx));
	ctx->generic = NULL;
	if (alg->hmac) {
		/* by driver name: its export format is the one hwoffload_hmac_pad_state() reads */
		snprintf(generic, sizeof(generic), "%s-generic", hwoffload_hashes[alg->hash].name);
		ctx->generic = crypto_alloc_shash(generic, 0, 0);
		if (IS_ERR(ctx->generic))
			return PTR_ERR(ctx->generic);
	}
	ret = hwoffload_tfm_attach(&ctx->generation, HWE_CAP_HASH);
	if (ret)
		crypto_free_shash(ctx->generic);
	return ret;
}

static void hwoffload_hash_exit_tfm(struct crypto_ahash *tfm)
{
	struct hwoffload_hash_tfm_ctx *ctx = crypto_ahash_ctx(tfm);

	/* the pad states are as good as the key */
	memzero_explicit(ctx->ipad_state, sizeof(ctx->ipad_state));
	memzero_explicit(ctx->opad_state, sizeof(ctx->opad_state));
	crypto_free_shash(ctx->generic);
	hwoffload_tfm_detach(ctx->generation);
}

static void hwoffload_hash_alg_init(struct hwoffload_hash_alg *alg, enum hwoffload_hash_index hash,
				    enum hwoffload_path path, bool hmac)
{
	const struct hwoffload_hash_info *h = &hwoffload_hashes[hash];
	const struct hwoffload_hash_path_info *p = &hwoffload_hash_paths[path];
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
		ahash->setkey = hwoffload_hmac_setkey;
	} else {
		snprintf(base->cra_name, sizeof(base->cra_name), "%s", h->name);
		snprintf(base->cra_driver_name, sizeof(base->cra_driver_name), "%s-hwoffload%s",
			 h->name, p->suffix);
	}
	base->cra_priority = max(h->generic_priority - p->below_generic, 0);
	base->cra_flags = CRYPTO_ALG_ASYNC | CRYPTO_ALG_KERN_DRIVER_ONLY | p->flags;
	base->cra_blocksize = h->blocksize;
	base->cra_ctxsize = sizeof(struct hwoffload_hash_tfm_ctx);
	base->cra_module = THIS_MODULE;
	ahash->halg.digestsize = h->digestsize;
	ahash->halg.statesize = sizeof(struct hwoffload_hash_state);
	ahash->init = hwoffload_hash_init;
	ahash->update = hwoffload_hash_update;
	ahash->final = hwoffload_hash_final;
	ahash->finup = hwoffload_hash_finup;
	ahash->digest = hwoffload_hash_digest;
	ahash->export = hwoffload_hash_export;
	ahash->import = hwoffload_hash_import;
	ahash->init_tfm = hwoffload_hash_init_tfm;
	ahash->exit_tfm = hwoffload_hash_exit_tfm;
	alg->engine_alg.op.do_one_request = hwoffload_hash_do_one;
}

/* The module's hashes (hwoffload.h, "Lifetime"); registering is serialized by binding. */
static struct hwoffload_hash_alg hwoffload_hash_algs[HWOFFLOAD_HASH_ALG_COUNT];
static bool hwoffload_hash_registered;

/* Unless they are already: their self-tests run on @hw. */
int hwoffload_hash_register(struct hwoffload_dev *hw)
{
	int i, ret;

	BUILD_BUG_ON(sizeof(struct hwoffload_hash_state) > HASH_MAX_STATESIZE);
	for (i = 0; !hwoffload_hash_registered && i < HWOFFLOAD_HASH_ALG_COUNT; i++) {
		hwoffload_hash_alg_init(
			&hwoffload_hash_algs[i], i / HWOFFLOAD_PATH_COUNT % HWOFFLOAD_HASH_COUNT,
			i % HWOFFLOAD_PATH_COUNT, i >= HWOFFLOAD_HASH_ALG_COUNT / 2);
		ret = crypto_engine_register_ahash(&hwoffload_hash_algs[i].engine_alg);
		if (ret) {
			dev_err(hw->dev, "cannot register %s: %d\n",
				hwoffload_hash_algs[i].engine_alg.base.halg.base.cra_driver_name,
				ret);
			goto err_unregister;
		}
	}
	hwoffload_hash_registered = true;
	return 0;

err_unregister:
	while (i--)
		crypto_engine_unregister_ahash(&hwoffload_hash_algs[i].engine_alg);
	return ret;
}

/* At module exit: no transform is left. */
void hwoffload_hash_unregister(void)
{
	int i;

	for (i = 0; hwoffload_hash_registered && i < HWOFFLOAD_HASH_ALG_COUNT; i++)
		crypto_engine_unregister_ahash(&hwoffload_hash_algs[i].engine_alg);
}
