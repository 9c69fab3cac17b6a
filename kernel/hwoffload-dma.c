// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwoffload DMA path (ENGINE.md section 6), a service of the type files: the descriptor ring
 * (the core allocates it), the mapping of the caller's scatterlists, completion by interrupt
 * and recovery by timeout.
 *
 * A request is LOAD_CTX (its context record, in the slot of that descriptor) and DATA
 * descriptors straight on the caller's mapped scatterlists; only lists whose entries break the
 * engine's rules, or have too many entries, are copied into a bounce list. The type file that
 * builds a request reserves its descriptors (hwoffload_ring_reserve), fills its record and
 * descriptors and publishes it (hwoffload_ring_publish) with the operations that collect its
 * written-back record and finish it (struct hwoffload_dma_ops): the ring knows no type.
 *
 * Ownership: descriptors in [CUR, HEAD) are the engine's. The driver fills descriptors past
 * HEAD and publishes them only by moving HEAD, never touching one it published (the lesson of
 * the 2025 CESA fix). Requests published while the engine walks are taken by the same walk, so
 * one interrupt completes all of them.
 */
#include <linux/dma-mapping.h>
#include <linux/scatterlist.h>

#include "hwoffload.h"

/* Free descriptors; only a holder of hw_lock publishes, so this only grows behind its back. */
static u32 hwoffload_ring_space(struct hwoffload_ring *ring)
{
	return HWOFFLOAD_RING_ENTRIES - (READ_ONCE(ring->head) - READ_ONCE(ring->tail));
}

/*
 * Entries of @sg covering @len bytes, or -EINVAL if one of them breaks the engine's rule (start
 * a multiple of 16; length a multiple of @piece, but for the last, which takes what is left)
 * or is longer than one DMA mapping may be (swiotlb). dma_map_sg() keeps the 16-byte alignment:
 * direct mappings keep the address, swiotlb slots are 2 KiB aligned.
 */
int hwoffload_sg_dma_nents(struct device *dev, struct scatterlist *sg, unsigned int len,
			   unsigned int piece)
{
	size_t max_mapping = dma_max_mapping_size(dev);
	int nents = 0;

	for (; len; sg = sg_next(sg), nents++) {
		unsigned int part = min(sg->length, len);

		if (!IS_ALIGNED(sg->offset, HWE_DMA_ALIGN) ||
		    (part < len && !IS_ALIGNED(part, piece)) || sg->length > max_mapping)
			return -EINVAL;
		len -= part;
	}
	return nents;
}

/*
 * Pages for @len bytes, as large as needed to stay within HWOFFLOAD_MAX_DATA_DESCS descriptors;
 * every entry but the last is a whole number of pages, so of AES and hash blocks.
 */
int hwoffload_bounce_alloc(struct hwoffload_bounce *b, unsigned int len, gfp_t gfp)
{
	b->order = get_order(DIV_ROUND_UP(len, HWOFFLOAD_MAX_DATA_DESCS));
	b->sgl = sgl_alloc_order(len, b->order, false, gfp, &b->nents);
	return b->sgl ? 0 : -ENOMEM;
}

int hwoffload_bounce_map(struct hwoffload_dev *hw, struct hwoffload_bounce *b,
			 enum dma_data_direction dir)
{
	if (dma_map_sg(hw->dev, b->sgl, b->nents, dir))
		return 0;
	sgl_free_n_order(b->sgl, b->nents, b->order);
	b->sgl = NULL;
	return -ENOMEM;
}

/* Copy the first @len bytes between the bounce list and @sgl (into the bounce if @to_bounce). */
static void hwoffload_bounce_copy(struct hwoffload_bounce *bounce, struct scatterlist *sgl,
				  unsigned int len, bool to_bounce)
{
	unsigned int nents = sg_nents(sgl), off, part;
	struct scatterlist *b;

	for (b = bounce->sgl, off = 0; off < len; b = sg_next(b), off += part) {
		part = min(b->length, len - off);
		if (to_bounce)
			sg_pcopy_to_buffer(sgl, nents, sg_virt(b), part, off);
		else
			sg_pcopy_from_buffer(sgl, nents, sg_virt(b), part, off);
	}
}

