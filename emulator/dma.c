/* SPDX-License-Identifier: Apache-2.0 */
/*
 * dma.c - the DMA side of the engine core: the descriptor ring in guest RAM, walked from CUR
 * to HEAD on each DMA doorbell. A request loads a context record (AES, GCM or hash: LOAD_CTX),
 * feeds it DATA descriptors, and its last descriptor (END_OF_REQ) writes the context back.
 */
#include <string.h>

#include <openssl/crypto.h>

#include "core.h"

static bool dma_aligned(uint64_t val)
{
	return (val & (HWE_DMA_ALIGN - 1)) == 0;
}

void hwemu_dma_end_request(struct hwemu_engine *e)
{
	hwemu_stream_abort(&e->dma_stream);
	hwemu_hash_abort(e->dma_hash);
	hwemu_gcm_abort(&e->dma_gcm);
	OPENSSL_cleanse(&e->dma_ctx, sizeof(e->dma_ctx));
	OPENSSL_cleanse(e->dma_gcm_tag, sizeof(e->dma_gcm_tag));
	memset(&e->req, 0, sizeof(e->req));
}

/* A context record was read (@err says whether it was valid): the request's data feeds it. */
static enum hwe_err dma_use_ctx(struct hwemu_engine *e, enum hwe_err err, enum hwemu_record record,
				uint64_t addr)
{
	if (err != HWE_ERR_NONE)
		return err;
	e->req.ctx_loaded = true;
	e->req.record = record;
	e->req.ctx_addr = addr;
	return HWE_ERR_NONE;
}

static enum hwe_err dma_load_hash_ctx(struct hwemu_engine *e, uint64_t addr)
{
	struct hwe_hash_ctx rec;
	struct hwemu_hash_state st;
	enum hwe_err err;

	memcpy(&rec, e->cfg.ram + addr, sizeof(rec));
	st.cfg = le32toh(rec.cfg);
	st.len_lo = le64toh(rec.len_lo);
	st.len_hi = le64toh(rec.len_hi);
	memcpy(st.state, rec.state, sizeof(st.state));
	err = hwemu_hash_start(e->dma_hash, &st);
	OPENSSL_cleanse(&rec, sizeof(rec));
	OPENSSL_cleanse(&st, sizeof(st));
	return dma_use_ctx(e, err, HWEMU_RECORD_HASH, addr);
}

static enum hwe_err dma_load_gcm_ctx(struct hwemu_engine *e, uint64_t addr)
{
	struct hwe_gcm_ctx rec;
	struct hwemu_gcm_state st;
	enum hwe_err err;

	memcpy(&rec, e->cfg.ram + addr, sizeof(rec));
	st.cfg = le32toh(rec.cfg);
	st.tag_len = le32toh(rec.tag_len);
	st.aad_len = le32toh(rec.aad_len);
	st.data_len = le32toh(rec.data_len);
	memcpy(st.iv, rec.iv, sizeof(st.iv));
	memcpy(st.key, rec.key, sizeof(st.key));
	memcpy(e->dma_gcm_tag, rec.tag, sizeof(e->dma_gcm_tag));
	err = hwemu_gcm_start(&e->dma_gcm, &e->cipher, &st);
	OPENSSL_cleanse(&rec, sizeof(rec));
	OPENSSL_cleanse(&st, sizeof(st));
	return dma_use_ctx(e, err, HWEMU_RECORD_GCM, addr);
}

/* The record's length says which it is: struct hwe_aes_ctx, hwe_gcm_ctx or hwe_hash_ctx. */
static enum hwe_err dma_load_ctx(struct hwemu_engine *e, const struct hwe_desc *d)
{
	uint64_t addr = le64toh(d->src);
	uint32_t len = le32toh(d->len);
	struct hwe_aes_ctx rec;
	enum hwe_err err;

