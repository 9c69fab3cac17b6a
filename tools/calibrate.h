/* SPDX-License-Identifier: Apache-2.0 */
/*
 * calibrate.h - the calibration's core: measure every path of every algorithm, key size and
 * direction over request sizes, and derive the path table's size ranges from the medians.
 *
 * hwoffload-calibrate (calibrate.c) is options and output files around it; the guest suite calls
 * it on a small grid and checks its decisions against its own measurements, and the host unit
 * test feeds the derivation synthetic curves. Split by what each part does: calibrate-derive.c
 * (pure arithmetic on medians), calibrate-measure.c (what to measure), calibrate-sample.c (when
 * a size is measured enough), calibrate-verify.c (the learnt table checked against each path)
 * and calibrate-worker.c (a path's worker process: the requests, through the provider, and
 * clocks); calibrate-measure.h is what the measurement's three files share.
 */
#ifndef HWOFF_TOOLS_CALIBRATE_H
#define HWOFF_TOOLS_CALIBRATE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "backend/algs.h"
#include "backend/discover.h"
#include "backend/table.h"
#include "backend/transport.h"

#define CAL_PATHS_MAX  8 /* software and the kernel candidates of one algorithm */
#define CAL_POINTS_MAX 64 /* measured sizes per (algorithm, direction) */
#define CAL_SIZE_MAX   (16UL << 20) /* the largest request size --sizes takes */
/*
 * Range starts and bisection midpoints are multiples of this: ECB and CBC take whole 16-byte
 * blocks, and a finer cut-off than a block would be noise anyway.
 */
#define CAL_STEP 16

/* One candidate path of an algorithm. */
struct cal_path {
	char name[HWOFF_NAME_MAX]; /* HWOFF_SOFTWARE or the kernel driver */
	char module[HWOFF_MODULE_NAME_MAX]; /* the kernel driver's ("kernel" when built in) */
	bool software;
	/* the learnt table's entry itself (its verification), not a path it may choose */
	bool table;
	/*
	 * The kernel's software for a kernel user: the implementation the bundled engine's auto
	 * driver hands the sizes up to its software threshold, measured for that threshold
	 * (cal_software_threshold()), not a path of the table (class HWOFF_IMPL_CPU)
	 */
	bool kernel_software;
	enum hwoff_impl_class class; /* of the kernel driver; unused for software */
	bool failed; /* failed its check or a request: no longer a candidate */
	char failure[HWOFF_NAME_MAX + 256];
	/*
	 * A kernel path serves only sizes up to verified: the largest its output was checked
	 * right at (against software, in time) before it was measured there. limited: a check
	 * above verified failed or hung, and the path is not measured above it either.
	 */
	size_t verified;
	bool limited;
	/*
	 * Checked right at a size no smaller than the most the kernel gets in one request (see
	 * kernel_request_max()): larger sizes reach the driver as requests of sizes checked, so
	 * the path may serve every size.
	 */
	bool serves_all;
};

/*
 * The medians of the repeats at one size, outliers left out (cal_median()); 0 bytes/s for a
 * path not measured there.
 */
struct cal_point {
	size_t size;
	double bytes_per_s[CAL_PATHS_MAX]; /* wall time */
	double cpu_ns_per_byte[CAL_PATHS_MAX]; /* the worker process's user + system time */
	/* How far the repeats spread: the interquartile range over the median (0: not known). */
	double bytes_per_s_spread[CAL_PATHS_MAX];
	double cpu_spread[CAL_PATHS_MAX];
	/* how many repeats each median is of, after outliers (0: one figure, no spread known) */
	unsigned int repeats[CAL_PATHS_MAX];
};

/* A range of the path table before the path is named: sizes from start go to paths[path]. */
struct cal_range {
	size_t start;
	unsigned int path;
};

/* The ranges of one objective. */
struct cal_ranges {
	unsigned int count;
	struct cal_range r[HWOFF_RANGES_MAX];
	/* ranges the derivation dropped, those with the fewest points, to fit the table's limit */
	unsigned int cut;
};

