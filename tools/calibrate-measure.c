// SPDX-License-Identifier: Apache-2.0
/*
 * calibrate-measure.c - what to measure, and when it is enough: the paths of each algorithm and
 * their speed over request sizes, the crossovers, and the verification of the learnt table.
 *
 * Every path is measured through the provider by a worker process of its own
 * (calibrate-worker.c), with the calls, buffering and request splitting an application's
 * requests get. A sample is a run of back-to-back requests long enough for the clocks (wall:
 * CLOCK_MONOTONIC; CPU: the worker's user + system time). At each size every path first warms
 * up (which also sizes its samples), then the repeats go round-robin over the paths, starting
 * one path later each time, so that a machine that drifts or is busy for a moment spreads over
 * all paths. After cfg->repeats rounds the medians (outliers left out: cal_median()) decide,
 * unless the best path and another are apart by more than the tie but within the noise
 * (cal_compare()): then more rounds, up to cfg->repeats_max.
 *
 * A worker that does not answer in time is abandoned: a request stuck in the kernel,
 * uninterruptibly, so that no signal ends it (QEMU's virtio-crypto was seen stuck in
 * skcipher_recvmsg from 128 KiB on, and afterwards every setkey on that device waited for
 * ever), stays with the worker, which is killed and left to the kernel; every driver of that
 * device (its module) is dropped for the rest of the run, keeping the sizes it was measured at
 * below, and the calibration goes on. The provider reaches another vendor's engine through its
 * guard (backend/guard.h), whose limit is shorter than the worker's: what the guard finds stuck
 * counts as no answer, with the guard's reason.
 *
 * Before a path is measured at a size its worker checks its output there against the default
 * provider's, and that the path took the request: a driver that is wrong there serves only up
 * to the largest size it was measured at below, and the derivation keeps its ranges below that.
 *
 * Once a subject's ranges are derived, the learnt entry itself (the provider with that table)
 * is measured beside every path at sizes on both sides of each crossover; where it loses to a
 * path by more than the noise, the ranges are derived again with those figures, and the run
 * says so.
 */
#include <errno.h>
#include <math.h>
#include <openssl/rand.h>
#include <stdlib.h>
#include <string.h>

#include "backend/fingerprint.h"
#include "backend/probe.h"
#include "backend/text.h"
#include "tools/calibrate.h"

/*
 * How long a worker has to answer a command: ANSWER_SECONDS, and SECONDS_PER_MIB more for every
 * MiB the command moves (a check: the default provider's pass and the path's; a sample: its
 * requests). Our engine in a TCG guest moves 7 MB/s at its slowest (HMAC, 4 KiB by PIO) and takes
 * 10-20 times as long a request when other guests load the host: a sample (sized to take
 * --seconds) or a check of up to 16 MiB answers well within that even then.
 */
#define ANSWER_SECONDS	30
#define SECONDS_PER_MIB 2
#define STOP_SECONDS	5 /* for a worker told to stop to exit */
#define KILLED_SECONDS	1 /* for a killed one: one stuck in the kernel is left there */
#define REPEATS_MAX	64

/* What one subject's measurement needs. */
struct measure {
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
};

/* The time limit of a command that moves bytes (see ANSWER_SECONDS). */
static double answer_seconds(double bytes)
{
	return ANSWER_SECONDS + SECONDS_PER_MIB * bytes / (1 << 20);
}

/* What a driver's device is known by: its module, or for a built-in driver the driver itself. */
static const char *device_of(const struct cal_path *path)
{
	return path->module[0] && strcmp(path->module, "kernel") ? path->module : path->name;
}

static void fail_path(struct measure *m, unsigned int p, const char *why)
{
	struct cal_path *path = &m->s->paths[p];

	path->failed = true;
	snprintf(path->failure, sizeof(path->failure), "%s", why);
	cal_worker_end(&m->workers[p], false, STOP_SECONDS);
	hwoff_appendf(m->run->notes, sizeof(m->run->notes), "dropped %s for %s %s: %s\n",
		      path->name, m->s->alg->name, hwoff_direction_name(m->s->direction), why);
}

/*
 * Path p failed at size: it serves only up to the largest size below that it was measured at,
 * and its figures above that are forgotten; one measured at no smaller size is dropped.
 */
