/* SPDX-License-Identifier: Apache-2.0 */
/*
 * provider_gcm.c - AES-GCM through hwoffload against OpenSSL's default provider, in every mode:
 * whole messages and streams, AAD only, empty data, every tag length, IVs of other lengths,
 * the TLS 1.3 order (tag before the data) and the TLS 1.2 record form (EVP_Cipher with the TLS
 * AAD), tags that do not match, the parameters, copies mid-message. Part of provider_test.
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
#include "backend/transport.h"
#include "test/provider/provider_test.h"
#include "test/testutil.h"

#define GCM_MAX_LEN (256u << 10)
#define GCM_ROWS    3

static const struct hwoff_alg *gcm_row(size_t i)
{
	static const char *const names[GCM_ROWS] = { "AES-128-GCM", "AES-192-GCM", "AES-256-GCM" };

	return hwoff_alg_by_name(names[i]);
}

struct gcm_msg {
	const unsigned char *key, *iv;
	size_t iv_len;
	const unsigned char *aad, *in;
	size_t aad_len, len;
	size_t aad_pieces, data_pieces; /* updates; the last takes the rest */
	size_t tag_len;
	bool tag_first; /* decrypt: the tag set before the data, as TLS 1.3 does */
};

/* Updates of about len / pieces bytes, the last taking the rest. */
static bool run_pieces(EVP_CIPHER_CTX *ctx, unsigned char *out, const unsigned char *in, size_t len,
		       size_t pieces, size_t *done)
{
	size_t step = pieces > 1 ? len / pieces + 1 : len, off = 0;
	int outl;

	do {
		size_t n = len - off < step ? len - off : step;

		if (!EVP_CipherUpdate(ctx, out ? out + *done : NULL, &outl, in + off, (int)n))
			return false;
		if (out)
			*done += (size_t)outl;
		off += n;
	} while (off < len);
	return true;
}

/*
 * One message through cipher: encrypting writes tag_len bytes of tag, decrypting checks them.
 * Returns whether final succeeded; every update must.
 */
static bool gcm_run(EVP_CIPHER *cipher, int enc, const struct gcm_msg *m, unsigned char *tag,
		    unsigned char *out)
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	size_t iv_len = m->iv_len, done = 0;
	OSSL_PARAM ivlen[] = { OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_AEAD_IVLEN, &iv_len),
			       OSSL_PARAM_END };
	const char *name = EVP_CIPHER_get0_name(cipher);
	int outl, ok;

	ck_assert(EVP_CipherInit_ex2(ctx, cipher, NULL, NULL, enc, ivlen));
	ck_assert(EVP_CipherInit_ex2(ctx, NULL, m->key, m->iv, enc, NULL));
	if (!enc && m->tag_first)
		ck_assert(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)m->tag_len, tag));
	ck_assert_msg(run_pieces(ctx, NULL, m->aad, m->aad_len, m->aad_pieces, &done),
		      "%s: AAD update failed", name);
	if (m->len)
		ck_assert_msg(run_pieces(ctx, out, m->in, m->len, m->data_pieces, &done),
			      "%s: data update failed", name);
	if (!enc && !m->tag_first)
		ck_assert(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, (int)m->tag_len, tag));
	ok = EVP_CipherFinal_ex(ctx, out + done, &outl);
	if (ok) {
		ck_assert_int_eq(outl, 0);
		ck_assert_uint_eq(done, m->len);
		if (enc)
			ck_assert(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, (int)m->tag_len,
						      tag));
	}
	EVP_CIPHER_CTX_free(ctx);
	ERR_clear_error();
	return ok;
}

/* AAD bytes, data bytes: around TLS records, the FIFO, one request's limit, and past it. */
static const size_t gcm_shapes[][2] = {
	{ 0, 0 },      { 0, 1 },      { 13, 0 },     { 0, 16 },	   { 13, 16 },
	{ 5, 17 },     { 13, 255 },   { 13, 256 },   { 13, 1024 }, { 13, 4083 },
	{ 13, 4096 },  { 0, 4097 },   { 13, 16384 }, { 5, 16385 }, { 16, 65520 },
	{ 17, 65520 }, { 70000, 10 }, { 0, 200000 }, { 4096, 0 },  { 1, 1 },
};
#define GCM_SHAPES (sizeof(gcm_shapes) / sizeof(gcm_shapes[0]))
#define GCM_RANDOM 24

