/* SPDX-License-Identifier: Apache-2.0 */
/*
 * engine.c - the engine core: what the emulated hardware does when a doorbell rings.
 *
 * BAR2 is shared memory that the guest writes without trapping, so the engine reads the
 * driver's registers only when a doorbell arrives, and keeps its own state (CUR, the latched
 * ring, PIO_DONE_SEQ) internally: the BAR2 copies are mirrors it never reads back.
 * Guest RAM is read and written exactly at the addresses the descriptors give, every time,
 * through a bounce buffer the size of the FIFO (no caching: a driver that skips a DMA sync
 * gets stale data, as on real hardware).
 */
#include <endian.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>

#include <openssl/crypto.h>

#include "engine.h"

static const char *const err_names[HWE_ERR_COUNT] = {
	[HWE_ERR_NONE] = "none",
	[HWE_ERR_BAD_ADDR] = "address outside guest RAM",
	[HWE_ERR_MISALIGNED] = "misaligned address or length",
	[HWE_ERR_BAD_LEN] = "bad length",
	[HWE_ERR_BAD_CTX] = "bad context",
	[HWE_ERR_NO_CTX] = "no context loaded",
	[HWE_ERR_BAD_DESC] = "bad descriptor type",
	[HWE_ERR_DMA_FAULT] = "DMA fault (injected)",
	[HWE_ERR_FIFO] = "FIFO error",
	[HWE_ERR_RING] = "ring error",
	[HWE_ERR_ABORTED] = "aborted",
	[HWE_ERR_TAG_MISMATCH] = "tag mismatch",
};

/* ---- BAR2 access: 32/64-bit little-endian words, atomically ---- */

static uint32_t *reg32(struct hwemu_engine *e, uint32_t off)
{
	return (uint32_t *)(e->cfg.bar2 + off);
}

static uint64_t *reg64(struct hwemu_engine *e, uint32_t off)
{
	return (uint64_t *)(e->cfg.bar2 + off);
}

static uint32_t reg_read(struct hwemu_engine *e, uint32_t off)
{
	return le32toh(__atomic_load_n(reg32(e, off), __ATOMIC_ACQUIRE));
}

static uint64_t reg_read64(struct hwemu_engine *e, uint32_t off)
{
	return le64toh(__atomic_load_n(reg64(e, off), __ATOMIC_ACQUIRE));
}

static void reg_write(struct hwemu_engine *e, uint32_t off, uint32_t val)
{
	__atomic_store_n(reg32(e, off), htole32(val), __ATOMIC_RELEASE);
}

static void reg_write64(struct hwemu_engine *e, uint32_t off, uint64_t val)
{
	__atomic_store_n(reg64(e, off), htole64(val), __ATOMIC_RELEASE);
}

/* The engine's half of write-1-to-clear: set bits with a locked OR. */
static void reg_set_bits(struct hwemu_engine *e, uint32_t off, uint32_t bits)
{
	__atomic_fetch_or(reg32(e, off), htole32(bits), __ATOMIC_SEQ_CST);
}

static void reg_clear_bits(struct hwemu_engine *e, uint32_t off, uint32_t bits)
{
	__atomic_fetch_and(reg32(e, off), htole32(~bits), __ATOMIC_SEQ_CST);
}

static void counter_add(struct hwemu_engine *e, uint32_t off, uint64_t n)
{
	reg_write64(e, off, reg_read64(e, off) + n);	/* the engine is the only writer */
}

/* Take one event from a fault-injection count the driver armed; false if none is armed. */
static bool fault_take(struct hwemu_engine *e, uint32_t off)
{
	uint32_t *word = reg32(e, off);
	uint32_t old = __atomic_load_n(word, __ATOMIC_ACQUIRE);

	do {
		if (old == 0)
			return false;
	} while (!__atomic_compare_exchange_n(word, &old, htole32(le32toh(old) - 1), false,
					      __ATOMIC_SEQ_CST, __ATOMIC_ACQUIRE));
	return true;
}

/* ---- errors and interrupts ---- */

