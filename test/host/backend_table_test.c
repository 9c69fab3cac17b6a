// SPDX-License-Identifier: Apache-2.0
/*
 * backend_table_test.c - the path table: the good file, every kind of malformed one
 * (test/data/table-bad/), the writer round trip, the decision at and around every boundary,
 * default tables with and without an engine, unusable paths, driver checks and fingerprints.
 */
#include <pthread.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <time.h>

#include "backend/fingerprint.h"
#include "backend/table.h"
#include "backend/table_file.h"
#include "backend/text.h"
#include "test/host/backend_test.h"

static struct hwoff_table *load_table(const char *name)
{
	char path[4096], err[512];
	struct hwoff_table *t;

	test_data_path(path, sizeof(path), name);
	t = hwoff_table_load(path, err, sizeof(err));
	ck_assert_msg(t != NULL, "%s", err);
	return t;
}

static struct hwoff_discovery *load_discovery(const char *name)
{
	struct hwoff_discovery *d = calloc(1, sizeof(*d));
	char path[4096], err[512];

	ck_assert_ptr_nonnull(d);
	test_data_path(path, sizeof(path), name);
	ck_assert_msg(hwoff_discovery_load(d, path, err, sizeof(err)) == 0, "%s", err);
	return d;
}

static const struct hwoff_alg *alg(const char *name)
{
	const struct hwoff_alg *a = hwoff_alg_by_name(name);

	ck_assert_ptr_nonnull(a);
	return a;
}

static const char *decide(struct hwoff_table *t, const char *alg_name, enum hwoff_direction dir,
			  enum hwoff_objective obj, size_t size)
{
	const struct hwoff_alg *a = alg(alg_name);

	return hwoff_decide(t, a, dir, size, obj).path->name;
}

/* The whole text hwoff_table_write() gives; free() it. */
static char *write_text(const struct hwoff_table *t, const char *comment)
{
	char *text = NULL;
	size_t len = 0;
	FILE *out = open_memstream(&text, &len);

	ck_assert_ptr_nonnull(out);
	ck_assert_int_eq(hwoff_table_write(t, out, comment), 0);
	fclose(out);
	return text;
}

static struct hwoff_table *read_text(const char *text)
{
	FILE *in = fmemopen((void *)text, strlen(text), "r");
	struct hwoff_table *t;
	char err[512];

	ck_assert_ptr_nonnull(in);
	t = hwoff_table_read(in, "text", err, sizeof(err));
	fclose(in);
	ck_assert_msg(t != NULL, "%s", err);
	return t;
}

START_TEST(test_good_file)
{
	struct hwoff_table *t = load_table("table-good.txt");
	const struct hwoff_fingerprint *fp = &t->fingerprint;

	ck_assert_str_eq(fp->kernel, "6.1.0-57-amd64");
	ck_assert_str_eq(fp->cpu, "AMD EPYC 7B13 64-Core Processor");
	ck_assert_uint_eq(fp->driver_count, 3);
	ck_assert_str_eq(fp->drivers[2].driver, "omap-sha256");
	ck_assert_str_eq(fp->drivers[2].module, "omap_sham");
	ck_assert_str_eq(fp->drivers[2].version, "-");
	ck_assert_uint_eq(t->path_count, 4);

	ck_assert_str_eq(decide(t, "AES-128-CBC", HWOFF_ENCRYPT, HWOFF_THROUGHPUT, 300),
			 "cbc-aes-hwoffload-pio");
	ck_assert_str_eq(decide(t, "AES-128-CBC", HWOFF_DECRYPT, HWOFF_THROUGHPUT, 300),
			 "software");
	ck_assert_str_eq(decide(t, "AES-128-CBC", HWOFF_ENCRYPT, HWOFF_CPU, 0),
			 "cbc-aes-hwoffload-pio");
	ck_assert_str_eq(decide(t, "AES-256-CBC", HWOFF_ENCRYPT, HWOFF_THROUGHPUT, 1 << 30),
			 "cbc-aes-hwoffload-dma");
	ck_assert_str_eq(decide(t, "SHA2-256", HWOFF_DIGEST, HWOFF_THROUGHPUT, 256), "omap-sha256");
	/* no entry */
	ck_assert_str_eq(decide(t, "AES-128-CBC", HWOFF_DECRYPT, HWOFF_CPU, 100000), "software");
	ck_assert_str_eq(decide(t, "SHA1", HWOFF_DIGEST, HWOFF_THROUGHPUT, 100000), "software");
	hwoff_table_free(t);
}
END_TEST

