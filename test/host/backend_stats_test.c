// SPDX-License-Identifier: Apache-2.0
/*
 * backend_stats_test.c - the counters from several threads at once, and their text.
 */
#include <pthread.h>
#include <string.h>

#include "backend/router.h"
#include "backend/stats.h"
#include "backend/table.h"
#include "test/host/backend_test.h"

#define THREADS 4
#define ROUNDS	200000

static void *count(void *arg)
{
	struct hwoff_counters *c = arg;

	for (int i = 0; i < ROUNDS; i++) {
		hwoff_count_requests(c, 1, 16);
		if (i % 4 == 0)
			hwoff_count_error(c);
		if (i % 8 == 0)
			hwoff_count_fallback(c, HWOFF_FALLBACK_REQUEST_FAILED);
	}
	return NULL;
}

START_TEST(test_threads)
{
	static struct hwoff_counters c;
	pthread_t threads[THREADS];
	struct hwoff_counts n;

	for (int i = 0; i < THREADS; i++)
		ck_assert_int_eq(pthread_create(&threads[i], NULL, count, &c), 0);
	for (int i = 0; i < THREADS; i++)
		pthread_join(threads[i], NULL);
	hwoff_counters_read(&c, &n);
	ck_assert_uint_eq(n.requests, (uint64_t)THREADS * ROUNDS);
	ck_assert_uint_eq(n.bytes, (uint64_t)THREADS * ROUNDS * 16);
	ck_assert_uint_eq(n.errors, (uint64_t)THREADS * ROUNDS / 4);
	ck_assert_uint_eq(n.fallbacks[HWOFF_FALLBACK_REQUEST_FAILED],
			  (uint64_t)THREADS * ROUNDS / 8);
	ck_assert_uint_eq(n.fallbacks[HWOFF_FALLBACK_PATH_UNUSABLE], 0);
}
END_TEST

START_TEST(test_format)
{
	static struct hwoff_counters c;
	char buf[512] = "";
	char tiny[16] = "";

	hwoff_count_requests(&c, 1, 100);
	hwoff_count_requests(&c, 1, 28);
	hwoff_count_fallback(&c, HWOFF_FALLBACK_PATH_UNUSABLE);
	hwoff_count_fallback(&c, HWOFF_FALLBACK_SETUP_FAILED);
	hwoff_count_fallback(&c, HWOFF_FALLBACK_REASON_COUNT); /* not a reason: ignored */
	hwoff_count_failure(&c);
	hwoff_count_failure(&c);
	hwoff_count_recovery(&c, 2500000);
	hwoff_count_fallback(&c, HWOFF_FALLBACK_UNSUPPORTED);
	hwoff_count_tag_mismatch(&c);
	hwoff_count_tag_mismatch(&c);
	hwoff_count_refusal(&c);
	hwoff_counters_format(buf, sizeof(buf), "cbc-aes-omap", &c);
	ck_assert_str_eq(buf, "cbc-aes-omap requests=2 bytes=128 errors=0 refused=1 fallbacks=3 "
			      "(path-unusable=1 setup-failed=1 request-failed=0 unsupported=1) "
			      "failures=2 recoveries=1 unusable-ms=2 tag-mismatches=2\n");
	hwoff_counters_format(tiny, sizeof(tiny), "cbc-aes-omap", &c);
	ck_assert_str_eq(tiny, "cbc-aes-omap re"); /* cut, still a string */
}
END_TEST

