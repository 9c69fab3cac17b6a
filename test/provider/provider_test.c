/* SPDX-License-Identifier: Apache-2.0 */
/*
 * provider_test - hwoffload.so through OpenSSL's EVP API, against OpenSSL's default provider.
 *
 * Built twice from this file: test/host/provider_test runs on the host, whose kernel has no
 * AF_ALG, so it checks the software tier and that the provider says why; test/guest/provider_test
 * runs in a guest with the engine and checks every path (software, auto, pio, dma). Each
 * configuration is a provider loaded into a library context of its own, with its configuration
 * in the environment variables the README documents; the default provider is loaded beside it
 * as the reference. The provider's statistics show which path served.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "backend/algs.h"
#include "backend/discover.h"
#include "backend/table.h"
#include "backend/table_file.h"
#include "test/provider/provider_test.h"
#include "test/provider/providerutil.h"
#include "test/testutil.h"

#define MAX_LEN	   (1 << 20)
#define MAX_PIECES 64
#define ENV_KEYS   7

static const char *const env_keys[ENV_KEYS] = {
	"HWOFFLOAD_MODE",     "HWOFFLOAD_TABLE", "HWOFFLOAD_OBJECTIVE",	 "HWOFFLOAD_FALLBACK",
	"HWOFFLOAD_RETRY_MS", "HWOFFLOAD_STATS", "HWOFFLOAD_ALGORITHMS",
};

#if PROVIDER_TEST_IN_GUEST
const char *const modes[MODES] = { "software", "auto", "pio", "dma" };
#else
const char *const modes[MODES] = { "software", "auto" };
#endif

/* Sizes around every built-in cut-off and the driver's, then large ones. */
static const size_t edge_lens[] = { 0,	  1,	15,   16,   17,	       63,    64,   65,
				    199,  200,	201,  255,  256,       257,   1023, 4095,
				    4096, 4097, 8191, 8192, 65536 + 3, 262144 };

int load_with(struct env *e, const char *const *settings)
{
	const char *dir = getenv("HWOFFLOAD_PROVIDER_DIR");

	for (int i = 0; i < ENV_KEYS; i++)
		unsetenv(env_keys[i]);
	for (; settings && *settings; settings++) {
		char key[64];
		const char *eq = strchr(*settings, '=');

		snprintf(key, sizeof(key), "%.*s", (int)(eq - *settings), *settings);
		setenv(key, eq + 1, 1);
	}
	e->libctx = OSSL_LIB_CTX_new();
	ck_assert_ptr_nonnull(e->libctx);
	ck_assert(OSSL_PROVIDER_set_default_search_path(e->libctx, dir ? dir : "provider/.libs"));
	e->ref = OSSL_PROVIDER_load(e->libctx, "default");
	ck_assert_ptr_nonnull(e->ref);
	ERR_clear_error();
	e->hw = OSSL_PROVIDER_load(e->libctx, "hwoffload");
	for (int i = 0; i < ENV_KEYS; i++)
		unsetenv(env_keys[i]);
	return e->hw != NULL;
}

void load(struct env *e, const char *mode, const char *fallback)
{
	char m[64], f[64];
	const char *settings[] = { m, f, NULL };

	snprintf(m, sizeof(m), "HWOFFLOAD_MODE=%s", mode);
	snprintf(f, sizeof(f), "HWOFFLOAD_FALLBACK=%s", fallback);
	if (!load_with(e, settings)) {
		ERR_print_errors_fp(stderr);
		ck_abort_msg("hwoffload does not load with mode=%s", mode);
	}
}

void unload(struct env *e)
{
	OSSL_PROVIDER_unload(e->hw);
	OSSL_PROVIDER_unload(e->ref);
	OSSL_LIB_CTX_free(e->libctx);
}

#define ck_assert_error_says(needle) ck_assert_error_says_either(needle, needle)
/* Where the default provider serves a whole stream, its own words are the error. */
#define ck_assert_error_says_either(ours, openssls)                                            \
	do {                                                                                   \
		char text_[4096];                                                              \
		prov_error_text(text_, sizeof(text_));                                         \
		ck_assert_msg(strstr(text_, ours) || strstr(text_, openssls),                  \
			      "error '%s' says neither '%s' nor '%s'", text_, ours, openssls); \
	} while (0)

const char *provider_param(const struct env *e, const char *key)
{
	static char value[8192];
	OSSL_PARAM p[] = { OSSL_PARAM_utf8_string(key, value, sizeof(value)), OSSL_PARAM_END };
	char *ptr = NULL;
	OSSL_PARAM q[] = { OSSL_PARAM_utf8_ptr(key, &ptr, 0), OSSL_PARAM_END };

	value[0] = 0;
	if (OSSL_PROVIDER_get_params(e->hw, q) && OSSL_PARAM_modified(q))
		return ptr;
	ck_assert_msg(OSSL_PROVIDER_get_params(e->hw, p), "no provider parameter %s", key);
	return value;
}

long long path_counter(const struct env *e, const char *path, const char *counter)
{
	return prov_stats_counter(provider_param(e, "hwoffload-statistics"), path, counter);
}

/* ---- one stream, in pieces ----------------------------------------------------------------------
 */

static size_t split(struct test_rng *rng, int how, size_t len, size_t *pieces)
{
	switch (how) {
	case 0: /* one shot */
		pieces[0] = len;
		return 1;
	case 1: /* one byte per update, for short messages; the first 64 bytes, then the rest */
		if (len > 300) {
			for (size_t i = 0; i < 64; i++)
				pieces[i] = 1;
			pieces[64 - 1] = len - 63;
			return 64;
		}
		for (size_t i = 0; i < len; i++)
			pieces[i] = 1;
		return len;
	default:
		return test_rng_split(rng, len, 1, 8, pieces);
	}
}

/* The plain ciphers and digests (GCM's and HMAC's rows: provider_gcm.c, provider_hmac.c). */
static bool stream_row(const struct hwoff_alg *alg)
{
	return !hwoff_alg_is_aead(alg) && !hwoff_alg_is_hmac(alg);
}

const struct hwoff_alg *row_where(bool (*pick)(const struct hwoff_alg *), size_t i)
{
	for (size_t r = 0; r < HWOFF_ALG_COUNT; r++)
		if (pick(&hwoff_algs[r]) && !i--)
			return &hwoff_algs[r];
	ck_abort_msg("no row %zu", i);
	return NULL;
}

size_t rows_where(bool (*pick)(const struct hwoff_alg *))
{
	size_t n = 0;

	for (size_t r = 0; r < HWOFF_ALG_COUNT; r++)
		n += pick(&hwoff_algs[r]);
	return n;
}

static const struct hwoff_alg *row(size_t i)
{
	return row_where(stream_row, i);
}

static size_t stream_rows(void)
{
	return rows_where(stream_row);
}

/* Cipher len bytes of in through cipher in the given updates; returns the output length. */
static size_t cipher_run(EVP_CIPHER *cipher, int enc, int padding, const unsigned char *key,
			 const unsigned char *iv, const unsigned char *in, size_t len,
			 const size_t *pieces, size_t count, unsigned char *out)
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	size_t done = 0, off = 0;
	int outl;

	ck_assert(EVP_CipherInit_ex2(ctx, cipher, key, iv, enc, NULL));
	ck_assert(EVP_CIPHER_CTX_set_padding(ctx, padding));
	for (size_t i = 0; i < count; i++) {
		if (!EVP_CipherUpdate(ctx, out + done, &outl, in + off, (int)pieces[i])) {
			ERR_print_errors_fp(stderr);
			ck_abort_msg("%s update %zu of %zu bytes failed",
				     EVP_CIPHER_get0_name(cipher), i, pieces[i]);
		}
		done += outl;
		off += pieces[i];
	}
	if (!EVP_CipherFinal_ex(ctx, out + done, &outl)) {
		ERR_print_errors_fp(stderr);
		ck_abort_msg("%s final failed", EVP_CIPHER_get0_name(cipher));
	}
	EVP_CIPHER_CTX_free(ctx);
	return done + outl;
}

static void digest_run(EVP_MD *md, const unsigned char *in, const size_t *pieces, size_t count,
		       unsigned char *out)
{
	EVP_MD_CTX *ctx = EVP_MD_CTX_new();
	unsigned int outl;
	size_t off = 0;

	ck_assert(EVP_DigestInit_ex2(ctx, md, NULL));
	for (size_t i = 0; i < count; i++) {
		if (!EVP_DigestUpdate(ctx, in + off, pieces[i])) {
			ERR_print_errors_fp(stderr);
			ck_abort_msg("%s update failed", EVP_MD_get0_name(md));
		}
		off += pieces[i];
	}
	if (!EVP_DigestFinal_ex(ctx, out, &outl)) {
		ERR_print_errors_fp(stderr);
		ck_abort_msg("%s final failed", EVP_MD_get0_name(md));
	}
	EVP_MD_CTX_free(ctx);
}

struct buffers {
	unsigned char *in, *out, *ref, *back;
	size_t pieces[MAX_PIECES > 300 ? MAX_PIECES : 300];
};

static void buffers_alloc(struct buffers *b)
{
	b->in = malloc(MAX_LEN);
	b->out = malloc(MAX_LEN + 32);
	b->ref = malloc(MAX_LEN + 32);
	b->back = malloc(MAX_LEN + 32);
	ck_assert(b->in && b->out && b->ref && b->back);
}

static void buffers_free(struct buffers *b)
{
	free(b->in);
	free(b->out);
	free(b->ref);
	free(b->back);
}

/* One length of one cipher row: both directions, every split, padding on and (if whole) off. */
static void check_cipher_len(struct env *e, const struct hwoff_alg *alg, struct test_rng *rng,
			     struct buffers *b, size_t len)
{
	EVP_CIPHER *hw = EVP_CIPHER_fetch(e->libctx, alg->name, "provider=hwoffload");
	EVP_CIPHER *ref = EVP_CIPHER_fetch(e->libctx, alg->name, "provider=default");
	unsigned char key[32], iv[16];
	size_t one = len;