	if (len != sizeof(rec) && len != sizeof(struct hwe_gcm_ctx) &&
	    len != sizeof(struct hwe_hash_ctx))
		return HWE_ERR_BAD_LEN;
	if (!dma_aligned(addr))
		return HWE_ERR_MISALIGNED;
	if (!hwemu_ram_range_ok(e, addr, len))
		return HWE_ERR_BAD_ADDR;
	if (len == sizeof(struct hwe_hash_ctx))
		return dma_load_hash_ctx(e, addr);
	if (len == sizeof(struct hwe_gcm_ctx))
		return dma_load_gcm_ctx(e, addr);

	memcpy(&rec, e->cfg.ram + addr, sizeof(rec));
	e->dma_ctx.cfg = le32toh(rec.cfg);
	e->dma_ctx.ctr_offset = le32toh(rec.ctr_offset);
	memcpy(e->dma_ctx.iv, rec.iv, sizeof(rec.iv));
	memcpy(e->dma_ctx.key, rec.key, sizeof(rec.key));
	OPENSSL_cleanse(&rec, sizeof(rec));

	err = hwemu_stream_start(&e->dma_stream, &e->cipher, &e->dma_ctx);
	OPENSSL_cleanse(e->dma_ctx.key, sizeof(e->dma_ctx.key));
	return dma_use_ctx(e, err, HWEMU_RECORD_AES, addr);
}

static enum hwe_err dma_data(struct hwemu_engine *e, const struct hwe_desc *d)
{
	uint64_t src = le64toh(d->src), dst = le64toh(d->dst), remaining;
	uint32_t len = le32toh(d->len), done, n;
	bool hash = e->req.record == HWEMU_RECORD_HASH;
	bool whole_blocks = e->req.record == HWEMU_RECORD_AES;
	enum hwe_err err;

	if (!e->req.ctx_loaded)
		return HWE_ERR_NO_CTX;
	if (len == 0 || len > HWE_DMA_MAX_LEN)
		return HWE_ERR_BAD_LEN;
	if (hash && dst != 0)
		return HWE_ERR_BAD_DESC;	/* the hash has no output stream */
	if (e->req.record == HWEMU_RECORD_GCM) {
		remaining = hwemu_gcm_remaining(&e->dma_gcm);
		if (len > remaining)
			return HWE_ERR_BAD_LEN;
		/* only the descriptor that ends the message may end in a partial block */
		whole_blocks = len != remaining;
	}
	/* the hash's last data may end in a partial block: hwemu_hash_run() checks lengths */
	if (!dma_aligned(src) || !dma_aligned(dst) || (whole_blocks && !dma_aligned(len)))
		return HWE_ERR_MISALIGNED;
	if (!hwemu_ram_range_ok(e, src, len))
		return HWE_ERR_BAD_ADDR;
	if (!hash && !hwemu_ram_range_ok(e, dst, len))
		return HWE_ERR_BAD_ADDR;

	/* burst by burst through the engine's internal buffer, like the hardware */
	for (done = 0; done < len; done += n) {
		n = len - done < sizeof(e->bounce) ? len - done : sizeof(e->bounce);
		memcpy(e->bounce, e->cfg.ram + src + done, n);
		switch (e->req.record) {
		case HWEMU_RECORD_HASH:
			err = hwemu_hash_run(e->dma_hash, e->bounce, n);
			break;
		case HWEMU_RECORD_GCM:
			err = hwemu_gcm_run(&e->dma_gcm, e->bounce, e->bounce, n);
			break;
		default:
			err = hwemu_stream_run(&e->dma_stream, e->bounce, e->bounce, n);
			break;
		}
		if (err != HWE_ERR_NONE)
			return err;
		if (!hash)
			memcpy(e->cfg.ram + dst + done, e->bounce, n);
	}
	e->req.bytes += len;
	return HWE_ERR_NONE;
}

/* The address a descriptor's error is about, for LAST_ERROR_ADDR. */
static uint64_t desc_error_addr(const struct hwemu_engine *e, const struct hwe_desc *d,
				enum hwe_err err)
{
	uint64_t src = le64toh(d->src), dst = le64toh(d->dst);
	uint32_t len = le32toh(d->len);

	if (err == HWE_ERR_BAD_ADDR && hwemu_ram_range_ok(e, src, len))
		return dst;
	if (err == HWE_ERR_MISALIGNED && dma_aligned(src))
		return dst;
	return src;
}