static void limit_below(struct measure *m, unsigned int p, size_t size, const char *why)
{
	struct cal_subject *s = m->s;
	struct cal_path *path = &s->paths[p];
	size_t below = 0;

	for (size_t i = 0; i < s->point_count; i++)
		if (s->points[i].size < size && s->points[i].bytes_per_s[p] > 0)
			below = s->points[i].size;
	if (!below) {
		fail_path(m, p, why);
		return;
	}
	for (size_t i = 0; i < s->point_count; i++) {
		struct cal_point *pt = &s->points[i];

		if (pt->size > below)
			pt->bytes_per_s[p] = pt->cpu_ns_per_byte[p] = pt->bytes_per_s_spread[p] =
				pt->cpu_spread[p] = 0;
	}
	path->verified = below;
	path->limited = true;
	path->serves_all = false;
	hwoff_appendf(m->run->limits, sizeof(m->run->limits),
		      "%s serves %s %s up to %zu bytes only: %s\n", path->name, s->alg->name,
		      hwoff_direction_name(s->direction), below, why);
}

/*
 * Kernel path p did not answer at size (0: while setting up), for reason (worker_answer()): its
 * worker is killed, its device is taken as wedged, and every driver of it keeps the sizes below
 * it was measured at in this subject (limit_below()) and is left out of the later ones
 * (add_paths()).
 */
static void wedged(struct measure *m, unsigned int p, size_t size, const char *reason)
{
	struct cal_subject *s = m->s;
	char why[HWOFF_TRANSPORT_ERROR_MAX + 64];
	const char *device = device_of(&s->paths[p]);

	cal_worker_end(&m->workers[p], true, KILLED_SECONDS);
	if (size)
		snprintf(why, sizeof(why), "at %zu bytes: %s", size, reason);
	else
		snprintf(why, sizeof(why), "binding and setting a key: %s", reason);
	hwoff_appendf(m->run->notes, sizeof(m->run->notes),
		      "%s stopped answering (%s %s): %s; killed and left to the kernel; the device "
		      "may stay wedged until reboot: the drivers of %s are dropped from here on\n",
		      s->paths[p].name, s->alg->name, hwoff_direction_name(s->direction), why,
		      device);
	if (m->wedged_count < HWOFF_IMPLS_MAX)
		snprintf(m->wedged[m->wedged_count++], sizeof(m->wedged[0]), "%s", device);
	for (unsigned int q = 1; q < s->path_count; q++) {
		if (s->paths[q].failed || strcmp(device_of(&s->paths[q]), device) != 0)
			continue;
		cal_worker_end(&m->workers[q], true, KILLED_SECONDS);
		limit_below(m, q, size, q == p ? why : "its device stopped answering");
	}
}

static bool is_wedged(const struct measure *m, const struct cal_path *path)
{
	for (size_t i = 0; i < m->wedged_count; i++)
		if (strcmp(m->wedged[i], device_of(path)) == 0)
			return true;
	return false;
}

/* Whether path p may be measured at size: not failed, not limited below it, its worker there. */
static bool measurable(const struct measure *m, unsigned int p, size_t size)
{
	const struct cal_path *path = &m->s->paths[p];

	return !path->failed && !(path->limited && size > path->verified) && m->workers[p].pid;
}

/*
 * Check path p at size before it is measured there, by its worker (CAL_CHECK). A path that fails
 * its first check is dropped; one that fails later serves only up to the largest size it was
 * measured at below (limit_below()); one that does not answer wedged() its device. Returns
 * whether p may be measured at size.
 */
static bool verify(struct measure *m, unsigned int p, size_t size)
{
	struct cal_path *path = &m->s->paths[p];
	double seconds =
		answer_seconds(2.0 * size); /* the default provider's pass and the path's */
	struct cal_answer a;

	if (cal_worker_ask(&m->workers[p], CAL_CHECK, size, 0, &a, seconds)) {
		wedged(m, p, size, a.err);
		return false;
	}
	if (a.status) {
		limit_below(m, p, size, a.err);
		return false;
	}
	if (size > path->verified)
		path->verified = size;
	if (!path->limited && size >= m->workers[p].request_max)
		path->serves_all = true;
	return true;
}

/*
 * requests back-to-back requests of size bytes on path p, by its worker. Returns 0, or -1: the
 * path failed (dropped) or stopped answering (wedged()).
 */
static int run_sample(struct measure *m, unsigned int p, size_t size, unsigned long requests,
		      struct cal_sample *out)
{
	double seconds = answer_seconds((double)requests * size);
	struct cal_answer a;

	if (cal_worker_ask(&m->workers[p], CAL_SAMPLE, size, requests, &a, seconds)) {
		wedged(m, p, size, a.err);
		return -1;
	}
	if (a.status) {
		fail_path(m, p, a.err);
		return -1;
	}
	*out = a.took;
	return 0;
}

