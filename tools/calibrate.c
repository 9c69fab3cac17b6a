// SPDX-License-Identifier: Apache-2.0
/*
 * calibrate.c - hwoffload-calibrate: learn the path table of this machine.
 *
 * Measures every algorithm, key size and direction of backend/algs.c on software and on each
 * usable off-CPU kernel driver (calibrate-measure.c), derives the size ranges for both
 * objectives (calibrate-derive.c) and writes, into --out DIR:
 *   path-table        the table, in backend/TABLE.md's format, with this machine's fingerprint
 *   measurements.csv  every sample
 *   plot.gp, ALG.png  throughput over size per algorithm, one line per path and direction,
 *                     the throughput table's crossovers marked (PNGs when gnuplot runs here)
 *   thresholds        the bundled engine's auto driver thresholds, the PIO/DMA crossovers, for
 *                     tools/hwoffload-thresholds to apply when the engine binds (at boot)
 * and sets those thresholds in sysfs.
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <getopt.h>
#include <glob.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/table_file.h"
#include "backend/text.h"
#include "tools/calibrate.h"
#include "config.h"

#define GRID_MAX 32
#define TIE	 0.03 /* medians within 3 % are equal (see cal_compare()) */
#define UNSTABLE 0.2 /* a median spread of repeats above this: a busy machine */

/* --quick: fewer sizes (powers of 16), repeats and shorter samples; still every algorithm. */
static const size_t quick_grid[] = { 16, 256, 4096, 65536, 1048576 };
/* The full run: powers of 4 from 16 B to 1 MiB. */
static const size_t full_grid[] = { 16, 64, 256, 1024, 4096, 16384, 65536, 262144, 1048576 };

struct options {
	const char *out;
	bool quick;
	bool objectives[HWOFF_OBJECTIVE_COUNT];
	bool algs[64];
	bool some_algs;
	size_t grid[GRID_MAX];
	size_t grid_count;
	unsigned int repeats, repeats_max;
	double seconds;
	const char *provider_dir;
	bool set_thresholds;
};

static void usage(FILE *out)
{
	fprintf(out,
		"usage: hwoffload-calibrate [--out DIR] [--quick | --full] [--objective OBJ]\n"
		"                           [--algorithms LIST] [--sizes LIST] [--repeats N]\n"
		"                           [--max-repeats N] [--seconds S] [--provider DIR]\n"
		"                           [--no-thresholds]\n"
		"Measures software (OpenSSL's default provider) and every off-CPU kernel driver\n"
		"for each algorithm, key size and direction over request sizes, through the\n"
		"hwoffload provider as applications reach them, verifies the table it learnt\n"
		"against each path, and writes the path table, measurements.csv and plots into\n"
		"DIR (default: calibration).\n"
		"  --quick            sizes 16 B to 1 MiB by powers of 16, 3 to 9 repeats of 10 "
		"ms\n"
		"  --full             (default) powers of 4, 5 to 15 repeats of 30 ms\n"
		"  --objective OBJ    throughput, cpu or both (default) entries in the table\n"
		"  --algorithms LIST  comma-separated OpenSSL names (default: all)\n"
		"  --sizes LIST       comma-separated grid sizes in bytes, multiples of %d,\n"
		"                     up to %lu\n"
		"  --repeats N        samples per path and size at least (1 to 63)\n"
		"  --max-repeats N    and at most, while a choice is unclear (N to 63)\n"
		"  --provider DIR     where hwoffload.so is (default: OpenSSL's modules "
		"directory)\n"
		"  --seconds S        the time one sample aims at (0.0001 to 10)\n"
		"  --no-thresholds    leave the engine's auto driver thresholds in sysfs alone\n",
		CAL_STEP, CAL_SIZE_MAX);
}