START_TEST(test_bad_files)
{
	static const struct {
		const char *file;
		unsigned int line;
		const char *reason;
	} cases[] = {
		{ "missing-header", 1, "missing header: the first line must be" },
		{ "empty", 1, "missing header: no 'hwoffload-path-table 1' line" },
		{ "comments-only", 2, "missing header: no 'hwoffload-path-table 1' line" },
		{ "header-version", 1, "format version '2': this build reads version 1" },
		{ "header-no-version", 1, "the header has no format version" },
		{ "header-garbage", 1, "trailing garbage 'extra' after the header" },
		{ "header-twice", 3, "a second 'hwoffload-path-table' header" },
		{ "unknown-algorithm", 2, "unknown algorithm 'AES-128-CCM'" },
		{ "incomplete-entry", 2, "incomplete entry: expected ALGORITHM KEY-BITS" },
		{ "key-size-wrong", 2, "key size 192 is not AES-128-CBC's (128)" },
		{ "key-size-dash", 2, "AES-256-CTR needs its key bits (256), not '-'" },
		{ "key-size-digest", 2, "SHA2-512 is a digest: key bits are '-', not '512'" },
		{ "key-size-not-number", 2, "bad number '12x' for key bits" },
		{ "bad-direction", 2, "bad direction 'encode': encrypt, decrypt or digest" },
		{ "direction-for-digest", 2,
		  "direction encrypt does not apply to SHA1, which takes digest" },
		{ "direction-for-cipher", 2,
		  "direction digest does not apply to AES-192-CBC, which takes encrypt or "
		  "decrypt" },
		{ "bad-objective", 2, "bad objective 'latency': throughput or cpu" },
		{ "range-not-at-zero", 2, "the first range starts at 16, not 0" },
		{ "range-not-increasing", 2,
		  "range start 256 does not follow 256: starts must increase" },
		{ "range-decreasing", 2, "range start 1024 does not follow 4096" },
		{ "range-bad-number", 2, "bad number '4k' in range '4k:cbc-aes-x'" },
		{ "range-negative", 2, "bad number '-5' in range '-5:cbc-aes-x'" },
		{ "range-no-colon", 2, "range 'cbc-aes-x' is not START:PATH" },
		{ "range-past-limit", 2,
		  "size '1073741825' in range '1073741825:cbc-aes-x' is past the limit of "
		  "1073741824" },
		{ "range-overflow", 2,
		  "size '99999999999999999999999' in range "
		  "'99999999999999999999999:cbc-aes-x' is past the limit" },
		{ "too-many-ranges", 2, "more than 8 ranges" },
		{ "duplicate-entry", 4,
		  "a second entry for AES-128-CBC encrypt throughput (first on line 2)" },
		{ "path-syntax", 2,
		  "path 'cbc/aes' is neither 'software' nor a kernel driver name" },
		{ "path-unbalanced", 2, "path 'cbc(aes-generic' is neither" },
		{ "path-empty", 2, "path '' is neither" },
		{ "too-many-paths", 6, "more than 32 different paths in one table" },
		{ "fingerprint-unknown", 2, "unknown fingerprint 'gpu': kernel, cpu or driver" },
		{ "fingerprint-kernel-garbage", 2,
		  "trailing garbage 'extra' after the kernel release" },
		{ "fingerprint-kernel-twice", 3, "a second fingerprint kernel (first on line 2)" },
		{ "fingerprint-driver-short", 2,
		  "expected 'fingerprint driver DRIVER MODULE VERSION'" },
		{ "fingerprint-driver-garbage", 2,
		  "trailing garbage 'extra' after the driver's version" },
		{ "fingerprint-driver-module", 2, "'omap/aes' is not a module name" },
		{ "fingerprint-cpu-empty", 2, "fingerprint cpu without the model" },
		{ "line-too-long", 2, "line longer than 4094 characters" },
		{ "proven-short", 2, "expected 'proven DRIVER BYTES' (or 'all' for BYTES)" },
		{ "proven-bad-size", 2, "bad proven size '64k': a number of bytes, or 'all'" },
		{ "proven-twice", 3, "a second 'proven' line for driver cbc-aes-omap" },
		{ "proven-bad-driver", 2, "'cbc/aes' is not a kernel driver name" },
		{ "proven-garbage", 2, "trailing garbage 'bytes' after the proven size" },
		{ "proven-zero", 2, "a proven size of 0 proves nothing: leave the line out" },
	};

	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char name[128], path[4096], want[4200], err[512];
		struct hwoff_table *t;

		snprintf(name, sizeof(name), "table-bad/%s.txt", cases[i].file);
		test_data_path(path, sizeof(path), name);
		t = hwoff_table_load(path, err, sizeof(err));
		ck_assert_msg(t == NULL, "%s loaded", name);
		snprintf(want, sizeof(want), "%s:%u: %s", path, cases[i].line, cases[i].reason);
		ck_assert_msg(strncmp(err, want, strlen(want)) == 0, "%s:\n got '%s'\nwant '%s...'",
			      name, err, want);
	}
}
END_TEST

START_TEST(test_missing_file)
{
	char err[256];

	ck_assert_ptr_null(hwoff_table_load("/nonexistent/table", err, sizeof(err)));
	ck_assert_str_eq(err, "/nonexistent/table: No such file or directory");
}
END_TEST

/* write(read(write(t))) == write(t), and the text reads back to the same decisions. */
START_TEST(test_round_trip)
{
	struct hwoff_table *t = load_table("table-good.txt");
	char *first = write_text(t, "calibrated by a test\n\nsecond paragraph");
	struct hwoff_table *again = read_text(first);
	char *second = write_text(again, "calibrated by a test\n\nsecond paragraph");

	ck_assert_str_eq(first, second);
	ck_assert_ptr_nonnull(strstr(first, "# calibrated by a test\n#\n# second paragraph\n"
					    "hwoffload-path-table 1\n"));
	ck_assert_ptr_nonnull(strstr(first, "\nAES-256-CBC 256 encrypt throughput "
					    "0:software 1073741824:cbc-aes-hwoffload-dma\n"));
	ck_assert_ptr_nonnull(strstr(first, "\nSHA2-256 - digest throughput 0:software "
					    "256:omap-sha256\n"));
	ck_assert_ptr_nonnull(strstr(first, "\nproven omap-sha256 65536\n"
					    "proven cbc-aes-hwoffload-pio all\n"));
	ck_assert_uint_eq(hwoff_table_proven(again, "omap-sha256"), 65536);
	ck_assert_uint_eq(hwoff_table_proven(again, "cbc-aes-hwoffload-pio"), HWOFF_PROVEN_ALL);
	ck_assert_uint_eq(hwoff_table_proven(again, "cbc-aes-hwoffload-dma"), 0);
	for (size_t size = 0; size < 10000; size += 7)
		ck_assert_str_eq(
			decide(t, "AES-128-CBC", HWOFF_ENCRYPT, HWOFF_THROUGHPUT, size),
			decide(again, "AES-128-CBC", HWOFF_ENCRYPT, HWOFF_THROUGHPUT, size));
	free(first);
	free(second);
	hwoff_table_free(again);
	hwoff_table_free(t);
}
END_TEST