	ck_assert_ptr_nonnull(hw);
	ck_assert_ptr_nonnull(ref);
	test_rng_fill(rng, key, sizeof(key));
	test_rng_fill(rng, iv, sizeof(iv));
	test_rng_fill(rng, b->in, len);
	for (int padding = 1; padding >= 0; padding--) {
		size_t n_ref, n;
		char what[160];

		if (!padding && alg->mode != HWOFF_MODE_CTR && len % 16)
			continue;
		n_ref = cipher_run(ref, 1, padding, key, iv, b->in, len, &one, 1, b->ref);
		for (int how = 0; how < 3; how++) {
			size_t count = split(rng, how, len, b->pieces);

			snprintf(what, sizeof(what), "%s encrypt %zu bytes, split %d, padding %d",
				 alg->name, len, how, padding);
			n = cipher_run(hw, 1, padding, key, iv, b->in, len, b->pieces, count,
				       b->out);
			ck_assert_msg(n == n_ref, "%s: %zu bytes, not %zu", what, n, n_ref);
			ck_assert_bytes_eq(what, b->out, b->ref, n);
			count = split(rng, how, n_ref, b->pieces);
			snprintf(what, sizeof(what), "%s decrypt %zu bytes, split %d, padding %d",
				 alg->name, n_ref, how, padding);
			n = cipher_run(hw, 0, padding, key, iv, b->ref, n_ref, b->pieces, count,
				       b->back);
			ck_assert_msg(n == len, "%s: %zu bytes, not %zu", what, n, len);
			ck_assert_bytes_eq(what, b->back, b->in, len);
		}
	}
	EVP_CIPHER_free(hw);
	EVP_CIPHER_free(ref);
}

static void check_digest_len(struct env *e, const struct hwoff_alg *alg, struct test_rng *rng,
			     struct buffers *b, size_t len)
{
	EVP_MD *hw = EVP_MD_fetch(e->libctx, alg->name, "provider=hwoffload");
	EVP_MD *ref = EVP_MD_fetch(e->libctx, alg->name, "provider=default");
	size_t one = len;

	ck_assert_ptr_nonnull(hw);
	ck_assert_ptr_nonnull(ref);
	test_rng_fill(rng, b->in, len);
	digest_run(ref, b->in, &one, 1, b->ref);
	for (int how = 0; how < 3; how++) {
		size_t count = split(rng, how, len, b->pieces);
		char what[128];

		snprintf(what, sizeof(what), "%s of %zu bytes, split %d", alg->name, len, how);
		digest_run(hw, b->in, b->pieces, count, b->out);
		ck_assert_bytes_eq(what, b->out, b->ref, alg->digest_bytes);
	}
	EVP_MD_free(hw);
	EVP_MD_free(ref);
}

bool engine_refuses(const struct env *e, const struct hwoff_alg *alg, const char *mode)
{
	static const unsigned char key[HWOFF_AES_KEY_MAX] = { 1 }, iv[HWOFF_AES_BLOCK] = { 2 };
	unsigned char in[100] = { 3 }, out[sizeof(in) + EVP_MAX_MD_SIZE];
	char reason[256];
	size_t n = 0;
	bool served;

	if (test_mode_serves(mode, alg->kernel_name))
		return false;
	ERR_clear_error();
	if (hwoff_alg_is_hmac(alg)) {
		served = EVP_Q_mac(e->libctx, "HMAC", "provider=hwoffload", alg->hmac_of->name,
				   NULL, key, sizeof(key), in, sizeof(in), out, sizeof(out), &n);
	} else if (hwoff_alg_is_digest(alg)) {
		served = EVP_Q_digest(e->libctx, alg->name, "provider=hwoffload", in, sizeof(in),
				      out, &n);
	} else {
		EVP_CIPHER *hw = EVP_CIPHER_fetch(e->libctx, alg->name, "provider=hwoffload");
		EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
		int outl;

		served = EVP_EncryptInit_ex2(ctx, hw, key, iv, NULL) &&
			 EVP_EncryptUpdate(ctx, out, &outl, in, sizeof(in));
		EVP_CIPHER_CTX_free(ctx);
		EVP_CIPHER_free(hw);
	}
	ck_assert_msg(!served, "mode %s served %s, which the engine does not register", mode,
		      alg->name);
	snprintf(reason, sizeof(reason), "no %s driver of the hwoffload engine for %s", mode,
		 alg->kernel_name);
	ck_assert_error_says(reason);
	return true;
}

/* _i: row x mode. Every edge length, then random ones up to 1 MiB. */
START_TEST(matches_default)
{
	const struct hwoff_alg *alg = row((size_t)_i / MODES);
	const char *mode = modes[(size_t)_i % MODES];
	struct test_rng rng;
	struct buffers b;
	struct env e;
	long long served = 0;

	test_rng_init(&rng, 0x1000 + (uint64_t)_i);
	buffers_alloc(&b);
	load(&e, mode, "no");
	if (engine_refuses(&e, alg, mode))
		goto out;
	for (size_t k = 0; k < sizeof(edge_lens) / sizeof(edge_lens[0]) + 3; k++) {
		size_t len = k < sizeof(edge_lens) / sizeof(edge_lens[0])
				     ? edge_lens[k]
				     : test_rng_range(&rng, 0, k % 2 ? 70000 : MAX_LEN - 16);

		if (hwoff_alg_is_digest(alg))
			check_digest_len(&e, alg, &rng, &b, len);
		else
			check_cipher_len(&e, alg, &rng, &b, len);
	}
	/* the forced modes served from the engine only; software from software only */
	served = path_counter(&e, "software", "requests");
	if (!strcmp(mode, "software"))
		ck_assert_msg(served > 0, "software served nothing");
	if (!strcmp(mode, "pio") || !strcmp(mode, "dma"))
		ck_assert_msg(served == 0, "mode %s: software served %lld requests", mode, served);
out:
	unload(&e);
	buffers_free(&b);
}
END_TEST

/*
 * _i: mode. One context given the same key again with each message (openssl speed does), then
 * another key, then only an IV: every message as the default provider's, CBC and GCM. The same
 * key keeps the context's kernel sessions; the IV must still be the new one.
 */
START_TEST(same_key_again)
{
	static const char *const names[] = { "AES-128-CBC", "AES-128-GCM" };
	unsigned char key[2][16] = { { 1 }, { 2 } }, iv[16], in[8192], out[8192 + 16],
		      ref[8192 + 16];
	struct env e;

	memset(in, 0x21, sizeof(in));
	load(&e, modes[_i], "no");
	for (size_t n = 0; n < 2; n++) {
		EVP_CIPHER *hw = EVP_CIPHER_fetch(e.libctx, names[n], "provider=hwoffload");
		EVP_CIPHER *sw = EVP_CIPHER_fetch(e.libctx, names[n], "provider=default");
		EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new(), *rctx = EVP_CIPHER_CTX_new();

		for (int m = 0; m < 6; m++) {
			/* key 0 three times, key 1 twice, then no key */
			const unsigned char *k = m == 5 ? NULL : key[m / 3];
			int outl, routl;

			memset(iv, m, sizeof(iv));
			ck_assert(EVP_EncryptInit_ex2(ctx, m ? NULL : hw, k, iv, NULL));
			ck_assert(EVP_EncryptInit_ex2(rctx, sw, key[m < 3 ? 0 : 1], iv, NULL));
			ck_assert(EVP_EncryptUpdate(ctx, out, &outl, in, sizeof(in)));
			ck_assert(EVP_EncryptUpdate(rctx, ref, &routl, in, sizeof(in)));
			ck_assert_int_eq(outl, routl);
			ck_assert(EVP_EncryptFinal_ex(ctx, out + outl, &outl));
			ck_assert(EVP_EncryptFinal_ex(rctx, ref + routl, &routl));
			ck_assert_bytes_eq(names[n], out, ref, sizeof(in));
			if (n == 1) {
				ck_assert(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, out));
				ck_assert(
					EVP_CIPHER_CTX_ctrl(rctx, EVP_CTRL_AEAD_GET_TAG, 16, ref));
				ck_assert_bytes_eq("tag", out, ref, 16);
			}
		}
		EVP_CIPHER_CTX_free(ctx);
		EVP_CIPHER_CTX_free(rctx);
		EVP_CIPHER_free(hw);
		EVP_CIPHER_free(sw);
	}
	unload(&e);
}
END_TEST

/* ---- copies mid-stream --------------------------------------------------------------------------
 */

START_TEST(copy_midstream)
{
	const struct hwoff_alg *alg = row((size_t)_i / MODES);
	const char *mode = modes[(size_t)_i % MODES];
	size_t len = 3 * 65536 + 77, cut = 65536 + 21;
	unsigned char key[32], iv[16];
	struct test_rng rng;
	struct buffers b;
	struct env e;

	test_rng_init(&rng, 0x2000 + (uint64_t)_i);
	buffers_alloc(&b);
	load(&e, mode, "no");
	test_rng_fill(&rng, b.in, len);
	test_rng_fill(&rng, key, sizeof(key));
	test_rng_fill(&rng, iv, sizeof(iv));
	if (engine_refuses(&e, alg, mode))
		goto out;
	if (hwoff_alg_is_digest(alg)) {
		EVP_MD *hw = EVP_MD_fetch(e.libctx, alg->name, "provider=hwoffload");
		EVP_MD *ref = EVP_MD_fetch(e.libctx, alg->name, "provider=default");
		EVP_MD_CTX *a = EVP_MD_CTX_new(), *c = EVP_MD_CTX_new();
		unsigned int n;

		ck_assert(EVP_DigestInit_ex2(a, hw, NULL) && EVP_DigestUpdate(a, b.in, cut));
		ck_assert(EVP_MD_CTX_copy_ex(c, a));
		ck_assert(EVP_DigestUpdate(a, b.in + cut, len - cut));
		ck_assert(EVP_DigestUpdate(c, b.in + cut, len - cut));
		ck_assert(EVP_DigestFinal_ex(a, b.out, &n) && EVP_DigestFinal_ex(c, b.back, &n));
		ck_assert(EVP_Digest(b.in, len, b.ref, &n, ref, NULL));
		ck_assert_bytes_eq("original", b.out, b.ref, n);
		ck_assert_bytes_eq("copy", b.back, b.ref, n);
		EVP_MD_CTX_free(a);
		EVP_MD_CTX_free(c);
		EVP_MD_free(hw);
		EVP_MD_free(ref);
	} else {
		EVP_CIPHER *hw = EVP_CIPHER_fetch(e.libctx, alg->name, "provider=hwoffload");
		EVP_CIPHER *ref = EVP_CIPHER_fetch(e.libctx, alg->name, "provider=default");
		EVP_CIPHER_CTX *a = EVP_CIPHER_CTX_new(), *c = EVP_CIPHER_CTX_new();
		size_t whole = len - len % 16, n;
		int l1, l2, l3;

		n = cipher_run(ref, 1, 0, key, iv, b.in, whole, &whole, 1, b.ref);
		ck_assert(EVP_EncryptInit_ex2(a, hw, key, iv, NULL));
		EVP_CIPHER_CTX_set_padding(a, 0);
		ck_assert(EVP_EncryptUpdate(a, b.out, &l1, b.in, (int)cut));
		ck_assert(EVP_CIPHER_CTX_copy(c, a));
		ck_assert(EVP_EncryptUpdate(a, b.out + l1, &l2, b.in + cut, (int)(whole - cut)));
		ck_assert(EVP_EncryptFinal_ex(a, b.out + l1 + l2, &l3));
		ck_assert_uint_eq((size_t)(l1 + l2 + l3), n);
		ck_assert_bytes_eq("original", b.out, b.ref, n);
		memcpy(b.back, b.out, l1);
		ck_assert(EVP_EncryptUpdate(c, b.back + l1, &l2, b.in + cut, (int)(whole - cut)));
		ck_assert(EVP_EncryptFinal_ex(c, b.back + l1 + l2, &l3));
		ck_assert_bytes_eq("copy", b.back, b.ref, n);
		EVP_CIPHER_CTX_free(a);
		EVP_CIPHER_CTX_free(c);
		EVP_CIPHER_free(hw);
		EVP_CIPHER_free(ref);
	}
out:
	unload(&e);
	buffers_free(&b);
}
END_TEST

