// SPDX-License-Identifier: GPL-2.0
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
 */
#include <linux/module.h>

#include "hwoffload.h"

static const struct hwoff_mode_info {
	const char *name;
	u32 hw_mode;
	unsigned int blocksize;
	unsigned int ivsize;
} hwoff_modes[HWOFF_MODE_COUNT] = {
	[HWOFF_ECB] = { "ecb", HWOFF_MODE_ECB, AES_BLOCK_SIZE, 0 },
	[HWOFF_CBC] = { "cbc", HWOFF_MODE_CBC, AES_BLOCK_SIZE, AES_BLOCK_SIZE },
	[HWOFF_CTR] = { "ctr", HWOFF_MODE_CTR, 1, AES_BLOCK_SIZE },
};

static const struct hwoff_path_info {
	const char *suffix;
	int priority;
	u32 flags;
} hwoff_paths[HWOFF_PATH_COUNT] = {
	/* DMA may allocate a bounce list per request */
	[HWOFF_PATH_AUTO] = { "", 300, CRYPTO_ALG_ALLOCATES_MEMORY },
	[HWOFF_PATH_DMA] = { "-dma", 290, CRYPTO_ALG_ALLOCATES_MEMORY },
	[HWOFF_PATH_PIO] = { "-pio", 280, 0 },
};

#define HWOFF_ALG_COUNT		(HWOFF_MODE_COUNT * HWOFF_PATH_COUNT)

static struct hwoff_alg *hwoff_alg_of(struct crypto_skcipher *tfm)
{
	return container_of(crypto_skcipher_alg(tfm), struct hwoff_alg, engine_alg.base);
}

/* The context record of a request; also the layout of the PIO context registers. */
void hwoff_cipher_fill_ctx(struct skcipher_request *req, struct hwoff_aes_ctx *rec)
{
	struct crypto_skcipher *tfm = crypto_skcipher_reqtfm(req);
	struct hwoff_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);
	struct hwoff_req_ctx *rctx = skcipher_request_ctx(req);
	struct hwoff_alg *alg = hwoff_alg_of(tfm);

	rec->cfg = cpu_to_le32(HWOFF_CFG(HWOFF_UNIT_AES, hwoff_modes[alg->mode].hw_mode,
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
 * The path of one request: the driver's own, or for auto its threshold (sysfs), counted in the
 * auto_* or hash_auto_* statistics.
 */
enum hwoff_path hwoff_choose_path(struct hwoff_dev *hw, enum hwoff_path path,
				  unsigned int threshold, unsigned int len, bool hash)
{
	bool pio;

	if (path != HWOFF_PATH_AUTO)
		return path;
	pio = len <= READ_ONCE(hw->threshold[threshold]);
	if (hash)
		hwoff_stat_inc(hw, pio ? HWOFF_STAT_HASH_AUTO_PIO : HWOFF_STAT_HASH_AUTO_DMA);
	else
		hwoff_stat_inc(hw, pio ? HWOFF_STAT_AUTO_PIO : HWOFF_STAT_AUTO_DMA);
	return pio ? HWOFF_PATH_PIO : HWOFF_PATH_DMA;
}

static int hwoff_skcipher_crypt(struct skcipher_request *req, bool decrypt)
{
	struct crypto_skcipher *tfm = crypto_skcipher_reqtfm(req);
	struct hwoff_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);
	struct hwoff_req_ctx *rctx = skcipher_request_ctx(req);
	struct hwoff_alg *alg = hwoff_alg_of(tfm);
	struct hwoff_dev *hw;
	int ret;

	if (!req->cryptlen)
		return 0;
	if (!IS_ALIGNED(req->cryptlen, crypto_skcipher_blocksize(tfm)))
		return -EINVAL;
	hw = hwoff_dev_get(ctx->generation);
	if (!hw)
		return -ENODEV;
	rctx->req = req;
	rctx->hw = hw;
	rctx->decrypt = decrypt;
	rctx->path = hwoff_choose_path(hw, alg->path, alg->mode, req->cryptlen, false);
	ret = crypto_transfer_skcipher_request_to_engine(hw->engine, req);
	/* -EBUSY: backlogged, still queued */
	if (ret != -EINPROGRESS && ret != -EBUSY)
		hwoff_dev_put(hw);
	return ret;
}

static int hwoff_skcipher_encrypt(struct skcipher_request *req)
{
	return hwoff_skcipher_crypt(req, false);
}

static int hwoff_skcipher_decrypt(struct skcipher_request *req)
{
	return hwoff_skcipher_crypt(req, true);
}

/* The engine is done with a request (by PIO, or by DMA from the interrupt), bottom halves off. */
void hwoff_cipher_done(struct hwoff_dev *hw, struct skcipher_request *req, int err)
{
	crypto_finalize_skcipher_request(hw->engine, req, err);
	hwoff_dev_put(hw);
}

/*
 * In the crypto_engine thread. PIO runs to the end here; DMA is published and completed by
 * the interrupt, so the engine goes on to the next request meanwhile (retry_support). Once the
 * device is being unbound, what is still queued fails.
 */
static int hwoff_skcipher_do_one(struct crypto_engine *engine, void *areq)
{
	struct skcipher_request *req = container_of(areq, struct skcipher_request, base);
	struct hwoff_req_ctx *rctx = skcipher_request_ctx(req);
	struct hwoff_dev *hw = rctx->hw;
	int err;

	if (READ_ONCE(hw->unbound)) {
		err = -ENODEV;
	} else if (rctx->path == HWOFF_PATH_DMA) {
		err = hwoff_dma_submit(hw, req);
		if (!err)
			return 0;
	} else {
		err = hwoff_pio_crypt(hw, req);
	}
	local_bh_disable();
	hwoff_cipher_done(hw, req, err);
	local_bh_enable();
	return 0;
}

static int hwoff_skcipher_setkey(struct crypto_skcipher *tfm, const u8 *key,
				 unsigned int keylen)
{
	struct hwoff_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);
	int ret = aes_check_keylen(keylen);

	if (ret)
		return ret;
	memzero_explicit(ctx->key, sizeof(ctx->key));
	memcpy(ctx->key, key, keylen);
	ctx->keylen = keylen;
	return 0;
}