/* The provider's report: every path of a table, and why one is unusable. */
START_TEST(test_table_report)
{
	struct hwoff_table *t = hwoff_table_new();
	const struct hwoff_range_spec ranges[] = { { 0, "software" }, { 200, "cbc-aes-omap" } };
	const struct hwoff_alg *cbc = hwoff_alg_by_name("AES-128-CBC");
	struct hwoff_choice choice;
	char err[256], buf[1024] = "";

	ck_assert_int_eq(hwoff_table_set(t, cbc, HWOFF_ENCRYPT, HWOFF_THROUGHPUT, ranges, 2, err,
					 sizeof(err)),
			 0);
	choice = hwoff_decide(t, cbc, HWOFF_ENCRYPT, 4096, HWOFF_THROUGHPUT);
	hwoff_count_requests(&choice.path->counters, 1, 4096);
	hwoff_path_mark_unusable(choice.path, "bind: No such file or directory");
	choice = hwoff_decide(t, cbc, HWOFF_ENCRYPT, 4096, HWOFF_THROUGHPUT);
	hwoff_count_fallback(&choice.unusable->counters, HWOFF_FALLBACK_PATH_UNUSABLE);
	hwoff_count_requests(&choice.path->counters, 1, 4096);

	hwoff_table_format_stats(t, buf, sizeof(buf));
	ck_assert_str_eq(
		buf,
		"software requests=1 bytes=4096 errors=0 refused=0 fallbacks=0 (path-unusable=0 "
		"setup-failed=0 request-failed=0 unsupported=0) failures=0 recoveries=0 "
		"unusable-ms=0 tag-mismatches=0\n"
		"cbc-aes-omap requests=1 bytes=4096 errors=0 refused=0 fallbacks=1 "
		"(path-unusable=1 setup-failed=0 request-failed=0 unsupported=0) failures=0 "
		"recoveries=0 unusable-ms=0 tag-mismatches=0\n"
		"cbc-aes-omap unusable: bind: No such file or directory\n");
	hwoff_table_free(t);
}
END_TEST

/*
 * A DMA timeout, then requests during the path's back-off: one error, and each later request
 * counted where it went: refused (fallback off) or a path-unusable fallback (on).
 */
START_TEST(test_backoff_counted)
{
	const struct hwoff_range_spec ranges[] = { { 0, "cbc-aes-hwoffload-dma" } };
	const struct hwoff_alg *cbc = hwoff_alg_by_name("AES-128-CBC");
	struct hwoff_table *t = hwoff_table_new();
	struct hwoff_path *dma, *refused = NULL;
	struct hwoff_router r;
	struct hwoff_counts n;
	char err[256];

	ck_assert_int_eq(hwoff_table_set(t, cbc, HWOFF_ENCRYPT, HWOFF_THROUGHPUT, ranges, 1, err,
					 sizeof(err)),
			 0);
	hwoff_router_init(&r, t, HWOFF_THROUGHPUT, _i, 10000);
	dma = hwoff_route(&r, cbc, HWOFF_ENCRYPT, 4096, NULL, &refused);
	ck_assert(!dma->software);
	ck_assert_int_eq(hwoff_route_failed(&r, dma, HWOFF_FALLBACK_REQUEST_FAILED, true,
					    "recvmsg: Connection timed out"),
			 _i);
	for (int i = 0; i < 8; i++)
		ck_assert_ptr_eq(hwoff_route(&r, cbc, HWOFF_ENCRYPT, 4096, NULL, &refused),
				 _i ? hwoff_router_software(&r) : NULL);
	hwoff_counters_read(&dma->counters, &n);
	ck_assert_uint_eq(n.errors, 1);
	ck_assert_uint_eq(n.refused, (uint64_t)(_i ? 0 : 8));
	ck_assert_uint_eq(n.fallbacks[HWOFF_FALLBACK_PATH_UNUSABLE], (uint64_t)(_i ? 8 : 0));
	ck_assert_uint_eq(n.fallbacks[HWOFF_FALLBACK_REQUEST_FAILED], (uint64_t)(_i ? 1 : 0));
	hwoff_router_fini(&r);
}
END_TEST

Suite *backend_stats_suite(void)
{
	Suite *s = suite_create("backend_stats");
	TCase *tc = tcase_create("counters");

	tcase_add_test(tc, test_threads);
	tcase_add_test(tc, test_format);
	tcase_add_test(tc, test_table_report);
	tcase_add_loop_test(tc, test_backoff_counted, 0, 2);
	suite_add_tcase(s, tc);
	return s;
}
