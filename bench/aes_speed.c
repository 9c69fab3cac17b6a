// SPDX-License-Identifier: Apache-2.0
/*
 * AES-128-CBC encryption speed through AF_ALG (libkcapi), by kernel driver name, printed as
 * tables. A benchmark, not a test: it asserts nothing about speed. bench/aes-speed runs it in
 * guests, one per engine profile.
 *
 *   aes_speed [-t SECONDS] [-r ROUNDS] [-s SIZES] table DRIVER...
 *	operations per second for each request size and driver, as tcrypt counts them (the
 *	omap-aes table of 2013), then the CPU time they cost. One synchronous request after
 *	another for SECONDS per cell; every round runs each size and driver once (interleaved,
 *	so that a noisy machine spreads over all of them) and each figure is the median of ROUNDS.
 *   aes_speed [-t SECONDS] [-r ROUNDS] [-s SIZES] [-n THREADS] chain DRIVER
 *	the driver's DMA chaining on and off (debugfs "chain"): THREADS threads, each with its own
 *	socket, keep that many requests in flight; with interrupts per request and requests per
 *	completion pass from the driver's statistics.
 *
 * "noise" is the best round over the worst: how much the machine disturbed a cell.
 *
 * CPU time: "caller" is getrusage() of this process (user + sys), what the application pays.
 * DMA completes in the interrupt thread, and PIO copies and polls in the crypto_engine kernel
 * thread when it does not run in the caller (synchronous PIO), on nobody's account, so "system"
 * is all busy time of /proc/stat: what the machine pays, in % of one CPU. A TCG guest has no
 * steal time: while the host is busy elsewhere, a vCPU's wait for a host core counts as the
 * time of whatever the guest was running.
 *
 * Runs in the guest as root (debugfs), with the hwoffload driver loaded (test/vm/run).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <glob.h>
#include <kcapi.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "bench/benchutil.h"

#define KEY_LEN	    16
#define IV_LEN	    16
#define MAX_THREADS 64

static const uint8_t key[KEY_LEN] = "0123456789abcdef";
static const uint8_t iv[IV_LEN] = "fedcba9876543210";

static unsigned int threads = 8;

static void set_chain(bool on)
{
	char path[512];
	FILE *f;

	find_path(DEBUGFS_DIR "chain", path, sizeof(path));
	f = fopen(path, "w");
	if (!f || fprintf(f, "%d\n", on) < 0 || fclose(f))
		die("cannot write %s (a driver without the chain knob?)", path);
}

/* libkcapi 1.4.0 re-sends the IV with each piece of this size of a one-shot call. */
#define KCAPI_ONE_SHOT_MAX 65536

/* A handle on @driver with the key set, or NULL when the kernel has no such driver. */
static struct kcapi_handle *open_driver(const char *driver)
{
	struct kcapi_handle *handle;

	if (kcapi_cipher_init(&handle, driver, 0))
		return NULL;
	if (kcapi_cipher_setkey(handle, key, KEY_LEN))
		die("%s: cannot set the key", driver);
	return handle;
}

static void encrypt(struct kcapi_handle *handle, const uint8_t *in, uint8_t *out, size_t len)
{
	ssize_t ret = kcapi_cipher_encrypt(handle, in, len, iv, out, len, KCAPI_ACCESS_HEURISTIC);

	if (ret != (ssize_t)len)
		die("encryption of %zu bytes failed: %zd", len, ret);
}

/* A benchmark of wrong results would be worthless: check each driver once against OpenSSL. */
static void check_driver(const char *driver, struct kcapi_handle *handle, const uint8_t *in,
			 uint8_t *out)
{
	uint8_t *want = alloc_buffer();
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int len;

	if (!ctx || !EVP_EncryptInit_ex(ctx, EVP_aes_128_cbc(), NULL, key, iv) ||
	    !EVP_CIPHER_CTX_set_padding(ctx, 0) ||
	    !EVP_EncryptUpdate(ctx, want, &len, in, (int)max_size))
		die("OpenSSL's AES-128-CBC failed");
	EVP_CIPHER_CTX_free(ctx);
	encrypt(handle, in, out, max_size);
	if (memcmp(out, want, max_size))
		die("%s: wrong ciphertext for %zu bytes", driver, max_size);
	free(want);
}

/* A column label: the driver name without the mode, "cbc-aes-X" -> X, "cbc(aes-X)" -> aes-X. */
static const char *label(const char *driver, char *buf, size_t size)
{
	const char *dash = strstr(driver, "-aes-"), *paren = strchr(driver, '(');

	if (dash)
		snprintf(buf, size, "%s", dash + 5);
	else if (paren)
		snprintf(buf, size, "%.*s", (int)strcspn(paren + 1, ")"), paren + 1);
	else
		snprintf(buf, size, "%s", driver);
	return buf;
}

struct encrypt_cell {
	struct kcapi_handle **handles;
	const uint8_t *in;
	uint8_t *out;
};

