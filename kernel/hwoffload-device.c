// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwoffload device (DEVICE.md, numbers in hwoffload_uapi.h): /dev/hwoffloadN, a misc device
 * per engine bound, whose fd answers INFO and makes sessions; a session is an fd of its own
 * (one algorithm, key, path and stream) that takes batches of requests on user buffers and
 * hands back their completions by read() and poll().
 *
 * PIO requests run in the call, copied through a buffer of the session's (never a user copy
 * while the FIFO is held: a fault there would stall the engine for every user). DMA requests
 * have their pages pinned and mapped in place and go on the ring in the call; the interrupt
 * finishes them (unmapped, the device put back); the pages are unpinned in process context,
 * by the session's work item once the request is done (a WAIT batch's before it returns).
 * Each session has a context record of its own in the device's coherent memory, which every
 * DMA request of the session loads: the engine writes a request's output IV, or a hash's length
 * and state, back into it before it loads the next, so a stream's requests chain on the ring
 * without the CPU between them. The CPU writes the record only while none of the session's
 * requests is on the ring: a request that needs another record (the other direction, a hash's
 * FINAL, the message after it) waits.
 *
 * Lifetime: a session holds its engine's generation and a runtime PM reference
 * (hwoffload_tfm_attach, as a transform does) and its owner's mm; each call and each request in
 * flight holds the device (hwoffload_dev_get), so unbinding waits for them and every later call
 * fails with ENODEV. Nothing but the generation is kept of the device between calls: the fds
 * outlive it.
 */
#include <linux/anon_inodes.h>
#include <linux/dma-mapping.h>
#include <linux/file.h>
#include <linux/miscdevice.h>
#include <linux/mm.h>
#include <linux/poll.h>
#include <linux/sched/mm.h>
#include <linux/slab.h>
#include <linux/uaccess.h>

#include "hwoffload.h"
#include "hwoffload_uapi.h"

#define HWOFFLOAD_DEVICE_MAX_BATCH	64
#define HWOFFLOAD_DEVICE_MAX_INFLIGHT	64
#define HWOFFLOAD_DEVICE_MAX_REQUEST	SZ_1M	/* at most 2 * 257 DATA descriptors */
#define HWOFFLOAD_DEVICE_MAX_PINNED	(64ULL * SZ_1M)

/* pages pinned by the sessions of every engine: debugfs "pinned_pages" */
atomic_t hwoffload_device_pinned_pages = ATOMIC_INIT(0);

static DEFINE_IDA(hwoffload_device_ida);	/* N of /dev/hwoffloadN */

/* The skcipher rows of HWOFFLOAD_ALGS() the device offers, by enum hwo_alg. */
static const u32 hwoffload_device_modes[] = {
	[HWO_ALG_AES_ECB] = HWE_MODE_ECB,
	[HWO_ALG_AES_CBC] = HWE_MODE_CBC,
	[HWO_ALG_AES_CTR] = HWE_MODE_CTR,
};

/* The hash rows (hwoffload_hash_info_of()), by enum hwo_alg: the engine has them with HASH. */
static const u32 hwoffload_device_hashes[] = {
	[HWO_ALG_MD5] = HWE_HASH_MD5,	    [HWO_ALG_SHA1] = HWE_HASH_SHA1,
	[HWO_ALG_SHA224] = HWE_HASH_SHA224, [HWO_ALG_SHA256] = HWE_HASH_SHA256,
	[HWO_ALG_SHA384] = HWE_HASH_SHA384, [HWO_ALG_SHA512] = HWE_HASH_SHA512,
};

static const struct hwoffload_device_row {
	enum hwoffload_alg_id alg;
	u32 hw_mode;
	unsigned int blocksize;
} hwoffload_device_rows[] = {
#define HWOFFLOAD_DEVICE_ROW(name, hw_mode, blocksize, ivsize) \
	{ HWOFFLOAD_ALG_##name, hw_mode, blocksize },
	HWOFFLOAD_ALGS(HWOFFLOAD_DEVICE_ROW, HWOFFLOAD_ALG_NONE, HWOFFLOAD_ALG_NONE)
#undef HWOFFLOAD_DEVICE_ROW
};

static const enum hwoffload_path hwoffload_device_paths[] = {
	[HWO_PATH_AUTO] = HWOFFLOAD_PATH_AUTO,
	[HWO_PATH_PIO] = HWOFFLOAD_PATH_PIO,
	[HWO_PATH_DMA] = HWOFFLOAD_PATH_DMA,
};

struct hwoffload_session {
	unsigned long generation;	/* of the engine (hwoffload_tfm_attach) */
	struct mm_struct *mm;		/* the owner's (mmgrab): pinned_vm, and who may call */
	unsigned int id;		/* its record: hw->session_records[id] */
	u32 hwo_alg;
	const struct hwoffload_device_row *row;		/* AES sessions */
	const struct hwoffload_hash_info *hash;		/* hash sessions */
	bool stream;			/* its requests chain: CBC, CTR, the hashes */
	enum hwoffload_path path;
	unsigned int keylen;
	u8 key[AES_MAX_KEY_SIZE];
	/* the stream while none of its requests is on the ring */
	u8 iv[AES_BLOCK_SIZE];
	u32 ctr_offset;
	struct hwo_hash_state hash_state;	/* a hash's message */
	u8 hash_initial[HWE_HASH_STATE_SIZE];	/* its chaining words before any data */
	bool state_lost;		/* a request failed: the next must set its IV or state */
	u32 record_op;			/* the op the record is written for */
	bool record_sealed;		/* its last request is a FINAL or hands its state out */
	struct mutex lock;		/* one SUBMIT or state call at a time */
	u8 *pio_buf;			/* HWE_FIFO_DEPTH bytes, under @lock */
	/* under done_lock, taken with bottom halves off (the DMA finish runs there) */
	spinlock_t done_lock;
	struct list_head done;		/* finished requests, oldest first, not read yet */
	unsigned int unread;		/* submitted and not read: at most MAX_INFLIGHT */
	unsigned int on_ring;		/* of those, DMA ones not finished */
	bool ring_failed;		/* one of those failed: the rest ran on a stale record */
	u64 pinned_pages;		/* held by its requests, charged to mm->pinned_vm */
	wait_queue_head_t wq;		/* a request finished */
	struct work_struct unpin_work;	/* finished requests' pages given back before a read */
};

struct hwoffload_device_req {
	struct hwoffload_dma_req dma;
	struct hwoffload_session *s;
	struct list_head node;		/* in s->done once finished, unless waited for */
	bool finished;
	bool waited;			/* SUBMIT with WAIT hands it back, read() never sees it */
	u32 len;
	u32 op;
	/* a hash's digest or state, for the caller's dst when the completion is read */
	u64 out_to;
	u32 out_len;
	u8 out[sizeof(struct hwo_hash_state)];
	struct hwo_completion comp;
	struct hwoffload_req_times times;
	/* DMA: the pinned pages, source then destination (none when in place) */
	struct page **pages;
	unsigned int src_pages;
	unsigned int dst_pages;
	bool in_place;
	struct sg_table src_sgt;
	struct sg_table dst_sgt;
};

static struct hwoffload_dev *hwoffload_device_of(struct miscdevice *misc)
{
	return container_of(misc, struct hwoffload_dev, misc);
}

static u32 hwoffload_device_algorithms(struct hwoffload_dev *hw)
{
	u32 algs = 0;
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hwoffload_device_modes); i++)
		if (hwoffload_device_modes[i])
			algs |= 1u << i;
	for (i = 0; (hw->caps & HWE_CAP_HASH) && i < ARRAY_SIZE(hwoffload_device_hashes); i++)
		if (hwoffload_device_hashes[i])
			algs |= 1u << i;
	return algs;
}

