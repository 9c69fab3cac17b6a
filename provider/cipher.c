/*
 * cipher.c - AES-ECB, -CBC and -CTR: every row of the algorithm table of kind cipher.
 *
 * The stream state is kept here, not in whichever path served the last request: the partial
 * block (ECB, CBC), the chaining value (CBC's last ciphertext block, CTR's counter) and CTR's
 * position in its keystream block. Each update is one request sent down the path the backend
 * decides for its size, starting from that state; so a stream whose updates take different paths
 * gives the bytes of one that takes one path. The kernel and software contexts are made on first
 * use and told the chaining value when another path moved it.
 */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "backend/stats.h"
#include "backend/transport.h"
#include "provider/provider.h"

#define AES_BLOCK	16
#define AES_KEY_MAX	32
#define KERNEL_SESSIONS 4 /* distinct kernel paths one stream has used: PIO and DMA in practice */
#define CHAIN_NOBODY	(-2) /* cipher_ctx.chain_holder: only chain has it */
#define CHAIN_SOFTWARE	(-1)

struct kernel_session {
	struct hwoff_path *path;
	struct hwoff_skcipher *skcipher;
};

struct cipher_ctx {
	struct hwoff_prov *prov;
	const struct hwoff_alg *alg;
	bool keyed;
	bool encrypt;
	bool padding;
	unsigned char key[AES_KEY_MAX];
	unsigned char iv[AES_BLOCK]; /* as given at init: OSSL_CIPHER_PARAM_IV */
	unsigned char chain[AES_BLOCK]; /* the next block's IV or counter: ..._UPDATED_IV */
	unsigned char buf[AES_BLOCK]; /* ECB, CBC: input not processed yet */
	size_t buf_len;
	unsigned char keystream[AES_BLOCK]; /* CTR: the keystream block num points into */
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
	struct hwoff_tally tally;
	struct hwoff_route_cache route; /* reset by init: the direction may change */
	const struct hwoff_software *sw; /* the default provider's functions, once used */
	void *software; /* its context */
	bool software_keyed;
	/*
	 * Which context's IV is the chaining value now: one kernel session (its index), software,
	 * or none; every other is told it before its next request.
	 */
	int chain_holder;
	struct kernel_session kernel[KERNEL_SESSIONS];
};

static bool is_ctr(const struct cipher_ctx *c)
{
	return c->alg->mode == HWOFF_MODE_CTR;
}

static enum hwoff_direction direction_of(const struct cipher_ctx *c)
{
	return c->encrypt ? HWOFF_ENCRYPT : HWOFF_DECRYPT;
}

static int session_index(const struct cipher_ctx *c, const struct kernel_session *s)
{
	return (int)(s - c->kernel);
}

static void drop_kernel_session(struct cipher_ctx *c, struct kernel_session *s)
{
	hwoff_skcipher_free(s->skcipher);
	*s = (struct kernel_session){ 0 };
	if (c->chain_holder == session_index(c, s))
		c->chain_holder = CHAIN_NOBODY;
}

static void drop_kernel_sessions(struct cipher_ctx *c)
{
	for (int i = 0; i < KERNEL_SESSIONS; i++)
		drop_kernel_session(c, &c->kernel[i]);
}

/* CTR's counter is a 128-bit big-endian number that wraps. */
static void counter_add(unsigned char *counter, size_t blocks)
{
	for (int i = AES_BLOCK - 1; i >= 0 && blocks; i--) {
		blocks += counter[i];
		counter[i] = blocks & 0xff;
		blocks >>= 8;
	}
}

static void counter_sub_one(unsigned char *counter)
{
	for (int i = AES_BLOCK - 1; i >= 0 && counter[i]-- == 0; i--)
		;
}

/* ---- the two kinds of path --------------------------------------------------------------------
 */

static struct kernel_session *kernel_session(struct cipher_ctx *c, struct hwoff_path *path,
					     char *err, size_t err_len)
{
	struct kernel_session *free_slot = NULL;

	for (int i = 0; i < KERNEL_SESSIONS; i++) {
		if (c->kernel[i].path == path)
			return &c->kernel[i];
		if (!c->kernel[i].path && !free_slot)
			free_slot = &c->kernel[i];
	}
	if (!free_slot) {
		/* More paths than slots: a table that alternates many drivers. Reuse the first. */
		free_slot = &c->kernel[0];
		drop_kernel_session(c, free_slot);
	}
	if (hwoff_skcipher_new(&free_slot->skcipher, c->alg, path->name, c->key, c->alg->key_bytes,
			       err, err_len))
		return NULL;
	free_slot->path = path;
	return free_slot;
}

