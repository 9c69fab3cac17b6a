// SPDX-License-Identifier: Apache-2.0
/*
 * calibrate-sample.c - when a size is measured enough: the samples of every path at one size,
 * their repeats and medians.
 *
 * Every path is measured through the provider by a worker process of its own
 * (calibrate-worker.c), with the calls, buffering and request splitting an application's
 * requests get. A sample is a run of back-to-back requests long enough for the clocks (wall:
 * CLOCK_MONOTONIC; CPU: the worker's user + system time). At each size every path first warms
 * up (which also sizes its samples), then the repeats go round-robin over the paths, starting
 * one path later each time, so that a machine that drifts or is busy for a moment spreads over
 * all paths. After cfg->repeats rounds the medians (outliers left out: cal_median()) decide,
 * unless the best path and another are apart by more than the tie but within the noise
 * (cal_compare()): then more rounds, up to cfg->repeats_max. A size visited again (the
 * verification's) keeps each path's faster visit (merge_visit()).
 */
#include <math.h>
#include <string.h>

#include "tools/calibrate-measure.h"

/*
 * requests back-to-back requests of size bytes on path p, by its worker. Returns 0, or -1: the
 * path failed (dropped) or stopped answering (cal_wedged()).
 */
static int run_sample(struct cal_measurement *m, unsigned int p, size_t size,
		      unsigned long requests, struct cal_sample *out)
{
	double seconds = cal_answer_seconds((double)requests * size);
	struct cal_answer a;

	if (cal_worker_ask(&m->workers[p], CAL_SAMPLE, size, requests, &a, seconds)) {
		cal_wedged(m, p, size, a.err);
		return -1;
	}
	if (a.status) {
		cal_fail_path(m, p, a.err);
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
static unsigned long warm_up(struct cal_measurement *m, unsigned int p, size_t size)
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

/*
 * A sample's row; asked_ns: when it was asked for, so that a slow stretch of the machine shows
 * as a run of rows close in time, whatever their paths.
 */
static void csv_row(struct cal_measurement *m, unsigned int p, size_t size, unsigned int repeat,
		    unsigned long requests, const struct cal_sample *x, const char *phase,
		    double asked_ns)
{
	const struct cal_subject *s = m->s;
	double bytes = (double)requests * size;

	if (!m->cfg->csv)
		return;
	fprintf(m->cfg->csv, "%s,%u,%s,%s,%zu,%u,%lu,%.0f,%.0f,%.0f,%.1f,%.4f,%s,%.0f\n",
		s->alg->name, s->alg->key_bytes * 8, hwoff_direction_name(s->direction),
		s->paths[p].name, size, repeat, requests, bytes, x->wall_ns, x->cpu_ns,
		bytes * 1e9 / x->wall_ns, x->cpu_ns / bytes, phase,
		(asked_ns - m->started_ns) / 1e6);
}

/*
 * The point for size: an empty one inserted in order, or the one there (a size visited again).
 * NULL when the subject is full.
 */
static struct cal_point *point_at(struct cal_subject *s, size_t size)
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

void cal_point_forget(struct cal_point *pt, unsigned int p)
{
	pt->bytes_per_s[p] = pt->cpu_ns_per_byte[p] = 0;
	pt->bytes_per_s_spread[p] = pt->cpu_spread[p] = 0;
	pt->repeats[p] = 0;
}

/*
 * A visit's figures into the point of its size: of two visits, each path's faster one counts
 * (all its figures), since the machine only ever slows a path, never speeds it up: a slow
 * stretch (seen: a busy host, or an engine that watched its doorbell for less than the guest's
 * time between requests, AES-128-GCM by PIO at 7 MB/s then 24) misleads one visit, not both. A path
 * not measurable now (failed, or limited below size) has no figures.
 */
static void merge_visit(struct cal_measurement *m, struct cal_point *pt, const struct cal_point *v)
{
	for (unsigned int p = 0; p < CAL_PATHS_MAX; p++) {
		if (!cal_measurable(m, p, v->size))
			cal_point_forget(pt, p);
		else if (v->bytes_per_s[p] > pt->bytes_per_s[p]) {
			pt->bytes_per_s[p] = v->bytes_per_s[p];
			pt->cpu_ns_per_byte[p] = v->cpu_ns_per_byte[p];
			pt->bytes_per_s_spread[p] = v->bytes_per_s_spread[p];
			pt->cpu_spread[p] = v->cpu_spread[p];
			pt->repeats[p] = v->repeats[p];
		}
	}
}

/* The medians of the samples so far (rate, cpu: n[p] of path p's) as a point at size. */
static void medians(struct cal_point *pt, size_t size, const unsigned int *order,
		    unsigned int count, double rate[][CAL_REPEATS_MAX],
		    double cpu[][CAL_REPEATS_MAX], const unsigned int *n)
{
	memset(pt, 0, sizeof(*pt));
	pt->size = size;
	for (unsigned int k = 0; k < count; k++) {
		unsigned int p = order[k];
		double v[CAL_REPEATS_MAX];
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
 * unclear (up to cfg->repeats_max); the medians are this visit's figures (into visit, when not
 * NULL), merged into the point of size (merge_visit()). Returns the point (NULL when the subject
 * has no room).
 */
struct cal_point *cal_measure_size(struct cal_measurement *m, size_t size, const char *phase,
				   struct cal_point *visit)
{
	struct cal_subject *s = m->s;
	unsigned int order[CAL_PATHS_MAX], count = 0, n[CAL_PATHS_MAX] = { 0 };
	unsigned long requests[CAL_PATHS_MAX];
	double rate[CAL_PATHS_MAX][CAL_REPEATS_MAX], cpu[CAL_PATHS_MAX][CAL_REPEATS_MAX];
	struct cal_point now, *pt;

	if (m->cfg->progress)
		m->cfg->progress(m->cfg->progress_arg, m->index, m->run->subject_count, s, size,
				 phase);
	for (unsigned int p = 0; p < s->path_count; p++) {
		if (!cal_measurable(m, p, size) || !cal_verify_path(m, p, size))
			continue;
		requests[p] = warm_up(m, p, size);
		if (requests[p])
			order[count++] = p;
	}
	for (unsigned int r = 0; r < m->cfg->repeats_max; r++) {
		for (unsigned int k = 0; k < count; k++) {
			unsigned int p = order[(k + r) % count];
			double bytes = (double)requests[p] * size, asked_ns = cal_now_ns();
			struct cal_sample x;

			if (!cal_measurable(m, p, size) || run_sample(m, p, size, requests[p], &x))
				continue;
			rate[p][n[p]] = bytes * 1e9 / x.wall_ns;
			cpu[p][n[p]++] = x.cpu_ns / bytes;
			csv_row(m, p, size, r, requests[p], &x, phase, asked_ns);
		}
		if (r + 1 < m->cfg->repeats)
			continue;
		medians(&now, size, order, count, rate, cpu, n);
		if (clear_at(s, &now, m->cfg->tie))
			break;
	}
	for (unsigned int k = 0; k < count; k++)
		if (!cal_measurable(m, order[k], size))
			n[order[k]] = 0;
	medians(&now, size, order, count, rate, cpu, n);
	if (visit)
		*visit = now;
	pt = point_at(s, size);
	if (pt)
		merge_visit(m, pt, &now);
	return pt;
}
