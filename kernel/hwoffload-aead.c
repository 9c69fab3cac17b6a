// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwoffload AEADs: gcm(aes) on the GCM mode of the AES unit (ENGINE.md section 12), on the three
 * paths of the skciphers (hwoffload-cipher.c), at their priorities:
 *
 *   gcm-aes-hwoffload-pio	PIO (280), for messages whose AAD and data fit the FIFO
 *   gcm-aes-hwoffload-dma	DMA only (290)
 *   gcm-aes-hwoffload		software up to the software threshold (sysfs
 *				software_gcm_encrypt, _decrypt), PIO up to the threshold (sysfs
 *				threshold_gcm, at most the FIFO), DMA above it (300: the module
 *				parameter priority)
 *
 * One request is one whole message: PIO does not split one over FIFO loads, so the PIO driver
 * sends a longer message by DMA. The engine computes the tag, and on a decrypt compares it in
 * constant time (the driver never compares tags): a mismatch is the result TAG_MISMATCH, which
 * completes the request with -EBADMSG and is counted apart from errors (gcm_tag_mismatches).
 * What the destination holds then: struct hwoffload_aead_req_ctx in hwoffload.h.
 *
 * rfc4106(gcm(aes)) is not registered: its AAD is not followed by the data in the request (the
 * IV's 8 bytes sit between them, outside the AAD), so on the engine, which takes AAD || data as
 * one stream in 16-byte pieces, it would be a copy of every message rather than a thin wrapper.
 * The kernel's rfc4106 template instantiates over gcm-aes-hwoffload instead.
 *
 * Requests run in their caller or through crypto_engine as the skciphers' do (hwoffload.h,
 * "Synchronous requests").
 */
#include <crypto/gcm.h>
#include <linux/module.h>
#include <linux/scatterlist.h>

#include "hwoffload.h"

static const struct hwoffload_aead_info {
	const char *name;
	enum hwoffload_alg_id alg;
	u32 hw_mode;
	unsigned int ivsize;
} hwoffload_aead_infos[] = {
#define HWOFFLOAD_AEAD_INFO(name, hw_mode, ivsize) { #name, HWOFFLOAD_ALG_##name, hw_mode, ivsize },
	HWOFFLOAD_ALGS(HWOFFLOAD_ALG_NONE, HWOFFLOAD_ALG_NONE, HWOFFLOAD_AEAD_INFO)
#undef HWOFFLOAD_AEAD_INFO
};

/* The module's AEADs (hwoffload.h, "Lifetime"): row by row, each on every path. */
static struct aead_engine_alg
	hwoffload_aeads[ARRAY_SIZE(hwoffload_aead_infos) * HWOFFLOAD_PATH_COUNT];

/* The context record of a request; the PIO registers take the same fields. */
static void hwoffload_aead_fill_ctx(struct aead_request *req, struct hwe_gcm_ctx *rec)
{
	struct crypto_aead *tfm = crypto_aead_reqtfm(req);
	struct hwoffload_tfm_ctx *ctx = crypto_aead_ctx(tfm);
	struct hwoffload_aead_req_ctx *rctx = aead_request_ctx(req);

	BUILD_BUG_ON(sizeof(rec->iv) != GCM_AES_IV_SIZE);
	rec->cfg = cpu_to_le32(HWE_CFG(HWE_UNIT_AES, ctx->hw_mode, ctx->keylen, rctx->decrypt));
	rec->tag_len = cpu_to_le32(crypto_aead_authsize(tfm));
	rec->aad_len = cpu_to_le32(req->assoclen);
	rec->data_len = cpu_to_le32(rctx->data_len);
	memcpy(rec->iv, req->iv, sizeof(rec->iv));
	rec->reserved = 0;
	memcpy(rec->key, ctx->key, sizeof(rec->key));
	memcpy(rec->tag, rctx->tag, sizeof(rec->tag));
	memset(rec->reserved2, 0, sizeof(rec->reserved2));
}

/* An encrypt that succeeded: its tag (the first authsize bytes) after the data in dst. */
static int hwoffload_aead_result(struct aead_request *req, int err)
{
	struct hwoffload_aead_req_ctx *rctx = aead_request_ctx(req);

	if (!err && !rctx->decrypt)
		sg_pcopy_from_buffer(req->dst, sg_nents(req->dst), rctx->tag,
				     crypto_aead_authsize(crypto_aead_reqtfm(req)),
				     req->assoclen + rctx->data_len);
	return err;
}

