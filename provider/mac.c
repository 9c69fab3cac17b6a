// SPDX-License-Identifier: Apache-2.0
/*
 * mac.c - HMAC, OpenSSL's EVP_MAC "HMAC", over every digest.
 *
 * The default provider's HMAC context is kept beside ours and given every parameter and key
 * first, so the parameter lists, their checks and errors, the digests the table does not have
 * and the TLS record MAC (tls-data-size) are OpenSSL's own. A message whose digest has an HMAC
 * row is that row's (digest.c): routed by its size as a digest's, to the row's kernel driver
 * keyed with our copy of the key, or fed to that same context.
 */
#include <string.h>

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/params.h>

#include "backend/stats.h"
#include "provider/provider.h"

/* What OpenSSL's HMAC fetches its digest with when the caller names no properties. */
#define SOFTWARE_DIGEST_PROPERTIES "provider=default"
#define FORWARDED_PARAMS_MAX	   16

struct mac_ctx {
	struct hwprov *prov;
	const struct hwprov_software *sw; /* the default provider's HMAC */
	void *software; /* its context: every parameter and key goes there first */
	unsigned char *key; /* the last key set, for the row's kernel sockets */
	size_t key_len;
	const struct hwoff_alg *row; /* the HMAC row of the digest set; NULL: none of ours */
	void *message; /* row's (digest.c) */
	/*
	 * Parameters that change what OpenSSL's HMAC does with the digest (the TLS record MAC,
	 * digest-noinit, digest-oneshot), which the kernel's hmac() does not do: while one is set,
	 * a message is OpenSSL's alone, counted as unsupported where the table sends it elsewhere.
	 */
	size_t tls_data_size;
	int digest_noinit, digest_oneshot;
	bool routed; /* this message is message's */
	size_t total; /* this message's bytes */
};

/* Whether a message may be the row's: no parameter above asks for OpenSSL's own. */
static bool routable(const struct mac_ctx *m)
{
	return m->message && !m->tls_data_size && !m->digest_noinit && !m->digest_oneshot;
}

/* The default provider's HMAC, as an HMAC row's software (all rows share it). */
static const struct hwprov_software *software_hmac(struct hwprov *prov)
{
	return hwprov_software_of(prov, hwoff_alg_hmac(&hwoff_algs[HWOFF_ROW_sha256]));
}

static void *hmac_newctx(void *provctx)
{
	struct hwprov *prov = provctx;
	const struct hwprov_software *sw = software_hmac(prov);
	struct mac_ctx *m;

	if (!sw)
		return NULL;
	m = OPENSSL_zalloc(sizeof(*m));
	if (!m) {
		HWPROV_RAISE(prov, HWPROV_R_OUT_OF_MEMORY, "an HMAC context");
		return NULL;
	}
	m->prov = prov;
	m->sw = sw;
	m->software = sw->digest.newctx(sw->provctx);
	if (!m->software) {
		HWPROV_RAISE(prov, HWPROV_R_SOFTWARE, "HMAC in the default provider failed");
		OPENSSL_free(m);
		return NULL;
	}
	return m;
}

static void hmac_freectx(void *vctx)
{
	struct mac_ctx *m = vctx;

	if (!m)
		return;
	hwprov_hmac_message_free(m->message);
	m->sw->digest.freectx(m->software);
	OPENSSL_clear_free(m->key, m->key_len);
	OPENSSL_free(m);
}

static void *hmac_dupctx(void *vctx)
{
	struct mac_ctx *src = vctx, *m = OPENSSL_memdup(src, sizeof(*src));

	if (!m) {
		HWPROV_RAISE(src->prov, HWPROV_R_OUT_OF_MEMORY, "a copy of an HMAC context");
		return NULL;
	}
	m->key = NULL;
	m->message = NULL;
	m->software = src->sw->digest.dupctx(src->software);
	if (!m->software) {
		HWPROV_RAISE(src->prov, HWPROV_R_SOFTWARE, "HMAC in the default provider failed");
		OPENSSL_free(m);
		return NULL;
	}
	if (src->key) {
		m->key = OPENSSL_memdup(src->key, src->key_len ? src->key_len : 1);
		if (!m->key)
			goto fail;
	}
	if (src->message) {
		m->message = hwprov_hmac_message_dup(src->message, m->software);
		if (!m->message)
			goto fail;
	}
	return m;
fail:
	HWPROV_RAISE(src->prov, HWPROV_R_OUT_OF_MEMORY, "a copy of an HMAC context");
	hmac_freectx(m);
	return NULL;
}

