// SPDX-License-Identifier: Apache-2.0
/*
 * device_skcipher.c - ECB, CBC and CTR through the bundled engine's own device (device.c).
 *
 * A CTR tail shorter than a block goes as its padded block from the context (the engine moves
 * whole blocks by DMA), and what it gives back is copied out. The session chains CBC and CTR
 * from request to request in the engine; this file keeps the IV it computes (as AF_ALG's does)
 * and hands it to the session whenever the session's own may differ from the transport's
 * contract: first, after set_iv, a CTR request that ended mid-block, a failure or a fork.
 * Buffers not aligned to the engine's 16 bytes go through the session's aligned area, copied.
 */
#define _GNU_SOURCE /* explicit_bzero */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/device_session.h"

struct device_skcipher {
	struct hwoff_skcipher base;
	struct hwoff_device_session s;
	unsigned char tail[HWOFF_AES_BLOCK] __attribute__((aligned(HWOFF_AES_BLOCK)));
	unsigned char key[HWOFF_AES_KEY_MAX];
	size_t key_len;
	unsigned char iv[HWOFF_IV_MAX]; /* the IV the next request starts from */
	bool iv_to_session; /* the session's own IV may differ from iv: send it */
};

static struct device_skcipher *device_skcipher(const struct hwoff_skcipher *base)
{
	return (struct device_skcipher *)base; /* its first member */
}

/* A failure: what the session holds now is unknown. */
static int skcipher_fail(struct device_skcipher *c, int ret)
{
	c->iv_to_session = true;
	return ret;
}

/* After a fork, the child's own session, from the context's IV. */
static int skcipher_own_session(struct device_skcipher *c)
{
	int ret;

	if (!hwoff_device_forked(&c->s))
		return 0;
	ret = hwoff_device_open(&c->s, c->key, c->key_len, c->iv);
	if (ret)
		return skcipher_fail(c, ret);
	c->iv_to_session = false; /* the session starts from c->iv */
	return 0;
}

static void skcipher_free(struct device_skcipher *c)
{
	hwoff_device_close(&c->s);
	explicit_bzero(c, sizeof(*c));
	free(c);
}

static void skcipher_close(struct hwoff_skcipher *base)
{
	skcipher_free(device_skcipher(base));
}

static int skcipher_open(struct hwoff_skcipher **out, const struct hwoff_alg *alg,
			 const char *driver, const unsigned char *key, size_t key_len, char *err,
			 size_t err_len)
{
	struct device_skcipher *c = calloc(1, sizeof(*c));
	int ret;

	if (!c) {
		snprintf(err, err_len, "%s on %s: out of memory", alg->name, driver);
		return -ENOMEM;
	}
	c->base.ops = &hwoff_device_skcipher_ops;
	memcpy(c->key, key, key_len);
	c->key_len = key_len;
	ret = hwoff_device_init(&c->s, alg, driver)
		      ?: hwoff_device_open(&c->s, key, key_len, c->iv);
	if (ret) {
		snprintf(err, err_len, "%s", c->s.err);
		skcipher_free(c);
		return ret;
	}
	*out = &c->base;
	return 0;
}

/* The next request of a window: a piece of the whole blocks, then a CTR tail in its block. */
static bool next_request(struct device_skcipher *c, bool encrypt, const unsigned char *in,
			 unsigned char *out, size_t len, size_t *off, struct hwo_request *r)
{
	size_t whole = len & ~(size_t)(HWOFF_AES_BLOCK - 1), piece;

	if (*off >= len)
		return false;
	*r = (struct hwo_request){ .op = encrypt ? HWO_OP_ENCRYPT : HWO_OP_DECRYPT };
	if (*off < whole) {
		piece = whole - *off < c->s.piece ? whole - *off : c->s.piece;
		r->src = (uintptr_t)(in + *off);
		r->dst = (uintptr_t)(out + *off);
		r->len = (uint32_t)piece;
		*off += piece;
	} else {
		/* the engine moves whole blocks by DMA: the tail's keystream block, padded */
		memset(c->tail, 0, sizeof(c->tail));
		memcpy(c->tail, in + whole, len - whole);
		r->src = r->dst = (uintptr_t)c->tail;
		r->len = HWOFF_AES_BLOCK;
		*off = len;
	}
	return true;
}

/*
 * One window of an operation, in place or apart, in requests of the session's piece sent as
 * batches (hwoff_device_submit()): 0, or -errno with the reason.
 */
