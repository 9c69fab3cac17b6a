// SPDX-License-Identifier: Apache-2.0
/*
 * Hash speed by kernel driver name, printed as the two tables of the stm32-hash DMA patch (lkml,
 * 2024): hashes per second for each data size and driver, and the caller's CPU share (getrusage
 * user + sys over wall time) while hashing one size after another. A driver is reached through
 * AF_ALG, or, for a path of the engine's own device ("dev.hwoffload0.sha256-hwoffload-dma",
 * named as discovery names them: backend/device.c), through /dev/hwoffload0 by the backend's
 * transport (backend/transport.h), so that both sit in one boot and one table. A benchmark, not
 * a test: it asserts nothing about speed. bench/hash-speed runs it in guests, one per engine
 * profile.
 *
 *   hash_speed [-t SECONDS] [-r ROUNDS] [-s SIZES] [-c CPU_SIZES] DRIVER...
 *	every cell is one digest after another for SECONDS: through AF_ALG one send and one
 *	read; through the device one hwoff_hash_finup(), one SUBMIT that waits for the message's
 *	UPDATEs and its FINAL, sent as one batch. Every round runs each size and driver once,
 *	interleaved, and each figure is the median of ROUNDS. The CPU table shows the sizes of
 *	CPU_SIZES (default 2048,4096,8192,16384); the caller's CPU of the device includes its
 *	SUBMIT (pinning and mapping, PIO's copies and polling).
 *
 * Runs in the guest as root, with the hwoffload driver loaded (test/vm/run).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/if_alg.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/benchutil.h"

#define MAX_DIGEST 64

static size_t cpu_sizes[MAX_SIZES];
static unsigned int ncpu_sizes;

/*
 * A driver as it is reached: an AF_ALG operation socket (and its transform socket), or a
 * session of the engine's device by the backend's transport (the driver names a path of it).
 */
struct hasher {
	int op, tfm;
	struct hwoff_hash *device;
};

/*
 * @driver of the hash @alg opened into @h; false, with the driver and the reason in @why, when
 * it is not there.
 */
static bool open_hasher(struct hasher *h, const char *driver, const struct hwoff_alg *alg,
			char *why, size_t why_len)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG, .salg_type = "hash" };

	*h = (struct hasher){ .op = -1, .tfm = -1 };
	if (bench_is_device(driver))
		return !hwoff_hash_new(&h->device, alg, driver, NULL, 0, why, why_len);
	h->tfm = socket(AF_ALG, SOCK_SEQPACKET, 0);
	if (h->tfm < 0)
		die("no AF_ALG socket: %s", strerror(errno));
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", driver);
	if (bind(h->tfm, (struct sockaddr *)&sa, sizeof(sa))) {
		close(h->tfm);
		snprintf(why, why_len, "%s: not available in this kernel", driver);
		return false;
	}
	h->op = accept(h->tfm, NULL, 0);
	if (h->op < 0)
		die("%s: accept: %s", driver, strerror(errno));
	return true;
}

static void close_hasher(struct hasher *h)
{
	if (h->device) {
		hwoff_hash_free(h->device);
		return;
	}
	close(h->op);
	close(h->tfm);
}

/*
 * One digest of @len bytes. AF_ALG: a send without MSG_MORE hashes and finishes, the read
 * collects. The device: the message's UPDATEs and FINAL in one batch.
 */
static void digest(struct hasher *h, const uint8_t *in, size_t len, uint8_t *out, size_t dlen)
{
	if (h->device) {
		if (hwoff_hash_finup(h->device, in, len, out, dlen))
			die("%s", hwoff_hash_error(h->device));
		return;
	}
	if (send(h->op, in, len, 0) != (ssize_t)len || read(h->op, out, dlen) != (ssize_t)dlen)
		die("a digest of %zu bytes failed: %s", len, strerror(errno));
}

