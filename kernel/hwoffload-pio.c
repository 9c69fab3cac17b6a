// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwoffload PIO path (ENGINE.md section 5), like omap-sham's xmit_cpu: the CPU copies up to a
 * FIFO of data into BAR2, rings, polls PIO_DONE_SEQ and copies the result out. CBC and CTR
 * chain from one FIFO load to the next through the IV the engine keeps. This runs in the
 * crypto_engine thread or in a caller that may sleep (synchronous PIO), so a long wait may
 * sleep between polls.
 */
#include <linux/iopoll.h>
#include <linux/scatterlist.h>

#include "hwoffload.h"

#define HWOFFLOAD_PIO_SPIN_US	50	/* a polled round trip is about 3 us: spin this long */
#define HWOFFLOAD_PIO_SLEEP_US	20	/* then poll at this interval until the timeout */

static int hwoffload_pio_wait(struct hwoffload_dev *hw, u32 seq)
{
	u32 done;

	if (!read_poll_timeout_atomic(hwoffload_read, done, done == seq, 1, HWOFFLOAD_PIO_SPIN_US,
				      false, hw, HWE_REG_PIO_DONE_SEQ))
		return 0;
	return read_poll_timeout(hwoffload_read, done, done == seq, HWOFFLOAD_PIO_SLEEP_US,
				 hwoffload_timeout_ms * USEC_PER_MSEC, false, hw,
				 HWE_REG_PIO_DONE_SEQ);
}

/*
 * Post the @len bytes in FIFO_IN to the unit whose registers are loaded, and wait; the first
 * doorbell and the last completion go into @t, if not NULL. A timeout resets the engine (which
 * fails the DMA ring too); an engine error leaves the context as it was before the request
 * (ENGINE.md sections 5 and 11).
 */
static int hwoffload_pio_run(struct hwoffload_dev *hw, unsigned int len,
			     struct hwoffload_req_times *t)
{
	u32 result;
	int ret;

	hwoffload_write(hw, HWE_REG_FIFO_IN_LEVEL, len);
	hwoffload_write(hw, HWE_REG_PIO_SEQ, ++hw->pio_seq);
	if (t) {
		t->busy_mark = hwoffload_read64(hw, HWE_REG_CNT_PIO_BUSY_NS);
		if (!t->doorbell)
			t->doorbell = ktime_get_ns();
	}
	hwoffload_ring_doorbell(hw, HWE_DB_PIO);
	hwoffload_stat_inc(hw, HWOFFLOAD_STAT_PIO_CHUNKS);
	ret = hwoffload_pio_wait(hw, hw->pio_seq);
	if (t)
		t->seen = ktime_get_ns();
	if (ret) {
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_PIO_TIMEOUTS);
		dev_warn(hw->dev, "PIO timeout: resetting the engine\n");
		hwoffload_reset_locked(hw);
		return ret;
	}
	rmb();	/* PIO_DONE_SEQ before the result and the output it releases */
	if (t)
		t->engine_ns += hwoffload_read64(hw, HWE_REG_CNT_PIO_BUSY_NS) - t->busy_mark;
	result = hwoffload_read(hw, HWE_REG_PIO_RESULT);
	/* a GCM decrypt refused by its tag: a result, not a fault (ENGINE.md section 12) */
	if (result == HWE_ERR_TAG_MISMATCH)
		return -EBADMSG;
	if (result != HWE_ERR_NONE) {
		dev_warn_ratelimited(hw->dev, "PIO request failed: engine error %u\n", result);
		return -EIO;
	}
	return 0;
}

/*
 * One FIFO load: @len bytes at offset @off of @src through the engine into @dst; the first
 * doorbell and the last completion go into @t, if not NULL.
 */
static int hwoffload_pio_chunk(struct hwoffload_dev *hw, struct scatterlist *src,
			       struct scatterlist *dst, unsigned int off, unsigned int len,
			       struct hwoffload_req_times *t)
{
	int ret;

