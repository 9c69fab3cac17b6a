/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test/vm/run: --vcpus 2
 * provider_faults - a fault storm on the emulated engine while threads stream through
 * hwoffload.so: modes pio, dma and auto, each with fallback on and off.
 *
 * Per round the provider is loaded afresh (a failed kernel request may mark its path unusable for
 * the process), worker threads run random differential cases (test/provider/providerutil.h) and the
 * main thread arms the engine's fault knobs (doc/driver.md) again and again: DMA errors, FIFO
 * errors, lost interrupts, and now and then a stall (which costs the driver's timeout). With
 * fallback on every result is right, except a digest whose bytes the kernel already had, which
 * fails and says so; with fallback off every result is right or an error. Never wrong bytes.
 * HWOFFLOAD_FAULT_ROUNDS (per configuration) sizes it; HWOFFLOAD_TEST_LONG=1 runs 300.
 */
#define _GNU_SOURCE
#include <glob.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "test/provider/providerutil.h"

#define WORKERS		 3
#define ARMS_PER_ROUND	 16
#define STALL_ONE_IN	 48 /* arms: a stall costs the driver's timeout_ms (2 s) */
#define FALLBACK_REFUSAL "software cannot finish it" /* provider/digest.c, kernel_failed() */

static const struct {
	const char *mode, *fallback;
} configs[] = {
	{ "pio", "yes" }, { "pio", "no" },   { "dma", "yes" },
	{ "dma", "no" },  { "auto", "yes" }, { "auto", "no" },
};
#define CONFIGS (sizeof(configs) / sizeof(configs[0]))

static const char *const knobs[] = { "fault_dma_error", "fault_fifo_error", "fault_lost_irq",
				     "fault_stall" };
#define KNOBS (sizeof(knobs) / sizeof(knobs[0]))

struct worker {
	pthread_t thread;
	const struct prov_env *e;
	bool fallback;
	uint64_t stream;
	atomic_bool *stop;
	struct case_tally tally;
	bool failed;
	char why[CASE_WHY_MAX];
};

/* Whether a result is allowed under the storm; a case with fallback on may fail only as said. */
static bool acceptable(const struct worker *w, enum case_result r, const char *why)
{
	if (r == CASE_RIGHT)
		return true;
	if (r == CASE_WRONG)
		return false;
	return !w->fallback || strstr(why, FALLBACK_REFUSAL);
}

static void *work(void *arg)
{
	struct worker *w = arg;
	const struct case_sizes sizes = { .small_percent = 50, .medium_percent = 48 };
	struct case_buffers b;

	if (!case_buffers_alloc(&b)) {
		snprintf(w->why, sizeof(w->why), "out of memory for the buffers");
		w->failed = true;
	}
	for (uint64_t k = 0; !w->failed && !atomic_load(w->stop); k++) {
		struct test_rng rng;
		enum case_result r;

		test_rng_init(&rng, w->stream | k);
		r = case_run(w->e, &rng, &sizes, &b, &w->tally, w->why, sizeof(w->why));
		w->failed = !acceptable(w, r, w->why);
	}
	case_buffers_free(&b);
	return NULL;
}

static bool write_knob(const char *name, unsigned int value, char *err, size_t err_len)
{
	char pattern[128];
	bool ok = false;
	glob_t g;
	FILE *f;

	snprintf(pattern, sizeof(pattern), "/sys/kernel/debug/hwoffload/*/%s", name);
	if (glob(pattern, 0, NULL, &g) || g.gl_pathc != 1) {
		snprintf(err, err_len, "%s: no single match", pattern);
		return false;
	}
	f = fopen(g.gl_pathv[0], "w");
	ok = f && fprintf(f, "%u\n", value) > 0;
	if (f && fclose(f))
		ok = false;
	if (!ok)
		snprintf(err, err_len, "cannot write %s", g.gl_pathv[0]);
	globfree(&g);
	return ok;
}

static void sleep_ms(unsigned int ms)
{
	struct timespec t = { .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000 };

	nanosleep(&t, NULL);
}

/* _i: the configuration. */
START_TEST(storm)
{
	unsigned long rounds = test_count("HWOFFLOAD_FAULT_ROUNDS", 3, 300);
	bool fallback = !strcmp(configs[_i].fallback, "yes");
	unsigned long long cases = 0, case_errors = 0, arms[KNOBS] = { 0 };
	long long kernel_errors = 0;
	struct timespec start, end;
	char err[256];

	clock_gettime(CLOCK_MONOTONIC, &start);
	for (unsigned long r = 0; r < rounds; r++) {
		struct worker w[WORKERS] = { 0 };
		atomic_bool stop = false;
		struct test_rng rng;
		struct prov_env e;

		test_rng_init(&rng, (uint64_t)(_i + 1) << 56 | 1ull << 55 | r);
		prov_env_load(&e, configs[_i].mode, configs[_i].fallback);
		for (unsigned int t = 0; t < WORKERS; t++) {
			w[t] = (struct worker){ .e = &e,
						.fallback = fallback,
						.stream = (uint64_t)(_i + 1) << 56 |
							  (uint64_t)r << 40 | (uint64_t)t << 32,
						.stop = &stop };
			ck_assert(!pthread_create(&w[t].thread, NULL, work, &w[t]));
		}
		for (unsigned int a = 0; a < ARMS_PER_ROUND; a++) {
			size_t knob = test_rng_range(&rng, 0, STALL_ONE_IN - 1) == 0
					      ? KNOBS - 1
					      : test_rng_range(&rng, 0, KNOBS - 2);
			unsigned int count = knob == KNOBS - 1 ? 1 : test_rng_range(&rng, 1, 3);

			ck_assert_msg(write_knob(knobs[knob], count, err, sizeof(err)), "%s", err);
			arms[knob] += count;
			sleep_ms((unsigned int)test_rng_range(&rng, 5, 60));
		}
		atomic_store(&stop, true);
		for (unsigned int t = 0; t < WORKERS; t++)
			pthread_join(w[t].thread, NULL);
		for (size_t k = 0; k < KNOBS; k++)
			ck_assert_msg(write_knob(knobs[k], 0, err, sizeof(err)), "%s", err);
		for (unsigned int t = 0; t < WORKERS; t++) {
			ck_assert_msg(!w[t].failed,
				      "mode %s, fallback %s, round %lu, worker %u: %s",
				      configs[_i].mode, configs[_i].fallback, r, t, w[t].why);
			cases += w[t].tally.cases;
			case_errors += w[t].tally.errors;
		}
		kernel_errors += prov_path_counter(&e, NULL, "errors");
		prov_env_unload(&e);
	}
	clock_gettime(CLOCK_MONOTONIC, &end);
	printf("mode %s, fallback %s: %lu rounds, %llu cases (%llu failed as allowed%s) in %.1f s; "
	       "armed: %llu DMA errors, %llu FIFO errors, %llu lost interrupts, %llu stalls; "
	       "kernel errors the provider counted: %lld\n",
	       configs[_i].mode, configs[_i].fallback, rounds, cases, case_errors,
	       fallback ? ", digests the kernel had part of" : "",
	       (double)(end.tv_sec - start.tv_sec) + (end.tv_nsec - start.tv_nsec) / 1e9, arms[0],
	       arms[1], arms[2], arms[3], kernel_errors);
	fflush(stdout);
	/* the storm reached the provider: some kernel request failed under it */
	ck_assert_msg(kernel_errors > 0, "no kernel error in %lu rounds of faults", rounds);
}
END_TEST

int main(void)
{
	const struct engine_test test = { storm, (int)CONFIGS };

	return engine_suite_run("provider faults (guest)", &test, 1);
}
