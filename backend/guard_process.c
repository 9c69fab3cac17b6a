// SPDX-License-Identifier: Apache-2.0
/*
 * guard_process.c - the guard process (guard.h says why there is one): it makes the AF_ALG calls
 * its caller sends it and keeps the last reference of every socket it made.
 */
#define _GNU_SOURCE /* accept4, close_range */
#include <errno.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "backend/guard_process.h"

#define KEPT_MAX 1024 /* sockets a guard holds the last reference of */

/*
 * In a guard: a copy of each socket it made, so that the last reference of a socket on the
 * driver is always the guard's. Freeing a keyed transform may wait on the device (virtio-crypto
 * closes its session on its control queue), so the caller's close must never be the last: the
 * guard closes its copy under the caller's time limit (HWOFF_GUARD_OP_CLOSE), or, stuck, keeps it
 * for good.
 */
static struct {
	int fd;
	ino_t ino;
} kept[KEPT_MAX];
static unsigned int kept_count;

static ino_t inode_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

/* Keep made; false when there is no room (the caller then holds the last reference). */
static bool keep(int made)
{
	if (kept_count == KEPT_MAX)
		return false;
	kept[kept_count].fd = made;
	kept[kept_count].ino = inode_of(made);
	kept_count++;
	return true;
}

/* Close the kept copy of the socket fd is open on: the last reference, here. */
static void close_kept(int fd)
{
	ino_t ino = inode_of(fd);

	for (unsigned int i = 0; ino && i < kept_count; i++) {
		if (kept[i].ino != ino)
			continue;
		close(kept[i].fd);
		kept[i] = kept[--kept_count];
		return;
	}
}

ssize_t hwoff_guard_receive(int sock, struct hwoff_guard_call *c, int *fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { .iov_base = c, .iov_len = sizeof(*c) };
	struct msghdr msg = { .msg_iov = &iov,
			      .msg_iovlen = 1,
			      .msg_control = control.buf,
			      .msg_controllen = sizeof(control.buf) };
	struct cmsghdr *cmsg;
	ssize_t n;

	*fd = -1;
	do
		n = recvmsg(sock, &msg, MSG_CMSG_CLOEXEC);
	while (n < 0 && errno == EINTR);
	cmsg = n > 0 ? CMSG_FIRSTHDR(&msg) : NULL;
	if (cmsg && cmsg->cmsg_level == SOL_SOCKET && cmsg->cmsg_type == SCM_RIGHTS)
		memcpy(fd, CMSG_DATA(cmsg), sizeof(int));
	if (n != sizeof(*c) && *fd >= 0) {
		close(*fd);
		*fd = -1;
	}
	/* a descriptor the receiver had no room for (RLIMIT_NOFILE) is dropped by the kernel */
	if (n == sizeof(*c) && (msg.msg_flags & MSG_CTRUNC) && c->result >= 0)
		c->result = -EMFILE;
	return n;
}

ssize_t hwoff_guard_transmit(int sock, const struct hwoff_guard_call *c, int fd)
{
	union {
		char buf[CMSG_SPACE(sizeof(int))];
		struct cmsghdr align;
	} control;
	struct iovec iov = { .iov_base = (void *)c, .iov_len = sizeof(*c) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	ssize_t n;

	if (fd >= 0) {
		struct cmsghdr *cmsg;

		memset(&control, 0, sizeof(control));
		msg.msg_control = control.buf;
		msg.msg_controllen = sizeof(control.buf);
		cmsg = CMSG_FIRSTHDR(&msg);
		cmsg->cmsg_level = SOL_SOCKET;
		cmsg->cmsg_type = SCM_RIGHTS;
		cmsg->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(cmsg), &fd, sizeof(int));
	}
	do
		n = sendmsg(sock, &msg, MSG_NOSIGNAL);
	while (n < 0 && errno == EINTR);
	return n;
}

static long execute(struct hwoff_guard_call *c, int fd, unsigned char *window, int *made)
{
	struct iovec iov = { .iov_base = window, .iov_len = c->len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	long ret;

	switch (c->op) {
	case HWOFF_GUARD_OP_BIND:
		*made = socket(AF_ALG, SOCK_SEQPACKET | SOCK_CLOEXEC, 0);
		if (*made < 0)
			return -errno;
		if (!bind(*made, (struct sockaddr *)&c->u.sa, sizeof(c->u.sa)))
			return 0;
		ret = -errno;
		close(*made);
		*made = -1;
		return ret;
	case HWOFF_GUARD_OP_SETSOCKOPT:
		return setsockopt(fd, SOL_ALG, c->arg, c->no_value ? NULL : window,
				  (socklen_t)c->len)
			       ? -errno
			       : 0;
	case HWOFF_GUARD_OP_ACCEPT:
		*made = accept4(fd, NULL, NULL, SOCK_CLOEXEC);
		return *made < 0 ? -errno : 0;
	case HWOFF_GUARD_OP_SENDMSG:
		msg.msg_control = c->control_len ? c->u.control : NULL;
		msg.msg_controllen = c->control_len;
		ret = sendmsg(fd, &msg, c->arg);
		return ret < 0 ? -errno : ret;
	case HWOFF_GUARD_OP_READ:
		ret = read(fd, window, c->len);
		return ret < 0 ? -errno : ret;
	case HWOFF_GUARD_OP_CLOSE:
		close_kept(fd);
		return 0;
	}
	return -EINVAL;
}

void hwoff_guard_serve(int sock, unsigned char *window)
{
	prctl(PR_SET_NAME, "hwoffload-guard");
	if (sock > 0)
		close_range(0, (unsigned int)sock - 1, 0);
	close_range((unsigned int)sock + 1, ~0u, 0);
	for (;;) {
		struct hwoff_guard_call c;
		int fd, made = -1;

		if (hwoff_guard_receive(sock, &c, &fd) != sizeof(c))
			_exit(0);
		c.result = execute(&c, fd, window, &made);
		if (fd >= 0)
			close(fd);
		if (hwoff_guard_transmit(sock, &c, made) < 0)
			_exit(0);
		if (made >= 0 && !keep(made))
			close(made);
	}
}
