// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwoffload skciphers: ecb, cbc and ctr(aes), each on three paths, built from one table:
 *
 *   MODE-aes-hwoffload-pio	PIO only (priority 280)
 *   MODE-aes-hwoffload-dma	DMA only (290)
 *   MODE-aes-hwoffload		software up to the mode's software threshold, PIO up to its
 *				threshold, DMA above it (300: the module parameter priority)
 *
 * Above the generic C code (100), below AES-NI (400): x86 keeps AES-NI, the engine beats the C
 * code elsewhere. The thresholds are in sysfs on the device, in bytes:
 * /sys/bus/pci/devices/DEVICE/hwoffload/threshold_{ecb,cbc,ctr} and
 * software_{ecb,cbc,ctr}_{encrypt,decrypt} (hwoffload.h, "Software tier").
 *
 * A request whose caller may sleep runs in encrypt() and returns its result there when nothing
 * waits in the crypto_engine queue ("Synchronous requests" in hwoffload.h): PIO to the end, DMA
 * published there and waited for. The others go through crypto_engine: PIO in its thread, DMA
 * published there and finished by the interrupt.
 *
 * By DMA a request is LOAD_CTX, DATA descriptors and, for a CTR length that is not a multiple
 * of 16, one more DATA descriptor on a 16-byte block in the slot that carries the last partial
 * block: the engine only moves whole aligned blocks, and this costs a copy of at most 15 bytes
 * each way instead of bouncing the whole request.
 */
#include <linux/module.h>
#include <linux/scatterlist.h>

#include "hwoffload.h"

static const struct hwoffload_mode_info {
	const char *name;
	enum hwoffload_alg_id alg;
	u32 hw_mode;
	unsigned int blocksize;
	unsigned int ivsize;
} hwoffload_modes[] = {
#define HWOFFLOAD_MODE_INFO(name, hw_mode, blocksize, ivsize) \
	{ #name, HWOFFLOAD_ALG_##name, hw_mode, blocksize, ivsize },
	HWOFFLOAD_ALGS(HWOFFLOAD_MODE_INFO, HWOFFLOAD_ALG_NONE, HWOFFLOAD_ALG_NONE)
#undef HWOFFLOAD_MODE_INFO
};

/* The module's skciphers (hwoffload.h, "Lifetime"): mode by mode, each on every path. */
static struct skcipher_engine_alg
	hwoffload_skciphers[ARRAY_SIZE(hwoffload_modes) * HWOFFLOAD_PATH_COUNT];

/* The context record of a request; also the layout of the PIO context registers. */
static void hwoffload_cipher_fill_ctx(struct skcipher_request *req, struct hwe_aes_ctx *rec)
{
	struct crypto_skcipher *tfm = crypto_skcipher_reqtfm(req);
	struct hwoffload_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);
	struct hwoffload_req_ctx *rctx = skcipher_request_ctx(req);

	rec->cfg = cpu_to_le32(HWE_CFG(HWE_UNIT_AES, ctx->hw_mode, ctx->keylen, rctx->decrypt));
	/*
	 * The kernel's CTR has no partial-block carry: the IV out is the counter +
	 * ceil(len / 16), which the engine writes back when it starts at offset 0.
	 */
	rec->ctr_offset = 0;
	memset(rec->reserved, 0, sizeof(rec->reserved));
	if (crypto_skcipher_ivsize(tfm))
		memcpy(rec->iv, req->iv, sizeof(rec->iv));
	else
		memset(rec->iv, 0, sizeof(rec->iv));
	memcpy(rec->key, ctx->key, sizeof(rec->key));
}

/* A request's times go to debugfs "requests", once the engine is done with it. */
static void hwoffload_cipher_log(struct hwoffload_dev *hw, struct skcipher_request *req, int err)
{
	struct hwoffload_req_ctx *rctx = skcipher_request_ctx(req);
	struct hwoffload_req_record rec = {
		.times = rctx->times,
		.len = req->cryptlen,
		.path = rctx->path,
		.decrypt = rctx->decrypt,
		.err = err,
	};

	rec.times.done = ktime_get_ns();
	hwoffload_debugfs_log_request(hw, &rec);
}

/*
 * The engine is done with a queued request (by PIO, or by DMA from the interrupt) or a
 * synchronous DMA request, bottom halves off: its times go to debugfs "requests", and the
 * caller is told (a synchronous one returns the result and puts the device itself).
 */
