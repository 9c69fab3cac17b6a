/* SPDX-License-Identifier: Apache-2.0 */
/*
 * transport.h - AES and hash requests to one kernel driver through AF_ALG.
 *
 * A context is bound to one driver by its cra_driver_name, so a path of the path table is one
 * specific implementation ("cbc-aes-hwoffload-dma", "cbc(aes-generic)"), never whatever the
 * kernel would pick for "cbc(aes)".
 *
 * Written on the AF_ALG sockets directly, not on libkcapi 1.4.0, which hides the operation
 * socket (no accept() to clone a hash state, no SO_SNDBUF to size requests), re-sends the
 * caller's IV with each 64 KiB piece of a one-shot kcapi_cipher_encrypt() (so CBC and CTR are
 * wrong past 64 KiB when an IV is given; checked on 6.1), needs crypto_user netlink for every
 * handle and opens its sockets without close-on-exec.
 *
 * Rules:
 * - Threads: a context is used by one thread at a time. Contexts share nothing, so different
 *   contexts may be used by different threads at once without a lock; one context used from two
 *   threads at once needs the caller's lock.
 * - fork(): a context made in the parent keeps working in the child. On its first use there the
 *   child makes its own sockets (same driver, same key; a hash clones its partial state by
 *   accept() on the inherited socket, which is only right while the parent leaves that context
 *   alone until then). The parent's sockets are not touched, and a descriptor number is used or
 *   closed in the child only while it is still the socket the context opened: fork() copies the
 *   descriptor table before the memory, so a socket another thread opened or closed in between
 *   leaves the child a number that is closed or another file's, as does a child that closes its
 *   descriptors and opens others (a daemon's start). Before Linux 6.6 a fork() can lose
 *   output the kernel writes to the caller's pages; there the output lands in an area of the
 *   context's own, copied out after (skcipher.c says why).
 * - Keys are kept (to re-key after fork), never logged, and wiped when the context is freed.
 * - Errors: functions return 0 or -errno, and hwoff_*_error() says in words what failed, with
 *   the driver, the sizes and the likely cause. Messages never contain key or data bytes.
 */
#ifndef HWOFF_BACKEND_TRANSPORT_H
#define HWOFF_BACKEND_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/socket.h>
#include <sys/types.h>
#include <sys/uio.h>

#include "backend/algs.h"
#include "backend/discover.h"

#define HWOFF_TRANSPORT_ERROR_MAX 512
#define HWOFF_IV_MAX		  16

/*
 * Data reaches the kernel by sendmsg(): algif_skcipher copies it, algif_hash hashes the caller's
 * pages. vmsplice() and splice() were tried and dropped: in TCG guests they gained nothing for the
 * kernel's CPU drivers and were within the noise for the engine's DMA driver (bench/request-cost,
 * 1 MiB: 10.9 ms spliced against 10.1 ms copied), and Linux 7.2 copies spliced skcipher data
 * anyway.
 */

/* ---- skcipher: ECB, CBC, CTR ----------------------------------------------------------------- */

struct hwoff_skcipher;

/*
 * A context for alg (a cipher row of algs.h) on driver, keyed with key (alg->key_bytes). The
 * IV starts as all zeros; set it before the first request of a mode that has one. Returns 0,
 * or -errno with the reason in err.
 */
int hwoff_skcipher_new(struct hwoff_skcipher **out, const struct hwoff_alg *alg, const char *driver,
		       const unsigned char *key, size_t key_len, char *err, size_t err_len);
/* Close the sockets and wipe the key and IV. NULL is fine. */
void hwoff_skcipher_free(struct hwoff_skcipher *c);

/*
 * Encrypt or decrypt len bytes from in to out (the same buffer or not overlapping), continuing
 * from the context's IV. ECB and CBC take multiples of 16 bytes; CTR any length, but a
 * partial last block ends the keystream block: the next request starts at the next counter.
 *
 * What is guaranteed: out is the mode applied to these bytes from the context's IV, exactly as
 * one call over everything sent since the IV was set, as long as every request but the last
 * was a multiple of 16 bytes. The IV after the request is computed here, because the kernel has
 * no way to read it: for CBC the last ciphertext block, for CTR the counter (128 bits,
 * big-endian, wrapping) advanced by ceil(len / 16). The kernel chains the same IV in its socket,
 * so consecutive requests send no IV; after hwoff_skcipher_set_iv() the next request sends the
 * IV set, after a fork or a failure the computed one. Large requests go in pieces of the
 * socket's buffer size (SO_SNDBUF, read from the socket), each one round trip.
 *
 * On failure out is undefined and the IV stays that before the request, so the caller may redo
 * the request elsewhere (in software) from the IV it keeps itself: the one it set, advanced as
 * above over the requests since (the provider's chaining value, provider/cipher_mode.c).
 */
int hwoff_skcipher_crypt(struct hwoff_skcipher *c, bool encrypt, const unsigned char *in,
			 unsigned char *out, size_t len);

/* The IV the next request starts from, e.g. after the provider served a request in software. */
int hwoff_skcipher_set_iv(struct hwoff_skcipher *c, const unsigned char *iv, size_t iv_len);

