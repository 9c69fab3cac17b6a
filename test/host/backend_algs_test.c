// SPDX-License-Identifier: Apache-2.0
/*
 * backend_algs_test.c - the algorithm table against OpenSSL's own default provider: every name
 * fetches the same algorithm, and the sizes are OpenSSL's.
 */
#include <string.h>

#include <openssl/evp.h>

#include "backend/algs.h"
#include "test/host/backend_test.h"

START_TEST(test_rows_match_openssl)
{
	for (size_t i = 0; i < HWOFF_ALG_COUNT; i++) {
		const struct hwoff_alg *alg = &hwoff_algs[i];
		size_t len = strlen(alg->name);

		ck_assert_msg(strncmp(alg->names, alg->name, len) == 0 &&
				      (alg->names[len] == ':' || !alg->names[len]),
			      "%s: names '%s' do not start with it", alg->name, alg->names);
		if (hwoff_alg_is_hmac(alg)) {
			/* the next row after its digest's, whose sizes it has, keyed */
			const struct hwoff_alg *digest = alg->hmac_of;
			char name[64], kernel_name[64];

			ck_assert_ptr_eq(hwoff_alg_hmac(digest), alg);
			ck_assert(!hwoff_alg_is_hmac(digest) && hwoff_alg_is_digest(digest));
			snprintf(name, sizeof(name), "HMAC-%s", digest->name);
			snprintf(kernel_name, sizeof(kernel_name), "hmac(%s)", digest->kernel_name);
			ck_assert_str_eq(alg->names, name);
			ck_assert_str_eq(alg->kernel_name, kernel_name);
			ck_assert_int_eq(alg->digest_bytes, digest->digest_bytes);
			ck_assert_int_eq(alg->block_bytes, digest->block_bytes);
		} else if (hwoff_alg_is_digest(alg)) {
			EVP_MD *md = EVP_MD_fetch(NULL, alg->name, "provider=default");

			ck_assert_msg(md != NULL, "OpenSSL has no digest %s", alg->name);
			ck_assert_int_eq(EVP_MD_get_size(md), alg->digest_bytes);
			ck_assert_int_eq(EVP_MD_get_block_size(md), alg->block_bytes);
			ck_assert_int_eq(alg->key_bytes, 0);
			ck_assert_int_eq(alg->iv_bytes, 0);
			EVP_MD_free(md);
		} else {
			EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, alg->name, "provider=default");

			ck_assert_msg(c != NULL, "OpenSSL has no cipher %s", alg->name);
			ck_assert_int_eq(EVP_CIPHER_get_key_length(c), alg->key_bytes);
			ck_assert_int_eq(EVP_CIPHER_get_iv_length(c), alg->iv_bytes);
			ck_assert_int_eq(EVP_CIPHER_get_block_size(c), alg->block_bytes);
			ck_assert_int_eq(!!(EVP_CIPHER_get_flags(c) & EVP_CIPH_FLAG_AEAD_CIPHER),
					 hwoff_alg_is_aead(alg));
			ck_assert_int_eq(alg->digest_bytes, 0);
			EVP_CIPHER_free(c);
		}
	}
}
END_TEST

/* Each of a row's names, as OpenSSL's default provider lists it, is that row in both. */
START_TEST(test_every_name_is_openssls)
{
	for (size_t i = 0; i < HWOFF_ALG_COUNT; i++) {
		const struct hwoff_alg *alg = &hwoff_algs[i];
		char names[256], *save, *name;

		snprintf(names, sizeof(names), "%s", alg->names);
		for (name = strtok_r(names, ":", &save); name; name = strtok_r(NULL, ":", &save)) {
			ck_assert_ptr_eq(hwoff_alg_by_name(name), alg);
			if (hwoff_alg_is_hmac(alg)) {
				continue; /* our name for the path table: OpenSSL has one HMAC */
			} else if (hwoff_alg_is_digest(alg)) {
				EVP_MD *md = EVP_MD_fetch(NULL, name, "provider=default");

				ck_assert_msg(md && EVP_MD_is_a(md, alg->name), "%s", name);
				EVP_MD_free(md);
			} else {
				EVP_CIPHER *c = EVP_CIPHER_fetch(NULL, name, "provider=default");

				ck_assert_msg(c && EVP_CIPHER_is_a(c, alg->name), "%s", name);
				EVP_CIPHER_free(c);
			}
		}
	}
}
END_TEST

START_TEST(test_lookup)
{
	ck_assert_str_eq(hwoff_alg_by_name("sha256")->name, "SHA2-256");
	ck_assert_str_eq(hwoff_alg_by_name("aes128")->name, "AES-128-CBC");
	ck_assert_str_eq(hwoff_alg_by_name("2.16.840.1.101.3.4.1.41")->name, "AES-256-ECB");
	ck_assert_ptr_null(hwoff_alg_by_name("AES-128"));
	ck_assert_str_eq(hwoff_alg_by_name("id-aes256-GCM")->name, "AES-256-GCM");
	ck_assert(hwoff_alg_is_aead(hwoff_alg_by_name("AES-128-GCM")));
	ck_assert_str_eq(hwoff_alg_kernel_type(hwoff_alg_by_name("AES-128-GCM")), "aead");
	ck_assert_str_eq(hwoff_alg_kernel_type(hwoff_alg_by_name("AES-128-CTR")), "skcipher");
	ck_assert_str_eq(hwoff_alg_kernel_type(hwoff_alg_by_name("MD5")), "hash");
	ck_assert_ptr_null(hwoff_alg_by_name("AES-128-CCM"));
	ck_assert_ptr_null(hwoff_alg_by_name(""));
	ck_assert_ptr_null(hwoff_alg_by_name("SHA2-256:SHA-256"));
	ck_assert_uint_eq(hwoff_alg_index(hwoff_alg_by_name("MD5")), HWOFF_ROW_md5);
	ck_assert(hwoff_alg_kernel_name_known("ctr(aes)"));
	ck_assert(hwoff_alg_kernel_name_known("sha384"));
	ck_assert(hwoff_alg_kernel_name_known("gcm(aes)"));
	ck_assert(!hwoff_alg_kernel_name_known("rfc4106(gcm(aes))"));
	ck_assert(!hwoff_alg_kernel_name_known("__cbc(aes)"));
}
END_TEST

Suite *backend_algs_suite(void)
{
	Suite *s = suite_create("backend_algs");
	TCase *tc = tcase_create("table");

	tcase_add_test(tc, test_rows_match_openssl);
	tcase_add_test(tc, test_every_name_is_openssls);
	tcase_add_test(tc, test_lookup);
	suite_add_tcase(s, tc);
	return s;
}