	sg_pcopy_to_buffer(src, sg_nents(src), hw->regs + HWE_FIFO_IN, len, off);
	ret = hwoffload_pio_run(hw, len, t);
	if (!ret && hwoffload_read(hw, HWE_REG_FIFO_OUT_LEVEL) != len) {
		dev_warn_ratelimited(hw->dev, "PIO request failed: short output\n");
		ret = -EIO;
	}
	if (!ret)
		sg_pcopy_from_buffer(dst, sg_nents(dst), hw->regs + HWE_FIFO_OUT, len, off);
	hwoffload_write(hw, HWE_REG_FIFO_OUT_LEVEL, 0);
	return ret;
}

static void hwoffload_pio_count(struct hwoffload_dev *hw, int ret, enum hwoffload_stat requests,
				enum hwoffload_stat bytes, unsigned int len)
{
	if (ret) {
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_PIO_ERRORS);
	} else {
		hwoffload_stat_inc(hw, requests);
		hwoffload_stat_add(hw, bytes, len);
	}
}

/* Take the PIO block for AES with @ctx loaded; -EIO, unlocked, when the engine is dead. */
static int hwoffload_pio_load_aes(struct hwoffload_dev *hw, const struct hwe_aes_ctx *ctx)
{
	mutex_lock(&hw->hw_lock);
	if (hw->dead) {
		mutex_unlock(&hw->hw_lock);
		return -EIO;
	}
	/* the hash unit may have had the PIO block last */
	hwoffload_write(hw, HWE_REG_PIO_UNIT, HWE_UNIT_AES);
	memcpy(hw->regs + HWE_REG_AES_CFG, ctx, sizeof(*ctx));
	return 0;
}

int hwoffload_pio_crypt(struct hwoffload_dev *hw, struct skcipher_request *req)
{
	unsigned int ivsize = crypto_skcipher_ivsize(crypto_skcipher_reqtfm(req));
	struct hwoffload_req_ctx *rctx = skcipher_request_ctx(req);
	unsigned int off, len;
	struct hwe_aes_ctx ctx;
	int ret;

	/* The PIO context registers are laid out as a context record. */
	BUILD_BUG_ON(HWE_REG_AES_CTR_OFFSET - HWE_REG_AES_CFG !=
		     offsetof(struct hwe_aes_ctx, ctr_offset));
	BUILD_BUG_ON(HWE_REG_AES_IV - HWE_REG_AES_CFG != offsetof(struct hwe_aes_ctx, iv));
	BUILD_BUG_ON(HWE_REG_AES_KEY - HWE_REG_AES_CFG != offsetof(struct hwe_aes_ctx, key));
	BUILD_BUG_ON(HWE_REG_AES_CFG + sizeof(ctx) > HWE_REG_PIO_SEQ);

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
		/* BAR2 stays readable: leave no key behind (ENGINE.md section 4) */
		memzero_explicit(hw->regs + HWE_REG_AES_KEY, AES_MAX_KEY_SIZE);
		mutex_unlock(&hw->hw_lock);
	}
	hwoffload_pio_count(hw, ret, HWOFFLOAD_STAT_PIO_REQUESTS, HWOFFLOAD_STAT_PIO_BYTES,
			    req->cryptlen);
	return ret;
}

/*
 * A gcm(aes) message (ENGINE.md section 12, PIO form): the GCM context beside the AES registers,
 * AAD || data in one FIFO load, AAD || output back; an encrypt's tag in GCM_TAG. A decrypt
 * refused by its tag gives -EBADMSG and no output.
 */
int hwoffload_pio_gcm(struct hwoffload_dev *hw, struct aead_request *req)
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
		memzero_explicit(hw->regs + HWE_REG_AES_KEY, AES_MAX_KEY_SIZE);
		mutex_unlock(&hw->hw_lock);
	}
	memzero_explicit(&rec, sizeof(rec));
	if (ret == -EBADMSG)
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_GCM_TAG_MISMATCHES);
	else
		hwoffload_pio_count(hw, ret, HWOFFLOAD_STAT_GCM_PIO_REQUESTS,
				    HWOFFLOAD_STAT_GCM_PIO_BYTES, len);
	return ret;
}

/*
 * A hash request (ENGINE.md section 11, PIO form): restore the stream into the hash registers,
 * feed st.buf and then req->src FIFO load by FIFO load (each a whole number of blocks, as
 * FIFO_DEPTH is; only the last may be partial, and only that one is FINAL), and save the
 * length and state back; for an HMAC's final request, then the outer hash. On failure the
 * request context keeps the state from before.
 */
