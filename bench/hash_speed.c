// SPDX-License-Identifier: Apache-2.0
/*
 * Hash speed through AF_ALG by kernel driver name, printed as the two tables of the stm32-hash
 * DMA patch (lkml, 2024): hashes per second for each data size and driver, and the caller's
 * CPU share (getrusage user + sys over wall time) while hashing one size after another. A
 * benchmark, not a test: it asserts nothing about speed. bench/hash-speed runs it in guests,
 * one per engine profile.
 *
 *   hash_speed [-t SECONDS] [-r ROUNDS] [-s SIZES] [-c CPU_SIZES] DRIVER...
 *	every cell is one digest (one send, one read) after another for SECONDS; every round
 *	runs each size and driver once, interleaved, and each figure is the median of ROUNDS.
 *	The CPU table shows the sizes of CPU_SIZES (default 2048,4096,8192,16384).
 *
 * Runs in the guest as root, with the hwoffload driver loaded (test/vm/run).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/if_alg.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "bench/benchutil.h"

#define MAX_DIGEST 64

static size_t cpu_sizes[MAX_SIZES];
static unsigned int ncpu_sizes;

/* An operation socket of @driver, or -1 when the kernel has no such driver. */
static int open_driver(const char *driver, int *tfm)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG, .salg_type = "hash" };
	int op;

	*tfm = socket(AF_ALG, SOCK_SEQPACKET, 0);
	if (*tfm < 0)
		die("no AF_ALG socket: %s", strerror(errno));
	snprintf((char *)sa.salg_name, sizeof(sa.salg_name), "%s", driver);
	if (bind(*tfm, (struct sockaddr *)&sa, sizeof(sa))) {
		close(*tfm);
		return -1;
	}
	op = accept(*tfm, NULL, 0);
	if (op < 0)
		die("%s: accept: %s", driver, strerror(errno));
	return op;
}

/* One digest of @len bytes: a send without MSG_MORE hashes and finishes, the read collects. */
static void digest(int op, const uint8_t *in, size_t len, uint8_t *out, size_t dlen)
{
	if (send(op, in, len, 0) != (ssize_t)len || read(op, out, dlen) != (ssize_t)dlen)
		die("a digest of %zu bytes failed: %s", len, strerror(errno));
}

/* A benchmark of wrong results would be worthless: check each driver once against OpenSSL. */
static void check_driver(const char *driver, int op, const EVP_MD *md, const uint8_t *in)
{
	uint8_t want[MAX_DIGEST], got[MAX_DIGEST];
	unsigned int dlen;

	if (EVP_Digest(in, max_size, want, &dlen, md, NULL) != 1)
		die("OpenSSL's %s failed", EVP_MD_get0_name(md));
	digest(op, in, max_size, got, dlen);
	if (memcmp(got, want, dlen))
		die("%s: wrong digest of %zu bytes", driver, max_size);
}

/* A column label: "sha256-hwoffload-pio" -> "pio", "-hwoffload" -> "auto"; others as they are. */
static const char *label(const char *driver, char *buf, size_t size)
{
	const char *tag = strstr(driver, "-hwoffload");

	if (!tag)
		snprintf(buf, size, "%s", driver);
	else
		snprintf(buf, size, "%s", tag[10] == '-' ? tag + 11 : "auto");
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
	const int *ops;
	const uint8_t *in;
	uint8_t *out;
	size_t dlen;
};

static void digest_cell(void *arg, unsigned int driver, size_t len)
{
	struct digest_cell *c = arg;

	digest(c->ops[driver], c->in, len, c->out, c->dlen);
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
	int ops[MAX_DRIVERS], tfms[MAX_DRIVERS];
	bool present[MAX_DRIVERS] = { false };
	uint8_t *in = alloc_buffer(), out[MAX_DIGEST];
	const EVP_MD *md = NULL;
	unsigned int d, dlen = 0;
	struct digest_cell cell;
	char name[64];

	if (RAND_bytes(in, (int)max_size) != 1)
		die("RAND_bytes failed");
	/* the hash is the driver's name up to the first '-' (sha256-hwoffload-pio, sha256-generic) */
	snprintf(name, sizeof(name), "%.*s", (int)strcspn(drivers[0], "-"), drivers[0]);
	md = EVP_get_digestbyname(name);
	if (!md)
		die("OpenSSL has no %s", name);
	dlen = (unsigned int)EVP_MD_get_size(md);
	cell = (struct digest_cell){ .ops = ops, .in = in, .out = out, .dlen = dlen };
	for (d = 0; d < ndrivers; d++) {
		ops[d] = open_driver(drivers[d], &tfms[d]);
		present[d] = ops[d] >= 0;
		if (present[d])
			check_driver(drivers[d], ops[d], md, in);
		else
			printf("%s: not available in this kernel\n", drivers[d]);
	}
	print_best(name);
	measure_cells(cells, present, ndrivers, digest_cell, &cell);
	printf("%s through AF_ALG, one digest at a time; median of %u rounds of %.2g s per cell, "
	       "cells interleaved\n",
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
	for (d = 0; d < ndrivers; d++) {
		if (present[d]) {
			close(ops[d]);
			close(tfms[d]);
		}
	}
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