static const struct hwoff_path *path_at(struct hwoff_table *t, const struct hwoff_alg *a,
					enum hwoff_direction dir, enum hwoff_objective obj,
					size_t size)
{
	return hwoff_decide(t, a, dir, size, obj).path;
}

/* One entry: sizes 0, SIZE_MAX, and start-1, start, start+1 of every range. */
static void assert_entry_boundaries(struct hwoff_table *t, const struct hwoff_alg *a,
				    enum hwoff_direction dir, enum hwoff_objective obj)
{
	const struct hwoff_entry *e = &t->entries[(hwoff_alg_index(a) * HWOFF_DIRECTION_COUNT +
						   dir) * HWOFF_OBJECTIVE_COUNT +
						  obj];
	const struct hwoff_range *r = e->ranges;

	if (!e->count) {
		ck_assert_ptr_eq(path_at(t, a, dir, obj, 0), &t->paths[0]);
		ck_assert_ptr_eq(path_at(t, a, dir, obj, SIZE_MAX), &t->paths[0]);
		return;
	}
	ck_assert_ptr_eq(path_at(t, a, dir, obj, 0), &t->paths[r[0].path]);
	ck_assert_ptr_eq(path_at(t, a, dir, obj, SIZE_MAX), &t->paths[r[e->count - 1].path]);
	for (unsigned int i = 0; i < e->count; i++) {
		bool next_at_start_plus_1 = i + 1 < e->count && r[i + 1].start == r[i].start + 1;

		if (i > 0)
			ck_assert_ptr_eq(path_at(t, a, dir, obj, r[i].start - 1),
					 &t->paths[r[i - 1].path]);
		ck_assert_ptr_eq(path_at(t, a, dir, obj, r[i].start), &t->paths[r[i].path]);
		ck_assert_ptr_eq(path_at(t, a, dir, obj, r[i].start + 1),
				 &t->paths[r[next_at_start_plus_1 ? i + 1 : i].path]);
	}
}

/* Every entry of t, those without ranges included. */
static void assert_boundaries(struct hwoff_table *t)
{
	for (size_t a = 0; a < HWOFF_ALG_COUNT; a++)
		for (int dir = 0; dir < HWOFF_DIRECTION_COUNT; dir++)
			for (int obj = 0; obj < HWOFF_OBJECTIVE_COUNT; obj++)
				assert_entry_boundaries(t, &hwoff_algs[a], dir, obj);
}

START_TEST(test_decision_boundaries)
{
	struct hwoff_table *t = load_table("table-good.txt");
	struct hwoff_table *dense = read_text("hwoffload-path-table 1\n"
					      "MD5 - digest cpu 0:a 1:b 2:c 3:software 4:a\n");
	const char *cbc = "AES-128-CBC";

	assert_boundaries(t);
	assert_boundaries(dense);
	/* the same, spelled out for one entry */
	ck_assert_str_eq(decide(t, cbc, HWOFF_ENCRYPT, HWOFF_THROUGHPUT, 0), "software");
	ck_assert_str_eq(decide(t, cbc, HWOFF_ENCRYPT, HWOFF_THROUGHPUT, 255), "software");
	ck_assert_str_eq(decide(t, cbc, HWOFF_ENCRYPT, HWOFF_THROUGHPUT, 256),
			 "cbc-aes-hwoffload-pio");
	ck_assert_str_eq(decide(t, cbc, HWOFF_ENCRYPT, HWOFF_THROUGHPUT, 8191),
			 "cbc-aes-hwoffload-pio");
	ck_assert_str_eq(decide(t, cbc, HWOFF_ENCRYPT, HWOFF_THROUGHPUT, 8192),
			 "cbc-aes-hwoffload-dma");
	ck_assert_str_eq(decide(t, cbc, HWOFF_ENCRYPT, HWOFF_THROUGHPUT, SIZE_MAX),
			 "cbc-aes-hwoffload-dma");
	ck_assert_str_eq(decide(dense, "MD5", HWOFF_DIGEST, HWOFF_CPU, 2), "c");
	ck_assert_str_eq(decide(dense, "MD5", HWOFF_DIGEST, HWOFF_CPU, 3), "software");

	/* what the table cannot cover goes to software */
	ck_assert_str_eq(hwoff_decide(t, alg(cbc), HWOFF_DIGEST, 9000, HWOFF_THROUGHPUT).path->name,
			 "software");
	ck_assert_str_eq(
		hwoff_decide(t, alg(cbc), HWOFF_DIRECTION_COUNT, 9000, HWOFF_THROUGHPUT).path->name,
		"software");
	ck_assert_str_eq(
		hwoff_decide(t, alg(cbc), HWOFF_ENCRYPT, 9000, HWOFF_OBJECTIVE_COUNT).path->name,
		"software");
	hwoff_table_free(dense);
	hwoff_table_free(t);
}
END_TEST

