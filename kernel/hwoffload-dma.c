// SPDX-License-Identifier: GPL-2.0
/*
 * hwoffload DMA path (ENGINE.md section 6): the descriptor ring, the mapping of the caller's
 * scatterlists, completion by interrupt and recovery by timeout.
 *
 * A request is LOAD_CTX (its context record, in the slot of that descriptor), DATA descriptors
 * straight on the caller's mapped scatterlists, and for a CTR length that is not a multiple of
 * 16 one more DATA descriptor on a 16-byte block in the slot that carries the last partial
 * block: the engine only moves whole aligned blocks, and this costs a copy of at most 15 bytes
 * each way instead of bouncing the whole request. Only lists whose entries break the 16-byte
 * rule, or have too many entries, are copied into a bounce list.
 *
 * Ownership: descriptors in [CUR, HEAD) are the engine's. The driver fills descriptors past
 * HEAD and publishes them only by moving HEAD, never touching one it published (the lesson of
 * the 2025 CESA fix). Requests published while the engine walks are taken by the same walk, so
 * one interrupt completes all of them.
 */
#include <linux/dma-mapping.h>
#include <linux/scatterlist.h>

#include "hwoffload.h"

static struct hwoff_desc *hwoff_ring_desc(struct hwoff_ring *ring, u32 index)
{
	return &ring->desc[index & (HWOFF_RING_ENTRIES - 1)];
}

static struct hwoff_slot *hwoff_ring_slot(struct hwoff_ring *ring, u32 index)
{
	return &ring->slots[index & (HWOFF_RING_ENTRIES - 1)];
}

static dma_addr_t hwoff_ring_slot_dma(struct hwoff_ring *ring, u32 index)
{
	return ring->slots_dma + (index & (HWOFF_RING_ENTRIES - 1)) * sizeof(struct hwoff_slot);
}

/* Free descriptors; only the engine thread publishes, so this only grows behind its back. */
static u32 hwoff_ring_space(struct hwoff_ring *ring)
{
	return HWOFF_RING_ENTRIES - (READ_ONCE(ring->head) - READ_ONCE(ring->tail));
}

int hwoff_ring_init(struct hwoff_dev *hw)
{
	struct hwoff_ring *ring = &hw->ring;

	BUILD_BUG_ON(sizeof(struct hwoff_desc) != 32);
	BUILD_BUG_ON(sizeof(struct hwoff_aes_ctx) != 64);
	BUILD_BUG_ON(!is_power_of_2(HWOFF_RING_ENTRIES) ||
		     HWOFF_RING_ENTRIES > HWOFF_RING_MAX_ENTRIES);
	BUILD_BUG_ON(HWOFF_MAX_DATA_DESCS + 2 > HWOFF_RING_ENTRIES);

	/* Coherent allocations are page-aligned: more than HWOFF_RING_ALIGN. */
	ring->desc = dmam_alloc_coherent(hw->dev, HWOFF_RING_ENTRIES * sizeof(*ring->desc),
					 &ring->desc_dma, GFP_KERNEL);
	if (!ring->desc)
		return -ENOMEM;
	ring->slots = dmam_alloc_coherent(hw->dev, HWOFF_RING_ENTRIES * sizeof(*ring->slots),
					  &ring->slots_dma, GFP_KERNEL);
	if (!ring->slots)
		return -ENOMEM;
	spin_lock_init(&ring->lock);
	INIT_LIST_HEAD(&ring->pending);
	init_waitqueue_head(&ring->space);
	hw->dma_chain = true;

	/* Go on from the HEAD a previous driver left: the reset makes CUR equal to it. */
	ring->head = hwoff_read(hw, HWOFF_REG_RING_HEAD);
	ring->tail = ring->head;
	hwoff_write64(hw, HWOFF_REG_RING_BASE, ring->desc_dma);
	hwoff_write(hw, HWOFF_REG_RING_SIZE, HWOFF_RING_ENTRIES);
	return 0;
}