/*
 * The engine is done with a queued request (by PIO, or by DMA from the interrupt) or a
 * synchronous DMA request, bottom halves off: as hwoffload_cipher_done().
 */
static void hwoffload_aead_done(struct hwoffload_dev *hw, struct aead_request *req, int err)
{
	struct hwoffload_aead_req_ctx *rctx = aead_request_ctx(req);

	err = hwoffload_aead_result(req, err);
	if (rctx->dma.sync) {
		complete(&rctx->dma.done);
		return;
	}
	crypto_finalize_aead_request(hw->engine, req, err);
	hwoffload_dev_put(hw);
}

/*
 * By PIO (ENGINE.md section 12, PIO form): the GCM context beside the AES registers, AAD || data
 * in one FIFO load, AAD || output back; an encrypt's tag in GCM_TAG. A decrypt refused by its
 * tag gives -EBADMSG and no output.
 */
static int hwoffload_aead_pio(struct hwoffload_dev *hw, struct aead_request *req)
{
	struct hwoffload_aead_req_ctx *rctx = aead_request_ctx(req);
	unsigned int len = req->assoclen + rctx->data_len;
	struct hwe_aes_ctx aes = {};
	struct hwe_gcm_ctx rec;
	int ret;

	hwoffload_aead_fill_ctx(req, &rec);
	aes.cfg = rec.cfg;
	memcpy(aes.iv, rec.iv, sizeof(rec.iv));
	memcpy(aes.key, rec.key, sizeof(aes.key));
	ret = hwoffload_pio_load_aes(hw, &aes);
	memzero_explicit(&aes, sizeof(aes));
	if (!ret) {
		hwoffload_write(hw, HWE_REG_GCM_AAD_LEN, req->assoclen);
		hwoffload_write(hw, HWE_REG_GCM_DATA_LEN, rctx->data_len);
		hwoffload_write(hw, HWE_REG_GCM_TAG_LEN, le32_to_cpu(rec.tag_len));
		memcpy(hw->regs + HWE_REG_GCM_TAG, rec.tag, sizeof(rec.tag));
		ret = hwoffload_pio_chunk(hw, req->src, req->dst, 0, len, NULL);
		if (!ret && !rctx->decrypt)
			memcpy(rctx->tag, hw->regs + HWE_REG_GCM_TAG, sizeof(rctx->tag));
		hwoffload_pio_release(hw);
	}
	memzero_explicit(&rec, sizeof(rec));
	if (ret == -EBADMSG)
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_GCM_TAG_MISMATCHES);
	else
		hwoffload_pio_count(hw, ret, HWOFFLOAD_STAT_GCM_PIO_REQUESTS,
				    HWOFFLOAD_STAT_GCM_PIO_BYTES, len);
	return ret;
}

static void hwoffload_aead_collect(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq,
				   struct hwoffload_slot *slot)
{
	struct hwoffload_aead_req_ctx *rctx =
		container_of(dreq, struct hwoffload_aead_req_ctx, dma);

	if (!dreq->err && !rctx->decrypt)
		memcpy(rctx->tag, slot->gcm.tag, sizeof(rctx->tag));
}

/*
 * A failed decrypt leaves nothing of the message in the destination's data bytes: the engine
 * wrote the plaintext there before it knew the tag (hwoffload.h, struct hwoffload_aead_req_ctx).
 */
static void hwoffload_aead_finish(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq)
{
	struct hwoffload_aead_req_ctx *rctx =
		container_of(dreq, struct hwoffload_aead_req_ctx, dma);
	struct aead_request *req = rctx->req;
	unsigned int len = req->assoclen + rctx->data_len;

	hwoffload_dma_unmap_bufs(hw, &rctx->bufs, req->src, req->dst, dreq->err ? 0 : len);
	if (dreq->err && rctx->decrypt)
		sg_zero_buffer(req->dst, sg_nents(req->dst), rctx->data_len, req->assoclen);
	if (dreq->err == -EBADMSG) {
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_GCM_TAG_MISMATCHES);
	} else if (dreq->err) {
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DMA_ERRORS);
	} else {
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_GCM_DMA_REQUESTS);
		hwoffload_stat_add(hw, HWOFFLOAD_STAT_GCM_DMA_BYTES, len);
	}
	hwoffload_aead_done(hw, req, dreq->err);
}

