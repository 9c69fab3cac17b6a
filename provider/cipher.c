// SPDX-License-Identifier: Apache-2.0
/*
 * cipher.c - AES-ECB, -CBC and -CTR, every row of the algorithm table of kind cipher: the
 * dispatch functions, init and the parameters; the rest of the family is named in cipher.h.
 */
#include <stdint.h>
#include <string.h>

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/params.h>

#include "provider/cipher.h"

/* ---- the dispatch functions ---------------------------------------------------------------------
 */

void *hwprov_cipher_newctx(struct hwprov *prov, const struct hwoff_alg *alg)
{
	struct cipher_ctx *c = cipher_base_new(prov, alg, sizeof(*c));

	if (c)
		c->padding = true;
	return c;
}

static void cipher_freectx(void *vctx)
{
	struct cipher_ctx *c = vctx;

	if (c)
		cipher_base_free(&c->base, sizeof(*c));
}

/* The copy makes its own kernel sessions when it needs them, from its chaining value. */
static void *cipher_dupctx(void *vctx)
{
	struct cipher_ctx *src = vctx;

	return cipher_base_dup(&src->base, sizeof(*src));
}

static int cipher_set_ctx_params(void *vctx, const OSSL_PARAM params[]);

/*
 * The TLS record parameters: the default provider's context takes the stream for good (see
 * cipher_ctx.tls). Not in the middle of a CTR keystream block, which it cannot be told.
 */
static int enter_tls(struct cipher_ctx *c)
{
	if (cipher_is_ctr(c) && c->num && !c->delegated) {
		HWPROV_RAISE(c->base.prov, HWPROV_R_PARAMETER,
			     "%s: the TLS record parameters in the middle of a keystream block",
			     c->base.alg->name);
		return 0;
	}
	if (!c->delegated && !cipher_enter_delegation(c))
		return 0;
	cipher_drop_kernel_sessions(&c->base);
	c->delegate_below = SIZE_MAX; /* updates and final: as any delegated stream's */
	c->tls = true;
	return 1;
}

static int cipher_init(struct cipher_ctx *c, bool encrypt, const unsigned char *key, size_t keylen,
		       const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
	cipher_base_init(&c->base);
	if (c->tls) {
		c->base.keyed |= key != NULL;
		c->base.encrypt = encrypt;
		return cipher_base_software_init(&c->base, key, keylen, iv, ivlen, params);
	}
	if (!cipher_leave_delegation(c))
		return 0;
	if (key) {
		if (keylen != c->base.alg->key_bytes) {
			HWPROV_RAISE(c->base.prov, HWPROV_R_KEY_LENGTH,
				     "%s takes a %u-byte key, not %zu", c->base.alg->name,
				     c->base.alg->key_bytes, keylen);
			return 0;
		}
		cipher_base_set_key(&c->base, key); /* the next request sends the IV */
		c->software_keyed = false;
	}
	if (iv && c->base.alg->iv_bytes) {
		if (ivlen != c->base.alg->iv_bytes) {
			HWPROV_RAISE(c->base.prov, HWPROV_R_IV_LENGTH,
				     "%s takes a %u-byte IV, not %zu", c->base.alg->name,
				     c->base.alg->iv_bytes, ivlen);
			return 0;
		}
		memcpy(c->iv, iv, ivlen);
		memcpy(c->chain, iv, ivlen);
	}
	if (encrypt != c->base.encrypt)
		c->software_keyed = false;
	c->base.encrypt = encrypt;
	c->delegate_below = hwoff_router_software_below(&c->base.prov->router, c->base.alg,
							cipher_base_direction(&c->base));
	c->buf_len = 0;
	c->num = 0;
	c->keystream_known = false;
	cipher_chain_held_by_none(c);
	if (c->delegate_below && !cipher_enter_delegation(c))
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
	if (!c->base.keyed) {
		HWPROV_RAISE(c->base.prov, HWPROV_R_NOT_INITIALIZED, "%s: no key was set",
			     c->base.alg->name);
		return 0;
	}
	if (inl && (!in || !out)) {
		HWPROV_RAISE(c->base.prov, HWPROV_R_BAD_ARGUMENT, "%s: NULL %s buffer",
			     c->base.alg->name, in ? "output" : "input");
		return 0;
	}
	return hwprov_check_length(c->base.prov, c->base.alg->name, inl);
}