/* One (algorithm, direction): its paths, what was measured and what was derived. */
struct cal_subject {
	const struct hwoff_alg *alg;
	enum hwoff_direction direction;
	unsigned int path_count;
	struct cal_path paths[CAL_PATHS_MAX]; /* paths[0] is software */
	size_t point_count;
	struct cal_point points[CAL_POINTS_MAX]; /* by increasing size */
	struct cal_ranges ranges[HWOFF_OBJECTIVE_COUNT];
};

/* Paths as a bit set (bit i = paths[i]): which of them a derivation may choose. */
typedef unsigned int cal_mask;

/* ---- derivation (calibrate-derive.c) ---------------------------------------------------- */

/*
 * The median of v[0..n) (n > 0; sorts v), outliers left out: with 4 figures or more, those
 * beyond Tukey's fences (more than 1.5 interquartile ranges below the first quartile or above
 * the third: a sample that a moment of a busy machine slowed, or a timer that fired in it).
 * spread (may be NULL) gets the interquartile range of the rest over their median: how far
 * repeats of one figure disagree; kept (may be NULL) how many are left.
 */
double cal_median(double *v, size_t n, double *spread, unsigned int *kept);

/* The objective's figures at pt: bytes/s (more is better) or CPU ns per byte (less is). */
const double *cal_metric(const struct cal_point *pt, enum hwoff_objective objective);

/* The path of mask measured at pt that is best by the objective's metric alone; -1 if none. */
int cal_best(const struct cal_point *pt, cal_mask mask, enum hwoff_objective objective);

enum cal_verdict {
	CAL_CLEAR, /* one leads by more than the noise (and more than the tie) */
	CAL_EQUAL, /* their medians are within the tie of each other */
	CAL_UNCLEAR, /* more than the tie apart, but within the noise: more repeats would tell */
};

/*
 * How paths a and b compare at pt by the objective's metric; margin (may be NULL) gets how far
 * a leads b, as a fraction of the better figure (negative when b leads). The noise is two
 * standard errors of the difference of the medians, each 0.929 x spread / sqrt(repeats) (the
 * standard error of a median, sigma taken from the interquartile range).
 */
enum cal_verdict cal_compare(const struct cal_point *pt, enum hwoff_objective objective,
			     unsigned int a, unsigned int b, double tie, double *margin);

/*
 * Whether path p at pt is as good as path best by the objective's metric: their medians within
 * tie (a fraction, 0.03 = 3 %) of each other (CAL_EQUAL), or p better.
 */
bool cal_tied(const struct cal_point *pt, enum hwoff_objective objective, unsigned int p,
	      unsigned int best, double tie);

/*
 * The winner at one point among the usable paths of mask: the best by the objective's metric
 * (throughput: most bytes/s; cpu: fewest CPU ns per byte); among those tied with it
 * (cal_tied()), the best by the other metric, so that of two paths equally fast the one that
 * costs less CPU serves (DMA's, seen: GCM at 16 KiB, where PIO stayed on and lost 6 %); previous
 * instead where it is tied by both metrics, so that noise does not flip the choice back and
 * forth between sizes. -1 when mask has no path measured here.
 */
int cal_winner(const struct cal_point *pt, cal_mask mask, enum hwoff_objective objective,
	       double tie, int previous);

/*
 * Ranges from the winners at points[0..count): a range starts at 0 with the first point's
 * winner, and where the winner changes between two points the new one starts at their geometric
 * mean (rounded down to CAL_STEP, above the smaller point). Adjacent equal ranges are merged;
 * past HWOFF_RANGES_MAX, the range holding the fewest points goes to its neighbour until they
 * fit. limits (NULL: none) gives per path the largest size it may serve (SIZE_MAX: any): no
 * range of a path reaches past it; where the winner stops at its limit, the sizes above start
 * at the limit + 1 with the best path of mask that may serve them at the last point. Returns
 * the number of ranges (0 when no path of mask was measured).
 */
unsigned int cal_derive(const struct cal_point *points, size_t count, cal_mask mask,
			const size_t *limits, enum hwoff_objective objective, double tie,
			struct cal_ranges *out);

/*
 * The largest size each path of s may serve: SIZE_MAX for software and a path that serves all,
 * else its verified size.
 */
