// SPDX-License-Identifier: Apache-2.0
/*
 * cipher_base.c - the context skeleton of every cipher family (cipher_base.h) and the
 * algorithm's parameters, which every cipher row answers alike.
 */
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "provider/cipher_base.h"

void *cipher_base_new(struct hwprov *prov, const struct hwoff_alg *alg, size_t size)
{
	struct cipher_base *b;

	if (!hwprov_can_serve(prov, alg))
		return NULL;
	b = OPENSSL_zalloc(size);
	if (!b) {
		HWPROV_RAISE(prov, HWPROV_R_OUT_OF_MEMORY, "%s: a context", alg->name);
		return NULL;
	}
	b->prov = prov;
	b->alg = alg;
	return b;
}

void *cipher_base_dup(const struct cipher_base *src, size_t size)
{
	struct cipher_base *b = OPENSSL_memdup(src, size);

	if (!b) {
		HWPROV_RAISE(src->prov, HWPROV_R_OUT_OF_MEMORY, "%s: a copy of a context",
			     src->alg->name);
		return NULL;
	}
	memset(b->kernel, 0, sizeof(b->kernel));
	b->tally = (struct hwprov_tally){ 0 };
	b->software = NULL;
	if (src->software) {
		b->software = src->sw->cipher.dupctx(src->software);
		if (!b->software) {
			OPENSSL_clear_free(b, size);
			return NULL;
		}
	}
	return b;
}

void cipher_base_free(struct cipher_base *b, size_t size)
{
	hwprov_tally_flush(b->prov, &b->tally);
	cipher_drop_kernel_sessions(b);
	if (b->software)
		b->sw->cipher.freectx(b->software);
	OPENSSL_clear_free(b, size);
}

void cipher_base_init(struct cipher_base *b)
{
	hwprov_tally_flush(b->prov, &b->tally);
	b->route = (struct hwoff_route_cache){ 0 };
}

void cipher_base_set_key(struct cipher_base *b, const unsigned char *key)
{
	/* the same key again (openssl speed gives one per message): the sessions have it */
	if (!b->keyed || CRYPTO_memcmp(b->key, key, b->alg->key_bytes))
		cipher_drop_kernel_sessions(b);
	memcpy(b->key, key, b->alg->key_bytes);
	b->keyed = true;
}

int cipher_base_software(struct cipher_base *b)
{
	if (!b->sw)
		b->sw = hwprov_software_of(b->prov, b->alg);
	if (!b->sw)
		return 0;
	if (!b->software)
		b->software = b->sw->cipher.newctx(b->sw->provctx);
	if (b->software)
		return 1;
	HWPROV_RAISE(b->prov, HWPROV_R_SOFTWARE, "%s: no context of the default provider",
		     b->alg->name);
	return 0;
}

int cipher_base_software_failed(const struct cipher_base *b)
{
	HWPROV_RAISE(b->prov, HWPROV_R_SOFTWARE, "%s in the default provider failed", b->alg->name);
	return 0;
}

int cipher_base_check_room(const struct cipher_base *b, size_t need, size_t outsize)
{
	if (need <= outsize)
		return 1;
	HWPROV_RAISE(b->prov, HWPROV_R_BAD_ARGUMENT, "%s: output buffer of %zu bytes, %zu needed",
		     b->alg->name, outsize, need);
	return 0;
}

/* ---- the kernel sessions --------------------------------------------------------------------- */

void cipher_drop_kernel_session(const struct cipher_base *b, struct cipher_kernel_session *s)
{
	if (hwoff_alg_is_aead(b->alg))
		hwoff_aead_free(s->aead);
	else
		hwoff_skcipher_free(s->skcipher);
	*s = (struct cipher_kernel_session){ 0 };
}

void cipher_drop_kernel_sessions(struct cipher_base *b)
{
	for (int i = 0; i < CIPHER_KERNEL_SESSIONS; i++)
		cipher_drop_kernel_session(b, &b->kernel[i]);
}

struct cipher_kernel_session *cipher_kernel_session(struct cipher_base *b, struct hwoff_path *path,
						    char *err, size_t err_len)
{
	struct cipher_kernel_session *s = NULL;
	int ret;

	for (int i = 0; i < CIPHER_KERNEL_SESSIONS; i++) {
		if (b->kernel[i].path == path)
			return &b->kernel[i];
		if (!b->kernel[i].path && !s)
			s = &b->kernel[i];
	}
	if (!s) {
		s = &b->kernel[0];
		cipher_drop_kernel_session(b, s);
	}
	if (hwoff_alg_is_aead(b->alg))
		ret = hwoff_aead_new(&s->aead, b->alg, path->name, b->key, b->alg->key_bytes, err,
				     err_len);
	else
		ret = hwoff_skcipher_new(&s->skcipher, b->alg, path->name, b->key,
					 b->alg->key_bytes, err, err_len);
	if (ret)
		return NULL;
	s->path = path;
	return s;
}

bool cipher_kernel_failed(struct cipher_base *b, struct hwoff_path *path,
			  const struct cipher_kernel_session *s, const char *err)
{
	if (!s)
		return hwprov_kernel_failed(b->prov, path, HWOFF_FALLBACK_SETUP_FAILED, err);
	return hwprov_kernel_failed(b->prov, path, HWOFF_FALLBACK_REQUEST_FAILED,
				    hwoff_alg_is_aead(b->alg) ? hwoff_aead_error(s->aead)
							      : hwoff_skcipher_error(s->skcipher));
}

/* ---- the algorithm's parameters -------------------------------------------------------------- */

static unsigned int openssl_mode(const struct hwoff_alg *alg)
{
	switch (alg->mode) {
	case HWOFF_MODE_ECB:
		return EVP_CIPH_ECB_MODE;
	case HWOFF_MODE_CBC:
		return EVP_CIPH_CBC_MODE;
	case HWOFF_MODE_CTR:
		return EVP_CIPH_CTR_MODE;
	case HWOFF_MODE_GCM:
		return EVP_CIPH_GCM_MODE;
	default:
		return 0;
	}
}

int hwprov_cipher_get_params(const struct hwoff_alg *alg, OSSL_PARAM params[])
{
	return hwprov_param_set_uint(params, OSSL_CIPHER_PARAM_MODE, openssl_mode(alg)) &&
	       hwprov_param_set_size(params, OSSL_CIPHER_PARAM_KEYLEN, alg->key_bytes) &&
	       hwprov_param_set_size(params, OSSL_CIPHER_PARAM_IVLEN, alg->iv_bytes) &&
	       hwprov_param_set_size(params, OSSL_CIPHER_PARAM_BLOCK_SIZE, alg->block_bytes) &&
	       hwprov_param_set_int(params, OSSL_CIPHER_PARAM_AEAD, hwoff_alg_is_aead(alg)) &&
	       hwprov_param_set_int(params, OSSL_CIPHER_PARAM_CUSTOM_IV, hwoff_alg_is_aead(alg)) &&
	       hwprov_param_set_int(params, OSSL_CIPHER_PARAM_CTS, 0) &&
	       hwprov_param_set_int(params, OSSL_CIPHER_PARAM_TLS1_MULTIBLOCK, 0) &&
	       hwprov_param_set_int(params, OSSL_CIPHER_PARAM_HAS_RAND_KEY, 0);
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

const OSSL_PARAM *hwprov_cipher_gettable_params(void *provctx)
{
	return cipher_gettable;
}