/*
 * 1: done. -1: the kernel failed and software may redo it (the input is intact). 0: failed for
 * good, error raised.
 */
static int kernel_crypt(struct cipher_ctx *c, struct hwoff_path *path, const unsigned char *in,
			unsigned char *out, size_t len)
{
	char err[HWOFF_TRANSPORT_ERROR_MAX];
	struct kernel_session *s = kernel_session(c, path, err, sizeof(err));
	unsigned char *copy = NULL;
	int ret;

	if (!s)
		return hwoff_prov_kernel_failed(c->prov, path, HWOFF_FALLBACK_SETUP_FAILED, err)
			       ? -1
			       : 0;
	/*
	 * The engine writes into out as it goes; in place, a failure half-way would leave neither
	 * the input nor the output for software to redo. Keep the input then.
	 */
	if (c->prov->router.fallback && in < out + len && out < in + len) {
		copy = malloc(len);
		if (!copy) {
			HWOFF_RAISE(c->prov, HWOFF_R_BAD_ARGUMENT, "out of memory");
			return 0;
		}
		memcpy(copy, in, len);
		in = copy;
	}
	ret = c->chain_holder == session_index(c, s) || !c->alg->iv_bytes
		      ? 0
		      : hwoff_skcipher_set_iv(s->skcipher, c->chain, AES_BLOCK);
	if (!ret)
		ret = hwoff_skcipher_crypt(s->skcipher, c->encrypt, in, out, len);
	if (ret) {
		bool may_redo;

		snprintf(err, sizeof(err), "%s", hwoff_skcipher_error(s->skcipher));
		drop_kernel_session(c, s);
		may_redo =
			hwoff_prov_kernel_failed(c->prov, path, HWOFF_FALLBACK_REQUEST_FAILED, err);
		if (may_redo && copy)
			memcpy(out, copy, len); /* software redoes it in place from here */
		OPENSSL_clear_free(copy, len);
		return may_redo ? -1 : 0;
	}
	OPENSSL_clear_free(copy, len);
	c->chain_holder = session_index(c, s);
	hwoff_path_served(path);
	return 1;
}

static int software_crypt(struct cipher_ctx *c, const unsigned char *in, unsigned char *out,
			  size_t len)
{
	const unsigned char *iv = c->alg->iv_bytes ? c->chain : NULL;
	size_t iv_len = c->alg->iv_bytes, outl;
	OSSL_FUNC_cipher_encrypt_init_fn *init;

	if (!c->sw) {
		c->sw = hwoff_software_of(c->prov, c->alg);
		if (!c->sw)
			return 0;
	}
	init = c->encrypt ? c->sw->cipher.encrypt_init : c->sw->cipher.decrypt_init;
	if (!c->software_keyed) {
		unsigned int no_padding = 0;
		const OSSL_PARAM params[] = {
			OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &no_padding),
			OSSL_PARAM_END,
		};

		if (!c->software)
			c->software = c->sw->cipher.newctx(c->sw->provctx);
		if (!c->software ||
		    !init(c->software, c->key, c->alg->key_bytes, iv, iv_len, params))
			goto fail;
		c->software_keyed = true;
	} else if (c->chain_holder != CHAIN_SOFTWARE && iv &&
		   !init(c->software, NULL, 0, iv, iv_len, NULL)) {
		goto fail;
	}
	if (!c->sw->cipher.cipher(c->software, out, &outl, len, in, len) || outl != len)
		goto fail;
	/* After a partial CTR block OpenSSL keeps the rest of that keystream; we keep our own. */
	c->chain_holder = is_ctr(c) && len % AES_BLOCK ? CHAIN_NOBODY : CHAIN_SOFTWARE;
	return 1;
fail:
	HWOFF_RAISE(c->prov, HWOFF_R_SOFTWARE, "%s in the default provider failed", c->alg->name);
	c->software_keyed = false;
	return 0;
}

/*
 * len bytes (whole blocks, except CTR's last) from the stream's state, by the path decided for
 * a request of route_size bytes; then the state moves on.
 */
