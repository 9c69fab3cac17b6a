/* SPDX-License-Identifier: Apache-2.0 */
/*
 * What the speed benchmarks (aes_speed, hash_speed) share: the cells and their rounds, CPU time,
 * medians and spreads, the driver's debugfs statistics, the tables.
 *
 * CPU time: "caller" is getrusage() of this process (user + sys), what the application pays.
 * PIO copies and polls in the crypto_engine kernel thread and DMA completes in the interrupt
 * thread, on nobody's account, so "system" is all busy time of /proc/stat: what the machine
 * pays, in % of one CPU. A TCG guest has no steal time: while the host is busy elsewhere, a
 * vCPU's wait for a host core counts as the time of whatever the guest was running.
 */
#ifndef HWOFFLOAD_BENCHUTIL_H
#define HWOFFLOAD_BENCHUTIL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/transport.h"

#define PAGE_SIZE   4096
#define MAX_DRIVERS 8
#define MAX_SIZES   8
#define MAX_ROUNDS  15
#define DEBUGFS_DIR "/sys/kernel/debug/hwoffload/*/"

/* -t, -r, -s of the benchmarks */
extern double cell_seconds;
extern unsigned int rounds;
extern size_t sizes[MAX_SIZES];
extern unsigned int nsizes;
extern size_t max_size;

void die(const char *fmt, ...) __attribute__((format(printf, 1, 2), noreturn));
double now(void);

/* Wall time, this process's CPU time and all CPUs' busy time, in seconds. */
struct usage {
	double wall;
	double caller;
	double busy;
};

void usage_now(struct usage *u);

/* What one cell measured. */
struct sample {
	double ops_per_s;
	double caller_ns_per_byte;
	double caller_pct; /* of wall time */
	double system_pct; /* of one CPU */
};

struct sample sample_of(unsigned long ops, size_t len, const struct usage *start,
			const struct usage *end);
/* The median, or the largest over the smallest, of one double field of @rounds records. */
double median(const void *records, size_t record_size, size_t field);
double spread(const void *records, size_t record_size, size_t field);
/* The median of @n values (0 for none); @values stay as they are. */
double median_of(const double *values, size_t n);
/*
 * Every cell, @rounds times: @op(@arg, driver, size) once to warm up, then again and again for
 * cell_seconds. Each round runs each size and driver once, interleaved (so that a noisy machine
 * spreads over all of them), starting with another driver each time.
 */
void measure_cells(struct sample cells[][MAX_DRIVERS][MAX_ROUNDS], const bool *present,
		   unsigned int ndrivers, void (*op)(void *arg, unsigned int driver, size_t len),
		   void *arg);
void find_path(const char *pattern, char *path, size_t size);
long long stat_value(const char *name);
uint8_t *alloc_buffer(void);
void print_figure(double v, int width);
void print_table(const char *title, char **drivers, unsigned int ndrivers,
		 struct sample cells[][MAX_DRIVERS][MAX_ROUNDS], const bool *present,
		 double (*figure)(const void *, size_t, size_t), size_t field,
		 const char *(*label)(const char *driver, char *buf, size_t size));
void parse_sizes(char *list, size_t step);
/* -t SECONDS, -r ROUNDS, -s SIZE,... (multiples of @step): 1 if @opt was one of them. */
int bench_option(int opt, char *arg, size_t step);

/*
 * Whether @driver names a path of the engine's own device ("dev.NODE.DRIVER"), which the
 * backend's transport reaches, rather than an AF_ALG driver. Inline: only the benchmarks that
 * use it link the backend.
 */
static inline bool bench_is_device(const char *driver)
{
	return hwoff_transport_of(driver) == &hwoff_transport_device;
}

#endif