START_TEST(test_default_without_engine)
{
	struct hwoff_discovery *cpu_only = load_discovery("proc-crypto-6.1-max.txt");
	struct hwoff_table *tables[] = { hwoff_table_default(NULL), hwoff_table_default(cpu_only) };

	for (size_t i = 0; i < 2; i++) {
		ck_assert_ptr_nonnull(tables[i]);
		ck_assert_uint_eq(tables[i]->path_count, 1);
		assert_boundaries(tables[i]);
		ck_assert_str_eq(
			decide(tables[i], "AES-256-CTR", HWOFF_DECRYPT, HWOFF_CPU, SIZE_MAX),
			"software");
		hwoff_table_free(tables[i]);
	}
	free(cpu_only);
}
END_TEST

/* Another vendor's engine gets nothing without a calibration: no size of it is proven. */
START_TEST(test_default_with_foreign_engine)
{
	const char *fixtures[] = { "proc-crypto-omap.txt", "proc-crypto-6.1-virtio.txt" };

	for (size_t i = 0; i < sizeof(fixtures) / sizeof(fixtures[0]); i++) {
		struct hwoff_discovery *d = load_discovery(fixtures[i]);
		struct hwoff_table *t = hwoff_table_default(d);

		ck_assert_ptr_nonnull(
			hwoff_discovery_find(d, i ? "virtio_crypto_aes_cbc" : "cbc-aes-omap"));
		ck_assert_ptr_null(hwoff_discovery_offload_for(d, "cbc(aes)"));
		ck_assert_uint_eq(t->path_count, 1);
		ck_assert_str_eq(decide(t, "AES-192-CBC", HWOFF_DECRYPT, HWOFF_CPU, 200),
				 "software");
		ck_assert_str_eq(
			decide(t, "AES-128-CBC", HWOFF_ENCRYPT, HWOFF_THROUGHPUT, 300 << 10),
			"software");
		ck_assert_str_eq(decide(t, "SHA2-224", HWOFF_DIGEST, HWOFF_THROUGHPUT, 256),
				 "software");
		hwoff_table_free(t);
		free(d);
	}
}
END_TEST

START_TEST(test_default_with_engine)
{
	struct hwoff_discovery *ours = load_discovery("proc-crypto-6.1-hwoffload.txt");
	struct hwoff_table *u = hwoff_table_default(ours);

	assert_boundaries(u);
	ck_assert_str_eq(decide(u, "AES-256-CTR", HWOFF_ENCRYPT, HWOFF_THROUGHPUT, 200),
			 "ctr-aes-hwoffload");
	ck_assert_str_eq(decide(u, "MD5", HWOFF_DIGEST, HWOFF_THROUGHPUT, SIZE_MAX), "software");
	hwoff_table_free(u);
	free(ours);
}
END_TEST

START_TEST(test_unusable_path)
{
	struct hwoff_table *t = load_table("table-good.txt");
	const struct hwoff_alg *cbc = alg("AES-128-CBC");
	struct hwoff_choice choice = hwoff_decide(t, cbc, HWOFF_ENCRYPT, 300, HWOFF_THROUGHPUT);
	struct hwoff_path *pio = choice.path;

	ck_assert_ptr_null(choice.unusable);
	ck_assert_ptr_null(hwoff_path_unusable_reason(pio));
	ck_assert(hwoff_path_mark_unusable(pio, "setkey: Invalid argument"));
	ck_assert(!hwoff_path_mark_unusable(pio, "a later reason"));
	ck_assert_str_eq(hwoff_path_unusable_reason(pio), "setkey: Invalid argument");

	choice = hwoff_decide(t, cbc, HWOFF_ENCRYPT, 300, HWOFF_THROUGHPUT);
	ck_assert_str_eq(choice.path->name, "software");
	ck_assert_ptr_eq(choice.unusable, pio);
	/* the other paths are untouched */
	ck_assert_str_eq(decide(t, "AES-128-CBC", HWOFF_ENCRYPT, HWOFF_THROUGHPUT, 8192),
			 "cbc-aes-hwoffload-dma");
	ck_assert(!hwoff_path_mark_unusable(&t->paths[0], "software cannot fail this way"));
	ck_assert_ptr_null(hwoff_path_unusable_reason(&t->paths[0]));

	hwoff_table_mark_afalg_paths_unusable(t, "AF_ALG is not available");
	for (unsigned int p = 1; p < t->path_count; p++)
		ck_assert_ptr_nonnull(hwoff_path_unusable_reason(&t->paths[p]));
	ck_assert_str_eq(hwoff_path_unusable_reason(pio), "setkey: Invalid argument");
	ck_assert_str_eq(hwoff_path_unusable_reason(&t->paths[2]), "AF_ALG is not available");
	hwoff_table_free(t);
}
END_TEST