static enum hwe_err dma_desc(struct hwemu_engine *e, const struct hwe_desc *d)
{
	if (e->req.failed)
		return HWE_ERR_ABORTED;
	if (e->req.inject_fault)
		return HWE_ERR_DMA_FAULT;

	switch (le32toh(d->flags) & HWE_DESC_TYPE_MASK) {
	case HWE_DESC_LOAD_CTX:
		return dma_load_ctx(e, d);
	case HWE_DESC_DATA:
		return dma_data(e, d);
	case HWE_DESC_NOP:
		return HWE_ERR_NONE;
	default:
		return HWE_ERR_BAD_DESC;
	}
}

/* END_OF_REQ for a hash request: the state (or digest) and length back into the record. */
static void dma_finish_hash(struct hwemu_engine *e)
{
	struct hwe_hash_ctx *rec = (struct hwe_hash_ctx *)(e->cfg.ram + e->req.ctx_addr);
	struct hwemu_hash_state st;

	hwemu_hash_finish(e->dma_hash, &st);
	memcpy(rec->state, st.state, sizeof(rec->state));
	rec->len_lo = htole64(st.len_lo);
	rec->len_hi = htole64(st.len_hi);
	OPENSSL_cleanse(&st, sizeof(st));
}

/*
 * END_OF_REQ of a GCM request, before its status is written: the message must be complete;
 * an encrypt writes the tag into the record, a decrypt is checked against the one it loaded.
 */
static enum hwe_err dma_finish_gcm(struct hwemu_engine *e)
{
	struct hwe_gcm_ctx *rec = (struct hwe_gcm_ctx *)(e->cfg.ram + e->req.ctx_addr);
	bool decrypt = e->dma_gcm.decrypt;
	struct hwemu_gcm_state st;
	enum hwe_err err;

	memcpy(st.tag, e->dma_gcm_tag, sizeof(st.tag));
	err = hwemu_gcm_finish(&e->dma_gcm, &st);
	if (err == HWE_ERR_NONE && !decrypt)
		memcpy(rec->tag, st.tag, sizeof(rec->tag));
	OPENSSL_cleanse(&st, sizeof(st));
	return err;
}

/* END_OF_REQ: write the output IV (or hash state) back to the record, charge the time. */
static void dma_finish_request(struct hwemu_engine *e)
{
	struct hwe_aes_ctx *rec;

	if (!e->req.failed && e->req.ctx_loaded && e->req.record == HWEMU_RECORD_HASH) {
		dma_finish_hash(e);
	} else if (!e->req.failed && e->req.ctx_loaded && e->req.record == HWEMU_RECORD_AES) {
		hwemu_stream_finish(&e->dma_stream, &e->dma_ctx);
		rec = (struct hwe_aes_ctx *)(e->cfg.ram + e->req.ctx_addr);
		memcpy(rec->iv, e->dma_ctx.iv, sizeof(rec->iv));
		rec->ctr_offset = htole32(e->dma_ctx.ctr_offset);
	} /* a GCM request's tag was written by dma_finish_gcm() */
	if (!e->req.failed) {
		hwemu_counter_add(e, HWE_REG_CNT_DMA_REQUESTS, 1);
		hwemu_counter_add(e, HWE_REG_CNT_DMA_BYTES, e->req.bytes);
	}
	hwemu_sleep_until(e->req.start_ns + hwemu_cost_ns(&e->cfg.timing.dma, e->req.bytes));
	hwemu_counter_add(e, HWE_REG_CNT_DMA_BUSY_NS, hwemu_now_ns() - e->req.start_ns);
	hwemu_dma_end_request(e);
}

enum dma_step_result {
	DMA_STEP_NEXT,		/* go on to the next descriptor */
	DMA_STEP_BREAK,		/* BREAK_CHAIN: stop here and interrupt */
	DMA_STEP_STALLED,	/* injected stall: no progress, no interrupt, until reset */
};

