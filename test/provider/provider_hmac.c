// SPDX-License-Identifier: Apache-2.0
/*
 * provider_hmac.c - HMAC (EVP_MAC "HMAC") through hwoffload against OpenSSL's default provider,
 * in every mode: every digest of the table, keys of 0 bytes, short, a block and longer, messages
 * from empty to past a kernel request, in pieces, several messages on one context with the key
 * given again or not, a copy mid-message, the parameters and refusals, a digest the table does
 * not have, OpenSSL's TLS record MAC (tls-data-size). Part of provider_test.
 */
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "backend/algs.h"
#include "test/provider/provider_test.h"
#include "test/testutil.h"

#define HMAC_MAX_LEN (300u << 10)
#define KEY_MAX	     300

/* The i-th HMAC row, in table order; hmac_rows() of them. */
static const struct hwoff_alg *hmac_row(size_t i)
{
	return row_where(hwoff_alg_is_hmac, i);
}

static size_t hmac_rows(void)
{
	return rows_where(hwoff_alg_is_hmac);
}

static EVP_MAC_CTX *hmac_new(const struct env *e, const char *provider)
{
	char query[64];
	EVP_MAC *mac;
	EVP_MAC_CTX *ctx;

	snprintf(query, sizeof(query), "provider=%s", provider);
	mac = EVP_MAC_fetch(e->libctx, "HMAC", query);
	ck_assert_msg(mac != NULL, "no HMAC in %s", provider);
	ctx = EVP_MAC_CTX_new(mac);
	EVP_MAC_free(mac);
	ck_assert(ctx != NULL);
	return ctx;
}

/* init (the key if given, digest if given), updates of about len / pieces bytes, final. */
static size_t hmac_run(EVP_MAC_CTX *ctx, const char *digest, const unsigned char *key,
		       size_t key_len, const unsigned char *in, size_t len, size_t pieces,
		       unsigned char *out)
{
	OSSL_PARAM params[] = { OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)digest, 0),
				OSSL_PARAM_END };
	size_t step = pieces > 1 ? len / pieces + 1 : len, off = 0, outl = 0;

	ck_assert_msg(EVP_MAC_init(ctx, key, key_len, digest ? params : NULL), "init %s",
		      digest ? digest : "(same digest)");
	while (off < len) {
		size_t n = len - off < step ? len - off : step;

		ck_assert(EVP_MAC_update(ctx, in + off, n));
		off += n;
	}
	ck_assert(EVP_MAC_final(ctx, out, &outl, EVP_MAX_MD_SIZE));
	return outl;
}

/* The default provider's HMAC of one message, from a context of its own. */
static void reference(const struct env *e, const char *digest, const unsigned char *key,
		      size_t key_len, const unsigned char *in, size_t len, unsigned char *out)
{
	/* The digest from the default provider as well: by name alone it could be hwoffload's. */
	OSSL_PARAM params[] = { OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)digest, 0),
				OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_PROPERTIES,
						       "provider=default", 0),
				OSSL_PARAM_END };
	EVP_MAC_CTX *ctx = hmac_new(e, "default");

	ck_assert(EVP_MAC_CTX_set_params(ctx, params));
	hmac_run(ctx, NULL, key, key_len, in, len, 1, out);
	EVP_MAC_CTX_free(ctx);
}

bool hmac_matches_default(const struct env *e, const struct hwoff_alg *row, const unsigned char *in,
			  size_t len)
{
	static const unsigned char key[20] = "a key of 20 bytes...";
	unsigned char got[EVP_MAX_MD_SIZE], want[EVP_MAX_MD_SIZE];
	EVP_MAC_CTX *ctx = hmac_new(e, "hwoffload");
	size_t n = hmac_run(ctx, row->hmac_of->name, key, sizeof(key), in, len, 1, got);

	EVP_MAC_CTX_free(ctx);
	reference(e, row->hmac_of->name, key, sizeof(key), in, len, want);
	return n == row->digest_bytes && memcmp(got, want, n) == 0;
}

/* Message lengths: a block's edges, the gathering limit, kernel requests' sizes, past them. */
static const size_t hmac_lens[] = { 0,	   1,	  55,	 56,	63,	64,	     65,
				    127,   128,	  129,	 256,	1000,	4096,	     16384,
				    65535, 65536, 65537, 70000, 200000, HMAC_MAX_LEN };
