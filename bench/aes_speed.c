// SPDX-License-Identifier: Apache-2.0
/*
 * AES-128-CBC encryption speed by kernel driver name, printed as tables: through AF_ALG
 * (libkcapi), or, for a path of the engine's own device ("dev.hwoffload0.cbc-aes-hwoffload-dma",
 * named as discovery names them: backend/device.c), through /dev/hwoffload0 by the backend's
 * transport (backend/transport.h), so that both sit in one boot and one table. A benchmark, not
 * a test: it asserts nothing about speed. bench/aes-speed runs it in guests, one per engine
 * profile.
 *
 *   aes_speed [-t SECONDS] [-r ROUNDS] [-s SIZES] table DRIVER...
 *	operations per second for each request size and driver, as tcrypt counts them (the
 *	omap-aes table of 2013), then the CPU time they cost. One synchronous operation after
 *	another for SECONDS per cell, each from the same IV (AF_ALG sends it with each operation,
 *	the device sets it in the operation's first request); every round runs each size and
 *	driver once (interleaved, so that a noisy machine spreads over all of them) and each
 *	figure is the median of ROUNDS. A device operation is one SUBMIT that waits: one request,
 *	or on PIO one request per FIFO (4 KiB) in one batch.
 *   aes_speed [-t SECONDS] [-r ROUNDS] [-s SIZES] [-n THREADS] chain DRIVER...
 *	each driver's DMA chaining on and off (debugfs "chain"): THREADS threads, each with its
 *	own socket or device session, keep that many requests in flight; with interrupts per
 *	request and requests per completion pass from the driver's statistics. The drivers take
 *	turns cell by cell, one at a time.
 *
 * "noise" is the best round over the worst: how much the machine disturbed a cell.
 *
 * CPU time: "caller" is getrusage() of this process (user + sys), what the application pays:
 * for the device, its SUBMIT too (pinning, mapping, PIO's copies and polling). DMA completes in
 * the interrupt thread, and PIO copies and polls in the crypto_engine kernel thread when it
 * does not run in the caller (synchronous PIO), on nobody's account, so "system"
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

#include "backend/transport.h"
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

/*
 * A driver with the key set, as it is reached: an AF_ALG socket by libkcapi, or a session of
 * the engine's device by the backend's transport (the driver names a path of the device).
 */
struct cipher {
	struct kcapi_handle *kcapi;
	struct hwoff_skcipher *device;
};

/* @driver opened into @c; false, with the driver and the reason in @why, when it is not there. */
static bool open_cipher(struct cipher *c, const char *driver, char *why, size_t why_len)
{
	*c = (struct cipher){ NULL, NULL };
	if (bench_is_device(driver))
		return !hwoff_skcipher_new(&c->device, hwoff_alg_by_name("AES-128-CBC"), driver,
					   key, KEY_LEN, why, why_len);
	if (kcapi_cipher_init(&c->kcapi, driver, 0)) {
		snprintf(why, why_len, "%s: not available in this kernel", driver);
		return false;
	}
	if (kcapi_cipher_setkey(c->kcapi, key, KEY_LEN))
		die("%s: cannot set the key", driver);
	return true;
}

static void close_cipher(struct cipher *c)
{
	if (c->device)
		hwoff_skcipher_free(c->device);
	else
		kcapi_cipher_destroy(c->kcapi);
}

static void encrypt(struct cipher *c, const uint8_t *in, uint8_t *out, size_t len)
{
	ssize_t ret;

	if (c->device) {
		if (hwoff_skcipher_set_iv(c->device, iv, IV_LEN) ||
		    hwoff_skcipher_crypt(c->device, true, in, out, len))
			die("%s", hwoff_skcipher_error(c->device));
		return;
	}
	ret = kcapi_cipher_encrypt(c->kcapi, in, len, iv, out, len, KCAPI_ACCESS_HEURISTIC);
	if (ret != (ssize_t)len)
		die("encryption of %zu bytes failed: %zd", len, ret);
}

/* A benchmark of wrong results would be worthless: check each driver once against OpenSSL. */
static void check_driver(const char *driver, struct cipher *c, const uint8_t *in, uint8_t *out)
{
	uint8_t *want = alloc_buffer();
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int len;

	if (!ctx || !EVP_EncryptInit_ex(ctx, EVP_aes_128_cbc(), NULL, key, iv) ||
	    !EVP_CIPHER_CTX_set_padding(ctx, 0) ||
	    !EVP_EncryptUpdate(ctx, want, &len, in, (int)max_size))
		die("OpenSSL's AES-128-CBC failed");
	EVP_CIPHER_CTX_free(ctx);
	encrypt(c, in, out, max_size);
	if (memcmp(out, want, max_size))
		die("%s: wrong ciphertext for %zu bytes", driver, max_size);
	free(want);
}