/* Run descriptor CUR. It is fetched once; its status word is the only part the engine writes. */
static enum dma_step_result dma_step(struct hwemu_engine *e, uint32_t *events)
{
	uint64_t addr = hwemu_ring_slot_addr(e, e->cur);
	struct hwe_desc d;
	enum hwe_err err;
	uint32_t flags;

	if (!e->req.open) {
		if (hwemu_fault_take(e, HWE_REG_FAULT_STALL)) {
			e->stalled = true;
			return DMA_STEP_STALLED;
		}
		e->req.open = true;
		e->req.start_ns = hwemu_now_ns();
		e->req.inject_fault = hwemu_fault_take(e, HWE_REG_FAULT_DMA_ERROR);
	}

	memcpy(&d, e->cfg.ram + addr, sizeof(d));
	flags = le32toh(d.flags);
	err = dma_desc(e, &d);
	if (err == HWE_ERR_NONE && (flags & HWE_DESC_END_OF_REQ) && e->req.ctx_loaded &&
	    e->req.record == HWEMU_RECORD_GCM)
		err = dma_finish_gcm(e);
	if (err == HWE_ERR_TAG_MISMATCH) {
		/* a result, not a fault: no DMA_ERROR; failed, so not counted as a request */
		hwemu_counter_add(e, HWE_REG_CNT_TAG_MISMATCHES, 1);
		e->req.failed = true;
	} else if (err != HWE_ERR_NONE) {
		if (err != HWE_ERR_ABORTED)
			hwemu_record_error(e, "DMA descriptor", err, desc_error_addr(e, &d, err));
		e->req.failed = true;
		*events |= HWE_INT_DMA_ERROR;
	}
	if (flags & HWE_DESC_END_OF_REQ)
		dma_finish_request(e);

	__atomic_store_n(&((struct hwe_desc *)(e->cfg.ram + addr))->status,
			 htole32(HWE_DSTAT_DONE | err), __ATOMIC_RELEASE);
	hwemu_counter_add(e, HWE_REG_CNT_DMA_DESCS, 1);
	e->cur++;
	hwemu_reg_write64(e, HWE_REG_RING_CUR_ADDR, hwemu_ring_slot_addr(e, e->cur));
	hwemu_reg_write(e, HWE_REG_RING_CUR, e->cur);
	*events |= HWE_INT_DMA_DONE;
	return flags & HWE_DESC_BREAK_CHAIN ? DMA_STEP_BREAK : DMA_STEP_NEXT;
}

void hwemu_dma_doorbell(struct hwemu_engine *e)
{
	enum dma_step_result step = DMA_STEP_NEXT;
	uint32_t events = 0, head;

	if (!e->ring_valid || e->dma_halted) {
		hwemu_record_error(e, "DMA doorbell", HWE_ERR_RING, e->ring_base);
		hwemu_raise_interrupt(e, HWE_INT_DMA_ERROR, HWE_MSIX_DMA, HWE_REG_CNT_DMA_IRQS);
		return;
	}
	hwemu_reg_set_bits(e, HWE_REG_STATUS, HWE_STATUS_DMA_BUSY);
	while (step == DMA_STEP_NEXT) {
		head = hwemu_reg_read(e, HWE_REG_RING_HEAD);
		if (head == e->cur)
			break;
		if (head - e->cur > e->ring_size) {
			/* HEAD ran more than a ring ahead (or went back): trust nothing there */
			hwemu_record_error(e, "DMA ring HEAD", HWE_ERR_RING, head);
			e->dma_halted = true;
			hwemu_reg_set_bits(e, HWE_REG_STATUS, HWE_STATUS_DMA_HALTED);
			events |= HWE_INT_DMA_ERROR;
			break;
		}
		step = dma_step(e, &events);
	}
	if (step == DMA_STEP_STALLED)
		return;		/* DMA_BUSY stays set and no interrupt comes */
	hwemu_reg_clear_bits(e, HWE_REG_STATUS, HWE_STATUS_DMA_BUSY);
	hwemu_raise_interrupt(e, events, HWE_MSIX_DMA, HWE_REG_CNT_DMA_IRQS);
}