static void record_error(struct hwemu_engine *e, const char *where, enum hwe_err err, uint64_t addr)
{
	reg_write(e, HWE_REG_LAST_ERROR, err);
	reg_write64(e, HWE_REG_LAST_ERROR_ADDR, addr);
	reg_set_bits(e, HWE_REG_ERR_STATUS, HWE_BIT(err));
	counter_add(e, HWE_REG_CNT_ERRORS, 1);
	if (!e->cfg.quiet)
		fprintf(stderr, "hwoffload-engine: %s: %s (address 0x%llx)\n", where,
			err_names[err], (unsigned long long)addr);
}

/* Set @bits in INT_STATUS; send one MSI-X message on @vector if any of them is enabled. */
static void raise_interrupt(struct hwemu_engine *e, uint32_t bits, unsigned int vector,
			    uint32_t irq_counter)
{
	reg_set_bits(e, HWE_REG_INT_STATUS, bits);
	if (!(reg_read(e, HWE_REG_INT_ENABLE) & bits))
		return;
	if (fault_take(e, HWE_REG_FAULT_LOST_IRQ)) {
		counter_add(e, HWE_REG_CNT_IRQS_LOST, 1);
		return;
	}
	counter_add(e, irq_counter, 1);
	e->cfg.raise_irq(e->cfg.irq_opaque, vector);
}

static bool ram_range_ok(const struct hwemu_engine *e, uint64_t addr, uint64_t len)
{
	return len <= e->cfg.ram_size && addr <= e->cfg.ram_size - len;
}

static bool dma_aligned(uint64_t val)
{
	return (val & (HWE_DMA_ALIGN - 1)) == 0;
}

/* ---- reset ---- */

static void latch_ring(struct hwemu_engine *e)
{
	uint64_t base = reg_read64(e, HWE_REG_RING_BASE);
	uint32_t size = reg_read(e, HWE_REG_RING_SIZE);

	e->ring_valid = false;
	e->ring_base = base;
	e->ring_size = size;
	if (size == 0)
		return;		/* DMA not configured: not an error until a DMA doorbell */
	if (size > HWE_RING_MAX_ENTRIES || (size & (size - 1)) || base & (HWE_RING_ALIGN - 1) ||
	    !ram_range_ok(e, base, (uint64_t)size * sizeof(struct hwe_desc))) {
		record_error(e, "reset: ring configuration", HWE_ERR_RING, base);
		return;
	}
	e->ring_valid = true;
}

static void end_dma_request(struct hwemu_engine *e)
{
	hwemu_stream_abort(&e->dma_stream);
	hwemu_hash_abort(e->dma_hash);
	hwemu_gcm_abort(&e->dma_gcm);
	OPENSSL_cleanse(&e->dma_ctx, sizeof(e->dma_ctx));
	OPENSSL_cleanse(e->dma_gcm_tag, sizeof(e->dma_gcm_tag));
	memset(&e->req, 0, sizeof(e->req));
}

