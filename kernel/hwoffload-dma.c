// SPDX-License-Identifier: GPL-2.0-only
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
 * A hash request is LOAD_CTX (its hash record, in the slot) and DATA descriptors without a
 * destination, each a whole number of blocks but the last of a FINAL request. The caller's list
 * goes zero-copy when it follows that rule and nothing is buffered in the request; else the
 * buffered bytes and the list are copied into one bounce list, whose pages are whole blocks.
 *
 * Ownership: descriptors in [CUR, HEAD) are the engine's. The driver fills descriptors past
 * HEAD and publishes them only by moving HEAD, never touching one it published (the lesson of
 * the 2025 CESA fix). Requests published while the engine walks are taken by the same walk, so
 * one interrupt completes all of them.
 */
#include <linux/dma-mapping.h>
#include <linux/scatterlist.h>

#include "hwoffload.h"

static struct hwe_desc *hwoffload_ring_desc(struct hwoffload_ring *ring, u32 index)
{
	return &ring->desc[index & (HWOFFLOAD_RING_ENTRIES - 1)];
}

static struct hwoffload_slot *hwoffload_ring_slot(struct hwoffload_ring *ring, u32 index)
{
	return &ring->slots[index & (HWOFFLOAD_RING_ENTRIES - 1)];
}

static dma_addr_t hwoffload_ring_slot_dma(struct hwoffload_ring *ring, u32 index)
{
	return ring->slots_dma +
	       (index & (HWOFFLOAD_RING_ENTRIES - 1)) * sizeof(struct hwoffload_slot);
}

/* Free descriptors; only a holder of hw_lock publishes, so this only grows behind its back. */
static u32 hwoffload_ring_space(struct hwoffload_ring *ring)
{
	return HWOFFLOAD_RING_ENTRIES - (READ_ONCE(ring->head) - READ_ONCE(ring->tail));
}

int hwoffload_ring_init(struct hwoffload_dev *hw)
{
	struct hwoffload_ring *ring = &hw->ring;

	BUILD_BUG_ON(sizeof(struct hwe_desc) != 32);
	BUILD_BUG_ON(sizeof(struct hwe_aes_ctx) != 64);
	BUILD_BUG_ON(!is_power_of_2(HWOFFLOAD_RING_ENTRIES) ||
		     HWOFFLOAD_RING_ENTRIES > HWE_RING_MAX_ENTRIES);
	BUILD_BUG_ON(HWOFFLOAD_MAX_DATA_DESCS + 2 > HWOFFLOAD_RING_ENTRIES);

	/* Coherent allocations are page-aligned: more than HWE_RING_ALIGN. */
	ring->desc = dmam_alloc_coherent(hw->dev, HWOFFLOAD_RING_ENTRIES * sizeof(*ring->desc),
					 &ring->desc_dma, GFP_KERNEL);
	if (!ring->desc)
		return -ENOMEM;
	ring->slots = dmam_alloc_coherent(hw->dev, HWOFFLOAD_RING_ENTRIES * sizeof(*ring->slots),
					  &ring->slots_dma, GFP_KERNEL);
	if (!ring->slots)
		return -ENOMEM;
	spin_lock_init(&ring->lock);
	INIT_LIST_HEAD(&ring->pending);
	init_waitqueue_head(&ring->space);
	hw->dma_chain = true;

	/* Go on from the HEAD a previous driver left: the reset makes CUR equal to it. */
	ring->head = hwoffload_read(hw, HWE_REG_RING_HEAD);
	ring->tail = ring->head;
	hwoffload_write64(hw, HWE_REG_RING_BASE, ring->desc_dma);
	hwoffload_write(hw, HWE_REG_RING_SIZE, HWOFFLOAD_RING_ENTRIES);
	return 0;
}

/*
 * Entries of @sg covering @len bytes, or -EINVAL if one of them breaks the engine's rule (start
 * a multiple of 16; length a multiple of @piece, but for the last, which takes what is left)
 * or is longer than one DMA mapping may be (swiotlb). dma_map_sg() keeps the 16-byte alignment:
 * direct mappings keep the address, swiotlb slots are 2 KiB aligned.
 */
