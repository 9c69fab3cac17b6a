// SPDX-License-Identifier: Apache-2.0
/*
 * The kernel's own implementations through AF_ALG (libkcapi), bound by algorithm name, against
 * OpenSSL's default provider: random inputs of random lengths (0 to 64 KiB), one shot and in
 * several updates, both directions for the ciphers. Runs in the guest (test/vm/run).
 */
#include <check.h>
#include <kcapi.h>
#include <openssl/evp.h>
#include <stdlib.h>
#include <string.h>

#include "test/testutil.h"

#define MAX_LEN (64 * 1024)
#define ITERATIONS 24
#define MAX_PIECES 8

struct digest_case {
	const char *kernel_name;
	const char *openssl_name;
};

struct cipher_case {
	const char *kernel_name;
	const char *openssl_name;
	size_t key_len;
	size_t block_len; /* lengths must be multiples of this (1 for a stream mode) */
};

static const struct digest_case digests[] = {
	{ "sha256", "SHA2-256" },
	{ "sha1", "SHA1" },
	{ "md5", "MD5" },
};

static const struct cipher_case ciphers[] = {
	{ "cbc(aes)", "AES-128-CBC", 16, 16 },
	{ "cbc(aes)", "AES-256-CBC", 32, 16 },
	{ "ctr(aes)", "AES-128-CTR", 16, 1 },
	{ "ctr(aes)", "AES-256-CTR", 32, 1 },
};

/* The lengths every case tries first, then random ones; rounded down to the case's block. */
static const size_t edge_lens[] = { 0, 1, 15, 16, 17, 63, 64, 65, 4096, MAX_LEN };

static size_t pick_len(struct test_rng *rng, int iteration, size_t block)
{
	size_t n = sizeof(edge_lens) / sizeof(edge_lens[0]);
	size_t len = (size_t)iteration < n ? edge_lens[iteration] : test_rng_range(rng, 0, MAX_LEN);

	return len - len % block;
}

static void openssl_digest(const char *name, const void *in, size_t len, unsigned char *md,
			   unsigned int *md_len)
{
	EVP_MD *md_alg = EVP_MD_fetch(NULL, name, NULL);

	ck_assert_ptr_nonnull(md_alg);
	ck_assert_int_eq(EVP_Digest(in, len, md, md_len, md_alg, NULL), 1);
	EVP_MD_free(md_alg);
}

static void openssl_cipher(const struct cipher_case *c, int enc, const unsigned char *key,
			   const unsigned char *iv, const unsigned char *in, size_t len,
			   unsigned char *out)
{
	EVP_CIPHER *alg = EVP_CIPHER_fetch(NULL, c->openssl_name, NULL);
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int outl = 0, finl = 0;

	ck_assert_ptr_nonnull(alg);
	ck_assert_ptr_nonnull(ctx);
	ck_assert_int_eq(EVP_CipherInit_ex2(ctx, alg, key, iv, enc, NULL), 1);
	EVP_CIPHER_CTX_set_padding(ctx, 0);
	ck_assert_int_eq(EVP_CipherUpdate(ctx, out, &outl, in, (int)len), 1);
	ck_assert_int_eq(EVP_CipherFinal_ex(ctx, out + outl, &finl), 1);
	ck_assert_uint_eq((size_t)(outl + finl), len);
	EVP_CIPHER_CTX_free(ctx);
	EVP_CIPHER_free(alg);
}

static void check_digest(int index, int in_pieces)
{
	const struct digest_case *d = &digests[index];
	unsigned char *in = malloc(MAX_LEN);
	unsigned char want[EVP_MAX_MD_SIZE], got[EVP_MAX_MD_SIZE];
	struct test_rng rng;
	int i;

	ck_assert_ptr_nonnull(in);
	test_rng_init(&rng, (uint64_t)index << 8 | (uint64_t)in_pieces);
	for (i = 0; i < ITERATIONS; i++) {
		size_t len = pick_len(&rng, i, 1), pieces[MAX_PIECES], count, k, off = 0;
		struct kcapi_handle *h;
		unsigned int want_len;
		ssize_t got_len;

		test_rng_fill(&rng, in, len);
		openssl_digest(d->openssl_name, in, len, want, &want_len);
		ck_assert_msg(kcapi_md_init(&h, d->kernel_name, 0) == 0, "AF_ALG bind of %s failed",
			      d->kernel_name);
		if (!in_pieces) {
			got_len = kcapi_md_digest(h, in, len, got, sizeof(got));
		} else {
			count = test_rng_split(&rng, len, 1, MAX_PIECES, pieces);
			for (k = 0; k < count; k++) {
				ck_assert_int_eq(kcapi_md_update(h, in + off, pieces[k]), 0);
				off += pieces[k];
			}
			got_len = kcapi_md_final(h, got, sizeof(got));
		}
		kcapi_md_destroy(h);
		ck_assert_msg(got_len == (ssize_t)want_len, "%s of %zu bytes: length %zd, want %u",
			      d->kernel_name, len, got_len, want_len);
		ck_assert_bytes_eq(d->kernel_name, got, want, want_len);
	}
	free(in);
}

