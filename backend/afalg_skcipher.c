// SPDX-License-Identifier: Apache-2.0
/*
 * afalg_skcipher.c - ECB, CBC and CTR requests to one kernel driver through AF_ALG
 * (algif_skcipher).
 */
#define _GNU_SOURCE /* explicit_bzero */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include <linux/if_alg.h>

#include "backend/afalg.h"
#include "backend/guard.h"
#include "backend/probe.h"

/*
 * Before 6.6 (the first LTS since AF_ALG takes user pages with iov_iter_extract_pages(), which
 * pins them) recvmsg() holds the caller's output pages by reference only. A fork() while a
 * request runs write-protects them; a write by another thread of the caller to one of those
 * pages, beside the output, then gives the caller a copy, and the kernel writes the old page:
 * the output is lost (test/guest/provider_fork shows it on 6.1). On those kernels the kernel
 * writes into a landing area that fork() never shares (MADV_WIPEONFORK), copied out after.
 */
#define OUTPUT_PINNED_MAJOR 6
#define OUTPUT_PINNED_MINOR 6

struct afalg_skcipher {
	struct hwoff_skcipher base;
	struct hwoff_afalg s;
	unsigned char key[HWOFF_AES_KEY_MAX];
	size_t key_len;
	unsigned char iv[HWOFF_IV_MAX]; /* the IV the next request starts from */
	bool iv_in_kernel; /* the operation socket holds iv already: send none */
	size_t chunk; /* bytes per round trip */
	unsigned char *landing; /* where the kernel writes, before 6.6; NULL until needed */
	size_t landing_len, landing_used; /* mapped; written (wiped at free) */
};

static struct afalg_skcipher *afalg_skcipher(const struct hwoff_skcipher *base)
{
	return (struct afalg_skcipher *)base; /* its first member */
}

/*
 * One sendmsg() takes what fits the socket's send buffer (SO_SNDBUF, whole pages); more would
 * wait for a reader that is this very thread. Another vendor's engine gets at most
 * HWOFF_GUARD_REQUEST_MAX in one request (guard.h says why).
 */
static int read_chunk(struct afalg_skcipher *c)
{
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	socklen_t len = sizeof(int);
	int sndbuf;

	if (getsockopt(c->s.op_fd, SOL_SOCKET, SO_SNDBUF, &sndbuf, &len))
		return hwoff_afalg_fail(&c->s, errno, "getsockopt(SO_SNDBUF)", NULL);
	c->chunk = (size_t)sndbuf / page * page;
	if (c->chunk < page)
		c->chunk = page;
	if (c->s.guard && c->chunk > HWOFF_GUARD_REQUEST_MAX)
		c->chunk = HWOFF_GUARD_REQUEST_MAX;
	return 0;
}

/* On a driver socket just bound and keyed: the operation socket and the request size. */
static int open_op(struct afalg_skcipher *c)
{
	return hwoff_afalg_accept(&c->s, c->s.tfm_fd) ?: read_chunk(c);
}

/* Wiped: the key, the IV, what the kernel wrote. */
static void free_skcipher(struct afalg_skcipher *c)
{
	hwoff_afalg_close(&c->s);
	hwoff_afalg_unmap_landing(c->landing, c->landing_len, c->landing_used);
	explicit_bzero(c, sizeof(*c));
	free(c);
}

static void skcipher_close(struct hwoff_skcipher *base)
{
	free_skcipher(afalg_skcipher(base));
}

static int skcipher_open(struct hwoff_skcipher **out, const struct hwoff_alg *alg,
			 const char *driver, const unsigned char *key, size_t key_len, char *err,
			 size_t err_len)
{
	struct afalg_skcipher *c = calloc(1, sizeof(*c));
	int ret;

	if (!c) {
		snprintf(err, err_len, "%s on %s: out of memory", alg->name, driver);
		return -ENOMEM;
	}
	c->base.ops = &hwoff_afalg_skcipher_ops;
	memcpy(c->key, key, key_len);
	c->key_len = key_len;
	ret = hwoff_afalg_bind(&c->s, alg, driver, key, key_len) ?: open_op(c);
	if (ret) {
		snprintf(err, err_len, "%s", c->s.error);
		free_skcipher(c);
		return ret;
	}
	*out = &c->base;
	return 0;
}

/*
 * In a forked child: sockets of its own, keyed again (the parent's stay as they are). After a
 * failure: a fresh operation socket.
 */
static int own_sockets(struct afalg_skcipher *c)
{
	if (hwoff_afalg_forked(&c->s)) {
		c->iv_in_kernel = false;
		return hwoff_afalg_rebind(&c->s, c->key, c->key_len) ?: open_op(c);
	}
	if (c->s.op_fd >= 0)
		return 0;
	c->iv_in_kernel = false;
	return hwoff_afalg_accept(&c->s, c->s.tfm_fd);
}

/* ALG_SET_OP always (the direction), ALG_SET_IV when the socket does not hold the IV yet. */
static ssize_t send_request(struct afalg_skcipher *c, bool encrypt, const unsigned char *in,
			    size_t len)
{
	struct iovec iov = { .iov_base = (void *)in, .iov_len = len };

	return hwoff_afalg_send(&c->s, encrypt, c->iv_in_kernel ? NULL : c->iv, 0, &iov, 1);
}

