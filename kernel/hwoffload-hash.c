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
 * The unit keeps no stream between requests: every request carries the stream's length and
 * chaining state in and gets them back, so any number of streams share the engine, and
 * export() is a copy of the request context's struct hwoff_hash_state. Updates of less than a
 * block (with what is buffered) stay in the request, as omap-sham and CESA do; only whole
 * blocks go to the engine before the final request, whose partial block the engine pads.
 */
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
} hwoff_hashes[HWOFF_HASH_COUNT] = {
	[HWOFF_MD5] = { "md5", HWOFF_HASH_MD5, MD5_DIGEST_SIZE, MD5_HMAC_BLOCK_SIZE, 0 },
	[HWOFF_SHA1] = { "sha1", HWOFF_HASH_SHA1, SHA1_DIGEST_SIZE, SHA1_BLOCK_SIZE, 100 },
	[HWOFF_SHA224] = { "sha224", HWOFF_HASH_SHA224, SHA224_DIGEST_SIZE, SHA224_BLOCK_SIZE,
			   100 },
	[HWOFF_SHA256] = { "sha256", HWOFF_HASH_SHA256, SHA256_DIGEST_SIZE, SHA256_BLOCK_SIZE,
			   100 },
	[HWOFF_SHA384] = { "sha384", HWOFF_HASH_SHA384, SHA384_DIGEST_SIZE, SHA384_BLOCK_SIZE,
			   100 },
	[HWOFF_SHA512] = { "sha512", HWOFF_HASH_SHA512, SHA512_DIGEST_SIZE, SHA512_BLOCK_SIZE,
			   100 },
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

#define HWOFF_HASH_ALG_COUNT	(HWOFF_HASH_COUNT * HWOFF_PATH_COUNT)

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
}

static int hwoff_hash_init(struct ahash_request *req)
{
	struct hwoff_hash_req_ctx *rctx = ahash_request_ctx(req);

	memset(&rctx->st, 0, sizeof(rctx->st));
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

	rctx->req = req;
	rctx->final = final;
	rctx->src_len = src_len;
	rctx->keep = keep;
	rctx->path = hwoff_choose_path(alg->hw, alg->path, HWOFF_THRESHOLD_HASH(alg->hash),
				       rctx->st.buflen + src_len, true);
	return crypto_transfer_hash_request_to_engine(alg->hw->engine, req);
}

static int hwoff_hash_update(struct ahash_request *req)
{
	struct hwoff_hash_req_ctx *rctx = ahash_request_ctx(req);
	unsigned int bs = hwoff_hash_blocksize(req);
	unsigned int total = rctx->st.buflen + req->nbytes, send;

	/* Up to a block stays here: a round trip for less would cost more than it hashes. */
	if (total <= bs) {
		if (req->nbytes)
			sg_pcopy_to_buffer(req->src, sg_nents(req->src),
					   rctx->st.buf + rctx->st.buflen, req->nbytes, 0);
		rctx->st.buflen = total;
		hwoff_stat_inc(hwoff_hash_req_alg(req)->hw, HWOFF_STAT_HASH_BUFFERED);
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

/* In the crypto_engine thread, as hwoff_skcipher_do_one(). */
static int hwoff_hash_do_one(struct crypto_engine *engine, void *areq)
{
	struct ahash_request *req = container_of(areq, struct ahash_request, base);
	struct hwoff_hash_req_ctx *rctx = ahash_request_ctx(req);
	struct hwoff_dev *hw = hwoff_hash_req_alg(req)->hw;
	int err;

	if (rctx->path == HWOFF_PATH_DMA) {
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

	hwoff_engine_tfm_init(&ctx->engine, &alg->engine_alg.op);
	crypto_ahash_set_reqsize(tfm, sizeof(struct hwoff_hash_req_ctx));
	return hwoff_tfm_pm_get(alg->hw);
}

static void hwoff_hash_exit_tfm(struct crypto_ahash *tfm)
{
	hwoff_tfm_pm_put(hwoff_hash_alg_of(tfm)->hw);
}

static void hwoff_hash_alg_init(struct hwoff_hash_alg *alg, struct hwoff_dev *hw,
				enum hwoff_hash_index hash, enum hwoff_path path)
{
	const struct hwoff_hash_info *h = &hwoff_hashes[hash];
	const struct hwoff_hash_path_info *p = &hwoff_hash_paths[path];
	struct ahash_alg *ahash = &alg->engine_alg.base;
	struct crypto_alg *base = &ahash->halg.base;

	alg->hw = hw;
	alg->hash = hash;
	alg->path = path;
	snprintf(base->cra_name, sizeof(base->cra_name), "%s", h->name);
	snprintf(base->cra_driver_name, sizeof(base->cra_driver_name), "%s-hwoffload%s", h->name,
		 p->suffix);
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

int hwoff_hash_register(struct hwoff_dev *hw)
{
	int i, ret;

	BUILD_BUG_ON(sizeof(struct hwoff_hash_state) > HASH_MAX_STATESIZE);
	hw->hash_algs = devm_kcalloc(hw->dev, HWOFF_HASH_ALG_COUNT, sizeof(*hw->hash_algs),
				     GFP_KERNEL);
	if (!hw->hash_algs)
		return -ENOMEM;
	for (i = 0; i < HWOFF_HASH_ALG_COUNT; i++) {
		hwoff_hash_alg_init(&hw->hash_algs[i], hw, i / HWOFF_PATH_COUNT,
				    i % HWOFF_PATH_COUNT);
		ret = crypto_engine_register_ahash(&hw->hash_algs[i].engine_alg);
		if (ret) {
			dev_err(hw->dev, "cannot register %s: %d\n",
				hw->hash_algs[i].engine_alg.base.halg.base.cra_driver_name, ret);
			goto err_unregister;
		}
	}
	return 0;

err_unregister:
	while (i--)
		crypto_engine_unregister_ahash(&hw->hash_algs[i].engine_alg);
	return ret;
}

void hwoff_hash_unregister(struct hwoff_dev *hw)
{
	int i;

	for (i = 0; i < HWOFF_HASH_ALG_COUNT; i++)
		crypto_engine_unregister_ahash(&hw->hash_algs[i].engine_alg);
}
