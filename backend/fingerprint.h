/* SPDX-License-Identifier: Apache-2.0 */
/*
 * fingerprint.h - what a calibration depends on (kernel, CPU, the module of each driver), so
 * that a table learnt on another machine, kernel or module version is told apart.
 */
#ifndef HWOFF_BACKEND_FINGERPRINT_H
#define HWOFF_BACKEND_FINGERPRINT_H

#include <stddef.h>

#include "backend/discover.h"

/* Distinct paths per table, software included (19 for our engine); a fingerprint records the
 * driver of each. */
#define HWOFF_PATHS_MAX 32

struct hwoff_table;

struct hwoff_fingerprint_driver {
	char driver[HWOFF_NAME_MAX];
	char module[HWOFF_MODULE_NAME_MAX]; /* "kernel" when built in */
	char version[64]; /* /sys/module/MODULE/version or srcversion, or "-" */
};

/* What a calibration depends on; empty strings are "not recorded". */
struct hwoff_fingerprint {
	char kernel[65]; /* uname -r */
	char cpu[128]; /* /proc/cpuinfo model name, blanks collapsed */
	size_t driver_count;
	struct hwoff_fingerprint_driver drivers[HWOFF_PATHS_MAX];
};

/* This machine's fingerprint for t: kernel, CPU, and the module of each driver t names. */
void hwoff_fingerprint_machine(struct hwoff_fingerprint *fp, const struct hwoff_table *t,
			       const struct hwoff_discovery *d);

/*
 * Compare the table's fingerprint with the machine's: appends one warning line per difference
 * (or per missing record) to warnings and returns their number; 0 is a match.
 */
size_t hwoff_fingerprint_compare(const struct hwoff_fingerprint *table_fp,
				 const struct hwoff_fingerprint *machine_fp, char *warnings,
				 size_t warnings_len);

#endif