/*
 * Entries of @sg covering @len bytes, or -EINVAL if one of them breaks the engine's rule
 * (start and length multiples of 16) or is longer than one DMA mapping may be (swiotlb).
 * dma_map_sg() keeps the 16-byte alignment: direct mappings keep the address, swiotlb slots are
 * 2 KiB aligned.
 */
static int hwoff_sg_dma_nents(struct device *dev, struct scatterlist *sg, unsigned int len)
{
	size_t max_mapping = dma_max_mapping_size(dev);
	int nents = 0;

	for (; len; sg = sg_next(sg), nents++) {
		unsigned int part = min(sg->length, len);

		if (!IS_ALIGNED(sg->offset | part, HWOFF_DMA_ALIGN) || sg->length > max_mapping)
			return -EINVAL;
		len -= part;
	}
	return nents;
}

/* Copy the first @len bytes between the bounce list and @sgl (into the bounce if @to_bounce). */
static void hwoff_bounce_copy(struct scatterlist *bounce, struct scatterlist *sgl,
			      unsigned int len, bool to_bounce)
{
	unsigned int nents = sg_nents(sgl), off, part;
	struct scatterlist *b;

	for (b = bounce, off = 0; off < len; b = sg_next(b), off += part) {
		part = min(b->length, len - off);
		if (to_bounce)
			sg_pcopy_to_buffer(sgl, nents, sg_virt(b), part, off);
		else
			sg_pcopy_from_buffer(sgl, nents, sg_virt(b), part, off);
	}
}

/* Bounce the whole request, padded to whole blocks (a CTR tail rides in the padding). */
static int hwoff_dma_map_bounce(struct hwoff_dev *hw, struct skcipher_request *req)
{
	struct hwoff_req_ctx *rctx = skcipher_request_ctx(req);
	gfp_t gfp = req->base.flags & CRYPTO_TFM_REQ_MAY_SLEEP ? GFP_KERNEL : GFP_ATOMIC;
	unsigned int len = ALIGN(req->cryptlen, AES_BLOCK_SIZE), nents;
	/* pages as large as needed to stay within HWOFF_MAX_DATA_DESCS descriptors */
	unsigned int order = get_order(DIV_ROUND_UP(len, HWOFF_MAX_DATA_DESCS));
	struct scatterlist *bounce;

	bounce = sgl_alloc_order(len, order, false, gfp, &nents);
	if (!bounce)
		return -ENOMEM;
	hwoff_bounce_copy(bounce, req->src, req->cryptlen, true);
	sg_zero_buffer(bounce, nents, len - req->cryptlen, req->cryptlen);
	if (!dma_map_sg(hw->dev, bounce, nents, DMA_BIDIRECTIONAL)) {
		sgl_free_n_order(bounce, nents, order);
		return -ENOMEM;
	}
	rctx->bounce = bounce;
	rctx->bounce_nents = nents;
	rctx->bounce_order = order;
	rctx->dma_src = bounce;
	rctx->dma_dst = bounce;
	rctx->dma_len = len;
	rctx->tail_len = 0;
	hwoff_stat_inc(hw, HWOFF_STAT_DMA_BOUNCES);
	hwoff_stat_add(hw, HWOFF_STAT_DMA_BOUNCE_BYTES, req->cryptlen);
	return 0;
}

/* Map the caller's lists for the block-aligned part; keep the CTR tail for the slot. */
static int hwoff_dma_map_direct(struct hwoff_dev *hw, struct skcipher_request *req)
{
	struct hwoff_req_ctx *rctx = skcipher_request_ctx(req);

	if (rctx->tail_len) {
		memset(rctx->tail, 0, sizeof(rctx->tail));
		sg_pcopy_to_buffer(req->src, sg_nents(req->src), rctx->tail, rctx->tail_len,
				   rctx->dma_len);
		hwoff_stat_inc(hw, HWOFF_STAT_DMA_CTR_TAILS);
	}
	rctx->dma_src = req->src;
	rctx->dma_dst = req->dst;
	if (!rctx->dma_len)
		return 0;
	if (req->src == req->dst)
		return dma_map_sg(hw->dev, req->src, rctx->src_nents, DMA_BIDIRECTIONAL) ?
		       0 : -ENOMEM;
	if (!dma_map_sg(hw->dev, req->src, rctx->src_nents, DMA_TO_DEVICE))
		return -ENOMEM;
	if (!dma_map_sg(hw->dev, req->dst, rctx->dst_nents, DMA_FROM_DEVICE)) {
		dma_unmap_sg(hw->dev, req->src, rctx->src_nents, DMA_TO_DEVICE);
		return -ENOMEM;
	}
	return 0;
}