/*
 * Unmap first: it syncs what the engine wrote for the CPU. Then the first @len bytes go out to
 * @copy_out, if not NULL.
 */
void hwoffload_bounce_free(struct hwoffload_dev *hw, struct hwoffload_bounce *b,
			   enum dma_data_direction dir, struct scatterlist *copy_out,
			   unsigned int len)
{
	dma_unmap_sg(hw->dev, b->sgl, b->nents, dir);
	if (copy_out)
		hwoffload_bounce_copy(b, copy_out, len, false);
	sgl_free_n_order(b->sgl, b->nents, b->order);
	b->sgl = NULL;
}

/*
 * Bounce: @copy_len bytes of @src in a list of @len bytes (the rest zero), which the engine
 * reads and writes in place.
 */
static int hwoffload_dma_map_bounce(struct hwoffload_dev *hw, struct hwoffload_dma_bufs *b,
				    struct scatterlist *src, unsigned int copy_len,
				    unsigned int len, gfp_t gfp)
{
	int ret;

	ret = hwoffload_bounce_alloc(&b->bounce, len, gfp);
	if (ret)
		return ret;
	hwoffload_bounce_copy(&b->bounce, src, copy_len, true);
	sg_zero_buffer(b->bounce.sgl, b->bounce.nents, len - copy_len, copy_len);
	ret = hwoffload_bounce_map(hw, &b->bounce, DMA_BIDIRECTIONAL);
	if (ret)
		return ret;
	b->src = b->bounce.sgl;
	b->dst = b->bounce.sgl;
	b->len = len;
	hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DMA_BOUNCES);
	hwoffload_stat_add(hw, HWOFFLOAD_STAT_DMA_BOUNCE_BYTES, copy_len);
	return 0;
}

/* Map the caller's lists for the b->len bytes the descriptors carry. */
static int hwoffload_dma_map_direct(struct hwoffload_dev *hw, struct hwoffload_dma_bufs *b,
				    struct scatterlist *src, struct scatterlist *dst)
{
	b->src = src;
	b->dst = dst;
	if (!b->len)
		return 0;
	if (src == dst)
		return dma_map_sg(hw->dev, src, b->src_nents, DMA_BIDIRECTIONAL) ? 0 : -ENOMEM;
	if (!dma_map_sg(hw->dev, src, b->src_nents, DMA_TO_DEVICE))
		return -ENOMEM;
	if (!dma_map_sg(hw->dev, dst, b->dst_nents, DMA_FROM_DEVICE)) {
		dma_unmap_sg(hw->dev, src, b->src_nents, DMA_TO_DEVICE);
		return -ENOMEM;
	}
	return 0;
}

/*
 * The lists of an AES request: @len bytes of @src into @dst zero-copy when both lists follow
 * the engine's rules, else bounced (@copy_len bytes of @src in a list of @bounce_len, as the
 * mode needs); count why.
 */
int hwoffload_dma_map_bufs(struct hwoffload_dev *hw, struct hwoffload_dma_bufs *b,
			   struct scatterlist *src, struct scatterlist *dst, unsigned int len,
			   unsigned int copy_len, unsigned int bounce_len, gfp_t gfp)
{
	b->bounce.sgl = NULL;
	b->len = len;
	b->src_nents = hwoffload_sg_dma_nents(hw->dev, src, len, HWE_DMA_ALIGN);
	b->dst_nents = hwoffload_sg_dma_nents(hw->dev, dst, len, HWE_DMA_ALIGN);
	if (b->src_nents < 0 || b->dst_nents < 0) {
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DMA_BOUNCE_MISALIGNED);
		return hwoffload_dma_map_bounce(hw, b, src, copy_len, bounce_len, gfp);
	}
	/* each DATA descriptor ends where a source or a destination entry ends */
	if (b->src_nents + b->dst_nents > HWOFFLOAD_MAX_DATA_DESCS) {
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DMA_BOUNCE_SEGMENTS);
		return hwoffload_dma_map_bounce(hw, b, src, copy_len, bounce_len, gfp);
	}
	hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DMA_ZERO_COPY);
	return hwoffload_dma_map_direct(hw, b, src, dst);
}