/* EVP_CipherUpdate() on the default provider's context, counted. */
static int delegated_update(struct cipher_ctx *c, unsigned char *out, size_t *outl, size_t outsize,
			    const unsigned char *in, size_t inl)
{
	/* Mirror what the default provider keeps back; before it runs, as in may be out. */
	if (!cipher_is_ctr(c) && inl) {
		size_t total = c->buf_len + inl, keep = cipher_bytes_kept(c, total);

		if (total <= keep) {
			memcpy(c->buf + c->buf_len, in, inl);
			c->buf_len = total;
		} else {
			if (keep)
				memcpy(c->buf, in + inl - keep, keep);
			c->buf_len = keep;
		}
	}
	/* out is not NULL (check_call()): every byte is served */
	return cipher_base_software_call(&c->base, c->base.sw->cipher.update, out, outl, outsize,
					 in, inl, inl);
}

static int cipher_update(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
			 const unsigned char *in, size_t inl)
{
	struct cipher_ctx *c = vctx;

	if (!check_call(c, out, in, inl))
		return 0;
	switch (cipher_server_for(c, c->buf_len + inl)) {
	case CIPHER_DELEGATED:
		return delegated_update(c, out, outl, outsize, in, inl);
	case CIPHER_SERVER_FAILED:
		return 0;
	case CIPHER_OWN_PATHS:
		break;
	}
	if (!inl) {
		*outl = 0;
		return 1;
	}
	if (!cipher_is_ctr(c))
		return cipher_block_update(c, out, outl, outsize, in, inl);
	if (!cipher_base_check_room(&c->base, inl, outsize) || !cipher_ctr_crypt(c, out, in, inl))
		return 0;
	*outl = inl;
	return 1;
}

static int cipher_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
	struct cipher_ctx *c = vctx;

	if (!check_call(c, out, NULL, 0))
		return 0;
	if (c->delegated) {
		c->buf_len = 0;
		return c->base.sw->cipher.final(c->base.software, out, outl, outsize);
	}
	*outl = 0;
	return cipher_is_ctr(c) || cipher_block_final(c, out, outl, outsize);
}

/* EVP_Cipher(): no buffering and no padding, as OpenSSL's own ciphers do. */
static int cipher_cipher(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
			 const unsigned char *in, size_t inl)
{
	struct cipher_ctx *c = vctx;

	if (c->tls)
		return cipher_base_software_call(&c->base, c->base.sw->cipher.cipher, out, outl,
						 outsize, in, inl, inl);
	if (!check_call(c, out, in, inl) || !cipher_base_check_room(&c->base, inl, outsize))
		return 0;
	/* Stricter than OpenSSL's own ECB and CBC, which process the whole blocks and say nothing.
	 */
	if (!cipher_is_ctr(c) && inl % HWOFF_AES_BLOCK) {
		HWPROV_RAISE(c->base.prov, HWPROV_R_NOT_BLOCK_MULTIPLE, "%s: %zu bytes",
			     c->base.alg->name, inl);
		return 0;
	}
	switch (cipher_server_for(c, inl)) {
	case CIPHER_DELEGATED:
		return cipher_base_software_call(&c->base, c->base.sw->cipher.cipher, out, outl,
						 outsize, in, inl, inl);
	case CIPHER_SERVER_FAILED:
		return 0;
	case CIPHER_OWN_PATHS:
		break;
	}
	*outl = 0;
	if (!inl)
		return 1;
	if (cipher_is_ctr(c)) {
		if (!cipher_ctr_crypt(c, out, in, inl))
			return 0;
	} else if (!cipher_crypt(c, in, out, inl, inl)) {
		return 0;
	}
	*outl = inl;
	return 1;
}

/* ---- parameters ---------------------------------------------------------------------------------
 */

/* OpenSSL's own ciphers answer either kind of octet parameter. */
static int set_octets(OSSL_PARAM params[], const char *key, const unsigned char *value, size_t len)
{
	OSSL_PARAM *p = OSSL_PARAM_locate(params, key);

	return !p || OSSL_PARAM_set_octet_ptr(p, value, len) ||
	       OSSL_PARAM_set_octet_string(p, value, len);
}