static int crypt_window(struct device_skcipher *c, bool encrypt, const unsigned char *in,
			unsigned char *out, size_t len)
{
	struct hwo_request reqs[HWOFF_DEVICE_BATCH];
	size_t off = 0;

	while (off < len) {
		uint32_t n = 0;
		int ret;

		while (n < c->s.max_batch && next_request(c, encrypt, in, out, len, &off, &reqs[n]))
			n++;
		if (c->iv_to_session) {
			reqs[0].flags = HWO_REQ_SET_IV;
			memcpy(reqs[0].iv, c->iv, sizeof(reqs[0].iv));
		}
		ret = hwoff_device_submit(&c->s, reqs, n);
		if (ret)
			return skcipher_fail(c, ret);
		c->iv_to_session = false;
	}
	if (len % HWOFF_AES_BLOCK) {
		size_t whole = len & ~(size_t)(HWOFF_AES_BLOCK - 1);

		memcpy(out + whole, c->tail, len - whole);
		explicit_bzero(c->tail, sizeof(c->tail));
	}
	return 0;
}

/* Unaligned buffers: through the session's aligned area, a window at a time. */
static int crypt_bounced(struct device_skcipher *c, bool encrypt, const unsigned char *in,
			 unsigned char *out, size_t len)
{
	int ret = hwoff_device_need_bounce(&c->s, len);

	for (size_t off = 0; !ret && off < len;) {
		size_t n = len - off < HWOFF_DEVICE_BOUNCE ? len - off : HWOFF_DEVICE_BOUNCE;

		memcpy(c->s.bounce, in + off, n);
		ret = crypt_window(c, encrypt, c->s.bounce, c->s.bounce, n);
		if (!ret)
			memcpy(out + off, c->s.bounce, n);
		off += n;
	}
	return ret;
}

static int skcipher_crypt(struct hwoff_skcipher *base, bool encrypt, const unsigned char *in,
			  unsigned char *out, size_t len)
{
	struct device_skcipher *c = device_skcipher(base);
	const struct hwoff_alg *alg = c->s.alg;
	unsigned char next_iv[HWOFF_IV_MAX];
	int ret;

	if (alg->mode != HWOFF_MODE_CTR && len % HWOFF_AES_BLOCK)
		return skcipher_fail(c, hwoff_device_fail(&c->s, EINVAL,
							  "a request of %zu bytes, not a "
							  "multiple of %d",
							  len, HWOFF_AES_BLOCK));
	if (!len)
		return 0;
	ret = skcipher_own_session(c);
	if (ret)
		return ret;
	memcpy(next_iv, c->iv, sizeof(next_iv));
	if (alg->mode == HWOFF_MODE_CBC && !encrypt) /* before out overwrites it */
		memcpy(next_iv, in + len - HWOFF_AES_BLOCK, HWOFF_AES_BLOCK);
	if (((uintptr_t)in | (uintptr_t)out) % HWOFF_AES_BLOCK)
		ret = crypt_bounced(c, encrypt, in, out, len);
	else
		ret = crypt_window(c, encrypt, in, out, len);
	if (ret)
		return ret;
	if (alg->mode == HWOFF_MODE_CBC && encrypt)
		memcpy(next_iv, out + len - HWOFF_AES_BLOCK, HWOFF_AES_BLOCK);
	else if (alg->mode == HWOFF_MODE_CTR)
		hwoff_ctr_add(next_iv, (len + HWOFF_AES_BLOCK - 1) / HWOFF_AES_BLOCK);
	memcpy(c->iv, next_iv, sizeof(c->iv));
	/* the session would run on mid-block; the contract starts the next counter */
	if (len % HWOFF_AES_BLOCK)
		c->iv_to_session = true;
	return 0;
}

static int skcipher_set_iv(struct hwoff_skcipher *base, const unsigned char *iv, size_t iv_len)
{
	struct device_skcipher *c = device_skcipher(base);

	if (iv_len != c->s.alg->iv_bytes)
		return skcipher_fail(c, hwoff_device_fail(&c->s, EINVAL,
							  "an IV of %zu bytes, the algorithm "
							  "takes %u",
							  iv_len, c->s.alg->iv_bytes));
	memcpy(c->iv, iv, iv_len);
	c->iv_to_session = true;
	return 0;
}

static size_t skcipher_chunk_bytes(const struct hwoff_skcipher *base)
{
	return (size_t)device_skcipher(base)->s.max_batch * device_skcipher(base)->s.piece;
}

static const char *skcipher_error(const struct hwoff_skcipher *base)
{
	return device_skcipher(base)->s.err;
}

const struct hwoff_skcipher_ops hwoff_device_skcipher_ops = {
	.open = skcipher_open,
	.close = skcipher_close,
	.crypt = skcipher_crypt,
	.set_iv = skcipher_set_iv,
	.chunk_bytes = skcipher_chunk_bytes,
	.error = skcipher_error,
};