/* Zero-copy when both lists follow the engine's rules, else bounce; count why. */
static int hwoff_dma_map(struct hwoff_dev *hw, struct skcipher_request *req)
{
	struct hwoff_req_ctx *rctx = skcipher_request_ctx(req);

	rctx->bounce = NULL;
	rctx->dma_len = ALIGN_DOWN(req->cryptlen, AES_BLOCK_SIZE);
	rctx->tail_len = req->cryptlen - rctx->dma_len;
	rctx->src_nents = hwoff_sg_dma_nents(hw->dev, req->src, rctx->dma_len);
	rctx->dst_nents = hwoff_sg_dma_nents(hw->dev, req->dst, rctx->dma_len);
	if (rctx->src_nents < 0 || rctx->dst_nents < 0) {
		hwoff_stat_inc(hw, HWOFF_STAT_DMA_BOUNCE_MISALIGNED);
		return hwoff_dma_map_bounce(hw, req);
	}
	/* each DATA descriptor ends where a source or a destination entry ends */
	if (rctx->src_nents + rctx->dst_nents > HWOFF_MAX_DATA_DESCS) {
		hwoff_stat_inc(hw, HWOFF_STAT_DMA_BOUNCE_SEGMENTS);
		return hwoff_dma_map_bounce(hw, req);
	}
	hwoff_stat_inc(hw, HWOFF_STAT_DMA_ZERO_COPY);
	return hwoff_dma_map_direct(hw, req);
}

/* Undo hwoff_dma_map(); on success, deliver what was not written in place (bounce, tail). */
static void hwoff_dma_unmap(struct hwoff_dev *hw, struct skcipher_request *req, bool copy_out)
{
	struct hwoff_req_ctx *rctx = skcipher_request_ctx(req);

	if (rctx->bounce) {
		dma_unmap_sg(hw->dev, rctx->bounce, rctx->bounce_nents, DMA_BIDIRECTIONAL);
		if (copy_out)
			hwoff_bounce_copy(rctx->bounce, req->dst, req->cryptlen, false);
		sgl_free_n_order(rctx->bounce, rctx->bounce_nents, rctx->bounce_order);
		return;
	}
	if (rctx->dma_len && req->src == req->dst) {
		dma_unmap_sg(hw->dev, req->src, rctx->src_nents, DMA_BIDIRECTIONAL);
	} else if (rctx->dma_len) {
		dma_unmap_sg(hw->dev, req->src, rctx->src_nents, DMA_TO_DEVICE);
		dma_unmap_sg(hw->dev, req->dst, rctx->dst_nents, DMA_FROM_DEVICE);
	}
	/* after the unmap, which writes the whole last entry back from a swiotlb copy */
	if (copy_out && rctx->tail_len)
		sg_pcopy_from_buffer(req->dst, sg_nents(req->dst), rctx->tail, rctx->tail_len,
				     rctx->dma_len);
}

static void hwoff_desc_fill(struct hwoff_desc *desc, dma_addr_t src, dma_addr_t dst, u32 len,
			    u32 flags)
{
	desc->src = cpu_to_le64(src);
	desc->dst = cpu_to_le64(dst);
	desc->len = cpu_to_le32(len);
	desc->flags = cpu_to_le32(flags);
	desc->status = 0;
	desc->reserved = 0;
}

/*
 * The DATA descriptors of the mapped part, from ring index @index; only counted when @ring is
 * NULL. Source and destination are walked in step: a descriptor ends where either entry ends.
 */