static void hwoffload_cipher_done(struct hwoffload_dev *hw, struct skcipher_request *req, int err)
{
	struct hwoffload_req_ctx *rctx = skcipher_request_ctx(req);

	hwoffload_cipher_log(hw, req, err);
	if (rctx->dma.sync) {
		complete(&rctx->dma.done);
		return;
	}
	crypto_finalize_skcipher_request(hw->engine, req, err);
	hwoffload_dev_put(hw);
}

/* By PIO: FIFO load after FIFO load, the IV chaining in the engine. */
static int hwoffload_cipher_pio(struct hwoffload_dev *hw, struct skcipher_request *req)
{
	unsigned int ivsize = crypto_skcipher_ivsize(crypto_skcipher_reqtfm(req));
	struct hwoffload_req_ctx *rctx = skcipher_request_ctx(req);
	unsigned int off, len;
	struct hwe_aes_ctx ctx;
	int ret;

	hwoffload_cipher_fill_ctx(req, &ctx);
	ret = hwoffload_pio_load_aes(hw, &ctx);
	memzero_explicit(&ctx, sizeof(ctx));
	if (!ret) {
		for (off = 0; off < req->cryptlen && !ret; off += len) {
			len = min(req->cryptlen - off, HWE_FIFO_DEPTH);
			ret = hwoffload_pio_chunk(hw, req->src, req->dst, off, len, &rctx->times);
		}
		if (!ret && ivsize)
			memcpy(req->iv, hw->regs + HWE_REG_AES_IV, ivsize);
		hwoffload_pio_release(hw);
	}
	hwoffload_pio_count(hw, ret, HWOFFLOAD_STAT_PIO_REQUESTS, HWOFFLOAD_STAT_PIO_BYTES,
			    req->cryptlen);
	return ret;
}

/*
 * Map a request for DMA: its block-aligned part, the CTR tail kept for the slot; bounced, the
 * whole request padded to whole blocks (a CTR tail rides in the padding).
 */
static int hwoffload_cipher_dma_map(struct hwoffload_dev *hw, struct skcipher_request *req)
{
	struct hwoffload_req_ctx *rctx = skcipher_request_ctx(req);
	int ret;

	ret = hwoffload_dma_map_bufs(
		hw, &rctx->bufs, req->src, req->dst, ALIGN_DOWN(req->cryptlen, AES_BLOCK_SIZE),
		req->cryptlen, ALIGN(req->cryptlen, AES_BLOCK_SIZE), hwoffload_req_gfp(&req->base));
	if (ret)
		return ret;
	rctx->tail_len = rctx->bufs.bounce.sgl ? 0 : req->cryptlen - rctx->bufs.len;
	if (rctx->tail_len) {
		memset(rctx->tail, 0, sizeof(rctx->tail));
		sg_pcopy_to_buffer(req->src, sg_nents(req->src), rctx->tail, rctx->tail_len,
				   rctx->bufs.len);
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DMA_CTR_TAILS);
	}
	return 0;
}

/* Undo hwoffload_cipher_dma_map(); on success, deliver what was not written in place. */
static void hwoffload_cipher_dma_unmap(struct hwoffload_dev *hw, struct skcipher_request *req,
				       bool copy_out)
{
	struct hwoffload_req_ctx *rctx = skcipher_request_ctx(req);

	hwoffload_dma_unmap_bufs(hw, &rctx->bufs, req->src, req->dst, copy_out ? req->cryptlen : 0);
	/* after the unmap, which writes the whole last entry back from a swiotlb copy */
	if (copy_out && rctx->tail_len)
		sg_pcopy_from_buffer(req->dst, sg_nents(req->dst), rctx->tail, rctx->tail_len,
				     rctx->bufs.len);
}

static void hwoffload_cipher_collect(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq,
				     struct hwoffload_slot *slot)
{
	struct hwoffload_req_ctx *rctx = container_of(dreq, struct hwoffload_req_ctx, dma);

	if (dreq->err)
		return;
	memcpy(rctx->iv_out, slot->ctx.iv, sizeof(rctx->iv_out));
	memcpy(rctx->tail, slot->tail, sizeof(rctx->tail));
}

static void hwoffload_cipher_finish(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq)
{
	struct hwoffload_req_ctx *rctx = container_of(dreq, struct hwoffload_req_ctx, dma);
	struct skcipher_request *req = rctx->req;
	unsigned int ivsize = crypto_skcipher_ivsize(crypto_skcipher_reqtfm(req));

	hwoffload_cipher_dma_unmap(hw, req, !dreq->err);
	if (dreq->err) {
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DMA_ERRORS);
	} else {
		if (ivsize)
			memcpy(req->iv, rctx->iv_out, ivsize);
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DMA_REQUESTS);
		hwoffload_stat_add(hw, HWOFFLOAD_STAT_DMA_BYTES, req->cryptlen);
	}
	hwoffload_cipher_done(hw, req, dreq->err);
}