/* A failed path: software while its back-off runs, one request tries it after. */
START_TEST(test_failed_path_backoff)
{
	struct hwoff_table *t = load_table("table-good.txt");
	const struct hwoff_alg *cbc = alg("AES-128-CBC");
	struct hwoff_path *pio = hwoff_decide(t, cbc, HWOFF_ENCRYPT, 300, HWOFF_THROUGHPUT).path;
	const uint64_t second = 1000000000;
	struct hwoff_choice choice;
	struct hwoff_counts n;

	ck_assert_int_eq(hwoff_path_retry_in_ms(pio), -1);
	ck_assert(hwoff_path_failed(pio, "recvmsg: Connection timed out", 10 * second));
	/* the requests in flight with it fail too: they neither mark it again nor stretch it */
	ck_assert(!hwoff_path_failed(pio, "recvmsg: No such device", 10 * second));
	ck_assert_str_eq(hwoff_path_unusable_reason(pio), "recvmsg: Connection timed out");
	ck_assert_int_gt(hwoff_path_retry_in_ms(pio), 9000);
	ck_assert_int_le(hwoff_path_retry_in_ms(pio), 10000);
	choice = hwoff_decide(t, cbc, HWOFF_ENCRYPT, 300, HWOFF_THROUGHPUT);
	ck_assert_str_eq(choice.path->name, "software");
	ck_assert_ptr_eq(choice.unusable, pio);
	hwoff_path_served(pio); /* a request from before the failure: no recovery */
	ck_assert_ptr_nonnull(hwoff_path_unusable_reason(pio));
	/* for good wins over a back-off */
	ck_assert(hwoff_path_mark_unusable(pio, "no such driver"));
	ck_assert_int_eq(hwoff_path_retry_in_ms(pio), -1);
	ck_assert(!hwoff_path_failed(pio, "later", 0));
	hwoff_counters_read(&pio->counters, &n);
	ck_assert_uint_eq(n.failures, 1);
	hwoff_table_free(t);
}
END_TEST

/* The try after the back-off: its failure doubles the wait, its success puts the path back. */
START_TEST(test_failed_path_recovers)
{
	struct hwoff_table *t = load_table("table-good.txt");
	const struct hwoff_alg *cbc = alg("AES-128-CBC");
	struct hwoff_path *pio = hwoff_decide(t, cbc, HWOFF_ENCRYPT, 300, HWOFF_THROUGHPUT).path;
	const uint64_t backoff = 300000000; /* 300 ms */
	const struct timespec past_backoff = { 0, 350000000 }, past_double = { 0, 650000000 };
	struct hwoff_choice choice;
	struct hwoff_counts n;

	ck_assert(hwoff_path_failed(pio, "recvmsg: Connection timed out", backoff));
	nanosleep(&past_backoff, NULL);
	ck_assert_int_eq(hwoff_path_retry_in_ms(pio), 0);
	choice = hwoff_decide(t, cbc, HWOFF_ENCRYPT, 300, HWOFF_THROUGHPUT);
	ck_assert_ptr_eq(choice.path, pio); /* this request tries it */
	ck_assert_ptr_null(choice.unusable);
	choice = hwoff_decide(t, cbc, HWOFF_ENCRYPT, 300, HWOFF_THROUGHPUT);
	ck_assert_ptr_eq(choice.unusable, pio); /* only one at a time */
	ck_assert(hwoff_path_failed(pio, "recvmsg: Connection timed out", backoff));
	ck_assert_int_gt(hwoff_path_retry_in_ms(pio), 300); /* doubled */
	ck_assert_int_le(hwoff_path_retry_in_ms(pio), 600);
	ck_assert_str_eq(hwoff_path_unusable_reason(pio), "recvmsg: Connection timed out");

	nanosleep(&past_double, NULL);
	choice = hwoff_decide(t, cbc, HWOFF_ENCRYPT, 300, HWOFF_THROUGHPUT);
	ck_assert_ptr_eq(choice.path, pio);
	hwoff_path_served(pio);
	ck_assert_ptr_null(hwoff_path_unusable_reason(pio));
	ck_assert_int_eq(hwoff_path_retry_in_ms(pio), -1);
	ck_assert_ptr_eq(hwoff_decide(t, cbc, HWOFF_ENCRYPT, 300, HWOFF_THROUGHPUT).path, pio);
	hwoff_counters_read(&pio->counters, &n);
	ck_assert_uint_eq(n.failures, 2);
	ck_assert_uint_eq(n.recoveries, 1);
	ck_assert_uint_ge(n.unusable_ns, 950000000); /* 350 + 650 ms asleep, less clock slack */

	/* a new failure after a recovery starts from the first back-off again */
	ck_assert(hwoff_path_failed(pio, "recvmsg: Input/output error", backoff));
	ck_assert_int_le(hwoff_path_retry_in_ms(pio), 300);
	ck_assert_str_eq(hwoff_path_unusable_reason(pio), "recvmsg: Input/output error");
	hwoff_table_free(t);
}
END_TEST

struct race {
	struct hwoff_table *t;
	struct hwoff_path *path;
	atomic_int marked;
};

static void *mark_and_decide(void *arg)
{
	struct race *r = arg;
	const struct hwoff_alg *cbc = hwoff_alg_by_name("AES-128-CBC");
	char reason[32];

	snprintf(reason, sizeof(reason), "thread %p", (void *)pthread_self());
	for (int i = 0; i < 10000; i++) {
		struct hwoff_choice c =
			hwoff_decide(r->t, cbc, HWOFF_ENCRYPT, 300, HWOFF_THROUGHPUT);

		if (c.unusable)
			ck_assert_ptr_nonnull(hwoff_path_unusable_reason(c.unusable));
		if (i == 5000 && hwoff_path_mark_unusable(r->path, reason))
			atomic_fetch_add(&r->marked, 1);
	}
	return NULL;
}