/* Drop all work, wipe the key registers, latch the ring; CUR = HEAD so nothing is pending. */
static void engine_reset(struct hwemu_engine *e)
{
	static const uint32_t zeroed_regs[] = {
		HWE_REG_STATUS, HWE_REG_INT_STATUS, HWE_REG_ERR_STATUS,
		HWE_REG_LAST_ERROR, HWE_REG_AES_CFG, HWE_REG_AES_CTR_OFFSET,
		HWE_REG_PIO_RESULT, HWE_REG_FIFO_IN_LEVEL, HWE_REG_FIFO_OUT_LEVEL,
		HWE_REG_PIO_UNIT, HWE_REG_FAULT_DMA_ERROR, HWE_REG_FAULT_STALL,
		HWE_REG_FAULT_LOST_IRQ,
		HWE_REG_FAULT_FIFO_ERROR,
	};
	size_t i;

	hwemu_stream_abort(&e->pio_stream);
	hwemu_hash_abort(e->pio_hash);
	hwemu_gcm_abort(&e->pio_gcm);
	end_dma_request(e);
	e->stalled = false;
	e->dma_halted = false;
	for (i = 0; i < sizeof(zeroed_regs) / sizeof(zeroed_regs[0]); i++)
		reg_write(e, zeroed_regs[i], 0);
	reg_write64(e, HWE_REG_LAST_ERROR_ADDR, 0);
	OPENSSL_cleanse(e->cfg.bar2 + HWE_REG_AES_IV, HWEMU_AES_BLOCK);
	OPENSSL_cleanse(e->cfg.bar2 + HWE_REG_AES_KEY, HWEMU_AES_MAX_KEY);
	OPENSSL_cleanse(e->cfg.bar2 + HWE_REG_GCM_BASE, HWE_REG_GCM_END - HWE_REG_GCM_BASE);
	OPENSSL_cleanse(e->cfg.bar2 + HWE_REG_HASH_BASE, HWE_REG_HASH_END - HWE_REG_HASH_BASE);

	e->pio_done_seq = reg_read(e, HWE_REG_PIO_SEQ);
	reg_write(e, HWE_REG_PIO_DONE_SEQ, e->pio_done_seq);

	latch_ring(e);
	e->cur = reg_read(e, HWE_REG_RING_HEAD);
	reg_write(e, HWE_REG_RING_CUR, e->cur);
	reg_write64(e, HWE_REG_RING_CUR_ADDR,
		    e->ring_valid ? e->ring_base + (uint64_t)(e->cur & (e->ring_size - 1)) *
				    sizeof(struct hwe_desc) : 0);
	if (e->ring_valid)
		reg_write(e, HWE_REG_STATUS, HWE_STATUS_RING_VALID);
	counter_add(e, HWE_REG_CNT_RESETS, 1);
	reg_clear_bits(e, HWE_REG_CTRL, HWE_CTRL_RESET);	/* self-clearing: reset done */
}

/* ---- PIO ---- */

static void read_pio_context(struct hwemu_engine *e, struct hwemu_aes_state *st)
{
	st->cfg = reg_read(e, HWE_REG_AES_CFG);
	st->ctr_offset = reg_read(e, HWE_REG_AES_CTR_OFFSET);
	memcpy(st->iv, e->cfg.bar2 + HWE_REG_AES_IV, sizeof(st->iv));
	memcpy(st->key, e->cfg.bar2 + HWE_REG_AES_KEY, sizeof(st->key));
}

static void write_pio_context(struct hwemu_engine *e, const struct hwemu_aes_state *st)
{
	memcpy(e->cfg.bar2 + HWE_REG_AES_IV, st->iv, sizeof(st->iv));
	reg_write(e, HWE_REG_AES_CTR_OFFSET, st->ctr_offset);
}

/* FIFO_IN -> AES -> FIFO_OUT. */
static enum hwe_err pio_aes(struct hwemu_engine *e, uint32_t len)
{
	struct hwemu_aes_state st;
	enum hwe_err err;

	read_pio_context(e, &st);
	err = hwemu_stream_start(&e->pio_stream, &e->cipher, &st);
	if (err == HWE_ERR_NONE) {
		memcpy(e->bounce, e->cfg.bar2 + HWE_FIFO_IN, len);
		err = hwemu_stream_run(&e->pio_stream, e->bounce, e->bounce, len);
	}
	if (err == HWE_ERR_NONE) {
		memcpy(e->cfg.bar2 + HWE_FIFO_OUT, e->bounce, len);
		hwemu_stream_finish(&e->pio_stream, &st);
		write_pio_context(e, &st);
		reg_write(e, HWE_REG_FIFO_OUT_LEVEL, len);
	}
	hwemu_stream_abort(&e->pio_stream);
	OPENSSL_cleanse(&st, sizeof(st));
	return err;
}

/*
 * FIFO_IN (AAD || data) -> GCM -> FIFO_OUT (AAD || output), the tag to GCM_TAG on an encrypt.
 * The whole message is here, so the tag is checked before any output is given: a decrypt
 * whose tag does not match leaves FIFO_OUT empty.
 */
static enum hwe_err pio_gcm(struct hwemu_engine *e, uint32_t len)
{
	struct hwemu_gcm_state st;
	enum hwe_err err;