static u32 hwoff_dma_data_descs(struct hwoff_req_ctx *rctx, struct hwoff_ring *ring, u32 index)
{
	struct scatterlist *src = rctx->dma_src, *dst = rctx->dma_dst;
	unsigned int src_off = 0, dst_off = 0, left = rctx->dma_len, len;
	u32 count = 0;

	while (left) {
		while (src_off == sg_dma_len(src)) {
			src = sg_next(src);
			src_off = 0;
		}
		while (dst_off == sg_dma_len(dst)) {
			dst = sg_next(dst);
			dst_off = 0;
		}
		len = min3(left, sg_dma_len(src) - src_off, sg_dma_len(dst) - dst_off);
		len = min(len, HWOFF_DMA_MAX_LEN);
		if (ring)
			hwoff_desc_fill(hwoff_ring_desc(ring, index + count),
					sg_dma_address(src) + src_off,
					sg_dma_address(dst) + dst_off, len, HWOFF_DESC_DATA);
		count++;
		left -= len;
		src_off += len;
		dst_off += len;
	}
	return count;
}

/*
 * Steer the completion interrupt (and so its thread) to the CPU that submits: a cross-CPU
 * wake-up is most of a round trip here (ENGINE.md section 5). Only moved while the ring is idle,
 * so that a walk in progress keeps its CPU.
 */
static void hwoff_dma_follow_cpu(struct hwoff_dev *hw)
{
	int cpu = raw_smp_processor_id();

	if (cpu != hw->irq_cpu && !irq_set_affinity_and_hint(hw->dma_irq, cpumask_of(cpu)))
		hw->irq_cpu = cpu;
}

static void hwoff_dma_publish(struct hwoff_dev *hw, struct skcipher_request *req, u32 ndesc)
{
	struct hwoff_req_ctx *rctx = skcipher_request_ctx(req);
	struct hwoff_ring *ring = &hw->ring;
	u32 first = ring->head, index = first;
	struct hwoff_slot *slot = hwoff_ring_slot(ring, first);
	dma_addr_t slot_dma = hwoff_ring_slot_dma(ring, first);
	bool idle;

	lockdep_assert_held(&hw->hw_lock);
	hwoff_cipher_fill_ctx(req, &slot->ctx);
	hwoff_desc_fill(hwoff_ring_desc(ring, index++), slot_dma + offsetof(struct hwoff_slot, ctx),
			0, sizeof(slot->ctx), HWOFF_DESC_LOAD_CTX);
	index += hwoff_dma_data_descs(rctx, ring, index);
	if (rctx->tail_len) {
		dma_addr_t tail_dma = slot_dma + offsetof(struct hwoff_slot, tail);

		memcpy(slot->tail, rctx->tail, sizeof(slot->tail));
		hwoff_desc_fill(hwoff_ring_desc(ring, index++), tail_dma, tail_dma,
				sizeof(slot->tail), HWOFF_DESC_DATA);
	}
	hwoff_ring_desc(ring, index - 1)->flags |= cpu_to_le32(HWOFF_DESC_END_OF_REQ);

	rctx->first_desc = first;
	rctx->ndesc = ndesc;
	rctx->deadline = jiffies + msecs_to_jiffies(hwoff_timeout_ms);
	spin_lock_bh(&ring->lock);
	idle = list_empty(&ring->pending);
	list_add_tail(&rctx->node, &ring->pending);
	WRITE_ONCE(ring->head, index);
	spin_unlock_bh(&ring->lock);
	if (idle)
		hwoff_dma_follow_cpu(hw);

	/* the descriptors and the context record are in memory before HEAD moves */
	wmb();
	hwoff_write(hw, HWOFF_REG_RING_HEAD, index);
	hwoff_ring_doorbell(hw, HWOFF_DB_DMA);
	hwoff_stat_add(hw, HWOFF_STAT_DMA_DESCS, ndesc);
	queue_delayed_work(system_wq, &hw->timeout_work, msecs_to_jiffies(hwoff_timeout_ms));
}