/* Several threads decide while several mark: exactly one mark wins, and its reason stays. */
START_TEST(test_unusable_race)
{
	struct race r = { .t = load_table("table-good.txt") };
	pthread_t threads[4];

	r.path = hwoff_decide(r.t, alg("AES-128-CBC"), HWOFF_ENCRYPT, 300, HWOFF_THROUGHPUT).path;
	for (int i = 0; i < 4; i++)
		ck_assert_int_eq(pthread_create(&threads[i], NULL, mark_and_decide, &r), 0);
	for (int i = 0; i < 4; i++)
		pthread_join(threads[i], NULL);
	ck_assert_int_eq(atomic_load(&r.marked), 1);
	ck_assert_ptr_nonnull(strstr(hwoff_path_unusable_reason(r.path), "thread "));
	hwoff_table_free(r.t);
}
END_TEST

START_TEST(test_check_drivers)
{
	struct hwoff_discovery *ours = load_discovery("proc-crypto-6.1-hwoffload.txt");
	struct hwoff_table *t = load_table("table-good.txt");
	struct hwoff_table *wrong =
		read_text("hwoffload-path-table 1\n"
			  "AES-128-ECB 128 encrypt cpu 0:cbc-aes-hwoffload-pio\n");
	char warnings[1024] = "";

	ck_assert_uint_eq(hwoff_table_check_drivers(t, ours, warnings, sizeof(warnings)), 1);
	ck_assert_str_eq(warnings, "the table's driver omap-sha256 is not in /proc/crypto (not "
				   "loaded, or its self-test did not pass)\n");
	ck_assert_str_eq(decide(t, "SHA2-256", HWOFF_DIGEST, HWOFF_THROUGHPUT, 4096), "software");
	ck_assert_str_eq(decide(t, "AES-128-CBC", HWOFF_ENCRYPT, HWOFF_THROUGHPUT, 4096),
			 "cbc-aes-hwoffload-pio");

	warnings[0] = '\0';
	ck_assert_uint_eq(hwoff_table_check_drivers(wrong, ours, warnings, sizeof(warnings)), 1);
	ck_assert_str_eq(warnings, "the table sends AES-128-ECB to driver cbc-aes-hwoffload-pio, "
				   "which implements cbc(aes), not ecb(aes)\n");
	ck_assert_str_eq(decide(wrong, "AES-128-ECB", HWOFF_ENCRYPT, HWOFF_CPU, 0), "software");
	hwoff_table_free(wrong);
	hwoff_table_free(t);
	free(ours);
}
END_TEST

/* The ranges of entry (alg, dir, obj) as the file's "START:PATH ..." text. */
static void entry_text(const struct hwoff_table *t, const char *alg_name, enum hwoff_direction dir,
		       enum hwoff_objective obj, char *buf, size_t len)
{
	const struct hwoff_entry *e = &t->entries[hwoff_table_entry_index(alg(alg_name), dir, obj)];

	buf[0] = '\0';
	for (unsigned int i = 0; i < e->count; i++)
		hwoff_appendf(buf, len, "%s%zu:%s", i ? " " : "", e->ranges[i].start,
			      t->paths[e->ranges[i].path].name);
}

/*
 * A table naming another vendor's engine (virtio_crypto_aes_cbc, as QEMU's virtio-crypto
 * registers it) is clamped to its proof; the bundled engine's drivers never are.
 */
