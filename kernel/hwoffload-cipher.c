// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwoffload skciphers: ecb, cbc and ctr(aes), each on three paths, built from one table:
 *
 *   MODE-aes-hwoffload-pio	PIO only (priority 280)
 *   MODE-aes-hwoffload-dma	DMA only (290)
 *   MODE-aes-hwoffload		PIO up to the mode's threshold, DMA above it (300)
 *
 * Above the generic C code (100), below AES-NI (400): x86 keeps AES-NI, the engine beats the C
 * code elsewhere. The thresholds are in sysfs on the device:
 * /sys/bus/pci/devices/DEVICE/hwoffload/threshold_{ecb,cbc,ctr}, in bytes.
 *
 * A request whose caller may sleep runs in encrypt() and returns its result there when nothing
 * waits in the crypto_engine queue ("Synchronous requests" in hwoffload.h): PIO to the end, DMA
 * published there and waited for. The others go through crypto_engine: PIO in its thread, DMA
 * published there and finished by the interrupt.
 */
#include <linux/module.h>

#include "hwoffload.h"

static const struct hwoffload_mode_info {
	const char *name;
	u32 hw_mode;
	unsigned int blocksize;
	unsigned int ivsize;
} hwoffload_modes[HWOFFLOAD_MODE_COUNT] = {
	[HWOFFLOAD_ECB] = { "ecb", HWE_MODE_ECB, AES_BLOCK_SIZE, 0 },
	[HWOFFLOAD_CBC] = { "cbc", HWE_MODE_CBC, AES_BLOCK_SIZE, AES_BLOCK_SIZE },
	[HWOFFLOAD_CTR] = { "ctr", HWE_MODE_CTR, 1, AES_BLOCK_SIZE },
};

static const struct hwoffload_path_info {
	const char *suffix;
	int priority;
	u32 flags;
} hwoffload_paths[HWOFFLOAD_PATH_COUNT] = {
	/* DMA may allocate a bounce list per request */
	[HWOFFLOAD_PATH_AUTO] = { "", 300, CRYPTO_ALG_ALLOCATES_MEMORY },
	[HWOFFLOAD_PATH_DMA] = { "-dma", 290, CRYPTO_ALG_ALLOCATES_MEMORY },
	[HWOFFLOAD_PATH_PIO] = { "-pio", 280, 0 },
};

#define HWOFFLOAD_ALG_COUNT	(HWOFFLOAD_MODE_COUNT * HWOFFLOAD_PATH_COUNT)

static struct hwoffload_alg *hwoffload_alg_of(struct crypto_skcipher *tfm)
{
	return container_of(crypto_skcipher_alg(tfm), struct hwoffload_alg, engine_alg.base);
}

/* The context record of a request; also the layout of the PIO context registers. */
void hwoffload_cipher_fill_ctx(struct skcipher_request *req, struct hwe_aes_ctx *rec)
{
	struct crypto_skcipher *tfm = crypto_skcipher_reqtfm(req);
	struct hwoffload_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);
	struct hwoffload_req_ctx *rctx = skcipher_request_ctx(req);
	struct hwoffload_alg *alg = hwoffload_alg_of(tfm);

	rec->cfg = cpu_to_le32(HWE_CFG(HWE_UNIT_AES, hwoffload_modes[alg->mode].hw_mode,
				       ctx->keylen, rctx->decrypt));
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

/*
 * The path of one request: the driver's own, or for auto its threshold (sysfs), counted in
 * @auto_pio or @auto_dma.
 */
enum hwoffload_path hwoffload_choose_path(struct hwoffload_dev *hw, enum hwoffload_path path,
					  unsigned int threshold, unsigned int len,
					  enum hwoffload_stat auto_pio,
					  enum hwoffload_stat auto_dma)
{
	bool pio;

	if (path != HWOFFLOAD_PATH_AUTO)
		return path;
	pio = len <= READ_ONCE(hw->threshold[threshold]);
	hwoffload_stat_inc(hw, pio ? auto_pio : auto_dma);
	return pio ? HWOFFLOAD_PATH_PIO : HWOFFLOAD_PATH_DMA;
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
		return hwoffload_dma_submit(hw, req);
	return hwoffload_pio_crypt(hw, req);
}