int hwoffload_pio_hash(struct hwoffload_dev *hw, struct ahash_request *req)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);
	unsigned int total = rctx->st.buflen + rctx->src_len, off = 0, len;
	const u8 *outer;
	int ret = 0;

	BUILD_BUG_ON(HWE_FIFO_DEPTH % HWE_HASH_BLOCK_MAX);

	mutex_lock(&hw->hw_lock);
	if (hw->dead) {
		ret = -EIO;
		goto out_unlock;
	}
	hwoffload_write(hw, HWE_REG_PIO_UNIT, HWE_UNIT_HASH);
	hwoffload_write64(hw, HWE_REG_HASH_LEN_LO, rctx->st.len_lo);
	hwoffload_write64(hw, HWE_REG_HASH_LEN_HI, rctx->st.len_hi);
	memcpy(hw->regs + HWE_REG_HASH_STATE, rctx->st.state, HWE_HASH_STATE_SIZE);
	/* a FINAL request may be empty: one load of 0 bytes then */
	do {
		len = min(total - off, HWE_FIFO_DEPTH);
		hwoffload_write(hw, HWE_REG_HASH_CFG,
				hwoffload_hash_cfg(req, !off, off + len == total));
		hwoffload_hash_copy(req, hw->regs + HWE_FIFO_IN, off, len);
		ret = hwoffload_pio_run(hw, len, NULL);
		off += len;
	} while (!ret && off < total);
	outer = hwoffload_hash_outer_state(req);
	if (!ret && outer) {
		/* HMAC: the outer hash, from the opad state, over the inner digest */
		memcpy(hw->regs + HWE_FIFO_IN, hw->regs + HWE_REG_HASH_STATE,
		       hwoffload_hash_digestsize(req));
		hwoffload_write64(hw, HWE_REG_HASH_LEN_LO, hwoffload_hash_blocksize(req));
		hwoffload_write64(hw, HWE_REG_HASH_LEN_HI, 0);
		memcpy(hw->regs + HWE_REG_HASH_STATE, outer, HWE_HASH_STATE_SIZE);
		hwoffload_write(hw, HWE_REG_HASH_CFG, hwoffload_hash_cfg(req, false, true));
		ret = hwoffload_pio_run(hw, hwoffload_hash_digestsize(req), NULL);
	}
	if (!ret) {
		rctx->st.len_lo = hwoffload_read64(hw, HWE_REG_HASH_LEN_LO);
		rctx->st.len_hi = hwoffload_read64(hw, HWE_REG_HASH_LEN_HI);
		memcpy(rctx->st.state, hw->regs + HWE_REG_HASH_STATE, HWE_HASH_STATE_SIZE);
	}
	/* an HMAC's inner and outer states are as good as its key: leave none in BAR2 */
	memzero_explicit(hw->regs + HWE_REG_HASH_STATE, HWE_HASH_STATE_SIZE);
out_unlock:
	mutex_unlock(&hw->hw_lock);
	hwoffload_pio_count(hw, ret, HWOFFLOAD_STAT_HASH_PIO_REQUESTS,
			    HWOFFLOAD_STAT_HASH_PIO_BYTES, total);
	return ret;
}

/*
 * debugfs "roundtrip": the least a PIO request can carry (the engine refuses an empty one), one
 * ECB block under a zero key, timed from its doorbell to the poll that sees it done, with the
 * engine's own time for it.
 */
int hwoffload_pio_probe(struct hwoffload_dev *hw, struct hwoffload_req_times *t)
{
	struct hwe_aes_ctx ctx = {
		.cfg = cpu_to_le32(HWE_CFG(HWE_UNIT_AES, HWE_MODE_ECB, AES_KEYSIZE_128, false)),
	};
	int ret;

	ret = hwoffload_pio_load_aes(hw, &ctx);
	if (ret)
		return ret;
	memset(hw->regs + HWE_FIFO_IN, 0, AES_BLOCK_SIZE);
	ret = hwoffload_pio_run(hw, AES_BLOCK_SIZE, t);
	hwoffload_write(hw, HWE_REG_FIFO_OUT_LEVEL, 0);
	mutex_unlock(&hw->hw_lock);
	return ret;
}
