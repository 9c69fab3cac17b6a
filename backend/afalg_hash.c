// SPDX-License-Identifier: Apache-2.0
/*
 * afalg_hash.c - digests on one kernel driver through AF_ALG (algif_hash).
 *
 * The partial state lives in the operation socket: each update is a send with MSG_MORE, the
 * final a read. accept() on that socket gives a second one with a copy of the state (the
 * kernel exports and imports it), which is the only way to copy it: there is no sockopt.
 */
#define _GNU_SOURCE /* explicit_bzero */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "backend/afalg.h"

struct afalg_hash {
	struct hwoff_hash base;
	struct hwoff_afalg s;
	bool started; /* data went to the socket since the last final: it holds a partial state */
	bool lost; /* a failure lost data or state: only hwoff_hash_reset() helps */
	bool orphaned; /* lost with the socket the process closed after a fork: no kernel failure */
	unsigned char *key; /* an HMAC row's, for a driver socket bound anew after a fork */
	size_t key_len;
};

static struct afalg_hash *afalg_hash(const struct hwoff_hash *base)
{
	return (struct afalg_hash *)base; /* its first member */
}

static struct afalg_hash *hash_alloc(const struct hwoff_alg *alg, const char *driver, char *err,
				     size_t err_len)
{
	struct afalg_hash *h = calloc(1, sizeof(*h));

	if (!h) {
		snprintf(err, err_len, "%s on %s: out of memory", alg->name, driver);
		return NULL;
	}
	h->base.ops = &hwoff_afalg_hash_ops;
	h->s.tfm_fd = h->s.op_fd = -1;
	return h;
}

static void hash_close(struct hwoff_hash *base)
{
	struct afalg_hash *h = afalg_hash(base);

	hwoff_afalg_close(&h->s);
	if (h->key)
		explicit_bzero(h->key, h->key_len);
	free(h->key);
	free(h);
}

/* The key kept: "" for an empty one, which the kernel must still be given (else ENOKEY). */
static int keep_key(struct afalg_hash *h, const unsigned char *key, size_t key_len)
{
	h->key = malloc(key_len ? key_len : 1);
	if (!h->key)
		return hwoff_afalg_fail(&h->s, ENOMEM, h->s.alg->name, ": a copy of its key");
	memcpy(h->key, key_len ? key : (const unsigned char *)"", key_len);
	h->key_len = key_len;
	return 0;
}

static int hash_open(struct hwoff_hash **out, const struct hwoff_alg *alg, const char *driver,
		     const unsigned char *key, size_t key_len, char *err, size_t err_len)
{
	struct afalg_hash *h = hash_alloc(alg, driver, err, err_len);
	int ret = 0;

	if (!h)
		return -ENOMEM;
	h->s.alg = alg;
	if (hwoff_alg_is_hmac(alg))
		ret = keep_key(h, key, key_len);
	if (!ret)
		ret = hwoff_afalg_bind(&h->s, alg, driver, h->key, h->key_len);
	if (!ret)
		ret = hwoff_afalg_accept(&h->s, h->s.tfm_fd);
	if (ret < 0) {
		snprintf(err, err_len, "%s", h->s.error);
		hash_close(&h->base);
		return ret;
	}
	*out = &h->base;
	return 0;
}

/*
 * An operation socket of this process's own. In a forked child the inherited one is the
 * parent's too: take a copy of its state and let go of it. After a failure or a reset: a fresh
 * one (on a driver socket of this process's own, if the inherited one is gone).
 */
static int own_sockets(struct afalg_hash *h)
{
	int ret;

	if (h->lost)
		return hwoff_afalg_fail(&h->s, EIO, h->s.alg->name,
					": an earlier failure lost part of this digest's input; "
					"reset the context");
	if (hwoff_afalg_adopt(&h->s)) {
		if (h->started) {
			h->orphaned = h->s.op_fd < 0;
			if (h->orphaned)
				ret = hwoff_afalg_fail(&h->s, EBADF, h->s.alg->name,
						       ": the socket holding this digest's state "
						       "was closed after the fork");
			else
				ret = hwoff_afalg_accept(&h->s, h->s.op_fd);
			h->lost = ret < 0;
			return ret;
		}
		hwoff_afalg_drop_op(&h->s); /* this process's copy of the parent's */
	}
	if (h->s.op_fd >= 0)
		return 0;
	ret = h->s.tfm_fd < 0 ? hwoff_afalg_rebind(&h->s, h->key, h->key_len) : 0;
	return ret ?: hwoff_afalg_accept(&h->s, h->s.tfm_fd);
}

/* The socket's state is unknown after a failure: drop it, and the digest with it. */
static int request_failed(struct afalg_hash *h, int error, const char *what, size_t len)
{
	hwoff_afalg_drop_op(&h->s);
	h->started = false;
	h->lost = true;
	if (error == EBADMSG || error == EINVAL)
		return hwoff_afalg_fail(&h->s, error, what,
					" (%zu bytes of %s: the driver refused the request)", len,
					h->s.alg->name);
	return hwoff_afalg_fail(&h->s, error, what, " (%zu bytes of %s: the driver failed it)", len,
				h->s.alg->name);
}