static int hwoffload_sg_dma_nents(struct device *dev, struct scatterlist *sg, unsigned int len,
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
static int hwoffload_bounce_alloc(struct hwoffload_bounce *b, unsigned int len, gfp_t gfp)
{
	b->order = get_order(DIV_ROUND_UP(len, HWOFFLOAD_MAX_DATA_DESCS));
	b->sgl = sgl_alloc_order(len, b->order, false, gfp, &b->nents);
	return b->sgl ? 0 : -ENOMEM;
}

static int hwoffload_bounce_map(struct hwoffload_dev *hw, struct hwoffload_bounce *b,
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
static void hwoffload_bounce_free(struct hwoffload_dev *hw, struct hwoffload_bounce *b,
				  enum dma_data_direction dir, struct scatterlist *copy_out,
				  unsigned int len)
{
	dma_unmap_sg(hw->dev, b->sgl, b->nents, dir);
	if (copy_out)
		hwoffload_bounce_copy(b, copy_out, len, false);
	sgl_free_n_order(b->sgl, b->nents, b->order);
	b->sgl = NULL;
}

static gfp_t hwoffload_req_gfp(struct crypto_async_request *base)
{
	return base->flags & CRYPTO_TFM_REQ_MAY_SLEEP ? GFP_KERNEL : GFP_ATOMIC;
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
static int hwoffload_dma_map_bufs(struct hwoffload_dev *hw, struct hwoffload_dma_bufs *b,
				  struct scatterlist *src, struct scatterlist *dst,
				  unsigned int len, unsigned int copy_len, unsigned int bounce_len,
				  gfp_t gfp)
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
static void hwoffload_dma_unmap_bufs(struct hwoffload_dev *hw, struct hwoffload_dma_bufs *b,
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

/*
 * Map a skcipher request: its block-aligned part, the CTR tail kept for the slot; bounced, the
 * whole request padded to whole blocks (a CTR tail rides in the padding).
 */
static int hwoffload_dma_map(struct hwoffload_dev *hw, struct skcipher_request *req)
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

/* Undo hwoffload_dma_map(); on success, deliver what was not written in place (bounce, tail). */
static void hwoffload_dma_unmap(struct hwoffload_dev *hw, struct skcipher_request *req,
				bool copy_out)
{
	struct hwoffload_req_ctx *rctx = skcipher_request_ctx(req);

	hwoffload_dma_unmap_bufs(hw, &rctx->bufs, req->src, req->dst, copy_out ? req->cryptlen : 0);
	/* after the unmap, which writes the whole last entry back from a swiotlb copy */
	if (copy_out && rctx->tail_len)
		sg_pcopy_from_buffer(req->dst, sg_nents(req->dst), rctx->tail, rctx->tail_len,
				     rctx->bufs.len);
}

static void hwoffload_desc_fill(struct hwe_desc *desc, dma_addr_t src, dma_addr_t dst, u32 len,
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
 * The DATA descriptors for @len mapped bytes of @src into @dst (NULL: a hash, no destination),
 * from ring index @index; only counted when @ring is NULL. Source and destination are walked in
 * step: a descriptor ends where either entry ends.
 */
static u32 hwoffload_dma_data_descs(struct hwoffload_ring *ring, u32 index, struct scatterlist *src,
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
 * the request; the interrupt (or the timeout) completes it.
 */
static void hwoffload_ring_publish(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq,
				   u32 end)
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
}

/* A LOAD_CTX at @index of the record (@len bytes from @off) in that descriptor's slot. */
static void hwoffload_ring_load_ctx(struct hwoffload_ring *ring, u32 index, size_t off, u32 len)
{
	hwoffload_desc_fill(hwoffload_ring_desc(ring, index),
			    hwoffload_ring_slot_dma(ring, index) + off, 0, len, HWE_DESC_LOAD_CTX);
}

/*
 * Wait for @ndesc free descriptors and take the hardware lock: the ring's first free descriptor
 * and its slot are then the request's. Completions or, at worst, the timeout's reset free the
 * ring. With chaining off (debugfs, to measure what it gains) wait until the ring is empty: one
 * request per walk. The request's LOAD_CTX (@ctx_len bytes of the slot from @ctx_off) is
 * filled; the caller fills the record and the DATA descriptors, publishes and unlocks.
 */
static int hwoffload_ring_reserve(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq,
				  u32 ndesc, size_t ctx_off, u32 ctx_len)
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

	hwoffload_dma_unmap(hw, req, !dreq->err);
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

/* Map, wait for room in the ring and publish; the interrupt completes the request. */
int hwoffload_dma_submit(struct hwoffload_dev *hw, struct skcipher_request *req)
{
	struct hwoffload_req_ctx *rctx = skcipher_request_ctx(req);
	struct hwoffload_ring *ring = &hw->ring;
	struct hwoffload_slot *slot;
	u32 ndesc, index;
	int ret;

	ret = hwoffload_dma_map(hw, req);
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
		hwoffload_dma_unmap(hw, req, false);
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
	mutex_unlock(&hw->hw_lock);
	return 0;
}

static void hwoffload_gcm_collect(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq,
				  struct hwoffload_slot *slot)
{
	struct hwoffload_aead_req_ctx *rctx =
		container_of(dreq, struct hwoffload_aead_req_ctx, dma);

	if (!dreq->err && !rctx->decrypt)
		memcpy(rctx->tag, slot->gcm.tag, sizeof(rctx->tag));
}

/*
 * A failed decrypt leaves nothing of the message in the destination's data bytes: the engine
 * wrote the plaintext there before it knew the tag (hwoffload.h, struct hwoffload_aead_req_ctx).
 */
static void hwoffload_gcm_finish(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq)
{
	struct hwoffload_aead_req_ctx *rctx =
		container_of(dreq, struct hwoffload_aead_req_ctx, dma);
	struct aead_request *req = rctx->req;
	unsigned int len = req->assoclen + rctx->data_len;

	hwoffload_dma_unmap_bufs(hw, &rctx->bufs, req->src, req->dst, dreq->err ? 0 : len);
	if (dreq->err && rctx->decrypt)
		sg_zero_buffer(req->dst, sg_nents(req->dst), rctx->data_len, req->assoclen);
	if (dreq->err == -EBADMSG) {
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_GCM_TAG_MISMATCHES);
	} else if (dreq->err) {
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DMA_ERRORS);
	} else {
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_GCM_DMA_REQUESTS);
		hwoffload_stat_add(hw, HWOFFLOAD_STAT_GCM_DMA_BYTES, len);
	}
	hwoffload_aead_done(hw, req, dreq->err);
}

static const struct hwoffload_dma_ops hwoffload_gcm_dma_ops = {
	.collect = hwoffload_gcm_collect,
	.finish = hwoffload_gcm_finish,
};

/*
 * The gcm(aes) form of hwoffload_dma_submit() (ENGINE.md section 12, DMA form): LOAD_CTX of the
 * GCM record, DATA descriptors on the stream AAD || data (its last may end in a partial block),
 * nothing more for an empty message. The engine writes an encrypt's tag into the record.
 */
int hwoffload_dma_submit_gcm(struct hwoffload_dev *hw, struct aead_request *req)
{
	struct hwoffload_aead_req_ctx *rctx = aead_request_ctx(req);
	unsigned int len = req->assoclen + rctx->data_len;
	struct hwoffload_ring *ring = &hw->ring;
	u32 ndesc, index;
	int ret;

	BUILD_BUG_ON(sizeof(struct hwe_gcm_ctx) != 128);
	BUILD_BUG_ON(!IS_ALIGNED(offsetof(struct hwoffload_slot, gcm), HWE_DMA_ALIGN));
	ret = hwoffload_dma_map_bufs(hw, &rctx->bufs, req->src, req->dst, len, len, len,
				     hwoffload_req_gfp(&req->base));
	if (ret)
		return ret;
	ndesc = 1 + hwoffload_dma_data_descs(NULL, 0, rctx->bufs.src, rctx->bufs.dst, len);
	rctx->dma.ops = &hwoffload_gcm_dma_ops;
	rctx->dma.times = NULL;
	ret = hwoffload_ring_reserve(hw, &rctx->dma, ndesc, offsetof(struct hwoffload_slot, gcm),
				     sizeof(struct hwe_gcm_ctx));
	if (ret) {
		hwoffload_dma_unmap_bufs(hw, &rctx->bufs, req->src, req->dst, 0);
		return ret;
	}
	index = rctx->dma.first_desc;
	hwoffload_aead_fill_ctx(req, &hwoffload_ring_slot(ring, index++)->gcm);
	index += hwoffload_dma_data_descs(ring, index, rctx->bufs.src, rctx->bufs.dst, len);
	hwoffload_ring_publish(hw, &rctx->dma, index);
	mutex_unlock(&hw->hw_lock);
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
	mutex_unlock(&hw->hw_lock);
	wait_for_completion(&probe.done);
	return probe.dma.err;
}

/*
 * A hash request's data: zero-copy on req->src when nothing is buffered and the list follows
 * the rule (whole blocks but the last of a FINAL request), else st.buf and req->src copied
 * into a bounce list.
 */
static int hwoffload_dma_map_hash(struct hwoffload_dev *hw, struct ahash_request *req)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);
	unsigned int total = rctx->st.buflen + rctx->src_len, off;
	struct scatterlist *b;
	int nents = -EINVAL;
	int ret;

	rctx->bounce.sgl = NULL;
	rctx->src_nents = 0;
	if (!total)
		return 0;
	if (!rctx->st.buflen)
		nents = hwoffload_sg_dma_nents(hw->dev, req->src, total,
					       hwoffload_hash_blocksize(req));
	if (nents > HWOFFLOAD_MAX_DATA_DESCS) {
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DMA_BOUNCE_SEGMENTS);
	} else if (nents > 0) {
		if (!dma_map_sg(hw->dev, req->src, nents, DMA_TO_DEVICE))
			return -ENOMEM;
		rctx->src_nents = nents;
		rctx->dma_src = req->src;
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DMA_ZERO_COPY);
		return 0;
	} else {
		/* bytes buffered in front count too: the data then starts mid-block */
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DMA_BOUNCE_MISALIGNED);
	}
	ret = hwoffload_bounce_alloc(&rctx->bounce, total, hwoffload_req_gfp(&req->base));
	if (ret)
		return ret;
	for (b = rctx->bounce.sgl, off = 0; off < total; off += b->length, b = sg_next(b))
		hwoffload_hash_copy(req, sg_virt(b), off, min(b->length, total - off));
	ret = hwoffload_bounce_map(hw, &rctx->bounce, DMA_TO_DEVICE);
	if (ret)
		return ret;
	rctx->dma_src = rctx->bounce.sgl;
	hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DMA_BOUNCES);
	hwoffload_stat_add(hw, HWOFFLOAD_STAT_DMA_BOUNCE_BYTES, total);
	return 0;
}

