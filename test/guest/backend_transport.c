// SPDX-License-Identifier: Apache-2.0
/*
 * test/vm/run: --vcpus 2
 * The backend's AF_ALG transport (backend/transport.h) against OpenSSL's default provider, in the
 * guest: the kernel's generic drivers always, and the bundled engine's drivers when /proc/crypto
 * has them (the run says which). Random sizes and splits, IV hand-over to and
 * from software, hash clones mid-stream, GCM messages and their tags, threads with a context
 * each, fork, error messages.
 */
#include <check.h>
#include <errno.h>
#include <openssl/evp.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/discover.h"
#include "backend/guard.h"
#include "backend/transport.h"
#include "test/engine_rows.h"
#include "test/guest/driverutil.h"
#include "test/testutil.h"

#define MAX_LEN	       (1024 * 1024)
#define ITERATIONS     10
#define ENGINE_ITERS   4 /* the emulated engine is slower; its cases run fewer rounds */
#define MAX_PIECES     8
#define CASES_MAX      64
#define THREADS	       4
#define THREAD_ROUNDS  16
#define THREAD_MAX_LEN (64 * 1024)

struct alg_case {
	const struct hwoff_alg *alg;
	char driver[HWOFF_NAME_MAX];
	bool engine; /* the bundled engine's driver */
	bool guarded; /* through a guard process, as another vendor's engine (backend/guard.h) */
};

static struct alg_case ciphers[CASES_MAX], digests[CASES_MAX], aeads[CASES_MAX];
static int cipher_count, digest_count, aead_count;

/* ---- OpenSSL's answers ----------------------------------------------------------------------- */

/* One-shot en/decryption; updated_iv (may be NULL) gets OpenSSL's IV after it. */
static void openssl_cipher(const struct hwoff_alg *alg, int enc, const unsigned char *key,
			   const unsigned char *iv, const unsigned char *in, size_t len,
			   unsigned char *out, unsigned char *updated_iv)
{
	EVP_CIPHER *cipher = EVP_CIPHER_fetch(NULL, alg->name, "provider=default");
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int outl = 0;

	ck_assert_ptr_nonnull(cipher);
	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_eq(EVP_CipherInit_ex2(ctx, cipher, key, alg->iv_bytes ? iv : NULL, enc, NULL),
			 1);
	EVP_CIPHER_CTX_set_padding(ctx, 0);
	ck_assert_int_eq(EVP_CipherUpdate(ctx, out, &outl, in, (int)len), 1);
	ck_assert_uint_eq((size_t)outl, len);
	if (updated_iv && alg->iv_bytes)
		ck_assert_int_eq(EVP_CIPHER_CTX_get_updated_iv(ctx, updated_iv, alg->iv_bytes), 1);
	EVP_CIPHER_CTX_free(ctx);
	EVP_CIPHER_free(cipher);
}

/* An HMAC row's key, in every test of a keyed hash: its length is none of the block sizes. */
static const unsigned char hmac_key[] = "the backend's HMAC test key";

static const unsigned char *hash_key(const struct hwoff_alg *alg)
{
	return hwoff_alg_is_hmac(alg) ? hmac_key : NULL;
}

/* OpenSSL's digest of in, or HMAC with hmac_key for an HMAC row; no assertion (threads). */
static bool openssl_hash(const struct hwoff_alg *alg, const void *in, size_t len, unsigned char *md)
{
	size_t md_len = 0;
	unsigned int n = 0;
	EVP_MD *md_alg;
	bool ok;

	if (hwoff_alg_is_hmac(alg))
		return EVP_Q_mac(NULL, "HMAC", "provider=default", alg->hmac_of->name, NULL,
				 hmac_key, sizeof(hmac_key), in, len, md, EVP_MAX_MD_SIZE,
				 &md_len) &&
		       md_len == alg->digest_bytes;
	md_alg = EVP_MD_fetch(NULL, alg->name, "provider=default");
	ok = md_alg && EVP_Digest(in, len, md, &n, md_alg, NULL) && n == alg->digest_bytes;
	EVP_MD_free(md_alg);
	return ok;
}

static void openssl_digest(const struct hwoff_alg *alg, const void *in, size_t len,
			   unsigned char *md)
{
	ck_assert_msg(openssl_hash(alg, in, len, md), "OpenSSL's %s of %zu bytes", alg->name, len);
}

/* ---- helpers --------------------------------------------------------------------------------- */

static unsigned char *must_malloc(size_t len)
{
	unsigned char *p = malloc(len ? len : 1);

	ck_assert_ptr_nonnull(p);
	return p;
}

/* A guarded case's driver is guarded from here on, in this test's process. */
static void guard_case(const struct alg_case *c)
{
	if (c->guarded)
		ck_assert_int_eq(hwoff_guard_driver(c->driver, 0), 0);
}

static struct hwoff_skcipher *new_cipher(const struct alg_case *c, const unsigned char *key)
{
	struct hwoff_skcipher *sk;
	char err[HWOFF_TRANSPORT_ERROR_MAX];
	int ret;

	guard_case(c);
	ret = hwoff_skcipher_new(&sk, c->alg, c->driver, key, c->alg->key_bytes, err, sizeof(err));
	ck_assert_msg(ret == 0, "%s", err);
	return sk;
}

static struct hwoff_hash *new_hash(const struct alg_case *c)
{
	struct hwoff_hash *h;
	char err[HWOFF_TRANSPORT_ERROR_MAX];
	int ret;

	guard_case(c);
	ret = hwoff_hash_new(&h, c->alg, c->driver, hash_key(c->alg), sizeof(hmac_key), err,
			     sizeof(err));
	ck_assert_msg(ret == 0, "%s", err);
	return h;
}

static void crypt_ok(struct hwoff_skcipher *sk, bool enc, const unsigned char *in,
		     unsigned char *out, size_t len)
{
	int ret = hwoff_skcipher_crypt(sk, enc, in, out, len);

	ck_assert_msg(ret == 0, "%zu bytes: %d: %s", len, ret, hwoff_skcipher_error(sk));
}