/* A hash message not started: length 0, the initial chaining words. */
static void hwoffload_device_hash_restart(struct hwoffload_session *s)
{
	s->hash_state = (struct hwo_hash_state){ 0 };
	memcpy(s->hash_state.state, s->hash_initial, sizeof(s->hash_state.state));
}

/*
 * A structure of @ksize bytes from user space, which says its own size in its first word
 * (hwoffload_uapi.h): shorter is zero-filled, longer must be zero past ours (E2BIG).
 */
static int hwoffload_device_copy_in(void *dst, size_t ksize, const void __user *src)
{
	u32 usize;

	if (get_user(usize, (const u32 __user *)src))
		return -EFAULT;
	if (usize < sizeof(u32))
		return -EINVAL;
	return copy_struct_from_user(dst, ksize, src, usize);
}

/* What a request pinned, taken from it under done_lock: its pages are the taker's to unpin. */
struct hwoffload_device_pins {
	struct page **pages;
	unsigned int src_pages;
	unsigned int dst_pages;
	bool in_place;
};

static struct hwoffload_device_pins hwoffload_device_take_pins(struct hwoffload_device_req *r)
{
	struct hwoffload_device_pins p = { r->pages, r->src_pages, r->dst_pages, r->in_place };

	r->pages = NULL;
	return p;
}

/* Give back what a request pinned and charged: in process context (unpinning may sleep). */
static void hwoffload_device_unpin_pins(struct hwoffload_session *s, struct hwoffload_device_pins p)
{
	unsigned int n = p.src_pages + p.dst_pages;

	if (!p.pages)
		return;
	if (p.in_place) {
		unpin_user_pages_dirty_lock(p.pages, p.src_pages, true);
	} else {
		unpin_user_pages(p.pages, p.src_pages);
		unpin_user_pages_dirty_lock(p.pages + p.src_pages, p.dst_pages, true);
	}
	atomic64_sub(n, &s->mm->pinned_vm);
	atomic_sub(n, &hwoffload_device_pinned_pages);
	spin_lock_bh(&s->done_lock);
	s->pinned_pages -= n;
	spin_unlock_bh(&s->done_lock);
	kvfree(p.pages);
}

static void hwoffload_device_unpin(struct hwoffload_session *s, struct hwoffload_device_req *r)
{
	struct hwoffload_device_pins p;

	spin_lock_bh(&s->done_lock);
	p = hwoffload_device_take_pins(r);
	spin_unlock_bh(&s->done_lock);
	hwoffload_device_unpin_pins(s, p);
}

/*
 * The pages of finished requests that wait to be read go back now, so that a caller that
 * submits and reads late holds no page past its request (the read that follows finds none).
 */
static void hwoffload_device_unpin_work(struct work_struct *work)
{
	struct hwoffload_session *s = container_of(work, struct hwoffload_session, unpin_work);
	struct hwoffload_device_pins p;
	struct hwoffload_device_req *r;

	do {
		p = (struct hwoffload_device_pins){ 0 };
		spin_lock_bh(&s->done_lock);
		list_for_each_entry(r, &s->done, node) {
			if (r->pages) {
				p = hwoffload_device_take_pins(r);
				break;
			}
		}
		spin_unlock_bh(&s->done_lock);
		hwoffload_device_unpin_pins(s, p);
	} while (p.pages);
}

static void hwoffload_device_req_free(struct hwoffload_session *s, struct hwoffload_device_req *r)
{
	hwoffload_device_unpin(s, r);
	kfree_sensitive(r);	/* a digest, a message's state */
}

/*
 * A request is done: its completion waits to be read. The wake-up is under the lock, so that
 * a release that saw the session idle and took the lock finds nothing of it still running.
 */
static void hwoffload_device_req_done_locked(struct hwoffload_session *s,
					     struct hwoffload_device_req *r)
{
	lockdep_assert_held(&s->done_lock);
	r->finished = true;
	if (!r->waited) {
		list_add_tail(&r->node, &s->done);
		if (r->pages)
			schedule_work(&s->unpin_work);
	}
	wake_up(&s->wq);
}

/* Undo the mapping of a request's pages (hwoffload_device_pin()); they stay pinned. */
static void hwoffload_device_unmap(struct hwoffload_dev *hw, struct hwoffload_device_req *r)
{
	if (!r->len)
		return;		/* a hash's empty FINAL: nothing mapped */
	if (r->in_place) {
		dma_unmap_sgtable(hw->dev, &r->src_sgt, DMA_BIDIRECTIONAL, 0);
	} else {
		dma_unmap_sgtable(hw->dev, &r->src_sgt, DMA_TO_DEVICE, 0);
		if (r->dst_pages)
			dma_unmap_sgtable(hw->dev, &r->dst_sgt, DMA_FROM_DEVICE, 0);
	}
	sg_free_table(&r->src_sgt);
	sg_free_table(&r->dst_sgt);
}

static void hwoffload_device_collect(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq,
				     struct hwoffload_slot *slot)
{
}

/* The last of an AES session's requests on the ring: the stream runs on from its record. */
static void hwoffload_device_aes_done(struct hwoffload_session *s, const struct hwe_aes_ctx *rec)
{
	memcpy(s->iv, rec->iv, sizeof(s->iv));
	s->ctr_offset = le32_to_cpu(rec->ctr_offset);
}

/*
 * The last of a hash session's requests on the ring, @r, succeeded: a FINAL's digest, or the
 * state an UPDATE hands out, for its caller (a request that seals the record is the last on the
 * ring: hwoffload_device_record_busy()); the message runs on, or the next one starts.
 */
static void hwoffload_device_hash_done(struct hwoffload_session *s, struct hwoffload_device_req *r,
				       const struct hwe_hash_ctx *rec)
{
	if (r->op == HWO_OP_FINAL) {
		memcpy(r->out, rec->state, r->out_len);
		hwoffload_device_hash_restart(s);
		return;
	}
	s->hash_state.len_lo = le64_to_cpu(rec->len_lo);
	s->hash_state.len_hi = le64_to_cpu(rec->len_hi);
	memcpy(s->hash_state.state, rec->state, sizeof(s->hash_state.state));
	if (r->out_len)
		memcpy(r->out, &s->hash_state, sizeof(s->hash_state));
}

/*
 * Bottom halves off: unmap, and settle the request's status against the session's others on
 * the ring (after a failed one they ran on a stale record: ECANCELED). The last of them leaves
 * the stream's state in the record, taken back here.
 */
