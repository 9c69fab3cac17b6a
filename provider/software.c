// SPDX-License-Identifier: Apache-2.0
/*
 * software.c - the software tier: OpenSSL's default provider in a child library context, and its
 * implementation of each row, found at load and called through its dispatch table.
 */
#include <string.h>
#include <strings.h>

#include <openssl/evp.h>
#include <openssl/provider.h>

#include "provider/provider.h"

#define SOFTWARE_PROPERTIES "provider=default"

static bool first_name_is(const char *names, const char *name)
{
	size_t len = strcspn(names, ":");

	return strlen(name) == len && strncasecmp(names, name, len) == 0;
}

static void take_software_cipher_functions(struct hwprov_software *sw, const OSSL_DISPATCH *fn)
{
	for (; fn->function_id; fn++) {
		switch (fn->function_id) {
		case OSSL_FUNC_CIPHER_NEWCTX:
			sw->cipher.newctx = OSSL_FUNC_cipher_newctx(fn);
			break;
		case OSSL_FUNC_CIPHER_ENCRYPT_INIT:
			sw->cipher.encrypt_init = OSSL_FUNC_cipher_encrypt_init(fn);
			break;
		case OSSL_FUNC_CIPHER_DECRYPT_INIT:
			sw->cipher.decrypt_init = OSSL_FUNC_cipher_decrypt_init(fn);
			break;
		case OSSL_FUNC_CIPHER_CIPHER:
			sw->cipher.cipher = OSSL_FUNC_cipher_cipher(fn);
			break;
		case OSSL_FUNC_CIPHER_UPDATE:
			sw->cipher.update = OSSL_FUNC_cipher_update(fn);
			break;
		case OSSL_FUNC_CIPHER_FINAL:
			sw->cipher.final = OSSL_FUNC_cipher_final(fn);
			break;
		case OSSL_FUNC_CIPHER_GET_CTX_PARAMS:
			sw->cipher.get_ctx_params = OSSL_FUNC_cipher_get_ctx_params(fn);
			break;
		case OSSL_FUNC_CIPHER_SET_CTX_PARAMS:
			sw->cipher.set_ctx_params = OSSL_FUNC_cipher_set_ctx_params(fn);
			break;
		case OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS:
			sw->cipher.gettable_ctx_params = OSSL_FUNC_cipher_gettable_ctx_params(fn);
			break;
		case OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS:
			sw->cipher.settable_ctx_params = OSSL_FUNC_cipher_settable_ctx_params(fn);
			break;
		case OSSL_FUNC_CIPHER_FREECTX:
			sw->cipher.freectx = OSSL_FUNC_cipher_freectx(fn);
			break;
		case OSSL_FUNC_CIPHER_DUPCTX:
			sw->cipher.dupctx = OSSL_FUNC_cipher_dupctx(fn);
			break;
		}
	}
}

static void take_software_digest_functions(struct hwprov_software *sw, const OSSL_DISPATCH *fn)
{
	for (; fn->function_id; fn++) {
		switch (fn->function_id) {
		case OSSL_FUNC_DIGEST_NEWCTX:
			sw->digest.newctx = OSSL_FUNC_digest_newctx(fn);
			break;
		case OSSL_FUNC_DIGEST_INIT:
			sw->digest.init = OSSL_FUNC_digest_init(fn);
			break;
		case OSSL_FUNC_DIGEST_UPDATE:
			sw->digest.update = OSSL_FUNC_digest_update(fn);
			break;
		case OSSL_FUNC_DIGEST_FINAL:
			sw->digest.final = OSSL_FUNC_digest_final(fn);
			break;
		case OSSL_FUNC_DIGEST_FREECTX:
			sw->digest.freectx = OSSL_FUNC_digest_freectx(fn);
			break;
		case OSSL_FUNC_DIGEST_DUPCTX:
			sw->digest.dupctx = OSSL_FUNC_digest_dupctx(fn);
			break;
		}
	}
}

static void take_software_mac_functions(struct hwprov_software *sw, const OSSL_DISPATCH *fn)
{
	for (; fn->function_id; fn++) {
		switch (fn->function_id) {
		case OSSL_FUNC_MAC_NEWCTX:
			sw->digest.newctx = OSSL_FUNC_mac_newctx(fn);
			break;
		case OSSL_FUNC_MAC_FREECTX:
			sw->digest.freectx = OSSL_FUNC_mac_freectx(fn);
			break;
		case OSSL_FUNC_MAC_DUPCTX:
			sw->digest.dupctx = OSSL_FUNC_mac_dupctx(fn);
			break;
		case OSSL_FUNC_MAC_INIT:
			sw->digest.mac_init = OSSL_FUNC_mac_init(fn);
			break;
		case OSSL_FUNC_MAC_UPDATE:
			sw->digest.update = OSSL_FUNC_mac_update(fn);
			break;
		case OSSL_FUNC_MAC_FINAL:
			sw->digest.final = OSSL_FUNC_mac_final(fn);
			break;
		case OSSL_FUNC_MAC_GET_CTX_PARAMS:
			sw->digest.get_ctx_params = OSSL_FUNC_mac_get_ctx_params(fn);
			break;
		case OSSL_FUNC_MAC_SET_CTX_PARAMS:
			sw->digest.set_ctx_params = OSSL_FUNC_mac_set_ctx_params(fn);
			break;
		case OSSL_FUNC_MAC_GETTABLE_CTX_PARAMS:
			sw->digest.gettable_ctx_params = OSSL_FUNC_mac_gettable_ctx_params(fn);
			break;
		case OSSL_FUNC_MAC_SETTABLE_CTX_PARAMS:
			sw->digest.settable_ctx_params = OSSL_FUNC_mac_settable_ctx_params(fn);
			break;
		}
	}
}

