// SPDX-License-Identifier: Apache-2.0
/*
 * calibrate-report.c - what hwoffload-calibrate reports of a run beside the path table: the
 * engine's auto driver thresholds (written, and set in sysfs), how stable the figures were, the
 * decisions at each crossover, and the plots.
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <glob.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "backend/text.h"
#include "tools/calibrate-report.h"

#define UNSTABLE 0.2 /* a median spread of repeats above this: a busy machine */

/* ---- the engine's auto driver thresholds ---------------------------------------------------- */

/*
 * The name a subject's row has in sysfs: the mode of "cbc(aes)", all of "sha256"; an HMAC's is
 * its digest's (the auto hmac(sha256-hwoffload) driver follows the sha256 thresholds).
 */
static int row_name(const struct cal_subject *s, const char **name)
{
	*name = hwoff_alg_is_hmac(s->alg) ? s->alg->hmac_of->kernel_name : s->alg->kernel_name;
	return (int)strcspn(*name, "(");
}

/* The sysfs name of a subject's PIO/DMA threshold: "threshold_cbc", "threshold_sha256". */
static void threshold_name(const struct cal_subject *s, char *buf, size_t size)
{
	const char *name;
	int len = row_name(s, &name);

	snprintf(buf, size, "threshold_%.*s", len, name);
}

/* The sysfs name of a subject's software threshold: "software_cbc_encrypt", "software_sha256". */
static void software_name(const struct cal_subject *s, char *buf, size_t size)
{
	const char *name;
	int len = row_name(s, &name);

	if (s->direction == HWOFF_DIGEST)
		snprintf(buf, size, "software_%.*s", len, name);
	else
		snprintf(buf, size, "software_%.*s_%s", len, name,
			 hwoff_direction_name(s->direction));
}

/* A kind of the auto drivers' thresholds: its sysfs name, its value, what it is. */
struct threshold_kind {
	void (*name)(const struct cal_subject *s, char *buf, size_t size);
	bool (*value)(const struct cal_subject *s, unsigned int *value);
	const char *crossover;
};

static const struct threshold_kind threshold_kinds[] = {
	{ threshold_name, cal_engine_threshold, "PIO/DMA" },
	{ software_name, cal_software_threshold, "software tier/engine" },
};

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return (x > y) - (x < y);
}

/*
 * For each threshold of kind k, the median of the crossovers of the subjects it serves (a
 * threshold_ one: AES-128, -192 and -256 both ways, a digest and its HMAC; a software_ one: the
 * key sizes of one direction), written to saved ("threshold_cbc 23170" lines) and to sysfs when
 * set is true. Appends what it did to report.
 */
static void set_thresholds(const struct cal_run *run, const struct threshold_kind *k, bool set,
			   FILE *saved, char *report, size_t report_len)
{
	for (size_t i = 0; i < run->subject_count; i++) {
		unsigned int values[HWOFF_ALG_COUNT * 2], count = 0, value; /* a row, both ways */
		char name[64], other[64], pattern[128], old[32] = "?";
		bool first = true;
		glob_t g;
		FILE *f;

		k->name(&run->subjects[i], name, sizeof(name));
		for (size_t j = 0; j < run->subject_count; j++) {
			k->name(&run->subjects[j], other, sizeof(other));
			if (strcmp(other, name) != 0)
				continue;
			first &= j >= i;
			if (k->value(&run->subjects[j], &value))
				values[count++] = value;
		}
		if (!first || !count)
			continue;
		qsort(values, count, sizeof(values[0]), cmp_uint);
		value = values[count / 2];
		fprintf(saved, "%s %u\n", name, value);
		snprintf(pattern, sizeof(pattern), "/sys/bus/pci/devices/*/hwoffload/%s", name);
		if (!set || glob(pattern, 0, NULL, &g) || g.gl_pathc != 1) {
			hwoff_appendf(report, report_len, "%s: %s crossover %u bytes: %s\n", name,
				      k->crossover, value,
				      set ? "no single engine device has it in sysfs, not set"
					  : "not set (--no-thresholds)");
			if (set)
				globfree(&g);
			continue;
		}
		f = fopen(g.gl_pathv[0], "r+");
		if (!f || !fgets(old, sizeof(old), f) || fseek(f, 0, SEEK_SET) ||
		    fprintf(f, "%u\n", value) < 0 || fclose(f)) {
			hwoff_appendf(report, report_len, "%s: cannot write %u: %s\n",
				      g.gl_pathv[0], value, strerror(errno));
		} else {
			old[strcspn(old, "\n")] = '\0';
			if (count == 1)
				snprintf(other, sizeof(other), "one subject's");
			else
				snprintf(other, sizeof(other), "the median of %u subjects'", count);
			hwoff_appendf(report, report_len,
				      "%s: %s -> %u (%s %s throughput crossover%s)\n",
				      g.gl_pathv[0], old, value, other, k->crossover,
				      count == 1 ? "" : "s");
		}
		globfree(&g);
	}
}