START_TEST(digest_one_shot)
{
	check_digest(_i, 0);
}
END_TEST

START_TEST(digest_in_updates)
{
	check_digest(_i, 1);
}
END_TEST

/* The kernel's result for one direction, one shot or in pieces sent with MSG_MORE. */
static void kernel_cipher(const struct cipher_case *c, struct test_rng *rng, int enc,
			  const unsigned char *key, const unsigned char *iv, const unsigned char *in,
			  size_t len, unsigned char *out, int in_pieces)
{
	unsigned char iv_copy[16];
	struct kcapi_handle *h;
	ssize_t ret;

	memcpy(iv_copy, iv, sizeof(iv_copy));
	ck_assert_msg(kcapi_cipher_init(&h, c->kernel_name, 0) == 0, "AF_ALG bind of %s failed",
		      c->kernel_name);
	ck_assert_int_eq(kcapi_cipher_setkey(h, key, (uint32_t)c->key_len), 0);
	if (!in_pieces) {
		ret = enc ? kcapi_cipher_encrypt(h, in, len, iv_copy, out, len,
						 KCAPI_ACCESS_HEURISTIC) :
			    kcapi_cipher_decrypt(h, in, len, iv_copy, out, len,
						 KCAPI_ACCESS_HEURISTIC);
		ck_assert_msg(ret == (ssize_t)len, "%s %s of %zu bytes returned %zd",
			      c->kernel_name, enc ? "encryption" : "decryption", len, ret);
	} else {
		/* Every piece but the last a multiple of the AES block: the kernel's chunk size. */
		size_t pieces[MAX_PIECES], count = test_rng_split(rng, len, 16, MAX_PIECES, pieces);
		size_t k, off = 0;

		ret = enc ? kcapi_cipher_stream_init_enc(h, iv_copy, NULL, 0) :
			    kcapi_cipher_stream_init_dec(h, iv_copy, NULL, 0);
		ck_assert_int_ge(ret, 0);
		for (k = 0; k < count; k++) {
			struct iovec iov = { (void *)(in + off), pieces[k] };
			size_t done = 0;

			ret = k + 1 < count ? kcapi_cipher_stream_update(h, &iov, 1) :
					      kcapi_cipher_stream_update_last(h, &iov, 1);
			ck_assert_msg(ret == (ssize_t)pieces[k], "sending %zu bytes returned %zd",
				      pieces[k], ret);
			while (done < pieces[k]) {
				struct iovec out_iov = { out + off + done, pieces[k] - done };

				ret = kcapi_cipher_stream_op(h, &out_iov, 1);
				ck_assert_msg(ret > 0, "%s: reading piece %zu of %zu returned %zd",
					      c->kernel_name, k, count, ret);
				done += (size_t)ret;
			}
			off += pieces[k];
		}
	}
	kcapi_cipher_destroy(h);
}

static void check_cipher(int index, int in_pieces)
{
	const struct cipher_case *c = &ciphers[index];
	unsigned char *pt = malloc(MAX_LEN), *ct = malloc(MAX_LEN), *out = malloc(MAX_LEN);
	unsigned char key[32], iv[16];
	struct test_rng rng;
	int i;

	ck_assert_ptr_nonnull(pt);
	ck_assert_ptr_nonnull(ct);
	ck_assert_ptr_nonnull(out);
	test_rng_init(&rng, 0x100 | (uint64_t)index << 8 | (uint64_t)in_pieces);
	for (i = 0; i < ITERATIONS; i++) {
		/* AF_ALG has nothing to return for an empty cipher request: start at one block. */
		size_t len = pick_len(&rng, i, c->block_len);

		if (len == 0)
			len = 16;
		test_rng_fill(&rng, key, sizeof(key));
		test_rng_fill(&rng, iv, sizeof(iv));
		test_rng_fill(&rng, pt, len);
		openssl_cipher(c, 1, key, iv, pt, len, ct);

		kernel_cipher(c, &rng, 1, key, iv, pt, len, out, in_pieces);
		ck_assert_bytes_eq("ciphertext", out, ct, len);
		kernel_cipher(c, &rng, 0, key, iv, ct, len, out, in_pieces);
		ck_assert_bytes_eq("plaintext", out, pt, len);
	}
	free(pt);
	free(ct);
	free(out);
}

START_TEST(cipher_one_shot)
{
	check_cipher(_i, 0);
}
END_TEST

START_TEST(cipher_in_pieces)
{
	check_cipher(_i, 1);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("kernel algorithms through AF_ALG");
	TCase *tc = tcase_create("differential against OpenSSL");

	tcase_set_timeout(tc, 120);
	tcase_add_loop_test(tc, digest_one_shot, 0, sizeof(digests) / sizeof(digests[0]));
	tcase_add_loop_test(tc, digest_in_updates, 0, sizeof(digests) / sizeof(digests[0]));
	tcase_add_loop_test(tc, cipher_one_shot, 0, sizeof(ciphers) / sizeof(ciphers[0]));
	tcase_add_loop_test(tc, cipher_in_pieces, 0, sizeof(ciphers) / sizeof(ciphers[0]));
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