static int crypt_blocks(struct cipher_ctx *c, const unsigned char *in, unsigned char *out,
			size_t len, size_t route_size)
{
	struct hwoff_path *path =
		hwoff_prov_route(c->prov, c->alg, direction_of(c), route_size, &c->route);
	unsigned char last_in[AES_BLOCK];
	int ret = -1;

	if (!path)
		return 0;
	if (c->alg->mode == HWOFF_MODE_CBC && !c->encrypt)
		memcpy(last_in, in + len - AES_BLOCK, AES_BLOCK); /* in may be out */
	if (!path->software)
		ret = kernel_crypt(c, path, in, out, len);
	if (ret == 0)
		return 0;
	if (ret < 0) {
		path = hwoff_router_software(&c->prov->router);
		if (!software_crypt(c, in, out, len))
			return 0;
	}
	hwoff_tally_add(&c->tally, path, len);

	switch (c->alg->mode) {
	case HWOFF_MODE_CBC:
		memcpy(c->chain, c->encrypt ? out + len - AES_BLOCK : last_in, AES_BLOCK);
		break;
	case HWOFF_MODE_CTR:
		counter_add(c->chain, (len + AES_BLOCK - 1) / AES_BLOCK);
		c->num = len % AES_BLOCK;
		c->keystream_known = false;
		break;
	default:
		break;
	}
	return 1;
}

/* ---- CTR ----------------------------------------------------------------------------------------
 */

/* The keystream block before the counter: the rest of it is what a partial block left unused. */
static int recover_keystream(struct cipher_ctx *c)
{
	static const unsigned char zeros[AES_BLOCK];
	unsigned char counter[AES_BLOCK];
	int ok;

	memcpy(counter, c->chain, AES_BLOCK);
	counter_sub_one(c->chain);
	c->chain_holder = CHAIN_NOBODY;
	/* Encrypting zeros from there gives that block's keystream, and leaves software at counter.
	 */
	ok = software_crypt(c, zeros, c->keystream, AES_BLOCK);
	memcpy(c->chain, counter, AES_BLOCK);
	c->keystream_known = ok;
	return ok;
}

static int ctr_crypt(struct cipher_ctx *c, unsigned char *out, const unsigned char *in, size_t len)
{
	size_t n = 0;

	while (c->num && n < len) {
		if (!c->keystream_known && !recover_keystream(c))
			return 0;
		out[n] = in[n] ^ c->keystream[c->num];
		n++;
		c->num = (c->num + 1) % AES_BLOCK;
	}
	return n == len || crypt_blocks(c, in + n, out + n, len - n, len - n);
}

/* ---- the dispatch functions ---------------------------------------------------------------------
 */

void *hwoff_cipher_newctx(struct hwoff_prov *prov, const struct hwoff_alg *alg)
{
	struct cipher_ctx *c;

	if (!hwoff_prov_can_serve(prov, alg))
		return NULL;
	c = OPENSSL_zalloc(sizeof(*c));
	if (!c)
		return NULL;
	c->prov = prov;
	c->alg = alg;
	c->padding = true;
	c->chain_holder = CHAIN_NOBODY;
	return c;
}

static void cipher_freectx(void *vctx)
{
	struct cipher_ctx *c = vctx;

	if (!c)
		return;
	hwoff_tally_flush(&c->tally);
	drop_kernel_sessions(c);
	if (c->software)
		c->sw->cipher.freectx(c->software);
	OPENSSL_clear_free(c, sizeof(*c));
}

static void *cipher_dupctx(void *vctx)
{
	struct cipher_ctx *src = vctx, *c = OPENSSL_memdup(src, sizeof(*src));

	if (!c)
		return NULL;
	/* The copy makes its own kernel sessions when it needs them, from its chaining value. */
	memset(c->kernel, 0, sizeof(c->kernel));
	if (c->chain_holder >= 0)
		c->chain_holder = CHAIN_NOBODY;
	c->tally = (struct hwoff_tally){ 0 };
	c->software = NULL;
	if (src->software) {
		c->software = src->sw->cipher.dupctx(src->software);
		if (!c->software) {
			cipher_freectx(c);
			return NULL;
		}
	}
	return c;
}

static int cipher_set_ctx_params(void *vctx, const OSSL_PARAM params[]);

/* ECB, CBC: the bytes a stream of total bytes keeps back for later (as OpenSSL does). */
static size_t bytes_kept(const struct cipher_ctx *c, size_t total)
{
	size_t keep = total % AES_BLOCK;

	/* Decrypting with padding keeps the last whole block too: only final() knows it is last. */
	if (!c->encrypt && c->padding && !keep)
		keep = AES_BLOCK;
	return keep;
}