void cal_limits(const struct cal_subject *s, size_t limits[CAL_PATHS_MAX]);

/*
 * What kernel driver was shown to do right over the subjects[0..count) it served (did not fail
 * in): the least of their proofs, each HWOFF_PROVEN_ALL where it serves all, else the largest
 * size it was checked right at (verified). 0 when it served none. For the table's 'proven' lines.
 */
size_t cal_proven(const struct cal_subject *subjects, size_t count, const char *driver);

/* The usable paths of s (software and kernel drivers that did not fail). */
cal_mask cal_usable(const struct cal_subject *s);

/* The usable PIO and DMA paths of the bundled engine in s: false when either is missing. */
bool cal_engine_paths(const struct cal_subject *s, int *pio, int *dma);

/*
 * The bundled engine's auto driver threshold for s: the largest size it should send by PIO
 * (the kernel sends len <= threshold by PIO), from the PIO/DMA throughput figures alone: the
 * split that loses the least throughput over the measured sizes, no more than the driver takes.
 * PIO best throughout is UINT_MAX, for GCM the FIFO's size (PIO carries no larger message); DMA
 * best throughout is 0. Returns false when s lacks a usable PIO or DMA driver.
 */
bool cal_engine_threshold(const struct cal_subject *s, unsigned int *threshold);

/* The path of s that is the auto driver's software tier (kernel_software), usable; -1 if none. */
int cal_software_tier(const struct cal_subject *s);

/*
 * The bundled engine's auto driver software threshold for s (sysfs software_MODE_DIRECTION, a
 * hash's software_HASH): the
 * largest size it should hand its software tier, from the throughput of that tier against the
 * better of PIO and DMA at each size, split as cal_engine_threshold() splits: 0 when the engine
 * is best throughout, UINT_MAX when the software tier is. Returns false when s lacks the tier or
 * a usable PIO or DMA driver.
 */
bool cal_software_threshold(const struct cal_subject *s, unsigned int *threshold);

/* ---- measurement (calibrate-measure.c, calibrate-sample.c, calibrate-verify.c) ----------- */

struct cal_config {
	const size_t *grid; /* the coarse sizes, increasing, multiples of CAL_STEP */
	size_t grid_count;
	/*
	 * Samples per path and size: at least repeats, and up to repeats_max while a choice at
	 * that size is unclear (cal_compare()); the median counts.
	 */
	unsigned int repeats, repeats_max;
	double sample_seconds; /* the time one sample aims at (at least one request) */
	double resolve_ratio; /* bisect a crossover until its sizes are within this ratio */
	double tie; /* see cal_winner() */
	const bool *algs; /* HWOFF_ALG_COUNT flags: which algorithms; NULL for all */
	const char *provider_dir; /* where hwoffload.so is; NULL: OpenSSL's modules directory */
	FILE *csv; /* every sample as a CSV row (header included); may be NULL */
	/*
	 * Called before each size is measured, with the CSV's phase (grid, limit, bisect, verify:
	 * the verification goes over the subjects again); may be NULL.
	 */
	void (*progress)(void *arg, size_t subject, size_t subject_count,
			 const struct cal_subject *s, size_t size, const char *phase);
	void *progress_arg;
};

/* What a calibration found and measured. */
struct cal_run {
	struct hwoff_discovery discovery;
	bool af_alg; /* AF_ALG usable; else software only */
	char af_alg_reason[512];
	size_t subject_count;
	struct cal_subject *subjects;
	/* Paths left out or dropped, one line each, for the user. */
	char notes[8192];
	/* Kernel paths limited below the largest size measured, one line each, and why. */
	char limits[4096];
	/*
	 * The verification pass: the learnt table against each path, one line per size; and where
	 * it found the table losing, the ranges derived again, a line each. As long as a full run
	 * makes them (allocated; cal_run_free() frees them).
	 */
	char *verification;
	char *fixes;
	unsigned int fix_count; /* algorithm and direction pairs derived again */
};

/* The CSV header cal_measure() writes first. */
#define CAL_CSV_HEADER                                                                             \
	"algorithm,key_bits,direction,path,size,repeat,requests,bytes,wall_ns,cpu_ns,bytes_per_s," \
	"cpu_ns_per_byte,phase,at_ms\n"