/* A benchmark of wrong results would be worthless: check each driver once against OpenSSL. */
static void check_driver(const char *driver, struct hasher *h, const EVP_MD *md, const uint8_t *in)
{
	uint8_t want[MAX_DIGEST], got[MAX_DIGEST];
	unsigned int dlen;

	if (EVP_Digest(in, max_size, want, &dlen, md, NULL) != 1)
		die("OpenSSL's %s failed", EVP_MD_get0_name(md));
	digest(h, in, max_size, got, dlen);
	if (memcmp(got, want, dlen))
		die("%s: wrong digest of %zu bytes", driver, max_size);
}

/*
 * A column label: "sha256-hwoffload-pio" -> "pio", "-hwoffload" -> "auto", a path of the device
 * with "dev." before it ("dev.NODE.sha256-hwoffload-pio" -> "dev.pio"); others as they are.
 */
static const char *label(const char *driver, char *buf, size_t size)
{
	const char *tag = strstr(driver, "-hwoffload");

	if (!tag)
		snprintf(buf, size, "%s", driver);
	else
		snprintf(buf, size, "%s%s", bench_is_device(driver) ? "dev." : "",
			 tag[10] == '-' ? tag + 11 : "auto");
	return buf;
}

/* The driver the bare name gives: the highest priority that passed its self-test. */
static void print_best(const char *name)
{
	char line[256], driver[128] = "", cur[128] = "", best[128] = "?";
	int priority = 0, best_priority = -1, is_name = 0;
	FILE *f = fopen("/proc/crypto", "r");

	if (!f)
		return;
	while (fgets(line, sizeof(line), f)) {
		if (sscanf(line, "name : %127s", cur) == 1)
			is_name = !strcmp(cur, name);
		sscanf(line, "driver : %127s", driver);
		sscanf(line, "priority : %d", &priority);
		if (is_name && !strncmp(line, "selftest", 8) && strstr(line, "passed") &&
		    priority > best_priority) {
			best_priority = priority;
			snprintf(best, sizeof(best), "%s", driver);
		}
	}
	fclose(f);
	printf("the bare name %s gives %s (priority %d)\n", name, best, best_priority);
}

struct digest_cell {
	struct hasher *hashers;
	const uint8_t *in;
	uint8_t *out;
	size_t dlen;
};

static void digest_cell(void *arg, unsigned int driver, size_t len)
{
	struct digest_cell *c = arg;

	digest(&c->hashers[driver], c->in, len, c->out, c->dlen);
}

static struct sample cells[MAX_SIZES][MAX_DRIVERS][MAX_ROUNDS];

/* Markdown rows as in the stm32-hash post: sizes (of @only, if not NULL) by drivers. */
static void print_md_table(const char *title, char **drivers, unsigned int ndrivers,
			   const bool *present, size_t field, const size_t *only,
			   unsigned int nonly, bool pct)
{
	unsigned int s, d, k;
	char buf[64];

	printf("\n%s\n\n| %-8s |", title, "bytes");
	for (d = 0; d < ndrivers; d++)
		printf(" %-14s |", label(drivers[d], buf, sizeof(buf)));
	printf("\n|----------|");
	for (d = 0; d < ndrivers; d++)
		printf("----------------|");
	putchar('\n');
	for (s = 0; s < nsizes; s++) {
		for (k = 0; only && k < nonly && only[k] != sizes[s]; k++)
			;
		if (only && k == nonly)
			continue;
		printf("| %8zu |", sizes[s]);
		for (d = 0; d < ndrivers; d++) {
			if (!present[d])
				printf(" %-14s |", "n/a");
			else if (pct)
				printf(" %13.0f%% |", median(cells[s][d], sizeof(struct sample),
							      field));
			else
				printf(" %14.0f |", median(cells[s][d], sizeof(struct sample),
							    field));
		}
		putchar('\n');
	}
}