static int hash_update(struct hwoff_hash *base, const void *data, size_t len)
{
	struct afalg_hash *h = afalg_hash(base);
	const unsigned char *p = data;
	ssize_t ret;

	if (!len)
		return 0;
	ret = own_sockets(h);
	if (ret)
		return (int)ret;
	/*
	 * The kernel hashes the sent pages in place, 16 at a time, however large the update, and
	 * stops only on an error. Since Linux 6.5 it then says how much it took before the failed
	 * piece, not the error; the failed request may have moved the state, so a short send is a
	 * failure too, never a cue to send the rest (that gave wrong digests under faults).
	 */
	ret = hwoff_afalg_write(&h->s, p, len, MSG_MORE);
	if (ret < 0 || (size_t)ret != len)
		return request_failed(h, ret < 0 ? (int)-ret : EIO, "send", len);
	h->started = true;
	return 0;
}

static int check_digest_buffer(struct afalg_hash *h, size_t md_len)
{
	size_t digest_len = h->s.alg->digest_bytes;

	if (md_len >= digest_len)
		return 0;
	return hwoff_afalg_fail(&h->s, EINVAL, h->s.alg->name,
				": a digest buffer of %zu bytes, the digest has %zu", md_len,
				digest_len);
}

static int hash_final(struct hwoff_hash *base, unsigned char *md, size_t md_len)
{
	struct afalg_hash *h = afalg_hash(base);
	size_t digest_len = h->s.alg->digest_bytes;
	ssize_t ret = check_digest_buffer(h, md_len);

	if (ret)
		return (int)ret;
	ret = own_sockets(h);
	if (ret)
		return (int)ret;
	/* Without data sent, the kernel hashes the empty message. */
	ret = hwoff_afalg_read(&h->s, md, digest_len);
	if (ret < 0 || (size_t)ret != digest_len)
		return request_failed(h, ret < 0 ? (int)-ret : EIO, "recvmsg", digest_len);
	h->started = false;
	return 0;
}

/*
 * The last bytes go without MSG_MORE: since Linux 6.5 algif_hash makes them one digest (or finup)
 * request of the driver, where an update and a final are two, each a round trip to an engine.
 * Older kernels do the update and the final in the send; the read takes the digest either way.
 */
static int hash_finup(struct hwoff_hash *base, const void *data, size_t len, unsigned char *md,
		      size_t md_len)
{
	struct afalg_hash *h = afalg_hash(base);
	ssize_t ret = check_digest_buffer(h, md_len);

	if (ret)
		return (int)ret;
	if (!len)
		return hash_update(base, data, len) ?: hash_final(base, md, md_len);
	ret = own_sockets(h);
	if (ret)
		return (int)ret;
	ret = hwoff_afalg_write(&h->s, data, len, 0);
	if (ret < 0 || (size_t)ret != len)
		return request_failed(h, ret < 0 ? (int)-ret : EIO, "send", len);
	h->started = true;
	return hash_final(base, md, md_len);
}

static int hash_reset(struct hwoff_hash *base)
{
	struct afalg_hash *h = afalg_hash(base);

	if (!h->started && !h->lost && !hwoff_afalg_forked(&h->s))
		return 0;
	/* A new operation socket on first use; the driver socket may be the parent's: no state. */
	hwoff_afalg_drop_op(&h->s);
	h->started = false;
	h->lost = false;
	h->orphaned = false;
	return 0;
}

static int hash_dup(struct hwoff_hash **out, struct hwoff_hash *base, char *err, size_t err_len)
{
	struct afalg_hash *h = afalg_hash(base), *d;
	int ret = own_sockets(h);

	if (ret) {
		snprintf(err, err_len, "%s", h->s.error);
		return ret;
	}
	d = hash_alloc(h->s.alg, h->s.driver, err, err_len);
	if (!d)
		return -ENOMEM;
	d->s = h->s;
	d->s.error[0] = '\0';
	d->s.op_fd = -1;
	d->s.tfm_fd = -1;
	if (h->key && keep_key(d, h->key, h->key_len)) {
		snprintf(err, err_len, "%s", d->s.error);
		hash_close(&d->base);
		return -ENOMEM;
	}
	/*
	 * Its own descriptor of the same driver socket, for its own later resets; none where h lost
	 * its own after a fork (a started h only: d binds anew on its reset).
	 */
	d->s.tfm_fd = h->s.tfm_fd < 0 ? -1 : fcntl(h->s.tfm_fd, F_DUPFD_CLOEXEC, 0);
	if (h->s.tfm_fd >= 0 && d->s.tfm_fd < 0)
		ret = hwoff_afalg_fail(&d->s, errno, "dup of the AF_ALG socket", NULL);
	else
		ret = hwoff_afalg_accept(&d->s, h->started ? h->s.op_fd : h->s.tfm_fd);
	if (ret < 0) {
		snprintf(err, err_len, "%s", d->s.error);
		hash_close(&d->base);
		return ret;
	}
	d->started = h->started;
	*out = &d->base;
	return 0;
}

static bool hash_orphaned(const struct hwoff_hash *base)
{
	return afalg_hash(base)->orphaned;
}

static const char *hash_error(const struct hwoff_hash *base)
{
	return afalg_hash(base)->s.error;
}

const struct hwoff_hash_ops hwoff_afalg_hash_ops = {
	.open = hash_open,
	.dup = hash_dup,
	.close = hash_close,
	.update = hash_update,
	.final = hash_final,
	.finup = hash_finup,
	.reset = hash_reset,
	.error = hash_error,
	.orphaned = hash_orphaned,
};
