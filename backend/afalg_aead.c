// SPDX-License-Identifier: Apache-2.0
/*
 * afalg_aead.c - GCM messages to one kernel driver through AF_ALG (algif_aead): one request per
 * whole message, AAD || data (|| tag) in, AAD || data (|| tag) out.
 */
#define _GNU_SOURCE /* explicit_bzero */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <linux/if_alg.h>

#include "backend/afalg.h"

/* The kernel writes AAD || data || tag here: the largest message and its tag. */
#define LANDING_BYTES (HWOFF_AEAD_MESSAGE_MAX + HWOFF_GCM_TAG_MAX)

struct afalg_aead {
	struct hwoff_aead base;
	struct hwoff_afalg s;
	unsigned char key[HWOFF_AES_KEY_MAX];
	size_t key_len;
	size_t authsize; /* what the driver socket is set to; 0 before it is */
	unsigned char *landing;
	size_t landing_used; /* bytes written (wiped at free) */
};

static struct afalg_aead *afalg_aead(const struct hwoff_aead *base)
{
	return (struct afalg_aead *)base; /* its first member */
}

/* Wiped: the key, the IV, what the kernel wrote. */
static void free_aead(struct afalg_aead *a)
{
	hwoff_afalg_close(&a->s);
	hwoff_afalg_unmap_landing(a->landing, LANDING_BYTES, a->landing_used);
	explicit_bzero(a, sizeof(*a));
	free(a);
}

static void aead_close(struct hwoff_aead *base)
{
	free_aead(afalg_aead(base));
}

static int aead_open(struct hwoff_aead **out, const struct hwoff_alg *alg, const char *driver,
		     const unsigned char *key, size_t key_len, char *err, size_t err_len)
{
	struct afalg_aead *a = calloc(1, sizeof(*a));
	int ret;

	if (!a) {
		snprintf(err, err_len, "%s on %s: out of memory", alg->name, driver);
		return -ENOMEM;
	}
	a->base.ops = &hwoff_afalg_aead_ops;
	memcpy(a->key, key, key_len);
	a->key_len = key_len;
	ret = hwoff_afalg_bind(&a->s, alg, driver, key, key_len)
		      ?: hwoff_afalg_map_landing(&a->s, LANDING_BYTES, (void **)&a->landing);
	if (ret) {
		snprintf(err, err_len, "%s", a->s.error);
		free_aead(a);
		return ret;
	}
	*out = &a->base;
	return 0;
}

/*
 * An operation socket for tags of tag_len bytes: the tag length is the driver socket's, which
 * the kernel lets change only while no operation socket is open. In a forked child, sockets of
 * its own (the parent's stay as they are).
 */
static int own_sockets(struct afalg_aead *a, size_t tag_len)
{
	int ret;

	if (hwoff_afalg_forked(&a->s)) {
		ret = hwoff_afalg_rebind(&a->s, a->key, a->key_len);

		a->authsize = 0;
		if (ret)
			return ret;
	}
	if (a->s.op_fd >= 0 && a->authsize == tag_len)
		return 0;
	hwoff_afalg_drop_op(&a->s);
	if (a->authsize != tag_len) {
		ret = hwoff_afalg_setsockopt(&a->s, ALG_SET_AEAD_AUTHSIZE, NULL,
					     (socklen_t)tag_len);
		if (ret)
			return hwoff_afalg_fail(&a->s, -ret, "ALG_SET_AEAD_AUTHSIZE",
						" (a tag of %zu bytes)", tag_len);
		a->authsize = tag_len;
	}
	return hwoff_afalg_accept(&a->s, a->s.tfm_fd);
}

static int request(struct afalg_aead *a, bool encrypt, const unsigned char *iv,
		   const unsigned char *aad, size_t aad_len, const unsigned char *in, size_t len,
		   const unsigned char *tag, size_t tag_len)
{
	struct iovec iov[] = {
		{ .iov_base = (void *)aad, .iov_len = aad_len },
		{ .iov_base = (void *)in, .iov_len = len },
		{ .iov_base = (void *)tag, .iov_len = encrypt ? 0 : tag_len },
	};
	size_t sent = aad_len + len + iov[2].iov_len,
	       want = aad_len + len + (encrypt ? tag_len : 0);
	ssize_t ret = hwoff_afalg_send(&a->s, encrypt, iv, aad_len, iov, 3);

	if (ret < 0 || (size_t)ret < sent)
		return hwoff_afalg_fail(&a->s, ret < 0 ? (int)-ret : EAGAIN, "sendmsg",
					" (a message of %zu bytes of AAD and %zu of data)", aad_len,
					len);
	ret = hwoff_afalg_read(&a->s, a->landing, want);
	if (ret == -EBADMSG && !encrypt)
		return -EBADMSG;
	if (ret < 0 || (size_t)ret != want)
		return hwoff_afalg_fail(&a->s, ret < 0 ? (int)-ret : EIO, "recvmsg",
					" (%zd of %zu bytes: a message of %zu bytes of AAD and %zu "
					"of data; the driver failed it)",
					ret, want, aad_len, len);
	if (want > a->landing_used)
		a->landing_used = want;
	return 0;
}

static int aead_crypt(struct hwoff_aead *base, bool encrypt, const unsigned char *iv,
		      const unsigned char *aad, size_t aad_len, const unsigned char *in,
		      unsigned char *out, size_t len, unsigned char *tag, size_t tag_len)
{
	struct afalg_aead *a = afalg_aead(base);
	int ret;

	a->s.error[0] = '\0';
	if (aad_len > HWOFF_AEAD_MESSAGE_MAX || len > HWOFF_AEAD_MESSAGE_MAX - aad_len)
		return hwoff_afalg_fail(&a->s, EMSGSIZE, a->s.alg->name,
					": %zu bytes of AAD and %zu of data, more than one "
					"request takes (%u)",
					aad_len, len, HWOFF_AEAD_MESSAGE_MAX);
	if (!hwoff_aead_tag_len_valid(tag_len))
		return hwoff_afalg_fail(&a->s, EINVAL, a->s.alg->name,
					": a tag of %zu bytes; the kernel's GCM takes 4, 8 or 12 "
					"to 16",
					tag_len);
	if (!encrypt && !aad_len && !len)
		return hwoff_afalg_fail(&a->s, EOPNOTSUPP, a->s.alg->name,
					": a decrypt of an empty message (AF_ALG runs no request "
					"for an empty output, so the tag would go unchecked)");
	ret = own_sockets(a, tag_len);
	if (!ret)
		ret = request(a, encrypt, iv, aad, aad_len, in, len, tag, tag_len);
	if (ret == -EBADMSG)
		return ret;
	if (ret) {
		/* What the socket holds now is unknown: start the next one afresh. */
		hwoff_afalg_drop_op(&a->s);
		return ret;
	}
	if (len) /* out may be NULL for a message of AAD only */
		memcpy(out, a->landing + aad_len, len);
	if (encrypt)
		memcpy(tag, a->landing + aad_len + len, tag_len);
	return 0;
}

static const char *aead_error(const struct hwoff_aead *base)
{
	return afalg_aead(base)->s.error;
}

const struct hwoff_aead_ops hwoff_afalg_aead_ops = {
	.open = aead_open,
	.close = aead_close,
	.crypt = aead_crypt,
	.error = aead_error,
};
