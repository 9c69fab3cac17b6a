/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cipher.h - what the files of the cipher family share (the provider's split follows OpenSSL's):
 * cipher.c the dispatch functions, init and parameters; cipher_block.c the block buffering and
 * padding of ECB and CBC; cipher_mode.c the mode state (CBC's chaining value, CTR's counter and
 * keystream position); cipher_paths.c the paths that serve a request (kernel sessions, software,
 * and the hand-over of the whole stream to the default provider's context).
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

#include "backend/algs.h"
#include "backend/transport.h"
#include "provider/provider.h"

#define CIPHER_KERNEL_SESSIONS 4 /* distinct kernel paths one stream has used: PIO and DMA */
#define CHAIN_NOBODY	       (-2) /* cipher_ctx.chain_holder: only chain has it */
#define CHAIN_SOFTWARE	       (-1)

struct cipher_kernel_session {
	struct hwoff_path *path;
	struct hwoff_skcipher *skcipher;
};

struct cipher_ctx {
	struct hwprov *prov;
	const struct hwoff_alg *alg;
	bool keyed;
	bool encrypt;
	bool padding;
	unsigned char key[HWOFF_AES_KEY_MAX];
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
	struct hwprov_tally tally;
	struct hwoff_route_cache route; /* reset by init: the direction may change */
	const struct hwprov_software *sw; /* the default provider's functions, once used */
	void *software; /* its context */
	bool software_keyed;
	/*
	 * Which context's IV is the chaining value now: one kernel session (its index), software,
	 * or none; every other is told it before its next request.
	 */
	int chain_holder;
	struct cipher_kernel_session kernel[CIPHER_KERNEL_SESSIONS];
};

static inline bool cipher_is_ctr(const struct cipher_ctx *c)
{
	return c->alg->mode == HWOFF_MODE_CTR;
}

static inline enum hwoff_direction cipher_direction(const struct cipher_ctx *c)
{
	return c->encrypt ? HWOFF_ENCRYPT : HWOFF_DECRYPT;
}

/* cipher.c: the output buffer has room for need bytes, or the error is raised. */
int cipher_check_room(struct cipher_ctx *c, size_t need, size_t outsize);

/* ---- cipher_block.c: ECB and CBC --------------------------------------------------------- */

/* The bytes a stream of total bytes keeps back for later (as OpenSSL does). */
static inline size_t cipher_bytes_kept(const struct cipher_ctx *c, size_t total)
{
	size_t keep = total % HWOFF_AES_BLOCK;

	/* Decrypting with padding keeps the last whole block too: only final() knows it is last. */
	if (!c->encrypt && c->padding && !keep)
		keep = HWOFF_AES_BLOCK;
	return keep;
}
/* Whole blocks go now, the rest waits in buf. */
int cipher_block_update(struct cipher_ctx *c, unsigned char *out, size_t *outl, size_t outsize,
			const unsigned char *in, size_t inl);
/* The padded last block, or the unpadded end of a decryption. */
int cipher_block_final(struct cipher_ctx *c, unsigned char *out, size_t *outl, size_t outsize);

/* ---- cipher_mode.c: the chaining value ----------------------------------------------------- */

/*
 * What the chaining value after a request of len bytes from in needs before the request runs
 * (in may be out): CBC decryption's last ciphertext block, into kept.
 */
void cipher_chain_keep(const struct cipher_ctx *c, const unsigned char *in, size_t len,
		       unsigned char kept[HWOFF_AES_BLOCK]);
/* The chaining value moves past a request of len bytes that wrote out. */
void cipher_chain_advance(struct cipher_ctx *c, const unsigned char kept[HWOFF_AES_BLOCK],
			  const unsigned char *out, size_t len);
/* CTR: the rest of a keystream block first, then whole requests. */
int cipher_ctr_crypt(struct cipher_ctx *c, unsigned char *out, const unsigned char *in, size_t len);

/* ---- cipher_paths.c ------------------------------------------------------------------------ */

/*
 * len bytes (whole blocks, except CTR's last) from the stream's state, by the path the router
 * decides for a request of route_size bytes; then the state moves on.
 */
int cipher_crypt(struct cipher_ctx *c, const unsigned char *in, unsigned char *out, size_t len,
		 size_t route_size);
/* len bytes by the default provider, from the stream's chaining value (not the delegation). */
int cipher_software_crypt(struct cipher_ctx *c, const unsigned char *in, unsigned char *out,
			  size_t len);
void cipher_drop_kernel_sessions(struct cipher_ctx *c);

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

#endif
