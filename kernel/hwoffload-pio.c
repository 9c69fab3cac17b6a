// SPDX-License-Identifier: GPL-2.0
/*
 * hwoffload PIO path (ENGINE.md section 5), like omap-sham's xmit_cpu: the CPU copies up to a
 * FIFO of data into BAR2, rings, polls PIO_DONE_SEQ and copies the result out. CBC and CTR
 * chain from one FIFO load to the next through the IV the engine keeps. This runs in the
 * crypto_engine thread, so a long wait may sleep between polls.
 */
#include <linux/iopoll.h>
#include <linux/scatterlist.h>

#include "hwoffload.h"

#define HWOFF_PIO_SPIN_US	50	/* a polled round trip is about 3 us: spin this long */
#define HWOFF_PIO_SLEEP_US	20	/* then poll at this interval until the timeout */

static int hwoff_pio_wait(struct hwoff_dev *hw, u32 seq)
{
	u32 done;

	if (!read_poll_timeout_atomic(hwoff_read, done, done == seq, 1, HWOFF_PIO_SPIN_US, false,
				      hw, HWOFF_REG_PIO_DONE_SEQ))
		return 0;
	return read_poll_timeout(hwoff_read, done, done == seq, HWOFF_PIO_SLEEP_US,
				 hwoff_timeout_ms * USEC_PER_MSEC, false, hw,
				 HWOFF_REG_PIO_DONE_SEQ);
}

/* One FIFO load: @len bytes at offset @off of the request, through the engine. */
static int hwoff_pio_chunk(struct hwoff_dev *hw, struct skcipher_request *req,
			   unsigned int off, unsigned int len)
{
	u32 result;
	int ret;

	sg_pcopy_to_buffer(req->src, sg_nents(req->src), hw->regs + HWOFF_FIFO_IN, len, off);
	hwoff_write(hw, HWOFF_REG_FIFO_IN_LEVEL, len);
	hwoff_write(hw, HWOFF_REG_PIO_SEQ, ++hw->pio_seq);
	hwoff_ring_doorbell(hw, HWOFF_DB_PIO);
	ret = hwoff_pio_wait(hw, hw->pio_seq);
	if (ret) {
		hwoff_stat_inc(hw, HWOFF_STAT_PIO_TIMEOUTS);
		dev_warn(hw->dev, "PIO timeout: resetting the engine\n");
		hwoff_reset_locked(hw);
		return ret;
	}
	rmb();	/* PIO_DONE_SEQ before the result and the output it releases */
	result = hwoff_read(hw, HWOFF_REG_PIO_RESULT);
	if (result != HWOFF_ERR_NONE || hwoff_read(hw, HWOFF_REG_FIFO_OUT_LEVEL) != len) {
		dev_warn_ratelimited(hw->dev, "PIO request failed: engine error %u\n", result);
		ret = -EIO;
	} else {
		sg_pcopy_from_buffer(req->dst, sg_nents(req->dst), hw->regs + HWOFF_FIFO_OUT, len,
				     off);
	}
	hwoff_write(hw, HWOFF_REG_FIFO_OUT_LEVEL, 0);
	return ret;
}

int hwoff_pio_crypt(struct hwoff_dev *hw, struct skcipher_request *req)
{
	unsigned int ivsize = crypto_skcipher_ivsize(crypto_skcipher_reqtfm(req));
	unsigned int off, len;
	struct hwoff_aes_ctx ctx;
	int ret = 0;

	/* The PIO context registers are laid out as a context record. */
	BUILD_BUG_ON(HWOFF_REG_AES_CTR_OFFSET - HWOFF_REG_AES_CFG !=
		     offsetof(struct hwoff_aes_ctx, ctr_offset));
	BUILD_BUG_ON(HWOFF_REG_AES_IV - HWOFF_REG_AES_CFG != offsetof(struct hwoff_aes_ctx, iv));
	BUILD_BUG_ON(HWOFF_REG_AES_KEY - HWOFF_REG_AES_CFG != offsetof(struct hwoff_aes_ctx, key));
	BUILD_BUG_ON(HWOFF_REG_AES_CFG + sizeof(ctx) > HWOFF_REG_PIO_SEQ);

	hwoff_cipher_fill_ctx(req, &ctx);
	mutex_lock(&hw->hw_lock);
	if (hw->dead) {
		ret = -EIO;
		goto out_unlock;
	}
	memcpy(hw->regs + HWOFF_REG_AES_CFG, &ctx, sizeof(ctx));
	for (off = 0; off < req->cryptlen && !ret; off += len) {
		len = min(req->cryptlen - off, HWOFF_FIFO_DEPTH);
		ret = hwoff_pio_chunk(hw, req, off, len);
		hwoff_stat_inc(hw, HWOFF_STAT_PIO_CHUNKS);
	}
	if (!ret && ivsize)
		memcpy(req->iv, hw->regs + HWOFF_REG_AES_IV, ivsize);
	/* BAR2 stays readable: leave no key behind (ENGINE.md section 4) */
	memzero_explicit(hw->regs + HWOFF_REG_AES_KEY, AES_MAX_KEY_SIZE);
out_unlock:
	mutex_unlock(&hw->hw_lock);
	memzero_explicit(&ctx, sizeof(ctx));
	if (ret) {
		hwoff_stat_inc(hw, HWOFF_STAT_PIO_ERRORS);
	} else {
		hwoff_stat_inc(hw, HWOFF_STAT_PIO_REQUESTS);
		hwoff_stat_add(hw, HWOFF_STAT_PIO_BYTES, req->cryptlen);
	}
	return ret;
}