static void hwoffload_dma_unmap_hash(struct hwoffload_dev *hw, struct ahash_request *req)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);

	if (rctx->bounce.sgl)
		hwoffload_bounce_free(hw, &rctx->bounce, DMA_TO_DEVICE, NULL, 0);
	else if (rctx->src_nents)
		dma_unmap_sg(hw->dev, req->src, rctx->src_nents, DMA_TO_DEVICE);
}

/* The written-back record: the outer one of an HMAC (its slot wiped of the opad state too). */
static void hwoffload_hash_collect(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq,
				   struct hwoffload_slot *slot)
{
	struct hwoffload_hash_req_ctx *rctx =
		container_of(dreq, struct hwoffload_hash_req_ctx, dma);
	struct hwoffload_slot *outer = NULL;

	if (rctx->hmac_final) {
		outer = hwoffload_ring_slot(&hw->ring, rctx->outer_desc);
		slot = outer;
	}
	if (!dreq->err) {
		rctx->st.len_lo = le64_to_cpu(slot->hash.len_lo);
		rctx->st.len_hi = le64_to_cpu(slot->hash.len_hi);
		memcpy(rctx->st.state, slot->hash.state, sizeof(rctx->st.state));
	}
	if (outer)
		memzero_explicit(outer, sizeof(*outer));
}

