// SPDX-License-Identifier: Apache-2.0
/*
 * device_hash.c - MD5, SHA-1 and SHA-2 through the bundled engine's own device (device.c).
 *
 * The session holds no partial block (kernel/DEVICE.md, "Hashes"): whole blocks go as UPDATEs,
 * the bytes short of a block wait in the context's tail, and the FINAL takes the tail. The last
 * UPDATE of every batch hands the message's state out into the context, so the context alone
 * (state and tail) is the message: a forked child's session, or a copy's, starts from it by
 * SET_STATE, as AF_ALG's clones the kernel's by accept(). Sources the engine cannot take where
 * they are (DMA wants them on a block) go through the session's aligned area, copied; aligned
 * ones are hashed in place. hwoff_hash_finup() sends its UPDATEs and the FINAL in one batch.
 */
#define _GNU_SOURCE /* explicit_bzero */
#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>

#include "backend/device_session.h"

#define HASH_BLOCK_MAX 128

struct device_hash {
	struct hwoff_hash base;
	struct hwoff_device_session s;
	/* the message's bytes not sent yet (less than a block), and a FINAL's */
	unsigned char tail[HASH_BLOCK_MAX] __attribute__((aligned(HASH_BLOCK_MAX)));
	unsigned char last[HASH_BLOCK_MAX] __attribute__((aligned(HASH_BLOCK_MAX)));
	size_t tail_len;
	struct hwo_hash_state state; /* after the UPDATEs sent: what the session holds */
	bool state_to_session; /* the session's own state may differ from state: send it */
	bool lost; /* a failure lost part of the message: only hwoff_hash_reset() helps */
	/* the batch being built, and whether a request of it reads the session's aligned area */
	struct hwo_request reqs[HWOFF_DEVICE_BATCH];
	uint32_t n;
	bool bounce_pending;
};

static struct device_hash *to_device_hash(const struct hwoff_hash *base)
{
	return (struct device_hash *)base; /* its first member */
}

/* Whether blocks of the message went to the engine: a new session needs its state then. */
static bool message_sent(const struct device_hash *h)
{
	return h->state.len_lo || h->state.len_hi;
}

static int device_hash_failed(struct device_hash *h, int ret)
{
	h->lost = true;
	h->n = 0;
	return ret;
}

/* The session's state from the context's: after a fork, a copy, a failure or a reset. */
static int device_hash_state_to_session(struct device_hash *h)
{
	struct hwo_state st = {
		.size = sizeof(st),
		.alg = h->s.hwo_alg,
		.version = HWO_VERSION,
		.hash = h->state,
	};

	if (!h->state_to_session)
		return 0;
	if (ioctl(h->s.fd, HWO_IOC_SET_STATE, &st))
		return hwoff_device_fail(&h->s, errno, "setting the message's state: %s",
					 strerror(errno));
	h->state_to_session = false;
	return 0;
}

/* A session of this process's own, holding the context's state. */
static int device_hash_own_session(struct device_hash *h)
{
	int ret;

	if (h->lost)
		return hwoff_device_fail(&h->s, EIO,
					 "an earlier failure lost part of this digest's input; "
					 "reset the context");
	if (hwoff_device_forked(&h->s)) {
		ret = hwoff_device_open(&h->s, NULL, 0, NULL);
		if (ret)
			return device_hash_failed(h, ret);
		h->state_to_session = message_sent(h);
	}
	ret = device_hash_state_to_session(h);
	return ret ? device_hash_failed(h, ret) : 0;
}

/* The batch built so far, sent; its last UPDATE hands the state out into the context. */
static int device_hash_flush(struct device_hash *h)
{
	uint32_t n = h->n;
	int ret;

	if (!n)
		return 0;
	if (h->reqs[n - 1].op == HWO_OP_UPDATE)
		h->reqs[n - 1].dst = (uintptr_t)&h->state;
	h->n = 0;
	h->bounce_pending = false;
	ret = hwoff_device_submit(&h->s, h->reqs, n);
	return ret ? device_hash_failed(h, ret) : 0;
}