static int hwoffload_skcipher_crypt(struct skcipher_request *req, bool decrypt)
{
	struct crypto_skcipher *tfm = crypto_skcipher_reqtfm(req);
	struct hwoffload_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);
	struct hwoffload_req_ctx *rctx = skcipher_request_ctx(req);
	struct hwoffload_alg *alg = hwoffload_alg_of(tfm);
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
	rctx->req = req;
	rctx->hw = hw;
	rctx->decrypt = decrypt;
	rctx->path = hwoffload_choose_path(hw, alg->path, alg->mode, req->cryptlen,
					   HWOFFLOAD_STAT_AUTO_PIO, HWOFFLOAD_STAT_AUTO_DMA);
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
 * The engine is done with a queued request (by PIO, or by DMA from the interrupt) or a
 * synchronous DMA request, bottom halves off: its times go to debugfs "requests", and the
 * caller is told (a synchronous one returns the result and puts the device itself).
 */
void hwoffload_cipher_done(struct hwoffload_dev *hw, struct skcipher_request *req, int err)
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

static int hwoffload_skcipher_setkey(struct crypto_skcipher *tfm, const u8 *key,
				     unsigned int keylen)
{
	return hwoffload_aes_setkey(crypto_skcipher_ctx(tfm), key, keylen);
}

/* Runtime PM is held per transform, not per request. */
static int hwoffload_skcipher_init(struct crypto_skcipher *tfm)
{
	struct hwoffload_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);
	struct hwoffload_alg *alg = hwoffload_alg_of(tfm);

	hwoffload_engine_tfm_init(&ctx->engine, &alg->engine_alg.op);
	crypto_skcipher_set_reqsize(tfm, sizeof(struct hwoffload_req_ctx));
	return hwoffload_tfm_attach(&ctx->generation, 0);
}

static void hwoffload_skcipher_exit(struct crypto_skcipher *tfm)
{
	struct hwoffload_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);

	memzero_explicit(ctx->key, sizeof(ctx->key));
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
	base->cra_priority = p->priority;
	base->cra_flags = CRYPTO_ALG_ASYNC | CRYPTO_ALG_KERN_DRIVER_ONLY | p->flags;
	base->cra_blocksize = blocksize;
	base->cra_ctxsize = ctxsize;
	base->cra_module = THIS_MODULE;
}

static void hwoffload_alg_init(struct hwoffload_alg *alg, enum hwoffload_mode_index mode,
			       enum hwoffload_path path)
{
	const struct hwoffload_mode_info *m = &hwoffload_modes[mode];
	struct skcipher_alg *skcipher = &alg->engine_alg.base;

	alg->mode = mode;
	alg->path = path;
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
	alg->engine_alg.op.do_one_request = hwoffload_skcipher_do_one;
}

/* The module's algorithms (hwoffload.h, "Lifetime"); registering is serialized by binding. */
static struct hwoffload_alg hwoffload_algs[HWOFFLOAD_ALG_COUNT];
static bool hwoffload_algs_registered;

/*
 * Register the skciphers, the hashes if @hw has the hash unit and the AEADs if it has GCM, unless
 * they are already: their self-tests run on @hw.
 */
int hwoffload_algs_register(struct hwoffload_dev *hw)
{
	int i, ret;

	for (i = 0; !hwoffload_algs_registered && i < HWOFFLOAD_ALG_COUNT; i++) {
		hwoffload_alg_init(&hwoffload_algs[i], i / HWOFFLOAD_PATH_COUNT,
				   i % HWOFFLOAD_PATH_COUNT);
		ret = crypto_engine_register_skcipher(&hwoffload_algs[i].engine_alg);
		if (ret) {
			dev_err(hw->dev, "cannot register %s: %d\n",
				hwoffload_algs[i].engine_alg.base.base.cra_driver_name, ret);
			goto err_unregister;
		}
	}
	hwoffload_algs_registered = true;
	/* an engine without the hash unit or GCM still serves the rest */
	if (hw->caps & HWE_CAP_HASH) {
		ret = hwoffload_hash_register(hw);
		if (ret)
			return ret;
	}
	if (hw->caps & HWE_CAP_AES_GCM)
		return hwoffload_aead_register(hw);
	return 0;

err_unregister:
	while (i--)
		crypto_engine_unregister_skcipher(&hwoffload_algs[i].engine_alg);
	return ret;
}