/*
 * A column label: the driver name without the mode, "cbc-aes-X" -> X, "cbc(aes-X)" -> aes-X, and
 * a path of the device without its node, "dev.NODE.cbc-aes-X" -> dev.X.
 */
static const char *label(const char *driver, char *buf, size_t size)
{
	const char *dash = strstr(driver, "-aes-"), *paren = strchr(driver, '(');

	if (dash)
		snprintf(buf, size, "%s%s", bench_is_device(driver) ? "dev." : "", dash + 5);
	else if (paren)
		snprintf(buf, size, "%.*s", (int)strcspn(paren + 1, ")"), paren + 1);
	else
		snprintf(buf, size, "%s", driver);
	return buf;
}

struct encrypt_cell {
	struct cipher *ciphers;
	const uint8_t *in;
	uint8_t *out;
};

static void encrypt_cell(void *arg, unsigned int driver, size_t len)
{
	struct encrypt_cell *c = arg;

	encrypt(&c->ciphers[driver], c->in, c->out, len);
}

static struct sample table_cells[MAX_SIZES][MAX_DRIVERS][MAX_ROUNDS];

static void run_table(char **drivers, unsigned int ndrivers)
{
	struct cipher ciphers[MAX_DRIVERS];
	bool present[MAX_DRIVERS] = { false };
	uint8_t *in = alloc_buffer(), *out = alloc_buffer();
	struct encrypt_cell cell = { .ciphers = ciphers, .in = in, .out = out };
	char why[HWOFF_TRANSPORT_ERROR_MAX];
	unsigned int d;

	if (RAND_bytes(in, (int)max_size) != 1)
		die("RAND_bytes failed");
	for (d = 0; d < ndrivers; d++) {
		present[d] = open_cipher(&ciphers[d], drivers[d], why, sizeof(why));
		if (present[d])
			check_driver(drivers[d], &ciphers[d], in, out);
		else
			printf("%s\n", why);
	}
	measure_cells(table_cells, present, ndrivers, encrypt_cell, &cell);
	printf("AES-128-CBC encryption through AF_ALG (dev.*: through the engine's own device), "
	       "one operation at a time; median of %u rounds of %.2g s per cell, cells "
	       "interleaved\n",
	       rounds, cell_seconds);
	print_table("operations per second", drivers, ndrivers, table_cells, present, median,
		    offsetof(struct sample, ops_per_s), label);
	print_table("noise: operations per second, the best round over the worst", drivers,
		    ndrivers, table_cells, present, spread, offsetof(struct sample, ops_per_s),
		    label);
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
			close_cipher(&ciphers[d]);
	free(in);
	free(out);
}

/* Chain mode: one thread per request in flight, each on its own socket or device session. */
struct worker {
	struct cipher cipher;
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
		encrypt(&w->cipher, w->in, w->out, w->len);
		w->ops++;
	}
	return NULL;
}

/*
 * The driver's counters a chain cell reports, as differences over the cell. The device's DMA
 * requests have a counter of their own; interrupts and completion passes count every request.
 */
enum { DMA_REQUESTS, DMA_INTERRUPTS, DMA_CHAINS, DMA_CHAINED_REQUESTS, CHAIN_STATS };
static const char *const chain_stats[CHAIN_STATS] = {
	[DMA_REQUESTS] = "dma_requests",
	[DMA_INTERRUPTS] = "dma_interrupts",
	[DMA_CHAINS] = "dma_chains",
	[DMA_CHAINED_REQUESTS] = "dma_chained_requests",
};

static const char *chain_stat(const char *driver, unsigned int stat)
{
	if (stat == DMA_REQUESTS && bench_is_device(driver))
		return "device_dma_requests";
	return chain_stats[stat];
}

struct chain_sample {
	struct sample speed;
	double irqs_per_request;
	double requests_per_pass;
};

static double ratio(long long a, long long b)
{
	return b ? (double)a / b : 0;
}

static struct chain_sample chain_cell(const char *driver, struct worker *workers, size_t len)
{
	long long before[CHAIN_STATS], delta[CHAIN_STATS];
	struct usage start, end;
	unsigned long ops = 0;
	unsigned int i;

	for (i = 0; i < CHAIN_STATS; i++)
		before[i] = stat_value(chain_stat(driver, i));
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
		delta[i] = stat_value(chain_stat(driver, i)) - before[i];
	return (struct chain_sample){
		.speed = sample_of(ops, len, &start, &end),
		.irqs_per_request = ratio(delta[DMA_INTERRUPTS], delta[DMA_REQUESTS]),
		.requests_per_pass = ratio(delta[DMA_CHAINED_REQUESTS], delta[DMA_CHAINS]),
	};
}

/* The median or spread of one member of a chain cell's rounds. */
#define CHAIN_FIGURE(figure, c, member) \
	figure(c, sizeof(*(c)), offsetof(struct chain_sample, member))