/* Map, wait for room in the ring and publish; the interrupt completes the request. */
int hwoff_dma_submit(struct hwoff_dev *hw, struct skcipher_request *req)
{
	struct hwoff_req_ctx *rctx = skcipher_request_ctx(req);
	struct hwoff_ring *ring = &hw->ring;
	u32 ndesc, room;
	int ret;

	ret = hwoff_dma_map(hw, req);
	if (ret)
		return ret;
	ndesc = 1 + hwoff_dma_data_descs(rctx, NULL, 0) + !!rctx->tail_len;
	/*
	 * Completions or, at worst, the timeout's reset free the ring. With chaining off (debugfs,
	 * to measure what it gains) wait until the ring is empty: one request per walk.
	 */
	room = READ_ONCE(hw->dma_chain) ? ndesc : HWOFF_RING_ENTRIES;
	if (!wait_event_timeout(ring->space, hwoff_ring_space(ring) >= room,
				msecs_to_jiffies(2 * hwoff_timeout_ms))) {
		ret = -ETIMEDOUT;
		goto err_unmap;
	}
	mutex_lock(&hw->hw_lock);
	if (hw->dead) {
		ret = -EIO;
		goto err_unlock;
	}
	hwoff_dma_publish(hw, req, ndesc);
	mutex_unlock(&hw->hw_lock);
	return 0;

err_unlock:
	mutex_unlock(&hw->hw_lock);
err_unmap:
	hwoff_dma_unmap(hw, req, false);
	return ret;
}

/* Under the ring lock: a finished request's result, and its slot wiped of the key. */
static void hwoff_dma_collect(struct hwoff_dev *hw, struct hwoff_req_ctx *rctx)
{
	struct hwoff_slot *slot = hwoff_ring_slot(&hw->ring, rctx->first_desc);
	u32 i, status;

	rctx->err = 0;
	for (i = 0; i < rctx->ndesc && !rctx->err; i++) {
		status = le32_to_cpu(READ_ONCE(hwoff_ring_desc(&hw->ring,
							       rctx->first_desc + i)->status));
		if (!(status & HWOFF_DSTAT_DONE)) {
			rctx->err = -ETIMEDOUT;		/* dropped by a reset */
		} else if (status & HWOFF_DSTAT_ERR_MASK) {
			dev_warn_ratelimited(hw->dev, "DMA request failed: engine error %u\n",
					     status & HWOFF_DSTAT_ERR_MASK);
			rctx->err = -EIO;
		}
	}
	if (!rctx->err) {
		memcpy(rctx->iv_out, slot->ctx.iv, sizeof(rctx->iv_out));
		memcpy(rctx->tail, slot->tail, sizeof(rctx->tail));
	}
	memzero_explicit(slot, sizeof(*slot));
}

static void hwoff_dma_finish(struct hwoff_dev *hw, struct hwoff_req_ctx *rctx)
{
	struct skcipher_request *req = rctx->req;
	unsigned int ivsize = crypto_skcipher_ivsize(crypto_skcipher_reqtfm(req));

	hwoff_dma_unmap(hw, req, !rctx->err);
	if (rctx->err) {
		hwoff_stat_inc(hw, HWOFF_STAT_DMA_ERRORS);
	} else {
		if (ivsize)
			memcpy(req->iv, rctx->iv_out, ivsize);
		hwoff_stat_inc(hw, HWOFF_STAT_DMA_REQUESTS);
		hwoff_stat_add(hw, HWOFF_STAT_DMA_BYTES, req->cryptlen);
	}
	crypto_finalize_skcipher_request(hw->engine, req, rctx->err);
}

/*
 * Complete the requests behind the engine's CUR, or all pending ones when @all (the engine
 * is gone: nothing will finish them). Returns how many. Descriptors a reset dropped have no
 * DONE status, so their requests fail.
 */
