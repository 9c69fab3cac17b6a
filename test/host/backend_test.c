// SPDX-License-Identifier: Apache-2.0
/*
 * backend_test.c - runs the backend's Check suites: algs, discover, probe, table, stats.
 */
#include <stdio.h>
#include <stdlib.h>

#include "test/host/backend_test.h"

void test_data_path(char *buf, size_t size, const char *name)
{
	const char *top = getenv("top_srcdir");

	snprintf(buf, size, "%s/test/data/%s", top && *top ? top : ".", name);
}

int main(void)
{
	SRunner *runner = srunner_create(backend_algs_suite());
	int failed;

	srunner_add_suite(runner, backend_discover_suite());
	srunner_add_suite(runner, backend_probe_suite());
	srunner_add_suite(runner, backend_table_suite());
	srunner_add_suite(runner, backend_stats_suite());
	srunner_run_all(runner, CK_NORMAL);
	failed = srunner_ntests_failed(runner);
	srunner_free(runner);
	return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}
