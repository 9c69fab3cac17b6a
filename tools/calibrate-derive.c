// SPDX-License-Identifier: Apache-2.0
/*
 * calibrate-derive.c - from medians to size ranges: winners, crossovers, the auto threshold.
 *
 * No clocks and no system calls here, so that the host unit test can feed it known curves.
 */
#include <limits.h>
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "tools/calibrate.h"
#include "kernel/hwoffload_regs.h"

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

double cal_median(double *v, size_t n, double *spread, unsigned int *kept)
{
	double mid;

	qsort(v, n, sizeof(v[0]), cmp_double);
	if (n >= 4) { /* Tukey's fences */
		double q1 = v[n / 4], q3 = v[(3 * n) / 4], iqr = q3 - q1;
		size_t lo = 0, hi = n;

		while (lo < hi && v[lo] < q1 - 1.5 * iqr)
			lo++;
		while (hi > lo && v[hi - 1] > q3 + 1.5 * iqr)
			hi--;
		v += lo;
		n = hi - lo;
	}
	mid = n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
	if (spread)
		*spread = mid > 0 ? (v[(3 * n) / 4] - v[n / 4]) / mid : 0;
	if (kept)
		*kept = (unsigned int)n;
	return mid;
}

/* Whether path p was measured at pt (a path that failed before a size has no figure there). */
static bool measured(const struct cal_point *pt, unsigned int p)
{
	return pt->bytes_per_s[p] > 0;
}

/* Whether a is better than b by the metric: more bytes/s, or fewer CPU ns per byte. */
static bool better(double a, double b, bool more_is_better)
{
	return more_is_better ? a > b : a < b;
}

/*
 * How far a median may be off, as a fraction of it: the standard error of a median of n
 * figures, 1.2533 sigma / sqrt(n), sigma estimated as the interquartile range / 1.349.
 */
static double median_error(double spread, unsigned int n)
{
	return n ? 0.929 * spread / sqrt(n) : 0;
}

enum cal_verdict cal_compare(const struct cal_point *pt, enum hwoff_objective objective,
			     unsigned int a, unsigned int b, double tie, double *margin)
{
	bool cpu = objective == HWOFF_CPU;
	const double *m = cpu ? pt->cpu_ns_per_byte : pt->bytes_per_s;
	const double *spread = cpu ? pt->cpu_spread : pt->bytes_per_s_spread;
	double lead = (cpu ? m[b] - m[a] : m[a] - m[b]) / fmax(m[a], m[b]);
	double ea = median_error(spread[a], pt->repeats[a]),
	       eb = median_error(spread[b], pt->repeats[b]);

	if (margin)
		*margin = lead;
	if (fabs(lead) < tie)
		return CAL_EQUAL;
	return fabs(lead) > 2 * sqrt(ea * ea + eb * eb) ? CAL_CLEAR : CAL_UNCLEAR;
}

bool cal_tied(const struct cal_point *pt, enum hwoff_objective objective, unsigned int p,
	      unsigned int best, double tie)
{
	return cal_compare(pt, objective, p, best, tie, NULL) == CAL_EQUAL ||
	       !better(cal_metric(pt, objective)[best], cal_metric(pt, objective)[p],
		       objective == HWOFF_THROUGHPUT);
}

const double *cal_metric(const struct cal_point *pt, enum hwoff_objective objective)
{
	return objective == HWOFF_CPU ? pt->cpu_ns_per_byte : pt->bytes_per_s;
}

int cal_best(const struct cal_point *pt, cal_mask mask, enum hwoff_objective objective)
{
	bool cpu = objective == HWOFF_CPU;
	const double *m = cpu ? pt->cpu_ns_per_byte : pt->bytes_per_s;
	int best = -1;

	for (unsigned int p = 0; p < CAL_PATHS_MAX; p++)
		if ((mask & (1u << p)) && measured(pt, p) &&
		    (best < 0 || better(m[p], m[best], !cpu)))
			best = (int)p;
	return best;
}

int cal_winner(const struct cal_point *pt, cal_mask mask, enum hwoff_objective objective,
	       double tie, int previous)
{
	bool cpu = objective == HWOFF_CPU;
	enum hwoff_objective other = cpu ? HWOFF_THROUGHPUT : HWOFF_CPU;
	const double *secondary = cal_metric(pt, other);
	int best = cal_best(pt, mask, objective), winner = -1;

	if (best < 0)
		return -1;
	for (unsigned int p = 0; p < CAL_PATHS_MAX; p++) {
		if (!(mask & (1u << p)) || !measured(pt, p) ||
		    !cal_tied(pt, objective, p, (unsigned int)best, tie))
			continue;
		if (winner < 0 || better(secondary[p], secondary[winner], cpu))
			winner = (int)p;
	}
	if (previous >= 0 && previous != winner && (mask & (1u << previous)) &&
	    measured(pt, (unsigned int)previous) &&
	    cal_tied(pt, objective, (unsigned int)previous, (unsigned int)best, tie) &&
	    cal_tied(pt, other, (unsigned int)previous, (unsigned int)winner, tie))
		return previous;
	return winner;
}