/* Undo hwoffload_dma_map_bufs(); a bounce's first @copy_len bytes go out to @dst. */
void hwoffload_dma_unmap_bufs(struct hwoffload_dev *hw, struct hwoffload_dma_bufs *b,
			      struct scatterlist *src, struct scatterlist *dst,
			      unsigned int copy_len)
{
	if (b->bounce.sgl) {
		hwoffload_bounce_free(hw, &b->bounce, DMA_BIDIRECTIONAL, copy_len ? dst : NULL,
				      copy_len);
	} else if (b->len && src == dst) {
		dma_unmap_sg(hw->dev, src, b->src_nents, DMA_BIDIRECTIONAL);
	} else if (b->len) {
		dma_unmap_sg(hw->dev, src, b->src_nents, DMA_TO_DEVICE);
		dma_unmap_sg(hw->dev, dst, b->dst_nents, DMA_FROM_DEVICE);
	}
}

void hwoffload_desc_fill(struct hwe_desc *desc, dma_addr_t src, dma_addr_t dst, u32 len, u32 flags)
{
	desc->src = cpu_to_le64(src);
	desc->dst = cpu_to_le64(dst);
	desc->len = cpu_to_le32(len);
	desc->flags = cpu_to_le32(flags);
	desc->status = 0;
	desc->reserved = 0;
}

/*
 * The DATA descriptors for @len mapped bytes of @src into @dst (NULL: a hash, no destination),
 * from ring index @index; only counted when @ring is NULL. Source and destination are walked in
 * step: a descriptor ends where either entry ends.
 */
u32 hwoffload_dma_data_descs(struct hwoffload_ring *ring, u32 index, struct scatterlist *src,
			     struct scatterlist *dst, unsigned int len)
{
	unsigned int src_off = 0, dst_off = 0, part;
	u32 count = 0;

	while (len) {
		while (src_off == sg_dma_len(src)) {
			src = sg_next(src);
			src_off = 0;
		}
		while (dst && dst_off == sg_dma_len(dst)) {
			dst = sg_next(dst);
			dst_off = 0;
		}
		part = min3(len, sg_dma_len(src) - src_off, HWE_DMA_MAX_LEN);
		if (dst)
			part = min(part, sg_dma_len(dst) - dst_off);
		if (ring)
			hwoffload_desc_fill(hwoffload_ring_desc(ring, index + count),
					    sg_dma_address(src) + src_off,
					    dst ? sg_dma_address(dst) + dst_off : 0, part,
					    HWE_DESC_DATA);
		count++;
		len -= part;
		src_off += part;
		dst_off += part;
	}
	return count;
}

/*
 * Steer the completion interrupt (and so its thread) to the CPU that submits: a cross-CPU
 * wake-up is most of a round trip here (ENGINE.md section 5). Only moved while the ring is idle,
 * so that a walk in progress keeps its CPU.
 */
static void hwoffload_dma_follow_cpu(struct hwoffload_dev *hw)
{
	int cpu = raw_smp_processor_id();

	if (cpu != hw->irq_cpu && !irq_set_affinity_and_hint(hw->dma_irq, cpumask_of(cpu)))
		hw->irq_cpu = cpu;
}

/*
 * Make the descriptors filled in [@dreq->first_desc, @end) the engine's, the last one ending
 * the request, and give back the hardware lock hwoffload_ring_reserve() took; the interrupt (or
 * the timeout) completes the request through @dreq->ops.
 */