/*
 * Warm up path p at size (caches, page faults, the engine's first requests) by runs of 1, 2,
 * 4 ... requests until half a sample's time went by, and return how many requests make a
 * sample: 0 when the path failed.
 */
static unsigned long warm_up(struct measure *m, unsigned int p, size_t size)
{
	double target = m->cfg->sample_seconds * 1e9, spent = 0;
	unsigned long done = 0, batch = 1;
	struct cal_sample w;

	while (spent < target / 2) {
		if (run_sample(m, p, size, batch, &w))
			return 0;
		spent += w.wall_ns;
		done += batch;
		batch *= 2;
	}
	return (unsigned long)fmax(1, round(target * done / spent));
}

static void csv_row(struct measure *m, unsigned int p, size_t size, unsigned int repeat,
		    unsigned long requests, const struct cal_sample *x, const char *phase)
{
	const struct cal_subject *s = m->s;
	double bytes = (double)requests * size;

	if (!m->cfg->csv)
		return;
	fprintf(m->cfg->csv, "%s,%u,%s,%s,%zu,%u,%lu,%.0f,%.0f,%.0f,%.1f,%.4f,%s\n", s->alg->name,
		s->alg->key_bytes * 8, hwoff_direction_name(s->direction), s->paths[p].name, size,
		repeat, requests, bytes, x->wall_ns, x->cpu_ns, bytes * 1e9 / x->wall_ns,
		x->cpu_ns / bytes, phase);
}

/*
 * The point for size: an empty one inserted in order, or the one there (measured again: the new
 * figures replace its). NULL when the subject is full.
 */
static struct cal_point *new_point(struct cal_subject *s, size_t size)
{
	size_t i = 0;

	while (i < s->point_count && s->points[i].size < size)
		i++;
	if (i < s->point_count && s->points[i].size == size)
		return &s->points[i];
	if (s->point_count == CAL_POINTS_MAX)
		return NULL;
	memmove(&s->points[i + 1], &s->points[i], (s->point_count - i) * sizeof(s->points[0]));
	s->point_count++;
	memset(&s->points[i], 0, sizeof(s->points[i]));
	s->points[i].size = size;
	return &s->points[i];
}

/* The medians of the samples so far (rate, cpu: n[p] of path p's) as a point at size. */
static void medians(struct cal_point *pt, size_t size, const unsigned int *order,
		    unsigned int count, double rate[][REPEATS_MAX], double cpu[][REPEATS_MAX],
		    const unsigned int *n)
{
	memset(pt, 0, sizeof(*pt));
	pt->size = size;
	for (unsigned int k = 0; k < count; k++) {
		unsigned int p = order[k];
		double v[REPEATS_MAX];
		unsigned int kept;

		if (!n[p])
			continue;
		memcpy(v, rate[p], n[p] * sizeof(v[0]));
		pt->bytes_per_s[p] = cal_median(v, n[p], &pt->bytes_per_s_spread[p], &kept);
		pt->repeats[p] = kept;
		memcpy(v, cpu[p], n[p] * sizeof(v[0]));
		pt->cpu_ns_per_byte[p] = cal_median(v, n[p], &pt->cpu_spread[p], &kept);
		if (kept < pt->repeats[p])
			pt->repeats[p] = kept;
	}
}

/*
 * Whether pt tells, for each objective, the best of the paths the table may choose from every
 * other path measured (the learnt entry's too, in its verification): each either clearly behind
 * it or equal to it (cal_compare()).
 */
static bool clear_at(const struct cal_subject *s, const struct cal_point *pt, double tie)
{
	for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++) {
		int best = cal_best(pt, cal_usable(s), o);

		for (unsigned int p = 0; best >= 0 && p < CAL_PATHS_MAX; p++)
			if (pt->bytes_per_s[p] > 0 && p != (unsigned int)best &&
			    cal_compare(pt, o, (unsigned int)best, p, tie, NULL) == CAL_UNCLEAR)
				return false;
	}
	return true;
}

/*
 * Every usable path at size, interleaved, cfg->repeats rounds and more while the choice is
 * unclear (up to cfg->repeats_max); the medians become a point. Returns it (NULL when the
 * subject has no room).
 */
static struct cal_point *measure_size(struct measure *m, size_t size, const char *phase)
{
	struct cal_subject *s = m->s;
	unsigned int order[CAL_PATHS_MAX], count = 0, n[CAL_PATHS_MAX] = { 0 };
	unsigned long requests[CAL_PATHS_MAX];
	double rate[CAL_PATHS_MAX][REPEATS_MAX], cpu[CAL_PATHS_MAX][REPEATS_MAX];
	struct cal_point now, *pt;