START_TEST(test_clamp_to_proof)
{
	static const char entries[] =
		"AES-128-CBC 128 encrypt throughput 0:virtio_crypto_aes_cbc\n"
		"AES-128-CBC 128 decrypt throughput 0:software 200:virtio_crypto_aes_cbc "
		"100000:software 200000:virtio_crypto_aes_cbc\n"
		"AES-128-CBC 128 encrypt cpu 0:software 70000:virtio_crypto_aes_cbc\n"
		"AES-256-CBC 256 encrypt throughput 0:software 16:virtio_crypto_aes_cbc "
		"32:software 48:virtio_crypto_aes_cbc 64:software 80:virtio_crypto_aes_cbc "
		"96:software 112:virtio_crypto_aes_cbc\n";
	static const struct {
		const char *proof; /* the table's proven line, or "" */
		const char *encrypt, *decrypt, *encrypt_cpu, *aes256;
		size_t problems;
	} cases[] = {
		{ "", "0:software", "0:software", "0:software", "0:software", 4 },
		{ "proven virtio_crypto_aes_cbc 65536\n", "0:virtio_crypto_aes_cbc 65537:software",
		  "0:software 200:virtio_crypto_aes_cbc 65537:software", "0:software",
		  "0:software 16:virtio_crypto_aes_cbc 32:software 48:virtio_crypto_aes_cbc "
		  "64:software 80:virtio_crypto_aes_cbc 96:software",
		  4 },
		/* no room for one more range in a full entry: the range reaching past goes */
		{ "proven virtio_crypto_aes_cbc 120\n", "0:virtio_crypto_aes_cbc 121:software",
		  "0:software", "0:software",
		  "0:software 16:virtio_crypto_aes_cbc 32:software 48:virtio_crypto_aes_cbc "
		  "64:software 80:virtio_crypto_aes_cbc 96:software",
		  4 },
		{ "proven virtio_crypto_aes_cbc all\n", "0:virtio_crypto_aes_cbc",
		  "0:software 200:virtio_crypto_aes_cbc 100000:software "
		  "200000:virtio_crypto_aes_cbc",
		  "0:software 70000:virtio_crypto_aes_cbc",
		  "0:software 16:virtio_crypto_aes_cbc 32:software 48:virtio_crypto_aes_cbc "
		  "64:software 80:virtio_crypto_aes_cbc 96:software 112:virtio_crypto_aes_cbc",
		  0 },
	};
	struct hwoff_discovery *virtio = load_discovery("proc-crypto-6.1-virtio.txt");
	struct hwoff_discovery *ours = load_discovery("proc-crypto-6.1-hwoffload.txt");

	ck_assert_int_eq(hwoff_discovery_find(virtio, "virtio_crypto_aes_cbc")->class,
			 HWOFF_IMPL_OFFLOAD);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char text[2048], got[512], warnings[4096] = "";
		struct hwoff_table *t;

		snprintf(text, sizeof(text), "hwoffload-path-table 1\n%s%s", cases[i].proof,
			 entries);
		t = read_text(text);
		ck_assert_uint_eq(hwoff_table_check_drivers(t, virtio, warnings, sizeof(warnings)),
				  cases[i].problems);
		entry_text(t, "AES-128-CBC", HWOFF_ENCRYPT, HWOFF_THROUGHPUT, got, sizeof(got));
		ck_assert_str_eq(got, cases[i].encrypt);
		entry_text(t, "AES-128-CBC", HWOFF_DECRYPT, HWOFF_THROUGHPUT, got, sizeof(got));
		ck_assert_str_eq(got, cases[i].decrypt);
		entry_text(t, "AES-128-CBC", HWOFF_ENCRYPT, HWOFF_CPU, got, sizeof(got));
		ck_assert_str_eq(got, cases[i].encrypt_cpu);
		entry_text(t, "AES-256-CBC", HWOFF_ENCRYPT, HWOFF_THROUGHPUT, got, sizeof(got));
		ck_assert_str_eq(got, cases[i].aes256);
		assert_boundaries(t);
		/* entries without ranges stay so */
		entry_text(t, "SHA2-256", HWOFF_DIGEST, HWOFF_THROUGHPUT, got, sizeof(got));
		ck_assert_str_eq(got, "");
		entry_text(t, "AES-128-CBC", HWOFF_DIGEST, HWOFF_CPU, got, sizeof(got));
		ck_assert_str_eq(got, "");
		if (i == 0)
			ck_assert_ptr_nonnull(strstr(
				warnings,
				"AES-128-CBC decrypt throughput: sizes from 200 go to software, "
				"not to "
				"virtio_crypto_aes_cbc: another vendor's engine serves only what "
				"was "
				"proven on it, and the table has no 'proven virtio_crypto_aes_cbc' "
				"line "
				"(hwoffload-calibrate checks a driver's output and writes one)\n"));
		if (i == 1)
			ck_assert_str_eq(
				warnings,
				"AES-128-CBC encrypt throughput: sizes from 65537 go to software, "
				"not "
				"to virtio_crypto_aes_cbc: another vendor's engine serves only "
				"what "
				"was proven on it, and the table's 'proven' line says 65536 bytes\n"
				"AES-128-CBC encrypt cpu: sizes from 70000 go to software, not to "
				"virtio_crypto_aes_cbc: another vendor's engine serves only what "
				"was "
				"proven on it, and the table's 'proven' line says 65536 bytes\n"
				"AES-128-CBC decrypt throughput: sizes from 65537 go to software, "
				"not "
				"to virtio_crypto_aes_cbc: another vendor's engine serves only "
				"what "
				"was proven on it, and the table's 'proven' line says 65536 bytes\n"
				"AES-256-CBC encrypt throughput: sizes from 112 go to software, "
				"not to "
				"virtio_crypto_aes_cbc: another vendor's engine serves only what "
				"was "
				"proven on it, and the table's 'proven' line says 65536 bytes\n");
		if (i == 3)
			ck_assert_str_eq(warnings, "");
		hwoff_table_free(t);
	}

	/* the bundled engine's drivers need no proof */
	{
		struct hwoff_table *t = read_text(
			"hwoffload-path-table 1\n"
			"AES-128-CBC 128 encrypt throughput 0:software 200:cbc-aes-hwoffload\n");
		char warnings[512] = "";

		ck_assert_uint_eq(hwoff_table_check_drivers(t, ours, warnings, sizeof(warnings)),
				  0);
		ck_assert_str_eq(
			decide(t, "AES-128-CBC", HWOFF_ENCRYPT, HWOFF_THROUGHPUT, 300 << 10),
			"cbc-aes-hwoffload");
		hwoff_table_free(t);
	}
	free(virtio);
	free(ours);
}
END_TEST

START_TEST(test_fingerprint_of_this_machine)
{
	struct hwoff_discovery *host = load_discovery("proc-crypto-6.18-host.txt");
	struct hwoff_table *t =
		read_text("hwoffload-path-table 1\n"
			  "SHA2-256 - digest cpu 0:software 64:sha256-lib 128:nowhere\n");
	struct hwoff_fingerprint fp;
	struct utsname uts;
	char warnings[2048] = "";

	hwoff_fingerprint_machine(&fp, t, host);
	ck_assert_int_eq(uname(&uts), 0);
	ck_assert_str_eq(fp.kernel, uts.release);
	ck_assert(fp.cpu[0] && !strstr(fp.cpu, "  ") && fp.cpu[strlen(fp.cpu) - 1] != ' ');
	ck_assert_uint_eq(fp.driver_count, 1); /* "nowhere" is not discovered */
	ck_assert_str_eq(fp.drivers[0].driver, "sha256-lib");
	ck_assert_str_eq(fp.drivers[0].module, "kernel");
	ck_assert_str_eq(fp.drivers[0].version, "-");

	/* the machine against itself, through the file format */
	t->fingerprint = fp;
	{
		char *text = write_text(t, NULL);
		struct hwoff_table *again = read_text(text);

		ck_assert_uint_eq(hwoff_fingerprint_compare(&again->fingerprint, &fp, warnings,
							    sizeof(warnings)),
				  0);
		ck_assert_str_eq(warnings, "");
		hwoff_table_free(again);
		free(text);
	}
	hwoff_table_free(t);
	free(host);
}
END_TEST