/* At module exit: no transform is left. */
void hwoffload_algs_unregister(void)
{
	int i;

	hwoffload_aead_unregister();
	hwoffload_hash_unregister();
	for (i = 0; hwoffload_algs_registered && i < HWOFFLOAD_ALG_COUNT; i++)
		crypto_engine_unregister_skcipher(&hwoffload_algs[i].engine_alg);
}

/*
 * sysfs hwoffload/threshold_MODE, threshold_HASH and threshold_gcm: the largest request the auto
 * driver sends by PIO (for a hash, the bytes one engine request hashes: buffered ones included;
 * for gcm, AAD and data).
 */
static unsigned int hwoffload_attr_mode(struct device_attribute *attr)
{
	return (uintptr_t)container_of(attr, struct dev_ext_attribute, attr)->var;
}

static ssize_t hwoffload_threshold_show(struct device *dev, struct device_attribute *attr,
					char *buf)
{
	struct hwoffload_dev *hw = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%u\n", READ_ONCE(hw->threshold[hwoffload_attr_mode(attr)]));
}

static ssize_t hwoffload_threshold_store(struct device *dev, struct device_attribute *attr,
					 const char *buf, size_t count)
{
	struct hwoffload_dev *hw = dev_get_drvdata(dev);
	unsigned int val;
	int ret = kstrtouint(buf, 0, &val);

	if (ret)
		return ret;
	/* PIO does not split a GCM message: the auto driver sends only those that fit the FIFO */
	if (hwoffload_attr_mode(attr) == HWOFFLOAD_THRESHOLD_GCM && val > HWE_FIFO_DEPTH)
		return -EINVAL;
	WRITE_ONCE(hw->threshold[hwoffload_attr_mode(attr)], val);
	return count;
}

#define HWOFFLOAD_THRESHOLD_ATTR(mode, name)						\
	static struct dev_ext_attribute hwoffload_attr_threshold_##name = {		\
		__ATTR(threshold_##name, 0644, hwoffload_threshold_show,		\
		       hwoffload_threshold_store),					\
		(void *)(uintptr_t)(mode)						\
	}

HWOFFLOAD_THRESHOLD_ATTR(HWOFFLOAD_ECB, ecb);
HWOFFLOAD_THRESHOLD_ATTR(HWOFFLOAD_CBC, cbc);
HWOFFLOAD_THRESHOLD_ATTR(HWOFFLOAD_CTR, ctr);
HWOFFLOAD_THRESHOLD_ATTR(HWOFFLOAD_THRESHOLD_HASH(HWOFFLOAD_MD5), md5);
HWOFFLOAD_THRESHOLD_ATTR(HWOFFLOAD_THRESHOLD_HASH(HWOFFLOAD_SHA1), sha1);
HWOFFLOAD_THRESHOLD_ATTR(HWOFFLOAD_THRESHOLD_HASH(HWOFFLOAD_SHA224), sha224);
HWOFFLOAD_THRESHOLD_ATTR(HWOFFLOAD_THRESHOLD_HASH(HWOFFLOAD_SHA256), sha256);
HWOFFLOAD_THRESHOLD_ATTR(HWOFFLOAD_THRESHOLD_HASH(HWOFFLOAD_SHA384), sha384);
HWOFFLOAD_THRESHOLD_ATTR(HWOFFLOAD_THRESHOLD_HASH(HWOFFLOAD_SHA512), sha512);
HWOFFLOAD_THRESHOLD_ATTR(HWOFFLOAD_THRESHOLD_GCM, gcm);

static struct attribute *hwoffload_attrs[] = {
	&hwoffload_attr_threshold_ecb.attr.attr,
	&hwoffload_attr_threshold_cbc.attr.attr,
	&hwoffload_attr_threshold_ctr.attr.attr,
	&hwoffload_attr_threshold_md5.attr.attr,
	&hwoffload_attr_threshold_sha1.attr.attr,
	&hwoffload_attr_threshold_sha224.attr.attr,
	&hwoffload_attr_threshold_sha256.attr.attr,
	&hwoffload_attr_threshold_sha384.attr.attr,
	&hwoffload_attr_threshold_sha512.attr.attr,
	&hwoffload_attr_threshold_gcm.attr.attr,
	NULL
};

static const struct attribute_group hwoffload_attr_group = {
	.name = HWOFFLOAD_DRIVER_NAME,
	.attrs = hwoffload_attrs,
};

const struct attribute_group *hwoffload_attr_groups[] = {
	&hwoffload_attr_group,
	NULL
};