/* ---- bad input ----------------------------------------------------------------------------------
 */

START_TEST(bad_cipher_input)
{
	unsigned char key[32] = { 0 }, iv[16] = { 0 }, buf[64] = { 0 }, out[96];
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	EVP_CIPHER *cbc;
	struct env e;
	size_t len = 12;
	int outl;
	OSSL_PARAM ivlen[] = { OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_IVLEN, &len), OSSL_PARAM_END };
	OSSL_PARAM keylen[] = { OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_KEYLEN, &len), OSSL_PARAM_END };

	load(&e, modes[_i], "no");
	cbc = EVP_CIPHER_fetch(e.libctx, "AES-128-CBC", "provider=hwoffload");
	ck_assert_ptr_nonnull(cbc);

	/* a key of the wrong length */
	ck_assert(EVP_EncryptInit_ex2(ctx, cbc, NULL, NULL, NULL));
	ck_assert(!EVP_CIPHER_CTX_set_params(ctx, keylen));
	ck_assert_error_says("AES-128-CBC takes a 16-byte key, not 12");
	/* an IV of the wrong length */
	ck_assert(!EVP_CIPHER_CTX_set_params(ctx, ivlen));
	ck_assert_error_says("AES-128-CBC takes a 16-byte IV, not 12");
	/* no key */
	ck_assert(!EVP_EncryptUpdate(ctx, out, &outl, buf, 16));
	ck_assert_error_says("no key was set");
	/* NULL input */
	ck_assert(EVP_EncryptInit_ex2(ctx, cbc, key, iv, NULL));
	ck_assert(!EVP_EncryptUpdate(ctx, out, &outl, NULL, 16));
	ck_assert_error_says("NULL input buffer");
	/* padding off and a partial block */
	ck_assert(EVP_EncryptInit_ex2(ctx, cbc, key, iv, NULL));
	EVP_CIPHER_CTX_set_padding(ctx, 0);
	ck_assert(EVP_EncryptUpdate(ctx, out, &outl, buf, 20));
	ck_assert(!EVP_EncryptFinal_ex(ctx, out, &outl));
	ck_assert_error_says_either("padding off: 4 bytes left over", "wrong final block length");
	/* bad padding on decryption: zeros decrypt to garbage (padding stays set, as OpenSSL's) */
	ck_assert(EVP_DecryptInit_ex2(ctx, cbc, key, iv, NULL));
	EVP_CIPHER_CTX_set_padding(ctx, 1);
	ck_assert(EVP_DecryptUpdate(ctx, out, &outl, buf, 32));
	ck_assert(!EVP_DecryptFinal_ex(ctx, out + outl, &outl));
	ck_assert_error_says_either("bad padding", "bad decrypt");
	ck_assert(EVP_DecryptInit_ex2(ctx, cbc, key, iv, NULL));
	ck_assert(EVP_DecryptUpdate(ctx, out, &outl, buf, 20));
	ck_assert(!EVP_DecryptFinal_ex(ctx, out + outl, &outl));
	ck_assert_error_says("wrong final block length");
	/* EVP_Cipher() on part of a block */
	ck_assert(EVP_EncryptInit_ex2(ctx, cbc, key, iv, NULL));
	ck_assert(EVP_Cipher(ctx, out, buf, 15) <= 0);
	ck_assert_error_says("15 bytes");

	EVP_CIPHER_CTX_free(ctx);
	EVP_CIPHER_free(cbc);
	unload(&e);
}
END_TEST

/* The parameters applications and libssl ask for are the default provider's. */
START_TEST(parameters_match_default)
{
	const struct hwoff_alg *alg = row((size_t)_i);
	struct env e;

	load(&e, "auto", "yes");
	if (hwoff_alg_is_digest(alg)) {
		EVP_MD *hw = EVP_MD_fetch(e.libctx, alg->name, "provider=hwoffload");
		EVP_MD *ref = EVP_MD_fetch(e.libctx, alg->name, "provider=default");

		ck_assert_int_eq(EVP_MD_get_size(hw), EVP_MD_get_size(ref));
		ck_assert_int_eq(EVP_MD_get_block_size(hw), EVP_MD_get_block_size(ref));
		ck_assert_uint_eq(EVP_MD_get_flags(hw), EVP_MD_get_flags(ref));
		/* every name and alias */
		ck_assert(EVP_MD_is_a(hw, alg->name));
		EVP_MD_free(hw);
		EVP_MD_free(ref);
	} else {
		EVP_CIPHER *hw = EVP_CIPHER_fetch(e.libctx, alg->name, "provider=hwoffload");
		EVP_CIPHER *ref = EVP_CIPHER_fetch(e.libctx, alg->name, "provider=default");
		EVP_CIPHER_CTX *h = EVP_CIPHER_CTX_new(), *r = EVP_CIPHER_CTX_new();
		unsigned char key[32] = { 1 }, iv[16] = { 2 }, in[48] = { 3 }, out[48], ivh[16],
			      ivr[16];
		int outl;

		ck_assert_int_eq(EVP_CIPHER_get_key_length(hw), EVP_CIPHER_get_key_length(ref));
		ck_assert_int_eq(EVP_CIPHER_get_iv_length(hw), EVP_CIPHER_get_iv_length(ref));
		ck_assert_int_eq(EVP_CIPHER_get_block_size(hw), EVP_CIPHER_get_block_size(ref));
		ck_assert_int_eq(EVP_CIPHER_get_mode(hw), EVP_CIPHER_get_mode(ref));
		ck_assert_uint_eq(EVP_CIPHER_get_flags(hw), EVP_CIPHER_get_flags(ref));
		/* the updated IV and num after 37 bytes */
		ck_assert(EVP_EncryptInit_ex2(h, hw, key, iv, NULL));
		ck_assert(EVP_EncryptInit_ex2(r, ref, key, iv, NULL));
		ck_assert(EVP_EncryptUpdate(h, out, &outl, in, 37));
		ck_assert(EVP_EncryptUpdate(r, out, &outl, in, 37));
		ck_assert_int_eq(EVP_CIPHER_CTX_get_num(h), EVP_CIPHER_CTX_get_num(r));
		if (alg->iv_bytes) {
			ck_assert(EVP_CIPHER_CTX_get_updated_iv(h, ivh, sizeof(ivh)));
			ck_assert(EVP_CIPHER_CTX_get_updated_iv(r, ivr, sizeof(ivr)));
			ck_assert_bytes_eq("updated iv", ivh, ivr, 16);
			ck_assert(EVP_CIPHER_CTX_get_original_iv(h, ivh, sizeof(ivh)));
			ck_assert_bytes_eq("original iv", ivh, iv, 16);
		}
		EVP_CIPHER_CTX_free(h);
		EVP_CIPHER_CTX_free(r);
		EVP_CIPHER_free(hw);
		EVP_CIPHER_free(ref);
	}
	unload(&e);
}
END_TEST

/*
 * One TLS 1.2 record through a CBC context given libssl's record parameters (tls-version,
 * tls-mac-size): sealed in place (the cipher pads), opened (it checks and strips the padding,
 * hands out the MAC), as by OpenSSL's own; a record with bad padding fails the same way.
 */
static int tls_record(EVP_CIPHER *cipher, int enc, const unsigned char *key, unsigned char *rec,
		      size_t len, size_t room, size_t *outl, unsigned char *mac)
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	unsigned int version = 0x0303; /* TLS 1.2 */
	size_t mac_size = 32;
	unsigned char *mac_ptr = NULL;
	OSSL_PARAM set[] = { OSSL_PARAM_uint(OSSL_CIPHER_PARAM_TLS_VERSION, &version),
			     OSSL_PARAM_size_t(OSSL_CIPHER_PARAM_TLS_MAC_SIZE, &mac_size),
			     OSSL_PARAM_END };
	OSSL_PARAM get[] = { OSSL_PARAM_octet_ptr(OSSL_CIPHER_PARAM_TLS_MAC, (void **)&mac_ptr,
						  mac_size),
			     OSSL_PARAM_END };
	int ok, n = 0;

	ck_assert(EVP_CipherInit_ex2(ctx, cipher, key, NULL, enc, NULL));
	ck_assert_msg(EVP_CIPHER_CTX_set_params(ctx, set), "%s refuses the TLS parameters",
		      EVP_CIPHER_get0_provider(cipher) ? EVP_CIPHER_get0_name(cipher) : "?");
	ok = EVP_CipherUpdate(ctx, rec, &n, rec, (int)len) && n >= 0 && (size_t)n <= room;
	*outl = ok ? (size_t)n : 0;
	if (ok && !enc) {
		ck_assert(EVP_CIPHER_CTX_get_params(ctx, get));
		ck_assert_ptr_nonnull(mac_ptr);
		memcpy(mac, mac_ptr, mac_size);
	}
	EVP_CIPHER_CTX_free(ctx);
	ERR_clear_error();
	return ok;
}

