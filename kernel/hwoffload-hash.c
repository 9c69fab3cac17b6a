// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwoffload ahashes: md5, sha1, sha224, sha256, sha384 and sha512 on the engine's hash unit
 * (ENGINE.md section 11), each on three paths as the skciphers are:
 *
 *   HASH-hwoffload-pio		PIO only
 *   HASH-hwoffload-dma		DMA only
 *   HASH-hwoffload		PIO up to the hash's threshold, DMA above it; a stream whose first
 *				engine request is up to its software threshold, to the software
 *				tier for good (hwoffload.h)
 *
 * at priorities 30, 20 and 10 below the kernel's generic C driver of the same hash: on x86 the
 * bare name keeps the kernel's software (generic C, SSSE3/AVX2/SHA-NI above it), which beats an
 * engine reached over a round trip per request; the engine is taken by driver name. md5-generic
 * sits at 0 and the kernel refuses a negative priority, so the md5 drivers are at 0 too: a tie,
 * which the lookup of the bare name resolves to the driver registered last. The module parameter
 * hash_priority puts them above instead (hwoffload-core.c), as priority does the AES drivers.
 *
 * hmac(HASH) comes on the same three paths, as drivers named hmac(HASH-hwoffload[-pio|-dma]),
 * their keys set up by hwoffload-hmac.c: a stream starts from the ipad state, and its final
 * request runs the outer hash from the opad state over the inner digest on the engine, in the
 * same PIO round or DMA publication.
 *
 * The unit keeps no stream between requests: every request carries the stream's length and
 * chaining state in and gets them back, so any number of streams share the engine, and
 * export() is a copy of the request context's struct hwoffload_hash_state. Updates that leave at
 * most a block (with what is buffered) stay in the request, as omap-sham and CESA do; only
 * whole blocks go to the engine before the final request, whose partial block the engine pads.
 *
 * A PIO request whose caller may sleep runs in update/final/finup/digest when nothing waits in
 * the crypto_engine queue, as the skciphers' do (hwoffload-cipher.c); AF_ALG's hash sockets do
 * not say their caller may sleep, so theirs go through crypto_engine.
 */
#include <crypto/md5.h>
#include <crypto/sha1.h>
#include <crypto/sha2.h>
#include <linux/dma-mapping.h>
#include <linux/module.h>
#include <linux/scatterlist.h>

#include "hwoffload.h"

static const struct hwoffload_hash_info hwoffload_hashes[] = {
#define HWOFFLOAD_HASH_INFO(name, hw_alg, digestsize, blocksize, generic_priority, words,	\
			    word_size, little_endian)						\
	{ #name, HWOFFLOAD_ALG_##name, hw_alg, digestsize, blocksize, generic_priority, words,	\
	  word_size, little_endian },
	HWOFFLOAD_ALGS(HWOFFLOAD_ALG_NONE, HWOFFLOAD_HASH_INFO, HWOFFLOAD_ALG_NONE)
#undef HWOFFLOAD_HASH_INFO
};

/*
 * The module's ahashes (hwoffload.h, "Lifetime"): the plain hashes, then the HMACs, each hash
 * on every path.
 */
static struct ahash_engine_alg
	hwoffload_ahashes[2 * ARRAY_SIZE(hwoffload_hashes) * HWOFFLOAD_PATH_COUNT];

const struct hwoffload_hash_info *hwoffload_hash_info_of(u32 hw_alg)
{
	unsigned int i;

	for (i = 0; i < ARRAY_SIZE(hwoffload_hashes); i++)
		if (hwoffload_hashes[i].hw_alg == hw_alg)
			return &hwoffload_hashes[i];
	return NULL;
}

void hwoffload_hash_words_to_state(const struct hwoffload_hash_info *h, const void *words,
					  u8 *state)
{
	unsigned int i;

	memset(state, 0, HWE_HASH_STATE_SIZE);
	for (i = 0; i < h->words; i++) {
		if (h->word_size == 8)
			put_unaligned_be64(((const u64 *)words)[i], state + 8 * i);
		else if (h->little_endian)
			put_unaligned_le32(((const u32 *)words)[i], state + 4 * i);
		else
			put_unaligned_be32(((const u32 *)words)[i], state + 4 * i);
	}
}

