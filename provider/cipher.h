/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cipher.h - what the files of the cipher family share (the provider's split follows OpenSSL's).
 * Each file calls only those after it: cipher.c the dispatch functions, init and parameters;
 * cipher_block.c the block buffering and padding of ECB and CBC; cipher_mode.c the mode state
 * (CBC's chaining value, CTR's counter and keystream position); cipher_paths.c the paths that
 * serve a request (kernel sessions, software, and the hand-over of the whole stream to the
 * default provider's context); cipher_base.c the context skeleton GCM shares (cipher_base.h).
 *
 * The stream state is kept here, not in whichever path served the last request: the partial
 * block (ECB, CBC), the chaining value (CBC's last ciphertext block, CTR's counter) and CTR's
 * position in its keystream block. Each update is one request sent down the path the router
 * decides for its size, starting from that state; so a stream whose updates take different paths
 * gives the bytes of one that takes one path. The kernel and software contexts are made on first
 * use and told the chaining value when another path moved it.
 */
#ifndef HWPROV_CIPHER_H
#define HWPROV_CIPHER_H

#include <stdbool.h>
#include <stddef.h>

#include "provider/cipher_base.h"

struct cipher_ctx {
	struct cipher_base base; /* first: a pointer to either is a pointer to both */
	bool padding;
	unsigned char iv[HWOFF_AES_BLOCK]; /* as given at init: OSSL_CIPHER_PARAM_IV */
	unsigned char chain[HWOFF_AES_BLOCK]; /* the next block's IV or counter: ..._UPDATED_IV */
	unsigned char buf[HWOFF_AES_BLOCK]; /* ECB, CBC: input not processed yet */
	size_t buf_len;
	unsigned char keystream[HWOFF_AES_BLOCK]; /* CTR: the keystream block num points into */
	unsigned int num; /* CTR: bytes of the current keystream block used; 0 = none */
	bool keystream_known;
	/*
	 * While the stream's requests are smaller than delegate_below, which the table sends to
	 * software, the default provider's context is the stream (its buffer, padding, chaining
	 * value, CTR position) and each call goes straight to it: the cost of a small request is
	 * then OpenSSL's own. buf mirrors what that context buffers, so that the stream can leave
	 * it for a larger request. delegate_below is 0 when the smallest requests go elsewhere,
	 * SIZE_MAX when every size goes to software.
	 */
	size_t delegate_below;
	bool delegated;
	/*
	 * Given the TLS record parameters: libssl's CBC record layer (padding and MAC checks in
	 * constant time) is the default provider's, so the stream is its context for good: always
	 * delegated, and init, EVP_Cipher() and the parameters forwarded whole.
	 */
	bool tls;
	bool software_keyed;
	/*
	 * Which context's IV is the chaining value now: one kernel session (its holds_chain),
	 * software, or none; every other is told it before its next request.
	 */
	bool software_holds_chain;
};
CIPHER_BASE_FIRST(struct cipher_ctx);

static inline bool cipher_is_ctr(const struct cipher_ctx *c)
{
	return c->base.alg->mode == HWOFF_MODE_CTR;
}

/* ---- cipher_paths.c: who serves a request ------------------------------------------------ */

/*
 * len bytes (whole blocks, except CTR's last) from the stream's chaining value on path, or in
 * software when the kernel fails and software may redo it: the path that served them, or NULL
 * with the error raised. The chaining value is left for the caller to move on.
 */
struct hwoff_path *cipher_serve(struct cipher_ctx *c, struct hwoff_path *path,
				const unsigned char *in, unsigned char *out, size_t len);
/* len bytes by the default provider, from the stream's chaining value (not the delegation). */
int cipher_software_crypt(struct cipher_ctx *c, const unsigned char *in, unsigned char *out,
			  size_t len);
/* The chaining value was set here: no context has it; each is told it before its next request. */
void cipher_chain_held_by_none(struct cipher_ctx *c);

/* Who serves a request: the default provider's context as the whole stream, or our paths. */
enum cipher_server {
	CIPHER_DELEGATED, /* the default provider's context (entered when the stream can) */
	CIPHER_OWN_PATHS, /* cipher_crypt() (the delegation left) */
	CIPHER_SERVER_FAILED, /* entering or leaving failed: error raised */
};
/* cipher_server_for() when the answer may change: enters or leaves the delegation. */
enum cipher_server cipher_server_change(struct cipher_ctx *c, size_t size);
static inline enum cipher_server cipher_server_for(struct cipher_ctx *c, size_t size)
{
	if (c->delegated && size < c->delegate_below)
		return CIPHER_DELEGATED; /* a small stream's every call: no function call more */
	return cipher_server_change(c, size);
}
int cipher_enter_delegation(struct cipher_ctx *c);
int cipher_leave_delegation(struct cipher_ctx *c);

/* ---- cipher_mode.c: the chaining value ----------------------------------------------------- */

/*
 * len bytes (whole blocks, except CTR's last) from the stream's state, by the path the router
 * decides for a request of route_size bytes; then the state moves on.
 */
int cipher_crypt(struct cipher_ctx *c, const unsigned char *in, unsigned char *out, size_t len,
		 size_t route_size);
/* CTR: the rest of a keystream block first, then whole requests. */
int cipher_ctr_crypt(struct cipher_ctx *c, unsigned char *out, const unsigned char *in, size_t len);

/* ---- cipher_block.c: ECB and CBC --------------------------------------------------------- */

/* The bytes a stream of total bytes keeps back for later (as OpenSSL does). */
static inline size_t cipher_bytes_kept(const struct cipher_ctx *c, size_t total)
{
	size_t keep = total % HWOFF_AES_BLOCK;

	/* Decrypting with padding keeps the last whole block too: only final() knows it is last. */
	if (!c->base.encrypt && c->padding && !keep)
		keep = HWOFF_AES_BLOCK;
	return keep;
}
/* Whole blocks go now, the rest waits in buf. */
int cipher_block_update(struct cipher_ctx *c, unsigned char *out, size_t *outl, size_t outsize,
			const unsigned char *in, size_t inl);
/* The padded last block, or the unpadded end of a decryption. */
int cipher_block_final(struct cipher_ctx *c, unsigned char *out, size_t *outl, size_t outsize);

#endif