/* Bytes per round trip: what one sendmsg() of this socket takes without waiting. */
size_t hwoff_skcipher_chunk_bytes(const struct hwoff_skcipher *c);
/* What the last failure was; "" when none. */
const char *hwoff_skcipher_error(const struct hwoff_skcipher *c);

/* ---- hash ------------------------------------------------------------------------------------ */

struct hwoff_hash;

/*
 * A context for alg (a digest row of algs.h) on driver, keyed with key (key_len bytes, 0
 * included) when alg is an HMAC row; key is ignored for the others. Returns 0, or -errno with
 * err filled.
 */
int hwoff_hash_new(struct hwoff_hash **out, const struct hwoff_alg *alg, const char *driver,
		   const unsigned char *key, size_t key_len, char *err, size_t err_len);
/* A copy of h's partial state (accept() on its socket, the kernel's export and import). */
int hwoff_hash_dup(struct hwoff_hash **out, struct hwoff_hash *h, char *err, size_t err_len);
void hwoff_hash_free(struct hwoff_hash *h);

/* Add len bytes (any length, 0 included): one system call per update, whatever its size. */
int hwoff_hash_update(struct hwoff_hash *h, const void *data, size_t len);
/* The digest (md_len >= alg->digest_bytes) of everything since the start; then starts again. */
int hwoff_hash_final(struct hwoff_hash *h, unsigned char *md, size_t md_len);
/*
 * Users (the provider, the calibration) keep a message's updates up to this many bytes for its
 * hwoff_hash_finup(), and send larger ones as they come: one system call per 64 KiB at most.
 */
#define HWOFF_HASH_GATHER_MAX (64u << 10)
/* hwoff_hash_update() and hwoff_hash_final() in one request of the driver where the kernel can. */
int hwoff_hash_finup(struct hwoff_hash *h, const void *data, size_t len, unsigned char *md,
		     size_t md_len);
/* Forget the partial state and start again. */
int hwoff_hash_reset(struct hwoff_hash *h);

const char *hwoff_hash_error(const struct hwoff_hash *h);
/*
 * Whether the last failure was h's partial state lost with a socket this process closed after a
 * fork (a daemon closing its descriptors): the process's doing, not the driver's.
 */
bool hwoff_hash_orphaned(const struct hwoff_hash *h);

/* ---- AEAD: GCM ---------------------------------------------------------------------------------
 */

struct hwoff_aead;

/*
 * The largest message (AAD and data) one request takes: it must fit the socket's send buffer,
 * which algif_aead needs whole before it runs the request (net.core.wmem_default is 208 KiB).
 * Larger messages are software's.
 */
#define HWOFF_AEAD_MESSAGE_MAX (64u << 10)

/* A context for alg (a GCM row of algs.h) on driver, keyed. Returns 0, or -errno with err. */
int hwoff_aead_new(struct hwoff_aead **out, const struct hwoff_alg *alg, const char *driver,
		   const unsigned char *key, size_t key_len, char *err, size_t err_len);
/* Close the sockets and wipe the key and what the kernel wrote. NULL is fine. */
void hwoff_aead_free(struct hwoff_aead *a);

/* Whether the kernel's gcm(aes) takes a tag of tag_len bytes (crypto_gcm_check_authsize()). */
bool hwoff_aead_tag_len_valid(size_t tag_len);

/*
 * One whole message, one request: aad_len bytes of AAD and len bytes of data from in to out
 * (the same buffer or not overlapping; aad_len + len at most HWOFF_AEAD_MESSAGE_MAX), with the
 * IV (alg->iv_bytes). Encrypting writes tag_len bytes of tag to tag; decrypting checks tag.
 * The kernel writes into an area of the context's, copied to out only when the request
 * succeeded, so a failed or refused decrypt leaves out as it was (never plaintext).
 *
 * Returns 0; -EBADMSG when the tag does not match (a result, not a failure: the context stays
 * as it is, and hwoff_aead_error() says nothing); -EOPNOTSUPP for a message AF_ALG cannot
 * carry (a decrypt of no AAD and no data: AF_ALG runs no request for an empty output, so the
 * tag would go unchecked); else -errno with the reason in hwoff_aead_error().
 */
int hwoff_aead_crypt(struct hwoff_aead *a, bool encrypt, const unsigned char *iv,
		     const unsigned char *aad, size_t aad_len, const unsigned char *in,
		     unsigned char *out, size_t len, unsigned char *tag, size_t tag_len);
const char *hwoff_aead_error(const struct hwoff_aead *a);

/* ---- the socket layer shared by skcipher.c, hash.c and aead.c; not for the provider -----------
 */

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
 * kernel write a page the caller no longer has (skcipher.c says when). Returns 0, or -errno
 * with s->error set. Unmap with hwoff_afalg_unmap_landing(), which wipes the first used bytes.
 */
int hwoff_afalg_map_landing(struct hwoff_afalg *s, size_t len, void **area);
void hwoff_afalg_unmap_landing(void *area, size_t len, size_t used);

#endif