void hwoffload_ring_publish(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq, u32 end)
{
	struct hwoffload_ring *ring = &hw->ring;
	bool idle;

	lockdep_assert_held(&hw->hw_lock);
	hwoffload_ring_desc(ring, end - 1)->flags |= cpu_to_le32(HWE_DESC_END_OF_REQ);
	dreq->ndesc = end - dreq->first_desc;
	dreq->deadline = jiffies + msecs_to_jiffies(hwoffload_timeout_ms);
	if (dreq->sync)
		init_completion(&dreq->done);
	/* now: once HEAD moves, a walk in progress may finish the request and its owner free it */
	hwoffload_stat_add(hw, HWOFFLOAD_STAT_DMA_DESCS, dreq->ndesc);
	spin_lock_bh(&ring->lock);
	idle = list_empty(&ring->pending);
	list_add_tail(&dreq->node, &ring->pending);
	WRITE_ONCE(ring->head, end);
	spin_unlock_bh(&ring->lock);
	if (idle)
		hwoffload_dma_follow_cpu(hw);

	/* the descriptors and the context record are in memory before HEAD moves */
	wmb();
	hwoffload_write(hw, HWE_REG_RING_HEAD, end);
	if (dreq->times) {
		dreq->times->busy_mark = hwoffload_read64(hw, HWE_REG_CNT_DMA_BUSY_NS);
		dreq->times->doorbell = ktime_get_ns();
	}
	hwoffload_ring_doorbell(hw, HWE_DB_DMA);
	queue_delayed_work(system_wq, &hw->timeout_work, msecs_to_jiffies(hwoffload_timeout_ms));
	mutex_unlock(&hw->hw_lock);
}

/* A LOAD_CTX at @index of the record (@len bytes from @off) in that descriptor's slot. */
void hwoffload_ring_load_ctx(struct hwoffload_ring *ring, u32 index, size_t off, u32 len)
{
	hwoffload_desc_fill(hwoffload_ring_desc(ring, index),
			    hwoffload_ring_slot_dma(ring, index) + off, 0, len, HWE_DESC_LOAD_CTX);
}

/*
 * Wait for @ndesc free descriptors and take the hardware lock: the ring's first free descriptor
 * and its slot are then the request's. Completions or, at worst, the timeout's reset free the
 * ring. With chaining off (debugfs, to measure what it gains) wait until the ring is empty: one
 * request per walk. The request's LOAD_CTX (@ctx_len bytes of the slot from @ctx_off) is
 * filled; the caller fills the record and the DATA descriptors and publishes.
 */
int hwoffload_ring_reserve(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq, u32 ndesc,
			   size_t ctx_off, u32 ctx_len)
{
	struct hwoffload_ring *ring = &hw->ring;
	u32 room = READ_ONCE(hw->dma_chain) ? ndesc : HWOFFLOAD_RING_ENTRIES;

	if (!wait_event_timeout(ring->space, hwoffload_ring_space(ring) >= room,
				msecs_to_jiffies(2 * hwoffload_timeout_ms)))
		return -ETIMEDOUT;
	mutex_lock(&hw->hw_lock);
	if (hw->dead) {
		mutex_unlock(&hw->hw_lock);
		return -EIO;
	}
	dreq->first_desc = ring->head;
	hwoffload_ring_load_ctx(ring, ring->head, ctx_off, ctx_len);
	return 0;
}

/*
 * A synchronous request (hwoffload.h, "Synchronous requests"), published by its caller: wait
 * until the interrupt thread or the timeout work completes it. Not interruptible: the engine
 * may write into the caller's pages until then, and the timeout bounds the wait. Returns the
 * request's result.
 */
int hwoffload_dma_wait(struct hwoffload_dma_req *dreq)
{
	wait_for_completion(&dreq->done);
	return dreq->err;
}

/* debugfs "roundtrip": an empty request, and the completion its interrupt brings. */
struct hwoffload_dma_probe {
	struct hwoffload_dma_req dma;
	struct completion done;
};

static void hwoffload_probe_collect(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq,
				    struct hwoffload_slot *slot)
{
}

static void hwoffload_probe_finish(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq)
{
	complete(&container_of(dreq, struct hwoffload_dma_probe, dma)->done);
}