	st.cfg = reg_read(e, HWE_REG_AES_CFG);
	st.tag_len = reg_read(e, HWE_REG_GCM_TAG_LEN);
	st.aad_len = reg_read(e, HWE_REG_GCM_AAD_LEN);
	st.data_len = reg_read(e, HWE_REG_GCM_DATA_LEN);
	memcpy(st.iv, e->cfg.bar2 + HWE_REG_AES_IV, sizeof(st.iv));
	memcpy(st.key, e->cfg.bar2 + HWE_REG_AES_KEY, sizeof(st.key));
	memcpy(st.tag, e->cfg.bar2 + HWE_REG_GCM_TAG, sizeof(st.tag));
	if (reg_read(e, HWE_REG_AES_CTR_OFFSET))
		err = HWE_ERR_BAD_CTX; /* an offset outside CTR */
	else
		err = hwemu_gcm_start(&e->pio_gcm, &e->cipher, &st);
	if (err == HWE_ERR_NONE && (uint64_t)st.aad_len + st.data_len != len)
		err = HWE_ERR_BAD_LEN;
	if (err == HWE_ERR_NONE) {
		memcpy(e->bounce, e->cfg.bar2 + HWE_FIFO_IN, len);
		err = hwemu_gcm_run(&e->pio_gcm, e->bounce, e->bounce, len);
	}
	if (err == HWE_ERR_NONE)
		err = hwemu_gcm_finish(&e->pio_gcm, &st);
	if (err == HWE_ERR_NONE) {
		memcpy(e->cfg.bar2 + HWE_FIFO_OUT, e->bounce, len);
		if (!(st.cfg & HWE_CFG_DECRYPT))
			memcpy(e->cfg.bar2 + HWE_REG_GCM_TAG, st.tag, sizeof(st.tag));
		reg_write(e, HWE_REG_FIFO_OUT_LEVEL, len);
	}
	hwemu_gcm_abort(&e->pio_gcm);
	OPENSSL_cleanse(&st, sizeof(st));
	return err;
}

/* FIFO_IN -> hash; the state (or digest) and length go back to the hash registers. */
static enum hwe_err pio_hash(struct hwemu_engine *e, uint32_t len)
{
	struct hwemu_hash_state st;
	enum hwe_err err;

	st.cfg = reg_read(e, HWE_REG_HASH_CFG);
	st.len_lo = reg_read64(e, HWE_REG_HASH_LEN_LO);
	st.len_hi = reg_read64(e, HWE_REG_HASH_LEN_HI);
	memcpy(st.state, e->cfg.bar2 + HWE_REG_HASH_STATE, sizeof(st.state));
	err = hwemu_hash_start(e->pio_hash, &st);
	if (err == HWE_ERR_NONE) {
		memcpy(e->bounce, e->cfg.bar2 + HWE_FIFO_IN, len);
		err = hwemu_hash_run(e->pio_hash, e->bounce, len);
	}
	if (err == HWE_ERR_NONE) {
		hwemu_hash_finish(e->pio_hash, &st);
		memcpy(e->cfg.bar2 + HWE_REG_HASH_STATE, st.state, sizeof(st.state));
		reg_write64(e, HWE_REG_HASH_LEN_LO, st.len_lo);
		reg_write64(e, HWE_REG_HASH_LEN_HI, st.len_hi);
	}
	hwemu_hash_abort(e->pio_hash);
	OPENSSL_cleanse(&st, sizeof(st));
	return err;
}

/* Run the request in FIFO_IN on the unit PIO_UNIT names; sets *@len to the bytes taken. */
static enum hwe_err pio_process(struct hwemu_engine *e, uint32_t *len)
{
	*len = reg_read(e, HWE_REG_FIFO_IN_LEVEL);
	if (fault_take(e, HWE_REG_FAULT_FIFO_ERROR))
		return HWE_ERR_FIFO;
	/* overflow, or the previous output was never drained */
	if (*len > HWE_FIFO_DEPTH || reg_read(e, HWE_REG_FIFO_OUT_LEVEL) != 0)
		return HWE_ERR_FIFO;