static int device_hash_push(struct device_hash *h, uint32_t op, const void *src, size_t len,
			    void *dst)
{
	if (h->n == h->s.max_batch) {
		int ret = device_hash_flush(h);

		if (ret)
			return ret;
	}
	h->reqs[h->n++] = (struct hwo_request){
		.op = op,
		.src = (uintptr_t)src,
		.dst = (uintptr_t)dst,
		.len = (uint32_t)len,
	};
	return 0;
}

/*
 * UPDATEs of whole blocks from src: where it is, or through the session's aligned area when a
 * DMA request could not take it (PIO's the kernel copies wherever it is).
 */
static int device_hash_push_blocks(struct device_hash *h, const unsigned char *src, size_t len)
{
	bool bounced = h->s.path != HWO_PATH_PIO && (uintptr_t)src % h->s.alg->block_bytes;
	int ret = bounced ? hwoff_device_need_bounce(&h->s, len) : 0;

	for (size_t off = 0; !ret && off < len;) {
		size_t window = bounced && len - off > HWOFF_DEVICE_BOUNCE ? HWOFF_DEVICE_BOUNCE
									   : len - off;
		const unsigned char *from = src + off;

		if (bounced) {
			/* the area is a pending request's source: that batch goes first */
			ret = h->bounce_pending ? device_hash_flush(h) : 0;
			if (ret)
				break;
			memcpy(h->s.bounce, from, window);
			from = h->s.bounce;
			h->bounce_pending = true;
		}
		for (size_t at = 0; !ret && at < window; at += h->s.piece)
			ret = device_hash_push(h, HWO_OP_UPDATE, from + at,
					       window - at < h->s.piece ? window - at : h->s.piece,
					       NULL);
		off += window;
	}
	return ret;
}

/*
 * The message goes on with len bytes of data; with md, it ends there (the FINAL, its digest
 * into md). Everything is sent in as few batches as the sizes allow.
 */
static int device_hash_feed(struct device_hash *h, const unsigned char *data, size_t len,
			    unsigned char *md)
{
	size_t block = h->s.alg->block_bytes, whole, fill;
	int ret = device_hash_own_session(h);

	if (ret)
		return ret;
	/* a tail first, to a whole block when more follows; a short message wholly */
	fill = block - h->tail_len < len ? block - h->tail_len : len;
	if (!h->tail_len && len >= block)
		fill = 0; /* whole blocks from data itself */
	if (fill) {
		memcpy(h->tail + h->tail_len, data, fill);
		h->tail_len += fill;
		data += fill;
		len -= fill;
	}
	if (h->tail_len == block && (len || !md)) {
		ret = device_hash_push(h, HWO_OP_UPDATE, h->tail, block, NULL);
		h->tail_len = 0;
	}
	whole = len / block * block;
	if (!ret && whole)
		ret = device_hash_push_blocks(h, data, whole);
	if (!ret && md) {
		if (len > whole)
			memcpy(h->last, data + whole, len - whole);
		else
			memcpy(h->last, h->tail, h->tail_len);
		ret = device_hash_push(h, HWO_OP_FINAL, h->last,
				       len > whole ? len - whole : h->tail_len, md);
	}
	ret = ret ?: device_hash_flush(h);
	if (ret)
		return ret;
	if (md) {
		explicit_bzero(h->tail, sizeof(h->tail));
		explicit_bzero(h->last, sizeof(h->last));
		h->tail_len = 0;
		h->state = (struct hwo_hash_state){ 0 };
	} else if (len > whole) {
		/* after the flush: the tail may have been a request's source */
		memcpy(h->tail, data + whole, len - whole);
		h->tail_len = len - whole;
	}
	return 0;
}

static int device_hash_update(struct hwoff_hash *base, const void *data, size_t len)
{
	return len ? device_hash_feed(to_device_hash(base), data, len, NULL) : 0;
}

static int device_hash_check_digest_buffer(struct device_hash *h, size_t md_len)
{
	if (md_len >= h->s.alg->digest_bytes)
		return 0;
	return hwoff_device_fail(&h->s, EINVAL, "a digest buffer of %zu bytes, the digest has %u",
				 md_len, h->s.alg->digest_bytes);
}