#define HMAC_LENS   (sizeof(hmac_lens) / sizeof(hmac_lens[0]))
#define HMAC_RANDOM 6

/*
 * _i: HMAC row x mode. Keys of 0, 5, a block and a block and more bytes; each length whole and
 * in pieces, on one context whose key is given with some messages and not others; then the
 * engine's driver in modes pio and dma served them all.
 */
START_TEST(hmac_matches_default_every_mode)
{
	const struct hwoff_alg *row = hmac_row((size_t)_i / MODES);
	const char *mode = modes[(size_t)_i % MODES], *digest = row->hmac_of->name;
	size_t key_lens[] = { 0, 5, row->block_bytes, row->block_bytes + 17 };
	unsigned char *in = malloc(HMAC_MAX_LEN), key[KEY_MAX];
	unsigned char got[EVP_MAX_MD_SIZE], want[EVP_MAX_MD_SIZE];
	size_t messages = 0;
	struct test_rng rng;
	EVP_MAC_CTX *ctx;
	struct env e;

	test_rng_init(&rng, 0x9000 + (uint64_t)_i);
	test_rng_fill(&rng, in, HMAC_MAX_LEN);
	load(&e, mode, "no");
	if (engine_refuses(&e, row, mode))
		goto out;
	ctx = hmac_new(&e, "hwoffload");
	for (size_t k = 0; k < sizeof(key_lens) / sizeof(key_lens[0]); k++) {
		size_t key_len = key_lens[k];

		test_rng_fill(&rng, key, key_len);
		for (size_t l = 0; l < HMAC_LENS + HMAC_RANDOM; l++) {
			size_t len = l < HMAC_LENS ? hmac_lens[l]
						   : test_rng_range(&rng, 0, HMAC_MAX_LEN);
			size_t pieces = l % 3 ? test_rng_range(&rng, 2, 9) : 1;
			/* the key again with every third message, else the context's own */
			bool again = l == 0 || l % 3 == 1;
			size_t n = hmac_run(ctx, l == 0 ? digest : NULL, again ? key : NULL,
					    key_len, in, len, pieces, got);

			reference(&e, digest, key, key_len, in, len, want);
			ck_assert_uint_eq(n, row->digest_bytes);
			ck_assert_msg(memcmp(got, want, n) == 0,
				      "%s, mode %s: key of %zu bytes, %zu bytes in %zu pieces",
				      digest, mode, key_len, len, pieces);
			messages++;
		}
	}
	ck_assert_uint_eq(EVP_MAC_CTX_get_mac_size(ctx), row->digest_bytes);
	ck_assert_uint_eq(EVP_MAC_CTX_get_block_size(ctx), row->block_bytes);
	EVP_MAC_CTX_free(ctx);
#if PROVIDER_TEST_IN_GUEST
	if (strcmp(mode, "pio") == 0 || strcmp(mode, "dma") == 0) {
		const char *driver = engine_driver(
			row->kernel_name,
			strcmp(mode, "pio") == 0 ? HWOFF_IMPL_ENGINE_PIO : HWOFF_IMPL_ENGINE_DMA);

		ck_assert_int_eq(path_counter(&e, driver, "requests"), (long long)messages);
		ck_assert_int_eq(path_counter(&e, driver, "errors"), 0);
	}
#endif
	ck_assert_int_eq(path_counter(&e, "software", "fallbacks"), 0);
out:
	unload(&e);
	free(in);
}
END_TEST