	switch (reg_read(e, HWE_REG_PIO_UNIT)) {
	case HWE_UNIT_AES:
		if ((reg_read(e, HWE_REG_AES_CFG) & HWE_CFG_MODE_MASK) == HWE_MODE_GCM)
			return pio_gcm(e, *len);
		return pio_aes(e, *len);
	case HWE_UNIT_HASH:
		return pio_hash(e, *len);
	default:
		return HWE_ERR_BAD_CTX;
	}
}

static void pio_doorbell(struct hwemu_engine *e)
{
	uint32_t seq = reg_read(e, HWE_REG_PIO_SEQ);
	uint64_t start = hwemu_now_ns();
	enum hwe_err err;
	uint32_t len;

	if (seq == e->pio_done_seq)
		return;		/* nothing posted: a coalesced or stray doorbell */
	reg_set_bits(e, HWE_REG_STATUS, HWE_STATUS_PIO_BUSY);
	if (fault_take(e, HWE_REG_FAULT_STALL)) {
		e->stalled = true;	/* PIO_BUSY stays set, PIO_DONE_SEQ never moves */
		return;
	}

	err = pio_process(e, &len);
	reg_write(e, HWE_REG_FIFO_IN_LEVEL, 0);		/* input consumed, even on error */
	if (err == HWE_ERR_TAG_MISMATCH) {
		/* a result, not a fault: the whole message was processed and is charged */
		counter_add(e, HWE_REG_CNT_TAG_MISMATCHES, 1);
	} else if (err != HWE_ERR_NONE) {
		record_error(e, "PIO", err, 0);
		len = 0;	/* charge only the setup time for a refused request */
	} else {
		counter_add(e, HWE_REG_CNT_PIO_REQUESTS, 1);
		counter_add(e, HWE_REG_CNT_PIO_BYTES, len);
	}
	hwemu_sleep_until(start + hwemu_cost_ns(&e->cfg.timing.pio, len));
	counter_add(e, HWE_REG_CNT_PIO_BUSY_NS, hwemu_now_ns() - start);

	reg_write(e, HWE_REG_PIO_RESULT, err);
	reg_clear_bits(e, HWE_REG_STATUS, HWE_STATUS_PIO_BUSY);
	e->pio_done_seq = seq;
	reg_write(e, HWE_REG_PIO_DONE_SEQ, seq);	/* release: results are visible first */
	raise_interrupt(e, HWE_INT_PIO_DONE, HWE_MSIX_PIO, HWE_REG_CNT_PIO_IRQS);
}

/* ---- DMA ---- */

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
	if (!ram_range_ok(e, addr, len))
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
	if (!ram_range_ok(e, src, len))
		return HWE_ERR_BAD_ADDR;
	if (!hash && !ram_range_ok(e, dst, len))
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

	if (err == HWE_ERR_BAD_ADDR && ram_range_ok(e, src, len))
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
		counter_add(e, HWE_REG_CNT_DMA_REQUESTS, 1);
		counter_add(e, HWE_REG_CNT_DMA_BYTES, e->req.bytes);
	}
	hwemu_sleep_until(e->req.start_ns + hwemu_cost_ns(&e->cfg.timing.dma, e->req.bytes));
	counter_add(e, HWE_REG_CNT_DMA_BUSY_NS, hwemu_now_ns() - e->req.start_ns);
	end_dma_request(e);
}

static uint64_t ring_slot_addr(const struct hwemu_engine *e, uint32_t index)
{
	return e->ring_base + (uint64_t)(index & (e->ring_size - 1)) * sizeof(struct hwe_desc);
}

enum dma_step_result {
	DMA_STEP_NEXT,		/* go on to the next descriptor */
	DMA_STEP_BREAK,		/* BREAK_CHAIN: stop here and interrupt */
	DMA_STEP_STALLED,	/* injected stall: no progress, no interrupt, until reset */
};

