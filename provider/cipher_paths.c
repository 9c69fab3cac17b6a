// SPDX-License-Identifier: Apache-2.0
/*
 * cipher_paths.c - the paths that serve a cipher request (cipher.h): the kernel sessions, the
 * default provider as one request's path, and the default provider's context as the whole stream.
 */
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include "backend/stats.h"
#include "provider/cipher.h"

static int session_index(const struct cipher_ctx *c, const struct cipher_kernel_session *s)
{
	return (int)(s - c->kernel);
}

static void drop_kernel_session(struct cipher_ctx *c, struct cipher_kernel_session *s)
{
	hwoff_skcipher_free(s->skcipher);
	*s = (struct cipher_kernel_session){ 0 };
	if (c->chain_holder == session_index(c, s))
		c->chain_holder = CHAIN_NOBODY;
}

void cipher_drop_kernel_sessions(struct cipher_ctx *c)
{
	for (int i = 0; i < CIPHER_KERNEL_SESSIONS; i++)
		drop_kernel_session(c, &c->kernel[i]);
}

/* ---- the two kinds of path ------------------------------------------------------------------ */

static struct cipher_kernel_session *kernel_session(struct cipher_ctx *c, struct hwoff_path *path,
						    char *err, size_t err_len)
{
	struct cipher_kernel_session *free_slot = NULL;

	for (int i = 0; i < CIPHER_KERNEL_SESSIONS; i++) {
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

enum kernel_outcome {
	KERNEL_DONE,
	KERNEL_REDO_IN_SOFTWARE, /* the kernel failed, the input is intact: software redoes it */
	KERNEL_FAILED, /* for good, error raised */
};

static enum kernel_outcome kernel_crypt(struct cipher_ctx *c, struct hwoff_path *path,
					const unsigned char *in, unsigned char *out, size_t len)
{
	char err[HWOFF_TRANSPORT_ERROR_MAX];
	struct cipher_kernel_session *s = kernel_session(c, path, err, sizeof(err));
	unsigned char *copy = NULL;
	int ret;

	if (!s)
		return hwprov_kernel_failed(c->prov, path, HWOFF_FALLBACK_SETUP_FAILED, err)
			       ? KERNEL_REDO_IN_SOFTWARE
			       : KERNEL_FAILED;
	/*
	 * The engine writes into out as it goes; in place, a failure half-way would leave neither
	 * the input nor the output for software to redo. Keep the input then.
	 */
	if (c->prov->router.fallback && in < out + len && out < in + len) {
		copy = OPENSSL_malloc(len);
		if (!copy) {
			HWPROV_RAISE(c->prov, HWPROV_R_OUT_OF_MEMORY, "%s: a copy of %zu bytes",
				     c->alg->name, len);
			return KERNEL_FAILED;
		}
		memcpy(copy, in, len);
		in = copy;
	}
	ret = c->chain_holder == session_index(c, s) || !c->alg->iv_bytes
		      ? 0
		      : hwoff_skcipher_set_iv(s->skcipher, c->chain, HWOFF_AES_BLOCK);
	if (!ret)
		ret = hwoff_skcipher_crypt(s->skcipher, c->encrypt, in, out, len);
	if (ret) {
		bool may_redo;

		snprintf(err, sizeof(err), "%s", hwoff_skcipher_error(s->skcipher));
		drop_kernel_session(c, s);
		may_redo = hwprov_kernel_failed(c->prov, path, HWOFF_FALLBACK_REQUEST_FAILED, err);
		if (may_redo && copy)
			memcpy(out, copy, len); /* software redoes it in place from here */
		OPENSSL_clear_free(copy, len);
		return may_redo ? KERNEL_REDO_IN_SOFTWARE : KERNEL_FAILED;
	}
	OPENSSL_clear_free(copy, len);
	c->chain_holder = session_index(c, s);
	hwoff_path_served(path);
	return KERNEL_DONE;
}

/* The default provider's functions and context for this stream, made on first use. */
static int software_context(struct cipher_ctx *c)
{
	if (!c->sw)
		c->sw = hwprov_software_of(c->prov, c->alg);
	if (!c->sw)
		return 0;
	if (!c->software)
		c->software = c->sw->cipher.newctx(c->sw->provctx);
	if (c->software)
		return 1;
	HWPROV_RAISE(c->prov, HWPROV_R_SOFTWARE, "%s: no context of the default provider",
		     c->alg->name);
	return 0;
}

int cipher_software_crypt(struct cipher_ctx *c, const unsigned char *in, unsigned char *out,
			  size_t len)
{
	const unsigned char *iv = c->alg->iv_bytes ? c->chain : NULL;
	size_t iv_len = c->alg->iv_bytes, outl;
	OSSL_FUNC_cipher_encrypt_init_fn *init;

	if (!software_context(c))
		return 0;
	init = c->encrypt ? c->sw->cipher.encrypt_init : c->sw->cipher.decrypt_init;
	if (!c->software_keyed) {
		unsigned int no_padding = 0;
		const OSSL_PARAM params[] = {
			OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &no_padding),
			OSSL_PARAM_END,
		};

		if (!init(c->software, c->key, c->alg->key_bytes, iv, iv_len, params))
			goto fail;
		c->software_keyed = true;
	} else if (c->chain_holder != CHAIN_SOFTWARE && iv &&
		   !init(c->software, NULL, 0, iv, iv_len, NULL)) {
		goto fail;
	}
	if (!c->sw->cipher.cipher(c->software, out, &outl, len, in, len) || outl != len)
		goto fail;
	/* After a partial CTR block OpenSSL keeps the rest of that keystream; we keep our own. */
	c->chain_holder = cipher_is_ctr(c) && len % HWOFF_AES_BLOCK ? CHAIN_NOBODY : CHAIN_SOFTWARE;
	return 1;
fail:
	HWPROV_RAISE(c->prov, HWPROV_R_SOFTWARE, "%s in the default provider failed", c->alg->name);
	c->software_keyed = false;
	return 0;
}

int cipher_crypt(struct cipher_ctx *c, const unsigned char *in, unsigned char *out, size_t len,
		 size_t route_size)
{
	struct hwoff_path *path =
		hwprov_route(c->prov, c->alg, cipher_direction(c), route_size, &c->route);
	enum kernel_outcome kernel = KERNEL_REDO_IN_SOFTWARE;
	unsigned char kept[HWOFF_AES_BLOCK];

	if (!path)
		return 0;
	cipher_chain_keep(c, in, len, kept);
	if (!path->software)
		kernel = kernel_crypt(c, path, in, out, len);
	if (kernel == KERNEL_FAILED)
		return 0;
	if (kernel == KERNEL_REDO_IN_SOFTWARE) {
		path = hwoff_router_software(&c->prov->router);
		if (!cipher_software_crypt(c, in, out, len))
			return 0;
	}
	hwprov_tally_add(c->prov, &c->tally, path, len);
	cipher_chain_advance(c, kept, out, len);
	return 1;
}

/*
 * The default provider's context takes the stream: our key, chaining value and padding, and
 * the bytes we keep back. Not for a CTR stream in the middle of a keystream block.
 */
int cipher_enter_delegation(struct cipher_ctx *c)
{
	OSSL_FUNC_cipher_encrypt_init_fn *init;
	unsigned int padding = c->padding;
	const OSSL_PARAM params[] = {
		OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &padding),
		OSSL_PARAM_END,
	};
	unsigned char none[HWOFF_AES_BLOCK];
	size_t outl;

	if (!software_context(c))
		return 0;
	init = c->encrypt ? c->sw->cipher.encrypt_init : c->sw->cipher.decrypt_init;
	if (!init(c->software, c->keyed && !c->software_keyed ? c->key : NULL, c->alg->key_bytes,
		  c->alg->iv_bytes ? c->chain : NULL, c->alg->iv_bytes, params) ||
	    (c->buf_len &&
	     (!c->sw->cipher.update(c->software, none, &outl, sizeof(none), c->buf, c->buf_len) ||
	      outl))) {
		HWPROV_RAISE(c->prov, HWPROV_R_SOFTWARE, "%s in the default provider failed",
			     c->alg->name);
		c->software_keyed = false;
		return 0;
	}
	c->software_keyed = c->keyed;
	c->delegated = true;
	return 1;
}