void hwoffload_hash_initial_state(const struct hwoffload_hash_info *h, u8 *state)
{
	static const u32 md5[] = { MD5_H0, MD5_H1, MD5_H2, MD5_H3 };
	static const u32 sha1[] = { SHA1_H0, SHA1_H1, SHA1_H2, SHA1_H3, SHA1_H4 };
	static const u32 sha224[] = { SHA224_H0, SHA224_H1, SHA224_H2, SHA224_H3,
				      SHA224_H4, SHA224_H5, SHA224_H6, SHA224_H7 };
	static const u32 sha256[] = { SHA256_H0, SHA256_H1, SHA256_H2, SHA256_H3,
				      SHA256_H4, SHA256_H5, SHA256_H6, SHA256_H7 };
	static const u64 sha384[] = { SHA384_H0, SHA384_H1, SHA384_H2, SHA384_H3,
				      SHA384_H4, SHA384_H5, SHA384_H6, SHA384_H7 };
	static const u64 sha512[] = { SHA512_H0, SHA512_H1, SHA512_H2, SHA512_H3,
				      SHA512_H4, SHA512_H5, SHA512_H6, SHA512_H7 };
	static const void *const initial[] = {
		[HWE_HASH_MD5] = md5,	    [HWE_HASH_SHA1] = sha1,	[HWE_HASH_SHA224] = sha224,
		[HWE_HASH_SHA256] = sha256, [HWE_HASH_SHA384] = sha384, [HWE_HASH_SHA512] = sha512,
	};

	hwoffload_hash_words_to_state(h, initial[h->hw_alg], state);
}

static struct hwoffload_hash_tfm_ctx *hwoffload_hash_ctx(struct ahash_request *req)
{
	return crypto_ahash_ctx(crypto_ahash_reqtfm(req));
}

static unsigned int hwoffload_hash_blocksize(struct ahash_request *req)
{
	return crypto_ahash_blocksize(crypto_ahash_reqtfm(req));
}

static unsigned int hwoffload_hash_digestsize(struct ahash_request *req)
{
	return crypto_ahash_digestsize(crypto_ahash_reqtfm(req));
}

/* The opad state the outer hash starts from, if this is an HMAC's final request; else NULL. */
static const u8 *hwoffload_hash_outer_state(struct ahash_request *req)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);

	return rctx->hmac_final ? hwoffload_hash_ctx(req)->opad_state : NULL;
}

/* HASH_CFG of a request, or of its @first and @last FIFO loads when PIO splits it. */
static u32 hwoffload_hash_cfg(struct ahash_request *req, bool first, bool last)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);
	u32 cfg = HWE_CFG(HWE_UNIT_HASH, hwoffload_hash_ctx(req)->info->hw_alg, 0, 0);

	if (first && !rctx->st.started)
		cfg |= HWE_HASH_INIT;
	if (last && rctx->final)
		cfg |= HWE_HASH_FINAL;
	return cfg;
}

/* Bytes @off..@off + @len of what the engine hashes for this request: st.buf, then req->src. */
static void hwoffload_hash_copy(struct ahash_request *req, void *buf, unsigned int off,
				unsigned int len)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);
	unsigned int n;

	if (off < rctx->st.buflen) {
		n = min(len, rctx->st.buflen - off);
		memcpy(buf, rctx->st.buf + off, n);
		buf += n;
		off += n;
		len -= n;
	}
	if (len)
		sg_pcopy_to_buffer(req->src, sg_nents(req->src), buf, len, off - rctx->st.buflen);
}

/*
 * The engine is done with a request. On success the engine's length and state are in st
 * already: the update's tail becomes the buffer, or the digest goes out. On failure st is as
 * before the request (the engine writes nothing back), so the stream is intact.
 */
static void hwoffload_hash_end(struct ahash_request *req, int err)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);

	if (!err) {
		rctx->st.started = 1;
		if (rctx->final) {
			memcpy(req->result, rctx->st.state,
			       crypto_ahash_digestsize(crypto_ahash_reqtfm(req)));
			rctx->st.buflen = 0;
		} else {
			if (rctx->keep)
				sg_pcopy_to_buffer(req->src, sg_nents(req->src), rctx->st.buf,
						   rctx->keep, rctx->src_len);
			rctx->st.buflen = rctx->keep;
		}
	}
}

/*
 * The engine is done with a queued request (by PIO, or by DMA from the interrupt thread) or a
 * synchronous DMA request, bottom halves off: the caller is told, as hwoffload_cipher_done().
 */
