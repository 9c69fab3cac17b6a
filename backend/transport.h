/* SPDX-License-Identifier: Apache-2.0 */
/*
 * transport.h - AES and hash requests to one kernel driver, through the transport that reaches it.
 *
 * A context is bound to one driver by its cra_driver_name, so a path of the path table is one
 * specific implementation ("cbc-aes-hwoffload-dma", "cbc(aes-generic)"), never whatever the
 * kernel would pick for "cbc(aes)". The calls below are the same whatever the transport: a
 * context starts with its transport's operations (struct hwoff_transport, at the end), and a
 * driver's transport is the first of HWOFF_TRANSPORTS that reaches it.
 *
 * The transports are the bundled engine's own device (device.h), for its paths "dev.NODE.DRIVER",
 * and AF_ALG (afalg.h) for every driver, written on the sockets directly, not on libkcapi
 * 1.4.0, which hides the operation socket (no accept() to clone a hash state, no SO_SNDBUF to
 * size requests), re-sends the caller's IV with each 64 KiB piece of a one-shot
 * kcapi_cipher_encrypt() (so CBC and CTR are wrong past 64 KiB when an IV is given; checked on
 * 6.1), needs crypto_user netlink for every handle and opens its sockets without close-on-exec.
 *
 * Rules, every transport's:
 * - Threads: a context is used by one thread at a time. Contexts share nothing, so different
 *   contexts may be used by different threads at once without a lock; one context used from two
 *   threads at once needs the caller's lock.
 * - fork(): a context made in the parent keeps working in the child. On its first use there the
 *   child makes its own sockets or device session (same driver, same key; through AF_ALG a hash
 *   clones its partial state by accept() on the inherited socket, which is only right while the
 *   parent leaves that context alone until then; through the device it starts from the state
 *   the context keeps). The parent's sockets are not touched, and a descriptor number is used or
 *   closed in the child only while it is still the socket the context opened: fork() copies the
 *   descriptor table before the memory, so a socket another thread opened or closed in between
 *   leaves the child a number that is closed or another file's, as does a child that closes its
 *   descriptors and opens others (a daemon's start). Before Linux 6.6 a fork() can lose
 *   output the kernel writes to the caller's pages; there the output lands in an area of the
 *   context's own, copied out after (afalg_skcipher.c says why).
 * - Keys are kept (to re-key after fork), never logged, and wiped when the context is freed.
 * - Errors: functions return 0 or -errno, and hwoff_*_error() says in words what failed, with
 *   the driver, the sizes and the likely cause. Messages never contain key or data bytes.
 */
#ifndef HWOFF_BACKEND_TRANSPORT_H
#define HWOFF_BACKEND_TRANSPORT_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/algs.h"

#define HWOFF_TRANSPORT_ERROR_MAX 512
#define HWOFF_IV_MAX		  16

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

/* ---- the transports: what reaches a driver, for the calls above ------------------------------
 */

/*
 * A context of each kind starts with its transport's operations, one per call above (the
 * calls of transport.c check what every transport would, then call them); the rest of the
 * context is the transport's own. open gets the checked arguments of hwoff_*_new().
 */
struct hwoff_skcipher_ops {
	int (*open)(struct hwoff_skcipher **out, const struct hwoff_alg *alg, const char *driver,
		    const unsigned char *key, size_t key_len, char *err, size_t err_len);
	void (*close)(struct hwoff_skcipher *c);
	int (*crypt)(struct hwoff_skcipher *c, bool encrypt, const unsigned char *in,
		     unsigned char *out, size_t len);
	int (*set_iv)(struct hwoff_skcipher *c, const unsigned char *iv, size_t iv_len);
	size_t (*chunk_bytes)(const struct hwoff_skcipher *c);
	const char *(*error)(const struct hwoff_skcipher *c);
};

struct hwoff_hash_ops {
	int (*open)(struct hwoff_hash **out, const struct hwoff_alg *alg, const char *driver,
		    const unsigned char *key, size_t key_len, char *err, size_t err_len);
	int (*dup)(struct hwoff_hash **out, struct hwoff_hash *h, char *err, size_t err_len);
	void (*close)(struct hwoff_hash *h);
	int (*update)(struct hwoff_hash *h, const void *data, size_t len);
	int (*final)(struct hwoff_hash *h, unsigned char *md, size_t md_len);
	int (*finup)(struct hwoff_hash *h, const void *data, size_t len, unsigned char *md,
		     size_t md_len);
	int (*reset)(struct hwoff_hash *h);
	const char *(*error)(const struct hwoff_hash *h);
	bool (*orphaned)(const struct hwoff_hash *h);
};

struct hwoff_aead_ops {
	int (*open)(struct hwoff_aead **out, const struct hwoff_alg *alg, const char *driver,
		    const unsigned char *key, size_t key_len, char *err, size_t err_len);
	void (*close)(struct hwoff_aead *a);
	int (*crypt)(struct hwoff_aead *a, bool encrypt, const unsigned char *iv,
		     const unsigned char *aad, size_t aad_len, const unsigned char *in,
		     unsigned char *out, size_t len, unsigned char *tag, size_t tag_len);
	const char *(*error)(const struct hwoff_aead *a);
};

/* The start of every context: a transport's context begins with it. */
struct hwoff_skcipher {
	const struct hwoff_skcipher_ops *ops;
};

struct hwoff_hash {
	const struct hwoff_hash_ops *ops;
};

struct hwoff_aead {
	const struct hwoff_aead_ops *ops;
};

struct hwoff_transport {
	/* Whether requests to driver (a path's name) go this way; NULL: every driver (the last). */
	bool (*reaches)(const char *driver);
	/* NULL where it serves no such algorithm: discovery names none of its paths for them */
	const struct hwoff_skcipher_ops *skcipher;
	const struct hwoff_hash_ops *hash;
	const struct hwoff_aead_ops *aead;
	/*
	 * From now on every call on driver in this process is limited to limit_ms (0: the
	 * transport's default), as another vendor's engine may never answer (guard.h); returns 0
	 * or -errno. Then stuck() says why driver stopped answering, or NULL while it has not.
	 */
	int (*guard)(const char *driver, unsigned int limit_ms);
	const char *(*stuck)(const char *driver);
};

/*
 * Every transport, each hwoff_transport_NAME in a file of its own; a driver's transport is the
 * first that reaches it.
 */
#define HWOFF_TRANSPORTS(X) \
	X(device) /* the bundled engine's own device (device.h): its paths only */ \
	X(afalg) /* last: the kernel's own interface reaches every driver */

#define HWOFF_TRANSPORT_DECLARE(name) extern const struct hwoff_transport hwoff_transport_##name;
HWOFF_TRANSPORTS(HWOFF_TRANSPORT_DECLARE)
#undef HWOFF_TRANSPORT_DECLARE

/* The transport that reaches driver (never NULL: AF_ALG reaches every name). */
const struct hwoff_transport *hwoff_transport_of(const char *driver);

#endif