static void hwoffload_device_finish(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq)
{
	struct hwoffload_device_req *r = container_of(dreq, struct hwoffload_device_req, dma);
	struct hwoffload_session *s = r->s;
	struct hwoffload_slot *rec = &hw->session_records[s->id];
	int err = dreq->err;

	hwoffload_device_unmap(hw, r);

	r->comp.engine_ns = r->times.engine_ns;
	spin_lock(&s->done_lock);
	if (err)
		s->ring_failed = s->stream;
	else if (s->ring_failed)
		err = -ECANCELED;
	r->comp.status = err;
	if (err) {
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DEVICE_ERRORS);
	} else {
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DEVICE_DMA_REQUESTS);
		hwoffload_stat_add(hw, HWOFFLOAD_STAT_DEVICE_DMA_BYTES, r->len);
		if (s->hash)
			hwoffload_stat_add(hw, HWOFFLOAD_STAT_DEVICE_HASH_BYTES, r->len);
	}
	if (!--s->on_ring) {
		if (s->ring_failed)
			s->state_lost = true;
		else if (s->hash)
			hwoffload_device_hash_done(s, r, &rec->hash);
		else
			hwoffload_device_aes_done(s, &rec->ctx);
		s->ring_failed = false;
	}
	hwoffload_device_req_done_locked(s, r);
	spin_unlock(&s->done_lock);
	hwoffload_dev_put(hw);
}

static const struct hwoffload_dma_ops hwoffload_device_dma_ops = {
	.collect = hwoffload_device_collect,
	.finish = hwoffload_device_finish,
};

/* A hash request's context: the message's length and state, FINAL for a FINAL request. */
static void hwoffload_device_fill_hash(struct hwoffload_session *s, const struct hwo_request *ureq,
				       struct hwe_hash_ctx *ctx)
{
	BUILD_BUG_ON(sizeof_field(struct hwo_hash_state, state) != sizeof(ctx->state));
	ctx->cfg = cpu_to_le32(HWE_CFG(HWE_UNIT_HASH, s->hash->hw_alg, 0, 0) |
			       (ureq->op == HWO_OP_FINAL ? HWE_HASH_FINAL : 0));
	memset(ctx->reserved, 0, sizeof(ctx->reserved));
	ctx->len_lo = cpu_to_le64(s->hash_state.len_lo);
	ctx->len_hi = cpu_to_le64(s->hash_state.len_hi);
	memcpy(ctx->state, s->hash_state.state, sizeof(ctx->state));
}

/*
 * The context record a request starts from, for the PIO registers or the session's record: the
 * stream's, or the IV the request sets (the stream's only once the request is taken).
 */
static void hwoffload_device_fill_ctx(struct hwoffload_session *s, const struct hwo_request *ureq,
				      struct hwe_aes_ctx *ctx)
{
	bool set_iv = ureq->flags & HWO_REQ_SET_IV;

	ctx->cfg = cpu_to_le32(
		HWE_CFG(HWE_UNIT_AES, s->row->hw_mode, s->keylen, ureq->op == HWO_OP_DECRYPT));
	ctx->ctr_offset = cpu_to_le32(set_iv ? 0 : s->ctr_offset);
	memset(ctx->reserved, 0, sizeof(ctx->reserved));
	memcpy(ctx->iv, set_iv ? ureq->iv : s->iv, sizeof(ctx->iv));
	memcpy(ctx->key, s->key, sizeof(ctx->key));
}

/*
 * A request that would continue a stream whose state a failed request lost (EPIPE): settled
 * under done_lock, or with none of the session on the ring, as a failure's finish sets it.
 */
static bool hwoffload_device_stream_lost(struct hwoffload_session *s,
					 const struct hwo_request *ureq)
{
	return s->state_lost && !(ureq->flags & HWO_REQ_SET_IV);
}

/* Wait until none of the session's requests is on the ring: the record is the CPU's again. */
static void hwoffload_device_quiesce(struct hwoffload_session *s)
{
	wait_event(s->wq, !READ_ONCE(s->on_ring));
	/* what the last finish took back from the record (under done_lock) */
	spin_lock_bh(&s->done_lock);
	spin_unlock_bh(&s->done_lock);
}

/*
 * An AES request by PIO: one FIFO load of the session's buffer, the output copied out (a fault
 * there is the completion's status, and leaves the stream as it was); the stream runs on from
 * the IV and offset the engine writes back.
 */
static int hwoffload_device_pio_aes(struct hwoffload_dev *hw, struct hwoffload_session *s,
				    const struct hwo_request *ureq, struct hwoffload_device_req *r)
{
	u8 iv[AES_BLOCK_SIZE];
	struct hwe_aes_ctx ctx;
	struct scatterlist sg;
	u32 ctr_offset;
	int ret;

	hwoffload_device_fill_ctx(s, ureq, &ctx);
	ret = hwoffload_pio_load_aes(hw, &ctx);
	memzero_explicit(&ctx, sizeof(ctx));
	if (!ret) {
		sg_init_one(&sg, s->pio_buf, ureq->len);
		ret = hwoffload_pio_chunk(hw, &sg, &sg, 0, ureq->len, &r->times);
		memcpy(iv, hw->regs + HWE_REG_AES_IV, sizeof(iv));
		ctr_offset = hwoffload_read(hw, HWE_REG_AES_CTR_OFFSET);
		hwoffload_pio_release(hw);
		/* a failed load leaves the registers as before it: the stream is intact */
	}
	if (!ret && copy_to_user(u64_to_user_ptr(ureq->dst), s->pio_buf, ureq->len))
		ret = -EFAULT;
	if (!ret) {
		memcpy(s->iv, iv, sizeof(s->iv));
		s->ctr_offset = ctr_offset;
		s->state_lost = false;
	}
	return ret;
}

/*
 * A hash request by PIO (ENGINE.md section 11, PIO form): the message's length and state into
 * the hash registers, one FIFO load, and what the engine writes back taken as a DMA request's
 * record is; a failure leaves the message as it was.
 */
static int hwoffload_device_pio_hash(struct hwoffload_dev *hw, struct hwoffload_session *s,
				     const struct hwo_request *ureq, struct hwoffload_device_req *r)
{
	struct hwe_hash_ctx ctx;
	int ret;

	hwoffload_device_fill_hash(s, ureq, &ctx);
	ret = hwoffload_pio_take(hw, HWE_UNIT_HASH);
	if (ret)
		return ret;
	hwoffload_write(hw, HWE_REG_HASH_CFG, le32_to_cpu(ctx.cfg));
	hwoffload_write64(hw, HWE_REG_HASH_LEN_LO, s->hash_state.len_lo);
	hwoffload_write64(hw, HWE_REG_HASH_LEN_HI, s->hash_state.len_hi);
	memcpy(hw->regs + HWE_REG_HASH_STATE, ctx.state, HWE_HASH_STATE_SIZE);
	memcpy(hw->regs + HWE_FIFO_IN, s->pio_buf, ureq->len);
	ret = hwoffload_pio_run(hw, ureq->len, &r->times);
	if (!ret) {
		ctx.len_lo = cpu_to_le64(hwoffload_read64(hw, HWE_REG_HASH_LEN_LO));
		ctx.len_hi = cpu_to_le64(hwoffload_read64(hw, HWE_REG_HASH_LEN_HI));
		memcpy(ctx.state, hw->regs + HWE_REG_HASH_STATE, HWE_HASH_STATE_SIZE);
	}
	hwoffload_pio_release(hw);
	if (!ret) {
		hwoffload_device_hash_done(s, r, &ctx);
		s->state_lost = false;
	}
	memzero_explicit(&ctx, sizeof(ctx));
	return ret;
}

/*
 * By PIO, in the call: the source copied in first (a fault there refuses the request), so that
 * no user copy runs while the FIFO is held.
 */