/* Run descriptor CUR. It is fetched once; its status word is the only part the engine writes. */
static enum dma_step_result dma_step(struct hwemu_engine *e, uint32_t *events)
{
	uint64_t addr = ring_slot_addr(e, e->cur);
	struct hwe_desc d;
	enum hwe_err err;
	uint32_t flags;

	if (!e->req.open) {
		if (fault_take(e, HWE_REG_FAULT_STALL)) {
			e->stalled = true;
			return DMA_STEP_STALLED;
		}
		e->req.open = true;
		e->req.start_ns = hwemu_now_ns();
		e->req.inject_fault = fault_take(e, HWE_REG_FAULT_DMA_ERROR);
	}

	memcpy(&d, e->cfg.ram + addr, sizeof(d));
	flags = le32toh(d.flags);
	err = dma_desc(e, &d);
	if (err == HWE_ERR_NONE && (flags & HWE_DESC_END_OF_REQ) && e->req.ctx_loaded &&
	    e->req.record == HWEMU_RECORD_GCM)
		err = dma_finish_gcm(e);
	if (err == HWE_ERR_TAG_MISMATCH) {
		/* a result, not a fault: no DMA_ERROR; failed, so not counted as a request */
		counter_add(e, HWE_REG_CNT_TAG_MISMATCHES, 1);
		e->req.failed = true;
	} else if (err != HWE_ERR_NONE) {
		if (err != HWE_ERR_ABORTED)
			record_error(e, "DMA descriptor", err, desc_error_addr(e, &d, err));
		e->req.failed = true;
		*events |= HWE_INT_DMA_ERROR;
	}
	if (flags & HWE_DESC_END_OF_REQ)
		dma_finish_request(e);

	__atomic_store_n(&((struct hwe_desc *)(e->cfg.ram + addr))->status,
			 htole32(HWE_DSTAT_DONE | err), __ATOMIC_RELEASE);
	counter_add(e, HWE_REG_CNT_DMA_DESCS, 1);
	e->cur++;
	reg_write64(e, HWE_REG_RING_CUR_ADDR, ring_slot_addr(e, e->cur));
	reg_write(e, HWE_REG_RING_CUR, e->cur);
	*events |= HWE_INT_DMA_DONE;
	return flags & HWE_DESC_BREAK_CHAIN ? DMA_STEP_BREAK : DMA_STEP_NEXT;
}

/* Walk from CUR to HEAD (re-reading HEAD as it goes); one interrupt for the whole walk. */
static void dma_doorbell(struct hwemu_engine *e)
{
	enum dma_step_result step = DMA_STEP_NEXT;
	uint32_t events = 0, head;

	if (!e->ring_valid || e->dma_halted) {
		record_error(e, "DMA doorbell", HWE_ERR_RING, e->ring_base);
		raise_interrupt(e, HWE_INT_DMA_ERROR, HWE_MSIX_DMA, HWE_REG_CNT_DMA_IRQS);
		return;
	}
	reg_set_bits(e, HWE_REG_STATUS, HWE_STATUS_DMA_BUSY);
	while (step == DMA_STEP_NEXT) {
		head = reg_read(e, HWE_REG_RING_HEAD);
		if (head == e->cur)
			break;
		if (head - e->cur > e->ring_size) {
			/* HEAD ran more than a ring ahead (or went back): trust nothing there */
			record_error(e, "DMA ring HEAD", HWE_ERR_RING, head);
			e->dma_halted = true;
			reg_set_bits(e, HWE_REG_STATUS, HWE_STATUS_DMA_HALTED);
			events |= HWE_INT_DMA_ERROR;
			break;
		}
		step = dma_step(e, &events);
	}
	if (step == DMA_STEP_STALLED)
		return;		/* DMA_BUSY stays set and no interrupt comes */
	reg_clear_bits(e, HWE_REG_STATUS, HWE_STATUS_DMA_BUSY);
	raise_interrupt(e, events, HWE_MSIX_DMA, HWE_REG_CNT_DMA_IRQS);
}

/* ---- setup and dispatch ---- */

