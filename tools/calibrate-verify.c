// SPDX-License-Identifier: Apache-2.0
/*
 * calibrate-verify.c - the verification of the learnt ranges, and the path table of a run.
 *
 * Once every subject's ranges are derived, the learnt entry itself (the provider with that
 * table) is measured beside every path at sizes on both sides of each crossover, those that
 * decided it among them; where it loses to a path by more than the noise, the ranges of both
 * objectives are derived again with those figures, and the run says so.
 */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "backend/fingerprint.h"
#include "backend/text.h"
#include "tools/calibrate-measure.h"

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

/* Size into sizes[0..*count), kept increasing, once. */
static void add_size(size_t *sizes, size_t *count, size_t size)
{
	size_t at = 0;

	while (at < *count && sizes[at] < size)
		at++;
	if (at < *count && sizes[at] == size)
		return;
	memmove(&sizes[at + 1], &sizes[at], (*count - at) * sizeof(sizes[0]));
	sizes[at] = size;
	(*count)++;
}

/*
 * The sizes the verification measures: at each crossover of r, the two sizes of points[0..n) (the
 * points r was derived from) it lies between, those that decided it, visited again; and half and
 * twice its start (on the CAL_STEP grid, within the grid's sizes). Returns how many, in
 * increasing order.
 */
static size_t verification_sizes(const struct cal_measurement *m, const struct cal_ranges *r,
				 const struct cal_point *points, size_t n, size_t *sizes)
{
	size_t count = 0, largest = m->cfg->grid[m->cfg->grid_count - 1];

	for (unsigned int k = 1; k < r->count; k++) {
		size_t start = r->r[k].start, i = 0;

		while (i < n && points[i].size < start)
			i++;
		if (i)
			add_size(sizes, &count, points[i - 1].size);
		if (i < n)
			add_size(sizes, &count, points[i].size);
		for (size_t size = start / 2; size <= 2 * start; size *= 4) {
			size_t on_step = size - size % CAL_STEP;

			if (on_step >= CAL_STEP && on_step <= largest)
				add_size(sizes, &count, on_step);
		}
	}
	return count;
}

/*
 * The verification of objective o: the learnt entry itself (path t, the provider with the
 * subject's ranges, derived from derived_from[0..n)) beside every path at verification_sizes(), a
 * line per size for the report. Where the entry clearly loses to a path it did not send the size
 * to, lost says where.
 */
static void verify_ranges(struct cal_measurement *m, enum hwoff_objective o,
			  const struct cal_point *derived_from, size_t n, char *lost,
			  size_t lost_len)
{
	struct cal_subject *s = m->s;
	const struct cal_ranges *r = &s->ranges[o];
	size_t sizes[4 * HWOFF_RANGES_MAX],
		count = verification_sizes(m, r, derived_from, n, sizes);
	unsigned int t = s->path_count;

	if (!count || t == CAL_PATHS_MAX)
		return;
	s->paths[t] = (struct cal_path){ .table = true };
	snprintf(s->paths[t].name, sizeof(s->paths[t].name), "table-%s", hwoff_objective_name(o));
	s->path_count++;
	cal_start_path(m, t, o);
	for (size_t i = 0; i < count && cal_measurable(m, t, sizes[i]); i++) {
		struct cal_point pt;
		unsigned int chosen = path_at(r, sizes[i]);
		int best = cal_measure_size(m, sizes[i], "verify", &pt)
				   ? cal_best(&pt, cal_usable(s), o)
				   : -1;
		double margin;
		enum cal_verdict v;

		if (best < 0 || !pt.bytes_per_s[t])
			continue;
		v = cal_compare(&pt, o, t, (unsigned int)best, m->cfg->tie, &margin);
		fprintf(m->verification,
			"%s %s %s %zu B: the table (%s) %s %s by %.1f %% (%s, %u repeats)\n",
			s->alg->name, hwoff_direction_name(s->direction), hwoff_objective_name(o),
			sizes[i], s->paths[chosen].name,
			v == CAL_EQUAL ? "equals"
			: margin < 0   ? "loses to"
				       : "beats",
			s->paths[best].name, fabs(margin) * 100,
			v == CAL_CLEAR	 ? "clear"
			: v == CAL_EQUAL ? "within the tie"
					 : "unclear",
			pt.repeats[t]);
		if (v == CAL_CLEAR && margin < 0 && chosen != (unsigned int)best)
			hwoff_appendf(lost, lost_len, "%s%zu B (%.0f %% behind %s)",
				      lost[0] ? ", " : "", sizes[i], -margin * 100,
				      s->paths[best].name);
	}
	cal_worker_end(&m->workers[t], false, CAL_STOP_SECONDS);
	s->path_count--;
	for (size_t i = 0; i < s->point_count; i++)
		cal_point_forget(&s->points[i], t);
}

/*
 * The verification pass: both objectives' learnt entries verified as they were derived. Where
 * either clearly lost, both are derived again once, with every figure measured (the
 * verification's too: a size measured is evidence for both; of a size visited twice, each path's
 * faster visit), and run->fixes gives each entry, what it was and why, or that it is unchanged;
 * else the entries stand, and the verification's figures stay in the CSV and the report only. Once:
 * the figures of a second verification would move the crossovers by their noise, not towards the
 * paths.
 */
void cal_verify_subject(struct cal_measurement *m)
{
	struct cal_subject *s = m->s;
	struct cal_ranges was[HWOFF_OBJECTIVE_COUNT];
	char lost[HWOFF_OBJECTIVE_COUNT][1024] = { "" }, why[2048] = "";
	struct cal_point *kept = malloc(sizeof(s->points));
	size_t kept_count = s->point_count;

	if (!kept)
		return;
	memcpy(kept, s->points, sizeof(s->points));
	for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++) {
		was[o] = s->ranges[o];
		verify_ranges(m, o, kept, kept_count, lost[o], sizeof(lost[o]));
		if (lost[o][0])
			hwoff_appendf(why, sizeof(why), "%sthe %s entry lost at %s",
				      why[0] ? "; " : "", hwoff_objective_name(o), lost[o]);
	}
	if (!why[0]) {
		memcpy(s->points, kept, sizeof(s->points));
		s->point_count = kept_count;
		free(kept);
		return;
	}
	free(kept);
	for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++) {
		char before[1024], after[1024];

		cal_derive_ranges(m, o);
		ranges_text(s, &was[o], before, sizeof(before));
		ranges_text(s, &s->ranges[o], after, sizeof(after));
		fprintf(m->fixes, "%s %s %s: derived again (%s): ", s->alg->name,
			hwoff_direction_name(s->direction), hwoff_objective_name(o), why);
		if (strcmp(before, after) == 0)
			fprintf(m->fixes, "unchanged, %s\n", after);
		else
			fprintf(m->fixes, "%s (was %s)\n", after, before);
	}
	m->run->fix_count++;
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
