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

void cipher_chain_held_by_none(struct cipher_ctx *c)
{
	for (int i = 0; i < CIPHER_KERNEL_SESSIONS; i++)
		c->base.kernel[i].holds_chain = false;
	c->software_holds_chain = false;
}

/* ---- the two kinds of path ------------------------------------------------------------------ */

enum kernel_outcome {
	KERNEL_DONE,
	KERNEL_REDO_IN_SOFTWARE, /* the kernel failed, the input is intact: software redoes it */
	KERNEL_FAILED, /* for good, error raised */
};

static enum kernel_outcome kernel_crypt(struct cipher_ctx *c, struct hwoff_path *path,
					const unsigned char *in, unsigned char *out, size_t len)
{
	char err[HWOFF_TRANSPORT_ERROR_MAX];
	struct cipher_kernel_session *s = cipher_kernel_session(&c->base, path, err, sizeof(err));
	unsigned char *copy = NULL;
	int ret;

	if (!s)
		return cipher_kernel_failed(&c->base, path, NULL, err) ? KERNEL_REDO_IN_SOFTWARE
								       : KERNEL_FAILED;
	/*
	 * The engine writes into out as it goes; in place, a failure half-way would leave neither
	 * the input nor the output for software to redo. Keep the input then.
	 */
	if (c->base.prov->router.fallback && in < out + len && out < in + len) {
		copy = OPENSSL_malloc(len);
		if (!copy) {
			HWPROV_RAISE(c->base.prov, HWPROV_R_OUT_OF_MEMORY,
				     "%s: a copy of %zu bytes", c->base.alg->name, len);
			return KERNEL_FAILED;
		}
		memcpy(copy, in, len);
		in = copy;
	}
	ret = s->holds_chain || !c->base.alg->iv_bytes
		      ? 0
		      : hwoff_skcipher_set_iv(s->skcipher, c->chain, HWOFF_AES_BLOCK);
	if (!ret)
		ret = hwoff_skcipher_crypt(s->skcipher, c->base.encrypt, in, out, len);
	if (ret) {
		bool may_redo = cipher_kernel_failed(&c->base, path, s, NULL);

		cipher_drop_kernel_session(&c->base, s);
		if (may_redo && copy)
			memcpy(out, copy, len); /* software redoes it in place from here */
		OPENSSL_clear_free(copy, len);
		return may_redo ? KERNEL_REDO_IN_SOFTWARE : KERNEL_FAILED;
	}
	OPENSSL_clear_free(copy, len);
	cipher_chain_held_by_none(c);
	s->holds_chain = true;
	hwoff_path_served(path);
	return KERNEL_DONE;
}

int cipher_software_crypt(struct cipher_ctx *c, const unsigned char *in, unsigned char *out,
			  size_t len)
{
	const unsigned char *iv = c->base.alg->iv_bytes ? c->chain : NULL;
	size_t iv_len = c->base.alg->iv_bytes, outl;

	if (!cipher_base_software(&c->base))
		return 0;
	if (!c->software_keyed) {
		unsigned int no_padding = 0;
		const OSSL_PARAM params[] = {
			OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &no_padding),
			OSSL_PARAM_END,
		};

		if (!cipher_base_software_init(&c->base, c->base.key, c->base.alg->key_bytes, iv,
					       iv_len, params))
			goto fail;
		c->software_keyed = true;
	} else if (!c->software_holds_chain && iv &&
		   !cipher_base_software_init(&c->base, NULL, 0, iv, iv_len, NULL)) {
		goto fail;
	}
	if (!c->base.sw->cipher.cipher(c->base.software, out, &outl, len, in, len) || outl != len)
		goto fail;
	cipher_chain_held_by_none(c);
	/* After a partial CTR block OpenSSL keeps the rest of that keystream; we keep our own. */
	c->software_holds_chain = !(cipher_is_ctr(c) && len % HWOFF_AES_BLOCK);
	return 1;
fail:
	c->software_keyed = false;
	return cipher_base_software_failed(&c->base);
}

struct hwoff_path *cipher_serve(struct cipher_ctx *c, struct hwoff_path *path,
				const unsigned char *in, unsigned char *out, size_t len)
{
	enum kernel_outcome kernel = KERNEL_REDO_IN_SOFTWARE;

	if (!path->software)
		kernel = kernel_crypt(c, path, in, out, len);
	if (kernel == KERNEL_DONE)
		return path;
	if (kernel == KERNEL_FAILED || !cipher_software_crypt(c, in, out, len))
		return NULL;
	return hwoff_router_software(&c->base.prov->router);
}

/*
 * The default provider's context takes the stream: our key, chaining value and padding, and
 * the bytes we keep back. Not for a CTR stream in the middle of a keystream block.
 */
int cipher_enter_delegation(struct cipher_ctx *c)
{
	unsigned int padding = c->padding;
	const OSSL_PARAM params[] = {
		OSSL_PARAM_uint(OSSL_CIPHER_PARAM_PADDING, &padding),
		OSSL_PARAM_END,
	};
	struct cipher_base *b = &c->base;
	const unsigned char *key = b->keyed && !c->software_keyed ? b->key : NULL;
	const unsigned char *iv = b->alg->iv_bytes ? c->chain : NULL;
	unsigned char none[HWOFF_AES_BLOCK];
	size_t outl;

	if (!cipher_base_software(b))
		return 0;
	if (!cipher_base_software_init(b, key, b->alg->key_bytes, iv, b->alg->iv_bytes, params) ||
	    (c->buf_len &&
	     (!b->sw->cipher.update(b->software, none, &outl, sizeof(none), c->buf, c->buf_len) ||
	      outl))) {
		c->software_keyed = false;
		return cipher_base_software_failed(b);
	}
	c->software_keyed = b->keyed;
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
	cipher_chain_held_by_none(c); /* cipher_software_crypt() tells software again */
	return !c->software_keyed || c->base.sw->cipher.get_ctx_params(c->base.software, params) ||
	       cipher_base_software_failed(&c->base);
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