static int request_failed(struct afalg_skcipher *c, int error, const char *what, size_t len)
{
	switch (error) {
	case EINVAL:
		return hwoff_afalg_fail(&c->s, error, what,
					" (%zu bytes of %s, IV of %u bytes: the driver refused the "
					"size or the IV)",
					len, c->s.alg->name, c->s.alg->iv_bytes);
	case EBADMSG:
		return hwoff_afalg_fail(&c->s, error, what,
					" (the driver rejected the data of a %zu-byte request)",
					len);
	case EAGAIN:
		return hwoff_afalg_fail(&c->s, error, what,
					" (the socket did not take %zu bytes: SO_SNDBUF changed?)",
					len);
	}
	return hwoff_afalg_fail(&c->s, error, what,
				" (a request of %zu bytes; the driver failed it)", len);
}

static bool output_by_reference(void)
{
	static _Atomic int answer; /* 0 unknown, 1 by reference, 2 pinned */

	if (!answer)
		answer = hwoff_kernel_at_least(OUTPUT_PINNED_MAJOR, OUTPUT_PINNED_MINOR) ? 2 : 1;
	return answer == 1;
}

/* A landing area of c->chunk bytes where the kernel takes the output by reference. */
static int landing_ready(struct afalg_skcipher *c)
{
	void *area;
	int ret;

	if ((c->landing && c->landing_len >= c->chunk) || !output_by_reference())
		return 0;
	ret = hwoff_afalg_map_landing(&c->s, c->chunk, &area);
	if (ret)
		return ret;
	hwoff_afalg_unmap_landing(c->landing, c->landing_len, c->landing_used);
	c->landing = area;
	c->landing_len = c->chunk;
	c->landing_used = 0;
	return 0;
}

/* One round trip: len bytes (at most c->chunk) sent, processed and read back. */
static int crypt_chunk(struct afalg_skcipher *c, bool encrypt, const unsigned char *in,
		       unsigned char *out, size_t len)
{
	size_t done = 0;
	ssize_t ret;

	ret = send_request(c, encrypt, in, len);
	if (ret < 0)
		return request_failed(c, (int)-ret, "sendmsg", len);
	if ((size_t)ret < len)
		return request_failed(c, EAGAIN, "sendmsg", len);
	/* From here the socket holds the IV, chained by the driver. */
	c->iv_in_kernel = true;
	while (done < len) {
		ret = hwoff_afalg_read(&c->s, (c->landing ? c->landing : out) + done, len - done);
		if (ret <= 0)
			return request_failed(c, ret ? (int)-ret : EIO, "recvmsg", len);
		done += (size_t)ret;
	}
	if (c->landing) {
		memcpy(out, c->landing, len);
		if (len > c->landing_used)
			c->landing_used = len;
	}
	return 0;
}

static int skcipher_crypt(struct hwoff_skcipher *base, bool encrypt, const unsigned char *in,
			  unsigned char *out, size_t len)
{
	struct afalg_skcipher *c = afalg_skcipher(base);
	const struct hwoff_alg *alg = c->s.alg;
	unsigned char next_iv[HWOFF_IV_MAX];
	size_t off;
	int ret;

	if (alg->mode != HWOFF_MODE_CTR && len % HWOFF_AES_BLOCK)
		return hwoff_afalg_fail(&c->s, EINVAL, alg->name,
					": a request of %zu bytes, not a multiple of the block "
					"size %d",
					len, HWOFF_AES_BLOCK);
	if (!len)
		return 0;
	ret = own_sockets(c);
	if (!ret)
		ret = landing_ready(c);
	if (ret)
		return ret;

	memcpy(next_iv, c->iv, sizeof(next_iv));
	if (alg->mode == HWOFF_MODE_CBC && !encrypt) /* before out overwrites it */
		memcpy(next_iv, in + len - HWOFF_AES_BLOCK, HWOFF_AES_BLOCK);
	for (off = 0; off < len;) {
		size_t n = len - off < c->chunk ? len - off : c->chunk;

		ret = crypt_chunk(c, encrypt, in + off, out + off, n);
		if (ret) {
			/* What the socket holds now is unknown: start the next one afresh. */
			hwoff_afalg_drop_op(&c->s);
			c->iv_in_kernel = false;
			return ret;
		}
		off += n;
	}
	if (alg->mode == HWOFF_MODE_CBC && encrypt)
		memcpy(next_iv, out + len - HWOFF_AES_BLOCK, HWOFF_AES_BLOCK);
	else if (alg->mode == HWOFF_MODE_CTR)
		hwoff_ctr_add(next_iv, (len + HWOFF_AES_BLOCK - 1) / HWOFF_AES_BLOCK);
	memcpy(c->iv, next_iv, sizeof(c->iv));
	return 0;
}

static int skcipher_set_iv(struct hwoff_skcipher *base, const unsigned char *iv, size_t iv_len)
{
	struct afalg_skcipher *c = afalg_skcipher(base);

	if (iv_len != c->s.alg->iv_bytes)
		return hwoff_afalg_fail(&c->s, EINVAL, c->s.alg->name,
					": an IV of %zu bytes, the algorithm takes %u", iv_len,
					c->s.alg->iv_bytes);
	memcpy(c->iv, iv, iv_len);
	c->iv_in_kernel = false;
	return 0;
}

static size_t skcipher_chunk_bytes(const struct hwoff_skcipher *base)
{
	return afalg_skcipher(base)->chunk;
}

static const char *skcipher_error(const struct hwoff_skcipher *base)
{
	return afalg_skcipher(base)->s.error;
}

const struct hwoff_skcipher_ops hwoff_afalg_skcipher_ops = {
	.open = skcipher_open,
	.close = skcipher_close,
	.crypt = skcipher_crypt,
	.set_iv = skcipher_set_iv,
	.chunk_bytes = skcipher_chunk_bytes,
	.error = skcipher_error,
};