static int hwoffload_device_pio(struct hwoffload_dev *hw, struct hwoffload_session *s,
				const struct hwo_request *ureq, struct hwoffload_device_req *r)
{
	int ret;

	r->comp.path = HWO_PATH_PIO;
	if (copy_from_user(s->pio_buf, u64_to_user_ptr(ureq->src), ureq->len))
		return -EFAULT;
	ret = s->hash ? hwoffload_device_pio_hash(hw, s, ureq, r)
		      : hwoffload_device_pio_aes(hw, s, ureq, r);
	memzero_explicit(s->pio_buf, ureq->len);
	r->comp.status = ret;
	r->comp.engine_ns = r->times.engine_ns;
	if (ret) {
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DEVICE_ERRORS);
	} else {
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DEVICE_PIO_REQUESTS);
		hwoffload_stat_add(hw, HWOFFLOAD_STAT_DEVICE_PIO_BYTES, ureq->len);
		if (s->hash)
			hwoffload_stat_add(hw, HWOFFLOAD_STAT_DEVICE_HASH_BYTES, ureq->len);
	}
	spin_lock_bh(&s->done_lock);
	hwoffload_device_req_done_locked(s, r);
	spin_unlock_bh(&s->done_lock);
	return 0;
}

/* Pages of [@addr, @addr + @len) pinned into @pages (writable for a destination), all or none. */
static int hwoffload_device_pin_range(u64 addr, u32 len, bool write, struct page **pages,
				      unsigned int npages)
{
	int got = pin_user_pages_fast(addr & PAGE_MASK, npages, write ? FOLL_WRITE : 0, pages);

	if (got == npages)
		return 0;
	if (got > 0)
		unpin_user_pages(pages, got);
	return got < 0 && got != -EFAULT ? got : -EFAULT;
}

static unsigned int hwoffload_device_npages(u64 addr, u32 len)
{
	return (PAGE_ALIGN(addr + len) - (addr & PAGE_MASK)) >> PAGE_SHIFT;
}

static int hwoffload_device_sgt(struct hwoffload_dev *hw, struct sg_table *sgt, struct page **pages,
				unsigned int npages, u64 addr, u32 len, enum dma_data_direction dir)
{
	unsigned int max_seg = ALIGN_DOWN(dma_get_max_seg_size(hw->dev), PAGE_SIZE);
	int ret;

	ret = sg_alloc_table_from_pages_segment(sgt, pages, npages, offset_in_page(addr), len,
						max_seg, GFP_KERNEL);
	if (ret)
		return ret;
	ret = dma_map_sgtable(hw->dev, sgt, dir, 0);
	if (ret)
		sg_free_table(sgt);
	return ret;
}

/*
 * Pin the request's buffers, charged first to the owner's RLIMIT_MEMLOCK (mm->pinned_vm, as
 * RDMA does; CAP_IPC_LOCK exempts) and the session's ceiling, and map them in place.
 */
static int hwoffload_device_pin(struct hwoffload_dev *hw, struct hwoffload_session *s,
				const struct hwo_request *ureq, struct hwoffload_device_req *r)
{
	unsigned long limit = rlimit(RLIMIT_MEMLOCK) >> PAGE_SHIFT;
	unsigned int n;
	int ret;

	/* a hash's dst is written when the completion is read, not by the engine */
	r->in_place = !s->hash && ureq->src == ureq->dst;
	r->src_pages = hwoffload_device_npages(ureq->src, ureq->len);
	r->dst_pages = r->in_place || s->hash ? 0 : hwoffload_device_npages(ureq->dst, ureq->len);
	n = r->src_pages + r->dst_pages;
	/* the session's ceiling, taken now (read() gives back under the same lock) */
	spin_lock_bh(&s->done_lock);
	ret = s->pinned_pages + n > HWOFFLOAD_DEVICE_MAX_PINNED >> PAGE_SHIFT ? -ENOBUFS : 0;
	if (!ret)
		s->pinned_pages += n;
	spin_unlock_bh(&s->done_lock);
	if (ret)
		return ret;
	if (atomic64_add_return(n, &s->mm->pinned_vm) > limit && !capable(CAP_IPC_LOCK)) {
		ret = -ENOBUFS;
		goto err_uncharge;
	}
	r->pages = kvmalloc_array(n, sizeof(*r->pages), GFP_KERNEL);
	if (!r->pages) {
		ret = -ENOMEM;
		goto err_uncharge;
	}
	ret = hwoffload_device_pin_range(ureq->src, ureq->len, r->in_place, r->pages, r->src_pages);
	if (ret)
		goto err_free;
	if (r->dst_pages) {
		ret = hwoffload_device_pin_range(ureq->dst, ureq->len, true,
						 r->pages + r->src_pages, r->dst_pages);
		if (ret) {
			unpin_user_pages(r->pages, r->src_pages);
			goto err_free;
		}
	}
	atomic_add(n, &hwoffload_device_pinned_pages);

	ret = hwoffload_device_sgt(hw, &r->src_sgt, r->pages, r->src_pages, ureq->src, ureq->len,
				   r->in_place ? DMA_BIDIRECTIONAL : DMA_TO_DEVICE);
	if (ret)
		return ret;	/* pinned: the caller unpins */
	if (r->dst_pages) {
		ret = hwoffload_device_sgt(hw, &r->dst_sgt, r->pages + r->src_pages, r->dst_pages,
					   ureq->dst, ureq->len, DMA_FROM_DEVICE);
		if (ret) {
			dma_unmap_sgtable(hw->dev, &r->src_sgt, DMA_TO_DEVICE, 0);
			sg_free_table(&r->src_sgt);
		}
	}
	return ret;

err_free:
	kvfree(r->pages);
	r->pages = NULL;
err_uncharge:
	atomic64_sub(n, &s->mm->pinned_vm);
	spin_lock_bh(&s->done_lock);
	s->pinned_pages -= n;
	spin_unlock_bh(&s->done_lock);
	return ret;
}

/*
 * Whether the record must be the CPU's before this request goes on the ring: it is written for
 * another op (the direction, a hash's FINAL), or its last request seals it (a FINAL, or an
 * UPDATE that hands its state out: either must be the last on the ring when it finishes).
 */
static bool hwoffload_device_record_busy(struct hwoffload_session *s,
					 const struct hwo_request *ureq)
{
	return READ_ONCE(s->on_ring) && (ureq->op != s->record_op || s->record_sealed);
}

/*
 * By DMA: pinned and mapped in place, LOAD_CTX of the session's record, DATA descriptors on the
 * user's pages (none for a hash's empty FINAL); published here, finished by the interrupt. The
 * record is (re)written only with none of the session's requests on the ring: the caller waited
 * for that when the request sets the IV or the record is busy.
 */