static int device_hash_finup(struct hwoff_hash *base, const void *data, size_t len,
			     unsigned char *md, size_t md_len)
{
	struct device_hash *h = to_device_hash(base);

	return device_hash_check_digest_buffer(h, md_len) ?: device_hash_feed(h, data, len, md);
}

static int device_hash_final(struct hwoff_hash *base, unsigned char *md, size_t md_len)
{
	return device_hash_finup(base, NULL, 0, md, md_len);
}

static int device_hash_reset(struct hwoff_hash *base)
{
	struct device_hash *h = to_device_hash(base);

	if (!h->tail_len && !h->lost && !message_sent(h))
		return 0;
	explicit_bzero(h->tail, sizeof(h->tail));
	h->tail_len = 0;
	h->state = (struct hwo_hash_state){ 0 };
	h->state_to_session = true;
	h->lost = false;
	return 0;
}

static void device_hash_free(struct device_hash *h)
{
	hwoff_device_close(&h->s);
	explicit_bzero(h, sizeof(*h));
	free(h);
}

static void device_hash_close(struct hwoff_hash *base)
{
	device_hash_free(to_device_hash(base));
}

/* A context with a session of its own, for a new message: 0, or -errno with err filled. */
static int device_hash_alloc(struct device_hash **out, const struct hwoff_alg *alg,
			     const char *driver, char *err, size_t err_len)
{
	/* the tail and a FINAL's bytes are DMA sources: on a block, as the whole context */
	struct device_hash *h = aligned_alloc(HASH_BLOCK_MAX, sizeof(*h));
	int ret;

	if (h)
		memset(h, 0, sizeof(*h));
	if (!h) {
		snprintf(err, err_len, "%s on %s: out of memory", alg->name, driver);
		return -ENOMEM;
	}
	h->base.ops = &hwoff_device_hash_ops;
	ret = hwoff_device_init(&h->s, alg, driver) ?: hwoff_device_open(&h->s, NULL, 0, NULL);
	if (ret) {
		snprintf(err, err_len, "%s", h->s.err);
		device_hash_free(h);
		return ret;
	}
	*out = h;
	return 0;
}

static int device_hash_open(struct hwoff_hash **out, const struct hwoff_alg *alg,
			    const char *driver, const unsigned char *key, size_t key_len, char *err,
			    size_t err_len)
{
	struct device_hash *h;
	int ret;

	(void)key;
	(void)key_len; /* the device's hashes are the plain ones: no key */
	ret = device_hash_alloc(&h, alg, driver, err, err_len);
	if (!ret)
		*out = &h->base;
	return ret;
}

/* A copy of the message: a session of its own, started from the context's state by SET_STATE. */
static int device_hash_dup(struct hwoff_hash **out, struct hwoff_hash *base, char *err,
			   size_t err_len)
{
	struct device_hash *h = to_device_hash(base), *d;
	int ret;

	if (h->lost) {
		snprintf(err, err_len,
			 "%s on %s: an earlier failure lost part of this digest's input",
			 h->s.alg->name, h->s.driver);
		return -EIO;
	}
	ret = device_hash_alloc(&d, h->s.alg, h->s.driver, err, err_len);
	if (ret)
		return ret;
	memcpy(d->tail, h->tail, h->tail_len);
	d->tail_len = h->tail_len;
	d->state = h->state;
	d->state_to_session = message_sent(d);
	*out = &d->base;
	return 0;
}

static const char *device_hash_error(const struct hwoff_hash *base)
{
	return to_device_hash(base)->s.err;
}

/* The message is the context's, never a descriptor's: a fork cannot orphan it. */
static bool device_hash_orphaned(const struct hwoff_hash *base)
{
	(void)base;
	return false;
}

const struct hwoff_hash_ops hwoff_device_hash_ops = {
	.open = device_hash_open,
	.dup = device_hash_dup,
	.close = device_hash_close,
	.update = device_hash_update,
	.final = device_hash_final,
	.finup = device_hash_finup,
	.reset = device_hash_reset,
	.error = device_hash_error,
	.orphaned = device_hash_orphaned,
};
