/* SPDX-License-Identifier: Apache-2.0 */
/*
 * backend_test.h - the Check suites of the backend (backend/), run by backend_test.c.
 */
#ifndef HWOFF_BACKEND_TEST_H
#define HWOFF_BACKEND_TEST_H

#include <check.h>
#include <stddef.h>

Suite *backend_algs_suite(void);
Suite *backend_discover_suite(void);
Suite *backend_probe_suite(void);
Suite *backend_table_suite(void);
Suite *backend_stats_suite(void);

/*
 * The path of name under test/data: $top_srcdir/test/data/name when make check sets top_srcdir,
 * else relative to the current directory (the top of the source tree).
 */
void test_data_path(char *buf, size_t size, const char *name);

#endif