	if (m->cfg->progress)
		m->cfg->progress(m->cfg->progress_arg, m->index, m->run->subject_count, s, size);
	for (unsigned int p = 0; p < s->path_count; p++) {
		if (!measurable(m, p, size) || !verify(m, p, size))
			continue;
		requests[p] = warm_up(m, p, size);
		if (requests[p])
			order[count++] = p;
	}
	for (unsigned int r = 0; r < m->cfg->repeats_max; r++) {
		for (unsigned int k = 0; k < count; k++) {
			unsigned int p = order[(k + r) % count];
			double bytes = (double)requests[p] * size;
			struct cal_sample x;

			if (!measurable(m, p, size) || run_sample(m, p, size, requests[p], &x))
				continue;
			rate[p][n[p]] = bytes * 1e9 / x.wall_ns;
			cpu[p][n[p]++] = x.cpu_ns / bytes;
			csv_row(m, p, size, r, requests[p], &x, phase);
		}
		if (r + 1 < m->cfg->repeats)
			continue;
		medians(&now, size, order, count, rate, cpu, n);
		if (clear_at(s, &now, m->cfg->tie))
			break;
	}
	for (unsigned int k = 0; k < count; k++)
		if (!measurable(m, order[k], size))
			n[order[k]] = 0;
	medians(&now, size, order, count, rate, cpu, n);
	pt = new_point(s, size);
	if (pt)
		*pt = now;
	return pt;
}

/* A derivation the bisection refines: an objective over some paths. */
struct view {
	cal_mask mask;
	enum hwoff_objective objective;
};

/*
 * The sizes of the views' crossovers are known to within cfg->resolve_ratio: find two adjacent
 * points with different winners further apart and measure between them, until none is left.
 */
static void bisect(struct measure *m, const struct view *views, unsigned int view_count)
{
	struct cal_subject *s = m->s;
	bool found = true;

	while (found && s->point_count < CAL_POINTS_MAX) {
		found = false;
		for (unsigned int v = 0; v < view_count && !found; v++) {
			int previous = -1;

			for (size_t i = 0; i < s->point_count && !found; i++) {
				int w = cal_winner(&s->points[i], views[v].mask & cal_usable(s),
						   views[v].objective, m->cfg->tie, previous);
				size_t lo = i ? s->points[i - 1].size : 0, hi = s->points[i].size;
				size_t mid = (size_t)sqrt((double)lo * hi);

				mid -= mid % CAL_STEP;
				if (i && w != previous && w >= 0 && previous >= 0 &&
				    hi > lo * m->cfg->resolve_ratio && mid > lo && mid < hi) {
					measure_size(m, mid, "bisect");
					found = true;
				}
				previous = w;
			}
		}
	}
}

/*
 * The most data one GCM message of the kernel's takes (in steps of the grid): the grid is
 * measured there too, so that a kernel path's ranges reach up to its limit, not to the grid's
 * size below it. SIZE_MAX for the other algorithms, whose requests go in pieces.
 */
static size_t message_max(const struct cal_subject *s)
{
	size_t max = cal_gcm_data_max();

	return hwoff_alg_is_aead(s->alg) ? max - max % CAL_STEP : SIZE_MAX;
}

/*
 * The path table of path p's worker: every size of the subject to that path, for both
 * objectives; for the learnt entry's verification (a table path) the subject's ranges. Each
 * kernel driver named is proven for every size: the calibration checks each size on it before
 * it sends it there. With this machine's fingerprint, so that the provider has nothing to warn
 * of. NULL when out of memory or refused (why in err).
 */
