/* SPDX-License-Identifier: Apache-2.0 */
/*
 * guard_process.h - what the caller (guard.c) and its guard process (guard_process.c) say to each
 * other over their SOCK_SEQPACKET pair: one struct hwoff_guard_call each way, a descriptor beside
 * it by SCM_RIGHTS (the socket a call is on; the one bind or accept made), the data in the shared
 * window. Nothing else includes it.
 */
#ifndef HWOFF_BACKEND_GUARD_PROCESS_H
#define HWOFF_BACKEND_GUARD_PROCESS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <linux/if_alg.h>

/* A sendmsg's control messages: the operation, an IV, the AAD length. */
#define HWOFF_GUARD_CONTROL_MAX 256

enum hwoff_guard_op {
	HWOFF_GUARD_OP_BIND,
	HWOFF_GUARD_OP_SETSOCKOPT,
	HWOFF_GUARD_OP_ACCEPT,
	HWOFF_GUARD_OP_SENDMSG,
	HWOFF_GUARD_OP_READ,
	HWOFF_GUARD_OP_CLOSE,
};

/* One call, and in the same struct its answer. */
struct hwoff_guard_call {
	int op;
	int arg; /* setsockopt's option, sendmsg's flags */
	bool no_value; /* setsockopt with a NULL value (ALG_SET_AEAD_AUTHSIZE) */
	size_t len; /* data in the window, or to read into it */
	size_t control_len;
	long result; /* the answer: >= 0, or -errno */
	union {
		struct sockaddr_alg sa; /* bind */
		unsigned char control[HWOFF_GUARD_CONTROL_MAX]; /* sendmsg */
		struct cmsghdr align;
	} u;
};

/*
 * One message and at most one descriptor (-1: none); returns the bytes, 0 at the other end's
 * close. A descriptor the receiver had no room for makes c->result -EMFILE.
 */
ssize_t hwoff_guard_receive(int sock, struct hwoff_guard_call *c, int *fd);
/* c, and fd beside it unless it is -1; returns what sendmsg() does. */
ssize_t hwoff_guard_transmit(int sock, const struct hwoff_guard_call *c, int fd);

/*
 * The guard process: serves calls on sock, the data in window, until the caller's end closes.
 * System calls only (no allocation, no locks), as a child of a threaded process must.
 */
__attribute__((noreturn)) void hwoff_guard_serve(int sock, unsigned char *window);

#endif