START_TEST(test_fingerprint_mismatch)
{
	struct hwoff_table *t = load_table("table-good.txt");
	struct hwoff_fingerprint machine = t->fingerprint;
	struct hwoff_fingerprint none = { 0 };
	char warnings[4096] = "";

	snprintf(machine.kernel, sizeof(machine.kernel), "6.12.117+deb12-amd64");
	snprintf(machine.cpu, sizeof(machine.cpu), "Intel Xeon");
	snprintf(machine.drivers[0].version, sizeof(machine.drivers[0].version), "0.2.0");
	snprintf(machine.drivers[1].module, sizeof(machine.drivers[1].module), "hwoffload_dma");
	machine.drivers[2] =
		(struct hwoff_fingerprint_driver){ "cbc-aes-omap", "omap_aes_driver", "-" };
	ck_assert_uint_eq(
		hwoff_fingerprint_compare(&t->fingerprint, &machine, warnings, sizeof(warnings)),
		6);
	ck_assert_str_eq(warnings,
			 "the table was calibrated on kernel '6.1.0-57-amd64', this machine has "
			 "'6.12.117+deb12-amd64'\n"
			 "the table was calibrated on cpu 'AMD EPYC 7B13 64-Core Processor', this "
			 "machine has 'Intel Xeon'\n"
			 "module hwoffload is version 0.2.0 here, the table was calibrated with "
			 "0.1.0\n"
			 "driver cbc-aes-hwoffload-dma is in module hwoffload_dma here, the table "
			 "was calibrated with module hwoffload\n"
			 "the table was calibrated with driver omap-sha256 (module omap_sham -), "
			 "which this machine lacks\n"
			 "the table names driver cbc-aes-omap (module omap_aes_driver - here) but "
			 "records no fingerprint for it\n");

	warnings[0] = '\0';
	ck_assert_uint_eq(hwoff_fingerprint_compare(&none, &none, warnings, sizeof(warnings)), 2);
	ck_assert_str_eq(warnings,
			 "the table records no kernel: it may not have been calibrated here\n"
			 "the table records no cpu: it may not have been calibrated here\n");
	hwoff_table_free(t);
}
END_TEST

START_TEST(test_set_rejects)
{
	struct hwoff_table *t = hwoff_table_new();
	const struct hwoff_range_spec ok[] = { { 0, "software" }, { 64, "cbc-aes-x" } };
	char err[256];

	ck_assert_int_eq(hwoff_table_set(t, alg("AES-128-CBC"), HWOFF_ENCRYPT, HWOFF_CPU, ok, 0,
					 err, sizeof(err)),
			 -1);
	ck_assert_str_eq(err, "0 ranges: an entry has 1 to 8");
	ck_assert_int_eq(hwoff_table_set(t, alg("AES-128-CBC"), HWOFF_ENCRYPT,
					 HWOFF_OBJECTIVE_COUNT, ok, 2, err, sizeof(err)),
			 -1);
	ck_assert_str_eq(err, "objective 2 is none of throughput, cpu");
	ck_assert_int_eq(hwoff_table_set(t, alg("AES-128-CBC"), HWOFF_ENCRYPT, HWOFF_CPU, ok, 2,
					 err, sizeof(err)),
			 0);
	/* setting again replaces */
	ck_assert_int_eq(hwoff_table_set(t, alg("AES-128-CBC"), HWOFF_ENCRYPT, HWOFF_CPU, ok, 1,
					 err, sizeof(err)),
			 0);
	ck_assert_str_eq(decide(t, "AES-128-CBC", HWOFF_ENCRYPT, HWOFF_CPU, 100), "software");
	hwoff_table_free(t);
}
END_TEST

Suite *backend_table_suite(void)
{
	Suite *s = suite_create("backend_table");
	TCase *file = tcase_create("file");
	TCase *decision = tcase_create("decision");
	TCase *machine = tcase_create("machine");

	tcase_add_test(file, test_good_file);
	tcase_add_test(file, test_bad_files);
	tcase_add_test(file, test_missing_file);
	tcase_add_test(file, test_round_trip);
	tcase_add_test(file, test_set_rejects);
	suite_add_tcase(s, file);

	tcase_add_test(decision, test_decision_boundaries);
	tcase_add_test(decision, test_default_without_engine);
	tcase_add_test(decision, test_default_with_engine);
	tcase_add_test(decision, test_default_with_foreign_engine);
	tcase_add_test(decision, test_unusable_path);
	tcase_add_test(decision, test_unusable_race);
	tcase_add_test(decision, test_failed_path_backoff);
	tcase_add_test(decision, test_failed_path_recovers);
	suite_add_tcase(s, decision);

	tcase_add_test(machine, test_check_drivers);
	tcase_add_test(machine, test_clamp_to_proof);
	tcase_add_test(machine, test_fingerprint_of_this_machine);
	tcase_add_test(machine, test_fingerprint_mismatch);
	suite_add_tcase(s, machine);
	return s;
}