static struct hwoff_table *worker_table(const struct measure *m, unsigned int p, char *err,
					size_t err_len)
{
	const struct cal_subject *s = m->s;
	struct hwoff_table *t = hwoff_table_new();

	for (int o = 0; t && o < HWOFF_OBJECTIVE_COUNT; o++) {
		struct hwoff_range_spec specs[HWOFF_RANGES_MAX] = { { .path = s->paths[p].name } };
		unsigned int count = 1;

		if (s->paths[p].table) {
			count = s->ranges[o].count;
			for (unsigned int k = 0; k < count; k++)
				specs[k] = (struct hwoff_range_spec){
					.start = s->ranges[o].r[k].start,
					.path = s->paths[s->ranges[o].r[k].path].name
				};
		}
		if (count &&
		    hwoff_table_set(t, s->alg, s->direction, o, specs, count, err, err_len)) {
			hwoff_table_free(t);
			return NULL;
		}
	}
	for (unsigned int q = 0; t && q < s->path_count; q++) {
		const char *driver = s->paths[q].name;

		if (s->paths[q].software || s->paths[q].table || (q != p && !s->paths[p].table) ||
		    hwoff_table_proven(t, driver))
			continue;
		if (hwoff_table_set_proven(t, driver, HWOFF_PROVEN_ALL, err, err_len)) {
			hwoff_table_free(t);
			return NULL;
		}
	}
	if (t)
		hwoff_fingerprint_machine(&t->fingerprint, t, &m->run->discovery);
	else
		snprintf(err, err_len, "out of memory");
	return t;
}

/*
 * Start path p's worker, its provider routing by objective: a path that cannot be set up is
 * dropped, one that hangs wedged().
 */
static void start_path(struct measure *m, unsigned int p, enum hwoff_objective objective)
{
	struct cal_path *path = &m->s->paths[p];
	struct cal_answer a = { .status = -1 };
	struct cal_worker_job job = {
		.s = m->s,
		.path = path->table ? NULL : path,
		.table = worker_table(m, p, a.err, sizeof(a.err)),
		.objective = objective,
		.provider_dir = m->cfg->provider_dir,
		.in = m->in,
		.out = m->out,
	};

	if (job.table &&
	    cal_worker_start(&m->workers[p], &job, m->workers, CAL_PATHS_MAX, &a, ANSWER_SECONDS))
		wedged(m, p, 0, a.err);
	else if (a.status)
		fail_path(m, p, a.err);
	hwoff_table_free((struct hwoff_table *)job.table);
}

/* The ranges of objective o from every point measured so far. */
static void derive(struct measure *m, enum hwoff_objective o)
{
	size_t limits[CAL_PATHS_MAX];

	cal_limits(m->s, limits);
	cal_derive(m->s->points, m->s->point_count, cal_usable(m->s), limits, o, m->cfg->tie,
		   &m->s->ranges[o]);
}

/* The ranges as a table entry's text: "0:software 5792:cbc-aes-hwoffload-pio ...". */
static void ranges_text(const struct cal_subject *s, const struct cal_ranges *r, char *buf,
			size_t len)
{
	buf[0] = '\0';
	for (unsigned int k = 0; k < r->count; k++)
		hwoff_appendf(buf, len, "%s%zu:%s", k ? " " : "", r->r[k].start,
			      s->paths[r->r[k].path].name);
}

/* The path the ranges send size to. */
static unsigned int path_at(const struct cal_ranges *r, size_t size)
{
	unsigned int k = 0;

	while (k + 1 < r->count && r->r[k + 1].start <= size)
		k++;
	return r->r[k].path;
}

/*
 * The sizes the verification measures: at each crossover of r, half and 1/sqrt(2) of its start
 * below it, sqrt(2) and twice it above (on the CAL_STEP grid, within the grid's sizes). Returns
 * how many, in increasing order.
 */
static size_t verification_sizes(const struct measure *m, const struct cal_ranges *r, size_t *sizes)
{
	static const double around[] = { 0.5, M_SQRT1_2, M_SQRT2, 2 };
	size_t count = 0, largest = m->cfg->grid[m->cfg->grid_count - 1];

	for (unsigned int k = 1; k < r->count; k++) {
		for (size_t i = 0; i < sizeof(around) / sizeof(around[0]); i++) {
			size_t size = (size_t)(r->r[k].start * around[i]), at = 0;

			size -= size % CAL_STEP;
			if (size < CAL_STEP || size > largest)
				continue;
			while (at < count && sizes[at] < size)
				at++;
			if (at < count && sizes[at] == size)
				continue;
			memmove(&sizes[at + 1], &sizes[at], (count - at) * sizeof(sizes[0]));
			sizes[at] = size;
			count++;
		}
	}
	return count;
}

/*
 * The verification pass of objective o: the learnt entry itself (path t, the provider with the
 * subject's ranges) beside every path at verification_sizes(). A line per size for the report.
 * Where the entry clearly loses to a path that it did not send the size to, the ranges of both
 * objectives are derived again with every figure measured (the verification's too), and
 * run->fixes says so; else the entry stands, and the figures of the verification stay in the
 * CSV and the report only.
 */