/*
 * The default provider's context takes the stream: our key, chaining value and padding, and
 * the bytes we keep back. Not for a CTR stream in the middle of a keystream block.
 */
static int enter_delegation(struct cipher_ctx *c)
{
	OSSL_FUNC_cipher_encrypt_init_fn *init;
	unsigned int padding = c->padding;
	const OSSL_PARAM params[] = {
		OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &padding),
		OSSL_PARAM_END,
	};
	unsigned char none[AES_BLOCK];
	size_t outl;

	if (!c->sw) {
		c->sw = hwoff_software_of(c->prov, c->alg);
		if (!c->sw)
			return 0;
	}
	if (!c->software)
		c->software = c->sw->cipher.newctx(c->sw->provctx);
	init = c->encrypt ? c->sw->cipher.encrypt_init : c->sw->cipher.decrypt_init;
	if (!c->software ||
	    !init(c->software, c->keyed && !c->software_keyed ? c->key : NULL, c->alg->key_bytes,
		  c->alg->iv_bytes ? c->chain : NULL, c->alg->iv_bytes, params) ||
	    (c->buf_len &&
	     (!c->sw->cipher.update(c->software, none, &outl, sizeof(none), c->buf, c->buf_len) ||
	      outl))) {
		HWOFF_RAISE(c->prov, HWOFF_R_SOFTWARE, "%s in the default provider failed",
			    c->alg->name);
		c->software_keyed = false;
		return 0;
	}
	c->software_keyed = c->keyed;
	c->delegated = true;
	return 1;
}

/* The stream leaves the default provider's context, with its chaining value and CTR position. */
static int leave_delegation(struct cipher_ctx *c)
{
	OSSL_PARAM params[] = {
		OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, c->chain, AES_BLOCK),
		OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, &c->num),
		OSSL_PARAM_END,
	};

	if (!c->delegated)
		return 1;
	c->delegated = false;
	c->keystream_known = false;
	c->chain_holder = CHAIN_NOBODY; /* software_crypt() sets it again */
	if (!c->software_keyed || c->sw->cipher.get_ctx_params(c->software, params))
		return 1;
	HWOFF_RAISE(c->prov, HWOFF_R_SOFTWARE, "%s in the default provider failed", c->alg->name);
	return 0;
}

/*
 * Who serves a request of size bytes: 1, the default provider's context (entering it when the
 * stream can); 0, the stream's own paths (leaving it); -1: failed, error raised.
 */
static int delegated_for(struct cipher_ctx *c, size_t size)
{
	if (size >= c->delegate_below)
		return leave_delegation(c) ? 0 : -1;
	if (c->delegated)
		return 1;
	if (is_ctr(c) && c->num)
		return 0;
	return enter_delegation(c) ? 1 : -1;
}

static int delegated_update(struct cipher_ctx *c, unsigned char *out, size_t *outl, size_t outsize,
			    const unsigned char *in, size_t inl)
{
	/* Mirror what the default provider keeps back; before it runs, as in may be out. */
	if (!is_ctr(c) && inl) {
		size_t total = c->buf_len + inl, keep = bytes_kept(c, total);

		if (total <= keep) {
			memcpy(c->buf + c->buf_len, in, inl);
			c->buf_len = total;
		} else {
			if (keep)
				memcpy(c->buf, in + inl - keep, keep);
			c->buf_len = keep;
		}
	}
	if (!c->sw->cipher.update(c->software, out, outl, outsize, in, inl))
		return 0;
	if (inl)
		hwoff_tally_add(&c->tally, hwoff_router_software(&c->prov->router), inl);
	return 1;
}

/*
 * The TLS record parameters: the default provider's context takes the stream for good (see
 * cipher_ctx.tls). Not in the middle of a CTR keystream block, which it cannot be told.
 */
static int enter_tls(struct cipher_ctx *c)
{
	if (is_ctr(c) && c->num && !c->delegated) {
		HWOFF_RAISE(c->prov, HWOFF_R_PARAMETER,
			    "%s: the TLS record parameters in the middle of a keystream block",
			    c->alg->name);
		return 0;
	}
	if (!c->delegated && !enter_delegation(c))
		return 0;
	drop_kernel_sessions(c);
	c->delegate_below = SIZE_MAX; /* updates and final: as any delegated stream's */
	c->tls = true;
	return 1;
}