static const struct hwoffload_dma_ops hwoffload_cipher_dma_ops = {
	.collect = hwoffload_cipher_collect,
	.finish = hwoffload_cipher_finish,
};

/* By DMA: map, wait for room in the ring and publish; the interrupt completes the request. */
static int hwoffload_cipher_dma(struct hwoffload_dev *hw, struct skcipher_request *req)
{
	struct hwoffload_req_ctx *rctx = skcipher_request_ctx(req);
	struct hwoffload_ring *ring = &hw->ring;
	struct hwoffload_slot *slot;
	u32 ndesc, index;
	int ret;

	ret = hwoffload_cipher_dma_map(hw, req);
	if (ret)
		return ret;
	ndesc = 1 +
		hwoffload_dma_data_descs(NULL, 0, rctx->bufs.src, rctx->bufs.dst, rctx->bufs.len) +
		!!rctx->tail_len;
	rctx->dma.ops = &hwoffload_cipher_dma_ops;
	rctx->dma.times = &rctx->times;
	ret = hwoffload_ring_reserve(hw, &rctx->dma, ndesc, offsetof(struct hwoffload_slot, ctx),
				     sizeof(slot->ctx));
	if (ret) {
		hwoffload_cipher_dma_unmap(hw, req, false);
		return ret;
	}
	index = rctx->dma.first_desc;
	slot = hwoffload_ring_slot(ring, index++);
	hwoffload_cipher_fill_ctx(req, &slot->ctx);
	index += hwoffload_dma_data_descs(ring, index, rctx->bufs.src, rctx->bufs.dst,
					  rctx->bufs.len);
	if (rctx->tail_len) {
		dma_addr_t tail_dma = hwoffload_ring_slot_dma(ring, rctx->dma.first_desc) +
				      offsetof(struct hwoffload_slot, tail);

		memcpy(slot->tail, rctx->tail, sizeof(slot->tail));
		hwoffload_desc_fill(hwoffload_ring_desc(ring, index++), tail_dma, tail_dma,
				    sizeof(slot->tail), HWE_DESC_DATA);
	}
	hwoffload_ring_publish(hw, &rctx->dma, index);
	return 0;
}

/*
 * Start a request: PIO runs to the end, DMA is published (0) and the interrupt finishes it.
 * Once the device is being unbound, a request not started fails.
 */
static int hwoffload_skcipher_start(struct hwoffload_dev *hw, struct skcipher_request *req)
{
	struct hwoffload_req_ctx *rctx = skcipher_request_ctx(req);

	rctx->times.start = ktime_get_ns();
	if (READ_ONCE(hw->unbound))
		return -ENODEV;
	if (rctx->path == HWOFFLOAD_PATH_DMA)
		return hwoffload_cipher_dma(hw, req);
	return hwoffload_cipher_pio(hw, req);
}

/* The software tier's request is done, so is the caller's (-EINPROGRESS: left the backlog). */
static void hwoffload_skcipher_software_done(hwoffload_done_arg arg, int err)
{
	struct skcipher_request *req = hwoffload_done_data(arg);

	hwoffload_request_complete(&req->base, err);
}

/* The software tier (hwoffload.h): the whole request, completed as the caller's. */
static int hwoffload_skcipher_software(struct skcipher_request *req, bool decrypt)
{
	struct hwoffload_tfm_ctx *ctx = crypto_skcipher_ctx(crypto_skcipher_reqtfm(req));
	struct hwoffload_req_ctx *rctx = skcipher_request_ctx(req);
	struct skcipher_request *sub = &rctx->software_req;

	skcipher_request_set_tfm(sub, ctx->software.skcipher);
	skcipher_request_set_callback(sub, req->base.flags, hwoffload_skcipher_software_done, req);
	skcipher_request_set_crypt(sub, req->src, req->dst, req->cryptlen, req->iv);
	return decrypt ? crypto_skcipher_decrypt(sub) : crypto_skcipher_encrypt(sub);
}