static void encrypt_cell(void *arg, unsigned int driver, size_t len)
{
	struct encrypt_cell *c = arg;

	encrypt(c->handles[driver], c->in, c->out, len);
}

static struct sample table_cells[MAX_SIZES][MAX_DRIVERS][MAX_ROUNDS];

static void run_table(char **drivers, unsigned int ndrivers)
{
	struct kcapi_handle *handles[MAX_DRIVERS];
	bool present[MAX_DRIVERS] = { false };
	uint8_t *in = alloc_buffer(), *out = alloc_buffer();
	struct encrypt_cell cell = { .handles = handles, .in = in, .out = out };
	unsigned int d;

	if (RAND_bytes(in, (int)max_size) != 1)
		die("RAND_bytes failed");
	for (d = 0; d < ndrivers; d++) {
		handles[d] = open_driver(drivers[d]);
		present[d] = handles[d] != NULL;
		if (present[d])
			check_driver(drivers[d], handles[d], in, out);
		else
			printf("%s: not available in this kernel\n", drivers[d]);
	}
	measure_cells(table_cells, present, ndrivers, encrypt_cell, &cell);
	printf("AES-128-CBC encryption through AF_ALG, one request at a time; median of %u rounds "
	       "of %.2g s per cell, cells interleaved\n",
	       rounds, cell_seconds);
	print_table("operations per second", drivers, ndrivers, table_cells, present, median,
		    offsetof(struct sample, ops_per_s), label);
	print_table("noise: operations per second, the best round over the worst", drivers,
		    ndrivers, table_cells, present, spread, offsetof(struct sample, ops_per_s), label);
	print_table("caller CPU (getrusage user+sys of this process), ns per byte", drivers,
		    ndrivers, table_cells, present, median,
		    offsetof(struct sample, caller_ns_per_byte), label);
	print_table("caller CPU, % of wall time", drivers, ndrivers, table_cells, present, median,
		    offsetof(struct sample, caller_pct), label);
	print_table("system CPU (all busy time of /proc/stat: the engine and interrupt threads "
		    "too), % of one CPU",
		    drivers, ndrivers, table_cells, present, median,
		    offsetof(struct sample, system_pct), label);
	for (d = 0; d < ndrivers; d++)
		if (present[d])
			kcapi_cipher_destroy(handles[d]);
	free(in);
	free(out);
}

/* Chain mode: one thread per request in flight, each on its own socket. */
struct worker {
	struct kcapi_handle *handle;
	uint8_t *in;
	uint8_t *out;
	size_t len;
	unsigned long ops;
	pthread_t tid;
};

static atomic_bool running;
static pthread_barrier_t start_line;

static void *worker_main(void *arg)
{
	struct worker *w = arg;

	pthread_barrier_wait(&start_line);
	while (atomic_load_explicit(&running, memory_order_relaxed)) {
		encrypt(w->handle, w->in, w->out, w->len);
		w->ops++;
	}
	return NULL;
}

/* The driver's counters a chain cell reports, as differences over the cell. */
enum { DMA_REQUESTS, DMA_INTERRUPTS, DMA_CHAINS, DMA_CHAINED_REQUESTS, CHAIN_STATS };
static const char *const chain_stats[CHAIN_STATS] = {
	[DMA_REQUESTS] = "dma_requests",
	[DMA_INTERRUPTS] = "dma_interrupts",
	[DMA_CHAINS] = "dma_chains",
	[DMA_CHAINED_REQUESTS] = "dma_chained_requests",
};

struct chain_sample {
	struct sample speed;
	double irqs_per_request;
	double requests_per_pass;
};

static double ratio(long long a, long long b)
{
	return b ? (double)a / b : 0;
}

static struct chain_sample chain_cell(struct worker *workers, size_t len)
{
	long long before[CHAIN_STATS], delta[CHAIN_STATS];
	struct usage start, end;
	unsigned long ops = 0;
	unsigned int i;

	for (i = 0; i < CHAIN_STATS; i++)
		before[i] = stat_value(chain_stats[i]);
	atomic_store(&running, true);
	for (i = 0; i < threads; i++) {
		workers[i].len = len;
		workers[i].ops = 0;
		if (pthread_create(&workers[i].tid, NULL, worker_main, &workers[i]))
			die("cannot start a thread");
	}
	pthread_barrier_wait(&start_line);
	usage_now(&start);
	usleep((useconds_t)(cell_seconds * 1e6));
	atomic_store(&running, false);
	/* the requests still in flight finish inside the measured time */
	for (i = 0; i < threads; i++) {
		pthread_join(workers[i].tid, NULL);
		ops += workers[i].ops;
	}
	usage_now(&end);
	for (i = 0; i < CHAIN_STATS; i++)
		delta[i] = stat_value(chain_stats[i]) - before[i];
	return (struct chain_sample){
		.speed = sample_of(ops, len, &start, &end),
		.irqs_per_request = ratio(delta[DMA_INTERRUPTS], delta[DMA_REQUESTS]),
		.requests_per_pass = ratio(delta[DMA_CHAINED_REQUESTS], delta[DMA_CHAINS]),
	};
}