static void update_ok(struct hwoff_hash *h, const void *in, size_t len)
{
	int ret = hwoff_hash_update(h, in, len);

	ck_assert_msg(ret == 0, "%zu bytes: %d: %s", len, ret, hwoff_hash_error(h));
}

static void final_ok(struct hwoff_hash *h, unsigned char *md)
{
	int ret = hwoff_hash_final(h, md, EVP_MAX_MD_SIZE);

	ck_assert_msg(ret == 0, "final: %d: %s", ret, hwoff_hash_error(h));
}

/* Lengths every cipher case tries first, around the transport's round trip of 208 KiB. */
#define SNDBUF 212992 /* net.core.wmem_default */
static const size_t edge_lens[] = {
	16, 4096, 65536, SNDBUF - 16, SNDBUF, SNDBUF + 16, 3 * SNDBUF + 48,
};

static size_t cipher_len(const struct hwoff_alg *alg, struct test_rng *rng, int iteration)
{
	size_t n = sizeof(edge_lens) / sizeof(edge_lens[0]);
	size_t len = (size_t)iteration < n ? edge_lens[iteration] : test_rng_range(rng, 1, MAX_LEN);

	if (alg->mode != HWOFF_MODE_CTR)
		len -= len % 16;
	return len ? len : 16;
}

/* Through the transport in random pieces (multiples of 16 but the last). */
static void crypt_in_pieces(struct hwoff_skcipher *sk, struct test_rng *rng, bool enc,
			    const unsigned char *in, unsigned char *out, size_t len)
{
	size_t pieces[MAX_PIECES], count = test_rng_split(rng, len, 16, MAX_PIECES, pieces);
	size_t off = 0;

	for (size_t k = 0; k < count; k++) {
		crypt_ok(sk, enc, in + off, out + off, pieces[k]);
		off += pieces[k];
	}
}

/*
 * The IV sk's next request starts from is want_iv, the IV OpenSSL has after the same requests.
 * The transport computes that IV itself (the kernel cannot be asked), but sends it only when
 * its socket does not hold the IV already. A forked child makes sockets of its own, so its next
 * request starts from the computed IV: len bytes of in from there must come out as OpenSSL's
 * from want_iv (one block is enough, as it is a one-to-one function of the IV in CBC and CTR).
 * The parent's sockets and IV are left as they were.
 */
static void assert_next_iv(struct hwoff_skcipher *sk, const struct hwoff_alg *alg, bool enc,
			   const unsigned char *key, const unsigned char *want_iv,
			   const unsigned char *in, size_t len, const char *what)
{
	unsigned char want[128], got[128];
	int status;
	pid_t child;

	ck_assert_uint_le(len, sizeof(want));
	openssl_cipher(alg, enc, key, want_iv, in, len, want, NULL);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child) {
		int ret = hwoff_skcipher_crypt(sk, enc, in, got, len);
		int bad = ret || memcmp(got, want, len);

		if (bad)
			fprintf(stderr, "child: %s: %d: %s\n", what, ret, hwoff_skcipher_error(sk));
		_exit(bad);
	}
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "%s: the next request did not start from OpenSSL's IV (status %d)", what,
		      status);
}

/* ---- skcipher -------------------------------------------------------------------------------- */

START_TEST(cipher_random)
{
	const struct alg_case *c = &ciphers[_i];
	const struct hwoff_alg *alg = c->alg;
	unsigned char *pt = must_malloc(MAX_LEN), *ct = must_malloc(MAX_LEN);
	unsigned char *buf = must_malloc(MAX_LEN);
	unsigned char key[32], iv[16], want_iv[16];
	struct test_rng rng;
	int rounds = c->engine ? ENGINE_ITERS : ITERATIONS;

	test_rng_init(&rng, 0x1000 + (uint64_t)_i);
	for (int i = 0; i < rounds; i++) {
		size_t len = cipher_len(alg, &rng, i);
		struct hwoff_skcipher *sk;

		test_rng_fill(&rng, key, sizeof(key));
		test_rng_fill(&rng, iv, sizeof(iv));
		test_rng_fill(&rng, pt, len);
		openssl_cipher(alg, 1, key, iv, pt, len, ct, want_iv);

		sk = new_cipher(c, key);
		if (alg->iv_bytes)
			ck_assert_int_eq(hwoff_skcipher_set_iv(sk, iv, alg->iv_bytes), 0);
		crypt_in_pieces(sk, &rng, true, pt, buf, len);
		ck_assert_bytes_eq("ciphertext", buf, ct, len);
		if (alg->iv_bytes) {
			assert_next_iv(sk, alg, true, key, want_iv, pt, 16, "IV after encryption");
			ck_assert_int_eq(hwoff_skcipher_set_iv(sk, iv, alg->iv_bytes), 0);
		}
		/* in place, on the same context */
		crypt_in_pieces(sk, &rng, false, buf, buf, len);
		ck_assert_bytes_eq("plaintext", buf, pt, len);
		if (alg->iv_bytes)
			assert_next_iv(sk, alg, false, key, want_iv, ct, 16, "IV after decryption");
		hwoff_skcipher_free(sk);
	}
	free(pt);
	free(ct);
	free(buf);
}
END_TEST

/*
 * A stream that moves between the kernel and software mid-way: part A in the kernel, part B in
 * OpenSSL from the IV after part A (which the transport's next request starts from too), part C
 * in the kernel from OpenSSL's output IV, on the same context and on a new one. The CTR counter
 * starts two blocks before it wraps at 2^128.
 */