static int hwoffload_device_dma(struct hwoffload_dev *hw, struct hwoffload_session *s,
				const struct hwo_request *ureq, struct hwoffload_device_req *r)
{
	u32 ctx_len = s->hash ? sizeof(struct hwe_hash_ctx) : sizeof(struct hwe_aes_ctx);
	struct hwoffload_slot *rec = &hw->session_records[s->id];
	struct hwoffload_ring *ring = &hw->ring;
	struct scatterlist *dst = NULL;
	u32 ndesc = 1, index;
	int ret;

	r->comp.path = HWO_PATH_DMA;
	if (ureq->len) {
		ret = hwoffload_device_pin(hw, s, ureq, r);
		if (ret)
			return ret;
		if (!s->hash)
			dst = r->in_place ? r->src_sgt.sgl : r->dst_sgt.sgl;
		ndesc += hwoffload_dma_data_descs(NULL, 0, r->src_sgt.sgl, dst, ureq->len);
	}
	r->dma.ops = &hwoffload_device_dma_ops;
	r->dma.times = &r->times;
	ret = hwoffload_ring_reserve(hw, &r->dma, ndesc, 0, ctx_len);
	if (ret)
		goto err_unmap;
	if (READ_ONCE(hw->unbound)) {
		mutex_unlock(&hw->hw_lock);
		ret = -ENODEV;
		goto err_unmap;
	}
	index = r->dma.first_desc;
	hwoffload_desc_fill(hwoffload_ring_desc(ring, index++),
			    hw->session_records_dma + s->id * sizeof(struct hwoffload_slot), 0,
			    ctx_len, HWE_DESC_LOAD_CTX);
	if (ureq->len)
		index += hwoffload_dma_data_descs(ring, index, r->src_sgt.sgl, dst, ureq->len);
	spin_lock_bh(&s->done_lock);
	if (hwoffload_device_stream_lost(s, ureq)) {
		/* the request before it failed since it was checked: nothing published yet */
		spin_unlock_bh(&s->done_lock);
		mutex_unlock(&hw->hw_lock);
		ret = -EPIPE;
		goto err_unmap;
	}
	if (!s->on_ring) {
		if (s->hash)
			hwoffload_device_fill_hash(s, ureq, &rec->hash);
		else
			hwoffload_device_fill_ctx(s, ureq, &rec->ctx);
		s->record_op = ureq->op;
		s->record_sealed = false;
		if (ureq->flags & HWO_REQ_SET_IV) {
			/* published below, whatever happens: the stream starts from it */
			memcpy(s->iv, ureq->iv, sizeof(s->iv));
			s->ctr_offset = 0;
			s->state_lost = false;
		}
	}
	s->on_ring++;
	s->record_sealed = r->op == HWO_OP_FINAL || r->out_len;
	spin_unlock_bh(&s->done_lock);
	/* the device for the request's life: hwoffload_device_finish() puts it */
	atomic_inc(&hw->inflight);
	hwoffload_ring_publish(hw, &r->dma, index);
	return 0;

err_unmap:
	hwoffload_device_unmap(hw, r);
	return ret;
}

/* A range of user memory: no wrap, within the user address space. */
static bool hwoffload_device_range_ok(u64 addr, u32 len)
{
	return addr + len >= addr && access_ok(u64_to_user_ptr(addr), len);
}

/*
 * A hash's request: UPDATE whole blocks (at least one) or FINAL any length; the dst a FINAL's
 * digest or an UPDATE's state goes to (an UPDATE's may be 0). Its DMA source is aligned to the
 * block: the engine takes a DATA descriptor as whole blocks, and they follow the pages.
 */
static int hwoffload_device_check_hash(struct hwoffload_session *s, const struct hwo_request *ureq,
				       u32 *out_len, bool *aligned)
{
	bool final = ureq->op == HWO_OP_FINAL;

	/* an op of the other family: this session does not offer it */
	if (ureq->op == HWO_OP_ENCRYPT || ureq->op == HWO_OP_DECRYPT)
		return -EOPNOTSUPP;
	if (ureq->op != HWO_OP_UPDATE && !final)
		return -EINVAL;
	if (ureq->flags || ureq->reserved || memchr_inv(ureq->iv, 0, sizeof(ureq->iv)))
		return -EINVAL;
	if (ureq->len > HWOFFLOAD_DEVICE_MAX_REQUEST ||
	    (!final && (!ureq->len || !IS_ALIGNED(ureq->len, s->hash->blocksize))))
		return -EMSGSIZE;
	*out_len = final ? s->hash->digestsize : ureq->dst ? sizeof(struct hwo_hash_state) : 0;
	if (!hwoffload_device_range_ok(ureq->src, ureq->len) || (final && !ureq->dst) ||
	    !hwoffload_device_range_ok(ureq->dst, *out_len))
		return -EFAULT;
	*aligned = !ureq->len || IS_ALIGNED(ureq->src, s->hash->blocksize);
	return 0;
}

/* An AES request: whole blocks of ECB and CBC, dst in place or apart. */
static int hwoffload_device_check_aes(struct hwoffload_session *s, const struct hwo_request *ureq,
				      bool *aligned)
{
	if (ureq->op == HWO_OP_UPDATE || ureq->op == HWO_OP_FINAL)
		return -EOPNOTSUPP;
	if (ureq->op != HWO_OP_ENCRYPT && ureq->op != HWO_OP_DECRYPT)
		return -EINVAL;
	if ((ureq->flags & ~HWO_REQ_SET_IV) || ureq->reserved)
		return -EINVAL;
	if (!ureq->len || ureq->len > HWOFFLOAD_DEVICE_MAX_REQUEST ||
	    !IS_ALIGNED(ureq->len, s->row->blocksize))
		return -EMSGSIZE;
	if (!hwoffload_device_range_ok(ureq->src, ureq->len) ||
	    !hwoffload_device_range_ok(ureq->dst, ureq->len))
		return -EFAULT;
	if (ureq->src != ureq->dst && ureq->src < ureq->dst + ureq->len &&
	    ureq->dst < ureq->src + ureq->len)
		return -EADDRINUSE;
	*aligned = IS_ALIGNED(ureq->src | ureq->dst | ureq->len, HWE_DMA_ALIGN);
	return 0;
}

/*
 * Check one request of a batch (hwoffload_uapi.h says the errno of each refusal) and choose its
 * path: a PIO session's by PIO, a DMA session's by DMA; auto by the mode's threshold
 * (hwoffload_route()), PIO when DMA's rules refuse it and it fits the FIFO. @out_len: what a
 * hash hands back to dst.
 */
static int hwoffload_device_check(struct hwoffload_dev *hw, struct hwoffload_session *s,
				  const struct hwo_request *ureq, enum hwoffload_path *path,
				  u32 *out_len)
{
	bool aligned;
	int ret;

	*out_len = 0;
	ret = s->hash ? hwoffload_device_check_hash(s, ureq, out_len, &aligned)
		      : hwoffload_device_check_aes(s, ureq, &aligned);
	if (ret)
		return ret;
	if (hwoffload_device_stream_lost(s, ureq))
		return -EPIPE;

	*path = hwoffload_route(hw, s->path, s->hash ? s->hash->alg : s->row->alg, ureq->len,
				HWOFFLOAD_TIER_NONE, HWOFFLOAD_STAT_COUNT);
	if (*path == HWOFFLOAD_PATH_PIO && ureq->len > HWE_FIFO_DEPTH) {
		if (s->path == HWOFFLOAD_PATH_PIO)
			return -EMSGSIZE;
		*path = HWOFFLOAD_PATH_DMA;	/* a threshold above the FIFO */
	}
	if (*path == HWOFFLOAD_PATH_DMA && !aligned) {
		if (s->path == HWOFFLOAD_PATH_DMA || ureq->len > HWE_FIFO_DEPTH)
			return -EADDRNOTAVAIL;
		*path = HWOFFLOAD_PATH_PIO;
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DEVICE_PIO_UNALIGNED);
	}
	return 0;
}

/* Take one request of a batch: checked, then run by PIO or put on the ring. */
static int hwoffload_device_take(struct hwoffload_dev *hw, struct hwoffload_session *s,
				 struct hwo_request *ureq, bool waited,
				 struct hwoffload_device_req **out)
{
	struct hwoffload_device_req *r;
	enum hwoffload_path path;
	u32 out_len;
	int ret;