/* Where the larger point's winner starts: the geometric mean, on the CAL_STEP grid. */
static size_t boundary(size_t below, size_t above)
{
	size_t mid = (size_t)sqrt((double)below * (double)above);

	mid -= mid % CAL_STEP;
	if (mid <= below)
		mid = below + CAL_STEP;
	return mid < above ? mid : above;
}

/* The largest size path may serve (SIZE_MAX: any). */
static size_t limit_of(const size_t *limits, unsigned int path)
{
	return limits ? limits[path] : SIZE_MAX;
}

/* Whether r[k - 1]'s path may serve r[k]'s sizes too (r[0..n)). */
static bool may_extend(const struct cal_range *r, unsigned int n, unsigned int k,
		       const size_t *limits)
{
	size_t limit = limit_of(limits, r[k - 1].path);

	return k + 1 < n ? r[k + 1].start - 1 <= limit : limit == SIZE_MAX;
}

/*
 * Drop r[k] of *n: its sizes go to the range before it when that path may serve them, else to
 * the one after (which is never beyond its limit: it only starts lower). Returns false, and
 * drops nothing, for the last range when the one before it may not serve its sizes.
 */
static bool drop_range(struct cal_range *r, unsigned int *points_in, unsigned int *n,
		       unsigned int k, const size_t *limits)
{
	if (k == 0 || !may_extend(r, *n, k, limits)) {
		if (k + 1 == *n)
			return false;
		r[k + 1].start = r[k].start;
		points_in[k + 1] += points_in[k];
	} else {
		points_in[k - 1] += points_in[k];
	}
	memmove(&r[k], &r[k + 1], (*n - k - 1) * sizeof(r[0]));
	memmove(&points_in[k], &points_in[k + 1], (*n - k - 1) * sizeof(points_in[0]));
	(*n)--;
	return true;
}

/* Paths of mask that may serve sizes above limit. */
static cal_mask beyond(cal_mask mask, const size_t *limits, size_t limit)
{
	cal_mask m = 0;

	for (unsigned int p = 0; p < CAL_PATHS_MAX; p++)
		if ((mask & (1u << p)) && limit_of(limits, p) > limit)
			m |= 1u << p;
	return m;
}

unsigned int cal_derive(const struct cal_point *points, size_t count, cal_mask mask,
			const size_t *limits, enum hwoff_objective objective, double tie,
			struct cal_ranges *out)
{
	/* Collected unbounded first (one per point at most, and one past a limit), then cut. */
	struct cal_range all[CAL_POINTS_MAX + 1];
	unsigned int points_in[CAL_POINTS_MAX + 1];
	unsigned int n = 0;
	size_t last_size = 0, last_point = 0, limit;
	int previous = -1, after;

	for (size_t i = 0; i < count && i < CAL_POINTS_MAX; i++) {
		int w = cal_winner(&points[i], mask, objective, tie, previous);

		if (w < 0)
			continue;
		if (w != previous) {
			size_t start = n ? boundary(last_size, points[i].size) : 0;

			/* the path before serves up to its limit at most */
			if (n && start - 1 > limit_of(limits, (unsigned int)previous))
				start = limit_of(limits, (unsigned int)previous) + 1;
			all[n] = (struct cal_range){ .start = start, .path = (unsigned int)w };
			points_in[n++] = 0;
		}
		points_in[n - 1]++;
		previous = w;
		last_size = points[i].size;
		last_point = i;
	}
	limit = n ? limit_of(limits, all[n - 1].path) : SIZE_MAX;
	if (limit != SIZE_MAX) {
		after = cal_winner(&points[last_point], beyond(mask, limits, limit), objective, tie,
				   -1);
		if (after >= 0) {
			all[n] = (struct cal_range){ .start = limit + 1,
						     .path = (unsigned int)after };
			points_in[n++] = 0;
		}
	}
	out->cut = 0;
	while (n > HWOFF_RANGES_MAX) {
		unsigned int fewest = n;

		for (unsigned int k = 0; k < n; k++)
			if ((k + 1 < n || may_extend(all, n, k, limits)) &&
			    (fewest == n || points_in[k] < points_in[fewest]))
				fewest = k;
		out->cut += drop_range(all, points_in, &n, fewest, limits);
		/* The neighbours of the dropped range may now go to the same path: merge them. */
		for (unsigned int k = 1; k < n;) {
			if (all[k].path != all[k - 1].path ||
			    !drop_range(all, points_in, &n, k, limits))
				k++;
		}
	}
	out->count = n;
	memcpy(out->r, all, n * sizeof(all[0]));
	return n;
}