START_TEST(tls_record_matches_default)
{
	const char *name = _i % 2 ? "AES-256-CBC" : "AES-128-CBC";
	const size_t payload = 16 + 1000 + 32; /* explicit IV, data, MAC */
	unsigned char key[32], rh[2048], rr[2048], mh[32], mr[32];
	size_t lh, lr, sealed;
	struct test_rng rng;
	struct env e;

	test_rng_init(&rng, 0x7100 + (uint64_t)_i);
	test_rng_fill(&rng, key, sizeof(key));
	test_rng_fill(&rng, rh, payload);
	memcpy(rr, rh, payload);
	load(&e, _i < 2 ? "auto" : "software", "no");
	{
		EVP_CIPHER *hw = EVP_CIPHER_fetch(e.libctx, name, "provider=hwoffload");
		EVP_CIPHER *ref = EVP_CIPHER_fetch(e.libctx, name, "provider=default");

		ck_assert(tls_record(hw, 1, key, rh, payload, sizeof(rh), &lh, NULL));
		ck_assert(tls_record(ref, 1, key, rr, payload, sizeof(rr), &lr, NULL));
		ck_assert_uint_eq(lh, lr);
		ck_assert_bytes_eq("sealed record", rh, rr, lr);
		sealed = lr;
		ck_assert(tls_record(hw, 0, key, rh, sealed, sizeof(rh), &lh, mh));
		ck_assert(tls_record(ref, 0, key, rr, sealed, sizeof(rr), &lr, mr));
		ck_assert_uint_eq(lh, lr);
		ck_assert_bytes_eq("opened record", rh, rr, lr);
		ck_assert_bytes_eq("record MAC", mh, mr, sizeof(mh));
		/* not a whole number of blocks: publicly bad, refused by both */
		ck_assert_int_eq(tls_record(hw, 0, key, rh, sealed - 1, sizeof(rh), &lh, mh),
				 tls_record(ref, 0, key, rr, sealed - 1, sizeof(rr), &lr, mr));
		EVP_CIPHER_free(hw);
		EVP_CIPHER_free(ref);
	}
	unload(&e);
}
END_TEST

/* ---- configuration ------------------------------------------------------------------------------
 */

static const struct {
	const char *setting;
	const char *says;
} bad_configs[] = {
	{ "HWOFFLOAD_MODE=fast", "key 'mode' (from environment variable HWOFFLOAD_MODE): 'fast'" },
	{ "HWOFFLOAD_OBJECTIVE=latency", "key 'objective'" },
	{ "HWOFFLOAD_FALLBACK=maybe", "key 'fallback'" },
	{ "HWOFFLOAD_STATS=2", "key 'stats'" },
	{ "HWOFFLOAD_ALGORITHMS=AES-128-CBC,ROT13", "'ROT13' is not an algorithm" },
	{ "HWOFFLOAD_ALGORITHMS=,", "key 'algorithms'" },
	{ "HWOFFLOAD_TABLE=", "key 'table'" },
	{ "HWOFFLOAD_TABLE=/nonexistent/table", "/nonexistent/table" },
};

START_TEST(bad_configuration)
{
	const char *settings[] = { bad_configs[_i].setting, NULL };
	struct env e;

	ck_assert_msg(!load_with(&e, settings), "%s: loaded", bad_configs[_i].setting);
	ck_assert_error_says(bad_configs[_i].says);
	OSSL_PROVIDER_unload(e.ref);
	OSSL_LIB_CTX_free(e.libctx);
}
END_TEST

/* A malformed table file: the provider does not load, and says FILE:LINE. */
START_TEST(bad_table_file)
{
	char path[4096], setting[4200], expect[4200];
	const char *settings[] = { setting, NULL };
	const char *srcdir = getenv("HWOFFLOAD_SRCDIR");
	struct env e;

	snprintf(path, sizeof(path), "%s/test/data/table-bad/range-decreasing.txt",
		 srcdir ? srcdir : ".");
	ck_assert_msg(access(path, R_OK) == 0, "%s is missing", path);
	snprintf(setting, sizeof(setting), "HWOFFLOAD_TABLE=%s", path);
	ck_assert(!load_with(&e, settings));
	snprintf(expect, sizeof(expect), "%s:", path);
	ck_assert_error_says(expect);
	OSSL_PROVIDER_unload(e.ref);
	OSSL_LIB_CTX_free(e.libctx);
}
END_TEST

/* algorithms = LIST offers those and no others. */
START_TEST(algorithm_list)
{
	const char *settings[] = { "HWOFFLOAD_ALGORITHMS=aes128, SHA256", NULL };
	EVP_CIPHER *c;
	EVP_MD *md;
	struct env e;

	ck_assert(load_with(&e, settings));
	c = EVP_CIPHER_fetch(e.libctx, "AES-128-CBC", "provider=hwoffload");
	md = EVP_MD_fetch(e.libctx, "SHA2-256", "provider=hwoffload");
	ck_assert(c && md);
	EVP_CIPHER_free(c);
	EVP_MD_free(md);
	c = EVP_CIPHER_fetch(e.libctx, "AES-256-CBC", "provider=hwoffload");
	md = EVP_MD_fetch(e.libctx, "MD5", "provider=hwoffload");
	ck_assert(!c && !md);
	ERR_clear_error();
	unload(&e);
}
END_TEST

/* Each provided algorithm counted by the row its name finds, from OpenSSL's own list. */
static void count_row(const char *name, size_t *rows)
{
	const struct hwoff_alg *alg = hwoff_alg_by_name(name);

	ck_assert_msg(alg, "%s is no row of the algorithm table", name);
	rows[hwoff_alg_index(alg)]++;
}

static void count_cipher(EVP_CIPHER *c, void *rows)
{
	if (strcmp(OSSL_PROVIDER_get0_name(EVP_CIPHER_get0_provider(c)), "hwoffload") == 0)
		count_row(EVP_CIPHER_get0_name(c), rows);
}

static void count_digest(EVP_MD *md, void *rows)
{
	if (strcmp(OSSL_PROVIDER_get0_name(EVP_MD_get0_provider(md)), "hwoffload") == 0)
		count_row(EVP_MD_get0_name(md), rows);
}

/* HMAC: one EVP_MAC for every HMAC row. */
static void count_mac(EVP_MAC *mac, void *rows)
{
	if (strcmp(OSSL_PROVIDER_get0_name(EVP_MAC_get0_provider(mac)), "hwoffload") != 0)
		return;
	ck_assert_str_eq(EVP_MAC_get0_name(mac), "HMAC");
	for (size_t i = 0; i < HWOFF_ALG_COUNT; i++)
		((size_t *)rows)[i] += hwoff_alg_is_hmac(&hwoff_algs[i]);
}

/* The algorithm table makes the provider's list: every row once, nothing else. */
START_TEST(one_algorithm_per_row)
{
	size_t rows[HWOFF_ALG_COUNT] = { 0 };
	struct env e;

	load(&e, "auto", "yes");
	EVP_CIPHER_do_all_provided(e.libctx, count_cipher, rows);
	EVP_MD_do_all_provided(e.libctx, count_digest, rows);
	EVP_MAC_do_all_provided(e.libctx, count_mac, rows);
	for (size_t i = 0; i < HWOFF_ALG_COUNT; i++)
		ck_assert_msg(rows[i] == 1, "%s offered %zu times", hwoff_algs[i].name, rows[i]);
	unload(&e);
}
END_TEST

/* ---- where this runs ----------------------------------------------------------------------------
 */

#if !PROVIDER_TEST_IN_GUEST
/* No AF_ALG here: the provider loads, serves software, says why; pio/dma fail clearly. */
START_TEST(no_af_alg)
{
	unsigned char key[16] = { 0 }, iv[16] = { 0 };
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	EVP_CIPHER *cbc;
	EVP_MD_CTX *mctx = EVP_MD_CTX_new();
	EVP_MD *md;
	struct env e;

	load(&e, "auto", "yes");
	ck_assert_str_eq(provider_param(&e, "hwoffload-af-alg"), "unavailable");
	ck_assert_msg(strstr(provider_param(&e, "hwoffload-af-alg-reason"), "AF_ALG"), "reason: %s",
		      provider_param(&e, "hwoffload-af-alg-reason"));
	ck_assert_msg(strstr(provider_param(&e, OSSL_PROV_PARAM_NAME), "software only"), "name");
	unload(&e);

	load(&e, "pio", "yes");
	cbc = EVP_CIPHER_fetch(e.libctx, "AES-128-CBC", "provider=hwoffload");
	ck_assert(!EVP_EncryptInit_ex2(ctx, cbc, key, iv, NULL));
	ck_assert_error_says("mode=pio: AF_ALG is unavailable");
	md = EVP_MD_fetch(e.libctx, "SHA2-256", "provider=hwoffload");
	ck_assert(!EVP_DigestInit_ex2(mctx, md, NULL));
	ck_assert_error_says("mode=pio: AF_ALG is unavailable");
	EVP_CIPHER_free(cbc);
	EVP_MD_free(md);
	EVP_CIPHER_CTX_free(ctx);
	EVP_MD_CTX_free(mctx);
	unload(&e);
}
END_TEST
#else
const char *engine_driver(const char *kernel_name, enum hwoff_impl_class class)
{
	static struct hwoff_discovery d;
	const struct hwoff_impl *impl;
	char err[256];

	ck_assert_msg(hwoff_discover(&d, err, sizeof(err)) == 0, "%s", err);
	impl = hwoff_discovery_find_class(&d, kernel_name, class);
	ck_assert_msg(impl, "no %s driver of the engine for %s", hwoff_impl_class_name(class),
		      kernel_name);
	return impl->driver;
}

/* The tests of the engine's paths take the rows it serves: the others engine_refuses(). */
static bool engine_stream_row(const struct hwoff_alg *alg)
{
	return stream_row(alg) && test_engine_registers(alg->kernel_name);
}

static bool engine_digest_row(const struct hwoff_alg *alg)
{
	return hwoff_alg_is_digest(alg) && test_engine_registers(alg->kernel_name);
}

START_TEST(af_alg_here)
{
	struct env e;

	load(&e, "auto", "yes");
	ck_assert_str_eq(provider_param(&e, "hwoffload-af-alg"), "available");
	ck_assert_str_eq(provider_param(&e, "hwoffload-af-alg-reason"), "");
	unload(&e);
}
END_TEST

/* Loads hwoffload with t (freed here) as its path table file, fallback off. */
static void load_with_table(struct env *e, struct hwoff_table *t, const char *comment)
{
	char table_path[] = "/tmp/hwoffload-table-XXXXXX", setting[128];
	const char *settings[] = { setting, "HWOFFLOAD_FALLBACK=no", NULL };
	int fd = mkstemp(table_path);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;

	ck_assert(f && hwoff_table_write(t, f, comment) == 0);
	fclose(f);
	hwoff_table_free(t);
	snprintf(setting, sizeof(setting), "HWOFFLOAD_TABLE=%s", table_path);
	ck_assert(load_with(e, settings));
	unlink(table_path);
}

/*
 * A table that sends 0-63 B to software, 64 B-8 KiB to PIO and larger to DMA: a stream whose
 * updates cross those sizes gives the bytes of one path, and every path served.
 */