	ret = hwoffload_device_check(hw, s, ureq, &path, &out_len);
	if (ret)
		return ret;
	spin_lock_bh(&s->done_lock);
	if (s->unread >= HWOFFLOAD_DEVICE_MAX_INFLIGHT)
		ret = -EAGAIN;
	spin_unlock_bh(&s->done_lock);
	if (ret)
		return ret;
	r = kzalloc(sizeof(*r), GFP_KERNEL);
	if (!r)
		return -ENOMEM;
	r->s = s;
	r->waited = waited;
	r->len = ureq->len;
	r->op = ureq->op;
	r->out_to = ureq->dst;
	r->out_len = out_len;
	r->comp.user_data = ureq->user_data;
	r->times.enter = ktime_get_ns();

	/* PIO, a new IV or a busy record: the record and the stream are the CPU's first */
	if (path == HWOFFLOAD_PATH_PIO || (ureq->flags & HWO_REQ_SET_IV) ||
	    hwoffload_device_record_busy(s, ureq))
		hwoffload_device_quiesce(s);
	ret = READ_ONCE(hw->unbound) ? -ENODEV : 0;
	/* PIO waited for the ring: a failure there is known now */
	if (!ret && path == HWOFFLOAD_PATH_PIO && hwoffload_device_stream_lost(s, ureq))
		ret = -EPIPE;
	if (ret) {
		kfree(r);
		return ret;
	}
	spin_lock_bh(&s->done_lock);
	s->unread++;
	spin_unlock_bh(&s->done_lock);
	if (path == HWOFFLOAD_PATH_PIO)
		ret = hwoffload_device_pio(hw, s, ureq, r);
	else
		ret = hwoffload_device_dma(hw, s, ureq, r);
	if (ret) {
		spin_lock_bh(&s->done_lock);
		s->unread--;
		spin_unlock_bh(&s->done_lock);
		hwoffload_device_req_free(s, r);
		return ret;
	}
	*out = r;
	return 0;
}

/*
 * A hash's digest or state to the caller's dst, once, in process context as the completion is
 * read: a fault there is the completion's status.
 */
static void hwoffload_device_deliver(struct hwoffload_device_req *r)
{
	if (r->out_len && !r->comp.status &&
	    copy_to_user(u64_to_user_ptr(r->out_to), r->out, r->out_len))
		r->comp.status = -EFAULT;
	r->out_len = 0;
}

/* The owner's calls only: a forked child has the fd, not the session (DEVICE.md section 2). */
static int hwoffload_device_owner(struct hwoffload_session *s)
{
	return current->mm == s->mm ? 0 : -EPERM;
}

/* A WAIT batch's requests handed to read() after all: finished ones now, the rest as they end. */
static void hwoffload_device_unwait(struct hwoffload_session *s,
				   struct hwoffload_device_req **batch, unsigned int n)
{
	unsigned int i;

	spin_lock_bh(&s->done_lock);
	for (i = 0; i < n; i++) {
		batch[i]->waited = false;
		if (batch[i]->finished)
			list_add_tail(&batch[i]->node, &s->done);
	}
	schedule_work(&s->unpin_work);
	spin_unlock_bh(&s->done_lock);
}

/*
 * SUBMIT with WAIT: the batch's completions into the caller's array once all are done (they
 * never were on the session's list, so read() cannot take them meanwhile). A signal leaves them
 * to read().
 */
static int hwoffload_device_wait_batch(struct hwoffload_session *s,
				       struct hwoffload_device_req **batch, unsigned int n,
				       struct hwo_completion __user *to)
{
	unsigned int i;
	int ret = 0;

	for (i = 0; i < n; i++) {
		if (wait_event_interruptible(s->wq, READ_ONCE(batch[i]->finished))) {
			hwoffload_device_unwait(s, batch, n);
			return -EINTR;
		}
	}
	spin_lock_bh(&s->done_lock);
	s->unread -= n;
	spin_unlock_bh(&s->done_lock);
	for (i = 0; i < n; i++) {
		hwoffload_device_deliver(batch[i]);
		if (copy_to_user(to + i, &batch[i]->comp, sizeof(batch[i]->comp)))
			ret = -EFAULT;
		hwoffload_device_req_free(s, batch[i]);
	}
	return ret;
}

static long hwoffload_device_submit(struct hwoffload_session *s, void __user *arg)
{
	struct hwoffload_device_req *batch[HWOFFLOAD_DEVICE_MAX_BATCH];
	struct hwo_submit __user *usub = arg;
	bool wait;
	struct hwo_request ureq;
	struct hwoffload_dev *hw;
	struct hwo_submit sub;
	unsigned int taken;
	int ret;

	ret = hwoffload_device_copy_in(&sub, sizeof(sub), arg);
	if (ret)
		return ret;
	/* taken is the call's answer: what the caller left there is no matter */
	if ((sub.flags & ~HWO_SUBMIT_WAIT) || sub.reserved)
		return -EINVAL;
	if (!sub.count || sub.count > HWOFFLOAD_DEVICE_MAX_BATCH ||
	    sub.req_size < offsetofend(struct hwo_request, len) || sub.req_size > PAGE_SIZE)
		return -ERANGE;
	wait = sub.flags & HWO_SUBMIT_WAIT;
	hw = hwoffload_dev_get(s->generation);
	if (!hw)
		return -ENODEV;
	mutex_lock(&s->lock);
	for (taken = 0; taken < sub.count; taken++) {
		ret = copy_struct_from_user(
			&ureq, sizeof(ureq),
			u64_to_user_ptr(sub.requests + (u64)taken * sub.req_size), sub.req_size);
		if (!ret)
			ret = hwoffload_device_take(hw, s, &ureq, wait, &batch[taken]);
		if (ret)
			break;
	}
	if (wait && ret)
		hwoffload_device_unwait(s, batch, taken);
	else if (wait)
		ret = hwoffload_device_wait_batch(s, batch, taken,
						  u64_to_user_ptr(sub.completions));
	mutex_unlock(&s->lock);
	hwoffload_dev_put(hw);
	if (sub.size >= offsetofend(struct hwo_submit, taken) && put_user(taken, &usub->taken))
		return -EFAULT;
	return ret;
}

/* A hash message's state from SET_STATE: whole blocks hashed (0: a message not started). */
static int hwoffload_device_set_hash_state(struct hwoffload_session *s, const struct hwo_state *st)
{
	if (st->ctr_offset || memchr_inv(st->iv, 0, sizeof(st->iv)) ||
	    !IS_ALIGNED(st->hash.len_lo, s->hash->blocksize))
		return -EINVAL;
	if (st->hash.len_lo || st->hash.len_hi)
		s->hash_state = st->hash;
	else
		hwoffload_device_hash_restart(s);
	s->state_lost = false;
	return 0;
}