/*
 * Whether, above its own software threshold, each subject's auto driver (the better of PIO and
 * DMA there) is at least as fast as the kernel's software it would otherwise hand the request:
 * the sizes where it is not, by more than 3 %, one line per subject.
 */
static void report_software_tier(const struct cal_run *run, char *report, size_t report_len)
{
	for (size_t i = 0; i < run->subject_count; i++) {
		const struct cal_subject *s = &run->subjects[i];
		int tier = cal_software_tier(s), pio, dma;
		unsigned int threshold, slower = 0, above = 0;
		char sizes[256] = "";

		if (!cal_software_threshold(s, &threshold) || !cal_engine_paths(s, &pio, &dma))
			continue;
		for (size_t k = 0; k < s->point_count; k++) {
			const struct cal_point *pt = &s->points[k];
			double engine = fmax(pt->bytes_per_s[pio], pt->bytes_per_s[dma]);

			if (pt->size <= threshold || pt->bytes_per_s[tier] <= 0)
				continue;
			above++;
			if (engine < 0.97 * pt->bytes_per_s[tier]) {
				slower++;
				hwoff_appendf(sizes, sizeof(sizes), " %zu B %.2f", pt->size,
					      engine / pt->bytes_per_s[tier]);
			}
		}
		hwoff_appendf(report, report_len,
			      "%s %s: above the software threshold the engine %s %s at %u of %u "
			      "measured sizes%s%s\n",
			      s->alg->name, hwoff_direction_name(s->direction),
			      slower ? "is slower than" : "is as fast as, or faster than",
			      s->paths[tier].name, slower ? slower : above, above,
			      slower ? ":" : "", sizes);
	}
}

void cal_set_thresholds(const struct cal_run *run, bool set, FILE *saved, char *report,
			size_t report_len)
{
	for (size_t k = 0; k < sizeof(threshold_kinds) / sizeof(threshold_kinds[0]); k++)
		set_thresholds(run, &threshold_kinds[k], set, saved, report, report_len);
	report_software_tier(run, report, report_len);
}

/*
 * How far the repeats disagreed, over every figure of throughput: the median interquartile
 * range over the median. On a busy host (other guests on its cores) the engine's round trip
 * swings from 0.3 to 8 ms between repeats, and no table holds; say so.
 */
void cal_report_stability(const struct cal_run *run, char *report, size_t report_len)
{
	size_t count = 0;
	double *spreads =
		malloc(run->subject_count * CAL_POINTS_MAX * CAL_PATHS_MAX * sizeof(*spreads));

	for (size_t i = 0; spreads && i < run->subject_count; i++) {
		const struct cal_subject *s = &run->subjects[i];

		for (size_t k = 0; k < s->point_count; k++)
			for (unsigned int p = 0; p < s->path_count; p++)
				if (s->points[k].bytes_per_s[p] > 0)
					spreads[count++] = s->points[k].bytes_per_s_spread[p];
	}
	if (count) {
		double spread = cal_median(spreads, count, NULL, NULL);

		hwoff_appendf(
			report, report_len,
			"stability: repeats spread by %.0f %% (median interquartile range)%s\n",
			spread * 100,
			spread > UNSTABLE ? ": the machine was busy, calibrate again when it "
					    "is quiet"
					  : "");
	}
	free(spreads);
}

/*
 * Each written entry's ranges, and at each crossover how the paths on either side compared at
 * the points next to it: the margin of the choice and whether it was clear. Counts into
 * report.
 */
void cal_report_decisions(const struct cal_run *run, const bool *objectives, double tie, FILE *f,
			  char *report, size_t report_len)
{
	static const char *const verdicts[] = {
		[CAL_CLEAR] = "clear", [CAL_EQUAL] = "within the tie", [CAL_UNCLEAR] = "unclear"
	};
	unsigned int counts[3] = { 0 };

	for (size_t i = 0; i < run->subject_count; i++) {
		const struct cal_subject *s = &run->subjects[i];

		for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++) {
			const struct cal_ranges *r = &s->ranges[o];

			if (!objectives[o])
				continue;
			fprintf(f, "%s %s %s:", s->alg->name, hwoff_direction_name(s->direction),
				hwoff_objective_name(o));
			for (unsigned int k = 0; k < r->count; k++)
				fprintf(f, " %zu:%s", r->r[k].start, s->paths[r->r[k].path].name);
			fputc('\n', f);
			for (unsigned int k = 1; k < r->count; k++) {
				unsigned int was = r->r[k - 1].path, now = r->r[k].path;

				for (size_t j = 0; j < s->point_count; j++) {
					const struct cal_point *pt = &s->points[j];
					bool below = pt->size < r->r[k].start;
					unsigned int lead = below ? was : now,
						     other = below ? now : was;
					enum cal_verdict v;
					double margin;

					/* the measured points next to the crossover, either side */
					if ((below && j + 1 < s->point_count &&
					     s->points[j + 1].size < r->r[k].start) ||
					    (!below && j &&
					     s->points[j - 1].size >= r->r[k].start) ||
					    !pt->bytes_per_s[was] || !pt->bytes_per_s[now])
						continue;
					v = cal_compare(pt, o, lead, other, tie, &margin);
					counts[v]++;
					fprintf(f,
						"  at %zu B %s %s %s by %.1f %% (%s; %u and %u "
						"repeats)\n",
						pt->size, s->paths[lead].name,
						margin >= 0 ? "leads" : "trails",
						s->paths[other].name, fabs(margin) * 100,
						verdicts[v], pt->repeats[lead], pt->repeats[other]);
				}
			}
		}
	}
	hwoff_appendf(report, report_len,
		      "decisions: beside the crossovers %u comparisons clear, %u within the tie "
		      "(%.0f %%), %u still unclear at the most repeats\n",
		      counts[CAL_CLEAR], counts[CAL_EQUAL], tie * 100, counts[CAL_UNCLEAR]);
}