/* The most data of one GCM message the calibration measures on a kernel path: one request. */
size_t cal_gcm_data_max(void);

/*
 * Discover the paths and measure every algorithm (of cfg->algs), key size and direction: the
 * grid (and for GCM the most data one kernel request takes), then bisection of each crossover of
 * either objective (and of the PIO/DMA crossover), then the ranges of both objectives; once
 * every subject is, the verification of each subject's learnt entries (calibrate-verify.c).
 * Returns 0, or -1 with err filled (nothing could be measured); a kernel path that fails is
 * dropped with a note, not an error.
 */
int cal_measure(struct cal_run *run, const struct cal_config *cfg, char *err, size_t err_len);
void cal_run_free(struct cal_run *run);

/*
 * The path table of run's ranges for the objectives in objectives[] (HWOFF_OBJECTIVE_COUNT
 * flags), with this machine's fingerprint and the proof of each kernel driver measured, the
 * table's and the others (cal_proven()). An
 * entry the table refuses (more different paths than HWOFF_PATHS_MAX) stays in software: counted
 * in *left_out, a line in warnings (as is a proof it refuses). NULL when out of memory.
 */
struct hwoff_table *cal_table(const struct cal_run *run, const bool *objectives, char *warnings,
			      size_t warnings_len, size_t *left_out);

/* ---- a path's worker process (calibrate-worker.c) ------------------------------------------ */

/* What a worker serves. */
struct cal_worker_job {
	const struct cal_subject *s;
	/* the path whose requests it makes; NULL: table's, whatever path that names at a size */
	const struct cal_path *path;
	const struct hwoff_table *table; /* the provider's path table in the worker */
	enum hwoff_objective objective; /* the provider's */
	const char *provider_dir; /* as cal_config's */
	const unsigned char *in; /* the requests' data, as large as the largest size */
	unsigned char *out; /* room for a request's output, a GCM tag more */
};

enum cal_op {
	CAL_CHECK, /* the served path gives OpenSSL's output at a size, and takes the request */
	CAL_SAMPLE, /* back-to-back requests of a size: their wall time and the worker's CPU time */
};

struct cal_sample {
	double wall_ns, cpu_ns;
};

/* A worker's answer: first to its start, then to each command. */
struct cal_answer {
	int status; /* 0, or -1 with err */
	/* no answer in time, or the provider found the path stuck (its guard gave up) */
	bool stuck;
	struct cal_sample took; /* CAL_SAMPLE */
	/* to its start: the most bytes the served driver gets in one request (SIZE_MAX: any) */
	size_t request_max;
	char err[HWOFF_TRANSPORT_ERROR_MAX];
};

/* A worker process, as its parent sees it. */
struct cal_worker {
	pid_t pid; /* 0: none (not started, ended, or killed) */
	int fd; /* the parent's end of their socket */
	size_t request_max;
};

/*
 * Start a worker for job (fork; the child closes the sockets of the others[0..other_count)) and
 * wait up to seconds for it to load the provider and set up. Returns 0 (a->status says how it
 * went), or -ETIMEDOUT with why in a->err when no answer came in time or the path is stuck.
 */
int cal_worker_start(struct cal_worker *w, const struct cal_worker_job *job,
		     const struct cal_worker *others, size_t other_count, struct cal_answer *a,
		     double seconds);
/* Send w a command (requests: for CAL_SAMPLE) and wait for its answer: as cal_worker_start(). */
int cal_worker_ask(struct cal_worker *w, enum cal_op op, size_t size, unsigned long requests,
		   struct cal_answer *a, double seconds);
/*
 * End w: tell it to stop, or kill it at once (it stopped answering), and give it up to seconds
 * to exit. One still there is killed and left to the kernel: stuck in a request, it ends when
 * the request does, if ever. No wait here is without a limit.
 */
void cal_worker_end(struct cal_worker *w, bool kill_now, double seconds);
/* CLOCK_MONOTONIC in ns: the workers' sample clock, and when the run's samples were asked for. */
double cal_now_ns(void);

#endif