START_TEST(cipher_iv_handover)
{
	const struct alg_case *c = &ciphers[_i];
	const struct hwoff_alg *alg = c->alg;
	const size_t a = SNDBUF + 64, b = 4096, cl = 96 * 16, len = a + b + cl;
	unsigned char *pt = must_malloc(len), *want = must_malloc(len), *got = must_malloc(len);
	unsigned char *again = must_malloc(cl);
	unsigned char key[32], iv[16], mid_iv[16], resume_iv[16];
	struct hwoff_skcipher *sk, *sk2;
	struct test_rng rng;

	if (!alg->iv_bytes)
		return; /* ECB has no IV to hand over */
	test_rng_init(&rng, 0x2000 + (uint64_t)_i);
	test_rng_fill(&rng, key, sizeof(key));
	test_rng_fill(&rng, iv, sizeof(iv));
	if (alg->mode == HWOFF_MODE_CTR) {
		memset(iv, 0xff, sizeof(iv));
		iv[15] = 0xfe;
	}
	test_rng_fill(&rng, pt, len);
	openssl_cipher(alg, 1, key, iv, pt, len, want, NULL);

	sk = new_cipher(c, key);
	ck_assert_int_eq(hwoff_skcipher_set_iv(sk, iv, alg->iv_bytes), 0);
	crypt_ok(sk, true, pt, got, a);
	openssl_cipher(alg, 1, key, iv, pt, a, want, mid_iv); /* want's part A again; mid_iv */
	assert_next_iv(sk, alg, true, key, mid_iv, pt + a, 16, "IV after part A");
	openssl_cipher(alg, 1, key, mid_iv, pt + a, b, got + a, resume_iv);
	ck_assert_int_eq(hwoff_skcipher_set_iv(sk, resume_iv, alg->iv_bytes), 0);
	crypt_ok(sk, true, pt + a + b, got + a + b, cl);
	ck_assert_bytes_eq("stream through kernel, software, kernel", got, want, len);

	sk2 = new_cipher(c, key);
	ck_assert_int_eq(hwoff_skcipher_set_iv(sk2, resume_iv, alg->iv_bytes), 0);
	crypt_ok(sk2, true, pt + a + b, again, cl);
	ck_assert_bytes_eq("part C on a new context", again, want + a + b, cl);
	hwoff_skcipher_free(sk2);
	hwoff_skcipher_free(sk);
	free(pt);
	free(want);
	free(got);
	free(again);
}
END_TEST

/* CTR: a partial block ends its counter block; the next request starts at the next counter. */
START_TEST(cipher_ctr_partial_block)
{
	const struct alg_case *c = &ciphers[_i];
	const struct hwoff_alg *alg = c->alg;
	unsigned char key[32], iv[16], want_iv[16];
	unsigned char pt[100], want[100], got[100];
	struct hwoff_skcipher *sk;
	struct test_rng rng;

	if (alg->mode != HWOFF_MODE_CTR)
		return;
	test_rng_init(&rng, 0x3000 + (uint64_t)_i);
	test_rng_fill(&rng, key, sizeof(key));
	test_rng_fill(&rng, iv, sizeof(iv));
	test_rng_fill(&rng, pt, sizeof(pt));
	sk = new_cipher(c, key);
	ck_assert_int_eq(hwoff_skcipher_set_iv(sk, iv, 16), 0);
	crypt_ok(sk, true, pt, got, 37); /* 3 counter blocks, the last used for 5 bytes */
	openssl_cipher(alg, 1, key, iv, pt, 37, want, want_iv);
	ck_assert_bytes_eq("37 bytes", got, want, 37);
	/* the counter the transport computed, then the one the kernel chained */
	assert_next_iv(sk, alg, true, key, want_iv, pt + 37, 63, "counter after 37 bytes (+3)");
	crypt_ok(sk, true, pt + 37, got + 37, 63);
	openssl_cipher(alg, 1, key, want_iv, pt + 37, 63, want + 37, NULL);
	ck_assert_bytes_eq("63 bytes after", got + 37, want + 37, 63);
	hwoff_skcipher_free(sk);
}
END_TEST

/* ---- hash ------------------------------------------------------------------------------------ */

static const size_t digest_edge_lens[] = { 0, 1, 63, 64, 65, 4096, MAX_LEN };

START_TEST(digest_random)
{
	const struct alg_case *c = &digests[_i];
	unsigned char *in = must_malloc(MAX_LEN);
	unsigned char want[EVP_MAX_MD_SIZE], got[EVP_MAX_MD_SIZE];
	size_t edges = sizeof(digest_edge_lens) / sizeof(digest_edge_lens[0]);
	struct hwoff_hash *h = new_hash(c);
	struct test_rng rng;
	int rounds = c->engine ? ENGINE_ITERS : ITERATIONS;

	test_rng_init(&rng, 0x4000 + (uint64_t)_i);
	/* one context for every message: each final starts the next */
	for (int i = 0; i < rounds + (int)edges; i++) {
		size_t len =
			(size_t)i < edges ? digest_edge_lens[i] : test_rng_range(&rng, 0, MAX_LEN);
		size_t pieces[MAX_PIECES], count = test_rng_split(&rng, len, 1, MAX_PIECES, pieces);
		size_t off = 0;
		/* every other pair of rounds ends with a finup of the last piece */
		bool finup = (i / 2) % 2 && count;
		int ret;

		test_rng_fill(&rng, in, len);
		openssl_digest(c->alg, in, len, want);
		for (size_t k = 0; k < count - finup; k++) {
			update_ok(h, in + off, pieces[k]);
			off += pieces[k];
		}
		ret = finup ? hwoff_hash_finup(h, in + off, pieces[count - 1], got, sizeof(got))
			    : hwoff_hash_final(h, got, sizeof(got));
		ck_assert_msg(ret == 0, "%s: %d: %s", finup ? "finup" : "final", ret,
			      hwoff_hash_error(h));
		ck_assert_bytes_eq(c->driver, got, want, c->alg->digest_bytes);
	}
	hwoff_hash_free(h);
	free(in);
}
END_TEST