static int cipher_init(struct cipher_ctx *c, bool encrypt, const unsigned char *key, size_t keylen,
		       const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
	hwoff_tally_flush(&c->tally);
	if (c->tls) {
		c->keyed |= key != NULL;
		return (encrypt ? c->sw->cipher.encrypt_init : c->sw->cipher.decrypt_init)(
			c->software, key, keylen, iv, ivlen, params);
	}
	if (!leave_delegation(c))
		return 0;
	if (key) {
		if (keylen != c->alg->key_bytes) {
			HWOFF_RAISE(c->prov, HWOFF_R_KEY_LENGTH, "%s takes a %u-byte key, not %zu",
				    c->alg->name, c->alg->key_bytes, keylen);
			return 0;
		}
		memcpy(c->key, key, keylen);
		c->keyed = true;
		drop_kernel_sessions(c);
		c->software_keyed = false;
	}
	if (iv && c->alg->iv_bytes) {
		if (ivlen != c->alg->iv_bytes) {
			HWOFF_RAISE(c->prov, HWOFF_R_IV_LENGTH, "%s takes a %u-byte IV, not %zu",
				    c->alg->name, c->alg->iv_bytes, ivlen);
			return 0;
		}
		memcpy(c->iv, iv, ivlen);
		memcpy(c->chain, iv, ivlen);
	}
	if (encrypt != c->encrypt)
		c->software_keyed = false;
	c->encrypt = encrypt;
	c->route = (struct hwoff_route_cache){ 0 };
	c->delegate_below = hwoff_router_software_below(&c->prov->router, c->alg, direction_of(c));
	c->buf_len = 0;
	c->num = 0;
	c->keystream_known = false;
	c->chain_holder = CHAIN_NOBODY;
	if (c->delegate_below && !enter_delegation(c))
		return 0;
	return cipher_set_ctx_params(c, params);
}

static int cipher_encrypt_init(void *vctx, const unsigned char *key, size_t keylen,
			       const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
	return cipher_init(vctx, true, key, keylen, iv, ivlen, params);
}

static int cipher_decrypt_init(void *vctx, const unsigned char *key, size_t keylen,
			       const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
	return cipher_init(vctx, false, key, keylen, iv, ivlen, params);
}

static int check_call(struct cipher_ctx *c, const void *out, const void *in, size_t inl)
{
	if (!c->keyed) {
		HWOFF_RAISE(c->prov, HWOFF_R_NOT_INITIALIZED, "%s: no key was set", c->alg->name);
		return 0;
	}
	if (inl && (!in || !out)) {
		HWOFF_RAISE(c->prov, HWOFF_R_BAD_ARGUMENT, "%s: NULL %s buffer", c->alg->name,
			    in ? "output" : "input");
		return 0;
	}
	return 1;
}

static int check_room(struct cipher_ctx *c, size_t need, size_t outsize)
{
	if (need <= outsize)
		return 1;
	HWOFF_RAISE(c->prov, HWOFF_R_BAD_ARGUMENT, "%s: output buffer of %zu bytes, %zu needed",
		    c->alg->name, outsize, need);
	return 0;
}

/* ECB and CBC: whole blocks go now, the rest waits in buf. */
static int block_update(struct cipher_ctx *c, unsigned char *out, size_t *outl, size_t outsize,
			const unsigned char *in, size_t inl)
{
	size_t total = c->buf_len + inl, keep = bytes_kept(c, total), todo, bulk;

	if (total <= keep) {
		memcpy(c->buf + c->buf_len, in, inl);
		c->buf_len = total;
		*outl = 0;
		return 1;
	}
	todo = total - keep;
	if (!check_room(c, todo, outsize))
		return 0;
	*outl = 0;
	if (c->buf_len) {
		size_t fill = AES_BLOCK - c->buf_len;

		memcpy(c->buf + c->buf_len, in, fill);
		in += fill;
		if (!crypt_blocks(c, c->buf, out, AES_BLOCK, todo))
			return 0;
		out += AES_BLOCK;
		*outl = AES_BLOCK;
		todo -= AES_BLOCK;
	}
	bulk = todo;
	if (bulk && !crypt_blocks(c, in, out, bulk, *outl + bulk))
		return 0;
	*outl += bulk;
	memcpy(c->buf, in + bulk, keep);
	c->buf_len = keep;
	return 1;
}