static int hwoffload_skcipher_crypt(struct skcipher_request *req, bool decrypt)
{
	struct crypto_skcipher *tfm = crypto_skcipher_reqtfm(req);
	struct hwoffload_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);
	struct hwoffload_req_ctx *rctx = skcipher_request_ctx(req);
	struct hwoffload_dev *hw;
	int ret;

	if (!req->cryptlen)
		return 0;
	if (!IS_ALIGNED(req->cryptlen, crypto_skcipher_blocksize(tfm)))
		return -EINVAL;
	memset(&rctx->times, 0, sizeof(rctx->times));
	rctx->times.enter = ktime_get_ns();
	hw = hwoffload_dev_get(ctx->generation);
	if (!hw)
		return -ENODEV;
	rctx->path = hwoffload_route(hw, ctx->path, ctx->alg, req->cryptlen, decrypt,
				     HWOFFLOAD_STAT_AUTO_SOFTWARE);
	if (rctx->path == HWOFFLOAD_PATH_SOFTWARE) {
		hwoffload_dev_put(hw);
		return hwoffload_skcipher_software(req, decrypt);
	}
	rctx->req = req;
	rctx->hw = hw;
	rctx->decrypt = decrypt;
	rctx->dma.sync = hwoffload_run_sync(hw, &req->base, rctx->path);
	if (rctx->dma.sync) {
		ret = hwoffload_skcipher_start(hw, req);
		/* published: hwoffload_cipher_done() logs it */
		if (rctx->path == HWOFFLOAD_PATH_DMA && !ret)
			ret = hwoffload_dma_wait(&rctx->dma);
		else
			hwoffload_cipher_log(hw, req, ret);
		hwoffload_dev_put(hw);
		return ret;
	}
	hwoffload_queue_enter(hw);
	ret = crypto_transfer_skcipher_request_to_engine(hw->engine, req);
	return hwoffload_queue_result(hw, ret);
}

static int hwoffload_skcipher_encrypt(struct skcipher_request *req)
{
	return hwoffload_skcipher_crypt(req, false);
}

static int hwoffload_skcipher_decrypt(struct skcipher_request *req)
{
	return hwoffload_skcipher_crypt(req, true);
}

/*
 * In the crypto_engine thread. PIO runs to the end here; DMA is published and completed by
 * the interrupt, so the engine goes on to the next request meanwhile (retry_support).
 */
static int hwoffload_skcipher_do_one(struct crypto_engine *engine, void *areq)
{
	struct skcipher_request *req = container_of(areq, struct skcipher_request, base);
	struct hwoffload_req_ctx *rctx = skcipher_request_ctx(req);
	struct hwoffload_dev *hw = rctx->hw;
	bool dma = rctx->path == HWOFFLOAD_PATH_DMA;
	int err;

	err = hwoffload_skcipher_start(hw, req);
	hwoffload_queue_leave(hw);
	/* published: the request may be finalized already */
	if (dma && !err)
		return 0;
	local_bh_disable();
	hwoffload_cipher_done(hw, req, err);
	local_bh_enable();
	return 0;
}

/* The key of an AES transform, skcipher or AEAD. */
int hwoffload_aes_setkey(struct hwoffload_tfm_ctx *ctx, const u8 *key, unsigned int keylen)
{
	int ret = aes_check_keylen(keylen);

	if (ret)
		return ret;
	memzero_explicit(ctx->key, sizeof(ctx->key));
	memcpy(ctx->key, key, keylen);
	ctx->keylen = keylen;
	return 0;
}

/* The engine's key, and the software tier's with the caller's request flags. */
static int hwoffload_skcipher_setkey(struct crypto_skcipher *tfm, const u8 *key,
				     unsigned int keylen)
{
	struct hwoffload_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);
	struct crypto_skcipher *software = ctx->software.skcipher;
	int ret;

	if (software) {
		crypto_skcipher_clear_flags(software, CRYPTO_TFM_REQ_MASK);
		crypto_skcipher_set_flags(software,
					  crypto_skcipher_get_flags(tfm) & CRYPTO_TFM_REQ_MASK);
		ret = crypto_skcipher_setkey(software, key, keylen);
		if (ret)
			return ret;
	}
	return hwoffload_aes_setkey(ctx, key, keylen);
}