/* A clone mid-stream, of a fresh context and after a final; a reset mid-stream. */
START_TEST(digest_clone)
{
	const struct alg_case *c = &digests[_i];
	const size_t a = 100000, b = 7777, cl = 3333;
	unsigned char *in = must_malloc(a + b + cl), *other = must_malloc(a + cl);
	unsigned char want[EVP_MAX_MD_SIZE], got[EVP_MAX_MD_SIZE];
	struct hwoff_hash *h = new_hash(c), *d, *fresh;
	char err[HWOFF_TRANSPORT_ERROR_MAX];
	struct test_rng rng;

	test_rng_init(&rng, 0x5000 + (uint64_t)_i);
	test_rng_fill(&rng, in, a + b + cl);
	memcpy(other, in, a);
	memcpy(other + a, in + a + b, cl);

	ck_assert_msg(hwoff_hash_dup(&fresh, h, err, sizeof(err)) == 0, "%s", err);
	update_ok(h, in, a);
	ck_assert_msg(hwoff_hash_dup(&d, h, err, sizeof(err)) == 0, "%s", err);
	update_ok(h, in + a, b + cl);
	update_ok(d, in + a + b, cl);
	final_ok(h, got);
	openssl_digest(c->alg, in, a + b + cl, want);
	ck_assert_bytes_eq("original after the clone", got, want, c->alg->digest_bytes);
	final_ok(d, got);
	openssl_digest(c->alg, other, a + cl, want);
	ck_assert_bytes_eq("clone", got, want, c->alg->digest_bytes);
	final_ok(fresh, got);
	openssl_digest(c->alg, "", 0, want);
	ck_assert_bytes_eq("clone of a fresh context", got, want, c->alg->digest_bytes);
	hwoff_hash_free(d);

	/* after a final the clone is fresh too */
	ck_assert_msg(hwoff_hash_dup(&d, h, err, sizeof(err)) == 0, "%s", err);
	update_ok(d, in, b);
	final_ok(d, got);
	openssl_digest(c->alg, in, b, want);
	ck_assert_bytes_eq("clone after a final", got, want, c->alg->digest_bytes);

	update_ok(h, in, a);
	ck_assert_int_eq(hwoff_hash_reset(h), 0);
	update_ok(h, in + a, b);
	final_ok(h, got);
	openssl_digest(c->alg, in + a, b, want);
	ck_assert_bytes_eq("after a reset mid-stream", got, want, c->alg->digest_bytes);
	hwoff_hash_free(d);
	hwoff_hash_free(fresh);
	hwoff_hash_free(h);
	free(in);
	free(other);
}
END_TEST

/* ---- threads and fork ------------------------------------------------------------------------ */

struct thread_job {
	int index;
	char failure[HWOFF_TRANSPORT_ERROR_MAX + 64]; /* "" when every round matched */
};

/* Check's asserts belong to the test's own thread: threads report in words. */
/* ---- AEAD: GCM ----------------------------------------------------------------------------------
 */

/* OpenSSL's GCM of one message: out and tag (tag_len bytes). */
static void openssl_gcm(const struct hwoff_alg *alg, const unsigned char *key,
			const unsigned char *iv, const unsigned char *aad, size_t aad_len,
			const unsigned char *in, size_t len, unsigned char *out, unsigned char *tag,
			size_t tag_len)
{
	EVP_CIPHER *cipher = EVP_CIPHER_fetch(NULL, alg->name, "provider=default");
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int outl;

	ck_assert(cipher && ctx);
	ck_assert(EVP_EncryptInit_ex2(ctx, cipher, key, iv, NULL));
	ck_assert(EVP_EncryptUpdate(ctx, NULL, &outl, aad, (int)aad_len));
	ck_assert(EVP_EncryptUpdate(ctx, out, &outl, in, (int)len));
	ck_assert(EVP_EncryptFinal_ex(ctx, out + outl, &outl));
	ck_assert(EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, (int)tag_len, tag));
	EVP_CIPHER_CTX_free(ctx);
	EVP_CIPHER_free(cipher);
}

/* AAD bytes, data bytes: empty, AAD only, the FIFO's edge, TLS records, the largest message. */
static const size_t aead_shapes[][2] = {
	{ 0, 0 },
	{ 13, 0 },
	{ 0, 1 },
	{ 13, 16 },
	{ 5, 4091 },
	{ 0, 4096 },
	{ 13, 16384 },
	{ 0, HWOFF_AEAD_MESSAGE_MAX },
	{ 100, HWOFF_AEAD_MESSAGE_MAX - 100 },
};
#define AEAD_SHAPES (sizeof(aead_shapes) / sizeof(aead_shapes[0]))

/*
 * _i: an AEAD case. Messages of every shape and random ones, every tag length, in place or not:
 * encrypt equals OpenSSL's, decrypt gives the data back; a wrong tag is -EBADMSG, leaves out as
 * it was and the context working; the refused requests say why; a forked child's messages.
 */