static int cipher_update(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
			 const unsigned char *in, size_t inl)
{
	struct cipher_ctx *c = vctx;

	if (!check_call(c, out, in, inl))
		return 0;
	switch (delegated_for(c, c->buf_len + inl)) {
	case 1:
		return delegated_update(c, out, outl, outsize, in, inl);
	case -1:
		return 0;
	}
	if (!inl) {
		*outl = 0;
		return 1;
	}
	if (!is_ctr(c))
		return block_update(c, out, outl, outsize, in, inl);
	if (!check_room(c, inl, outsize) || !ctr_crypt(c, out, in, inl))
		return 0;
	*outl = inl;
	return 1;
}

static int cipher_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
	struct cipher_ctx *c = vctx;
	unsigned char block[AES_BLOCK];
	unsigned int pad;

	if (!check_call(c, out, NULL, 0))
		return 0;
	if (c->delegated) {
		c->buf_len = 0;
		return c->sw->cipher.final(c->software, out, outl, outsize);
	}
	*outl = 0;
	if (is_ctr(c))
		return 1;
	if (!c->padding) {
		if (!c->buf_len)
			return 1;
		HWOFF_RAISE(c->prov, HWOFF_R_NOT_BLOCK_MULTIPLE,
			    "%s with padding off: %zu bytes left over", c->alg->name, c->buf_len);
		return 0;
	}
	if (c->encrypt) {
		pad = AES_BLOCK - c->buf_len;
		memset(c->buf + c->buf_len, (int)pad, pad);
		if (!check_room(c, AES_BLOCK, outsize) ||
		    !crypt_blocks(c, c->buf, out, AES_BLOCK, AES_BLOCK))
			return 0;
		c->buf_len = 0;
		*outl = AES_BLOCK;
		return 1;
	}
	if (c->buf_len != AES_BLOCK) {
		HWOFF_RAISE(c->prov, HWOFF_R_BAD_DECRYPT,
			    "%s: wrong final block length (%zu bytes)", c->alg->name, c->buf_len);
		return 0;
	}
	if (!crypt_blocks(c, c->buf, block, AES_BLOCK, AES_BLOCK))
		return 0;
	c->buf_len = 0;
	pad = block[AES_BLOCK - 1];
	for (unsigned int i = 0; i < pad && pad <= AES_BLOCK; i++)
		if (block[AES_BLOCK - 1 - i] != pad)
			pad = 0;
	if (!pad || pad > AES_BLOCK) {
		OPENSSL_cleanse(block, sizeof(block));
		HWOFF_RAISE(c->prov, HWOFF_R_BAD_DECRYPT, "%s: bad padding", c->alg->name);
		return 0;
	}
	if (!check_room(c, AES_BLOCK - pad, outsize))
		return 0;
	memcpy(out, block, AES_BLOCK - pad);
	OPENSSL_cleanse(block, sizeof(block));
	*outl = AES_BLOCK - pad;
	return 1;
}

/* EVP_Cipher(): no buffering and no padding, as OpenSSL's own ciphers do. */
static int cipher_cipher(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
			 const unsigned char *in, size_t inl)
{
	struct cipher_ctx *c = vctx;

	if (c->tls) {
		if (!c->sw->cipher.cipher(c->software, out, outl, outsize, in, inl))
			return 0;
		if (inl)
			hwoff_tally_add(&c->tally, hwoff_router_software(&c->prov->router), inl);
		return 1;
	}
	if (!check_call(c, out, in, inl) || !check_room(c, inl, outsize))
		return 0;
	/* Stricter than OpenSSL's own ECB and CBC, which process the whole blocks and say nothing.
	 */
	if (!is_ctr(c) && inl % AES_BLOCK) {
		HWOFF_RAISE(c->prov, HWOFF_R_NOT_BLOCK_MULTIPLE, "%s: %zu bytes", c->alg->name,
			    inl);
		return 0;
	}
	switch (delegated_for(c, inl)) {
	case 1:
		if (!c->sw->cipher.cipher(c->software, out, outl, outsize, in, inl))
			return 0;
		if (inl)
			hwoff_tally_add(&c->tally, hwoff_router_software(&c->prov->router), inl);
		return 1;
	case -1:
		return 0;
	}
	*outl = 0;
	if (!inl)
		return 1;
	if (is_ctr(c)) {
		if (!ctr_crypt(c, out, in, inl))
			return 0;
	} else if (!crypt_blocks(c, in, out, inl, inl)) {
		return 0;
	}
	*outl = inl;
	return 1;
}

/* ---- parameters ---------------------------------------------------------------------------------
 */