static void hwoffload_hash_done(struct hwoffload_dev *hw, struct ahash_request *req, int err)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);

	hwoffload_hash_end(req, err);
	if (rctx->dma.sync) {
		complete(&rctx->dma.done);
		return;
	}
	crypto_finalize_hash_request(hw->engine, req, err);
	hwoffload_dev_put(hw);
}

/*
 * By PIO (ENGINE.md section 11, PIO form): restore the stream into the hash registers, feed
 * st.buf and then req->src FIFO load by FIFO load (each a whole number of blocks, as FIFO_DEPTH
 * is; only the last may be partial, and only that one is FINAL), and save the length and state
 * back; for an HMAC's final request, then the outer hash. On failure the request context keeps
 * the state from before.
 */
static int hwoffload_hash_pio(struct hwoffload_dev *hw, struct ahash_request *req)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);
	unsigned int total = rctx->st.buflen + rctx->src_len, off = 0, len;
	const u8 *outer = hwoffload_hash_outer_state(req);
	int ret;

	BUILD_BUG_ON(HWE_FIFO_DEPTH % HWE_HASH_BLOCK_MAX);

	ret = hwoffload_pio_take(hw, HWE_UNIT_HASH);
	if (ret)
		goto out_count;
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
	hwoffload_pio_release(hw);
out_count:
	hwoffload_pio_count(hw, ret, HWOFFLOAD_STAT_HASH_PIO_REQUESTS,
			    HWOFFLOAD_STAT_HASH_PIO_BYTES, total);
	return ret;
}

/*
 * A request's data for DMA: zero-copy on req->src when nothing is buffered and the list follows
 * the rule (whole blocks but the last of a FINAL request), else st.buf and req->src copied into
 * a bounce list, whose pages are whole blocks.
 */
static int hwoffload_hash_dma_map(struct hwoffload_dev *hw, struct ahash_request *req)
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

static void hwoffload_hash_dma_unmap(struct hwoffload_dev *hw, struct ahash_request *req)
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

	hwoffload_hash_dma_unmap(hw, rctx->req);
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
 * By DMA (ENGINE.md section 11, DMA form): LOAD_CTX of the hash record and DATA descriptors
 * without a destination. The final request of an HMAC is two requests published together: the
 * inner one, then the outer one from the opad state over the inner digest, read by the engine
 * from the inner record it has just written back (descriptors run in order).
 */
static int hwoffload_hash_dma(struct hwoffload_dev *hw, struct ahash_request *req)
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
	ret = hwoffload_hash_dma_map(hw, req);
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
		hwoffload_hash_dma_unmap(hw, req);
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
	return 0;
}

/*
 * Start a request, as hwoffload_skcipher_start(): PIO runs to the end, DMA is published (0)
 * and the interrupt finishes it; once the device is being unbound, it fails.
 */
static int hwoffload_hash_start(struct hwoffload_dev *hw, struct ahash_request *req)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);

	if (READ_ONCE(hw->unbound))
		return -ENODEV;
	if (rctx->path == HWOFFLOAD_PATH_DMA)
		return hwoffload_hash_dma(hw, req);
	return hwoffload_hash_pio(hw, req);
}

/* A new stream; an HMAC's starts after its ipad block. */
static int hwoffload_hash_init(struct ahash_request *req)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);
	struct hwoffload_hash_tfm_ctx *ctx = hwoffload_hash_ctx(req);

	memset(&rctx->st, 0, sizeof(rctx->st));
	if (ctx->hmac) {
		rctx->st.started = 1;
		rctx->st.len_lo = hwoffload_hash_blocksize(req);
		memcpy(rctx->st.state, ctx->ipad_state, sizeof(rctx->st.state));
	}
	return 0;
}

/*
 * The software tier (hwoffload.h), in the call: the stream's state (a new one: its buffered
 * bytes) in the tier's implementation, @len bytes of req->src hashed, and the state back in st,
 * or (@final) the digest out and the stream ended.
 */
