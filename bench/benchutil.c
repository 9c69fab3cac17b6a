// SPDX-License-Identifier: Apache-2.0
/*
 * What the speed benchmarks (aes_speed, hash_speed) share: the cells and their rounds, CPU time,
 * medians and spreads, the driver's debugfs statistics, the tables.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <glob.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench/benchutil.h"

double cell_seconds = 0.5;
unsigned int rounds = 3;
size_t sizes[MAX_SIZES];
unsigned int nsizes;
size_t max_size;

void die(const char *fmt, ...)
{
	va_list ap;

	va_start(ap, fmt);
	fprintf(stderr, "%s: ", program_invocation_short_name);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
	exit(1);
}

double now(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec + ts.tv_nsec / 1e9;
}

static double tv_seconds(struct timeval tv)
{
	return tv.tv_sec + tv.tv_usec / 1e6;
}

void usage_now(struct usage *u)
{
	unsigned long long user, nice, sys, idle, iowait, irq, softirq, steal;
	struct rusage ru;
	FILE *f;

	getrusage(RUSAGE_SELF, &ru);
	u->caller = tv_seconds(ru.ru_utime) + tv_seconds(ru.ru_stime);
	f = fopen("/proc/stat", "r");
	if (!f || fscanf(f, "cpu %llu %llu %llu %llu %llu %llu %llu %llu", &user, &nice, &sys,
			 &idle, &iowait, &irq, &softirq, &steal) != 8)
		die("cannot read /proc/stat");
	fclose(f);
	u->busy = (double)(user + nice + sys + irq + softirq + steal) / sysconf(_SC_CLK_TCK);
	u->wall = now();
}

/* @ops requests of @len bytes between @start and @end. */
struct sample sample_of(unsigned long ops, size_t len, const struct usage *start,
			       const struct usage *end)
{
	double wall = end->wall - start->wall, caller = end->caller - start->caller;

	return (struct sample){
		.ops_per_s = ops / wall,
		.caller_ns_per_byte = ops ? caller * 1e9 / ((double)ops * len) : 0,
		.caller_pct = 100 * caller / wall,
		.system_pct = 100 * (end->busy - start->busy) / wall,
	};
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return (x > y) - (x < y);
}

/* One double field (at offset @field) of the @rounds records of a cell, sorted into @v. */
static void sorted_rounds(const void *records, size_t record_size, size_t field, double *v)
{
	unsigned int r;

	for (r = 0; r < rounds; r++)
		v[r] = *(const double *)((const char *)records + r * record_size + field);
	qsort(v, rounds, sizeof(v[0]), cmp_double);
}

/* The median of @n sorted values. */
static double sorted_median(const double *v, size_t n)
{
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

double median(const void *records, size_t record_size, size_t field)
{
	double v[MAX_ROUNDS];

	sorted_rounds(records, record_size, field, v);
	return sorted_median(v, rounds);
}

double median_of(const double *values, size_t n)
{
	double *v = malloc(n * sizeof(*v)), m;

	if (!v)
		die("out of memory");
	memcpy(v, values, n * sizeof(*v));
	qsort(v, n, sizeof(v[0]), cmp_double);
	m = n ? sorted_median(v, n) : 0;
	free(v);
	return m;
}

/* How far the rounds of a cell disagree: the largest over the smallest. */
double spread(const void *records, size_t record_size, size_t field)
{
	double v[MAX_ROUNDS];

	sorted_rounds(records, record_size, field, v);
	return v[0] > 0 ? v[rounds - 1] / v[0] : 0;
}

/* The one path matching @pattern (debugfs of the single hwoffload device). */
void find_path(const char *pattern, char *path, size_t size)
{
	glob_t g;

	if (glob(pattern, 0, NULL, &g) || g.gl_pathc != 1)
		die("need exactly one %s (is the driver loaded, debugfs mounted, are we root?)",
		    pattern);
	snprintf(path, size, "%s", g.gl_pathv[0]);
	globfree(&g);
}

/* One counter of the driver's debugfs statistics ("name: value" lines). */
long long stat_value(const char *name)
{
	char path[512], line[128];
	size_t n = strlen(name);
	long long value = -1;
	FILE *f;

	find_path(DEBUGFS_DIR "stats", path, sizeof(path));
	f = fopen(path, "r");
	if (!f)
		die("cannot open %s: %s", path, strerror(errno));
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ':')
			value = strtoll(line + n + 1, NULL, 10);
	fclose(f);
	if (value < 0)
		die("no statistic %s in %s", name, path);
	return value;
}

