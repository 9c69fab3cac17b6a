// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwoffload AEADs: gcm(aes) on the GCM mode of the AES unit (ENGINE.md section 12), on the three
 * paths of the skciphers (hwoffload-cipher.c), at their priorities:
 *
 *   gcm-aes-hwoffload-pio	PIO (280), for messages whose AAD and data fit the FIFO
 *   gcm-aes-hwoffload-dma	DMA only (290)
 *   gcm-aes-hwoffload		PIO up to the threshold (sysfs threshold_gcm, at most the FIFO),
 *				DMA above it (300)
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

static struct hwoffload_aead_alg *hwoffload_aead_alg_of(struct crypto_aead *tfm)
{
	return container_of(crypto_aead_alg(tfm), struct hwoffload_aead_alg, engine_alg.base);
}

/* The context record of a request; the PIO registers take the same fields. */
void hwoffload_aead_fill_ctx(struct aead_request *req, struct hwe_gcm_ctx *rec)
{
	struct crypto_aead *tfm = crypto_aead_reqtfm(req);
	struct hwoffload_tfm_ctx *ctx = crypto_aead_ctx(tfm);
	struct hwoffload_aead_req_ctx *rctx = aead_request_ctx(req);

	BUILD_BUG_ON(sizeof(rec->iv) != GCM_AES_IV_SIZE);
	rec->cfg = cpu_to_le32(HWE_CFG(HWE_UNIT_AES, HWE_MODE_GCM, ctx->keylen, rctx->decrypt));
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
void hwoffload_aead_done(struct hwoffload_dev *hw, struct aead_request *req, int err)
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

/* As hwoffload_skcipher_start(): PIO runs to the end, DMA is published. */
static int hwoffload_aead_start(struct hwoffload_dev *hw, struct aead_request *req)
{
	struct hwoffload_aead_req_ctx *rctx = aead_request_ctx(req);

	if (READ_ONCE(hw->unbound))
		return -ENODEV;
	if (rctx->path == HWOFFLOAD_PATH_DMA)
		return hwoffload_dma_submit_gcm(hw, req);
	return hwoffload_pio_gcm(hw, req);
}

static int hwoffload_aead_crypt(struct aead_request *req, bool decrypt)
{
	struct crypto_aead *tfm = crypto_aead_reqtfm(req);
	struct hwoffload_tfm_ctx *ctx = crypto_aead_ctx(tfm);
	struct hwoffload_aead_req_ctx *rctx = aead_request_ctx(req);
	unsigned int authsize = crypto_aead_authsize(tfm), len;
	enum hwoffload_path path = hwoffload_aead_alg_of(tfm)->path;
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
	memset(rctx->tag, 0, sizeof(rctx->tag));
	if (decrypt)
		sg_pcopy_to_buffer(req->src, sg_nents(req->src), rctx->tag, authsize, len);
	hw = hwoffload_dev_get(ctx->generation);
	if (!hw)
		return -ENODEV;
	rctx->req = req;
	rctx->hw = hw;
	if (path == HWOFFLOAD_PATH_PIO && len > HWE_FIFO_DEPTH)
		path = HWOFFLOAD_PATH_DMA;
	rctx->path =
		hwoffload_choose_path(hw, path, HWOFFLOAD_THRESHOLD_GCM, len,
				      HWOFFLOAD_STAT_GCM_AUTO_PIO, HWOFFLOAD_STAT_GCM_AUTO_DMA);
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

static int hwoffload_aead_setkey(struct crypto_aead *tfm, const u8 *key, unsigned int keylen)
{
	return hwoffload_aes_setkey(crypto_aead_ctx(tfm), key, keylen);
}

static int hwoffload_aead_setauthsize(struct crypto_aead *tfm, unsigned int authsize)
{
	return crypto_gcm_check_authsize(authsize);
}

/* As the skciphers': runtime PM is held per transform, on an engine with GCM. */
static int hwoffload_aead_init(struct crypto_aead *tfm)
{
	struct hwoffload_tfm_ctx *ctx = crypto_aead_ctx(tfm);

	hwoffload_engine_tfm_init(&ctx->engine, &hwoffload_aead_alg_of(tfm)->engine_alg.op);
	crypto_aead_set_reqsize(tfm, sizeof(struct hwoffload_aead_req_ctx));
	return hwoffload_tfm_attach(&ctx->generation, HWE_CAP_AES_GCM);
}

static void hwoffload_aead_exit(struct crypto_aead *tfm)
{
	struct hwoffload_tfm_ctx *ctx = crypto_aead_ctx(tfm);

	memzero_explicit(ctx->key, sizeof(ctx->key));
	hwoffload_tfm_detach(ctx->generation);
}

static void hwoffload_aead_alg_init(struct hwoffload_aead_alg *alg, enum hwoffload_path path)
{
	struct aead_alg *aead = &alg->engine_alg.base;

	alg->path = path;
	hwoffload_aes_alg_base_init(&aead->base, "gcm", path, 1, sizeof(struct hwoffload_tfm_ctx));
	aead->ivsize = GCM_AES_IV_SIZE;
	aead->maxauthsize = HWE_GCM_TAG_SIZE;
	aead->setkey = hwoffload_aead_setkey;
	aead->setauthsize = hwoffload_aead_setauthsize;
	aead->encrypt = hwoffload_aead_encrypt;
	aead->decrypt = hwoffload_aead_decrypt;
	aead->init = hwoffload_aead_init;
	aead->exit = hwoffload_aead_exit;
	alg->engine_alg.op.do_one_request = hwoffload_aead_do_one;
}

/* The module's AEADs (hwoffload.h, "Lifetime"); registering is serialized by binding. */
static struct hwoffload_aead_alg hwoffload_aead_algs[HWOFFLOAD_PATH_COUNT];
static bool hwoffload_aead_registered;

/* Unless they are already: their self-tests run on @hw, which has GCM. */
int hwoffload_aead_register(struct hwoffload_dev *hw)
{
	int i, ret;

	for (i = 0; !hwoffload_aead_registered && i < HWOFFLOAD_PATH_COUNT; i++) {
		hwoffload_aead_alg_init(&hwoffload_aead_algs[i], i);
		ret = crypto_engine_register_aead(&hwoffload_aead_algs[i].engine_alg);
		if (ret) {
			dev_err(hw->dev, "cannot register %s: %d\n",
				hwoffload_aead_algs[i].engine_alg.base.base.cra_driver_name, ret);
			goto err_unregister;
		}
	}
	hwoffload_aead_registered = true;
	return 0;

err_unregister:
	while (i--)
		crypto_engine_unregister_aead(&hwoffload_aead_algs[i].engine_alg);
	return ret;
}

/* At module exit: no transform is left. */
void hwoffload_aead_unregister(void)
{
	int i;

	for (i = 0; hwoffload_aead_registered && i < HWOFFLOAD_PATH_COUNT; i++)
		crypto_engine_unregister_aead(&hwoffload_aead_algs[i].engine_alg);
}