static void verify_ranges(struct measure *m, enum hwoff_objective o)
{
	struct cal_subject *s = m->s;
	struct cal_ranges *r = &s->ranges[o];
	size_t sizes[4 * HWOFF_RANGES_MAX], count = verification_sizes(m, r, sizes);
	unsigned int t = s->path_count;
	char before[1024], after[1024], lost[1024] = "";
	struct cal_point *kept = malloc(sizeof(s->points));
	size_t kept_count = s->point_count;

	if (!count || t == CAL_PATHS_MAX || !kept) {
		free(kept);
		return;
	}
	memcpy(kept, s->points, sizeof(s->points));
	s->paths[t] = (struct cal_path){ .table = true };
	snprintf(s->paths[t].name, sizeof(s->paths[t].name), "table-%s", hwoff_objective_name(o));
	s->path_count++;
	start_path(m, t, o);
	for (size_t i = 0; i < count && measurable(m, t, sizes[i]); i++) {
		struct cal_point *pt = measure_size(m, sizes[i], "verify");
		unsigned int chosen = path_at(r, sizes[i]);
		int best = pt ? cal_best(pt, cal_usable(s), o) : -1;
		double margin;
		enum cal_verdict v;

		if (best < 0 || !pt->bytes_per_s[t])
			continue;
		v = cal_compare(pt, o, t, (unsigned int)best, m->cfg->tie, &margin);
		hwoff_appendf(m->run->verification, sizeof(m->run->verification),
			      "%s %s %s %zu B: the table (%s) %s %s by %.1f %% (%s, %u repeats)\n",
			      s->alg->name, hwoff_direction_name(s->direction),
			      hwoff_objective_name(o), sizes[i], s->paths[chosen].name,
			      v == CAL_EQUAL ? "equals"
			      : margin < 0   ? "loses to"
					     : "beats",
			      s->paths[best].name, fabs(margin) * 100,
			      v == CAL_CLEAR   ? "clear"
			      : v == CAL_EQUAL ? "within the tie"
					       : "unclear",
			      pt->repeats[t]);
		if (v == CAL_CLEAR && margin < 0 && chosen != (unsigned int)best)
			hwoff_appendf(lost, sizeof(lost), "%s%zu B (%.0f %% behind %s)",
				      lost[0] ? ", " : "", sizes[i], -margin * 100,
				      s->paths[best].name);
	}
	cal_worker_end(&m->workers[t], false, STOP_SECONDS);
	s->path_count--;
	for (size_t i = 0; i < s->point_count; i++) {
		s->points[i].bytes_per_s[t] = s->points[i].cpu_ns_per_byte[t] = 0;
		s->points[i].repeats[t] = 0;
	}
	if (!lost[0]) {
		memcpy(s->points, kept, sizeof(s->points));
		s->point_count = kept_count;
		free(kept);
		return;
	}
	free(kept);
	ranges_text(s, r, before, sizeof(before));
	for (int d = 0; d < HWOFF_OBJECTIVE_COUNT; d++)
		derive(m, d);
	ranges_text(s, r, after, sizeof(after));
	hwoff_appendf(m->run->fixes, sizeof(m->run->fixes),
		      "%s %s %s: the table lost at %s; derived again with those figures: %s "
		      "(was %s)\n",
		      s->alg->name, hwoff_direction_name(s->direction), hwoff_objective_name(o),
		      lost, after, before);
}

/* The grid, the crossovers, the ranges, and their verification. */
static void measure_subject(struct measure *m)
{
	struct cal_subject *s = m->s;
	struct view views[HWOFF_OBJECTIVE_COUNT + 1];
	unsigned int view_count = 0, pio = 0, dma = 0;
	size_t most = message_max(s);

	for (size_t g = 0; g < m->cfg->grid_count; g++) {
		if (m->cfg->grid[g] > most && (!g || m->cfg->grid[g - 1] < most))
			measure_size(m, most, "limit");
		measure_size(m, m->cfg->grid[g], "grid");
	}
	/* Every path for each objective, and the engine's own PIO/DMA crossover for sysfs. */
	for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++)
		views[view_count++] = (struct view){ .mask = ~0u, .objective = o };
	for (unsigned int p = 1; p < s->path_count; p++) {
		pio |= (s->paths[p].class == HWOFF_IMPL_ENGINE_PIO) << p;
		dma |= (s->paths[p].class == HWOFF_IMPL_ENGINE_DMA) << p;
	}
	if (pio && dma)
		views[view_count++] =
			(struct view){ .mask = pio | dma, .objective = HWOFF_THROUGHPUT };
	bisect(m, views, view_count);
	for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++)
		derive(m, o);
	for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++)
		verify_ranges(m, o);
}

