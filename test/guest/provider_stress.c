/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test/vm/run: --vcpus 2
 * provider_stress - a differential stress of hwoffload.so against OpenSSL's default provider, on
 * every path (modes software, pio, dma, auto), with fallback off so that any kernel failure shows.
 *
 * Per path, threads with contexts of their own run random cases (test/provider/providerutil.h):
 * every row of the algorithm table, both directions, padding on and off, sizes 0 to 1 MiB (mostly
 * small: an engine request costs about 0.4 ms under TCG), split into up to 16 updates, buffers
 * misaligned, in place, contexts copied mid-stream with both halves continued. Each case's random
 * stream is the run's seed with the path and the case's number, so HWOFFLOAD_TEST_SEED replays
 * every case. Prints the count per path. HWOFFLOAD_STRESS_CASES (cases per path) and
 * HWOFFLOAD_STRESS_THREADS size it; HWOFFLOAD_TEST_LONG=1 (`make check-long`) runs 1 million cases
 * per path.
 */
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "test/provider/providerutil.h"

#define THREADS_MAX 16

static const char *const modes[] = { "software", "pio", "dma", "auto" };
#define MODES (sizeof(modes) / sizeof(modes[0]))

struct worker {
	pthread_t thread;
	const struct prov_env *e;
	size_t mode;
	unsigned long first, step, end; /* its cases: first, first + step, ... below end */
	atomic_ulong *done; /* cases of every worker, for the progress lines */
	atomic_bool *stop; /* set by the first failure */
	struct case_tally tally;
	enum case_result result;
	unsigned long failed_case;
	char why[CASE_WHY_MAX];
};

static void *work(void *arg)
{
	struct worker *w = arg;
	const struct case_sizes sizes = { .small_percent = 80, .medium_percent = 18 };
	struct case_buffers b;

	w->result = CASE_RIGHT;
	if (!case_buffers_alloc(&b)) {
		snprintf(w->why, sizeof(w->why), "out of memory for the buffers");
		w->result = CASE_ERROR;
		atomic_store(w->stop, true);
		case_buffers_free(&b);
		return NULL;
	}
	for (unsigned long k = w->first; k < w->end && !atomic_load(w->stop); k += w->step) {
		struct test_rng rng;
		unsigned long done;

		test_rng_init(&rng, (uint64_t)(w->mode + 1) << 40 | k);
		w->result = case_run(w->e, &rng, &sizes, &b, &w->tally, w->why, sizeof(w->why));
		if (w->result != CASE_RIGHT) {
			w->failed_case = k;
			atomic_store(w->stop, true);
			break;
		}
		done = atomic_fetch_add(w->done, 1) + 1;
		if (done % 100000 == 0) {
			printf("mode %s: %lu cases so far\n", modes[w->mode], done);
			fflush(stdout);
		}
	}
	case_buffers_free(&b);
	return NULL;
}

static double seconds_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (double)(now.tv_sec - start->tv_sec) + (now.tv_nsec - start->tv_nsec) / 1e9;
}

/* _i: the mode. */
START_TEST(matches_default_under_load)
{
	unsigned long cases = test_count("HWOFFLOAD_STRESS_CASES", 10000, 1000000);
	unsigned long threads = test_count("HWOFFLOAD_STRESS_THREADS", 4, 4);
	struct worker w[THREADS_MAX] = { 0 };
	struct case_tally sum = { 0 };
	atomic_ulong done = 0;
	atomic_bool stop = false;
	struct timespec start;
	struct prov_env e;
	long long software, kernel, unsupported;

	ck_assert_msg(threads >= 1 && threads <= THREADS_MAX, "1 to %d threads", THREADS_MAX);
	prov_env_load(&e, modes[_i], "no");
	clock_gettime(CLOCK_MONOTONIC, &start);
	for (unsigned long t = 0; t < threads; t++) {
		w[t] = (struct worker){ .e = &e,
					.mode = (size_t)_i,
					.first = t,
					.step = threads,
					.end = cases,
					.done = &done,
					.stop = &stop };
		ck_assert(!pthread_create(&w[t].thread, NULL, work, &w[t]));
	}
	for (unsigned long t = 0; t < threads; t++)
		pthread_join(w[t].thread, NULL);
	for (unsigned long t = 0; t < threads; t++) {
		ck_assert_msg(w[t].result == CASE_RIGHT, "mode %s, case %lu: %s", modes[_i],
			      w[t].failed_case, w[t].why);
		sum.cases += w[t].tally.cases;
		sum.ciphers += w[t].tally.ciphers;
		sum.digests += w[t].tally.digests;
		sum.in_place += w[t].tally.in_place;
		sum.copies += w[t].tally.copies;
		sum.bytes += w[t].tally.bytes;
	}
	software = prov_path_counter(&e, "software", "requests");
	kernel = prov_path_counter(&e, NULL, "requests");
	unsupported = prov_path_counter(&e, NULL, "unsupported");
	printf("mode %s: %llu cases (%llu cipher, %llu digest; %llu in place, %llu copied "
	       "mid-stream; %.1f MiB) in %.1f s, %lu threads; requests: software %lld, kernel "
	       "%lld (unsupported there %lld)\n",
	       modes[_i], sum.cases, sum.ciphers, sum.digests, sum.in_place, sum.copies,
	       sum.bytes / 1048576.0, seconds_since(&start), threads, software, kernel,
	       unsupported);
	fflush(stdout);
	ck_assert_uint_eq(sum.cases, cases);
	/* the forced modes went where they were told */
	if (!strcmp(modes[_i], "software"))
		ck_assert_msg(kernel == 0, "mode software: %lld kernel requests", kernel);
	/* GCM's software requests are those the engine cannot carry, each counted as such */
	if (!strcmp(modes[_i], "pio") || !strcmp(modes[_i], "dma"))
		ck_assert_msg(kernel > 0 && (software == 0 || unsupported > 0),
			      "mode %s: software %lld, kernel %lld, unsupported %lld", modes[_i],
			      software, kernel, unsupported);
	prov_env_unload(&e);
}
END_TEST

int main(void)
{
	const struct engine_test test = { matches_default_under_load, (int)MODES };

	return engine_suite_run("provider stress (guest)", &test, 1);
}
