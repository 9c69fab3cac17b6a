// SPDX-License-Identifier: Apache-2.0
/*
 * afalg.c - the AF_ALG transport: its operations for transport.h, and the socket layer under
 * afalg_skcipher.c, afalg_hash.c and afalg_aead.c: bind, key, accept, the landing area, and the
 * words for the kernel's errors. Another vendor's engine is reached through its guard (guard.h).
 */
#define _GNU_SOURCE /* accept4, explicit_bzero */
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include <linux/if_alg.h>

#include "backend/afalg.h"
#include "backend/guard.h"
#include "backend/probe.h"
#include "backend/text.h"

#define OPTMEM_MAX "/proc/sys/net/core/optmem_max"

/* The kernel's own interface: it reaches every driver /proc/crypto lists, so it is the last. */
const struct hwoff_transport hwoff_transport_afalg = {
	.skcipher = &hwoff_afalg_skcipher_ops,
	.hash = &hwoff_afalg_hash_ops,
	.aead = &hwoff_afalg_aead_ops,
	.guard = hwoff_guard_driver,
	.stuck = hwoff_guard_stuck,
};

/* The inode of the socket fd is open on; 0, which no socket has, if it is not one. */
static ino_t inode_of(int fd)
{
	struct stat st;

	return fd < 0 || fstat(fd, &st) || !S_ISSOCK(st.st_mode) ? 0 : st.st_ino;
}

int hwoff_afalg_fail(struct hwoff_afalg *s, int error, const char *what, const char *fmt, ...)
{
	va_list ap;

	snprintf(s->error, sizeof(s->error), "%s on %s: %s", what, s->driver, strerror(error));
	if (fmt) {
		size_t used = strlen(s->error);

		va_start(ap, fmt);
		vsnprintf(s->error + used, sizeof(s->error) - used, fmt, ap);
		va_end(ap);
	}
	if (s->guard_why[0])
		hwoff_appendf(s->error, sizeof(s->error), ": %s", s->guard_why);
	s->guard_why[0] = '\0'; /* said once, with the failure it belongs to */
	return -error;
}

int hwoff_afalg_setsockopt(struct hwoff_afalg *s, int optname, const void *value, socklen_t len)
{
	s->guard_why[0] = '\0';
	if (s->guard)
		return hwoff_guard_setsockopt(s->guard, s->tfm_fd, optname, value, len,
					      s->guard_why, sizeof(s->guard_why));
	return setsockopt(s->tfm_fd, SOL_ALG, optname, value, len) ? -errno : 0;
}

