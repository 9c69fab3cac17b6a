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
 * and sets those thresholds in sysfs. Options and output files here; what the reports say,
 * the thresholds and the plots in calibrate-report.c.
 */
#define _GNU_SOURCE /* asprintf */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "backend/table_file.h"
#include "backend/text.h"
#include "tools/calibrate-report.h"
#include "tools/calibrate.h"
#include "config.h"

#define GRID_MAX 32
#define TIE	 0.03 /* medians within 3 % are equal (see cal_compare()) */

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
		     size_t size, const char *phase)
{
	fprintf(stderr, "\r\033[K[%zu/%zu] %s %s, %zu bytes (%s), %u paths", subject + 1,
		subject_count, s->alg->name, hwoff_direction_name(s->direction), size, phase,
		s->path_count);
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

	cal_report_stability(&run, report, sizeof(report));
	f = open_out(o.out, "decisions");
	cal_report_decisions(&run, o.objectives, TIE, f, report, sizeof(report));
	ret |= close_out(f, o.out, "decisions");
	f = open_out(o.out, "verification");
	fputs(run.verification, f);
	fputs(run.fixes, f);
	ret |= close_out(f, o.out, "verification");
	if (run.fix_count)
		hwoff_appendf(report, sizeof(report),
			      "verification: the learnt table lost clearly for %u algorithms and "
			      "directions, derived again (%s/verification)\n",
			      run.fix_count, o.out);
	else
		hwoff_appendf(report, sizeof(report),
			      "verification: the learnt table lost clearly nowhere\n");
	f = open_out(o.out, "thresholds");
	fprintf(f,
		"# The hwoffload engine's auto driver thresholds (sysfs hwoffload/threshold_*, "
		"software_*),\n# bytes: the PIO/DMA and software tier/engine crossovers of "
		"hwoffload-calibrate %s. Install as "
		"%s\n# for tools/hwoffload-thresholds to apply when the engine binds.\n",
		PACKAGE_VERSION, CAL_THRESHOLDS_FILE);
	cal_set_thresholds(&run, o.set_thresholds, f, report, sizeof(report));
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
	cal_write_plot_script(f, &run);
	if (close_out(f, o.out, "plot.gp") == 0)
		cal_render_plots(o.out, report, sizeof(report));
	else
		ret = -1;

	fputs(run.notes, stdout);
	fputs(run.limits, stdout);
	fputs(run.fixes, stdout);
	fputs(report, stdout);
	printf("table: %s/path-table\nmeasurements: %s/measurements.csv\nthresholds: "
	       "%s/thresholds\ndecisions: %s/decisions\nverification: %s/verification\n",
	       o.out, o.out, o.out, o.out, o.out);
	cal_run_free(&run);
	return ret ? 1 : 0;
}