START_TEST(aead_messages)
{
	const struct alg_case *c = &aeads[_i];
	static const size_t tag_lens[] = { 16, 4, 8, 12, 13, 14, 15 };
	size_t max = HWOFF_AEAD_MESSAGE_MAX;
	unsigned char *aad = must_malloc(max), *in = must_malloc(max), *out = must_malloc(max),
		      *want = must_malloc(max);
	unsigned char key[32], iv[12], tag[16], want_tag[16];
	char err[HWOFF_TRANSPORT_ERROR_MAX];
	int rounds = c->engine ? 16 : 40;
	struct hwoff_aead *a;
	struct test_rng rng;
	pid_t child;
	int status;

	test_rng_init(&rng, 0xae00 + (uint64_t)_i);
	test_rng_fill(&rng, key, sizeof(key));
	test_rng_fill(&rng, aad, max);
	test_rng_fill(&rng, in, max);
	guard_case(c);
	ck_assert_msg(
		!hwoff_aead_new(&a, c->alg, c->driver, key, c->alg->key_bytes, err, sizeof(err)),
		"%s", err);
	for (int r = 0; r < (int)AEAD_SHAPES + rounds; r++) {
		size_t aad_len =
			r < (int)AEAD_SHAPES ? aead_shapes[r][0] : test_rng_range(&rng, 0, 64);
		size_t len =
			r < (int)AEAD_SHAPES ? aead_shapes[r][1] : test_rng_range(&rng, 0, 20000);
		size_t tag_len = tag_lens[r % (sizeof(tag_lens) / sizeof(tag_lens[0]))];
		bool in_place = r % 3 == 1;
		unsigned char *src = in_place ? out : in;
		int ret;

		test_rng_fill(&rng, iv, sizeof(iv));
		openssl_gcm(c->alg, key, iv, aad, aad_len, in, len, want, want_tag, tag_len);
		memcpy(out, in, len);
		ret = hwoff_aead_crypt(a, true, iv, aad, aad_len, src, out, len, tag, tag_len);
		ck_assert_msg(!ret, "%s: encrypt %zu/%zu: %d %s", c->driver, aad_len, len, ret,
			      hwoff_aead_error(a));
		ck_assert_bytes_eq("ciphertext", out, want, len);
		ck_assert_bytes_eq("tag", tag, want_tag, tag_len);
		if (!aad_len && !len) {
			ck_assert_int_eq(hwoff_aead_crypt(a, false, iv, aad, 0, want, out, 0,
							  want_tag, tag_len),
					 -EOPNOTSUPP);
			ck_assert_msg(strstr(hwoff_aead_error(a), "empty message"), "%s",
				      hwoff_aead_error(a));
			continue;
		}
		memcpy(out, want, len);
		ret = hwoff_aead_crypt(a, false, iv, aad, aad_len, in_place ? out : want, out, len,
				       want_tag, tag_len);
		ck_assert_msg(!ret, "%s: decrypt %zu/%zu: %d %s", c->driver, aad_len, len, ret,
			      hwoff_aead_error(a));
		ck_assert_bytes_eq("plaintext", out, in, len);
		/* A wrong tag: a result; out keeps what it had (the ciphertext, here). */
		want_tag[r % tag_len] ^= 0x80;
		memcpy(out, want, len);
		ck_assert_int_eq(hwoff_aead_crypt(a, false, iv, aad, aad_len, in_place ? out : want,
						  out, len, want_tag, tag_len),
				 -EBADMSG);
		ck_assert_str_eq(hwoff_aead_error(a), "");
		ck_assert_bytes_eq("output after a wrong tag", out, want, len);
	}
	/* Refused before the kernel, saying why; the context goes on. */
	ck_assert_int_eq(hwoff_aead_crypt(a, true, iv, aad, 1, in, out, max, tag, 16), -EMSGSIZE);
	ck_assert_msg(strstr(hwoff_aead_error(a), "more than one request takes"), "%s",
		      hwoff_aead_error(a));
	ck_assert_int_eq(hwoff_aead_crypt(a, true, iv, aad, 0, in, out, 16, tag, 5), -EINVAL);
	ck_assert_msg(strstr(hwoff_aead_error(a), "takes 4, 8 or 12 to 16"), "%s",
		      hwoff_aead_error(a));
	/* A child's messages on the parent's context; then the parent's own. */
	openssl_gcm(c->alg, key, iv, aad, 13, in, 1000, want, want_tag, 16);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child) {
		bool ok = !hwoff_aead_crypt(a, true, iv, aad, 13, in, out, 1000, tag, 16) &&
			  !memcmp(out, want, 1000) && !memcmp(tag, want_tag, 16);

		hwoff_aead_free(a);
		_exit(ok ? 0 : 1);
	}
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status), "the child's message was wrong");
	ck_assert_int_eq(hwoff_aead_crypt(a, true, iv, aad, 13, in, out, 1000, tag, 16), 0);
	ck_assert_bytes_eq("after the fork", out, want, 1000);
	hwoff_aead_free(a);
	free(aad);
	free(in);
	free(out);
	free(want);
}
END_TEST

static void *thread_rounds(void *arg)
{
	struct thread_job *job = arg;
	const struct alg_case *cc = &ciphers[job->index % cipher_count];
	const struct alg_case *dc = &digests[job->index % digest_count];
	unsigned char *pt = malloc(THREAD_MAX_LEN), *ct = malloc(THREAD_MAX_LEN);
	unsigned char *got = malloc(THREAD_MAX_LEN);
	unsigned char key[32], iv[16], want_md[EVP_MAX_MD_SIZE], got_md[EVP_MAX_MD_SIZE];
	char err[HWOFF_TRANSPORT_ERROR_MAX];
	struct hwoff_skcipher *sk = NULL;
	struct hwoff_hash *h = NULL;
	struct test_rng rng;

	test_rng_init(&rng, 0x6000 + (uint64_t)job->index);
	test_rng_fill(&rng, key, sizeof(key));
	test_rng_fill(&rng, iv, sizeof(iv));
	if (!pt || !ct || !got) {
		snprintf(job->failure, sizeof(job->failure), "out of memory");
		goto out;
	}
	if (hwoff_skcipher_new(&sk, cc->alg, cc->driver, key, cc->alg->key_bytes, err,
			       sizeof(err)) ||
	    hwoff_hash_new(&h, dc->alg, dc->driver, hash_key(dc->alg), sizeof(hmac_key), err,
			   sizeof(err))) {
		snprintf(job->failure, sizeof(job->failure), "%s", err);
		goto out;
	}
	for (int r = 0; r < THREAD_ROUNDS && !job->failure[0]; r++) {
		size_t len = test_rng_range(&rng, 1, THREAD_MAX_LEN / 16) * 16;
		EVP_CIPHER *cipher = EVP_CIPHER_fetch(NULL, cc->alg->name, "provider=default");
		EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
		int outl = 0;

		test_rng_fill(&rng, pt, len);
		if (!cipher || !ctx || !EVP_EncryptInit_ex2(ctx, cipher, key, iv, NULL) ||
		    !EVP_CIPHER_CTX_set_padding(ctx, 0) ||
		    !EVP_EncryptUpdate(ctx, ct, &outl, pt, (int)len))
			snprintf(job->failure, sizeof(job->failure), "OpenSSL failed");
		EVP_CIPHER_CTX_free(ctx);
		EVP_CIPHER_free(cipher);
		if (cc->alg->iv_bytes)
			hwoff_skcipher_set_iv(sk, iv, cc->alg->iv_bytes);
		if (!job->failure[0] &&
		    (hwoff_skcipher_crypt(sk, true, pt, got, len) || memcmp(got, ct, len)))
			snprintf(job->failure, sizeof(job->failure), "%s round %d, %zu bytes: %s",
				 cc->driver, r, len, hwoff_skcipher_error(sk));
		if (job->failure[0])
			break;
		if (!openssl_hash(dc->alg, pt, len, want_md) || hwoff_hash_update(h, pt, len) ||
		    hwoff_hash_final(h, got_md, sizeof(got_md)) ||
		    memcmp(got_md, want_md, dc->alg->digest_bytes))
			snprintf(job->failure, sizeof(job->failure), "%s round %d, %zu bytes: %s",
				 dc->driver, r, len, hwoff_hash_error(h));
	}
out:
	hwoff_skcipher_free(sk);
	hwoff_hash_free(h);
	free(pt);
	free(ct);
	free(got);
	return NULL;
}