/* _i: GCM row x mode. Every shape, then random ones; each both ways and with a wrong tag. */
START_TEST(gcm_matches_default)
{
	const struct hwoff_alg *alg = gcm_row((size_t)_i / MODES);
	const char *mode = modes[(size_t)_i % MODES];
	static const size_t tag_lens[] = { 16, 12, 4, 8, 13, 15, 14, 1, 16, 16 };
	unsigned char *in = malloc(GCM_MAX_LEN), *out = malloc(GCM_MAX_LEN),
		      *ref = malloc(GCM_MAX_LEN), *aad = malloc(GCM_MAX_LEN);
	unsigned char key[32], iv[16], tag[16], ref_tag[16];
	EVP_CIPHER *hw, *sw;
	struct test_rng rng;
	struct env e;

	ck_assert(in && out && ref && aad);
	test_rng_init(&rng, 0x9000 + (uint64_t)_i);
	test_rng_fill(&rng, in, GCM_MAX_LEN);
	test_rng_fill(&rng, aad, GCM_MAX_LEN);
	load(&e, mode, "no");
	hw = EVP_CIPHER_fetch(e.libctx, alg->name, "provider=hwoffload");
	sw = EVP_CIPHER_fetch(e.libctx, alg->name, "provider=default");
	ck_assert(hw && sw);
	for (size_t k = 0; k < GCM_SHAPES + GCM_RANDOM; k++) {
		struct gcm_msg m = {
			.key = key,
			.iv = iv,
			.iv_len = k % 7 == 6	 ? 16
				  : k % 11 == 10 ? 8
						 : 12,
			.aad = aad,
			.in = in,
			.aad_pieces = k % 5 == 4 ? 3 : 1,
			.data_pieces = k % 4 == 3 ? 1 + k % 3 : 1,
			.tag_len = tag_lens[k % (sizeof(tag_lens) / sizeof(tag_lens[0]))],
			.tag_first = k % 2 == 0,
		};
		char what[160];

		if (k < GCM_SHAPES) {
			m.aad_len = gcm_shapes[k][0];
			m.len = gcm_shapes[k][1];
		} else {
			m.aad_len = test_rng_range(&rng, 0, 64);
			m.len = test_rng_range(&rng, 0, 20000);
		}
		test_rng_fill(&rng, key, sizeof(key));
		test_rng_fill(&rng, iv, sizeof(iv));
		snprintf(what, sizeof(what),
			 "%s mode %s: AAD %zu in %zu, data %zu in %zu, IV %zu, tag %zu%s",
			 alg->name, mode, m.aad_len, m.aad_pieces, m.len, m.data_pieces, m.iv_len,
			 m.tag_len, m.tag_first ? " first" : "");

		ck_assert_msg(gcm_run(sw, 1, &m, ref_tag, ref), "%s: reference", what);
		ck_assert_msg(gcm_run(hw, 1, &m, tag, out), "%s: encrypt", what);
		ck_assert_bytes_eq(what, out, ref, m.len);
		ck_assert_bytes_eq(what, tag, ref_tag, m.tag_len);

		m.in = ref;
		ck_assert_msg(gcm_run(hw, 0, &m, ref_tag, out), "%s: decrypt", what);
		ck_assert_bytes_eq(what, out, in, m.len);
		ref_tag[k % m.tag_len] ^= 0x10;
		ck_assert_msg(!gcm_run(hw, 0, &m, ref_tag, out), "%s: a wrong tag accepted", what);
	}
#if PROVIDER_TEST_IN_GUEST
	if (strcmp(mode, "pio") == 0 || strcmp(mode, "dma") == 0) {
		const char *driver =
			engine_driver("gcm(aes)", strcmp(mode, "pio") == 0 ? HWOFF_IMPL_ENGINE_PIO
									   : HWOFF_IMPL_ENGINE_DMA);

		/* the shapes one request takes, both ways; wrong tags given first among them */
		ck_assert_int_ge(path_counter(&e, driver, "requests"), GCM_SHAPES);
		ck_assert_int_ge(path_counter(&e, driver, "tag-mismatches"), 4);
		ck_assert_int_ge(path_counter(&e, driver, "unsupported"), 4);
		ck_assert_int_eq(path_counter(&e, driver, "errors"), 0);
	}
#endif
	EVP_CIPHER_free(hw);
	EVP_CIPHER_free(sw);
	unload(&e);
	free(in);
	free(out);
	free(ref);
	free(aad);
}
END_TEST

