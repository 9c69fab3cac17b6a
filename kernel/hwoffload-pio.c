// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwoffload PIO path (ENGINE.md section 5), like omap-sham's xmit_cpu: the CPU copies up to a
 * FIFO of data into BAR2, rings, polls PIO_DONE_SEQ and copies the result out. CBC and CTR
 * chain from one FIFO load to the next through the IV the engine keeps. This runs in the
 * crypto_engine thread or in a caller that may sleep (synchronous PIO), so a long wait may
 * sleep between polls.
 *
 * A service of the type files, which load their unit's context between hwoffload_pio_take()
 * (or hwoffload_pio_load_aes()) and hwoffload_pio_release() and run FIFO loads in between.
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
int hwoffload_pio_run(struct hwoffload_dev *hw, unsigned int len, struct hwoffload_req_times *t)
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
int hwoffload_pio_chunk(struct hwoffload_dev *hw, struct scatterlist *src, struct scatterlist *dst,
			unsigned int off, unsigned int len, struct hwoffload_req_times *t)
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

/* A request's result in the statistics of its type: @requests and @bytes, or pio_errors. */
void hwoffload_pio_count(struct hwoffload_dev *hw, int ret, enum hwoffload_stat requests,
			 enum hwoffload_stat bytes, unsigned int len)
{
	if (ret) {
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_PIO_ERRORS);
	} else {
		hwoffload_stat_inc(hw, requests);
		hwoffload_stat_add(hw, bytes, len);
	}
}

/* Take the PIO block for @unit; -EIO, unlocked, when the engine is dead. */
int hwoffload_pio_take(struct hwoffload_dev *hw, u32 unit)
{
	mutex_lock(&hw->hw_lock);
	if (hw->dead) {
		mutex_unlock(&hw->hw_lock);
		return -EIO;
	}
	/* the other unit may have had the PIO block last */
	hwoffload_write(hw, HWE_REG_PIO_UNIT, unit);
	return 0;
}

/* Take the PIO block for AES with @ctx loaded; -EIO, unlocked, when the engine is dead. */
int hwoffload_pio_load_aes(struct hwoffload_dev *hw, const struct hwe_aes_ctx *ctx)
{
	int ret = hwoffload_pio_take(hw, HWE_UNIT_AES);

	/* The PIO context registers are laid out as a context record. */
	BUILD_BUG_ON(HWE_REG_AES_CTR_OFFSET - HWE_REG_AES_CFG !=
		     offsetof(struct hwe_aes_ctx, ctr_offset));
	BUILD_BUG_ON(HWE_REG_AES_IV - HWE_REG_AES_CFG != offsetof(struct hwe_aes_ctx, iv));
	BUILD_BUG_ON(HWE_REG_AES_KEY - HWE_REG_AES_CFG != offsetof(struct hwe_aes_ctx, key));
	BUILD_BUG_ON(HWE_REG_AES_CFG + sizeof(*ctx) > HWE_REG_PIO_SEQ);
	if (!ret)
		memcpy(hw->regs + HWE_REG_AES_CFG, ctx, sizeof(*ctx));
	return ret;
}

/*
 * Give the PIO block back. BAR2 stays readable: leave no key behind (ENGINE.md section 4), nor
 * a hash state, which for an HMAC is as good as its key.
 */
void hwoffload_pio_release(struct hwoffload_dev *hw)
{
	memzero_explicit(hw->regs + HWE_REG_AES_KEY, AES_MAX_KEY_SIZE);
	memzero_explicit(hw->regs + HWE_REG_HASH_STATE, HWE_HASH_STATE_SIZE);
	mutex_unlock(&hw->hw_lock);
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
	hwoffload_pio_release(hw);
	return ret;
}
