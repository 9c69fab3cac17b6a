/* SPDX-License-Identifier: Apache-2.0 */
/*
 * calibrate-measure.h - one subject's measurement, as the calibration core's files share it:
 * calibrate-measure.c (the subjects, their paths and workers, the grid and the bisection),
 * calibrate-sample.c (the samples and repeats at one size) and calibrate-verify.c (the
 * verification pass of the learnt ranges, and the table). Not for use outside them.
 */
#ifndef HWOFF_TOOLS_CALIBRATE_MEASURE_H
#define HWOFF_TOOLS_CALIBRATE_MEASURE_H

#include <stdbool.h>
#include <stddef.h>

#include "tools/calibrate.h"

/*
 * How long a worker has to answer a command: CAL_ANSWER_SECONDS, and CAL_SECONDS_PER_MIB more for
 * every MiB the command moves (a check: the default provider's pass and the path's; a sample: its
 * requests). Our engine in a TCG guest moves 7 MB/s at its slowest (HMAC, 4 KiB by PIO) and takes
 * 10-20 times as long a request when other guests load the host: a sample (sized to take
 * --seconds) or a check of up to 16 MiB answers well within that even then.
 */
#define CAL_ANSWER_SECONDS  30
#define CAL_SECONDS_PER_MIB 2
#define CAL_STOP_SECONDS    5 /* for a worker told to stop to exit */
#define CAL_KILLED_SECONDS  1 /* for a killed one: one stuck in the kernel is left there */
#define CAL_REPEATS_MAX	    64

/* What one subject's measurement needs. */
struct cal_measurement {
	const struct cal_config *cfg;
	struct cal_run *run;
	struct cal_subject *s;
	size_t index; /* of s in run->subjects, for progress */
	struct cal_worker workers[CAL_PATHS_MAX]; /* by path */
	unsigned char *in, *out;
	size_t buf_len;
	/* The devices (device_of()) that stopped answering: left out for the rest of the run. */
	size_t wedged_count;
	char wedged[HWOFF_IMPLS_MAX][HWOFF_MODULE_NAME_MAX];
	/* Writing run->verification and run->fixes (memory streams, closed when the run ends). */
	FILE *verification, *fixes;
	double started_ns; /* cal_now_ns() at the run's start: the CSV's at_ms counts from it */
};

/* calibrate-measure.c */
double cal_answer_seconds(double bytes);
void cal_fail_path(struct cal_measurement *m, unsigned int p, const char *why);
void cal_wedged(struct cal_measurement *m, unsigned int p, size_t size, const char *reason);
bool cal_measurable(const struct cal_measurement *m, unsigned int p, size_t size);
bool cal_verify_path(struct cal_measurement *m, unsigned int p, size_t size);
void cal_start_path(struct cal_measurement *m, unsigned int p, enum hwoff_objective objective);
void cal_derive_ranges(struct cal_measurement *m, enum hwoff_objective o);

/* calibrate-sample.c */
/* Path p has no figures at pt (not measured there, or they are no longer trusted). */
void cal_point_forget(struct cal_point *pt, unsigned int p);
struct cal_point *cal_measure_size(struct cal_measurement *m, size_t size, const char *phase,
				   struct cal_point *visit);

/* calibrate-verify.c */
void cal_verify_subject(struct cal_measurement *m);

#endif