static const struct hwoffload_dma_ops hwoffload_aead_dma_ops = {
	.collect = hwoffload_aead_collect,
	.finish = hwoffload_aead_finish,
};

/*
 * By DMA (ENGINE.md section 12, DMA form): LOAD_CTX of the GCM record, DATA descriptors on the
 * stream AAD || data (its last may end in a partial block), nothing more for an empty message.
 * The engine writes an encrypt's tag into the record.
 */
static int hwoffload_aead_dma(struct hwoffload_dev *hw, struct aead_request *req)
{
	struct hwoffload_aead_req_ctx *rctx = aead_request_ctx(req);
	unsigned int len = req->assoclen + rctx->data_len;
	struct hwoffload_ring *ring = &hw->ring;
	u32 ndesc, index;
	int ret;

	BUILD_BUG_ON(sizeof(struct hwe_gcm_ctx) != 128);
	BUILD_BUG_ON(!IS_ALIGNED(offsetof(struct hwoffload_slot, gcm), HWE_DMA_ALIGN));
	ret = hwoffload_dma_map_bufs(hw, &rctx->bufs, req->src, req->dst, len, len, len,
				     hwoffload_req_gfp(&req->base));
	if (ret)
		return ret;
	ndesc = 1 + hwoffload_dma_data_descs(NULL, 0, rctx->bufs.src, rctx->bufs.dst, len);
	rctx->dma.ops = &hwoffload_aead_dma_ops;
	rctx->dma.times = NULL;
	ret = hwoffload_ring_reserve(hw, &rctx->dma, ndesc, offsetof(struct hwoffload_slot, gcm),
				     sizeof(struct hwe_gcm_ctx));
	if (ret) {
		hwoffload_dma_unmap_bufs(hw, &rctx->bufs, req->src, req->dst, 0);
		return ret;
	}
	index = rctx->dma.first_desc;
	hwoffload_aead_fill_ctx(req, &hwoffload_ring_slot(ring, index++)->gcm);
	index += hwoffload_dma_data_descs(ring, index, rctx->bufs.src, rctx->bufs.dst, len);
	hwoffload_ring_publish(hw, &rctx->dma, index);
	return 0;
}

/* As hwoffload_skcipher_start(): PIO runs to the end, DMA is published. */
static int hwoffload_aead_start(struct hwoffload_dev *hw, struct aead_request *req)
{
	struct hwoffload_aead_req_ctx *rctx = aead_request_ctx(req);

	if (READ_ONCE(hw->unbound))
		return -ENODEV;
	if (rctx->path == HWOFFLOAD_PATH_DMA)
		return hwoffload_aead_dma(hw, req);
	return hwoffload_aead_pio(hw, req);
}

/*
 * The software tier's result @err for the caller's request: the kernel's GCM writes a decrypt's
 * plaintext before it checks the tag, so a failed decrypt has its destination's data bytes
 * zeroed, as a failed DMA decrypt has (struct hwoffload_aead_req_ctx).
 */
static int hwoffload_aead_software_result(struct aead_request *req, int err)
{
	struct hwoffload_aead_req_ctx *rctx = aead_request_ctx(req);

	if (err && err != -EINPROGRESS && err != -EBUSY && rctx->decrypt)
		sg_zero_buffer(req->dst, sg_nents(req->dst), rctx->data_len, req->assoclen);
	return err;
}

/* The software tier's request is done, so is the caller's (-EINPROGRESS: left the backlog). */
static void hwoffload_aead_software_done(hwoffload_done_arg arg, int err)
{
	struct aead_request *req = hwoffload_done_data(arg);

	hwoffload_request_complete(&req->base, hwoffload_aead_software_result(req, err));
}

/* The software tier (hwoffload.h): the whole request, completed as the caller's. */
static int hwoffload_aead_software(struct aead_request *req)
{
	struct hwoffload_tfm_ctx *ctx = crypto_aead_ctx(crypto_aead_reqtfm(req));
	struct hwoffload_aead_req_ctx *rctx = aead_request_ctx(req);
	struct aead_request *sub = &rctx->software_req;

	aead_request_set_tfm(sub, ctx->software.aead);
	aead_request_set_callback(sub, req->base.flags, hwoffload_aead_software_done, req);
	aead_request_set_crypt(sub, req->src, req->dst, req->cryptlen, req->iv);
	aead_request_set_ad(sub, req->assoclen);
	return hwoffload_aead_software_result(req, rctx->decrypt ? crypto_aead_decrypt(sub)
								 : crypto_aead_encrypt(sub));
}