static int cipher_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
	struct cipher_ctx *c = vctx;

	if (c->tls)
		return c->base.sw->cipher.get_ctx_params(c->base.software, params);
	/* A delegated stream's num and updated IV are the default provider's to tell. */
	if (c->delegated && c->software_keyed &&
	    !c->base.sw->cipher.get_ctx_params(c->base.software, params))
		return 0;
	if (c->delegated && c->software_keyed)
		return hwprov_param_set_size(params, OSSL_CIPHER_PARAM_KEYLEN,
					     c->base.alg->key_bytes) &&
		       hwprov_param_set_size(params, OSSL_CIPHER_PARAM_IVLEN,
					     c->base.alg->iv_bytes) &&
		       set_octets(params, OSSL_CIPHER_PARAM_IV, c->iv, c->base.alg->iv_bytes);
	return hwprov_param_set_size(params, OSSL_CIPHER_PARAM_KEYLEN, c->base.alg->key_bytes) &&
	       hwprov_param_set_size(params, OSSL_CIPHER_PARAM_IVLEN, c->base.alg->iv_bytes) &&
	       hwprov_param_set_uint(params, OSSL_CIPHER_PARAM_PADDING, c->padding) &&
	       hwprov_param_set_uint(params, OSSL_CIPHER_PARAM_NUM, c->num) &&
	       set_octets(params, OSSL_CIPHER_PARAM_IV, c->iv, c->base.alg->iv_bytes) &&
	       set_octets(params, OSSL_CIPHER_PARAM_UPDATED_IV, c->chain, c->base.alg->iv_bytes);
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
	if (!c->tls &&
	    (OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_TLS_VERSION) ||
	     OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_TLS_MAC_SIZE)) &&
	    !enter_tls(c))
		return 0;
	if (c->tls)
		return c->base.sw->cipher.set_ctx_params(c->base.software, params);
	p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_PADDING);
	if (p) {
		if (!OSSL_PARAM_get_uint(p, &value))
			goto bad;
		c->padding = value != 0;
	}
	p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_NUM);
	if (p) {
		if (!OSSL_PARAM_get_uint(p, &value) || value >= HWOFF_AES_BLOCK ||
		    (value && !cipher_is_ctr(c)))
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
		if (len != c->base.alg->key_bytes) {
			HWPROV_RAISE(c->base.prov, HWPROV_R_KEY_LENGTH,
				     "%s takes a %u-byte key, not %zu", c->base.alg->name,
				     c->base.alg->key_bytes, len);
			return 0;
		}
	}
	p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_IVLEN);
	if (p) {
		if (!OSSL_PARAM_get_size_t(p, &len))
			goto bad;
		if (len != c->base.alg->iv_bytes) {
			HWPROV_RAISE(c->base.prov, HWPROV_R_IV_LENGTH,
				     "%s takes a %u-byte IV, not %zu", c->base.alg->name,
				     c->base.alg->iv_bytes, len);
			return 0;
		}
	}
	/* A delegated stream's padding and num are kept by the default provider's context. */
	if (c->delegated && !c->base.sw->cipher.set_ctx_params(c->base.software, params))
		return 0;
	return 1;
bad:
	HWPROV_RAISE(c->base.prov, HWPROV_R_PARAMETER, "%s: bad value for parameter '%s'",
		     c->base.alg->name, p->key);
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

const OSSL_DISPATCH hwprov_cipher_functions[] = {
	{ OSSL_FUNC_CIPHER_FREECTX, HWPROV_FN(cipher_freectx) },
	{ OSSL_FUNC_CIPHER_DUPCTX, HWPROV_FN(cipher_dupctx) },
	{ OSSL_FUNC_CIPHER_ENCRYPT_INIT, HWPROV_FN(cipher_encrypt_init) },
	{ OSSL_FUNC_CIPHER_DECRYPT_INIT, HWPROV_FN(cipher_decrypt_init) },
	{ OSSL_FUNC_CIPHER_UPDATE, HWPROV_FN(cipher_update) },
	{ OSSL_FUNC_CIPHER_FINAL, HWPROV_FN(cipher_final) },
	{ OSSL_FUNC_CIPHER_CIPHER, HWPROV_FN(cipher_cipher) },
	{ OSSL_FUNC_CIPHER_GETTABLE_PARAMS, HWPROV_FN(hwprov_cipher_gettable_params) },
	{ OSSL_FUNC_CIPHER_GET_CTX_PARAMS, HWPROV_FN(cipher_get_ctx_params) },
	{ OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, HWPROV_FN(cipher_gettable_ctx_params) },
	{ OSSL_FUNC_CIPHER_SET_CTX_PARAMS, HWPROV_FN(cipher_set_ctx_params) },
	{ OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, HWPROV_FN(cipher_settable_ctx_params) },
	{ 0, NULL },
};
HWPROV_SHARED_FUNCTIONS_FIT(hwprov_cipher_functions);