unsigned int hwoff_dma_complete(struct hwoff_dev *hw, bool all)
{
	struct hwoff_ring *ring = &hw->ring;
	struct hwoff_req_ctx *rctx, *next;
	unsigned int count = 0;
	LIST_HEAD(done);
	u32 cur;

	spin_lock_bh(&ring->lock);
	cur = all ? ring->head : hwoff_read(hw, HWOFF_REG_RING_CUR);
	rmb();	/* CUR before the statuses it covers */
	list_for_each_entry_safe(rctx, next, &ring->pending, node) {
		u32 end = rctx->first_desc + rctx->ndesc;

		if ((s32)(cur - end) < 0)
			break;
		hwoff_dma_collect(hw, rctx);
		WRITE_ONCE(ring->tail, end);
		list_move_tail(&rctx->node, &done);
		count++;
	}
	if (count > atomic64_read(&hw->stats[HWOFF_STAT_DMA_CHAIN_MAX]))
		atomic64_set(&hw->stats[HWOFF_STAT_DMA_CHAIN_MAX], count);
	spin_unlock_bh(&ring->lock);
	if (!count)
		return 0;

	wake_up(&ring->space);
	hwoff_stat_inc(hw, HWOFF_STAT_DMA_CHAINS);
	hwoff_stat_add(hw, HWOFF_STAT_DMA_CHAINED_REQUESTS, count);
	/* crypto_engine wants its requests finalized with bottom halves off */
	local_bh_disable();
	list_for_each_entry_safe(rctx, next, &done, node)
		hwoff_dma_finish(hw, rctx);
	local_bh_enable();
	return count;
}

/*
 * Every DMA wait has a time limit (ENGINE.md section 7). A lost interrupt leaves finished work
 * behind CUR: complete it. A request still pending past its deadline means a stalled or dead
 * engine: reset, which fails what the ring held. A halted ring also needs a reset.
 */
void hwoff_dma_timeout_work(struct work_struct *work)
{
	struct hwoff_dev *hw = container_of(to_delayed_work(work), struct hwoff_dev,
					    timeout_work);
	struct hwoff_ring *ring = &hw->ring;
	struct hwoff_req_ctx *oldest;
	unsigned long deadline = 0;
	bool halted;

	hwoff_stat_add(hw, HWOFF_STAT_DMA_LATE_COMPLETIONS, hwoff_dma_complete(hw, false));
	halted = hwoff_read(hw, HWOFF_REG_STATUS) & HWOFF_STATUS_DMA_HALTED;
	spin_lock_bh(&ring->lock);
	oldest = list_first_entry_or_null(&ring->pending, struct hwoff_req_ctx, node);
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
		hwoff_stat_inc(hw, HWOFF_STAT_DMA_TIMEOUTS);
	}
	dev_warn(hw->dev, "DMA %s: resetting the engine\n", halted ? "ring halted" : "timeout");
	mutex_lock(&hw->hw_lock);
	hwoff_reset_locked(hw);
	mutex_unlock(&hw->hw_lock);
}

/*
 * A primary handler that only wakes the thread: with IRQF_ONESHOT instead, every interrupt
 * would mask and unmask the MSI-X vector, two more trapped writes.
 */
irqreturn_t hwoff_dma_irq(int irq, void *data)
{
	struct hwoff_dev *hw = data;

	hwoff_stat_inc(hw, HWOFF_STAT_DMA_INTERRUPTS);
	return IRQ_WAKE_THREAD;
}

irqreturn_t hwoff_dma_irq_thread(int irq, void *data)
{
	struct hwoff_dev *hw = data;
	u32 status = hwoff_read(hw, HWOFF_REG_INT_STATUS) &
		     (HWOFF_INT_DMA_DONE | HWOFF_INT_DMA_ERROR);

	/* Clear before reading CUR: a walk that ends after the read interrupts again. */
	atomic_andnot(status, hwoff_reg_atomic(hw, HWOFF_REG_INT_STATUS));
	hwoff_dma_complete(hw, false);
	if (hwoff_read(hw, HWOFF_REG_STATUS) & HWOFF_STATUS_DMA_HALTED)
		mod_delayed_work(system_wq, &hw->timeout_work, 0);
	return IRQ_HANDLED;
}
