/* SPDX-License-Identifier: Apache-2.0 */
/*
 * pio.c - the PIO side of the engine core: a request the driver wrote into FIFO_IN and the
 * context registers (AES, GCM or hash), run when PIO_SEQ moves, its output to FIFO_OUT and the
 * registers, its result in PIO_RESULT and PIO_DONE_SEQ.
 */
#include <string.h>

#include <openssl/crypto.h>

#include "core.h"

static void read_pio_context(struct hwemu_engine *e, struct hwemu_aes_state *st)
{
	st->cfg = hwemu_reg_read(e, HWE_REG_AES_CFG);
	st->ctr_offset = hwemu_reg_read(e, HWE_REG_AES_CTR_OFFSET);
	memcpy(st->iv, e->cfg.bar2 + HWE_REG_AES_IV, sizeof(st->iv));
	memcpy(st->key, e->cfg.bar2 + HWE_REG_AES_KEY, sizeof(st->key));
}

static void write_pio_context(struct hwemu_engine *e, const struct hwemu_aes_state *st)
{
	memcpy(e->cfg.bar2 + HWE_REG_AES_IV, st->iv, sizeof(st->iv));
	hwemu_reg_write(e, HWE_REG_AES_CTR_OFFSET, st->ctr_offset);
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
		hwemu_reg_write(e, HWE_REG_FIFO_OUT_LEVEL, len);
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

	st.cfg = hwemu_reg_read(e, HWE_REG_AES_CFG);
	st.tag_len = hwemu_reg_read(e, HWE_REG_GCM_TAG_LEN);
	st.aad_len = hwemu_reg_read(e, HWE_REG_GCM_AAD_LEN);
	st.data_len = hwemu_reg_read(e, HWE_REG_GCM_DATA_LEN);
	memcpy(st.iv, e->cfg.bar2 + HWE_REG_AES_IV, sizeof(st.iv));
	memcpy(st.key, e->cfg.bar2 + HWE_REG_AES_KEY, sizeof(st.key));
	memcpy(st.tag, e->cfg.bar2 + HWE_REG_GCM_TAG, sizeof(st.tag));
	if (hwemu_reg_read(e, HWE_REG_AES_CTR_OFFSET))
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
		hwemu_reg_write(e, HWE_REG_FIFO_OUT_LEVEL, len);
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

	st.cfg = hwemu_reg_read(e, HWE_REG_HASH_CFG);
	st.len_lo = hwemu_reg_read64(e, HWE_REG_HASH_LEN_LO);
	st.len_hi = hwemu_reg_read64(e, HWE_REG_HASH_LEN_HI);
	memcpy(st.state, e->cfg.bar2 + HWE_REG_HASH_STATE, sizeof(st.state));
	err = hwemu_hash_start(e->pio_hash, &st);
	if (err == HWE_ERR_NONE) {
		memcpy(e->bounce, e->cfg.bar2 + HWE_FIFO_IN, len);
		err = hwemu_hash_run(e->pio_hash, e->bounce, len);
	}
	if (err == HWE_ERR_NONE) {
		hwemu_hash_finish(e->pio_hash, &st);
		memcpy(e->cfg.bar2 + HWE_REG_HASH_STATE, st.state, sizeof(st.state));
		hwemu_reg_write64(e, HWE_REG_HASH_LEN_LO, st.len_lo);
		hwemu_reg_write64(e, HWE_REG_HASH_LEN_HI, st.len_hi);
	}
	hwemu_hash_abort(e->pio_hash);
	OPENSSL_cleanse(&st, sizeof(st));
	return err;
}

/* Run the request in FIFO_IN on the unit PIO_UNIT names; sets *@len to the bytes taken. */
static enum hwe_err pio_process(struct hwemu_engine *e, uint32_t *len)
{
	*len = hwemu_reg_read(e, HWE_REG_FIFO_IN_LEVEL);
	if (hwemu_fault_take(e, HWE_REG_FAULT_FIFO_ERROR))
		return HWE_ERR_FIFO;
	/* overflow, or the previous output was never drained */
	if (*len > HWE_FIFO_DEPTH || hwemu_reg_read(e, HWE_REG_FIFO_OUT_LEVEL) != 0)
		return HWE_ERR_FIFO;

	switch (hwemu_reg_read(e, HWE_REG_PIO_UNIT)) {
	case HWE_UNIT_AES:
		if ((hwemu_reg_read(e, HWE_REG_AES_CFG) & HWE_CFG_MODE_MASK) == HWE_MODE_GCM)
			return pio_gcm(e, *len);
		return pio_aes(e, *len);
	case HWE_UNIT_HASH:
		return pio_hash(e, *len);
	default:
		return HWE_ERR_BAD_CTX;
	}
}

void hwemu_pio_doorbell(struct hwemu_engine *e)
{
	uint32_t seq = hwemu_reg_read(e, HWE_REG_PIO_SEQ);
	uint64_t start = hwemu_now_ns();
	enum hwe_err err;
	uint32_t len;

	if (seq == e->pio_done_seq)
		return;		/* nothing posted: a coalesced or stray doorbell */
	hwemu_reg_set_bits(e, HWE_REG_STATUS, HWE_STATUS_PIO_BUSY);
	if (hwemu_fault_take(e, HWE_REG_FAULT_STALL)) {
		e->stalled = true;	/* PIO_BUSY stays set, PIO_DONE_SEQ never moves */
		return;
	}

	err = pio_process(e, &len);
	hwemu_reg_write(e, HWE_REG_FIFO_IN_LEVEL, 0);		/* input consumed, even on error */
	if (err == HWE_ERR_TAG_MISMATCH) {
		/* a result, not a fault: the whole message was processed and is charged */
		hwemu_counter_add(e, HWE_REG_CNT_TAG_MISMATCHES, 1);
	} else if (err != HWE_ERR_NONE) {
		hwemu_record_error(e, "PIO", err, 0);
		len = 0;	/* charge only the setup time for a refused request */
	} else {
		hwemu_counter_add(e, HWE_REG_CNT_PIO_REQUESTS, 1);
		hwemu_counter_add(e, HWE_REG_CNT_PIO_BYTES, len);
	}
	hwemu_sleep_until(start + hwemu_cost_ns(&e->cfg.timing.pio, len));
	hwemu_counter_add(e, HWE_REG_CNT_PIO_BUSY_NS, hwemu_now_ns() - start);

	hwemu_reg_write(e, HWE_REG_PIO_RESULT, err);
	hwemu_reg_clear_bits(e, HWE_REG_STATUS, HWE_STATUS_PIO_BUSY);
	e->pio_done_seq = seq;
	hwemu_reg_write(e, HWE_REG_PIO_DONE_SEQ, seq);	/* release: results are visible first */
	hwemu_raise_interrupt(e, HWE_INT_PIO_DONE, HWE_MSIX_PIO, HWE_REG_CNT_PIO_IRQS);
}