/* _i 1: every driver through its guard, which the threads share */
START_TEST(threads_each_with_a_context)
{
	struct thread_job jobs[THREADS];
	pthread_t threads[THREADS];

	for (int t = 0; _i && t < THREADS; t++) {
		ck_assert_int_eq(hwoff_guard_driver(ciphers[t % cipher_count].driver, 0), 0);
		ck_assert_int_eq(hwoff_guard_driver(digests[t % digest_count].driver, 0), 0);
	}
	for (int t = 0; t < THREADS; t++) {
		jobs[t] = (struct thread_job){ .index = t };
		ck_assert_int_eq(pthread_create(&threads[t], NULL, thread_rounds, &jobs[t]), 0);
	}
	for (int t = 0; t < THREADS; t++) {
		ck_assert_int_eq(pthread_join(threads[t], NULL), 0);
		ck_assert_msg(!jobs[t].failure[0], "thread %d: %s", t, jobs[t].failure);
	}
}
END_TEST

/*
 * Contexts made and half used in the parent continue in the child (which makes its own
 * sockets, and for _i 1 a guard of its own), and the parent's continue unharmed after the child
 * is done.
 */
START_TEST(fork_continues_in_child_and_parent)
{
	const struct alg_case *cc = &ciphers[_i], *dc = &digests[_i];
	const size_t a = 48 * 1024, b = 80 * 1024;
	unsigned char *pt = must_malloc(a + b), *want = must_malloc(a + b),
		      *got = must_malloc(a + b);
	unsigned char key[32], iv[16], want_md[EVP_MAX_MD_SIZE], got_md[EVP_MAX_MD_SIZE];
	struct hwoff_skcipher *sk;
	struct hwoff_hash *h;
	struct test_rng rng;
	int status;
	pid_t child;

	test_rng_init(&rng, 0x7000);
	test_rng_fill(&rng, key, sizeof(key));
	test_rng_fill(&rng, iv, sizeof(iv));
	test_rng_fill(&rng, pt, a + b);
	openssl_cipher(cc->alg, 1, key, iv, pt, a + b, want, NULL);
	openssl_digest(dc->alg, pt, a + b, want_md);

	sk = new_cipher(cc, key);
	h = new_hash(dc);
	ck_assert_int_eq(hwoff_skcipher_set_iv(sk, iv, cc->alg->iv_bytes), 0);
	crypt_ok(sk, true, pt, got, a);
	update_ok(h, pt, a);

	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child) {
		int bad = hwoff_skcipher_crypt(sk, true, pt + a, got + a, b) ||
			  memcmp(got, want, a + b) || hwoff_hash_update(h, pt + a, b) ||
			  hwoff_hash_final(h, got_md, sizeof(got_md)) ||
			  memcmp(got_md, want_md, dc->alg->digest_bytes);

		if (bad)
			fprintf(stderr, "child: %s%s\n", hwoff_skcipher_error(sk),
				hwoff_hash_error(h));
		_exit(bad);
	}
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "the child's results were wrong (status %d)", status);

	memset(got + a, 0, b);
	crypt_ok(sk, true, pt + a, got + a, b);
	ck_assert_bytes_eq("parent's ciphertext after the fork", got, want, a + b);
	update_ok(h, pt + a, b);
	final_ok(h, got_md);
	ck_assert_bytes_eq("parent's digest after the fork", got_md, want_md,
			   dc->alg->digest_bytes);
	hwoff_skcipher_free(sk);
	hwoff_hash_free(h);
	free(pt);
	free(want);
	free(got);
}
END_TEST

/* ---- errors ---------------------------------------------------------------------------------- */

static void assert_has(const char *text, const char *part)
{
	ck_assert_msg(strstr(text, part) != NULL, "'%s' lacks '%s'", text, part);
}