static long hwoffload_device_state(struct hwoffload_session *s, void __user *arg, bool set)
{
	struct hwoffload_dev *hw;
	struct hwo_state st;
	int ret;

	ret = hwoffload_device_copy_in(&st, sizeof(st), arg);
	if (ret)
		return ret;
	/* as every call of a session whose engine went: the state is of no use without it */
	hw = hwoffload_dev_get(s->generation);
	if (!hw)
		return -ENODEV;
	hwoffload_dev_put(hw);
	mutex_lock(&s->lock);
	hwoffload_device_quiesce(s);
	if (set) {
		if (st.alg != s->hwo_alg || st.version != HWO_VERSION) {
			ret = -EPROTO;
		} else if (s->hash) {
			ret = hwoffload_device_set_hash_state(s, &st);
		} else if (st.ctr_offset >= AES_BLOCK_SIZE ||
			   (st.ctr_offset && s->row->hw_mode != HWE_MODE_CTR) ||
			   memchr_inv(&st.hash, 0, sizeof(st.hash))) {
			ret = -EINVAL;
		} else {
			memcpy(s->iv, st.iv, sizeof(s->iv));
			s->ctr_offset = st.ctr_offset;
			s->state_lost = false;
		}
	} else if (s->state_lost) {
		ret = -EPIPE;
	} else {
		st.alg = s->hwo_alg;
		st.version = HWO_VERSION;
		st.ctr_offset = s->ctr_offset;
		memcpy(st.iv, s->iv, sizeof(st.iv));
		st.hash = s->hash_state;
		if (copy_to_user(arg, &st, min_t(u32, st.size, sizeof(st))))
			ret = -EFAULT;
	}
	mutex_unlock(&s->lock);
	return ret;
}

static long hwoffload_session_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	struct hwoffload_session *s = file->private_data;
	int ret = hwoffload_device_owner(s);

	if (ret)
		return ret;
	if (_IOC_TYPE(cmd) != HWO_IOC_MAGIC)
		return -ENOTTY;
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(HWO_IOC_SUBMIT):
		return hwoffload_device_submit(s, (void __user *)arg);
	case _IOC_NR(HWO_IOC_GET_STATE):
		return hwoffload_device_state(s, (void __user *)arg, false);
	case _IOC_NR(HWO_IOC_SET_STATE):
		return hwoffload_device_state(s, (void __user *)arg, true);
	default:
		return -ENOTTY;
	}
}

/* Whole completion records, oldest first; blocks for one unless O_NONBLOCK (EAGAIN). */
static ssize_t hwoffload_session_read(struct file *file, char __user *buf, size_t len, loff_t *ppos)
{
	struct hwo_completion __user *to = (struct hwo_completion __user *)buf;
	struct hwoffload_session *s = file->private_data;
	size_t want = len / sizeof(*to), n;
	int ret = hwoffload_device_owner(s);

	if (ret)
		return ret;
	if (!want)
		return -EINVAL;
	for (n = 0; n < want; n++) {
		struct hwoffload_device_req *r;

		spin_lock_bh(&s->done_lock);
		r = list_first_entry_or_null(&s->done, struct hwoffload_device_req, node);
		if (r) {
			list_del(&r->node);
			s->unread--;
		}
		spin_unlock_bh(&s->done_lock);
		if (!r) {
			if (n || (file->f_flags & O_NONBLOCK))
				break;
			if (!READ_ONCE(s->unread))
				return 0;
			if (wait_event_interruptible(s->wq, !list_empty_careful(&s->done)))
				return -ERESTARTSYS;
			n--;
			continue;
		}
		hwoffload_device_deliver(r);
		if (copy_to_user(to + n, &r->comp, sizeof(r->comp))) {
			/* not delivered: first again for the next read() */
			spin_lock_bh(&s->done_lock);
			list_add(&r->node, &s->done);
			s->unread++;
			spin_unlock_bh(&s->done_lock);
			return n ? n * sizeof(*to) : -EFAULT;
		}
		hwoffload_device_req_free(s, r);
	}
	return n ? n * sizeof(*to) : -EAGAIN;
}

static __poll_t hwoffload_session_poll(struct file *file, poll_table *wait)
{
	struct hwoffload_session *s = file->private_data;
	__poll_t mask = 0;

	poll_wait(file, &s->wq, wait);
	spin_lock_bh(&s->done_lock);
	if (!list_empty(&s->done))
		mask |= EPOLLIN | EPOLLRDNORM;
	if (s->unread < HWOFFLOAD_DEVICE_MAX_INFLIGHT)
		mask |= EPOLLOUT | EPOLLWRNORM;
	spin_unlock_bh(&s->done_lock);
	return mask;
}

/*
 * The last reference: wait for the session's requests on the engine (the driver's timeout
 * bounds it), unpin every page, wipe the key here and in the record, give the record and the
 * runtime PM reference back.
 */
static int hwoffload_session_release(struct inode *inode, struct file *file)
{
	struct hwoffload_session *s = file->private_data;
	struct hwoffload_device_req *r, *next;
	struct hwoffload_dev *hw;

	hwoffload_device_quiesce(s);
	flush_work(&s->unpin_work);
	list_for_each_entry_safe(r, next, &s->done, node)
		hwoffload_device_req_free(s, r);
	hw = hwoffload_dev_get(s->generation);
	if (hw) {
		memzero_explicit(&hw->session_records[s->id], sizeof(struct hwoffload_slot));
		ida_free(&hw->session_ida, s->id);
		hwoffload_dev_put(hw);
	}
	hwoffload_tfm_detach(s->generation);
	mmdrop(s->mm);
	kfree(s->pio_buf);
	kfree_sensitive(s);	/* the key, the stream's IV or message state */
	return 0;
}

static const struct file_operations hwoffload_session_fops = {
	.owner = THIS_MODULE,
	.unlocked_ioctl = hwoffload_session_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.read = hwoffload_session_read,
	.poll = hwoffload_session_poll,
	.release = hwoffload_session_release,
	.llseek = noop_llseek,
};

/* The session's algorithm: an AES row (key 16, 24 or 32 bytes) or a hash (no key, no IV). */
static int hwoffload_device_session_alg(struct hwoffload_session *s,
					const struct hwo_session_new *sn)
{
	if (sn->alg < ARRAY_SIZE(hwoffload_device_hashes) && hwoffload_device_hashes[sn->alg]) {
		s->hash = hwoffload_hash_info_of(hwoffload_device_hashes[sn->alg]);
		if (WARN_ON(!s->hash))
			return -EINVAL;
		if (sn->key_len)
			return -EKEYREJECTED;
		if (memchr_inv(sn->iv, 0, sizeof(sn->iv)))
			return -EINVAL;
		s->stream = true;
		s->record_op = HWO_OP_UPDATE;
		/*
		 * A message starts from the initial chaining words and length 0, as from any
		 * saved state: the engine's INIT, which the CPU would have to clear in the record
		 * between two requests, is never needed.
		 */
		hwoffload_hash_initial_state(s->hash, s->hash_initial);
		hwoffload_device_hash_restart(s);
		return 0;
	}
	if (sn->alg >= ARRAY_SIZE(hwoffload_device_modes) || !hwoffload_device_modes[sn->alg])
		return -EINVAL;
	if (aes_check_keylen(sn->key_len))
		return -EKEYREJECTED;
	if (copy_from_user(s->key, u64_to_user_ptr(sn->key), sn->key_len))
		return -EFAULT;
	s->keylen = sn->key_len;
	for (s->row = hwoffload_device_rows; s->row->hw_mode != hwoffload_device_modes[sn->alg];
	     s->row++)
		;
	s->stream = s->row->hw_mode != HWE_MODE_ECB;
	s->record_op = HWO_OP_ENCRYPT;
	memcpy(s->iv, sn->iv, sizeof(s->iv));
	return 0;
}