static unsigned int openssl_mode(const struct hwoff_alg *alg)
{
	switch (alg->mode) {
	case HWOFF_MODE_ECB:
		return EVP_CIPH_ECB_MODE;
	case HWOFF_MODE_CBC:
		return EVP_CIPH_CBC_MODE;
	case HWOFF_MODE_CTR:
		return EVP_CIPH_CTR_MODE;
	default:
		return 0;
	}
}

/* OpenSSL's own ciphers answer either kind of octet parameter. */
static int set_octets(OSSL_PARAM params[], const char *key, const unsigned char *value, size_t len)
{
	OSSL_PARAM *p = OSSL_PARAM_locate(params, key);

	return !p || OSSL_PARAM_set_octet_ptr(p, value, len) ||
	       OSSL_PARAM_set_octet_string(p, value, len);
}

int hwoff_cipher_get_params(const struct hwoff_alg *alg, OSSL_PARAM params[])
{
	return hwoff_param_set_uint(params, OSSL_CIPHER_PARAM_MODE, openssl_mode(alg)) &&
	       hwoff_param_set_size(params, OSSL_CIPHER_PARAM_KEYLEN, alg->key_bytes) &&
	       hwoff_param_set_size(params, OSSL_CIPHER_PARAM_IVLEN, alg->iv_bytes) &&
	       hwoff_param_set_size(params, OSSL_CIPHER_PARAM_BLOCK_SIZE, alg->block_bytes) &&
	       hwoff_param_set_int(params, OSSL_CIPHER_PARAM_AEAD, 0) &&
	       hwoff_param_set_int(params, OSSL_CIPHER_PARAM_CUSTOM_IV, 0) &&
	       hwoff_param_set_int(params, OSSL_CIPHER_PARAM_CTS, 0) &&
	       hwoff_param_set_int(params, OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, 0) &&
	       hwoff_param_set_int(params, OSSL_CIPHER_PARAM_HAS_RAND_KEY, 0);
}

static const OSSL_PARAM cipher_gettable[] = {
	OSSL_PARAM_uint(OSSL_CIPHER_PARAM_MODE, NULL),
	OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
	OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
	OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_BLOCK_SIZE, NULL),
	OSSL_PARAM_int(OSSL_CIPHER_PARAM_AEAD, NULL),
	OSSL_PARAM_int(OSSL_CIPHER_PARAM_CUSTOM_IV, NULL),
	OSSL_PARAM_int(OSSL_CIPHER_PARAM_CTS, NULL),
	OSSL_PARAM_int(OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, NULL),
	OSSL_PARAM_int(OSSL_CIPHER_PARAM_HAS_RAND_KEY, NULL),
	OSSL_PARAM_END,
};

static const OSSL_PARAM *cipher_gettable_params(void *provctx)
{
	return cipher_gettable;
}

static int cipher_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
	struct cipher_ctx *c = vctx;

	if (c->tls)
		return c->sw->cipher.get_ctx_params(c->software, params);
	/* A delegated stream's num and updated IV are the default provider's to tell. */
	if (c->delegated && c->software_keyed && !c->sw->cipher.get_ctx_params(c->software, params))
		return 0;
	if (c->delegated && c->software_keyed)
		return hwoff_param_set_size(params, OSSL_CIPHER_PARAM_KEYLEN, c->alg->key_bytes) &&
		       hwoff_param_set_size(params, OSSL_CIPHER_PARAM_IVLEN, c->alg->iv_bytes) &&
		       set_octets(params, OSSL_CIPHER_PARAM_IV, c->iv, c->alg->iv_bytes);
	return hwoff_param_set_size(params, OSSL_CIPHER_PARAM_KEYLEN, c->alg->key_bytes) &&
	       hwoff_param_set_size(params, OSSL_CIPHER_PARAM_IVLEN, c->alg->iv_bytes) &&
	       hwoff_param_set_uint(params, OSSL_CIPHER_PARAM_PADDING, c->padding) &&
	       hwoff_param_set_uint(params, OSSL_CIPHER_PARAM_NUM, c->num) &&
	       set_octets(params, OSSL_CIPHER_PARAM_IV, c->iv, c->alg->iv_bytes) &&
	       set_octets(params, OSSL_CIPHER_PARAM_UPDATED_IV, c->chain, c->alg->iv_bytes);
}

static const OSSL_PARAM cipher_gettable_ctx[] = {
	OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
	OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
	OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
	OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, NULL),
	OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, NULL, 0),
	OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, NULL, 0),
	OSSL_PARAM_octet_ptr(OSSL_CIPHER_PARAM_TLS_MAC, NULL, 0),
	OSSL_PARAM_END,
};