START_TEST(path_switch_midstream)
{
	const struct hwoff_alg *alg = row_where(engine_stream_row, (size_t)_i);
	static const size_t updates[] = { 16, 9000, 96, 32, 20000, 48, 16, 4096, 296, 65536 };
	const char *pio = engine_driver(alg->kernel_name, HWOFF_IMPL_ENGINE_PIO);
	char dma[HWOFF_NAME_MAX];
	struct hwoff_table *t = hwoff_table_new();
	size_t total = 0, n_ref;
	struct test_rng rng;
	struct buffers b;
	struct env e;
	char err[256];

	snprintf(dma, sizeof(dma), "%s", engine_driver(alg->kernel_name, HWOFF_IMPL_ENGINE_DMA));
	{
		const struct hwoff_range_spec ranges[] = { { 0, HWOFF_SOFTWARE },
							   { 64, pio },
							   { 8192, dma } };

		for (int dir = 0; dir < HWOFF_DIRECTION_COUNT; dir++)
			if ((dir == HWOFF_DIGEST) == hwoff_alg_is_digest(alg))
				ck_assert_msg(!hwoff_table_set(t, alg, dir, HWOFF_THROUGHPUT,
							       ranges, 3, err, sizeof(err)),
					      "%s", err);
	}
	load_with_table(&e, t, "path_switch_midstream");

	test_rng_init(&rng, 0x3000 + (uint64_t)_i);
	buffers_alloc(&b);
	for (size_t i = 0; i < sizeof(updates) / sizeof(updates[0]); i++)
		total += b.pieces[i] = updates[i];
	test_rng_fill(&rng, b.in, total);
	if (hwoff_alg_is_digest(alg)) {
		EVP_MD *hw = EVP_MD_fetch(e.libctx, alg->name, "provider=hwoffload");
		EVP_MD *ref = EVP_MD_fetch(e.libctx, alg->name, "provider=default");

		/* contexts freed half-way, in software and in the kernel: the next are clean */
		for (size_t len = 100; len <= 70000; len *= 700) {
			EVP_MD_CTX *ctx = EVP_MD_CTX_new();

			ck_assert(EVP_DigestInit_ex2(ctx, hw, NULL) &&
				  EVP_DigestUpdate(ctx, b.in, len));
			EVP_MD_CTX_free(ctx);
		}
		/* a digest goes one way per message, by its size: 16 B, 100 B, 5000 B, 70000 B */
		for (size_t len = 16; len <= 70000; len = len < 5000 ? len * 6 + 4 : len * 14) {
			size_t count = test_rng_split(&rng, len, 1, 8, b.pieces + 16);

			digest_run(ref, b.in, &len, 1, b.ref);
			digest_run(hw, b.in, b.pieces + 16, count, b.out);
			ck_assert_bytes_eq(alg->name, b.out, b.ref, alg->digest_bytes);
		}
		EVP_MD_free(hw);
		EVP_MD_free(ref);
	} else {
		EVP_CIPHER *hw = EVP_CIPHER_fetch(e.libctx, alg->name, "provider=hwoffload");
		EVP_CIPHER *ref = EVP_CIPHER_fetch(e.libctx, alg->name, "provider=default");
		unsigned char key[32], iv[16];

		size_t count = sizeof(updates) / sizeof(updates[0]);

		test_rng_fill(&rng, key, sizeof(key));
		test_rng_fill(&rng, iv, sizeof(iv));
		/* with padding, decrypting keeps a whole block back across the switches */
		for (int padding = 0; padding <= 1; padding++) {
			n_ref = cipher_run(ref, 1, padding, key, iv, b.in, total, &total, 1, b.ref);
			ck_assert_uint_eq(cipher_run(hw, 1, padding, key, iv, b.in, total, b.pieces,
						     count, b.out),
					  n_ref);
			ck_assert_bytes_eq("encrypt", b.out, b.ref, n_ref);
			b.pieces[count - 1] += n_ref - total;
			ck_assert_uint_eq(cipher_run(hw, 0, padding, key, iv, b.ref, n_ref,
						     b.pieces, count, b.back),
					  total);
			ck_assert_bytes_eq("decrypt", b.back, b.in, total);
			b.pieces[count - 1] -= n_ref - total;
		}
		EVP_CIPHER_free(hw);
		EVP_CIPHER_free(ref);
	}
	ck_assert_msg(path_counter(&e, "software", "requests") > 0, "software served nothing");
	ck_assert_msg(path_counter(&e, pio, "requests") > 0, "%s served nothing", pio);
	ck_assert_msg(path_counter(&e, dma, "requests") > 0, "%s served nothing", dma);
	unload(&e);
	buffers_free(&b);
}
END_TEST

/* b->in as one request, a digest (md) or one EVP_EncryptUpdate (cipher): whether it succeeded. */
static int one_request(EVP_MD *md, EVP_CIPHER *cipher, const unsigned char *key,
		       const unsigned char *iv, struct buffers *b, size_t len)
{
	EVP_CIPHER_CTX *ctx;
	int outl, ok;

	memset(b->out, 0, len);
	if (md)
		return EVP_Digest(b->in, len, b->out, NULL, md, NULL);
	ctx = EVP_CIPHER_CTX_new();
	ck_assert(EVP_EncryptInit_ex2(ctx, cipher, key, iv, NULL));
	ok = EVP_EncryptUpdate(ctx, b->out, &outl, b->in, (int)len) && (size_t)outl == len;
	EVP_CIPHER_CTX_free(ctx);
	return ok;
}

static void write_knob(const char *name, int value)
{
	char pattern[256];
	glob_t g;
	FILE *f;

	snprintf(pattern, sizeof(pattern), "/sys/kernel/debug/hwoffload/*/%s", name);
	ck_assert_msg(glob(pattern, 0, NULL, &g) == 0 && g.gl_pathc == 1, "%s: no single match",
		      pattern);
	f = fopen(g.gl_pathv[0], "w");
	ck_assert_msg(f && fprintf(f, "%d\n", value) > 0 && fclose(f) == 0, "cannot write %s",
		      g.gl_pathv[0]);
	globfree(&g);
}

/*
 * A DMA error on the engine: with fallback on, software redoes the request and the bytes are
 * right; with it off, the request fails with the kernel's reason. Never wrong bytes.
 */
START_TEST(kernel_fault)
{
	const struct hwoff_alg *alg = hwoff_alg_by_name(_i < 2 ? "AES-256-CBC" : "SHA2-256");
	const char *fallback = _i % 2 ? "no" : "yes";
	const char *dma = engine_driver(alg->kernel_name, HWOFF_IMPL_ENGINE_DMA);
	unsigned char key[32], iv[16];
	size_t len = 65536;
	struct test_rng rng;
	struct buffers b;
	struct env e;
	int ok;

	test_rng_init(&rng, 0x5000 + (uint64_t)_i);
	buffers_alloc(&b);
	test_rng_fill(&rng, b.in, len);
	test_rng_fill(&rng, key, sizeof(key));
	test_rng_fill(&rng, iv, sizeof(iv));
	load(&e, "dma", fallback);
	write_knob("fault_dma_error", 1);
	if (hwoff_alg_is_digest(alg)) {
		EVP_MD *hw = EVP_MD_fetch(e.libctx, alg->name, "provider=hwoffload");
		EVP_MD *ref = EVP_MD_fetch(e.libctx, alg->name, "provider=default");
		unsigned int n;

		ok = EVP_Digest(b.in, len, b.out, &n, hw, NULL);
		ck_assert(EVP_Digest(b.in, len, b.ref, &n, ref, NULL));
		EVP_MD_free(hw);
		EVP_MD_free(ref);
	} else {
		EVP_CIPHER *hw = EVP_CIPHER_fetch(e.libctx, alg->name, "provider=hwoffload");
		EVP_CIPHER *ref = EVP_CIPHER_fetch(e.libctx, alg->name, "provider=default");
		EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
		int outl;

		ck_assert(EVP_EncryptInit_ex2(ctx, hw, key, iv, NULL));
		ok = EVP_EncryptUpdate(ctx, b.out, &outl, b.in, (int)len);
		cipher_run(ref, 1, 0, key, iv, b.in, len, &len, 1, b.ref);
		EVP_CIPHER_CTX_free(ctx);
		EVP_CIPHER_free(hw);
		EVP_CIPHER_free(ref);
	}
	write_knob("fault_dma_error", 0);
	ck_assert_msg(path_counter(&e, dma, "errors") == 1, "%s: no error counted", dma);
	if (!strcmp(fallback, "yes")) {
		ck_assert_msg(ok, "fallback on, yet the request failed");
		ck_assert_bytes_eq("software's redo", b.out, b.ref,
				   hwoff_alg_is_digest(alg) ? alg->digest_bytes : len);
		ck_assert_int_eq(path_counter(&e, dma, "request-failed"), 1);
		ck_assert_int_eq(path_counter(&e, "software", "requests"), 1);
	} else {
		ck_assert_msg(!ok, "fallback off, yet the request succeeded");
		ck_assert_error_says(dma);
	}
	unload(&e);
	buffers_free(&b);
}
END_TEST

/*
 * One kernel request per update that gives output, and one for final(): the block an update
 * begins or holds back (decryption with padding) goes with the next update's data (_i 0: CBC
 * decryption with padding; 1: ECB encryption in pieces that are not whole blocks).
 */
START_TEST(one_request_per_update)
{
	const struct hwoff_alg *alg = hwoff_alg_by_name(_i ? "AES-128-ECB" : "AES-128-CBC");
	const char *pio = engine_driver(alg->kernel_name, HWOFF_IMPL_ENGINE_PIO);
	const size_t plain = 16384, padded = plain + HWOFF_AES_BLOCK;
	const size_t decrypt_pieces[] = { 4096, 4096, 4096, 4112 };
	const size_t encrypt_pieces[] = { 100, 4000, 5000, 7284 };
	const size_t *pieces = _i ? encrypt_pieces : decrypt_pieces;
	EVP_CIPHER *hw, *ref;
	unsigned char key[16], iv[16];
	struct test_rng rng;
	struct buffers b;
	long long before;
	struct env e;
	size_t len;

	test_rng_init(&rng, 0x7000 + (uint64_t)_i);
	buffers_alloc(&b);
	test_rng_fill(&rng, b.in, plain);
	test_rng_fill(&rng, key, sizeof(key));
	test_rng_fill(&rng, iv, sizeof(iv));
	load(&e, "pio", "no");
	hw = EVP_CIPHER_fetch(e.libctx, alg->name, "provider=hwoffload");
	ref = EVP_CIPHER_fetch(e.libctx, alg->name, "provider=default");
	if (!_i) { /* the ciphertext to decrypt */
		ck_assert_uint_eq(cipher_run(ref, 1, 1, key, iv, b.in, plain, &plain, 1, b.back),
				  padded);
		memcpy(b.in, b.back, padded);
	}
	len = cipher_run(ref, _i, 1, key, iv, b.in, _i ? plain : padded, pieces, 4, b.ref);
	before = path_counter(&e, pio, "requests");
	ck_assert_uint_eq(
		cipher_run(hw, _i, 1, key, iv, b.in, _i ? plain : padded, pieces, 4, b.out), len);
	ck_assert_bytes_eq(alg->name, b.out, b.ref, len);
	ck_assert_int_eq(path_counter(&e, pio, "requests") - before, 4 + 1);
	EVP_CIPHER_free(hw);
	EVP_CIPHER_free(ref);
	unload(&e);
	buffers_free(&b);
}
END_TEST