/* The median or spread of one member of a chain cell's rounds. */
#define CHAIN_FIGURE(figure, c, member) \
	figure(c, sizeof(*(c)), offsetof(struct chain_sample, member))

static struct chain_sample chain_cells[MAX_SIZES][2][MAX_ROUNDS];

static void run_chain(const char *driver)
{
	struct worker workers[MAX_THREADS];
	long long max_start, max_off = -1;
	unsigned int r, s, i, on;

	for (i = 0; i < threads; i++) {
		workers[i].handle = open_driver(driver);
		if (!workers[i].handle)
			die("%s: not available in this kernel", driver);
		workers[i].in = alloc_buffer();
		workers[i].out = alloc_buffer();
		if (RAND_bytes(workers[i].in, (int)max_size) != 1)
			die("RAND_bytes failed");
	}
	check_driver(driver, workers[0].handle, workers[0].in, workers[0].out);
	if (pthread_barrier_init(&start_line, NULL, threads + 1))
		die("cannot make a barrier");
	max_start = stat_value("dma_chain_max");
	/*
	 * Off first in even rounds, on first in odd ones. dma_chain_max only grows, so it says
	 * what chaining off does only before the first "on" cell.
	 */
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < 2; i++) {
			on = (i + r) % 2;
			set_chain(on);
			for (s = 0; s < nsizes; s++)
				chain_cells[s][on][r] = chain_cell(workers, sizes[s]);
			if (max_off < 0 && !on)
				max_off = stat_value("dma_chain_max");
		}
	}
	set_chain(true);

	printf("DMA chaining on and off: %s, AES-128-CBC encryption, %u threads each with its own "
	       "socket; median of %u rounds of %.2g s per cell, cells interleaved\n\n",
	       driver, threads, rounds, cell_seconds);
	printf("%8s %5s %8s %6s %7s %9s %9s %8s %8s %8s\n", "bytes", "chain", "ops/s", "noise",
	       "MB/s", "irqs/req", "reqs/pass", "ns/B", "caller%", "system%");
	for (s = 0; s < nsizes; s++) {
		for (on = 2; on-- > 0;) { /* on, then off */
			const struct chain_sample *c = chain_cells[s][on];
			double ops = CHAIN_FIGURE(median, c, speed.ops_per_s);

			printf("%8zu %5s %8.0f %6.2f %7.1f %9.2f %9.2f %8.2f %8.0f %8.0f\n",
			       sizes[s], on ? "on" : "off", ops,
			       CHAIN_FIGURE(spread, c, speed.ops_per_s), ops * sizes[s] / 1e6,
			       CHAIN_FIGURE(median, c, irqs_per_request),
			       CHAIN_FIGURE(median, c, requests_per_pass),
			       CHAIN_FIGURE(median, c, speed.caller_ns_per_byte),
			       CHAIN_FIGURE(median, c, speed.caller_pct),
			       CHAIN_FIGURE(median, c, speed.system_pct));
		}
	}
	printf("dma_chain_max (the most requests one completion pass finished): %lld before, "
	       "%lld after the first chain-off cells, %lld at the end\n",
	       max_start, max_off, stat_value("dma_chain_max"));
	for (i = 0; i < threads; i++) {
		kcapi_cipher_destroy(workers[i].handle);
		free(workers[i].in);
		free(workers[i].out);
	}
	pthread_barrier_destroy(&start_line);
}

static void usage(void)
{
	fputs("usage: aes_speed [-t SECONDS] [-r ROUNDS] [-s SIZE,...] table DRIVER...\n"
	      "       aes_speed [-t SECONDS] [-r ROUNDS] [-s SIZE,...] [-n THREADS] chain DRIVER\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	char default_sizes[] = "16,64,256,1024,8192,65536";
	int opt;

	parse_sizes(default_sizes, 16);
	while ((opt = getopt(argc, argv, "t:r:s:n:")) != -1) {
		if (opt == 'n')
			threads = atoi(optarg);
		else if (!bench_option(opt, optarg, 16))
			usage();
	}
	if (cell_seconds <= 0 || rounds < 1 || rounds > MAX_ROUNDS || threads < 1 ||
	    threads > MAX_THREADS || optind + 2 > argc)
		usage();
	if (max_size > KCAPI_ONE_SHOT_MAX)
		die("sizes up to %d bytes: libkcapi's one-shot encryption sends the IV again with "
		    "each 64 KiB piece, so CBC past it is wrong (backend/transport.h); "
		    "bench/request-cost measures larger requests",
		    KCAPI_ONE_SHOT_MAX);
	setvbuf(stdout, NULL, _IOLBF, 0);
	if (!strcmp(argv[optind], "table") && argc - optind - 1 <= MAX_DRIVERS)
		run_table(argv + optind + 1, argc - optind - 1);
	else if (!strcmp(argv[optind], "chain") && optind + 2 == argc)
		run_chain(argv[optind + 1]);
	else
		usage();
	return 0;
}