static int bad_option(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static int bad_option(const char *fmt, ...)
{
	va_list ap;

	fputs("hwoffload-calibrate: ", stderr);
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
	fputs(" (see --help)\n", stderr);
	return -1;
}

/* A whole number in [min, max] with nothing after it. */
static int parse_number(const char *text, const char *what, unsigned long min, unsigned long max,
			unsigned long *out)
{
	char *end;

	errno = 0;
	*out = strtoul(text, &end, 10);
	if (errno || end == text || *end || text[0] == '-' || *out < min || *out > max)
		return bad_option("%s '%s' is not a whole number from %lu to %lu", what, text, min,
				  max);
	return 0;
}

static int parse_sizes(struct options *o, char *list)
{
	char *save = NULL;

	o->grid_count = 0;
	for (char *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		unsigned long size;

		if (o->grid_count == GRID_MAX)
			return bad_option("more than %d sizes", GRID_MAX);
		if (parse_number(item, "size", CAL_STEP, CAL_SIZE_MAX, &size))
			return -1;
		if (size % CAL_STEP)
			return bad_option("size %lu is not a multiple of %d bytes", size, CAL_STEP);
		if (o->grid_count && size <= o->grid[o->grid_count - 1])
			return bad_option("sizes must increase: %lu after %zu", size,
					  o->grid[o->grid_count - 1]);
		o->grid[o->grid_count++] = size;
	}
	if (!o->grid_count)
		return bad_option("--sizes needs at least one size");
	return 0;
}

static int parse_algorithms(struct options *o, char *list)
{
	char *save = NULL;

	for (char *item = strtok_r(list, ",", &save); item; item = strtok_r(NULL, ",", &save)) {
		const struct hwoff_alg *alg = hwoff_alg_by_name(item);

		if (!alg)
			return bad_option("unknown algorithm '%s'", item);
		o->algs[hwoff_alg_index(alg)] = true;
	}
	o->some_algs = true;
	for (size_t a = 0; a < HWOFF_ALG_COUNT; a++)
		if (o->algs[a])
			return 0;
	return bad_option("--algorithms needs at least one algorithm");
}

static int parse_options(struct options *o, int argc, char **argv)
{
	static const struct option options[] = {
		{ "out", required_argument, NULL, 'o' },
		{ "quick", no_argument, NULL, 'q' },
		{ "full", no_argument, NULL, 'f' },
		{ "objective", required_argument, NULL, 'O' },
		{ "algorithms", required_argument, NULL, 'a' },
		{ "sizes", required_argument, NULL, 's' },
		{ "repeats", required_argument, NULL, 'r' },
		{ "max-repeats", required_argument, NULL, 'R' },
		{ "provider", required_argument, NULL, 'p' },
		{ "seconds", required_argument, NULL, 't' },
		{ "no-thresholds", no_argument, NULL, 'n' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool sizes_given = false;
	unsigned long number;
	char *end;
	int opt;

	*o = (struct options){ .out = "calibration", .set_thresholds = true };
	o->objectives[HWOFF_THROUGHPUT] = o->objectives[HWOFF_CPU] = true;
	if (HWOFF_ALG_COUNT > sizeof(o->algs) / sizeof(o->algs[0]))
		return bad_option("internal: more algorithms than --algorithms can hold");
	opterr = 0; /* its messages are replaced by ours */
	while ((opt = getopt_long(argc, argv, ":", options, NULL)) != -1) {
		switch (opt) {
		case 'o':
			o->out = optarg;
			break;
		case 'q':
		case 'f':
			o->quick = opt == 'q';
			break;
		case 'O':
			if (strcmp(optarg, "both") && strcmp(optarg, "throughput") &&
			    strcmp(optarg, "cpu"))
				return bad_option("--objective '%s': throughput, cpu or both",
						  optarg);
			o->objectives[HWOFF_THROUGHPUT] = strcmp(optarg, "cpu") != 0;
			o->objectives[HWOFF_CPU] = strcmp(optarg, "throughput") != 0;
			break;
		case 'a':
			if (parse_algorithms(o, optarg))
				return -1;
			break;
		case 's':
			if (parse_sizes(o, optarg))
				return -1;
			sizes_given = true;
			break;
		case 'r':
			if (parse_number(optarg, "--repeats", 1, 63, &number))
				return -1;
			o->repeats = (unsigned int)number;
			break;
		case 'R':
			if (parse_number(optarg, "--max-repeats", 1, 63, &number))
				return -1;
			o->repeats_max = (unsigned int)number;
			break;
		case 'p':
			o->provider_dir = optarg;
			break;
		case 't':
			errno = 0;
			o->seconds = strtod(optarg, &end);
			if (errno || end == optarg || *end || !(o->seconds >= 0.0001) ||
			    o->seconds > 10)
				return bad_option(
					"--seconds '%s' is not a number from 0.0001 to 10", optarg);
			break;
		case 'n':
			o->set_thresholds = false;
			break;
		case 'h':
			usage(stdout);
			exit(0);
		case ':':
			return bad_option("%s needs a value", argv[optind - 1]);
		default:
			return bad_option("unknown option '%s'", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return bad_option("unexpected argument '%s'", argv[optind]);
	if (!sizes_given) {
		const size_t *grid = o->quick ? quick_grid : full_grid;

		o->grid_count = o->quick ? sizeof(quick_grid) / sizeof(quick_grid[0])
					 : sizeof(full_grid) / sizeof(full_grid[0]);
		memcpy(o->grid, grid, o->grid_count * sizeof(grid[0]));
	}
	if (!o->repeats)
		o->repeats = o->repeats_max && o->repeats_max < 3 ? o->repeats_max
			     : o->quick				  ? 3
								  : 5;
	if (!o->repeats_max)
		o->repeats_max = o->repeats > (o->quick ? 9u : 15u) ? o->repeats
				 : o->quick			    ? 9
								    : 15;
	if (o->repeats_max < o->repeats)
		return bad_option("--max-repeats %u is less than --repeats %u", o->repeats_max,
				  o->repeats);
	if (!o->seconds)
		o->seconds = o->quick ? 0.01 : 0.03;
	return 0;
}

/* On a terminal: one line that keeps being rewritten. */
static void progress(void *arg, size_t subject, size_t subject_count, const struct cal_subject *s,
		     size_t size)
{
	fprintf(stderr, "\r\033[K[%zu/%zu] %s %s, %zu bytes, %u paths", subject + 1, subject_count,
		s->alg->name, hwoff_direction_name(s->direction), size, s->path_count);
}

/* "DIR/name", or exit: nothing is worth doing without the output folder. */
static char *out_path(const char *dir, const char *name)
{
	char *path;

	if (asprintf(&path, "%s/%s", dir, name) < 0) {
		fprintf(stderr, "hwoffload-calibrate: out of memory\n");
		exit(1);
	}
	return path;
}

static FILE *open_out(const char *dir, const char *name)
{
	char *path = out_path(dir, name);
	FILE *f = fopen(path, "w");

	if (!f) {
		fprintf(stderr, "hwoffload-calibrate: %s: %s\n", path, strerror(errno));
		exit(1);
	}
	free(path);
	return f;
}

static int close_out(FILE *f, const char *dir, const char *name)
{
	if (fclose(f) == 0)
		return 0;
	fprintf(stderr, "hwoffload-calibrate: writing %s/%s: %s\n", dir, name, strerror(errno));
	return -1;
}

/* ---- the engine's auto driver thresholds ---------------------------------------------------- */

/*
 * The sysfs name of a row's threshold: the mode of "cbc(aes)", all of "sha256"; an HMAC row's is
 * its digest's (the auto hmac(sha256-hwoffload) driver follows threshold_sha256).
 */
static void threshold_name(const struct hwoff_alg *alg, char *buf, size_t size)
{
	const char *kernel_name =
		hwoff_alg_is_hmac(alg) ? alg->hmac_of->kernel_name : alg->kernel_name;

	snprintf(buf, size, "threshold_%.*s", (int)strcspn(kernel_name, "("), kernel_name);
}

static int cmp_uint(const void *a, const void *b)
{
	unsigned int x = *(const unsigned int *)a, y = *(const unsigned int *)b;

	return (x > y) - (x < y);
}

/*
 * For each threshold of the engine's auto drivers, the median of the PIO/DMA crossovers of the
 * rows and directions it serves (AES-128, -192 and -256 both ways; a digest and its HMAC),
 * written to saved ("threshold_cbc 23170" lines) and to sysfs when set is true. Appends what it
 * did to report.
 */
static void set_thresholds(const struct cal_run *run, bool set, FILE *saved, char *report,
			   size_t report_len)
{
	for (size_t i = 0; i < run->subject_count; i++) {
		unsigned int values[HWOFF_ALG_COUNT * 2], count = 0, value; /* a row, both ways */
		char name[64], other[64], pattern[128], old[32] = "?";
		bool first = true;
		glob_t g;
		FILE *f;

		threshold_name(run->subjects[i].alg, name, sizeof(name));
		for (size_t j = 0; j < run->subject_count; j++) {
			threshold_name(run->subjects[j].alg, other, sizeof(other));
			if (strcmp(other, name) != 0)
				continue;
			first &= j >= i;
			if (cal_engine_threshold(&run->subjects[j], &value))
				values[count++] = value;
		}
		if (!first || !count)
			continue;
		qsort(values, count, sizeof(values[0]), cmp_uint);
		value = values[count / 2];
		fprintf(saved, "%s %u\n", name, value);
		snprintf(pattern, sizeof(pattern), "/sys/bus/pci/devices/*/hwoffload/%s", name);
		if (!set || glob(pattern, 0, NULL, &g) || g.gl_pathc != 1) {
			hwoff_appendf(report, report_len, "%s: PIO/DMA crossover %u bytes: %s\n",
				      name, value,
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
				      "%s: %s -> %u (%s PIO/DMA throughput crossover%s)\n",
				      g.gl_pathv[0], old, value, other, count == 1 ? "" : "s");
		}
		globfree(&g);
	}
}

/*
 * How far the repeats disagreed, over every figure of throughput: the median interquartile
 * range over the median. On a busy host (other guests on its cores) the engine's round trip
 * swings from 0.3 to 8 ms between repeats, and no table holds; say so.
 */
static void report_stability(const struct cal_run *run, char *report, size_t report_len)
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
static void report_decisions(const struct cal_run *run, const bool *objectives, double tie, FILE *f,
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
static void write_plot_script(FILE *gp, const struct cal_run *run)
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
static void render_plots(const char *dir, char *report, size_t report_len)
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

/* ---- main ----------------------------------------------------------------------------------- */

static void describe(char *buf, size_t size, const struct options *o, const struct cal_run *run,
		     const char *thresholds)
{
	char date[32];
	time_t t = time(NULL);

	strftime(date, sizeof(date), "%Y-%m-%d %H:%M", localtime(&t));
	snprintf(buf, size,
		 "Calibrated by hwoffload-calibrate %s on %s (%s): %u to %u runs of %g s per "
		 "size and path, grid",
		 PACKAGE_VERSION, date, o->quick ? "quick" : "full", o->repeats, o->repeats_max,
		 o->seconds);
	for (size_t g = 0; g < o->grid_count; g++)
		hwoff_appendf(buf, size, " %zu", o->grid[g]);
	hwoff_appendf(buf, size,
		      " bytes, crossovers bisected, ties: medians within %.0f %%; verified against "
		      "each path around every crossover.\n"
		      "A kernel driver serves no size above the largest it was checked right at "
		      "(against software, within a time limit).\n%s%s",
		      TIE * 100, run->limits, thresholds);
}

int main(int argc, char **argv)
{
	static struct cal_run run;
	static char report[8192];
	char comment[8192], err[512];
	struct options o;
	struct cal_config cfg;
	struct hwoff_table *t;
	size_t left_out;
	FILE *csv, *f;
	int ret = 0;

	if (parse_options(&o, argc, argv))
		return 2;
	if (mkdir(o.out, 0755) && errno != EEXIST) {
		fprintf(stderr, "hwoffload-calibrate: %s: %s\n", o.out, strerror(errno));
		return 1;
	}
	csv = open_out(o.out, "measurements.csv");
	fputs(CAL_CSV_HEADER, csv);
	cfg = (struct cal_config){
		.grid = o.grid,
		.grid_count = o.grid_count,
		.repeats = o.repeats,
		.repeats_max = o.repeats_max,
		.sample_seconds = o.seconds,
		.resolve_ratio = o.quick ? 2 : 1.19,
		.tie = TIE,
		.algs = o.some_algs ? o.algs : NULL,
		.provider_dir = o.provider_dir,
		.csv = csv,
		.progress = isatty(STDERR_FILENO) ? progress : NULL,
	};
	if (cal_measure(&run, &cfg, err, sizeof(err))) {
		fprintf(stderr, "hwoffload-calibrate: %s\n", err);
		return 1;
	}
	if (cfg.progress)
		fputs("\r\033[K", stderr);
	ret |= close_out(csv, o.out, "measurements.csv");

	report_stability(&run, report, sizeof(report));
	f = open_out(o.out, "decisions");
	report_decisions(&run, o.objectives, TIE, f, report, sizeof(report));
	ret |= close_out(f, o.out, "decisions");
	f = open_out(o.out, "verification");
	fputs(run.verification, f);
	fputs(run.fixes, f);
	ret |= close_out(f, o.out, "verification");
	hwoff_appendf(report, sizeof(report), "%sverification: %s\n", run.fixes,
		      run.fixes[0] ? "the entries above were derived again"
				   : "the learnt table lost clearly nowhere");
	f = open_out(o.out, "thresholds");
	fprintf(f,
		"# The hwoffload engine's auto driver thresholds (sysfs hwoffload/threshold_*), "
		"bytes:\n# the PIO/DMA crossovers measured by hwoffload-calibrate %s. Install as "
		"%s\n# for tools/hwoffload-thresholds to apply when the engine binds.\n",
		PACKAGE_VERSION, CAL_THRESHOLDS_FILE);
	set_thresholds(&run, o.set_thresholds, f, report, sizeof(report));
	ret |= close_out(f, o.out, "thresholds");
	describe(comment, sizeof(comment), &o, &run, report);
	t = cal_table(&run, o.objectives, report, sizeof(report), &left_out);
	if (!t) {
		fprintf(stderr, "hwoffload-calibrate: out of memory\n");
		return 1;
	}
	ret |= left_out ? -1 : 0; /* an incomplete table is a failure, though written */
	f = open_out(o.out, "path-table");
	ret |= hwoff_table_write(t, f, comment) | close_out(f, o.out, "path-table");
	hwoff_table_free(t);
	f = open_out(o.out, "plot.gp");
	write_plot_script(f, &run);
	if (close_out(f, o.out, "plot.gp") == 0)
		render_plots(o.out, report, sizeof(report));
	else
		ret = -1;

	fputs(run.notes, stdout);
	fputs(run.limits, stdout);
	fputs(report, stdout);
	printf("table: %s/path-table\nmeasurements: %s/measurements.csv\nthresholds: "
	       "%s/thresholds\ndecisions: %s/decisions\nverification: %s/verification\n",
	       o.out, o.out, o.out, o.out, o.out);
	cal_run_free(&run);
	return ret ? 1 : 0;
}