/* The stream leaves the default provider's context, with its chaining value and CTR position. */
int cipher_leave_delegation(struct cipher_ctx *c)
{
	OSSL_PARAM params[] = {
		OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_UPDATED_IV, c->chain, HWOFF_AES_BLOCK),
		OSSL_PARAM_uint(OSSL_CIPHER_PARAM_NUM, &c->num),
		OSSL_PARAM_END,
	};

	if (!c->delegated)
		return 1;
	c->delegated = false;
	c->keystream_known = false;
	c->chain_holder = CHAIN_NOBODY; /* cipher_software_crypt() sets it again */
	if (!c->software_keyed || c->sw->cipher.get_ctx_params(c->software, params))
		return 1;
	HWPROV_RAISE(c->prov, HWPROV_R_SOFTWARE, "%s in the default provider failed", c->alg->name);
	return 0;
}

enum cipher_server cipher_server_change(struct cipher_ctx *c, size_t size)
{
	if (size >= c->delegate_below)
		return cipher_leave_delegation(c) ? CIPHER_OWN_PATHS : CIPHER_SERVER_FAILED;
	if (c->delegated)
		return CIPHER_DELEGATED;
	/* The default provider cannot be told a position inside a keystream block. */
	if (cipher_is_ctr(c) && c->num)
		return CIPHER_OWN_PATHS;
	return cipher_enter_delegation(c) ? CIPHER_DELEGATED : CIPHER_SERVER_FAILED;
}
