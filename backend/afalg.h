/* SPDX-License-Identifier: Apache-2.0 */
/*
 * afalg.h - the AF_ALG transport's own: what a session on one driver's sockets is, and the
 * socket calls (afalg.c) under its skcipher, hash and AEAD contexts (afalg_skcipher.c,
 * afalg_hash.c, afalg_aead.c). Nothing else includes it: the rest of the backend, the provider
 * and the calibration reach AF_ALG through transport.h.
 */
#ifndef HWOFF_BACKEND_AFALG_H
#define HWOFF_BACKEND_AFALG_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "backend/algs.h"
#include "backend/discover.h" /* HWOFF_NAME_MAX */
#include "backend/transport.h"

/*
 * Data reaches the kernel by sendmsg(): algif_skcipher copies it, algif_hash hashes the caller's
 * pages. vmsplice() and splice() were tried and dropped: in TCG guests they gained nothing for the
 * kernel's CPU drivers and were within the noise for the engine's DMA driver (bench/request-cost,
 * 1 MiB: 10.9 ms spliced against 10.1 ms copied), and Linux 7.2 copies spliced skcipher data
 * anyway.
 */

/* One driver's sockets, as each kind of context holds them. */
struct hwoff_afalg {
	const struct hwoff_alg *alg;
	char driver[HWOFF_NAME_MAX];
	pid_t pid; /* the process that owns the sockets */
	int tfm_fd; /* bound to the driver; holds the key */
	int op_fd; /* accept()ed from tfm_fd; holds the IV or the partial hash */
	ino_t tfm_ino, op_ino; /* their inodes: whether a number is still theirs after fork */
	/* another vendor's engine: every call that may wait on it is its guard's (guard.h) */
	struct hwoff_guard *guard;
	char guard_why[HWOFF_TRANSPORT_ERROR_MAX / 2]; /* why the guard failed the last call */
	char error[HWOFF_TRANSPORT_ERROR_MAX];
};

/*
 * Sets s->error to "WHAT on DRIVER: strerror(error)" plus the printf-style detail, and why the
 * guard failed the call when it did; -error.
 */
int hwoff_afalg_fail(struct hwoff_afalg *s, int error, const char *what, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* socket, bind and (unless key is NULL) ALG_SET_KEY: s->tfm_fd. Returns 0 or -errno. */
int hwoff_afalg_bind(struct hwoff_afalg *s, const struct hwoff_alg *alg, const char *driver,
		     const unsigned char *key, size_t key_len);
/*
 * The calls that may wait on the driver, each made by the driver's guard where it has one (another
 * vendor's engine, guard.h): setsockopt(SOL_ALG) on s->tfm_fd (value may be NULL, as
 * ALG_SET_AEAD_AUTHSIZE takes), and send() / read() on s->op_fd. Each returns what the system
 * call returns, or -errno.
 */
int hwoff_afalg_setsockopt(struct hwoff_afalg *s, int optname, const void *value, socklen_t len);
ssize_t hwoff_afalg_write(struct hwoff_afalg *s, const void *data, size_t len, int flags);
ssize_t hwoff_afalg_read(struct hwoff_afalg *s, void *buf, size_t len);
/* hwoff_afalg_bind() again to the same driver: a new s->tfm_fd, no operation socket. */
int hwoff_afalg_rebind(struct hwoff_afalg *s, const unsigned char *key, size_t key_len);
/*
 * accept() on from (tfm_fd for a fresh operation, op_fd for a hash clone): the new socket
 * becomes s->op_fd, the one it replaces is closed. Returns 0 or -errno.
 */
int hwoff_afalg_accept(struct hwoff_afalg *s, int from);
/*
 * In a forked child, the first call takes s over: a descriptor that is no longer the socket s
 * opened becomes -1 (never closed: the number is not s's). Returns whether s was another
 * process's. Every function here that closes does this first.
 */
bool hwoff_afalg_adopt(struct hwoff_afalg *s);
/*
 * One sendmsg() on the operation socket, MSG_DONTWAIT (a full socket must fail, not wait for a
 * reader that is this very thread): ALG_SET_OP; ALG_SET_IV with alg->iv_bytes of iv unless iv
 * is NULL; ALG_SET_AEAD_ASSOCLEN for an AEAD. Returns the bytes taken, or -errno.
 */
ssize_t hwoff_afalg_send(struct hwoff_afalg *s, bool encrypt, const unsigned char *iv,
			 size_t assoclen, const struct iovec *iov, int iovcnt);
/* Close every descriptor s has. */
void hwoff_afalg_close(struct hwoff_afalg *s);
/* After a failure: drop the operation socket, whose state is unknown now. */
void hwoff_afalg_drop_op(struct hwoff_afalg *s);
/* Whether s's sockets are another process's: a fork happened since they were made. */
bool hwoff_afalg_forked(const struct hwoff_afalg *s);

/*
 * Where the kernel writes a request's output when the caller's pages will not do: len bytes
 * that a fork() never shares (MADV_WIPEONFORK), so a fork while a request runs cannot make the
 * kernel write a page the caller no longer has (afalg_skcipher.c says when). Returns 0, or -errno
 * with s->error set. Unmap with hwoff_afalg_unmap_landing(), which wipes the first used bytes.
 */
int hwoff_afalg_map_landing(struct hwoff_afalg *s, size_t len, void **area);
void hwoff_afalg_unmap_landing(void *area, size_t len, size_t used);

/* The operations of each kind of context, for hwoff_transport_afalg (afalg.c). */
extern const struct hwoff_skcipher_ops hwoff_afalg_skcipher_ops;
extern const struct hwoff_hash_ops hwoff_afalg_hash_ops;
extern const struct hwoff_aead_ops hwoff_afalg_aead_ops;

#endif
