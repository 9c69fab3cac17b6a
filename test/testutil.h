/* SPDX-License-Identifier: Apache-2.0 */
/*
 * Helpers shared by the Check suites: a seeded, reproducible random source (the seed is printed and
 * taken from HWOFFLOAD_TEST_SEED when set) and a readable comparison of byte strings.
 */
#ifndef HWOFFLOAD_TESTUTIL_H
#define HWOFFLOAD_TESTUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include <check.h>

struct test_rng {
	uint64_t state;
};

/* The run's seed: HWOFFLOAD_TEST_SEED, or a fresh one; printed once so a failure can be replayed. */
uint64_t test_seed(void);
/* A generator for one test case: the run's seed mixed with the case's own number. */
void test_rng_init(struct test_rng *rng, uint64_t stream);
uint64_t test_rng_next(struct test_rng *rng);
/* Uniform in [lo, hi]. */
size_t test_rng_range(struct test_rng *rng, size_t lo, size_t hi);
void test_rng_fill(struct test_rng *rng, void *buf, size_t len);
/* Cut len into 1..max_pieces random pieces, each a multiple of step but the last; returns count. */
size_t test_rng_split(struct test_rng *rng, size_t len, size_t step, size_t max_pieces,
		      size_t *pieces);

/*
 * Whether the bundled engine's module registers an implementation of kernel_name (a cra_name) in
 * /proc/crypto, whatever its self-test says: the rows modes pio and dma serve. The others (a row
 * no engine driver serves, as SHA3-256) those modes refuse with the reason; false where
 * /proc/crypto cannot be read.
 */
bool test_engine_registers(const char *kernel_name);
/* Whether the provider's mode serves rows of kernel_name: pio and dma those above, others all. */
bool test_mode_serves(const char *mode, const char *kernel_name);

/*
 * Refuse socket(AF_ALG, ...) to this process and its children with refusal (an errno), by a
 * seccomp filter, as sandboxed services are refused it and as Linux 7.2 refuses off-CPU drivers,
 * while the kernel has AF_ALG. For good: run it in a test's own (forked) process.
 */
void test_refuse_af_alg(int refusal);

/* Runs the suite (printing Check's summary line); the process's exit status. */
int test_run_suite(Suite *suite);

/* ck_assert-style check that prints where two byte strings first differ. */
#define ck_assert_bytes_eq(what, got, want, len)                                                   \
	test_assert_bytes_eq(__FILE__, __LINE__, what, got, want, len)
void test_assert_bytes_eq(const char *file, int line, const char *what, const void *got,
			  const void *want, size_t len);

#endif