/*
 * A path that failed serves again once the fault is gone: during its back-off (retry_ms) the
 * requests go to software (fallback on) or fail saying when it is tried next (off); after it,
 * the engine serves, and the statistics count the failure and the recovery.
 */
START_TEST(kernel_fault_recovers)
{
	const struct hwoff_alg *alg = hwoff_alg_by_name(_i < 2 ? "AES-128-CTR" : "SHA2-512");
	bool fallback = _i % 2 == 0;
	const char *dma = engine_driver(alg->kernel_name, HWOFF_IMPL_ENGINE_DMA);
	const char *settings[] = { "HWOFFLOAD_MODE=dma",
				   fallback ? "HWOFFLOAD_FALLBACK=yes" : "HWOFFLOAD_FALLBACK=no",
				   "HWOFFLOAD_RETRY_MS=2000", NULL };
	const struct timespec past_backoff = { 2, 300000000 };
	EVP_MD *hw_md = NULL, *ref_md = NULL;
	EVP_CIPHER *hw_c = NULL, *ref_c = NULL;
	unsigned char key[16], iv[16];
	size_t len = 32768, out_len = alg->digest_bytes ? alg->digest_bytes : len;
	struct test_rng rng;
	struct buffers b;
	struct env e;
	long long served;

	test_rng_init(&rng, 0x6000 + (uint64_t)_i);
	buffers_alloc(&b);
	test_rng_fill(&rng, b.in, len);
	test_rng_fill(&rng, key, sizeof(key));
	test_rng_fill(&rng, iv, sizeof(iv));
	ck_assert(load_with(&e, settings));
	if (hwoff_alg_is_digest(alg)) {
		hw_md = EVP_MD_fetch(e.libctx, alg->name, "provider=hwoffload");
		ref_md = EVP_MD_fetch(e.libctx, alg->name, "provider=default");
		ck_assert(EVP_Digest(b.in, len, b.ref, NULL, ref_md, NULL));
	} else {
		hw_c = EVP_CIPHER_fetch(e.libctx, alg->name, "provider=hwoffload");
		ref_c = EVP_CIPHER_fetch(e.libctx, alg->name, "provider=default");
		cipher_run(ref_c, 1, 0, key, iv, b.in, len, &len, 1, b.ref);
	}
	ck_assert(one_request(hw_md, hw_c, key, iv, &b, len));
	ck_assert_bytes_eq(alg->name, b.out, b.ref, out_len);
	served = path_counter(&e, dma, "requests");
	ck_assert_int_ge(served, 1);

	write_knob("fault_dma_error", 1); /* the next engine job fails */
	ck_assert_int_eq(one_request(hw_md, hw_c, key, iv, &b, len), fallback);
	if (fallback)
		ck_assert_bytes_eq(alg->name, b.out, b.ref, out_len);
	else
		ck_assert_error_says(dma);
	write_knob("fault_dma_error", 0);
	ck_assert_int_eq(path_counter(&e, dma, "failures"), 1);

	/* within the back-off: not sent to the engine, and each counted where it went */
	for (int i = 0; i < 8; i++) {
		ck_assert_int_eq(one_request(hw_md, hw_c, key, iv, &b, len), fallback);
		if (fallback)
			ck_assert_bytes_eq(alg->name, b.out, b.ref, out_len);
		else
			ck_assert_error_says("next try in");
	}
	ck_assert_int_eq(path_counter(&e, dma, "requests"), served);
	ck_assert_int_eq(path_counter(&e, dma, "errors"), 1);
	ck_assert_int_eq(path_counter(&e, dma, "refused"), fallback ? 0 : 8);
	/* with fallback: the failed request, then the 8 of the back-off (path-unusable) */
	ck_assert_int_eq(path_counter(&e, dma, "fallbacks"), fallback ? 1 + 8 : 0);

	nanosleep(&past_backoff, NULL);
	ck_assert(one_request(hw_md, hw_c, key, iv, &b, len));
	ck_assert_bytes_eq(alg->name, b.out, b.ref, out_len);
	ck_assert(one_request(hw_md, hw_c, key, iv, &b, len));
	ck_assert_bytes_eq(alg->name, b.out, b.ref, out_len);
	ck_assert_int_eq(path_counter(&e, dma, "requests"), served + 2);
	ck_assert_int_eq(path_counter(&e, dma, "failures"), 1);
	ck_assert_int_eq(path_counter(&e, dma, "recoveries"), 1);
	ck_assert_int_ge(path_counter(&e, dma, "unusable-ms"), 2000);
	EVP_MD_free(hw_md);
	EVP_MD_free(ref_md);
	EVP_CIPHER_free(hw_c);
	EVP_CIPHER_free(ref_c);
	unload(&e);
	buffers_free(&b);
}
END_TEST

/*
 * hwoffload-info where AF_ALG is refused but the engine's own device serves: its routes name
 * the device's paths (the ciphers), never one AF_ALG would carry.
 */
static void info_routes_device(void)
{
	FILE *info = popen("tools/hwoffload-info", "r");
	char line[1024], *tok, *save;
	int device = 0;

	ck_assert_ptr_nonnull(info);
	while (fgets(line, sizeof(line), info)) {
		if (strncmp(line, "route: ", 7))
			continue;
		for (tok = strtok_r(line + 7, " \n", &save); tok;
		     tok = strtok_r(NULL, " \n", &save)) {
			const char *path = strchr(tok, ':');

			/* the ranges, START:PATH */
			if (!path || tok[0] < '0' || tok[0] > '9' || !strcmp(path + 1, "software"))
				continue;
			ck_assert_msg(!strncmp(path + 1, "dev.", 4), "hwoffload-info routes to %s",
				      path + 1);
			device++;
		}
	}
	ck_assert_int_eq(pclose(info), 0);
	ck_assert_msg(device > 0, "hwoffload-info routes nothing to the engine's device");
}

/*
 * Where AF_ALG is refused, a table file (as a calibration there writes one, or one from before
 * the kernel closed AF_ALG): its paths of the engine's own device serve the sizes it gives them,
 * its AF_ALG path's (an HMAC's: the device has none) sizes are software's, the route with
 * fallback off and no fallback counted, and a warning names the path.
 */
static void table_where_af_alg_is_refused(struct buffers *b)
{
	const struct hwoff_alg *cbc = hwoff_alg_by_name("AES-128-CBC");
	const struct hwoff_alg *hmac = hwoff_alg_hmac(hwoff_alg_by_name("SHA2-256"));
	char pio[HWOFF_NAME_MAX], dma[HWOFF_NAME_MAX], afalg[HWOFF_NAME_MAX], err[256];
	unsigned char key[16] = { 3 }, iv[16] = { 5 };
	struct hwoff_table *t = hwoff_table_new();
	EVP_CIPHER *hw_c, *ref_c;
	struct env e;

	snprintf(pio, sizeof(pio), "%s", engine_driver(cbc->kernel_name, HWOFF_IMPL_ENGINE_PIO));
	snprintf(dma, sizeof(dma), "%s", engine_driver(cbc->kernel_name, HWOFF_IMPL_ENGINE_DMA));
	/* the device has no HMAC: its rows stay AF_ALG's */
	snprintf(afalg, sizeof(afalg), "%s",
		 engine_driver(hmac->kernel_name, HWOFF_IMPL_ENGINE_DMA));
	ck_assert_msg(!strncmp(pio, "dev.", 4) && !strncmp(dma, "dev.", 4) &&
			      strncmp(afalg, "dev.", 4),
		      "%s, %s, %s", pio, dma, afalg);
	for (int obj = 0; obj < HWOFF_OBJECTIVE_COUNT; obj++) {
		const struct hwoff_range_spec aes[] = { { 0, HWOFF_SOFTWARE },
							{ 1024, pio },
							{ 8192, dma } };
		const struct hwoff_range_spec digest[] = { { 0, HWOFF_SOFTWARE }, { 1024, afalg } };

		ck_assert_msg(t &&
				      !hwoff_table_set(t, cbc, HWOFF_ENCRYPT, obj, aes, 3, err,
						       sizeof(err)) &&
				      !hwoff_table_set(t, hmac, HWOFF_DIGEST, obj, digest, 2, err,
						       sizeof(err)),
			      "%s", err);
	}
	load_with_table(&e, t, "table_where_af_alg_is_refused");
	ck_assert_msg(strstr(provider_param(&e, "hwoffload-table"), "/tmp/hwoffload-table-"),
		      "table: %s", provider_param(&e, "hwoffload-table"));
	ck_assert_msg(strstr(provider_param(&e, "hwoffload-table-warnings"), afalg) &&
			      strstr(provider_param(&e, "hwoffload-table-warnings"),
				     "reached through AF_ALG, unusable here"),
		      "warnings: %s", provider_param(&e, "hwoffload-table-warnings"));
	hw_c = EVP_CIPHER_fetch(e.libctx, cbc->name, "provider=hwoffload");
	ref_c = EVP_CIPHER_fetch(e.libctx, cbc->name, "provider=default");
	memset(b->in, 0xa5, 65536);
	for (size_t len = 2048; len <= 65536; len *= 32) {
		size_t ref_len = len;

		ck_assert_msg(one_request(NULL, hw_c, key, iv, b, len), "%zu B", len);
		cipher_run(ref_c, 1, 0, key, iv, b->in, len, &ref_len, 1, b->ref);
		ck_assert_bytes_eq(cbc->name, b->out, b->ref, len);
	}
	ck_assert_msg(path_counter(&e, pio, "requests") == 1 &&
			      path_counter(&e, dma, "requests") > 0,
		      "%s", provider_param(&e, "hwoffload-statistics"));
	ck_assert_msg(hmac_matches_default(&e, hmac, b->in, 65536), "%s", hmac->name);
	ck_assert_int_eq(path_counter(&e, afalg, "requests"), 0);
	ck_assert_int_eq(path_counter(&e, "software", "fallbacks"), 0);
	EVP_CIPHER_free(hw_c);
	EVP_CIPHER_free(ref_c);
	unload(&e);
}

/*
 * A process refused AF_ALG by a seccomp filter (as sandboxed services are, and as Linux 7.2
 * refuses off-CPU drivers) while the kernel has it and lists the engine: the reason names the
 * refusal, not a kernel option; the engine's own device (/dev/hwoffload0) still serves the
 * ciphers, mode auto serves the rest in software as its route, with no fallback (so
 * fallback=no does not fail), by the built-in table and by a table file. The filter stays with
 * Check's forked test process.
 */