/* A TLS 1.2 record: explicit IV || payload || tag, in place, by EVP_Cipher() with the TLS AAD. */
static int tls12_record(EVP_CIPHER_CTX *ctx, int enc, unsigned char *rec, size_t payload,
			uint64_t seq)
{
	unsigned char aad[EVP_AEAD_TLS1_AAD_LEN] = { 0 };
	size_t len = enc ? payload + EVP_GCM_TLS_EXPLICIT_IV_LEN
			 : payload + EVP_GCM_TLS_EXPLICIT_IV_LEN + EVP_GCM_TLS_TAG_LEN;

	for (int i = 0; i < 8; i++)
		aad[i] = (unsigned char)(seq >> (56 - 8 * i));
	aad[8] = 23;
	aad[9] = 3;
	aad[10] = 3;
	aad[11] = (unsigned char)(len >> 8);
	aad[12] = (unsigned char)len;
	ck_assert_int_eq(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_TLS1_AAD, sizeof(aad), aad),
			 EVP_GCM_TLS_TAG_LEN);
	return EVP_Cipher(
		ctx, rec, rec,
		(unsigned int)(payload + EVP_GCM_TLS_EXPLICIT_IV_LEN + EVP_GCM_TLS_TAG_LEN));
}

static EVP_CIPHER_CTX *tls12_ctx(EVP_CIPHER *cipher, int enc, const unsigned char *key,
				 unsigned char iv[12])
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

	ck_assert(EVP_CipherInit_ex(ctx, cipher, NULL, key, NULL, enc));
	/* The encrypter's whole IV (-1), so that both sides count alike; the decrypter's fixed
	 * part. */
	ck_assert(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_GCM_SET_IV_FIXED, enc ? -1 : 4, iv));
	return ctx;
}

/* _i: key size x mode. Records of TLS sizes, compared whole with OpenSSL's; wrong tags refused. */
START_TEST(gcm_tls12_record_matches_default)
{
	const struct hwoff_alg *alg = gcm_row((size_t)_i / MODES);
	const char *mode = modes[(size_t)_i % MODES];
	static const size_t payloads[] = { 0, 1, 16, 100, 1024, 4096, 16384, 16384 + 256, 333 };
	enum { RECORDS = sizeof(payloads) / sizeof(payloads[0]) };
	unsigned char key[32], iv[12], plain[17000], rec[17100], ref[17100];
	EVP_CIPHER_CTX *enc_hw, *enc_sw, *dec_hw;
	EVP_CIPHER *hw, *sw;
	struct test_rng rng;
	struct env e;

	test_rng_init(&rng, 0x9100 + (uint64_t)_i);
	test_rng_fill(&rng, key, sizeof(key));
	test_rng_fill(&rng, iv, sizeof(iv));
	test_rng_fill(&rng, plain, sizeof(plain));
	load(&e, mode, "no");
	hw = EVP_CIPHER_fetch(e.libctx, alg->name, "provider=hwoffload");
	sw = EVP_CIPHER_fetch(e.libctx, alg->name, "provider=default");
	enc_hw = tls12_ctx(hw, 1, key, iv);
	enc_sw = tls12_ctx(sw, 1, key, iv);
	dec_hw = tls12_ctx(hw, 0, key, iv);
	for (size_t r = 0; r < RECORDS; r++) {
		size_t n = payloads[r],
		       whole = n + EVP_GCM_TLS_EXPLICIT_IV_LEN + EVP_GCM_TLS_TAG_LEN;
		char what[96];

		snprintf(what, sizeof(what), "%s mode %s: record %zu of %zu bytes", alg->name, mode,
			 r, n);
		memcpy(rec + EVP_GCM_TLS_EXPLICIT_IV_LEN, plain, n);
		memcpy(ref + EVP_GCM_TLS_EXPLICIT_IV_LEN, plain, n);
		ck_assert_int_eq(tls12_record(enc_sw, 1, ref, n, r), (int)whole);
		ck_assert_int_eq(tls12_record(enc_hw, 1, rec, n, r), (int)whole);
		ck_assert_bytes_eq(what, rec, ref, whole);

		/* EVP_Cipher() says the whole record, as OpenSSL's GCM does */
		ck_assert_int_eq(tls12_record(dec_hw, 0, rec, n, r), (int)whole);
		ck_assert_bytes_eq(what, rec + EVP_GCM_TLS_EXPLICIT_IV_LEN, plain, n);

		/* A wrong tag: refused, and no plaintext where the record was. */
		memcpy(rec, ref, whole);
		rec[whole - 1] ^= 1;
		ck_assert_msg(tls12_record(dec_hw, 0, rec, n, r) <= 0, "%s: wrong tag accepted",
			      what);
		for (size_t i = 0; i < n; i++)
			ck_assert_msg(!rec[EVP_GCM_TLS_EXPLICIT_IV_LEN + i],
				      "%s: byte %zu of the refused record is not zero", what, i);
		ERR_clear_error();
	}
	/* freed first: a context adds its requests to the statistics in batches */
	EVP_CIPHER_CTX_free(enc_hw);
	EVP_CIPHER_CTX_free(enc_sw);
	EVP_CIPHER_CTX_free(dec_hw);
#if PROVIDER_TEST_IN_GUEST
	if (strcmp(mode, "dma") == 0) {
		const char *dma = engine_driver("gcm(aes)", HWOFF_IMPL_ENGINE_DMA);

		ck_assert_int_ge(path_counter(&e, dma, "requests"), 3 * RECORDS);
		ck_assert_int_eq(path_counter(&e, dma, "tag-mismatches"), RECORDS);
		ck_assert_int_eq(path_counter(&e, dma, "errors"), 0);
	}
#endif
	EVP_CIPHER_free(hw);
	EVP_CIPHER_free(sw);
	unload(&e);
}
END_TEST