ssize_t hwoff_afalg_write(struct hwoff_afalg *s, const void *data, size_t len, int flags)
{
	struct iovec iov = { .iov_base = (void *)data, .iov_len = len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t ret;

	s->guard_why[0] = '\0';
	if (s->guard)
		return hwoff_guard_sendmsg(s->guard, s->op_fd, &msg, flags, s->guard_why,
					   sizeof(s->guard_why));
	ret = sendmsg(s->op_fd, &msg, flags);
	return ret < 0 ? -errno : ret;
}

ssize_t hwoff_afalg_read(struct hwoff_afalg *s, void *buf, size_t len)
{
	ssize_t ret;

	s->guard_why[0] = '\0';
	if (s->guard)
		return hwoff_guard_read(s->guard, s->op_fd, buf, len, s->guard_why,
					sizeof(s->guard_why));
	ret = read(s->op_fd, buf, len);
	return ret < 0 ? -errno : ret;
}

int hwoff_afalg_bind(struct hwoff_afalg *s, const struct hwoff_alg *alg, const char *driver,
		     const unsigned char *key, size_t key_len)
{
	const char *type = hwoff_alg_kernel_type(alg);
	struct sockaddr_alg sa = { .salg_family = AF_ALG };
	int error;

	s->alg = alg;
	s->tfm_fd = s->op_fd = -1;
	s->pid = getpid();
	s->error[0] = s->guard_why[0] = '\0';
	snprintf(s->driver, sizeof(s->driver), "%s", driver);
	if (strlen(driver) >= sizeof(sa.salg_name))
		return hwoff_afalg_fail(s, ENAMETOOLONG, "AF_ALG bind", " (AF_ALG takes %zu bytes)",
					sizeof(sa.salg_name) - 1);
	strcpy((char *)sa.salg_type, type);
	strcpy((char *)sa.salg_name, driver);

	s->guard = hwoff_guard_of(driver);
	if (s->guard) {
		int fd = hwoff_guard_bind(s->guard, &sa, s->guard_why, sizeof(s->guard_why));

		if (fd < 0 && s->guard_why[0])
			return hwoff_afalg_fail(s, -fd, "AF_ALG bind", NULL);
		s->tfm_fd = fd < 0 ? -1 : fd;
		error = fd < 0 ? -fd : 0;
	} else {
		s->tfm_fd = socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		error = s->tfm_fd < 0 || bind(s->tfm_fd, (struct sockaddr *)&sa, sizeof(sa)) ? errno
											     : 0;
	}
	s->tfm_ino = inode_of(s->tfm_fd);
	if (error) {
		/* probe.c words it: the driver, the errno, the 7.2 change, af_alg_restrict */
		hwoff_probe_explain_here(s->error, sizeof(s->error), error, type,
					 s->tfm_fd < 0 && !s->guard ? NULL : driver);
		return -error;
	}
	error = key ? -hwoff_afalg_setsockopt(s, ALG_SET_KEY, key, (socklen_t)key_len) : 0;
	if (error)
		return hwoff_afalg_fail(s, error, "ALG_SET_KEY", " (a key of %zu bytes for %s)",
					key_len, alg->name);
	return 0;
}

int hwoff_afalg_rebind(struct hwoff_afalg *s, const unsigned char *key, size_t key_len)
{
	char driver[HWOFF_NAME_MAX];

	hwoff_afalg_close(s);
	memcpy(driver, s->driver, sizeof(driver)); /* bind() writes s->driver */
	return hwoff_afalg_bind(s, s->alg, driver, key, key_len);
}

/* Through the guard, where s has one: its last reference may wait on the device. */
static void close_fd(struct hwoff_afalg *s, int *fd)
{
	if (*fd >= 0 && s->guard)
		hwoff_guard_close(s->guard, *fd);
	else if (*fd >= 0)
		close(*fd);
	*fd = -1;
}

int hwoff_afalg_accept(struct hwoff_afalg *s, int from)
{
	long optmem;
	int fd;

	s->guard_why[0] = '\0';
	fd = s->guard ? hwoff_guard_accept(s->guard, from, s->guard_why, sizeof(s->guard_why))
		      : accept4(from, NULL, NULL, SOCK_CLOEXEC);
	if (fd < 0) {
		int error = s->guard ? -fd : errno;

		optmem = hwoff_read_number(OPTMEM_MAX); /* 20 KiB before 6.8 */
		if (error == ENOMEM && optmem > 0)
			return hwoff_afalg_fail(s, error, "AF_ALG accept",
						" (the driver's request state exceeds socket "
						"memory, net.core.optmem_max = %ld bytes)",
						optmem);
		if (error == ENOKEY)
			return hwoff_afalg_fail(s, error, "AF_ALG accept", " (no key was set)");
		return hwoff_afalg_fail(s, error, "AF_ALG accept", NULL);
	}
	close_fd(s, &s->op_fd);
	s->op_fd = fd;
	s->op_ino = inode_of(fd);
	return 0;
}

ssize_t hwoff_afalg_send(struct hwoff_afalg *s, bool encrypt, const unsigned char *iv,
			 size_t assoclen, const struct iovec *iov, int iovcnt)
{
	union {
		char buf[CMSG_SPACE(sizeof(__u32)) * 2 +
			 CMSG_SPACE(sizeof(struct af_alg_iv) + HWOFF_IV_MAX)];
		struct cmsghdr align;
	} control;
	struct msghdr msg = {
		.msg_control = control.buf,
		.msg_controllen = CMSG_SPACE(sizeof(__u32)),
		.msg_iov = (struct iovec *)iov,
		.msg_iovlen = (size_t)iovcnt,
	};
	unsigned int iv_len = s->alg->iv_bytes;
	struct cmsghdr *cmsg;
	ssize_t ret;

	memset(&control, 0, sizeof(control));
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_ALG;
	cmsg->cmsg_type = ALG_SET_OP;
	cmsg->cmsg_len = CMSG_LEN(sizeof(__u32));
	*(__u32 *)CMSG_DATA(cmsg) = encrypt ? ALG_OP_ENCRYPT : ALG_OP_DECRYPT;
	if (iv && iv_len) {
		struct af_alg_iv *alg_iv;

		msg.msg_controllen += CMSG_SPACE(sizeof(*alg_iv) + iv_len);
		cmsg = CMSG_NXTHDR(&msg, cmsg);
		cmsg->cmsg_level = SOL_ALG;
		cmsg->cmsg_type = ALG_SET_IV;
		cmsg->cmsg_len = CMSG_LEN(sizeof(*alg_iv) + iv_len);
		alg_iv = (struct af_alg_iv *)CMSG_DATA(cmsg);
		alg_iv->ivlen = iv_len;
		memcpy(alg_iv->iv, iv, iv_len);
	}
	if (hwoff_alg_is_aead(s->alg)) {
		msg.msg_controllen += CMSG_SPACE(sizeof(__u32));
		cmsg = CMSG_NXTHDR(&msg, cmsg);
		cmsg->cmsg_level = SOL_ALG;
		cmsg->cmsg_type = ALG_SET_AEAD_ASSOCLEN;
		cmsg->cmsg_len = CMSG_LEN(sizeof(__u32));
		*(__u32 *)CMSG_DATA(cmsg) = (__u32)assoclen;
	}
	s->guard_why[0] = '\0';
	if (s->guard)
		ret = hwoff_guard_sendmsg(s->guard, s->op_fd, &msg, MSG_DONTWAIT, s->guard_why,
					  sizeof(s->guard_why));
	else if ((ret = sendmsg(s->op_fd, &msg, MSG_DONTWAIT)) < 0)
		ret = -errno;
	explicit_bzero(&control, sizeof(control));
	return ret;
}

bool hwoff_afalg_adopt(struct hwoff_afalg *s)
{
	if (!hwoff_afalg_forked(s))
		return false;
	/* still open on the socket s opened there? */
	if (inode_of(s->tfm_fd) != s->tfm_ino)
		s->tfm_fd = -1;
	if (inode_of(s->op_fd) != s->op_ino)
		s->op_fd = -1;
	s->pid = getpid();
	return true;
}

void hwoff_afalg_drop_op(struct hwoff_afalg *s)
{
	hwoff_afalg_adopt(s);
	close_fd(s, &s->op_fd);
}

void hwoff_afalg_close(struct hwoff_afalg *s)
{
	hwoff_afalg_drop_op(s);
	close_fd(s, &s->tfm_fd);
}

bool hwoff_afalg_forked(const struct hwoff_afalg *s)
{
	return s->pid != getpid();
}

int hwoff_afalg_map_landing(struct hwoff_afalg *s, size_t len, void **area)
{
	int error;

	*area = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (*area == MAP_FAILED) {
		*area = NULL;
		return hwoff_afalg_fail(s, errno, "mmap", " (%zu bytes to receive into)", len);
	}
	if (madvise(*area, len, MADV_WIPEONFORK)) {
		error = errno;
		munmap(*area, len);
		*area = NULL;
		return hwoff_afalg_fail(s, error, "madvise(MADV_WIPEONFORK)",
					" (needs Linux 4.14)");
	}
	return 0;
}

void hwoff_afalg_unmap_landing(void *area, size_t len, size_t used)
{
	if (!area)
		return;
	explicit_bzero(area, used);
	munmap(area, len);
}