static int hwoffload_hash_software(struct ahash_request *req, unsigned int len, bool final)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);
	struct ahash_request *sub = &rctx->software_req;
	u8 tier[sizeof_field(struct hwoffload_hash_state, tier_state)];
	int ret;

	ahash_request_set_tfm(sub, hwoffload_hash_ctx(req)->software);
	ahash_request_set_callback(sub, req->base.flags & CRYPTO_TFM_REQ_MAY_SLEEP, NULL, NULL);
	if (rctx->st.software) {
		ret = crypto_ahash_import(sub, rctx->st.tier_state);
	} else {
		sg_init_one(&rctx->software_sg, rctx->st.buf, rctx->st.buflen);
		ahash_request_set_crypt(sub, &rctx->software_sg, NULL, rctx->st.buflen);
		ret = crypto_ahash_init(sub);
		if (!ret && rctx->st.buflen)
			ret = crypto_ahash_update(sub);
	}
	ahash_request_set_crypt(sub, req->src, req->result, len);
	if (ret)
		return ret;
	if (final) {
		ret = crypto_ahash_finup(sub);
		if (!ret)
			memset(&rctx->st, 0, sizeof(rctx->st));
		return ret;
	}
	/* exported aside first: a failure leaves st as it was, the engine's state included */
	ret = crypto_ahash_update(sub) ?: crypto_ahash_export(sub, tier);
	if (!ret) {
		memcpy(rctx->st.tier_state, tier, sizeof(tier));
		rctx->st.software = 1;
	}
	memzero_explicit(tier, sizeof(tier));
	return ret;
}

/* A request of a stream the software tier has: it fails all the same without the device. */
static int hwoffload_hash_software_step(struct ahash_request *req, unsigned int len, bool final)
{
	struct hwoffload_dev *hw = hwoffload_dev_get(hwoffload_hash_ctx(req)->generation);

	if (!hw)
		return -ENODEV;
	hwoffload_dev_put(hw);
	return hwoffload_hash_software(req, len, final);
}

/*
 * One engine request: st.buf, then the first @src_len bytes of req->src; @keep bytes of
 * req->src after them are buffered when it succeeds. The path goes by the bytes hashed; by them
 * the first of a stream (the engine has hashed nothing of it; an HMAC's, but the ipad block) may
 * give the stream to the software tier instead.
 */
static int hwoffload_hash_enqueue(struct ahash_request *req, unsigned int src_len,
				  unsigned int keep, bool final)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);
	struct hwoffload_hash_tfm_ctx *ctx = hwoffload_hash_ctx(req);
	struct hwoffload_dev *hw = hwoffload_dev_get(ctx->generation);
	bool first = !rctx->st.len_hi &&
		     rctx->st.len_lo == (ctx->hmac ? hwoffload_hash_blocksize(req) : 0);
	int tier = first && ctx->software ? HWOFFLOAD_TIER_ENCRYPT : HWOFFLOAD_TIER_NONE;
	int ret;

	if (!hw)
		return -ENODEV;
	rctx->path = hwoffload_route(hw, ctx->path, ctx->info->alg, rctx->st.buflen + src_len, tier,
				     HWOFFLOAD_STAT_HASH_AUTO_SOFTWARE);
	if (rctx->path == HWOFFLOAD_PATH_SOFTWARE) {
		hwoffload_dev_put(hw);
		return hwoffload_hash_software(req, src_len + keep, final);
	}
	rctx->req = req;
	rctx->hw = hw;
	rctx->final = final;
	rctx->hmac_final = final && ctx->hmac;
	rctx->src_len = src_len;
	rctx->keep = keep;
	rctx->dma.sync = hwoffload_run_sync(hw, &req->base, rctx->path);
	if (rctx->dma.sync) {
		ret = hwoffload_hash_start(hw, req);
		/* published: hwoffload_hash_done() ends it */
		if (rctx->path == HWOFFLOAD_PATH_DMA && !ret)
			ret = hwoffload_dma_wait(&rctx->dma);
		else
			hwoffload_hash_end(req, ret);
		hwoffload_dev_put(hw);
		return ret;
	}
	hwoffload_queue_enter(hw);
	ret = crypto_transfer_hash_request_to_engine(hw->engine, req);
	return hwoffload_queue_result(hw, ret);
}

static int hwoffload_hash_update(struct ahash_request *req)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);
	unsigned int bs = hwoffload_hash_blocksize(req);
	unsigned int total = rctx->st.buflen + req->nbytes, send;
	struct hwoffload_dev *hw;

	if (rctx->st.software)
		return hwoffload_hash_software_step(req, req->nbytes, false);
	/*
	 * Up to a block stays here: a round trip for less would cost more than it hashes. It
	 * fails all the same without the device, as the stream cannot end.
	 */
	if (total <= bs) {
		hw = hwoffload_dev_get(hwoffload_hash_ctx(req)->generation);
		if (!hw)
			return -ENODEV;
		if (req->nbytes)
			sg_pcopy_to_buffer(req->src, sg_nents(req->src),
					   rctx->st.buf + rctx->st.buflen, req->nbytes, 0);
		rctx->st.buflen = total;
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_HASH_BUFFERED);
		hwoffload_dev_put(hw);
		return 0;
	}
	send = ALIGN_DOWN(total, bs);
	return hwoffload_hash_enqueue(req, send - rctx->st.buflen, total - send, false);
}