/* _i: mode. A copy after each cut of a message, both finished with different tails. */
START_TEST(hmac_copy_midstream)
{
	static const size_t cuts[] = { 0, 1, 64, 1000, 65536, 70000 };
	const char *mode = modes[_i];
	unsigned char *in = malloc(2 * HMAC_MAX_LEN), key[40];
	unsigned char got[EVP_MAX_MD_SIZE], want[EVP_MAX_MD_SIZE];
	struct test_rng rng;
	struct env e;

	test_rng_init(&rng, 0x9100 + (uint64_t)_i);
	test_rng_fill(&rng, in, 2 * HMAC_MAX_LEN);
	test_rng_fill(&rng, key, sizeof(key));
	load(&e, mode, "no");
	for (size_t r = 0; r < hmac_rows(); r++) {
		const char *digest = hmac_row(r)->hmac_of->name;

		if (engine_refuses(&e, hmac_row(r), mode))
			continue;
		for (size_t c = 0; c < sizeof(cuts) / sizeof(cuts[0]); c++) {
			size_t cut = cuts[c], tail = 5000 + 37 * c, outl;
			EVP_MAC_CTX *a = hmac_new(&e, "hwoffload"), *b;
			OSSL_PARAM params[] = { OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_DIGEST,
								       (char *)digest, 0),
						OSSL_PARAM_END };

			ck_assert(EVP_MAC_init(a, key, sizeof(key), params));
			ck_assert(EVP_MAC_update(a, in, cut));
			b = EVP_MAC_CTX_dup(a);
			ck_assert_msg(b != NULL, "%s: a copy after %zu bytes", digest, cut);
			/* the original goes on with one tail, the copy with another */
			ck_assert(EVP_MAC_update(a, in + cut, tail));
			ck_assert(EVP_MAC_final(a, got, &outl, sizeof(got)));
			reference(&e, digest, key, sizeof(key), in, cut + tail, want);
			ck_assert_msg(memcmp(got, want, outl) == 0, "%s original, cut %zu", digest,
				      cut);
			memcpy(in + HMAC_MAX_LEN, in, cut);
			ck_assert(EVP_MAC_update(b, in + HMAC_MAX_LEN + cut, 2 * tail));
			ck_assert(EVP_MAC_final(b, got, &outl, sizeof(got)));
			reference(&e, digest, key, sizeof(key), in + HMAC_MAX_LEN, cut + 2 * tail,
				  want);
			ck_assert_msg(memcmp(got, want, outl) == 0, "%s copy, cut %zu", digest,
				      cut);
			EVP_MAC_CTX_free(a);
			EVP_MAC_CTX_free(b);
		}
	}
	unload(&e);
	free(in);
}
END_TEST

/* Whether ours and the default provider's give the same answer (and bytes) to one sequence. */
struct hmac_call {
	const char *digest; /* NULL: not set */
	const char *properties;
	const unsigned char *key; /* as a parameter; NULL: not set */
	size_t key_len;
	bool init_key; /* the key to init() instead */
};

static int hmac_try(const struct env *e, const char *provider, const struct hmac_call *c,
		    unsigned char *out, size_t *outl)
{
	EVP_MAC_CTX *ctx = hmac_new(e, provider);
	OSSL_PARAM params[4];
	size_t n = 0;
	int ok;

	if (c->digest)
		params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_DIGEST,
							       (char *)c->digest, 0);
	if (c->properties)
		params[n++] = OSSL_PARAM_construct_utf8_string(OSSL_MAC_PARAM_PROPERTIES,
							       (char *)c->properties, 0);
	if (c->key && !c->init_key)
		params[n++] = OSSL_PARAM_construct_octet_string(OSSL_MAC_PARAM_KEY, (void *)c->key,
								c->key_len);
	params[n] = OSSL_PARAM_construct_end();
	ok = EVP_MAC_init(ctx, c->init_key ? c->key : NULL, c->key_len, params) &&
	     EVP_MAC_update(ctx, (const unsigned char *)"message", 7) &&
	     EVP_MAC_final(ctx, out, outl, EVP_MAX_MD_SIZE);
	EVP_MAC_CTX_free(ctx);
	ERR_clear_error();
	return ok;
}

