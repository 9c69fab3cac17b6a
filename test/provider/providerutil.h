/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers of the provider suites that run many threads, faults and forks (provider_stress,
 * provider_faults, provider_fork): hwoffload.so loaded into a library context of its own beside
 * the default provider, and one random differential case (a stream of a random algorithm, size,
 * split, alignment, in place or not, copied mid-stream or not) checked against the default
 * provider. The case functions report instead of asserting: they run in worker threads and in
 * forked children, where Check's assertions must not be called.
 */
#ifndef HWOFFLOAD_PROVIDERUTIL_H
#define HWOFFLOAD_PROVIDERUTIL_H

#include <stdbool.h>
#include <stddef.h>

#include <openssl/evp.h>
#include <openssl/provider.h>

#include "backend/algs.h"
#include "test/testutil.h"

#define CASE_MAX_LEN	(1u << 20)
#define CASE_MAX_PIECES 16
#define CASE_WHY_MAX	1024

/* hwoffload and the default provider in a library context, each algorithm fetched from both. */
struct prov_env {
	OSSL_LIB_CTX *libctx;
	OSSL_PROVIDER *hw, *ref;
	/* by row of hwoff_algs[]; NULL for digests */
	EVP_CIPHER *hw_cipher[HWOFF_ALG_COUNT], *ref_cipher[HWOFF_ALG_COUNT];
	EVP_MD *hw_md[HWOFF_ALG_COUNT], *ref_md[HWOFF_ALG_COUNT]; /* NULL for HMAC rows */
	/*
	 * HMAC rows: contexts with the digest set and no key, which a case dups and keys. The
	 * digest is fetched here, once: a fetch in a child forked while a thread held a store's
	 * lock would wait for ever (OpenSSL 3.0's locks have no fork handlers).
	 */
	EVP_MAC_CTX *hw_hmac[HWOFF_ALG_COUNT], *ref_hmac[HWOFF_ALG_COUNT];
	/* the rows a case draws: all, or in modes pio and dma those the engine serves */
	bool drawn[HWOFF_ALG_COUNT];
};

/* Loads both with HWOFFLOAD_MODE=mode and HWOFFLOAD_FALLBACK=fallback (ck_assert on failure). */
void prov_env_load(struct prov_env *e, const char *mode, const char *fallback);
void prov_env_unload(struct prov_env *e);
/* A random row of those e's cases draw for which pick holds (any of them when pick is NULL). */
const struct hwoff_alg *prov_env_row(const struct prov_env *e, struct test_rng *rng,
				     bool (*pick)(const struct hwoff_alg *));
/*
 * A counter ("requests", "errors" ...) of one path in the provider's statistics; of every path but
 * software added up when path is NULL. Not from a forked child (ck_assert).
 */
long long prov_path_counter(const struct prov_env *e, const char *path, const char *counter);
/* The same counter read from statistics text (the provider's "hwoffload-statistics"). */
long long prov_stats_counter(const char *stats, const char *path, const char *counter);
/* The calling thread's OpenSSL error queue as one string, emptied. */
void prov_error_text(char *buf, size_t size);

/* How large a case's message is: mostly small, some up to CASE_MAX_LEN. */
struct case_sizes {
	unsigned int small_percent; /* 0 .. 1 KiB */
	unsigned int medium_percent; /* 1 KiB .. 64 KiB; the rest up to 1 MiB */
};

/* One thread's buffers, for inputs and outputs up to CASE_MAX_LEN, at any offset. */
struct case_buffers {
	unsigned char *in, *in_copy, *out, *out_copy, *ref;
};

bool case_buffers_alloc(struct case_buffers *b);
void case_buffers_free(struct case_buffers *b);

enum case_result {
	CASE_RIGHT,
	CASE_ERROR, /* the provider refused or failed; why says where and its error queue */
	CASE_WRONG, /* the provider gave bytes other than the default provider's */
};

/* What the last case of a thread did, for the counts the suites print. */
struct case_tally {
	unsigned long long cases, ciphers, digests, in_place, copies, bytes, errors;
};

/*
 * One case, all of it drawn from rng: the row, direction, padding, key, IV, message, size, its
 * split into updates, the buffers' misalignment, in place or not, and where (if anywhere) the
 * context is copied with both halves continued. why says which case and what went wrong.
 */
enum case_result case_run(const struct prov_env *e, struct test_rng *rng,
			  const struct case_sizes *sizes, struct case_buffers *b,
			  struct case_tally *tally, char *why, size_t why_len);

struct engine_test {
	const TTest *test;
	int loops;
};

/*
 * Runs the suite name of count loop tests, each over _i in 0 .. loops - 1 (no time limit in the
 * long mode), once the kernel lists the engine's PIO and DMA drivers of every row with their
 * self-tests passed (waiting at most 60 s, and saying so): a guest may start while the kernel
 * still tests a driver it has just loaded (seen on 6.12), and the provider leaves such a driver
 * out. The process's exit status.
 */
int engine_suite_run(const char *name, const struct engine_test *tests, size_t count);

/* HWOFFLOAD_TEST_LONG=1: the suites' soak sizes (`make check-long`) instead of the CI ones. */
bool test_long_mode(void);
/* A count from the environment variable name, else long_value or ci_value by the mode. */
unsigned long test_count(const char *name, unsigned long ci_value, unsigned long long_value);

#endif