static void run(char **drivers, unsigned int ndrivers)
{
	struct hasher hashers[MAX_DRIVERS];
	bool present[MAX_DRIVERS] = { false };
	uint8_t *in = alloc_buffer(), out[MAX_DIGEST];
	const struct hwoff_alg *alg;
	const EVP_MD *md = NULL;
	unsigned int d, dlen = 0;
	struct digest_cell cell;
	char name[64], why[HWOFF_TRANSPORT_ERROR_MAX];
	/* a path of the device is named after its AF_ALG driver: dev.NODE.DRIVER */
	const char *first = bench_is_device(drivers[0]) ? strrchr(drivers[0], '.') + 1 : drivers[0];

	if (RAND_bytes(in, (int)max_size) != 1)
		die("RAND_bytes failed");
	/* the hash is the driver's name up to the first '-' (sha256-hwoffload-pio, sha256-generic) */
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(first, "-"), first);
	md = EVP_get_digestbyname(name);
	alg = hwoff_alg_by_name(name);
	if (!md || !alg)
		die("OpenSSL or the backend has no %s", name);
	dlen = (unsigned int)EVP_MD_get_size(md);
	cell = (struct digest_cell){ .hashers = hashers, .in = in, .out = out, .dlen = dlen };
	for (d = 0; d < ndrivers; d++) {
		present[d] = open_hasher(&hashers[d], drivers[d], alg, why, sizeof(why));
		if (present[d])
			check_driver(drivers[d], &hashers[d], md, in);
		else
			printf("%s\n", why);
	}
	print_best(name);
	measure_cells(cells, present, ndrivers, digest_cell, &cell);
	printf("%s through AF_ALG (dev.*: through the engine's own device), one digest at a time; "
	       "median of %u rounds of %.2g s per cell, cells interleaved\n",
	       name, rounds, cell_seconds);
	print_md_table("Performance (hashes per second)", drivers, ndrivers, present,
		       offsetof(struct sample, ops_per_s), NULL, 0, false);
	print_md_table("CPU usage (caller: getrusage user+sys / wall)", drivers, ndrivers,
		       present, offsetof(struct sample, caller_pct), cpu_sizes, ncpu_sizes, true);
	print_table("noise: hashes per second, the best round over the worst", drivers, ndrivers,
		    cells, present, spread, offsetof(struct sample, ops_per_s), label);
	print_table("system CPU (all busy time of /proc/stat: the engine and interrupt threads "
		    "too), % of one CPU",
		    drivers, ndrivers, cells, present, median,
		    offsetof(struct sample, system_pct), label);
	for (d = 0; d < ndrivers; d++)
		if (present[d])
			close_hasher(&hashers[d]);
	free(in);
}

static void parse_cpu_sizes(char *list)
{
	char *item;

	for (ncpu_sizes = 0; (item = strsep(&list, ",")); ncpu_sizes++) {
		if (ncpu_sizes == MAX_SIZES)
			die("at most %d CPU sizes", MAX_SIZES);
		cpu_sizes[ncpu_sizes] = strtoul(item, NULL, 0);
	}
}

static void usage(void)
{
	fputs("usage: hash_speed [-t SECONDS] [-r ROUNDS] [-s SIZE,...] [-c SIZE,...] DRIVER...\n",
	      stderr);
	exit(2);
}

int main(int argc, char **argv)
{
	char default_sizes[] = "64,256,1024,2048,4096,8192,16384,65536";
	char default_cpu_sizes[] = "2048,4096,8192,16384";
	int opt;

	parse_sizes(default_sizes, 1);
	parse_cpu_sizes(default_cpu_sizes);
	while ((opt = getopt(argc, argv, "t:r:s:c:")) != -1) {
		if (opt == 'c')
			parse_cpu_sizes(optarg);
		else if (!bench_option(opt, optarg, 1))
			usage();
	}
	if (cell_seconds <= 0 || rounds < 1 || rounds > MAX_ROUNDS || optind >= argc ||
	    argc - optind > MAX_DRIVERS)
		usage();
	setvbuf(stdout, NULL, _IOLBF, 0);
	run(argv + optind, argc - optind);
	return 0;
}