static int hwoffload_aead_crypt(struct aead_request *req, bool decrypt)
{
	struct crypto_aead *tfm = crypto_aead_reqtfm(req);
	struct hwoffload_tfm_ctx *ctx = crypto_aead_ctx(tfm);
	struct hwoffload_aead_req_ctx *rctx = aead_request_ctx(req);
	unsigned int authsize = crypto_aead_authsize(tfm), len;
	enum hwoffload_path path = ctx->path;
	struct hwoffload_dev *hw;
	int ret;

	if (decrypt && req->cryptlen < authsize)
		return -EINVAL;
	rctx->data_len = req->cryptlen - (decrypt ? authsize : 0);
	len = req->assoclen + rctx->data_len;
	/* the engine's lengths are 32 bits, as the kernel's are: their sum must be too */
	if (len < req->assoclen)
		return -EINVAL;
	rctx->decrypt = decrypt;
	hw = hwoffload_dev_get(ctx->generation);
	if (!hw)
		return -ENODEV;
	if (path == HWOFFLOAD_PATH_PIO && len > HWE_FIFO_DEPTH)
		path = HWOFFLOAD_PATH_DMA;
	rctx->path =
		hwoffload_route(hw, path, ctx->alg, len, decrypt, HWOFFLOAD_STAT_GCM_AUTO_SOFTWARE);
	if (rctx->path == HWOFFLOAD_PATH_SOFTWARE) {
		hwoffload_dev_put(hw);
		return hwoffload_aead_software(req);
	}
	memset(rctx->tag, 0, sizeof(rctx->tag));
	if (decrypt)
		sg_pcopy_to_buffer(req->src, sg_nents(req->src), rctx->tag, authsize, len);
	rctx->req = req;
	rctx->hw = hw;
	rctx->dma.sync = hwoffload_run_sync(hw, &req->base, rctx->path);
	if (rctx->dma.sync) {
		ret = hwoffload_aead_start(hw, req);
		/* published: hwoffload_aead_done() has written the tag */
		if (rctx->path == HWOFFLOAD_PATH_DMA && !ret)
			ret = hwoffload_dma_wait(&rctx->dma);
		else
			ret = hwoffload_aead_result(req, ret);
		hwoffload_dev_put(hw);
		return ret;
	}
	hwoffload_queue_enter(hw);
	ret = crypto_transfer_aead_request_to_engine(hw->engine, req);
	return hwoffload_queue_result(hw, ret);
}

static int hwoffload_aead_encrypt(struct aead_request *req)
{
	return hwoffload_aead_crypt(req, false);
}

static int hwoffload_aead_decrypt(struct aead_request *req)
{
	return hwoffload_aead_crypt(req, true);
}

/* In the crypto_engine thread, as hwoffload_skcipher_do_one(). */
static int hwoffload_aead_do_one(struct crypto_engine *engine, void *areq)
{
	struct aead_request *req = container_of(areq, struct aead_request, base);
	struct hwoffload_aead_req_ctx *rctx = aead_request_ctx(req);
	struct hwoffload_dev *hw = rctx->hw;
	bool dma = rctx->path == HWOFFLOAD_PATH_DMA;
	int err;

	err = hwoffload_aead_start(hw, req);
	hwoffload_queue_leave(hw);
	/* published: the request may be finalized already */
	if (dma && !err)
		return 0;
	local_bh_disable();
	hwoffload_aead_done(hw, req, err);
	local_bh_enable();
	return 0;
}

/* As the skciphers': the engine's key, and the software tier's. */
static int hwoffload_aead_setkey(struct crypto_aead *tfm, const u8 *key, unsigned int keylen)
{
	struct hwoffload_tfm_ctx *ctx = crypto_aead_ctx(tfm);
	struct crypto_aead *software = ctx->software.aead;
	int ret;

	if (software) {
		crypto_aead_clear_flags(software, CRYPTO_TFM_REQ_MASK);
		crypto_aead_set_flags(software, crypto_aead_get_flags(tfm) & CRYPTO_TFM_REQ_MASK);
		ret = crypto_aead_setkey(software, key, keylen);
		if (ret)
			return ret;
	}
	return hwoffload_aes_setkey(ctx, key, keylen);
}