START_TEST(af_alg_refused)
{
	const char *settings[] = { "HWOFFLOAD_MODE=auto", "HWOFFLOAD_FALLBACK=no", NULL };
	const char *reason;
	struct buffers b;
	struct env e;
	size_t len = 65536;

	ck_assert_ptr_nonnull(engine_driver("cbc(aes)", HWOFF_IMPL_ENGINE_DMA));
	test_refuse_af_alg(_i ? EPERM : EAFNOSUPPORT);

	buffers_alloc(&b);
	memset(b.in, 0x5a, len);
	ck_assert(load_with(&e, settings));
	reason = provider_param(&e, "hwoffload-af-alg-reason");
	ck_assert_msg(strstr(reason, "denied to this process") && strstr(reason, "seccomp") &&
			      strstr(reason, "although the kernel has it") &&
			      !strstr(reason, "CONFIG_CRYPTO"),
		      "reason: %s", reason);
	ck_assert_msg(strstr(provider_param(&e, "hwoffload-table"), "built-in"), "table: %s",
		      provider_param(&e, "hwoffload-table"));
	for (size_t i = 0; i < HWOFF_ALG_COUNT; i++) {
		const struct hwoff_alg *alg = &hwoff_algs[i];
		unsigned char key[32] = { 7 }, iv[16] = { 9 };

		if (hwoff_alg_is_hmac(alg)) {
			ck_assert_msg(hmac_matches_default(&e, alg, b.in, len), "%s", alg->name);
		} else if (hwoff_alg_is_digest(alg)) {
			EVP_MD *hw = EVP_MD_fetch(e.libctx, alg->name, "provider=hwoffload");
			EVP_MD *ref = EVP_MD_fetch(e.libctx, alg->name, "provider=default");

			ck_assert_msg(one_request(hw, NULL, key, iv, &b, len), "%s", alg->name);
			ck_assert(EVP_Digest(b.in, len, b.ref, NULL, ref, NULL));
			ck_assert_bytes_eq(alg->name, b.out, b.ref, alg->digest_bytes);
			EVP_MD_free(hw);
			EVP_MD_free(ref);
		} else {
			EVP_CIPHER *hw =
				EVP_CIPHER_fetch(e.libctx, alg->name, "provider=hwoffload");
			EVP_CIPHER *ref = EVP_CIPHER_fetch(e.libctx, alg->name, "provider=default");

			ck_assert_msg(one_request(NULL, hw, key, iv, &b, len), "%s", alg->name);
			cipher_run(ref, 1, 0, key, iv, b.in, len, &len, 1, b.ref);
			ck_assert_bytes_eq(alg->name, b.out, b.ref, len);
			EVP_CIPHER_free(hw);
			EVP_CIPHER_free(ref);
		}
	}
	for (size_t i = 0; i < HWOFF_ALG_COUNT; i++) {
		const struct hwoff_alg *alg = &hwoff_algs[i];
		char device_path[128];

		if (alg->mode != HWOFF_MODE_ECB && alg->mode != HWOFF_MODE_CBC &&
		    alg->mode != HWOFF_MODE_CTR)
			continue;
		snprintf(device_path, sizeof(device_path), "dev.hwoffload0.%.3s-aes-hwoffload",
			 alg->kernel_name);
		ck_assert_msg(path_counter(&e, device_path, "requests") > 0,
			      "%s: nothing through %s: %s", alg->name, device_path,
			      provider_param(&e, "hwoffload-statistics"));
	}
	for (const char *line = provider_param(&e, "hwoffload-statistics"); *line;
	     line += strcspn(line, "\n") + !!line[strcspn(line, "\n")])
		ck_assert_msg(!strncmp(line, "software ", 9) || !strncmp(line, "dev.", 4),
			      "a path AF_ALG would carry in the statistics: %.*s",
			      (int)strcspn(line, "\n"), line);
	ck_assert_int_eq(path_counter(&e, "software", "fallbacks"), 0);
	unload(&e);
	table_where_af_alg_is_refused(&b);
	buffers_free(&b);
	info_routes_device();
}
END_TEST
#endif

/* A message of a digest row, or of an HMAC row (keyed with key), through one interface. */
struct hashing {
	EVP_MD_CTX *md;
	EVP_MAC_CTX *mac;
};

static void hashing_init(struct hashing *h, struct env *e, const struct hwoff_alg *alg,
			 const char *provider, const unsigned char *key, size_t key_len)
{
	char query[64];

	snprintf(query, sizeof(query), "provider=%s", provider);
	if (hwoff_alg_is_hmac(alg)) {
		EVP_MAC *mac = EVP_MAC_fetch(e->libctx, "HMAC", query);
		OSSL_PARAM params[] = { OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_DIGEST,
							       (char *)alg->hmac_of->name, 0),
					OSSL_PARAM_END };

		ck_assert(mac);
		if (!h->mac)
			h->mac = EVP_MAC_CTX_new(mac);
		EVP_MAC_free(mac);
		ck_assert(h->mac && EVP_MAC_init(h->mac, key, key_len, params));
	} else {
		EVP_MD *md = EVP_MD_fetch(e->libctx, alg->name, query);

		if (!h->md)
			h->md = EVP_MD_CTX_new();
		ck_assert(md && h->md && EVP_DigestInit_ex2(h->md, md, NULL));
		EVP_MD_free(md);
	}
}

static void hashing_update(struct hashing *h, const unsigned char *in, size_t len)
{
	ck_assert(h->mac ? EVP_MAC_update(h->mac, in, len) : EVP_DigestUpdate(h->md, in, len));
}

static void hashing_final(struct hashing *h, unsigned char *out)
{
	size_t outl;

	ck_assert(h->mac ? EVP_MAC_final(h->mac, out, &outl, EVP_MAX_MD_SIZE)
			 : EVP_DigestFinal_ex(h->md, out, NULL));
}

static void hashing_free(struct hashing *h)
{
	EVP_MD_CTX_free(h->md);
	EVP_MAC_CTX_free(h->mac);
}

/* The default provider's digest (or HMAC) of in. */
static void hashing_reference(struct env *e, const struct hwoff_alg *alg, const unsigned char *key,
			      const unsigned char *in, size_t len, unsigned char *out)
{
	struct hashing h = { 0 };

	hashing_init(&h, e, alg, "default", key, 20);
	hashing_update(&h, in, len);
	hashing_final(&h, out);
	hashing_free(&h);
}

#define NEGATIVE_DATA 4096 /* then 100 bytes more: on the engine in every mode of the guest */

/* A bad update of hwoffload's: refused, with an error that names the length. */
static void check_negative_refused(const struct hwoff_alg *alg, int refused, int len)
{
	char says[64];

	snprintf(says, sizeof(says), "an input length of %d bytes", len);
	ck_assert_msg(!refused, "%s: an update of %d bytes was taken", alg->name, len);
	ck_assert_error_says(says);
}

/*
 * A cipher row's stream of NEGATIVE_DATA + 100 bytes (after 13 of AAD for GCM) by provider; on
 * hwoffload's, an update of len bytes first (AAD's, for GCM), between the two and before final.
 * Returns the output's length; tag gets GCM's.
 */
static size_t negative_cipher(struct env *e, const struct hwoff_alg *alg, const char *provider,
			      int len, const unsigned char *in, unsigned char *out,
			      unsigned char *tag)
{
	EVP_CIPHER *cipher = EVP_CIPHER_fetch(e->libctx, alg->name, provider);
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	unsigned char key[32] = { 5 }, iv[16] = { 6 };
	bool hw = strstr(provider, "hwoffload");
	int n, done;

	ck_assert(cipher && ctx && EVP_EncryptInit_ex2(ctx, cipher, key, iv, NULL));
	if (hw)
		check_negative_refused(
			alg,
			EVP_EncryptUpdate(ctx, hwoff_alg_is_aead(alg) ? NULL : out, &n, in, len),
			len);
	if (hwoff_alg_is_aead(alg))
		ck_assert(EVP_EncryptUpdate(ctx, NULL, &n, in, 13));
	ck_assert(EVP_EncryptUpdate(ctx, out, &n, in, NEGATIVE_DATA));
	done = n;
	if (hw)
		check_negative_refused(alg, EVP_EncryptUpdate(ctx, out + done, &n, in, len), len);
	ck_assert(EVP_EncryptUpdate(ctx, out + done, &n, in + NEGATIVE_DATA, 100));
	done += n;
	if (hw)
		check_negative_refused(alg, EVP_EncryptUpdate(ctx, out + done, &n, in, len), len);
	ck_assert(EVP_EncryptFinal_ex(ctx, out + done, &n));
	done += n;
	if (hwoff_alg_is_aead(alg))
		ck_assert(EVP_CIPHER_CTX_get_params(
			ctx, (OSSL_PARAM[]){
				     OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_AEAD_TAG, tag, 16),
				     OSSL_PARAM_END }));
	EVP_CIPHER_CTX_free(ctx);
	EVP_CIPHER_free(cipher);
	return (size_t)done;
}

/*
 * _i: the mode. A negative length (an int passed on as a size_t: EVP_CipherUpdate()'s inl, or
 * a digest's or MAC's length computed as an int) on every row, on every path: an error that names
 * the length, where OpenSSL's own AES-CTR and GCM read past the buffer and its ECB and CBC say
 * "output buffer too small"; and the stream goes on as if the update had not been made.
 */
START_TEST(negative_length)
{
	static const int lens[] = { -1, -16 };
	static unsigned char in[NEGATIVE_DATA + 100], out[NEGATIVE_DATA + 132],
		want[NEGATIVE_DATA + 132];
	unsigned char key[20] = { 7 }, tag[16], want_tag[16];
	struct env e;

	memset(in, 0x3c, sizeof(in));
	load(&e, modes[_i], "no");
	for (size_t r = 0; r < HWOFF_ALG_COUNT; r++) {
		const struct hwoff_alg *alg = &hwoff_algs[r];

		if (engine_refuses(&e, alg, modes[_i]))
			continue;
		for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
			struct hashing h = { 0 };
			size_t len;

			if (!hwoff_alg_is_digest(alg)) {
				len = negative_cipher(&e, alg, "provider=hwoffload", lens[k], in,
						      out, tag);
				ck_assert_uint_eq(negative_cipher(&e, alg, "provider=default", 0,
								  in, want, want_tag),
						  len);
				ck_assert_bytes_eq(alg->name, out, want, len);
				if (hwoff_alg_is_aead(alg))
					ck_assert_bytes_eq(alg->name, tag, want_tag, 16);
				continue;
			}
			hashing_init(&h, &e, alg, "hwoffload", key, sizeof(key));
			for (size_t part = 0; part < 3; part++) {
				size_t bad = (size_t)(ssize_t)lens[k];

				check_negative_refused(alg,
						       h.mac ? EVP_MAC_update(h.mac, in, bad)
							     : EVP_DigestUpdate(h.md, in, bad),
						       lens[k]);
				if (part < 2)
					hashing_update(&h, in + part * NEGATIVE_DATA,
						       part ? 100 : NEGATIVE_DATA);
			}
			hashing_final(&h, out);
			hashing_free(&h);
			hashing_reference(&e, alg, key, in, sizeof(in), want);
			ck_assert_bytes_eq(alg->name, out, want, alg->digest_bytes);
		}
	}
	unload(&e);
}
END_TEST