/* _i: mode. The parameter lists, key by parameter, digests we do not have, refusals. */
START_TEST(hmac_parameters_match_default)
{
	static const unsigned char key[] = "parameter key";
	static const struct hmac_call calls[] = {
		{ "SHA2-256", NULL, key, sizeof(key), false },
		{ "SHA256", NULL, key, sizeof(key), true },
		{ "SHA1", "provider=default", key, sizeof(key), true },
		{ "SHA2-512", NULL, key, 0, false },
		{ "SHA3-512", NULL, key, sizeof(key), true }, /* not in the table */
		{ "SHA2-512/256", NULL, key, sizeof(key), false }, /* neither */
		{ "MD5", NULL, NULL, 0, false }, /* no key: refused */
		{ "NO-SUCH-DIGEST", NULL, key, sizeof(key), true },
		{ "SHA2-256", "provider=no-such-provider", key, sizeof(key), true },
		{ NULL, NULL, key, sizeof(key), true }, /* no digest: refused */
	};
	const char *mode = modes[_i];
	struct env e;

	load(&e, mode, "no");
	for (size_t i = 0; i < sizeof(calls) / sizeof(calls[0]); i++) {
		unsigned char got[EVP_MAX_MD_SIZE], want[EVP_MAX_MD_SIZE];
		size_t got_len = 0, want_len = 0;
		int ours = hmac_try(&e, "hwoffload", &calls[i], got, &got_len);
		int theirs = hmac_try(&e, "default", &calls[i], want, &want_len);

		ck_assert_msg(ours == theirs, "%s, %s: hwoffload %d, default provider %d",
			      calls[i].digest ? calls[i].digest : "no digest",
			      calls[i].properties ? calls[i].properties : "no properties", ours,
			      theirs);
		if (ours) {
			ck_assert_uint_eq(got_len, want_len);
			ck_assert_msg(memcmp(got, want, got_len) == 0, "%s", calls[i].digest);
		}
	}
	{
		EVP_MAC *ours = EVP_MAC_fetch(e.libctx, "HMAC", "provider=hwoffload");
		EVP_MAC *theirs = EVP_MAC_fetch(e.libctx, "HMAC", "provider=default");
		const OSSL_PARAM *(*lists[])(const EVP_MAC *) = { EVP_MAC_settable_ctx_params,
								  EVP_MAC_gettable_ctx_params };

		for (size_t l = 0; l < 2; l++) {
			const OSSL_PARAM *a = lists[l](ours), *b = lists[l](theirs);

			for (; a->key && b->key; a++, b++)
				ck_assert_str_eq(a->key, b->key);
			ck_assert(!a->key && !b->key);
		}
		EVP_MAC_free(ours);
		EVP_MAC_free(theirs);
	}
	unload(&e);
}
END_TEST

/*
 * _i: mode. OpenSSL's TLS CBC record MAC, as libssl asks for it: tls-data-size set after init,
 * the 13-byte header, then the record. Ours is OpenSSL's own, byte for byte; then a plain
 * message on the same context is routed again.
 */
START_TEST(hmac_tls_record_mac)
{
	const char *mode = modes[_i];
	unsigned char header[13] = { 0, 0, 0, 0, 0, 0, 0, 1, 23, 3, 3, 0, 0 };
	unsigned char record[1200], key[32], out[2][EVP_MAX_MD_SIZE];
	size_t data_len = 1000, padded = sizeof(record), outl[2];
	struct test_rng rng;
	struct env e;

	test_rng_init(&rng, 0x9200 + (uint64_t)_i);
	test_rng_fill(&rng, record, sizeof(record));
	test_rng_fill(&rng, key, sizeof(key));
	header[11] = (unsigned char)(data_len >> 8);
	header[12] = (unsigned char)data_len;
	load(&e, mode, "no");
	for (int p = 0; p < 2; p++) {
		EVP_MAC_CTX *ctx = hmac_new(&e, p ? "default" : "hwoffload");
		OSSL_PARAM digest[] = { OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_DIGEST, "SHA1", 0),
					OSSL_PARAM_END };
		OSSL_PARAM tls[] = { OSSL_PARAM_size_t(OSSL_MAC_PARAM_TLS_DATA_SIZE, &padded),
				     OSSL_PARAM_END };

		ck_assert(EVP_MAC_init(ctx, key, sizeof(key), digest));
		ck_assert(EVP_MAC_CTX_set_params(ctx, tls));
		ck_assert(EVP_MAC_update(ctx, header, sizeof(header)));
		ck_assert(EVP_MAC_update(ctx, record, data_len));
		ck_assert(EVP_MAC_final(ctx, out[p], &outl[p], EVP_MAX_MD_SIZE));
		EVP_MAC_CTX_free(ctx);
	}
	ck_assert_uint_eq(outl[0], outl[1]);
	ck_assert_msg(memcmp(out[0], out[1], outl[0]) == 0, "TLS record MAC, mode %s", mode);
	ck_assert(hmac_matches_default(&e, hwoff_alg_hmac(hwoff_alg_by_name("SHA1")), record,
				       sizeof(record)));
	unload(&e);
}
END_TEST

void provider_hmac_tests(TCase *tc)
{
	tcase_add_loop_test(tc, hmac_matches_default_every_mode, 0, (int)(hmac_rows() * MODES));
	tcase_add_loop_test(tc, hmac_copy_midstream, 0, (int)MODES);
	tcase_add_loop_test(tc, hmac_parameters_match_default, 0, (int)MODES);
	tcase_add_loop_test(tc, hmac_tls_record_mac, 0, (int)MODES);
}
