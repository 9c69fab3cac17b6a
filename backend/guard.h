/* SPDX-License-Identifier: Apache-2.0 */
/*
 * guard.h - AF_ALG calls on another vendor's engine, made by a guard process under a time limit.
 *
 * Such an engine may never answer: one request it cannot take has wedged QEMU's virtio-crypto
 * for good, and a SoC engine past a descriptor limit does the same. A caller then sleeps
 * uninterruptibly in recvmsg, in setkey or in a hash's send, for ever, and its process can no
 * longer exit. The bundled engine's driver bounds every wait on its device (timeout_ms); another
 * vendor's need not. So every call of the transport that reaches such a driver (bind, setkey,
 * accept, send, receive) is made by a guard: a child process of the caller's (one per driver and
 * process, made at the first call), which shares a window of memory with it for the data. The
 * caller waits for the answer with a time limit. Past it the guard is killed (the kernel keeps
 * it asleep, with nothing of the caller's but its sockets for that driver), the driver is stuck
 * for this process, and every later call on it fails at once; a new process (a fork's child
 * too) starts with a guard of its own, so its first call checks the engine again.
 *
 * The guard is made with clone() and no exit signal, so an application's SIGCHLD handler and
 * wait() never see it, and it runs system calls only (no allocation, no locks) as a child of a
 * threaded process must; every signal is blocked in it, and it has a process group of its own
 * (a terminal's ^C or ^Z does not reach it). It closes every descriptor but its own at start, so
 * a stuck guard holds no listening socket of the caller's; it keeps the last reference of each
 * socket it made, as freeing a keyed transform may wait on the device too. Like any child made
 * without exec it holds a copy of the caller's memory as it was when the guard started (keys of
 * that time included, and the mappings of files), until the kernel frees it.
 *
 * Part of the AF_ALG transport: afalg.c routes a session's calls here when its driver is guarded;
 * the rest of the backend reaches hwoff_guard_driver() and hwoff_guard_stuck() through struct
 * hwoff_transport (transport.h).
 */
#ifndef HWOFF_BACKEND_GUARD_H
#define HWOFF_BACKEND_GUARD_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>

#include <linux/if_alg.h>

/* The most data one guarded call carries: larger sends go in pieces, reads take at most this. */
#define HWOFF_GUARD_WINDOW (256u << 10)
/*
 * The most data one cipher request to another vendor's engine carries; larger ones go in pieces
 * of this. 16 pages, the unit AF_ALG maps a caller's pages in (ALG_MAX_PAGES), which algif_hash
 * keeps to anyway; QEMU's virtio-crypto is wedged for good by one request of 31 pages or more
 * ("too many write descriptors in indirect table"), and a SoC engine's descriptor ring may end
 * sooner than the socket's 208 KiB.
 */
#define HWOFF_GUARD_REQUEST_MAX (64u << 10)
/* The time limit of one call when the caller gives none: far more than a request should take. */
#define HWOFF_GUARD_LIMIT_MS 10000u

struct hwoff_guard;

/*
 * From now on every session bound to driver in this process goes through a guard, each call
 * limited to limit_ms (0: HWOFF_GUARD_LIMIT_MS). Returns 0, or -ENOSPC past the drivers it keeps.
 */
int hwoff_guard_driver(const char *driver, unsigned int limit_ms);

/* driver's guard, or NULL when its calls are made directly. */
struct hwoff_guard *hwoff_guard_of(const char *driver);

/* Why driver is stuck in this process ("DRIVER gave no answer ..."), or NULL while it is not. */
const char *hwoff_guard_stuck(const char *driver);

/*
 * The calls, as the system calls they stand for. Each returns what the call returned (a new
 * descriptor, a byte count, 0), or -errno; -ETIMEDOUT when the guard gave no answer within the
 * limit (the driver is stuck from then on) and at once on a stuck driver, with the reason in why.
 */
int hwoff_guard_bind(struct hwoff_guard *g, const struct sockaddr_alg *sa, char *why,
		     size_t why_len);
int hwoff_guard_setsockopt(struct hwoff_guard *g, int fd, int optname, const void *value,
			   socklen_t len, char *why, size_t why_len);
int hwoff_guard_accept(struct hwoff_guard *g, int fd, char *why, size_t why_len);
/* msg's data gathered into the window, in pieces of HWOFF_GUARD_WINDOW (MSG_MORE on all but
 * the last); returns the bytes taken, short where a piece was, or the error of a piece (what
 * went before it is lost with the request). */
ssize_t hwoff_guard_sendmsg(struct hwoff_guard *g, int fd, const struct msghdr *msg, int flags,
			    char *why, size_t why_len);
/* At most HWOFF_GUARD_WINDOW bytes into buf. */
ssize_t hwoff_guard_read(struct hwoff_guard *g, int fd, void *buf, size_t len, char *why,
			 size_t why_len);
/*
 * close(fd), a socket of driver's: the guard holds the last reference of every socket it made
 * (freeing a keyed transform may wait on the device), and drops it here within the limit; a
 * stuck guard keeps it.
 */
void hwoff_guard_close(struct hwoff_guard *g, int fd);

/* Room enough for a why. */
#define HWOFF_GUARD_WHY_MAX 384

#endif