/* Runtime PM is held per transform, not per request; the auto driver's software tier too. */
static int hwoffload_skcipher_init(struct crypto_skcipher *tfm)
{
	struct hwoffload_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);
	struct skcipher_engine_alg *alg =
		container_of(crypto_skcipher_alg(tfm), struct skcipher_engine_alg, base);
	unsigned int i = alg - hwoffload_skciphers;
	const struct hwoffload_mode_info *m = &hwoffload_modes[i / HWOFFLOAD_PATH_COUNT];
	unsigned int reqsize = sizeof(struct hwoffload_req_ctx);
	struct crypto_skcipher *software = NULL;
	int ret;

	ctx->alg = m->alg;
	ctx->path = i % HWOFFLOAD_PATH_COUNT;
	ctx->hw_mode = m->hw_mode;
	if (ctx->path == HWOFFLOAD_PATH_AUTO) {
		software = crypto_alloc_skcipher(crypto_tfm_alg_name(crypto_skcipher_tfm(tfm)), 0,
						 CRYPTO_ALG_NEED_FALLBACK);
		if (IS_ERR(software))
			return PTR_ERR(software);
		reqsize += crypto_skcipher_reqsize(software);
		hwoffload_debugfs_software(crypto_skcipher_tfm(software));
	}
	ctx->software.skcipher = software;
	hwoffload_engine_tfm_init(&ctx->engine, &alg->op);
	crypto_skcipher_set_reqsize(tfm, reqsize);
	ret = hwoffload_tfm_attach(&ctx->generation, 0);
	if (ret)
		crypto_free_skcipher(software);
	return ret;
}

static void hwoffload_skcipher_exit(struct crypto_skcipher *tfm)
{
	struct hwoffload_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);

	memzero_explicit(ctx->key, sizeof(ctx->key));
	crypto_free_skcipher(ctx->software.skcipher);
	hwoffload_tfm_detach(ctx->generation);
}

/* The crypto_alg of an AES algorithm (skcipher or AEAD) of mode @mode on @path. */
void hwoffload_aes_alg_base_init(struct crypto_alg *base, const char *mode,
				 enum hwoffload_path path, unsigned int blocksize,
				 unsigned int ctxsize)
{
	const struct hwoffload_path_info *p = &hwoffload_paths[path];

	snprintf(base->cra_name, sizeof(base->cra_name), "%s(aes)", mode);
	snprintf(base->cra_driver_name, sizeof(base->cra_driver_name), "%s-aes-hwoffload%s", mode,
		 p->suffix);
	base->cra_priority = max(hwoffload_priority - p->below_auto, 0);
	base->cra_flags = HWOFFLOAD_ALG_FLAGS | p->flags;
	base->cra_blocksize = blocksize;
	base->cra_ctxsize = ctxsize;
	base->cra_module = THIS_MODULE;
}

static void hwoffload_skcipher_alg_init(struct skcipher_engine_alg *alg,
					const struct hwoffload_mode_info *m,
					enum hwoffload_path path)
{
	struct skcipher_alg *skcipher = &alg->base;

	hwoffload_aes_alg_base_init(&skcipher->base, m->name, path, m->blocksize,
				    sizeof(struct hwoffload_tfm_ctx));
	skcipher->min_keysize = AES_MIN_KEY_SIZE;
	skcipher->max_keysize = AES_MAX_KEY_SIZE;
	skcipher->ivsize = m->ivsize;
	/* AF_ALG hands a MSG_MORE stream over in multiples of this: whole CTR blocks */
	skcipher->chunksize = AES_BLOCK_SIZE;
	skcipher->setkey = hwoffload_skcipher_setkey;
	skcipher->encrypt = hwoffload_skcipher_encrypt;
	skcipher->decrypt = hwoffload_skcipher_decrypt;
	skcipher->init = hwoffload_skcipher_init;
	skcipher->exit = hwoffload_skcipher_exit;
	alg->op.do_one_request = hwoffload_skcipher_do_one;
}

static int hwoffload_skcipher_register(void)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hwoffload_skciphers); i++)
		hwoffload_skcipher_alg_init(&hwoffload_skciphers[i],
					    &hwoffload_modes[i / HWOFFLOAD_PATH_COUNT],
					    i % HWOFFLOAD_PATH_COUNT);
	return crypto_engine_register_skciphers(hwoffload_skciphers,
						ARRAY_SIZE(hwoffload_skciphers));
}

static void hwoffload_skcipher_unregister(void)
{
	crypto_engine_unregister_skciphers(hwoffload_skciphers, ARRAY_SIZE(hwoffload_skciphers));
}

const struct hwoffload_alg_type hwoffload_skcipher_type = {
	.name = "skcipher",
	.register_algs = hwoffload_skcipher_register,
	.unregister_algs = hwoffload_skcipher_unregister,
};