static void hwoffload_hash_finish(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq)
{
	struct hwoffload_hash_req_ctx *rctx =
		container_of(dreq, struct hwoffload_hash_req_ctx, dma);

	hwoffload_dma_unmap_hash(hw, rctx->req);
	if (dreq->err) {
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_DMA_ERRORS);
	} else {
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_HASH_DMA_REQUESTS);
		hwoffload_stat_add(hw, HWOFFLOAD_STAT_HASH_DMA_BYTES,
				   rctx->st.buflen + rctx->src_len);
	}
	hwoffload_hash_done(hw, rctx->req, dreq->err);
}

static const struct hwoffload_dma_ops hwoffload_hash_dma_ops = {
	.collect = hwoffload_hash_collect,
	.finish = hwoffload_hash_finish,
};

/* A hash record: the stream's @len_lo bytes hashed into @state, to go on as @cfg says. */
static void hwoffload_hash_fill_rec(struct hwe_hash_ctx *rec, u32 cfg, u64 len_lo, u64 len_hi,
				    const u8 *state)
{
	rec->cfg = cpu_to_le32(cfg);
	memset(rec->reserved, 0, sizeof(rec->reserved));
	rec->len_lo = cpu_to_le64(len_lo);
	rec->len_hi = cpu_to_le64(len_hi);
	memcpy(rec->state, state, sizeof(rec->state));
}