static const OSSL_PARAM *cipher_gettable_ctx_params(void *cctx, void *provctx)
{
	return cipher_gettable_ctx;
}

static int cipher_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
	struct cipher_ctx *c = vctx;
	const OSSL_PARAM *p;
	unsigned int value;
	size_t len;

	if (!params)
		return 1;
	if (!c->tls && (OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_TLS_VERSION) ||
			OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_TLS_MAC_SIZE)) &&
	    !enter_tls(c))
		return 0;
	if (c->tls)
		return c->sw->cipher.set_ctx_params(c->software, params);
	p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_PADDING);
	if (p) {
		if (!OSSL_PARAM_get_uint(p, &value))
			goto bad;
		c->padding = value != 0;
	}
	p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_NUM);
	if (p) {
		if (!OSSL_PARAM_get_uint(p, &value) || value >= AES_BLOCK || (value && !is_ctr(c)))
			goto bad;
		if (value != c->num)
			c->keystream_known = false;
		c->num = value;
	}
	/* Fixed by the algorithm: setting them is allowed only to the same value. */
	p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_KEYLEN);
	if (p) {
		if (!OSSL_PARAM_get_size_t(p, &len))
			goto bad;
		if (len != c->alg->key_bytes) {
			HWOFF_RAISE(c->prov, HWOFF_R_KEY_LENGTH, "%s takes a %u-byte key, not %zu",
				    c->alg->name, c->alg->key_bytes, len);
			return 0;
		}
	}
	p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_IVLEN);
	if (p) {
		if (!OSSL_PARAM_get_size_t(p, &len))
			goto bad;
		if (len != c->alg->iv_bytes) {
			HWOFF_RAISE(c->prov, HWOFF_R_IV_LENGTH, "%s takes a %u-byte IV, not %zu",
				    c->alg->name, c->alg->iv_bytes, len);
			return 0;
		}
	}
	/* A delegated stream's padding and num are kept by the default provider's context. */
	if (c->delegated && !c->sw->cipher.set_ctx_params(c->software, params))
		return 0;
	return 1;
bad:
	HWOFF_RAISE(c->prov, HWOFF_R_PARAMETER, "%s: bad value for parameter '%s'", c->alg->name,
		    p->key);
	return 0;
}

static const OSSL_PARAM cipher_settable_ctx[] = {
	OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, NULL),
	OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, NULL),
	OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, NULL),
	OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, NULL),
	OSSL_PARAM_uint(OSSL_CIPHER_PARAM_USE_BITS, NULL),
	OSSL_PARAM_uint(OSSL_CIPHER_PARAM_TLS_VERSION, NULL),
	OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, NULL),
	OSSL_PARAM_END,
};

static const OSSL_PARAM *cipher_settable_ctx_params(void *cctx, void *provctx)
{
	return cipher_settable_ctx;
}

const OSSL_DISPATCH hwoff_cipher_functions[] = {
	{ OSSL_FUNC_CIPHER_FREECTX, HWOFF_FN(cipher_freectx) },
	{ OSSL_FUNC_CIPHER_DUPCTX, HWOFF_FN(cipher_dupctx) },
	{ OSSL_FUNC_CIPHER_ENCRYPT_INIT, HWOFF_FN(cipher_encrypt_init) },
	{ OSSL_FUNC_CIPHER_DECRYPT_INIT, HWOFF_FN(cipher_decrypt_init) },
	{ OSSL_FUNC_CIPHER_UPDATE, HWOFF_FN(cipher_update) },
	{ OSSL_FUNC_CIPHER_FINAL, HWOFF_FN(cipher_final) },
	{ OSSL_FUNC_CIPHER_CIPHER, HWOFF_FN(cipher_cipher) },
	{ OSSL_FUNC_CIPHER_GETTABLE_PARAMS, HWOFF_FN(cipher_gettable_params) },
	{ OSSL_FUNC_CIPHER_GET_CTX_PARAMS, HWOFF_FN(cipher_get_ctx_params) },
	{ OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, HWOFF_FN(cipher_gettable_ctx_params) },
	{ OSSL_FUNC_CIPHER_SET_CTX_PARAMS, HWOFF_FN(cipher_set_ctx_params) },
	{ OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, HWOFF_FN(cipher_settable_ctx_params) },
	{ 0, NULL },
};