static void write_identification(struct hwemu_engine *e)
{
	const struct hwemu_timing *t = &e->cfg.timing;

	memset(e->cfg.bar2, 0, HWE_BAR2_SIZE);
	reg_write(e, HWE_REG_ID, HWE_ID_MAGIC);
	reg_write(e, HWE_REG_VERSION, HWE_VERSION);
	reg_write(e, HWE_REG_CAPS, HWE_CAP_AES_ECB | HWE_CAP_AES_CBC | HWE_CAP_AES_CTR |
		  HWE_CAP_AES_GCM | HWE_CAP_PIO | HWE_CAP_DMA | HWE_CAP_HASH |
		  HWE_CAP_FAULT_INJECTION);
	reg_write(e, HWE_REG_PEER_ID, HWEMU_ENGINE_PEER_ID);
	reg_write(e, HWE_REG_NUM_VECTORS, e->cfg.vectors);
	reg_write(e, HWE_REG_FIFO_DEPTH, HWE_FIFO_DEPTH);
	reg_write(e, HWE_REG_DMA_ALIGN, HWE_DMA_ALIGN);
	reg_write(e, HWE_REG_DMA_MAX_LEN, HWE_DMA_MAX_LEN);
	reg_write64(e, HWE_REG_RAM_SIZE, e->cfg.ram_size);
	reg_write(e, HWE_REG_RING_MAX, HWE_RING_MAX_ENTRIES);
	reg_write(e, HWE_REG_PIO_SETUP_NS, (uint32_t)t->pio.setup_ns);
	reg_write(e, HWE_REG_PIO_PS_PER_BYTE, (uint32_t)t->pio.ps_per_byte);
	reg_write(e, HWE_REG_DMA_SETUP_NS, (uint32_t)t->dma.setup_ns);
	reg_write(e, HWE_REG_DMA_PS_PER_BYTE, (uint32_t)t->dma.ps_per_byte);
}

int hwemu_engine_init(struct hwemu_engine *e, const struct hwemu_engine_config *cfg)
{
	memset(e, 0, sizeof(*e));
	e->cfg = *cfg;
	if (cfg->vectors < HWE_MIN_VECTORS || cfg->vectors > HWE_MAX_VECTORS || !cfg->raise_irq)
		return -1;
	if (hwemu_cipher_init(&e->cipher))
		return -1;
	e->pio_hash = hwemu_hash_stream_new();
	e->dma_hash = hwemu_hash_stream_new();
	if (hwemu_stream_init(&e->pio_stream) || hwemu_stream_init(&e->dma_stream) ||
	    hwemu_gcm_init(&e->pio_gcm) || hwemu_gcm_init(&e->dma_gcm) || !e->pio_hash ||
	    !e->dma_hash) {
		hwemu_engine_fini(e);
		return -1;
	}
	write_identification(e);
	engine_reset(e);
	reg_write64(e, HWE_REG_CNT_RESETS, 0);		/* count only resets the driver asks for */
	return 0;
}

void hwemu_engine_fini(struct hwemu_engine *e)
{
	hwemu_stream_fini(&e->pio_stream);
	hwemu_stream_fini(&e->dma_stream);
	hwemu_gcm_fini(&e->pio_gcm);
	hwemu_gcm_fini(&e->dma_gcm);
	hwemu_hash_stream_free(e->pio_hash);
	hwemu_hash_stream_free(e->dma_hash);
	e->pio_hash = NULL;
	e->dma_hash = NULL;
	hwemu_cipher_fini(&e->cipher);
	OPENSSL_cleanse(&e->dma_ctx, sizeof(e->dma_ctx));
}

void hwemu_engine_doorbell(struct hwemu_engine *e, unsigned int vector)
{
	counter_add(e, HWE_REG_CNT_DOORBELLS, 1);
	/* a reset request is honoured on any doorbell, before anything else */
	if (reg_read(e, HWE_REG_CTRL) & HWE_CTRL_RESET)
		engine_reset(e);
	if (e->stalled)
		return;

	switch (vector) {
	case HWE_DB_DMA:
		dma_doorbell(e);
		break;
	case HWE_DB_PIO:
		pio_doorbell(e);
		break;
	default:
		break;		/* reserved vectors only carry the reset check above */
	}
}