static int hwoffload_device_new_session(unsigned long generation, void __user *arg)
{
	struct hwo_session_new sn;
	struct hwoffload_session *s;
	struct hwoffload_dev *hw;
	int ret, fd;

	ret = hwoffload_device_copy_in(&sn, sizeof(sn), arg);
	if (ret)
		return ret;
	if (sn.path >= ARRAY_SIZE(hwoffload_device_paths))
		return -EINVAL;

	s = kzalloc(sizeof(*s), GFP_KERNEL);
	if (!s)
		return -ENOMEM;
	s->pio_buf = kmalloc(HWE_FIFO_DEPTH, GFP_KERNEL);
	ret = s->pio_buf ? hwoffload_device_session_alg(s, &sn) : -ENOMEM;
	if (ret)
		goto err_free;
	s->hwo_alg = sn.alg;
	s->path = hwoffload_device_paths[sn.path];
	mutex_init(&s->lock);
	spin_lock_init(&s->done_lock);
	INIT_LIST_HEAD(&s->done);
	init_waitqueue_head(&s->wq);
	INIT_WORK(&s->unpin_work, hwoffload_device_unpin_work);

	ret = hwoffload_tfm_attach(&s->generation, s->hash ? HWE_CAP_HASH : 0);
	if (ret == -ENODEV && s->hash) {
		/* an engine without the hash unit does not offer the algorithm (INFO says so) */
		hw = hwoffload_dev_get(generation);
		if (hw && !(hw->caps & HWE_CAP_HASH))
			ret = -EOPNOTSUPP;
		if (hw)
			hwoffload_dev_put(hw);
	}
	if (ret)
		goto err_free;
	ret = -ENODEV;
	hw = s->generation == generation ? hwoffload_dev_get(generation) : NULL;
	if (!hw)
		goto err_detach;
	ret = ida_alloc_max(&hw->session_ida, HWOFFLOAD_DEVICE_SESSIONS - 1, GFP_KERNEL);
	if (ret >= 0)
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DEVICE_SESSIONS);
	hwoffload_dev_put(hw);
	if (ret < 0)
		goto err_detach;
	s->id = ret;
	s->mm = current->mm;
	mmgrab(s->mm);
	fd = anon_inode_getfd("[hwoffload-session]", &hwoffload_session_fops, s,
			      O_RDWR | O_CLOEXEC);
	if (fd < 0) {
		/* not yet a file: undo by hand what release would */
		mmdrop(s->mm);
		hw = hwoffload_dev_get(generation);
		if (hw) {
			ida_free(&hw->session_ida, s->id);
			hwoffload_dev_put(hw);
		}
		ret = fd;
		goto err_detach;
	}
	return fd;

err_detach:
	hwoffload_tfm_detach(s->generation);
err_free:
	kfree(s->pio_buf);
	kfree_sensitive(s);
	return ret;
}

static long hwoffload_device_info(unsigned long generation, void __user *arg)
{
	struct hwo_info info;
	struct hwoffload_dev *hw;
	int ret;

	ret = hwoffload_device_copy_in(&info, sizeof(info), arg);
	if (ret)
		return ret;
	hw = hwoffload_dev_get(generation);
	if (!hw)
		return -ENODEV;
	info = (struct hwo_info){
		.size = min_t(u32, info.size, sizeof(info)),
		.version = HWO_VERSION,
		.algorithms = hwoffload_device_algorithms(hw),
		.paths = 1u << HWO_PATH_AUTO | 1u << HWO_PATH_PIO | 1u << HWO_PATH_DMA,
		.max_batch = HWOFFLOAD_DEVICE_MAX_BATCH,
		.max_inflight = HWOFFLOAD_DEVICE_MAX_INFLIGHT,
		.max_sessions = HWOFFLOAD_DEVICE_SESSIONS,
		.max_request = HWOFFLOAD_DEVICE_MAX_REQUEST,
		.max_pinned_bytes = HWOFFLOAD_DEVICE_MAX_PINNED,
		.fifo_size = HWE_FIFO_DEPTH,
		.dma_align = HWE_DMA_ALIGN,
	};
	hwoffload_dev_put(hw);
	return copy_to_user(arg, &info, info.size) ? -EFAULT : 0;
}

/* The device fd knows its engine by generation only: it may outlive the engine. */
static int hwoffload_device_open(struct inode *inode, struct file *file)
{
	/* misc_open() holds misc_mtx, which misc_deregister() takes: the engine is here */
	struct hwoffload_dev *hw = hwoffload_device_of(file->private_data);

	file->private_data = (void *)hw->generation;
	return 0;
}

static long hwoffload_device_ioctl(struct file *file, unsigned int cmd, unsigned long arg)
{
	unsigned long generation = (unsigned long)file->private_data;

	if (_IOC_TYPE(cmd) != HWO_IOC_MAGIC)
		return -ENOTTY;
	switch (_IOC_NR(cmd)) {
	case _IOC_NR(HWO_IOC_INFO):
		return hwoffload_device_info(generation, (void __user *)arg);
	case _IOC_NR(HWO_IOC_SESSION_NEW):
		return hwoffload_device_new_session(generation, (void __user *)arg);
	default:
		return -ENOTTY;
	}
}

static const struct file_operations hwoffload_device_fops = {
	.owner = THIS_MODULE,
	.open = hwoffload_device_open,
	.unlocked_ioctl = hwoffload_device_ioctl,
	.compat_ioctl = compat_ptr_ioctl,
	.llseek = noop_llseek,
};

/* /dev/hwoffloadN for a bound engine, and the records of its sessions. */
int hwoffload_device_add(struct hwoffload_dev *hw)
{
	int ret;

	hw->session_records = dmam_alloc_coherent(
		hw->dev, HWOFFLOAD_DEVICE_SESSIONS * sizeof(*hw->session_records),
		&hw->session_records_dma, GFP_KERNEL);
	if (!hw->session_records)
		return -ENOMEM;
	ida_init(&hw->session_ida);
	ret = ida_alloc(&hwoffload_device_ida, GFP_KERNEL);
	if (ret < 0)
		return ret;
	hw->misc_id = ret;
	snprintf(hw->misc_name, sizeof(hw->misc_name), HWOFFLOAD_DRIVER_NAME "%d", hw->misc_id);
	hw->misc = (struct miscdevice){
		.minor = MISC_DYNAMIC_MINOR,
		.name = hw->misc_name,
		.fops = &hwoffload_device_fops,
		.parent = hw->dev,
		.mode = 0600,
	};
	ret = misc_register(&hw->misc);
	if (ret)
		ida_free(&hwoffload_device_ida, hw->misc_id);
	return ret;
}

/*
 * The node goes before the engine is unbound; open fds keep only the generation, so their
 * calls fail with ENODEV from the unbinding on.
 */
void hwoffload_device_remove(struct hwoffload_dev *hw)
{
	misc_deregister(&hw->misc);
	ida_free(&hwoffload_device_ida, hw->misc_id);
}

/*
 * After unbinding: no request of @hw is in flight, and the sessions still open will never touch
 * it again; their records, keys in them, are wiped before devres frees the memory.
 */
void hwoffload_device_exit(struct hwoffload_dev *hw)
{
	memzero_explicit(hw->session_records,
			 HWOFFLOAD_DEVICE_SESSIONS * sizeof(*hw->session_records));
	ida_destroy(&hw->session_ida);
}