/* Runtime PM is held per transform, not per request. */
static int hwoff_skcipher_init(struct crypto_skcipher *tfm)
{
	struct hwoff_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);
	struct hwoff_alg *alg = hwoff_alg_of(tfm);

	hwoff_engine_tfm_init(&ctx->engine, &alg->engine_alg.op);
	crypto_skcipher_set_reqsize(tfm, sizeof(struct hwoff_req_ctx));
	return hwoff_tfm_attach(&ctx->generation, 0);
}

static void hwoff_skcipher_exit(struct crypto_skcipher *tfm)
{
	struct hwoff_tfm_ctx *ctx = crypto_skcipher_ctx(tfm);

	memzero_explicit(ctx->key, sizeof(ctx->key));
	hwoff_tfm_detach(ctx->generation);
}

static void hwoff_alg_init(struct hwoff_alg *alg, enum hwoff_mode_index mode, enum hwoff_path path)
{
	const struct hwoff_mode_info *m = &hwoff_modes[mode];
	const struct hwoff_path_info *p = &hwoff_paths[path];
	struct skcipher_alg *skcipher = &alg->engine_alg.base;
	struct crypto_alg *base = &skcipher->base;

	alg->mode = mode;
	alg->path = path;
	snprintf(base->cra_name, sizeof(base->cra_name), "%s(aes)", m->name);
	snprintf(base->cra_driver_name, sizeof(base->cra_driver_name), "%s-aes-hwoffload%s",
		 m->name, p->suffix);
	base->cra_priority = p->priority;
	base->cra_flags = CRYPTO_ALG_ASYNC | CRYPTO_ALG_KERN_DRIVER_ONLY | p->flags;
	base->cra_blocksize = m->blocksize;
	base->cra_ctxsize = sizeof(struct hwoff_tfm_ctx);
	base->cra_module = THIS_MODULE;
	skcipher->min_keysize = AES_MIN_KEY_SIZE;
	skcipher->max_keysize = AES_MAX_KEY_SIZE;
	skcipher->ivsize = m->ivsize;
	/* AF_ALG hands a MSG_MORE stream over in multiples of this: whole CTR blocks */
	skcipher->chunksize = AES_BLOCK_SIZE;
	skcipher->setkey = hwoff_skcipher_setkey;
	skcipher->encrypt = hwoff_skcipher_encrypt;
	skcipher->decrypt = hwoff_skcipher_decrypt;
	skcipher->init = hwoff_skcipher_init;
	skcipher->exit = hwoff_skcipher_exit;
	alg->engine_alg.op.do_one_request = hwoff_skcipher_do_one;
}

/* The module's algorithms (hwoffload.h, "Lifetime"); registering is serialized by binding. */
static struct hwoff_alg hwoff_algs[HWOFF_ALG_COUNT];
static bool hwoff_algs_registered;

/*
 * Register the skciphers, and the hashes if @hw has the hash unit, unless they are already:
 * their self-tests run on @hw.
 */