/*
 * The hash form of hwoffload_dma_submit() (ENGINE.md section 11, DMA form). The final request of an
 * HMAC is two requests published together: the inner one, then the outer one from the opad
 * state over the inner digest, read by the engine from the inner record it has just written
 * back (descriptors run in order).
 */
int hwoffload_dma_submit_hash(struct hwoffload_dev *hw, struct ahash_request *req)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);
	unsigned int total = rctx->st.buflen + rctx->src_len;
	const u8 *outer = hwoffload_hash_outer_state(req);
	struct hwoffload_ring *ring = &hw->ring;
	u32 ndesc, index, first;
	int ret;

	BUILD_BUG_ON(sizeof(struct hwe_hash_ctx) != 96);
	/* the inner digest is DMA'd from the record: 16-byte aligned */
	BUILD_BUG_ON(!IS_ALIGNED(offsetof(struct hwoffload_slot, hash.state), HWE_DMA_ALIGN));
	ret = hwoffload_dma_map_hash(hw, req);
	if (ret)
		return ret;
	/* an empty FINAL request is its LOAD_CTX alone */
	ndesc = 1 + (total ? hwoffload_dma_data_descs(NULL, 0, rctx->dma_src, NULL, total) : 0);
	rctx->dma.ops = &hwoffload_hash_dma_ops;
	rctx->dma.times = NULL;
	ret = hwoffload_ring_reserve(hw, &rctx->dma, ndesc + (outer ? 2 : 0),
				     offsetof(struct hwoffload_slot, hash),
				     sizeof(struct hwe_hash_ctx));
	if (ret) {
		hwoffload_dma_unmap_hash(hw, req);
		return ret;
	}
	first = rctx->dma.first_desc;
	index = first + 1;
	hwoffload_hash_fill_rec(&hwoffload_ring_slot(ring, first)->hash,
				hwoffload_hash_cfg(req, true, true), rctx->st.len_lo,
				rctx->st.len_hi, rctx->st.state);
	if (total)
		index += hwoffload_dma_data_descs(ring, index, rctx->dma_src, NULL, total);
	if (outer) {
		hwoffload_ring_desc(ring, index - 1)->flags |= cpu_to_le32(HWE_DESC_END_OF_REQ);
		rctx->outer_desc = index;
		hwoffload_ring_load_ctx(ring, index, offsetof(struct hwoffload_slot, hash),
					sizeof(struct hwe_hash_ctx));
		hwoffload_hash_fill_rec(&hwoffload_ring_slot(ring, index++)->hash,
					hwoffload_hash_cfg(req, false, true),
					hwoffload_hash_blocksize(req), 0, outer);
		hwoffload_desc_fill(hwoffload_ring_desc(ring, index++),
				    hwoffload_ring_slot_dma(ring, first) +
					    offsetof(struct hwoffload_slot, hash.state),
				    0, hwoffload_hash_digestsize(req), HWE_DESC_DATA);
	}
	hwoffload_ring_publish(hw, &rctx->dma, index);
	mutex_unlock(&hw->hw_lock);
	return 0;
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