/* A page-aligned buffer of max_size bytes. */
uint8_t *alloc_buffer(void)
{
	uint8_t *buf = aligned_alloc(PAGE_SIZE, max_size);

	if (!buf)
		die("out of memory");
	return buf;
}

void print_figure(double v, int width)
{
	printf(v < 10 ? " %*.2f" : v < 100 ? " %*.1f" : " %*.0f", width, v);
}

/* Rows of sizes, columns of drivers: @figure (median, spread) of one field of struct sample. */
void print_table(const char *title, char **drivers, unsigned int ndrivers,
		 struct sample cells[][MAX_DRIVERS][MAX_ROUNDS], const bool *present,
		 double (*figure)(const void *, size_t, size_t), size_t field,
		 const char *(*label)(const char *driver, char *buf, size_t size))
{
	unsigned int s, d;
	int width[MAX_DRIVERS];
	char buf[64];

	printf("\n%s\n%8s", title, "bytes");
	for (d = 0; d < ndrivers; d++) {
		label(drivers[d], buf, sizeof(buf));
		width[d] = strlen(buf) > 9 ? (int)strlen(buf) : 9;
		printf(" %*s", width[d], buf);
	}
	putchar('\n');
	for (s = 0; s < nsizes; s++) {
		printf("%8zu", sizes[s]);
		for (d = 0; d < ndrivers; d++)
			if (present[d])
				print_figure(figure(cells[s][d], sizeof(struct sample), field),
					     width[d]);
			else
				printf(" %*s", width[d], "n/a");
		putchar('\n');
	}
}

/* SIZE,... into sizes[] and max_size; each a multiple of @step. */
void parse_sizes(char *list, size_t step)
{
	char *item, *end;

	for (nsizes = 0; (item = strsep(&list, ",")); nsizes++) {
		if (nsizes == MAX_SIZES)
			die("at most %d sizes", MAX_SIZES);
		sizes[nsizes] = strtoul(item, &end, 0);
		if (*end || !sizes[nsizes] || sizes[nsizes] % step)
			die("sizes are multiples of %zu bytes, not '%s'", step, item);
		if (sizes[nsizes] > max_size)
			max_size = sizes[nsizes];
	}
}

int bench_option(int opt, char *arg, size_t step)
{
	switch (opt) {
	case 't':
		cell_seconds = atof(arg);
		return 1;
	case 'r':
		rounds = atoi(arg);
		return 1;
	case 's':
		max_size = 0;
		parse_sizes(arg, step);
		return 1;
	default:
		return 0;
	}
}

static struct sample measure_cell(void (*op)(void *arg, unsigned int driver, size_t len),
				  void *arg, unsigned int driver, size_t len)
{
	struct usage start, end;
	unsigned long ops = 0;

	op(arg, driver, len);
	usage_now(&start);
	do {
		op(arg, driver, len);
		ops++;
	} while (now() - start.wall < cell_seconds);
	usage_now(&end);
	return sample_of(ops, len, &start, &end);
}

void measure_cells(struct sample cells[][MAX_DRIVERS][MAX_ROUNDS], const bool *present,
		   unsigned int ndrivers, void (*op)(void *arg, unsigned int driver, size_t len),
		   void *arg)
{
	unsigned int r, s, i, d;

	for (r = 0; r < rounds; r++) {
		for (s = 0; s < nsizes; s++) {
			for (i = 0; i < ndrivers; i++) {
				d = (i + r) % ndrivers;
				if (present[d])
					cells[s][d][r] = measure_cell(op, arg, d, sizes[s]);
			}
		}
	}
}