static int hwoffload_hash_final(struct ahash_request *req)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);

	if (rctx->st.software)
		return hwoffload_hash_software_step(req, 0, true);
	return hwoffload_hash_enqueue(req, 0, 0, true);
}

static int hwoffload_hash_finup(struct ahash_request *req)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);

	if (rctx->st.software)
		return hwoffload_hash_software_step(req, req->nbytes, true);
	return hwoffload_hash_enqueue(req, req->nbytes, 0, true);
}

static int hwoffload_hash_digest(struct ahash_request *req)
{
	hwoffload_hash_init(req);
	return hwoffload_hash_finup(req);
}

static int hwoffload_hash_export(struct ahash_request *req, void *out)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);

	memcpy(out, &rctx->st, sizeof(rctx->st));
	return 0;
}

static int hwoffload_hash_import(struct ahash_request *req, const void *in)
{
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);
	const struct hwoffload_hash_state *st = in;

	/*
	 * A state from elsewhere must not make hwoffload_hash_copy() read past st.buf, nor name a
	 * software tier this transform lacks.
	 */
	if (st->software ? !hwoffload_hash_ctx(req)->software
			 : st->buflen > hwoffload_hash_blocksize(req))
		return -EINVAL;
	memcpy(&rctx->st, st, sizeof(rctx->st));
	return 0;
}

/* In the crypto_engine thread, as hwoffload_skcipher_do_one(). */
static int hwoffload_hash_do_one(struct crypto_engine *engine, void *areq)
{
	struct ahash_request *req = container_of(areq, struct ahash_request, base);
	struct hwoffload_hash_req_ctx *rctx = ahash_request_ctx(req);
	struct hwoffload_dev *hw = rctx->hw;
	bool dma = rctx->path == HWOFFLOAD_PATH_DMA;
	int err;

	err = hwoffload_hash_start(hw, req);
	hwoffload_queue_leave(hw);
	/* published: the request may be finalized already */
	if (dma && !err)
		return 0;
	local_bh_disable();
	hwoffload_hash_done(hw, req, err);
	local_bh_enable();
	return 0;
}

static int hwoffload_hash_init_tfm(struct crypto_ahash *tfm)
{
	struct hwoffload_hash_tfm_ctx *ctx = crypto_ahash_ctx(tfm);
	struct ahash_engine_alg *alg =
		container_of(__crypto_ahash_alg(crypto_ahash_tfm(tfm)->__crt_alg),
			     struct ahash_engine_alg, base);
	unsigned int i = alg - hwoffload_ahashes, reqsize;
	int ret;

	ctx->info = &hwoffload_hashes[i / HWOFFLOAD_PATH_COUNT % ARRAY_SIZE(hwoffload_hashes)];
	ctx->path = i % HWOFFLOAD_PATH_COUNT;
	ctx->hmac = i >= ARRAY_SIZE(hwoffload_ahashes) / 2;
	hwoffload_engine_tfm_init(&ctx->engine, &alg->op);
	ctx->generic = NULL;
	ctx->software = NULL;
	ret = ctx->hmac ? hwoffload_hmac_init_tfm(ctx) : 0;
	if (ret)
		return ret;
	if (ctx->path == HWOFFLOAD_PATH_AUTO) {
		/* synchronous: done in the call, whatever the caller's context */
		ctx->software = crypto_alloc_ahash(crypto_tfm_alg_name(crypto_ahash_tfm(tfm)), 0,
						   CRYPTO_ALG_ASYNC | CRYPTO_ALG_NEED_FALLBACK);
		if (IS_ERR(ctx->software)) {
			ret = PTR_ERR(ctx->software);
			ctx->software = NULL;
			goto out_free;
		}
		/* its state travels in ours (hwoffload.h): one that does not fit, no tier */
		if (crypto_ahash_statesize(ctx->software) >
		    sizeof_field(struct hwoffload_hash_state, tier_state)) {
			crypto_free_ahash(ctx->software);
			ctx->software = NULL;
		} else {
			hwoffload_debugfs_software(crypto_ahash_tfm(ctx->software));
		}
	}
	reqsize = sizeof(struct hwoffload_hash_req_ctx);
	if (ctx->software)
		reqsize += crypto_ahash_reqsize(ctx->software);
	crypto_ahash_set_reqsize(tfm, reqsize);
	ret = hwoffload_tfm_attach(&ctx->generation, HWE_CAP_HASH);
	if (!ret)
		return 0;
out_free:
	crypto_free_ahash(ctx->software);
	crypto_free_shash(ctx->generic);
	return ret;
}