/* The operation of a row's software implementation, and the index of its query. */
static const int software_operations[3] = { OSSL_OP_CIPHER, OSSL_OP_DIGEST, OSSL_OP_MAC };

static int software_query(const struct hwoff_alg *alg)
{
	return hwoff_alg_is_hmac(alg) ? 2 : hwoff_alg_is_digest(alg);
}

/* The default provider's entry for alg, and the functions we call. */
static int find_software(struct hwprov *prov, const struct hwoff_alg *alg)
{
	struct hwprov_software *sw = &prov->software[hwoff_alg_index(alg)];
	int query = software_query(alg);
	const char *name = hwoff_alg_is_hmac(alg) ? "HMAC" : alg->name;
	const OSSL_ALGORITHM *a;
	int no_cache;

	if (!prov->software_provider) {
		/* Fetching through the child context finds the default provider, wherever it is. */
		EVP_MD *md = EVP_MD_fetch(prov->libctx, "SHA2-256", SOFTWARE_PROPERTIES);

		if (!md)
			return 0;
		prov->software_provider = (OSSL_PROVIDER *)EVP_MD_get0_provider(md);
		EVP_MD_free(md);
	}
	if (!prov->software_algorithms[query])
		prov->software_algorithms[query] = OSSL_PROVIDER_query_operation(
			prov->software_provider, software_operations[query], &no_cache);
	for (a = prov->software_algorithms[query]; a && a->algorithm_names; a++)
		if (first_name_is(a->algorithm_names, name))
			break;
	if (!a || !a->algorithm_names)
		return 0;
	memset(sw, 0, sizeof(*sw));
	sw->provctx = OSSL_PROVIDER_get0_provider_ctx(prov->software_provider);
	if (hwoff_alg_is_hmac(alg)) {
		take_software_mac_functions(sw, a->implementation);
		return sw->digest.newctx && sw->digest.freectx && sw->digest.dupctx &&
		       sw->digest.mac_init && sw->digest.update && sw->digest.final &&
		       sw->digest.get_ctx_params && sw->digest.set_ctx_params &&
		       sw->digest.gettable_ctx_params && sw->digest.settable_ctx_params;
	}
	if (query) {
		take_software_digest_functions(sw, a->implementation);
		return sw->digest.newctx && sw->digest.freectx && sw->digest.dupctx &&
		       sw->digest.init && sw->digest.update && sw->digest.final;
	}
	take_software_cipher_functions(sw, a->implementation);
	return sw->cipher.newctx && sw->cipher.freectx && sw->cipher.dupctx &&
	       sw->cipher.encrypt_init && sw->cipher.decrypt_init && sw->cipher.cipher &&
	       sw->cipher.update && sw->cipher.final && sw->cipher.get_ctx_params &&
	       sw->cipher.set_ctx_params && sw->cipher.gettable_ctx_params &&
	       sw->cipher.settable_ctx_params;
}

const struct hwprov_software *hwprov_software_of(struct hwprov *prov, const struct hwoff_alg *alg)
{
	size_t row = hwoff_alg_index(alg);

	if (prov->software_found[row])
		return &prov->software[row];
	HWPROV_RAISE(prov, HWPROV_R_SOFTWARE, "the default provider has no %s", alg->name);
	return NULL;
}

/*
 * The software tier: the default provider in a child of the application's library context. A
 * child sees the providers the application loaded; the default one is loaded into it as well,
 * for applications that load only hwoffload.
 */
int hwprov_software_set_up(struct hwprov *prov, const OSSL_DISPATCH *in)
{
	prov->libctx = OSSL_LIB_CTX_new_child(prov->handle, in);
	if (!prov->libctx) {
		HWPROV_RAISE(prov, HWPROV_R_INIT, "no child library context for the software tier");
		return 0;
	}
	if (!OSSL_PROVIDER_available(prov->libctx, "default")) {
		prov->default_provider = OSSL_PROVIDER_load(prov->libctx, "default");
		if (!prov->default_provider) {
			HWPROV_RAISE(
				prov, HWPROV_R_INIT,
				"OpenSSL's default provider does not load: hwoffload's software "
				"tier needs it");
			return 0;
		}
	}
	/*
	 * Every row's implementation now, none on first use: a look-up fetches, and a child forked
	 * while another thread held one of OpenSSL 3.0's store locks (they have no fork handlers)
	 * would wait for ever at its first use of a row.
	 */
	for (size_t row = 0; row < HWOFF_ALG_COUNT; row++)
		prov->software_found[row] = find_software(prov, &hwoff_algs[row]);
	return 1;
}

void hwprov_software_tear_down(struct hwprov *prov)
{
	for (int query = 0; query < 3; query++)
		if (prov->software_algorithms[query])
			OSSL_PROVIDER_unquery_operation(prov->software_provider,
							software_operations[query],
							prov->software_algorithms[query]);
	if (prov->default_provider)
		OSSL_PROVIDER_unload(prov->default_provider);
	OSSL_LIB_CTX_free(prov->libctx);
}