/*
 * Whether impl is a candidate. Off-CPU drivers are: the engine's PIO and DMA drivers and other
 * vendors' engines. The engine's auto driver is not while its PIO and DMA drivers are there:
 * the table names the concrete driver, and the auto driver is only as good as its threshold.
 * The kernel's CPU drivers (aes-generic, aesni, sha256-generic) are not: they run the same
 * kind of code as OpenSSL in this process, on the same CPU, plus a system call and two copies;
 * OpenSSL uses the same CPU instructions as they do.
 */
static bool candidate(const struct hwoff_discovery *d, const struct hwoff_impl *impl)
{
	if (impl->class == HWOFF_IMPL_CPU)
		return false;
	if (impl->class != HWOFF_IMPL_ENGINE_AUTO)
		return true;
	for (size_t i = 0; i < d->count; i++)
		if (strcmp(d->impls[i].name, impl->name) == 0 &&
		    (d->impls[i].class == HWOFF_IMPL_ENGINE_PIO ||
		     d->impls[i].class == HWOFF_IMPL_ENGINE_DMA))
			return false;
	return true;
}

/*
 * Software, then each kernel candidate whose device did not stop answering; measure_size()
 * checks each before it measures it.
 */
static void add_paths(struct measure *m, struct cal_subject *s)
{
	struct cal_run *run = m->run;
	const struct hwoff_discovery *d = &run->discovery;

	s->paths[0] = (struct cal_path){ .software = true };
	strcpy(s->paths[0].name, HWOFF_SOFTWARE);
	s->path_count = 1;
	for (size_t i = 0; run->af_alg && i < d->count; i++) {
		const struct hwoff_impl *impl = &d->impls[i];
		struct cal_path *path = &s->paths[s->path_count];

		if (strcmp(impl->name, s->alg->kernel_name) != 0 || !candidate(d, impl))
			continue;
		if (s->path_count == CAL_PATHS_MAX) {
			hwoff_appendf(run->notes, sizeof(run->notes),
				      "left out %s for %s: more than %d paths\n", impl->driver,
				      s->alg->name, CAL_PATHS_MAX);
			continue;
		}
		*path = (struct cal_path){ .class = impl->class };
		snprintf(path->name, sizeof(path->name), "%s", impl->driver);
		snprintf(path->module, sizeof(path->module), "%s", impl->module);
		if (is_wedged(m, path))
			hwoff_appendf(run->notes, sizeof(run->notes),
				      "left out %s for %s %s: %s stopped answering earlier\n",
				      impl->driver, s->alg->name,
				      hwoff_direction_name(s->direction), device_of(path));
		else
			s->path_count++;
	}
}

/* One subject per algorithm of cfg->algs and direction it takes, in the table's order. */
static int make_subjects(struct cal_run *run, const struct cal_config *cfg)
{
	run->subjects = calloc(HWOFF_ALG_COUNT * 2, sizeof(*run->subjects));
	if (!run->subjects)
		return -1;
	for (size_t a = 0; a < HWOFF_ALG_COUNT; a++) {
		const struct hwoff_alg *alg = &hwoff_algs[a];

		if (cfg->algs && !cfg->algs[a])
			continue;
		for (int dir = 0; dir < HWOFF_DIRECTION_COUNT; dir++) {
			if (hwoff_alg_is_digest(alg) != (dir == HWOFF_DIGEST))
				continue;
			run->subjects[run->subject_count++] =
				(struct cal_subject){ .alg = alg, .direction = dir };
		}
	}
	return 0;
}

/* The kernel's CPU drivers are never candidates (see candidate()); say which were left out. */
static void note_cpu_drivers(struct cal_run *run)
{
	const struct hwoff_discovery *d = &run->discovery;

	for (size_t i = 0; i < d->count; i++)
		if (d->impls[i].class == HWOFF_IMPL_CPU)
			hwoff_appendf(run->notes, sizeof(run->notes),
				      "left out %s (%s): a CPU driver, software in process does "
				      "the same without the system call\n",
				      d->impls[i].driver, d->impls[i].name);
}

/* The subject's paths are done with: their workers ended. */
static void end_paths(struct measure *m)
{
	for (unsigned int p = 0; p < CAL_PATHS_MAX; p++)
		cal_worker_end(&m->workers[p], false, STOP_SECONDS);
}