static struct chain_sample chain_cells[MAX_SIZES][MAX_DRIVERS][2][MAX_ROUNDS];
static struct worker workers[MAX_DRIVERS][MAX_THREADS];

static void open_workers(const char *driver, struct worker *w)
{
	char why[HWOFF_TRANSPORT_ERROR_MAX];
	unsigned int i;

	for (i = 0; i < threads; i++) {
		if (!open_cipher(&w[i].cipher, driver, why, sizeof(why)))
			die("%s", why);
		w[i].in = alloc_buffer();
		w[i].out = alloc_buffer();
		if (RAND_bytes(w[i].in, (int)max_size) != 1)
			die("RAND_bytes failed");
	}
	check_driver(driver, &w[0].cipher, w[0].in, w[0].out);
}

static void print_chain(char **drivers, unsigned int ndrivers)
{
	unsigned int s, d, on;
	char buf[64];

	printf("%8s %17s %5s %8s %6s %7s %9s %9s %8s %8s %8s\n", "bytes", "driver", "chain",
	       "ops/s", "noise", "MB/s", "irqs/req", "reqs/pass", "ns/B", "caller%", "system%");
	for (s = 0; s < nsizes; s++) {
		for (d = 0; d < ndrivers; d++) {
			for (on = 2; on-- > 0;) { /* on, then off */
				const struct chain_sample *c = chain_cells[s][d][on];
				double ops = CHAIN_FIGURE(median, c, speed.ops_per_s);

				printf("%8zu %17s %5s %8.0f %6.2f %7.1f %9.2f %9.2f %8.2f %8.0f "
				       "%8.0f\n",
				       sizes[s], label(drivers[d], buf, sizeof(buf)),
				       on ? "on" : "off", ops,
				       CHAIN_FIGURE(spread, c, speed.ops_per_s),
				       ops * sizes[s] / 1e6,
				       CHAIN_FIGURE(median, c, irqs_per_request),
				       CHAIN_FIGURE(median, c, requests_per_pass),
				       CHAIN_FIGURE(median, c, speed.caller_ns_per_byte),
				       CHAIN_FIGURE(median, c, speed.caller_pct),
				       CHAIN_FIGURE(median, c, speed.system_pct));
			}
		}
	}
}

static void run_chain(char **drivers, unsigned int ndrivers)
{
	long long max_start, max_off = -1;
	unsigned int r, s, i, j, d, on;

	for (d = 0; d < ndrivers; d++)
		open_workers(drivers[d], workers[d]);
	if (pthread_barrier_init(&start_line, NULL, threads + 1))
		die("cannot make a barrier");
	max_start = stat_value("dma_chain_max");
	/*
	 * Off first in even rounds, on first in odd ones; the drivers take turns within each
	 * size, starting with another each round. dma_chain_max only grows, so it says what
	 * chaining off does only before the first "on" cell.
	 */
	for (r = 0; r < rounds; r++) {
		for (i = 0; i < 2; i++) {
			on = (i + r) % 2;
			set_chain(on);
			for (s = 0; s < nsizes; s++) {
				for (j = 0; j < ndrivers; j++) {
					d = (j + r) % ndrivers;
					chain_cells[s][d][on][r] =
						chain_cell(drivers[d], workers[d], sizes[s]);
				}
			}
			if (max_off < 0 && !on)
				max_off = stat_value("dma_chain_max");
		}
	}
	set_chain(true);

	printf("DMA chaining on and off: AES-128-CBC encryption, %u threads each with its own "
	       "socket (dev.*: device session); median of %u rounds of %.2g s per cell, cells "
	       "interleaved\n\n",
	       threads, rounds, cell_seconds);
	print_chain(drivers, ndrivers);
	printf("dma_chain_max (the most requests one completion pass finished): %lld before, "
	       "%lld after the first chain-off cells, %lld at the end\n",
	       max_start, max_off, stat_value("dma_chain_max"));
	for (d = 0; d < ndrivers; d++) {
		for (i = 0; i < threads; i++) {
			close_cipher(&workers[d][i].cipher);
			free(workers[d][i].in);
			free(workers[d][i].out);
		}
	}
	pthread_barrier_destroy(&start_line);
}

static void usage(void)
{
	fputs("usage: aes_speed [-t SECONDS] [-r ROUNDS] [-s SIZE,...] table DRIVER...\n"
	      "       aes_speed [-t SECONDS] [-r ROUNDS] [-s SIZE,...] [-n THREADS] "
	      "chain DRIVER...\n",
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
	if (argc - optind - 1 > MAX_DRIVERS)
		die("at most %d drivers", MAX_DRIVERS);
	if (!strcmp(argv[optind], "table"))
		run_table(argv + optind + 1, argc - optind - 1);
	else if (!strcmp(argv[optind], "chain"))
		run_chain(argv + optind + 1, argc - optind - 1);
	else
		usage();
	return 0;
}