int hwoff_algs_register(struct hwoff_dev *hw)
{
	int i, ret;

	for (i = 0; !hwoff_algs_registered && i < HWOFF_ALG_COUNT; i++) {
		hwoff_alg_init(&hwoff_algs[i], i / HWOFF_PATH_COUNT, i % HWOFF_PATH_COUNT);
		ret = crypto_engine_register_skcipher(&hwoff_algs[i].engine_alg);
		if (ret) {
			dev_err(hw->dev, "cannot register %s: %d\n",
				hwoff_algs[i].engine_alg.base.base.cra_driver_name, ret);
			goto err_unregister;
		}
	}
	hwoff_algs_registered = true;
	/* an engine without the hash unit still serves AES */
	if (hw->caps & HWOFF_CAP_HASH)
		return hwoff_hash_register(hw);
	return 0;

err_unregister:
	while (i--)
		crypto_engine_unregister_skcipher(&hwoff_algs[i].engine_alg);
	return ret;
}

/* At module exit: no transform is left. */
void hwoff_algs_unregister(void)
{
	int i;

	hwoff_hash_unregister();
	for (i = 0; hwoff_algs_registered && i < HWOFF_ALG_COUNT; i++)
		crypto_engine_unregister_skcipher(&hwoff_algs[i].engine_alg);
}

/*
 * sysfs hwoffload/threshold_MODE and threshold_HASH: the largest request the auto driver sends
 * by PIO (for a hash, the bytes one engine request hashes: buffered ones included).
 */
static unsigned int hwoff_attr_mode(struct device_attribute *attr)
{
	return (uintptr_t)container_of(attr, struct dev_ext_attribute, attr)->var;
}

static ssize_t hwoff_threshold_show(struct device *dev, struct device_attribute *attr,
				    char *buf)
{
	struct hwoff_dev *hw = dev_get_drvdata(dev);

	return sysfs_emit(buf, "%u\n", READ_ONCE(hw->threshold[hwoff_attr_mode(attr)]));
}

static ssize_t hwoff_threshold_store(struct device *dev, struct device_attribute *attr,
				     const char *buf, size_t count)
{
	struct hwoff_dev *hw = dev_get_drvdata(dev);
	unsigned int val;
	int ret = kstrtouint(buf, 0, &val);

	if (ret)
		return ret;
	WRITE_ONCE(hw->threshold[hwoff_attr_mode(attr)], val);
	return count;
}

#define HWOFF_THRESHOLD_ATTR(mode, name)						\
	static struct dev_ext_attribute hwoff_attr_threshold_##name = {			\
		__ATTR(threshold_##name, 0644, hwoff_threshold_show, hwoff_threshold_store), \
		(void *)(uintptr_t)(mode)						\
	}

HWOFF_THRESHOLD_ATTR(HWOFF_ECB, ecb);
HWOFF_THRESHOLD_ATTR(HWOFF_CBC, cbc);
HWOFF_THRESHOLD_ATTR(HWOFF_CTR, ctr);
HWOFF_THRESHOLD_ATTR(HWOFF_THRESHOLD_HASH(HWOFF_MD5), md5);
HWOFF_THRESHOLD_ATTR(HWOFF_THRESHOLD_HASH(HWOFF_SHA1), sha1);
HWOFF_THRESHOLD_ATTR(HWOFF_THRESHOLD_HASH(HWOFF_SHA224), sha224);
HWOFF_THRESHOLD_ATTR(HWOFF_THRESHOLD_HASH(HWOFF_SHA256), sha256);
HWOFF_THRESHOLD_ATTR(HWOFF_THRESHOLD_HASH(HWOFF_SHA384), sha384);
HWOFF_THRESHOLD_ATTR(HWOFF_THRESHOLD_HASH(HWOFF_SHA512), sha512);

static struct attribute *hwoff_attrs[] = {
	&hwoff_attr_threshold_ecb.attr.attr,
	&hwoff_attr_threshold_cbc.attr.attr,
	&hwoff_attr_threshold_ctr.attr.attr,
	&hwoff_attr_threshold_md5.attr.attr,
	&hwoff_attr_threshold_sha1.attr.attr,
	&hwoff_attr_threshold_sha224.attr.attr,
	&hwoff_attr_threshold_sha256.attr.attr,
	&hwoff_attr_threshold_sha384.attr.attr,
	&hwoff_attr_threshold_sha512.attr.attr,
	NULL
};

static const struct attribute_group hwoff_attr_group = {
	.name = HWOFF_DRIVER_NAME,
	.attrs = hwoff_attrs,
};

const struct attribute_group *hwoff_attr_groups[] = {
	&hwoff_attr_group,
	NULL
};