/* ---- the plots ------------------------------------------------------------------------------ */

/* Vertical lines at the throughput table's crossovers of s, labelled with the new path. */
static void plot_crossovers(FILE *gp, const struct cal_subject *s)
{
	const struct cal_ranges *r = &s->ranges[HWOFF_THROUGHPUT];

	for (unsigned int k = 1; k < r->count; k++)
		fprintf(gp,
			"set arrow from %zu, graph 0 to %zu, graph 1 nohead dt 2 lc rgb 'gray40'\n"
			"set label '%s: %s from %zu' at %zu, graph %.2f rotate by 90 offset -0.8,0 "
			"right font ',8'\n",
			r->r[k].start, r->r[k].start, hwoff_direction_name(s->direction),
			s->paths[r->r[k].path].name, r->r[k].start, r->r[k].start,
			s->direction == HWOFF_DECRYPT ? 0.5 : 0.98);
}

/* One plot per algorithm in gnuplot's own language, the data inline. */
void cal_write_plot_script(FILE *gp, const struct cal_run *run)
{
	fprintf(gp, "set terminal pngcairo size 1000,600\nset logscale x 2\nset logscale y\n"
		    "set xtics 16, 4\nset format x '%%.0b%%B'\nset xlabel 'request size (bytes)'\n"
		    "set ylabel 'MB/s (wall time)'\nset key outside right\nset grid\n");
	for (size_t i = 0; i < run->subject_count;) {
		const struct hwoff_alg *alg = run->subjects[i].alg;
		size_t end = i;
		const char *sep = "plot ";

		while (end < run->subject_count && run->subjects[end].alg == alg)
			end++;
		fprintf(gp, "\nunset label\nunset arrow\nset output '%s.png'\nset title '%s'\n",
			alg->name, alg->name);
		for (size_t j = i; j < end; j++)
			plot_crossovers(gp, &run->subjects[j]);
		for (size_t j = i; j < end; j++) {
			for (unsigned int p = 0; p < run->subjects[j].path_count; p++) {
				/* A path keeps its colour; decryption is dashed. */
				fprintf(gp,
					"%s'-' using 1:2 with linespoints "
					"lc %u dt %d title '%s %s'",
					sep, p + 1,
					run->subjects[j].direction == HWOFF_DECRYPT ? 2 : 1,
					run->subjects[j].paths[p].name,
					hwoff_direction_name(run->subjects[j].direction));
				sep = ", ";
			}
		}
		fputc('\n', gp);
		for (size_t j = i; j < end; j++) {
			const struct cal_subject *s = &run->subjects[j];

			for (unsigned int p = 0; p < s->path_count; p++) {
				for (size_t k = 0; k < s->point_count; k++)
					if (s->points[k].bytes_per_s[p] > 0)
						fprintf(gp, "%zu %.4f\n", s->points[k].size,
							s->points[k].bytes_per_s[p] / 1e6);
				fputs("e\n", gp);
			}
		}
		i = end;
	}
}

/* Render with gnuplot when this machine has it (bench/calibrate renders on the host if not). */
void cal_render_plots(const char *dir, char *report, size_t report_len)
{
	char *command;
	int status;

	if (system("command -v gnuplot >/dev/null 2>&1") != 0) {
		hwoff_appendf(report, report_len,
			      "plots: no gnuplot here: run gnuplot on %s/plot.gp\n", dir);
		return;
	}
	if (asprintf(&command, "cd '%s' && gnuplot plot.gp", dir) < 0)
		return;
	status = system(command);
	free(command);
	hwoff_appendf(report, report_len, "plots: %s/ALGORITHM.png%s\n", dir,
		      status ? " (gnuplot failed)" : "");
}