int cal_measure(struct cal_run *run, const struct cal_config *cfg, char *err, size_t err_len)
{
	struct measure m = { .cfg = cfg, .run = run };
	struct hwoff_probe probe = { 0 };
	int ret = -1;

	memset(run, 0, sizeof(*run));
	if (!cfg->grid_count || cfg->repeats < 1 || cfg->repeats_max < cfg->repeats ||
	    cfg->repeats_max > REPEATS_MAX) {
		snprintf(err, err_len, "a grid of sizes and 1 to %d repeats are needed",
			 REPEATS_MAX);
		return -1;
	}
	m.buf_len = cfg->grid[cfg->grid_count - 1];
	m.in = malloc(m.buf_len);
	m.out = malloc(m.buf_len + HWOFF_GCM_TAG_MAX); /* GCM writes its tag after the data */
	if (!m.in || !m.out || make_subjects(run, cfg) || RAND_bytes(m.in, (int)m.buf_len) != 1) {
		snprintf(err, err_len, "out of memory");
		goto out;
	}
	run->af_alg = hwoff_probe_afalg(&probe) == 0;
	snprintf(run->af_alg_reason, sizeof(run->af_alg_reason), "%s", probe.reason);
	if (hwoff_discover(&run->discovery, err, err_len)) {
		/* Without /proc/crypto there is nothing to offload to: software only. */
		hwoff_appendf(run->notes, sizeof(run->notes), "discovery failed: %s\n", err);
		run->af_alg = false;
	}
	if (!run->af_alg)
		hwoff_appendf(run->notes, sizeof(run->notes), "software only: AF_ALG: %s\n",
			      run->af_alg_reason[0] ? run->af_alg_reason : "not used");
	else
		note_cpu_drivers(run);
	for (size_t i = 0; i < run->subject_count; i++) {
		m.s = &run->subjects[i];
		m.index = i;
		add_paths(&m, m.s);
		for (unsigned int p = 0; p < m.s->path_count; p++)
			if (!m.s->paths[p].failed)
				start_path(&m, p, HWOFF_THROUGHPUT);
		if (m.s->paths[0].failed) { /* no provider, nothing to measure */
			snprintf(err, err_len, "%s", m.s->paths[0].failure);
			goto out;
		}
		measure_subject(&m);
		end_paths(&m);
	}
	ret = 0;
out:
	end_paths(&m);
	free(m.in);
	free(m.out);
	return ret;
}

void cal_run_free(struct cal_run *run)
{
	free(run->subjects);
	run->subjects = NULL;
	run->subject_count = 0;
}

struct hwoff_table *cal_table(const struct cal_run *run, const bool *objectives, char *warnings,
			      size_t warnings_len, size_t *left_out)
{
	struct hwoff_table *t = hwoff_table_new();
	char why[256];

	*left_out = 0;
	if (!t)
		return NULL;
	for (size_t i = 0; i < run->subject_count; i++) {
		const struct cal_subject *s = &run->subjects[i];

		for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++) {
			struct hwoff_range_spec specs[HWOFF_RANGES_MAX];
			const struct cal_ranges *r = &s->ranges[o];

			if (!objectives[o])
				continue;
			for (unsigned int k = 0; k < r->count; k++)
				specs[k] = (struct hwoff_range_spec){
					.start = r->r[k].start, .path = s->paths[r->r[k].path].name
				};
			/* The table's limits (HWOFF_PATHS_MAX) cost this entry, not the others. */
			if (hwoff_table_set(t, s->alg, s->direction, o, specs, r->count, why,
					    sizeof(why))) {
				hwoff_appendf(warnings, warnings_len,
					      "%s %s %s left to software: %s\n", s->alg->name,
					      hwoff_direction_name(s->direction),
					      hwoff_objective_name(o), why);
				(*left_out)++;
			}
		}
	}
	/*
	 * Each kernel driver's proof, for the loader to keep another vendor's engine within it: of
	 * every driver measured, the table's and the others (an administrator may send requests
	 * to one by hand, within its proof).
	 */
	for (size_t i = 0; i < run->subject_count; i++) {
		for (unsigned int p = 1; p < run->subjects[i].path_count; p++) {
			const char *driver = run->subjects[i].paths[p].name;
			size_t proven = cal_proven(run->subjects, run->subject_count, driver);

			if (!proven || hwoff_table_proven(t, driver) ||
			    !hwoff_table_set_proven(t, driver, proven, why, sizeof(why)))
				continue;
			hwoff_appendf(warnings, warnings_len, "no proof of %s in the table: %s\n",
				      driver, why);
			(*left_out)++;
		}
	}
	hwoff_fingerprint_machine(&t->fingerprint, t, &run->discovery);
	return t;
}