START_TEST(errors_say_what_failed)
{
	const struct hwoff_alg *cbc = hwoff_alg_by_name("AES-128-CBC");
	const struct hwoff_alg *sha = hwoff_alg_by_name("SHA2-256");
	unsigned char key[16] = { 0 }, buf[32] = { 0 }, md[8];
	char err[HWOFF_TRANSPORT_ERROR_MAX];
	struct hwoff_skcipher *sk;
	struct hwoff_hash *h;

	ck_assert_int_eq(hwoff_skcipher_new(&sk, cbc, "cbc-aes-hwoffload-nonexistent", key, 16, err,
					    sizeof(err)),
			 -ENOENT);
	assert_has(err, "cbc-aes-hwoffload-nonexistent");
	assert_has(err, "No such file or directory");
	assert_has(err, "7.2");
	ck_assert_int_eq(
		hwoff_hash_new(&h, sha, "sha256-hwoffload-nonexistent", NULL, 0, err, sizeof(err)),
		-ENOENT);
	assert_has(err, "hash 'sha256-hwoffload-nonexistent'");
	ck_assert_int_eq(
		hwoff_skcipher_new(&sk, cbc, "cbc(aes-generic)", key, 15, err, sizeof(err)),
		-EINVAL);
	assert_has(err, "a key of 15 bytes");

	ck_assert_int_eq(
		hwoff_skcipher_new(&sk, cbc, "cbc(aes-generic)", key, 16, err, sizeof(err)), 0);
	ck_assert_int_eq(hwoff_skcipher_crypt(sk, true, buf, buf, 17), -EINVAL);
	assert_has(hwoff_skcipher_error(sk), "17 bytes");
	ck_assert_int_eq(hwoff_skcipher_set_iv(sk, buf, 8), -EINVAL);
	assert_has(hwoff_skcipher_error(sk), "an IV of 8 bytes");
	ck_assert_int_eq(hwoff_skcipher_crypt(sk, true, buf, buf, 0), 0);
	ck_assert_int_eq(hwoff_skcipher_crypt(sk, true, buf, buf, 32), 0);
	hwoff_skcipher_free(sk);

	ck_assert_int_eq(hwoff_hash_new(&h, sha, "sha256-generic", NULL, 0, err, sizeof(err)), 0);
	ck_assert_int_eq(hwoff_hash_final(h, md, sizeof(md)), -EINVAL);
	assert_has(hwoff_hash_error(h), "a digest buffer of 8 bytes, the digest has 32");
	hwoff_hash_free(h);
}
END_TEST

/* ---- an engine that stops answering ---------------------------------------------------------- */

static long ms_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

/*
 * The engine stalls (fault_stall) and its driver waits timeout_ms (2000) before it fails the
 * request and resets the engine; the guard's limit (300 ms) ends the caller's wait first, as it
 * would for another vendor's engine that never answers: the request fails with the reason, the
 * driver is stuck in this process (a new session fails at once), and a forked child, which
 * starts with a guard of its own, is served once the engine has recovered.
 */
START_TEST(guard_gives_up_on_a_stuck_engine)
{
	static const char driver[] = "cbc-aes-hwoffload-dma";
	const struct alg_case c = { .alg = hwoff_alg_by_name("AES-128-CBC"), .engine = true };
	const size_t len = 65536;
	long long saved_timeout = read_number(TIMEOUT_PARAM), resets = stat_value("resets");
	unsigned char key[16], iv[16] = { 0 }, *in = must_malloc(len), *out = must_malloc(len),
			       *want = must_malloc(len);
	char err[HWOFF_TRANSPORT_ERROR_MAX], knob[256];
	struct hwoff_skcipher *sk, *again;
	struct timespec start;
	struct test_rng rng;
	int status;
	pid_t child;
	long waited;

	test_rng_init(&rng, 0x5707);
	test_rng_fill(&rng, key, sizeof(key));
	test_rng_fill(&rng, in, len);
	openssl_cipher(c.alg, 1, key, iv, in, len, want, NULL);
	ck_assert_int_eq(hwoff_guard_driver(driver, 300), 0);
	write_number(TIMEOUT_PARAM, 2000);
	ck_assert_msg(!hwoff_skcipher_new(&sk, c.alg, driver, key, 16, err, sizeof(err)), "%s",
		      err);
	crypt_ok(sk, true, in, out, len);
	ck_assert_bytes_eq("through the guard", out, want, len);

	snprintf(knob, sizeof(knob), "%sfault_stall", DEBUGFS_KNOB);
	write_number(knob, 1);
	clock_gettime(CLOCK_MONOTONIC, &start);
	ck_assert_int_eq(hwoff_skcipher_crypt(sk, true, in, out, len), -ETIMEDOUT);
	waited = ms_since(&start);
	assert_has(hwoff_skcipher_error(sk), "gave no answer within 300 ms to recvmsg");
	/* the guard ended the wait, not the driver's timeout */
	ck_assert_msg(waited < 1900, "the caller waited %ld ms", waited);
	ck_assert_ptr_nonnull(hwoff_guard_stuck(driver));
	clock_gettime(CLOCK_MONOTONIC, &start);
	ck_assert_int_eq(hwoff_skcipher_new(&again, c.alg, driver, key, 16, err, sizeof(err)),
			 -ETIMEDOUT);
	assert_has(err, "stuck in the kernel");
	ck_assert_msg(ms_since(&start) < 300, "a stuck driver's call waited %ld ms",
		      ms_since(&start));
	hwoff_skcipher_free(sk);

	/* the driver's timeout resets the engine; then a new process trusts it again */
	for (int i = 0; i < 100 && stat_value("resets") == resets; i++)
		usleep(100 * 1000);
	ck_assert_int_gt(stat_value("resets"), resets);
	child = fork();
	ck_assert_int_ge(child, 0);
	if (!child) {
		int bad = hwoff_guard_stuck(driver) != NULL ||
			  hwoff_skcipher_new(&again, c.alg, driver, key, 16, err, sizeof(err)) ||
			  hwoff_skcipher_crypt(again, true, in, out, len) || memcmp(out, want, len);

		_exit(bad);
	}
	ck_assert_int_eq(waitpid(child, &status, 0), child);
	ck_assert_msg(WIFEXITED(status) && WEXITSTATUS(status) == 0,
		      "a new process was not served once the engine recovered (status %d)", status);
	write_number(TIMEOUT_PARAM, saved_timeout);
	free(in);
	free(out);
	free(want);
}
END_TEST