#if PROVIDER_TEST_IN_GUEST
static void hashing_copy(struct hashing *to, const struct hashing *from)
{
	if (from->mac) {
		EVP_MAC_CTX_free(to->mac);
		to->mac = EVP_MAC_CTX_dup(from->mac);
		ck_assert(to->mac);
	} else {
		if (!to->md)
			to->md = EVP_MD_CTX_new();
		ck_assert(to->md && EVP_MD_CTX_copy_ex(to->md, from->md));
	}
}

/*
 * _i: a digest or HMAC row. A table of software below 64 B, PIO from there and software again
 * from 1000 B, so a buffered message is hashed in software as it arrives below 64 B (shadowed),
 * then only buffered, then settled in software from the shadow and the rest of the buffer. As
 * TLS's transcript hash is used: a copy finished after every update, at sizes on all three paths,
 * and the original finished last; then one context reused for messages on alternate paths.
 * Every result is the default provider's, and both paths served.
 */
START_TEST(digest_shadow)
{
	const struct hwoff_alg *alg = row_where(engine_digest_row, (size_t)_i);
	const char *pio = engine_driver(alg->kernel_name, HWOFF_IMPL_ENGINE_PIO);
	char err[256];
	const struct hwoff_range_spec ranges[] = { { 0, HWOFF_SOFTWARE },
						   { 64, pio },
						   { 1000, HWOFF_SOFTWARE } };
	static const size_t messages[] = { 30, 500, 63, 2000, 1, 999, 0, 1000 };
	static const unsigned char key[20] = "a key of 20 bytes...";
	unsigned char in[4096], got[EVP_MAX_MD_SIZE], want[EVP_MAX_MD_SIZE];
	struct hwoff_table *t = hwoff_table_new();
	struct hashing h = { 0 }, copy = { 0 };
	struct test_rng rng;
	size_t off = 0;
	struct env e;

	ck_assert_msg(!hwoff_table_set(t, alg, HWOFF_DIGEST, HWOFF_THROUGHPUT, ranges, 3, err,
				       sizeof(err)),
		      "%s", err);
	load_with_table(&e, t, "digest_shadow");
	test_rng_init(&rng, 0x5400 + (uint64_t)_i);
	test_rng_fill(&rng, in, sizeof(in));

	/* pieces of 8, 11, 20, 35 ... B: the copies end at 8 ... 39 B (software), 74 ... 935 B
	 * (PIO), 1243 and 1614 B (software) */
	hashing_init(&h, &e, alg, "hwoffload", key, sizeof(key));
	for (size_t i = 0; i < 12; i++) {
		size_t piece = 8 + 3 * i * i;

		hashing_update(&h, in + off, piece);
		off += piece;
		hashing_copy(&copy, &h);
		hashing_final(&copy, got);
		hashing_reference(&e, alg, key, in, off, want);
		ck_assert_msg(memcmp(got, want, alg->digest_bytes) == 0, "%s: the copy at %zu B",
			      alg->name, off);
	}
	hashing_final(&h, got);
	hashing_reference(&e, alg, key, in, off, want);
	ck_assert_msg(memcmp(got, want, alg->digest_bytes) == 0, "%s: the message of %zu B",
		      alg->name, off);

	for (size_t m = 0; m < sizeof(messages) / sizeof(messages[0]); m++) {
		size_t len = messages[m], half = len / 3;

		hashing_init(&h, &e, alg, "hwoffload", key, sizeof(key));
		hashing_update(&h, in, half);
		hashing_update(&h, in + half, len - half);
		hashing_final(&h, got);
		hashing_reference(&e, alg, key, in, len, want);
		ck_assert_msg(memcmp(got, want, alg->digest_bytes) == 0,
			      "%s: a reused context, message of %zu B", alg->name, len);
	}
	hashing_free(&h);
	hashing_free(&copy);
	ck_assert_msg(path_counter(&e, "software", "requests") > 0, "software served nothing");
	ck_assert_msg(path_counter(&e, pio, "requests") > 0, "%s served nothing", pio);
	ck_assert_int_eq(path_counter(&e, "software", "fallbacks"), 0);
	unload(&e);
}
END_TEST

/*
 * _i: a digest or HMAC row. A table of software below 64 B, PIO to 256 KiB and DMA beyond: a
 * message of 8 KiB updates is routed by its whole size, 320 KiB (DMA), and so is one given whole
 * (320 KiB, DMA; 96 KiB, PIO); one whose first update is 64 KiB or more is committed to the path
 * for its size so far (PIO at 96 KiB), though it grows to 320 KiB. Every result the default
 * provider's.
 */
START_TEST(digest_large_update_commits)
{
	const struct hwoff_alg *alg = row_where(engine_digest_row, (size_t)_i);
	const char *pio = engine_driver(alg->kernel_name, HWOFF_IMPL_ENGINE_PIO);
	char dma[HWOFF_NAME_MAX], err[256];
	static const unsigned char key[20] = "a key of 20 bytes...";
	static const struct {
		size_t first, piece, len;
		bool on_dma;
	} messages[] = {
		{ 8192, 8192, 320 << 10, true }, /* a stream of small updates: its whole size */
		{ 320 << 10, 0, 320 << 10, true }, /* whole, past the last crossover */
		{ 96 << 10, 0, 96 << 10, false }, /* whole, PIO's size */
		{ 96 << 10, 32 << 10, 320 << 10, false }, /* committed at its first update */
	};
	unsigned char *in = malloc(320 << 10), got[EVP_MAX_MD_SIZE], want[EVP_MAX_MD_SIZE];
	struct hwoff_table *t = hwoff_table_new();
	struct test_rng rng;
	struct env e;

	snprintf(dma, sizeof(dma), "%s", engine_driver(alg->kernel_name, HWOFF_IMPL_ENGINE_DMA));
	{
		const struct hwoff_range_spec ranges[] = { { 0, HWOFF_SOFTWARE },
							   { 64, pio },
							   { (256 << 10) + 1, dma } };

		ck_assert_msg(!hwoff_table_set(t, alg, HWOFF_DIGEST, HWOFF_THROUGHPUT, ranges, 3,
					       err, sizeof(err)),
			      "%s", err);
	}
	load_with_table(&e, t, "digest_large_update_commits");
	ck_assert_ptr_nonnull(in);
	test_rng_init(&rng, 0x5800 + (uint64_t)_i);
	test_rng_fill(&rng, in, 320 << 10);
	for (size_t m = 0; m < sizeof(messages) / sizeof(messages[0]); m++) {
		long long pio_before = path_counter(&e, pio, "requests");
		long long dma_before = path_counter(&e, dma, "requests");
		size_t off = messages[m].first;
		struct hashing h = { 0 }; /* freed before the counters are read: they count then */

		hashing_init(&h, &e, alg, "hwoffload", key, sizeof(key));
		hashing_update(&h, in, off);
		for (; off < messages[m].len; off += messages[m].piece)
			hashing_update(&h, in + off, messages[m].piece);
		hashing_final(&h, got);
		hashing_free(&h);
		hashing_reference(&e, alg, key, in, messages[m].len, want);
		ck_assert_msg(memcmp(got, want, alg->digest_bytes) == 0, "%s: message %zu",
			      alg->name, m);
		ck_assert_msg(path_counter(&e, dma, "requests") - dma_before ==
					      messages[m].on_dma &&
				      path_counter(&e, pio, "requests") - pio_before ==
					      !messages[m].on_dma,
			      "%s: message %zu of %zu B on %s, %lld and %lld requests", alg->name,
			      m, messages[m].len, messages[m].on_dma ? dma : pio,
			      path_counter(&e, dma, "requests") - dma_before,
			      path_counter(&e, pio, "requests") - pio_before);
	}
	free(in);
	unload(&e);
}
END_TEST
#endif

static Suite *provider_suite(void)
{
	Suite *s = suite_create(PROVIDER_TEST_IN_GUEST ? "provider (guest)" : "provider (host)");
	TCase *tc = tcase_create("provider");

	tcase_set_timeout(tc, 900);
	tcase_add_loop_test(tc, matches_default, 0, (int)(stream_rows() * MODES));
	tcase_add_loop_test(tc, copy_midstream, 0, (int)(stream_rows() * MODES));
	tcase_add_loop_test(tc, parameters_match_default, 0, (int)stream_rows());
	tcase_add_loop_test(tc, bad_cipher_input, 0, (int)MODES);
	tcase_add_loop_test(tc, negative_length, 0, (int)MODES);
	tcase_add_loop_test(tc, same_key_again, 0, (int)MODES);
	tcase_add_loop_test(tc, bad_configuration, 0,
			    (int)(sizeof(bad_configs) / sizeof(bad_configs[0])));
	tcase_add_test(tc, bad_table_file);
	tcase_add_test(tc, algorithm_list);
	tcase_add_test(tc, one_algorithm_per_row);
	tcase_add_loop_test(tc, tls_record_matches_default, 0, 4);
#if PROVIDER_TEST_IN_GUEST
	tcase_add_test(tc, af_alg_here);
	tcase_add_loop_test(tc, path_switch_midstream, 0, (int)rows_where(engine_stream_row));
	tcase_add_loop_test(tc, digest_shadow, 0, (int)rows_where(engine_digest_row));
	tcase_add_loop_test(tc, digest_large_update_commits, 0, (int)rows_where(engine_digest_row));
	tcase_add_loop_test(tc, kernel_fault, 0, 4);
	tcase_add_loop_test(tc, kernel_fault_recovers, 0, 4);
	tcase_add_loop_test(tc, one_request_per_update, 0, 2);
	tcase_add_loop_test(tc, af_alg_refused, 0, 2);
#else
	tcase_add_test(tc, no_af_alg);
#endif
	provider_gcm_tests(tc);
	provider_hmac_tests(tc);
	suite_add_tcase(s, tc);
	return s;
}

int main(void)
{
	return test_run_suite(provider_suite());
}