/* Whether a parameter list names key. */
static bool lists(const OSSL_PARAM *p, const char *key)
{
	return p && OSSL_PARAM_locate_const(p, key);
}

/* _i: mode. The algorithm's and the context's parameters, and the calls OpenSSL refuses. */
START_TEST(gcm_parameters_match_default)
{
	const char *mode = modes[_i];
	unsigned char key[16] = { 1 }, iv[12] = { 2 }, in[2048], out[2048], back[2048], tag[17];
	EVP_CIPHER *ciphers[2];
	struct env e;
	int outl;

	memset(in, 0x33, sizeof(in));
	load(&e, mode, "no");
	ciphers[0] = EVP_CIPHER_fetch(e.libctx, "AES-128-GCM", "provider=hwoffload");
	ciphers[1] = EVP_CIPHER_fetch(e.libctx, "AES-128-GCM", "provider=default");
	ck_assert_int_eq(EVP_CIPHER_get_mode(ciphers[0]), EVP_CIPH_GCM_MODE);
	ck_assert_int_eq(EVP_CIPHER_get_flags(ciphers[0]), EVP_CIPHER_get_flags(ciphers[1]));
	ck_assert_int_eq(EVP_CIPHER_get_iv_length(ciphers[0]), 12);
	ck_assert_int_eq(EVP_CIPHER_get_block_size(ciphers[0]), 1);
	ck_assert(lists(EVP_CIPHER_gettable_ctx_params(ciphers[0]), OSSL_CIPHER_PARAM_AEAD_TAG));
	ck_assert(lists(EVP_CIPHER_gettable_ctx_params(ciphers[0]),
			OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN));
	ck_assert(
		lists(EVP_CIPHER_settable_ctx_params(ciphers[0]), OSSL_CIPHER_PARAM_AEAD_TLS1_AAD));
	ck_assert(lists(EVP_CIPHER_settable_ctx_params(ciphers[0]), OSSL_CIPHER_PARAM_AEAD_IVLEN));

	/* Each call, in both providers: the same answer. */
	for (int p = 0; p < 2; p++) {
		EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
		unsigned char got_iv[12];
		int results[8], n = 0;

		/* No IV given: one is generated, and it is the one used. */
		ck_assert(EVP_EncryptInit_ex2(ctx, ciphers[p], key, NULL, NULL));
		results[n++] = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag) > 0;
		results[n++] = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag) > 0;
		ck_assert(EVP_EncryptUpdate(ctx, out, &outl, in, sizeof(in)));
		ck_assert(EVP_EncryptFinal_ex(ctx, out + outl, &outl));
		ck_assert(EVP_CIPHER_CTX_get_updated_iv(ctx, got_iv, sizeof(got_iv)));
		ck_assert(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag));
		results[n++] = EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 17, tag) > 0;
		/* The IV is spent: another message needs a new one. */
		results[n++] = EVP_EncryptUpdate(ctx, out, &outl, in, 16);
		ERR_clear_error();
		EVP_CIPHER_CTX_free(ctx);

		ctx = EVP_CIPHER_CTX_new();
		ck_assert(EVP_DecryptInit_ex2(ctx, ciphers[1], key, got_iv, NULL));
		ck_assert(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, 16, tag));
		ck_assert(EVP_DecryptUpdate(ctx, back, &outl, out, sizeof(in)));
		ck_assert_msg(EVP_DecryptFinal_ex(ctx, back + outl, &outl),
			      "provider %d: the generated IV is not the one used", p);
		ck_assert_bytes_eq("generated IV", back, in, sizeof(in));
		EVP_CIPHER_CTX_free(ctx);

		/* A decrypt without a tag fails at final. */
		ctx = EVP_CIPHER_CTX_new();
		ck_assert(EVP_DecryptInit_ex2(ctx, ciphers[p], key, iv, NULL));
		ck_assert(EVP_DecryptUpdate(ctx, back, &outl, out, sizeof(in)));
		results[n++] = EVP_DecryptFinal_ex(ctx, back + outl, &outl);
		results[n++] = EVP_CIPHER_CTX_set_key_length(ctx, 17);
		ERR_clear_error();
		EVP_CIPHER_CTX_free(ctx);
		for (int i = 0; i < n; i++)
			ck_assert_msg(results[i] == 0, "provider %d: call %d accepted", p, i);
	}
	EVP_CIPHER_free(ciphers[0]);
	EVP_CIPHER_free(ciphers[1]);
	unload(&e);
}
END_TEST