static int keep_key(struct mac_ctx *m, const unsigned char *key, size_t key_len)
{
	unsigned char *copy =
		OPENSSL_memdup(key_len ? key : (const unsigned char *)"", key_len ? key_len : 1);

	if (!copy) {
		HWPROV_RAISE(m->prov, HWPROV_R_OUT_OF_MEMORY, "a copy of an HMAC key");
		return 0;
	}
	OPENSSL_clear_free(m->key, m->key_len);
	m->key = copy;
	m->key_len = key_len;
	return !m->message || hwprov_hmac_message_set_key(m->message, key, key_len);
}

/*
 * The message started goes on in OpenSSL's context, which has had none of it: only before its
 * first byte.
 */
static int unroute(struct mac_ctx *m)
{
	if (!m->routed)
		return 1;
	if (m->total) {
		HWPROV_RAISE(m->prov, HWPROV_R_PARAMETER,
			     "HMAC: the digest, tls-data-size, digest-noinit or digest-oneshot set "
			     "in the middle of a message");
		return 0;
	}
	m->routed = false;
	return 1;
}

/* The digest OpenSSL's HMAC now has: its row's messages, if the table has it. */
static int take_digest(struct mac_ctx *m, const char *name)
{
	const struct hwoff_alg *digest = hwoff_alg_by_name(name), *row = NULL;

	if (digest && hwoff_alg_is_digest(digest) && !hwoff_alg_is_hmac(digest) &&
	    m->prov->config.enabled[hwoff_alg_index(hwoff_alg_hmac(digest))])
		row = hwoff_alg_hmac(digest);
	if (row == m->row)
		return 1;
	if (!unroute(m))
		return 0;
	hwprov_hmac_message_free(m->message);
	m->message = NULL;
	m->row = row;
	if (!row)
		return 1;
	m->message = hwprov_hmac_message_new(m->prov, row, m->software);
	return m->message &&
	       (!m->key || hwprov_hmac_message_set_key(m->message, m->key, m->key_len));
}

/* A parameter OpenSSL's HMAC has taken, noted for our part; 0 only for a failure of ours. */
static int note_params(struct mac_ctx *m, const OSSL_PARAM params[])
{
	const OSSL_PARAM *p;
	const char *name;
	const void *key;
	size_t key_len;

	p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_TLS_DATA_SIZE);
	if (p && !OSSL_PARAM_get_size_t(p, &m->tls_data_size))
		return 0;
	p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_DIGEST_NOINIT);
	if (p && !OSSL_PARAM_get_int(p, &m->digest_noinit))
		return 0;
	p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_DIGEST_ONESHOT);
	if (p && !OSSL_PARAM_get_int(p, &m->digest_oneshot))
		return 0;
	/* libssl sets tls-data-size after init, before a CBC record's MAC: OpenSSL's from here. */
	if (!routable(m) && !unroute(m))
		return 0;
	p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_DIGEST);
	if (p && (!OSSL_PARAM_get_utf8_string_ptr(p, &name) || !take_digest(m, name)))
		return 0;
	p = OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_KEY);
	if (p &&
	    (!OSSL_PARAM_get_octet_string_ptr(p, &key, &key_len) || !keep_key(m, key, key_len)))
		return 0;
	return 1;
}

/*
 * params to OpenSSL's HMAC, then noted. A digest named without properties is fetched from the
 * default provider, as the software tier's digests are: the application's preferences would
 * otherwise bring its hashing back here.
 */