static void hwoffload_hash_exit_tfm(struct crypto_ahash *tfm)
{
	struct hwoffload_hash_tfm_ctx *ctx = crypto_ahash_ctx(tfm);

	/* the pad states are as good as the key */
	memzero_explicit(ctx->ipad_state, sizeof(ctx->ipad_state));
	memzero_explicit(ctx->opad_state, sizeof(ctx->opad_state));
	crypto_free_ahash(ctx->software);
	crypto_free_shash(ctx->generic);
	hwoffload_tfm_detach(ctx->generation);
}

static void hwoffload_hash_alg_init(struct ahash_engine_alg *alg,
				    const struct hwoffload_hash_info *h, enum hwoffload_path path,
				    bool hmac)
{
	const struct hwoffload_path_info *p = &hwoffload_paths[path];
	struct ahash_alg *ahash = &alg->base;
	struct crypto_alg *base = &ahash->halg.base;

	if (hmac) {
		/* the name the hmac template would give, so AF_ALG binds it by that name */
		snprintf(base->cra_name, sizeof(base->cra_name), "hmac(%s)", h->name);
		snprintf(base->cra_driver_name, sizeof(base->cra_driver_name),
			 "hmac(%s-hwoffload%s)", h->name, p->suffix);
		ahash->setkey = hwoffload_hmac_setkey;
	} else {
		snprintf(base->cra_name, sizeof(base->cra_name), "%s", h->name);
		snprintf(base->cra_driver_name, sizeof(base->cra_driver_name), "%s-hwoffload%s",
			 h->name, p->suffix);
	}
	if (hwoffload_hash_priority)
		base->cra_priority = max(hwoffload_hash_priority - p->below_auto, 0);
	else
		base->cra_priority = max(h->generic_priority - p->below_generic, 0);
	base->cra_flags = HWOFFLOAD_ALG_FLAGS | p->flags;
	base->cra_blocksize = h->blocksize;
	base->cra_ctxsize = sizeof(struct hwoffload_hash_tfm_ctx);
	base->cra_module = THIS_MODULE;
	ahash->halg.digestsize = h->digestsize;
	ahash->halg.statesize = sizeof(struct hwoffload_hash_state);
	ahash->init = hwoffload_hash_init;
	ahash->update = hwoffload_hash_update;
	ahash->final = hwoffload_hash_final;
	ahash->finup = hwoffload_hash_finup;
	ahash->digest = hwoffload_hash_digest;
	ahash->export = hwoffload_hash_export;
	ahash->import = hwoffload_hash_import;
	ahash->init_tfm = hwoffload_hash_init_tfm;
	ahash->exit_tfm = hwoffload_hash_exit_tfm;
	alg->op.do_one_request = hwoffload_hash_do_one;
}

static int hwoffload_hash_register(void)
{
	unsigned int i;

	BUILD_BUG_ON(sizeof(struct hwoffload_hash_state) > HASH_MAX_STATESIZE);
	for (i = 0; i < ARRAY_SIZE(hwoffload_ahashes); i++)
		hwoffload_hash_alg_init(
			&hwoffload_ahashes[i],
			&hwoffload_hashes[i / HWOFFLOAD_PATH_COUNT % ARRAY_SIZE(hwoffload_hashes)],
			i % HWOFFLOAD_PATH_COUNT, i >= ARRAY_SIZE(hwoffload_ahashes) / 2);
	return crypto_engine_register_ahashes(hwoffload_ahashes, ARRAY_SIZE(hwoffload_ahashes));
}

static void hwoffload_hash_unregister(void)
{
	crypto_engine_unregister_ahashes(hwoffload_ahashes, ARRAY_SIZE(hwoffload_ahashes));
}

const struct hwoffload_alg_type hwoffload_hash_type = {
	.name = "ahash",
	.caps = HWE_CAP_HASH,
	.register_algs = hwoffload_hash_register,
	.unregister_algs = hwoffload_hash_unregister,
};