/* _i: mode. A copy made after the AAD, and one after the first data update, each finished. */
START_TEST(gcm_copy_midstream)
{
	const char *mode = modes[_i];
	unsigned char key[32] = { 5 }, iv[12] = { 6 }, aad[13] = { 7 }, tag[2][16], ref_tag[16];
	unsigned char *in = malloc(20000), *out[2] = { malloc(20000), malloc(20000) },
		      *ref = malloc(20000);
	EVP_CIPHER *hw, *sw;
	struct env e;
	int outl;

	ck_assert(in && out[0] && out[1] && ref);
	memset(in, 0x44, 20000);
	load(&e, mode, "no");
	hw = EVP_CIPHER_fetch(e.libctx, "AES-256-GCM", "provider=hwoffload");
	sw = EVP_CIPHER_fetch(e.libctx, "AES-256-GCM", "provider=default");
	{
		EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

		ck_assert(EVP_EncryptInit_ex2(ctx, sw, key, iv, NULL));
		ck_assert(EVP_EncryptUpdate(ctx, NULL, &outl, aad, sizeof(aad)));
		ck_assert(EVP_EncryptUpdate(ctx, ref, &outl, in, 20000));
		ck_assert(EVP_EncryptFinal_ex(ctx, ref, &outl));
		ck_assert(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, ref_tag));
		EVP_CIPHER_CTX_free(ctx);
	}
	for (int when = 0; when < 2; when++) {
		EVP_CIPHER_CTX *ctx[2] = { EVP_CIPHER_CTX_new(), EVP_CIPHER_CTX_new() };

		ck_assert(EVP_EncryptInit_ex2(ctx[0], hw, key, iv, NULL));
		ck_assert(EVP_EncryptUpdate(ctx[0], NULL, &outl, aad, sizeof(aad)));
		if (when) {
			ck_assert(EVP_EncryptUpdate(ctx[0], out[0], &outl, in, 16000));
			memcpy(out[1], out[0], 16000);
		}
		ck_assert(EVP_CIPHER_CTX_copy(ctx[1], ctx[0]));
		for (int c = 0; c < 2; c++) {
			size_t from = when ? 16000 : 0;

			ck_assert(EVP_EncryptUpdate(ctx[c], out[c] + from, &outl, in + from,
						    (int)(20000 - from)));
			ck_assert(EVP_EncryptFinal_ex(ctx[c], out[c], &outl));
			ck_assert(EVP_CIPHER_CTX_ctrl(ctx[c], EVP_CTRL_AEAD_GET_TAG, 16, tag[c]));
			ck_assert_bytes_eq("copy", out[c], ref, 20000);
			ck_assert_bytes_eq("copy's tag", tag[c], ref_tag, 16);
			EVP_CIPHER_CTX_free(ctx[c]);
		}
	}
	EVP_CIPHER_free(hw);
	EVP_CIPHER_free(sw);
	unload(&e);
	free(in);
	free(out[0]);
	free(out[1]);
	free(ref);
}
END_TEST

void provider_gcm_tests(TCase *tc)
{
	tcase_add_loop_test(tc, gcm_matches_default, 0, (int)(GCM_ROWS * MODES));
	tcase_add_loop_test(tc, gcm_tls12_record_matches_default, 0, (int)(GCM_ROWS * MODES));
	tcase_add_loop_test(tc, gcm_parameters_match_default, 0, (int)MODES);
	tcase_add_loop_test(tc, gcm_copy_midstream, 0, (int)MODES);
}