void cal_limits(const struct cal_subject *s, size_t limits[CAL_PATHS_MAX])
{
	for (unsigned int p = 0; p < CAL_PATHS_MAX; p++)
		limits[p] = p < s->path_count && !s->paths[p].software && !s->paths[p].serves_all
				    ? s->paths[p].verified
				    : SIZE_MAX;
}

size_t cal_proven(const struct cal_subject *subjects, size_t count, const char *driver)
{
	size_t proven = 0;
	bool served = false;

	for (size_t i = 0; i < count; i++) {
		for (unsigned int p = 0; p < subjects[i].path_count; p++) {
			const struct cal_path *path = &subjects[i].paths[p];
			size_t bytes = path->serves_all ? HWOFF_PROVEN_ALL : path->verified;

			if (path->software || path->kernel_software || path->failed ||
			    strcmp(path->name, driver) != 0)
				continue;
			proven = served && proven < bytes ? proven : bytes;
			served = true;
		}
	}
	return proven;
}

cal_mask cal_usable(const struct cal_subject *s)
{
	cal_mask mask = 0;

	for (unsigned int p = 0; p < s->path_count; p++)
		if (!s->paths[p].failed && !s->paths[p].table && !s->paths[p].kernel_software)
			mask |= 1u << p;
	return mask;
}

/* The share of the best throughput of mask at pt that path p loses: 0 for the best. */
static double loss(const struct cal_point *pt, cal_mask mask, unsigned int p)
{
	int best = cal_best(pt, mask, HWOFF_THROUGHPUT);

	return best < 0 ? 0 : 1 - pt->bytes_per_s[p] / pt->bytes_per_s[best];
}

/*
 * The split of s's points that loses the least throughput summed over them (so that a noisy point
 * among large sizes does not move it), taking path below at the points before it and above at
 * the others (above < 0: the better of above_a and above_b at each point), as a threshold: the
 * largest size to below. Before the first point: 0; after the last: UINT_MAX.
 */
static unsigned int least_loss_split(const struct cal_subject *s, cal_mask mask, int below,
				     int above_a, int above_b)
{
	size_t best_split = 0, n = s->point_count;
	double best_loss = INFINITY;

	for (size_t split = 0; split <= n; split++) {
		double sum = 0;

		for (size_t i = 0; i < n; i++) {
			const struct cal_point *pt = &s->points[i];
			int above = pt->bytes_per_s[above_a] >= pt->bytes_per_s[above_b] ? above_a
											 : above_b;

			sum += loss(pt, mask, (unsigned int)(i < split ? below : above));
		}
		if (sum < best_loss) {
			best_loss = sum;
			best_split = split;
		}
	}
	if (best_split == n)
		return UINT_MAX;
	if (best_split == 0)
		return 0;
	return (unsigned int)boundary(s->points[best_split - 1].size, s->points[best_split].size) -
	       1;
}

bool cal_engine_paths(const struct cal_subject *s, int *pio, int *dma)
{
	cal_mask mask = cal_usable(s);

	*pio = *dma = -1;
	for (unsigned int p = 0; p < s->path_count; p++) {
		if (!(mask & (1u << p)) || s->paths[p].software)
			continue;
		if (s->paths[p].class == HWOFF_IMPL_ENGINE_PIO)
			*pio = (int)p;
		else if (s->paths[p].class == HWOFF_IMPL_ENGINE_DMA)
			*dma = (int)p;
	}
	return *pio >= 0 && *dma >= 0 && s->point_count;
}

bool cal_engine_threshold(const struct cal_subject *s, unsigned int *threshold)
{
	int pio, dma;

	if (!cal_engine_paths(s, &pio, &dma))
		return false;
	/* One threshold: PIO up to it, DMA above. */
	*threshold = least_loss_split(s, (1u << pio) | (1u << dma), pio, dma, dma);
	/*
	 * PIO does not split a GCM message: the driver sends by PIO only those that fit the FIFO
	 * and refuses a larger threshold_gcm, so there the FIFO is "PIO throughout".
	 */
	if (hwoff_alg_is_aead(s->alg) && *threshold > HWE_FIFO_DEPTH)
		*threshold = HWE_FIFO_DEPTH;
	return true;
}

int cal_software_tier(const struct cal_subject *s)
{
	for (unsigned int p = 0; p < s->path_count; p++)
		if (s->paths[p].kernel_software && !s->paths[p].failed)
			return (int)p;
	return -1;
}

bool cal_software_threshold(const struct cal_subject *s, unsigned int *threshold)
{
	int tier = cal_software_tier(s), pio, dma;

	if (tier < 0 || !cal_engine_paths(s, &pio, &dma))
		return false;
	*threshold = least_loss_split(s, (1u << tier) | (1u << pio) | (1u << dma), tier, pio, dma);
	return true;
}