static int hmac_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
	struct mac_ctx *m = vctx;
	OSSL_PARAM forwarded[FORWARDED_PARAMS_MAX + 2];
	size_t n = 0;

	if (!params)
		return 1;
	if (OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_DIGEST) &&
	    !OSSL_PARAM_locate_const(params, OSSL_MAC_PARAM_PROPERTIES)) {
		for (; params[n].key; n++) {
			if (n == FORWARDED_PARAMS_MAX) {
				HWPROV_RAISE(m->prov, HWPROV_R_PARAMETER,
					     "HMAC: more than %d parameters in one call",
					     FORWARDED_PARAMS_MAX);
				return 0;
			}
			forwarded[n] = params[n];
		}
		forwarded[n++] = OSSL_PARAM_construct_utf8_string(
			OSSL_MAC_PARAM_PROPERTIES, (char *)SOFTWARE_DIGEST_PROPERTIES, 0);
		forwarded[n] = OSSL_PARAM_construct_end();
	}
	if (!m->sw->digest.set_ctx_params(m->software, n ? forwarded : params))
		return 0;
	return note_params(m, params);
}

static int hmac_init(void *vctx, const unsigned char *key, size_t keylen, const OSSL_PARAM params[])
{
	struct mac_ctx *m = vctx;

	m->routed = false;
	if (!hmac_set_ctx_params(m, params) ||
	    !m->sw->digest.mac_init(m->software, key, keylen, NULL))
		return 0;
	if (key && !keep_key(m, key, keylen))
		return 0;
	m->total = 0;
	m->routed = routable(m);
	return !m->routed || hwprov_hmac_message_init(m->message);
}

static int hmac_update(void *vctx, const unsigned char *in, size_t len)
{
	struct mac_ctx *m = vctx;

	if (!hwprov_check_length(m->prov, "HMAC", len))
		return 0;
	m->total += len;
	if (m->routed)
		return hwprov_hmac_message_update(m->message, in, len);
	return m->sw->digest.update(m->software, in, len);
}

static int hmac_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
	struct mac_ctx *m = vctx;
	struct hwoff_path *path;

	if (m->routed)
		return hwprov_hmac_message_final(m->message, out, outl, outsize);
	if (m->row) { /* the table's path for it, which a parameter above kept it from */
		path = hwprov_route(m->prov, m->row, HWOFF_DIGEST, m->total, NULL);
		if (!path)
			return 0;
		if (!path->software)
			hwoff_route_unsupported(&m->prov->router, path);
	}
	return m->sw->digest.final(m->software, out, outl, outsize);
}

static int hmac_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
	struct mac_ctx *m = vctx;

	return m->sw->digest.get_ctx_params(m->software, params);
}

/* The lists are OpenSSL's HMAC's, whose parameters are all taken (note_params()). */
static const OSSL_PARAM *hmac_gettable_ctx_params(void *vctx, void *provctx)
{
	const struct hwprov_software *sw = software_hmac(provctx);
	struct mac_ctx *m = vctx;

	return sw ? sw->digest.gettable_ctx_params(m ? m->software : NULL, sw->provctx) : NULL;
}

static const OSSL_PARAM *hmac_settable_ctx_params(void *vctx, void *provctx)
{
	const struct hwprov_software *sw = software_hmac(provctx);
	struct mac_ctx *m = vctx;

	return sw ? sw->digest.settable_ctx_params(m ? m->software : NULL, sw->provctx) : NULL;
}

const OSSL_DISPATCH hwprov_hmac_functions[] = {
	{ OSSL_FUNC_MAC_NEWCTX, HWPROV_FN(hmac_newctx) },
	{ OSSL_FUNC_MAC_FREECTX, HWPROV_FN(hmac_freectx) },
	{ OSSL_FUNC_MAC_DUPCTX, HWPROV_FN(hmac_dupctx) },
	{ OSSL_FUNC_MAC_INIT, HWPROV_FN(hmac_init) },
	{ OSSL_FUNC_MAC_UPDATE, HWPROV_FN(hmac_update) },
	{ OSSL_FUNC_MAC_FINAL, HWPROV_FN(hmac_final) },
	{ OSSL_FUNC_MAC_GET_CTX_PARAMS, HWPROV_FN(hmac_get_ctx_params) },
	{ OSSL_FUNC_MAC_SET_CTX_PARAMS, HWPROV_FN(hmac_set_ctx_params) },
	{ OSSL_FUNC_MAC_GETTABLE_CTX_PARAMS, HWPROV_FN(hmac_gettable_ctx_params) },
	{ OSSL_FUNC_MAC_SETTABLE_CTX_PARAMS, HWPROV_FN(hmac_settable_ctx_params) },
	{ 0, NULL },
};