static int hwoffload_aead_setauthsize(struct crypto_aead *tfm, unsigned int authsize)
{
	struct hwoffload_tfm_ctx *ctx = crypto_aead_ctx(tfm);
	int ret = crypto_gcm_check_authsize(authsize);

	if (!ret && ctx->software.aead)
		ret = crypto_aead_setauthsize(ctx->software.aead, authsize);
	return ret;
}

/* As the skciphers': runtime PM is held per transform, on an engine with GCM. */
static int hwoffload_aead_init(struct crypto_aead *tfm)
{
	struct hwoffload_tfm_ctx *ctx = crypto_aead_ctx(tfm);
	struct aead_engine_alg *alg =
		container_of(crypto_aead_alg(tfm), struct aead_engine_alg, base);
	unsigned int i = alg - hwoffload_aeads;
	const struct hwoffload_aead_info *a = &hwoffload_aead_infos[i / HWOFFLOAD_PATH_COUNT];
	unsigned int reqsize = sizeof(struct hwoffload_aead_req_ctx);
	struct crypto_aead *software = NULL;
	int ret;

	ctx->alg = a->alg;
	ctx->path = i % HWOFFLOAD_PATH_COUNT;
	ctx->hw_mode = a->hw_mode;
	if (ctx->path == HWOFFLOAD_PATH_AUTO) {
		software = crypto_alloc_aead(crypto_tfm_alg_name(crypto_aead_tfm(tfm)), 0,
					     CRYPTO_ALG_NEED_FALLBACK);
		if (IS_ERR(software))
			return PTR_ERR(software);
		reqsize += crypto_aead_reqsize(software);
		hwoffload_debugfs_software(crypto_aead_tfm(software));
	}
	ctx->software.aead = software;
	hwoffload_engine_tfm_init(&ctx->engine, &alg->op);
	crypto_aead_set_reqsize(tfm, reqsize);
	ret = hwoffload_tfm_attach(&ctx->generation, HWE_CAP_AES_GCM);
	if (ret)
		crypto_free_aead(software);
	return ret;
}

static void hwoffload_aead_exit(struct crypto_aead *tfm)
{
	struct hwoffload_tfm_ctx *ctx = crypto_aead_ctx(tfm);

	memzero_explicit(ctx->key, sizeof(ctx->key));
	crypto_free_aead(ctx->software.aead);
	hwoffload_tfm_detach(ctx->generation);
}

static void hwoffload_aead_alg_init(struct aead_engine_alg *alg,
				    const struct hwoffload_aead_info *a, enum hwoffload_path path)
{
	struct aead_alg *aead = &alg->base;

	hwoffload_aes_alg_base_init(&aead->base, a->name, path, 1,
				    sizeof(struct hwoffload_tfm_ctx));
	aead->ivsize = a->ivsize;
	aead->maxauthsize = HWE_GCM_TAG_SIZE;
	aead->setkey = hwoffload_aead_setkey;
	aead->setauthsize = hwoffload_aead_setauthsize;
	aead->encrypt = hwoffload_aead_encrypt;
	aead->decrypt = hwoffload_aead_decrypt;
	aead->init = hwoffload_aead_init;
	aead->exit = hwoffload_aead_exit;
	alg->op.do_one_request = hwoffload_aead_do_one;
}

static int hwoffload_aead_register(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hwoffload_aeads); i++)
		hwoffload_aead_alg_init(&hwoffload_aeads[i],
					&hwoffload_aead_infos[i / HWOFFLOAD_PATH_COUNT],
					i % HWOFFLOAD_PATH_COUNT);
	return crypto_engine_register_aeads(hwoffload_aeads, ARRAY_SIZE(hwoffload_aeads));
}

static void hwoffload_aead_unregister(void)
{
	crypto_engine_unregister_aeads(hwoffload_aeads, ARRAY_SIZE(hwoffload_aeads));
}

const struct hwoffload_alg_type hwoffload_aead_type = {
	.name = "aead",
	.caps = HWE_CAP_AES_GCM,
	.register_algs = hwoffload_aead_register,
	.unregister_algs = hwoffload_aead_unregister,
};