static const struct hwoffload_dma_ops hwoffload_probe_dma_ops = {
	.collect = hwoffload_probe_collect,
	.finish = hwoffload_probe_finish,
};

/*
 * debugfs "roundtrip": a request of one NOP descriptor, timed from its doorbell to the hard
 * interrupt and to the interrupt thread, with the engine's own time for it (meant for an idle
 * engine: a walk of other requests would add to it). It waits without a limit of its own, as
 * every DMA request does: the timeout work completes whatever was published, by a reset at
 * worst.
 */
int hwoffload_dma_probe(struct hwoffload_dev *hw, struct hwoffload_req_times *t)
{
	struct hwoffload_dma_probe probe = {
		.dma.ops = &hwoffload_probe_dma_ops,
		.dma.times = t,
	};
	int ret;

	init_completion(&probe.done);
	ret = hwoffload_ring_reserve(hw, &probe.dma, 1, 0, 0);
	if (ret)
		return ret;
	/* the LOAD_CTX the reservation filled becomes the request's only descriptor */
	hwoffload_desc_fill(hwoffload_ring_desc(&hw->ring, probe.dma.first_desc), 0, 0, 0,
			    HWE_DESC_NOP);
	hwoffload_ring_publish(hw, &probe.dma, probe.dma.first_desc + 1);
	wait_for_completion(&probe.done);
	return probe.dma.err;
}

/* Under the ring lock: a finished request's result, and its slot wiped of key or state. */
static void hwoffload_dma_collect(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq)
{
	struct hwoffload_slot *slot = hwoffload_ring_slot(&hw->ring, dreq->first_desc);
	u32 i, status;

	dreq->err = 0;
	for (i = 0; i < dreq->ndesc && !dreq->err; i++) {
		status = le32_to_cpu(
			READ_ONCE(hwoffload_ring_desc(&hw->ring, dreq->first_desc + i)->status));
		if (!(status & HWE_DSTAT_DONE)) {
			dreq->err = -ETIMEDOUT;		/* dropped by a reset */
		} else if ((status & HWE_DSTAT_ERR_MASK) == HWE_ERR_TAG_MISMATCH) {
			/* a GCM decrypt refused by its tag: a result, not a fault */
			dreq->err = -EBADMSG;
		} else if (status & HWE_DSTAT_ERR_MASK) {
			dev_warn_ratelimited(hw->dev, "DMA request failed: engine error %u\n",
					     status & HWE_DSTAT_ERR_MASK);
			dreq->err = -EIO;
		}
	}
	dreq->ops->collect(hw, dreq, slot);
	memzero_explicit(slot, sizeof(*slot));
}

/*
 * Complete the requests behind the engine's CUR, or all pending ones when @all (the engine
 * is gone: nothing will finish them). Returns how many. Descriptors a reset dropped have no
 * DONE status, so their requests fail. @seen_ns: when the hard interrupt that brought the
 * completion came, or 0 (found without one: now).
 */
unsigned int hwoffload_dma_complete(struct hwoffload_dev *hw, bool all, u64 seen_ns)
{
	struct hwoffload_ring *ring = &hw->ring;
	struct hwoffload_dma_req *dreq, *next;
	u64 now = ktime_get_ns(), busy;
	unsigned int count = 0;
	LIST_HEAD(done);
	u32 cur;

	spin_lock_bh(&ring->lock);
	cur = all ? ring->head : hwoffload_read(hw, HWE_REG_RING_CUR);
	rmb();	/* CUR before the statuses it covers */
	busy = hwoffload_read64(hw, HWE_REG_CNT_DMA_BUSY_NS);
	list_for_each_entry_safe(dreq, next, &ring->pending, node) {
		u32 end = dreq->first_desc + dreq->ndesc;

		if ((s32)(cur - end) < 0)
			break;
		hwoffload_dma_collect(hw, dreq);
		if (dreq->times) {
			dreq->times->seen = seen_ns ?: now;
			dreq->times->thread = now;
			dreq->times->engine_ns = busy - dreq->times->busy_mark;
		}
		WRITE_ONCE(ring->tail, end);
		list_move_tail(&dreq->node, &done);
		count++;
	}
	if (count > atomic64_read(&hw->stats[HWOFFLOAD_STAT_DMA_CHAIN_MAX]))
		atomic64_set(&hw->stats[HWOFFLOAD_STAT_DMA_CHAIN_MAX], count);
	spin_unlock_bh(&ring->lock);
	if (!count)
		return 0;

	wake_up(&ring->space);
	hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DMA_CHAINS);
	hwoffload_stat_add(hw, HWOFFLOAD_STAT_DMA_CHAINED_REQUESTS, count);
	/* crypto_engine wants its requests finalized with bottom halves off */
	local_bh_disable();
	list_for_each_entry_safe(dreq, next, &done, node)
		dreq->ops->finish(hw, dreq);
	local_bh_enable();
	return count;
}