/* ---- the cases ------------------------------------------------------------------------------- */

/* No case is left out unsaid: a full list stops the suite. */
static void check_room(int count)
{
	if (count < CASES_MAX)
		return;
	fprintf(stderr, "more than %d cases of one kind: raise CASES_MAX\n", CASES_MAX);
	exit(EXIT_FAILURE);
}

static void add_case(struct alg_case *cases, int *count, const char *alg_name, const char *driver,
		     bool engine)
{
	check_room(*count);
	cases[*count].alg = hwoff_alg_by_name(alg_name);
	snprintf(cases[*count].driver, sizeof(cases[*count].driver), "%s", driver);
	cases[*count].engine = engine;
	cases[*count].guarded = false;
	(*count)++;
}

/* The case before it again, through a guard process. */
static void add_guarded_copy(struct alg_case *cases, int *count)
{
	check_room(*count);
	cases[*count] = cases[*count - 1];
	cases[*count].guarded = true;
	(*count)++;
}

static const char *missing_engine_row;
static bool engine_loaded;

/* The kernel's generic drivers, then each of the bundled engine's that /proc/crypto lists. */
static void find_cases(void)
{
	static struct hwoff_discovery d;
	char err[256];
	int engines = 0;

	add_case(ciphers, &cipher_count, "AES-128-CBC", "cbc(aes-generic)", false);
	add_guarded_copy(ciphers, &cipher_count);
	add_case(ciphers, &cipher_count, "AES-256-CBC", "cbc(aes-generic)", false);
	add_case(ciphers, &cipher_count, "AES-192-ECB", "ecb(aes-generic)", false);
	add_case(ciphers, &cipher_count, "AES-128-CTR", "ctr(aes-generic)", false);
	add_guarded_copy(ciphers, &cipher_count);
	add_case(ciphers, &cipher_count, "AES-256-CTR", "ctr(aes-generic)", false);
	add_case(digests, &digest_count, "SHA2-256", "sha256-generic", false);
	add_guarded_copy(digests, &digest_count);
	add_case(digests, &digest_count, "SHA1", "sha1-generic", false);
	add_case(digests, &digest_count, "MD5", "md5-generic", false);
	add_case(digests, &digest_count, "SHA2-224", "sha224-generic", false);
	add_case(digests, &digest_count, "SHA2-384", "sha384-generic", false);
	add_case(digests, &digest_count, "SHA2-512", "sha512-generic", false);
	add_case(aeads, &aead_count, "AES-128-GCM", "gcm_base(ctr(aes-generic),ghash-generic)",
		 false);
	add_guarded_copy(aeads, &aead_count);

	if (hwoff_discover(&d, err, sizeof(err))) {
		printf("hwoffload driver: cannot tell, /proc/crypto unreadable: %s\n", err);
		return;
	}
	for (size_t i = 0; i < d.count; i++) {
		const struct hwoff_impl *impl = &d.impls[i];

		if (strcmp(impl->module, HWOFF_ENGINE_MODULE) != 0)
			continue;
		printf("hwoffload driver: testing %s (%s, %s)\n", impl->driver, impl->name,
		       hwoff_impl_class_name(impl->class));
		engines++;
		/* the smallest and largest key of each kernel algorithm */
		for (size_t a = 0; a < HWOFF_ALG_COUNT; a++) {
			const struct hwoff_alg *alg = &hwoff_algs[a];

			if (strcmp(alg->kernel_name, impl->name) != 0 ||
			    (alg->key_bytes != 16 && alg->key_bytes != 32 && alg->key_bytes))
				continue;
			if (hwoff_alg_is_digest(alg))
				add_case(digests, &digest_count, alg->name, impl->driver, true);
			else if (hwoff_alg_is_aead(alg))
				add_case(aeads, &aead_count, alg->name, impl->driver, true);
			else
				add_case(ciphers, &cipher_count, alg->name, impl->driver, true);
		}
	}
	engine_loaded = engines > 0;
	if (!engines)
		printf("hwoffload driver: not loaded (no implementation of module %s in "
		       "/proc/crypto): only the kernel's generic drivers are tested\n",
		       HWOFF_ENGINE_MODULE);
	fflush(stdout);
	/*
	 * The module registers a row, yet discovery lists no tested PIO or DMA driver for it: they
	 * were left out, not tested. A row the engine does not serve (SHA3-256) has neither.
	 */
	if (engines)
		missing_engine_row = test_engine_untested_row(&d, NULL);
}

int main(void)
{
	Suite *s = suite_create("backend transport (AF_ALG) against OpenSSL");
	TCase *tc = tcase_create("transport");

	find_cases();
	if (missing_engine_row) {
		fprintf(stderr,
			"%s: the engine's module is loaded, but discovery lists no tested PIO or "
			"DMA driver of the engine for it\n",
			missing_engine_row);
		return EXIT_FAILURE;
	}
	tcase_set_timeout(tc, 600);
	tcase_add_loop_test(tc, cipher_random, 0, cipher_count);
	tcase_add_loop_test(tc, cipher_iv_handover, 0, cipher_count);
	tcase_add_loop_test(tc, cipher_ctr_partial_block, 0, cipher_count);
	tcase_add_loop_test(tc, digest_random, 0, digest_count);
	tcase_add_loop_test(tc, digest_clone, 0, digest_count);
	tcase_add_loop_test(tc, aead_messages, 0, aead_count);
	tcase_add_loop_test(tc, threads_each_with_a_context, 0, 2);
	tcase_add_loop_test(tc, fork_continues_in_child_and_parent, 0, 2);
	tcase_add_test(tc, errors_say_what_failed);
	if (engine_loaded)
		tcase_add_test(tc, guard_gives_up_on_a_stuck_engine);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