/*
 * Every DMA wait has a time limit (ENGINE.md section 7). A lost interrupt leaves finished work
 * behind CUR: complete it. A request still pending past its deadline means a stalled or dead
 * engine: reset, which fails what the ring held. A halted ring also needs a reset.
 */
void hwoffload_dma_timeout_work(struct work_struct *work)
{
	struct hwoffload_dev *hw =
		container_of(to_delayed_work(work), struct hwoffload_dev, timeout_work);
	struct hwoffload_ring *ring = &hw->ring;
	struct hwoffload_dma_req *oldest;
	unsigned long deadline = 0;
	bool halted;

	hwoffload_stat_add(hw, HWOFFLOAD_STAT_DMA_LATE_COMPLETIONS,
			   hwoffload_dma_complete(hw, false, 0));
	halted = hwoffload_read(hw, HWE_REG_STATUS) & HWE_STATUS_DMA_HALTED;
	spin_lock_bh(&ring->lock);
	oldest = list_first_entry_or_null(&ring->pending, struct hwoffload_dma_req, node);
	if (oldest)
		deadline = oldest->deadline;
	spin_unlock_bh(&ring->lock);

	if (!halted) {
		if (!oldest)
			return;
		if (time_before(jiffies, deadline)) {
			queue_delayed_work(system_wq, &hw->timeout_work, deadline - jiffies);
			return;
		}
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DMA_TIMEOUTS);
	}
	dev_warn(hw->dev, "DMA %s: resetting the engine\n", halted ? "ring halted" : "timeout");
	mutex_lock(&hw->hw_lock);
	hwoffload_reset_locked(hw);
	mutex_unlock(&hw->hw_lock);
}

/*
 * A primary handler that only wakes the thread: with IRQF_ONESHOT instead, every interrupt
 * would mask and unmask the MSI-X vector, two more trapped writes.
 */
irqreturn_t hwoffload_dma_irq(int irq, void *data)
{
	struct hwoffload_dev *hw = data;

	WRITE_ONCE(hw->dma_irq_ns, ktime_get_ns());
	hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DMA_INTERRUPTS);
	return IRQ_WAKE_THREAD;
}

irqreturn_t hwoffload_dma_irq_thread(int irq, void *data)
{
	struct hwoffload_dev *hw = data;
	u64 seen_ns = READ_ONCE(hw->dma_irq_ns);
	u32 status = hwoffload_read(hw, HWE_REG_INT_STATUS) &
		     (HWE_INT_DMA_DONE | HWE_INT_DMA_ERROR);

	/* Clear before reading CUR: a walk that ends after the read interrupts again. */
	atomic_andnot(status, hwoffload_reg_atomic(hw, HWE_REG_INT_STATUS));
	hwoffload_dma_complete(hw, false, seen_ns);
	if (hwoffload_read(hw, HWE_REG_STATUS) & HWE_STATUS_DMA_HALTED)
		mod_delayed_work(system_wq, &hw->timeout_work, 0);
	return IRQ_HANDLED;
}
