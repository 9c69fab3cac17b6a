// SPDX-License-Identifier: Apache-2.0
/*
 * test/vm/run: --vcpus 2
 * The hwoffload driver's ahashes (kernel/hwoffload-hash.c) through AF_ALG, bound by driver name
 * and compared with OpenSSL (and, through kcapi-dgst, with the kernel's generic drivers): random
 * data of 0 to 1 MiB, edge lengths first, sent in random pieces with MSG_MORE (sub-block updates
 * stay in the request, whole blocks go to the engine) from misaligned buffers; accept() clones
 * mid-stream (export/import); many streams interleaved on the one engine, from one thread and
 * from several; the debugfs statistics show each path ran and follow the sysfs threshold;
 * injected faults give errors, never a wrong digest; the driver's hmac(HASH-hwoffload[-PATH])
 * with random keys (shorter and longer than a block) against OpenSSL's HMAC; the auto drivers'
 * software tier, and the kernel's self-tests with it in force.
 *
 * Runs in the guest as root, from the build tree, with the module loaded (test/vm/run).
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <linux/if_alg.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <unistd.h>

#include "test/guest/driverutil.h"
#include "test/testutil.h"

#define MAX_LEN		 (1024 * 1024)
#define PAGE		 4096
#define MAX_PIECES	 12
#define ITERATIONS	 20
#define STREAMS		 8
#define THREADS		 8
#define THREAD_ITERATIONS 6
#define RUNS		 4 /* requests per check of the statistics */
#define THRESHOLD	 4096 /* the driver's default, for the edge lengths */
#define MAX_DIGEST	 64

static const struct hash {
	const char *name;
	size_t block;
} hashes[] = { { "md5", 64 },	 { "sha1", 64 },    { "sha224", 64 },
	       { "sha256", 64 }, { "sha384", 128 }, { "sha512", 128 } };


#define HASHES	(int)(sizeof(hashes) / sizeof(hashes[0]))
#define DRIVERS (HASHES * PATHS)

static const size_t edge_lens[] = { 0,   1,	  55,  56,  63,		  64,	     65,
				    111, 112, 127, 128, 129,	  THRESHOLD - 1, THRESHOLD,
				    THRESHOLD + 1, MAX_LEN };

static void driver_name(int hash, enum path path, char *buf, size_t size)
{
	snprintf(buf, size, "%s-hwoffload%s", hashes[hash].name, path_suffix[path]);
}

static const EVP_MD *evp_md(int hash)
{
	const EVP_MD *md = EVP_get_digestbyname(hashes[hash].name);

	ck_assert_ptr_nonnull(md);
	return md;
}

static int alg_accept(int fd)
{
	int op = accept(fd, NULL, 0);

	ck_assert_msg(op >= 0, "accept: %s", strerror(errno));
	return op;
}

/* One update (MSG_MORE) or the last piece: 0 or -errno. */
static int send_piece(int op, const unsigned char *data, size_t len, int more)
{
	ssize_t n = send(op, data, len, more ? MSG_MORE : 0);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EBADMSG;
}

/* The digest of the stream so far (the socket's final): 0 or -errno. */
static int read_digest(int op, unsigned char *out, size_t len)
{
	ssize_t n = read(op, out, len);

	if (n < 0)
		return -errno;
	return (size_t)n == len ? 0 : -EBADMSG;
}

/* @len bytes in 1..MAX_PIECES random pieces of any length (sub-block ones too). */
static size_t split(struct test_rng *rng, size_t len, size_t *pieces)
{
	return test_rng_split(rng, len, 1, MAX_PIECES, pieces);
}

/*
 * The digest of @data by driver @name (with @key, if any), sent as @count pieces: 0, or
 * -errno of the first step that failed.
 */
static int kernel_digest(const char *name, const unsigned char *key, size_t key_len,
			 const unsigned char *data, const size_t *pieces, size_t count,
			 unsigned char *out, size_t dlen)
{
	int fd = alg_bind("hash", name, key, key_len), op, ret = 0;
	size_t k, off = 0;

	if (fd < 0)
		return fd;
	op = alg_accept(fd);
	for (k = 0; !ret && k < count; off += pieces[k++])
		ret = send_piece(op, data + off, pieces[k], 1);
	if (!ret)
		ret = read_digest(op, out, dlen);
	close(op);
	close(fd);
	return ret;
}

static void reference(int hash, const unsigned char *key, size_t key_len,
		      const unsigned char *data, size_t len, unsigned char *out)
{
	unsigned int n;

	if (key)
		ck_assert_ptr_nonnull(HMAC(evp_md(hash), key, (int)key_len, data, len, out, &n));
	else
		ck_assert_int_eq(EVP_Digest(data, len, out, &n, evp_md(hash), NULL), 1);
}

/* Random data: page-aligned, or at a random offset (the DMA path then bounces). */
static unsigned char *random_data(struct test_rng *rng, unsigned char *buf, size_t len)
{
	unsigned char *data = buf + (test_rng_range(rng, 0, 1) ? 0 : test_rng_range(rng, 1, 63));

	test_rng_fill(rng, data, len);
	return data;
}

/* @data as random pieces through @name against OpenSSL; 0, or a message in @err. */
static int check_once(int hash, const char *name, const unsigned char *key, size_t key_len,
		      const unsigned char *data, size_t len, struct test_rng *rng, char *err,
		      size_t err_size)
{
	size_t pieces[MAX_PIECES], count = 0, dlen = (size_t)EVP_MD_get_size(evp_md(hash));
	unsigned char got[MAX_DIGEST], want[MAX_DIGEST];
	int ret;

	/* one send (updates of up to 16 pages, then final), or random pieces with MSG_MORE */
	if (len && test_rng_range(rng, 0, 2))
		count = split(rng, len, pieces);
	else if (len)
		pieces[count++] = len;
	reference(hash, key, key_len, data, len, want);
	ret = kernel_digest(name, key, key_len, data, pieces, count, got, dlen);
	if (ret || memcmp(got, want, dlen)) {
		snprintf(err, err_size, "%s: %zu B in %zu pieces, key %zu B: %s %d", name, len,
			 count, key_len, ret ? "error" : "wrong digest", ret);
		return 1;
	}
	return 0;
}

static size_t random_len(struct test_rng *rng, int iteration)
{
	size_t n = sizeof(edge_lens) / sizeof(edge_lens[0]);

	if ((size_t)iteration < n)
		return edge_lens[iteration];
	return test_rng_range(rng, 0, 3) ? test_rng_range(rng, 0, 3 * THRESHOLD)
					 : test_rng_range(rng, 0, MAX_LEN);
}

static unsigned char *alloc_buffer(void)
{
	void *p;

	ck_assert_int_eq(posix_memalign(&p, PAGE, MAX_LEN + PAGE), 0);
	return p;
}

static void hmac_name(int hash, enum path path, char *buf, size_t size)
{
	char name[64];

	driver_name(hash, path, name, sizeof(name));
	snprintf(buf, size, "hmac(%s)", name);
}

/* The 18 hashes and the 18 HMACs. */
START_TEST(selftests_passed)
{
	char names[2 * DRIVERS][80];
	const char *ptrs[2 * DRIVERS];
	int i;

	for (i = 0; i < DRIVERS; i++) {
		driver_name(i / PATHS, i % PATHS, names[i], sizeof(names[i]));
		hmac_name(i / PATHS, i % PATHS, names[DRIVERS + i], sizeof(names[i]));
		ptrs[i] = names[i];
		ptrs[DRIVERS + i] = names[DRIVERS + i];
	}
	check_selftests_passed(ptrs, 2 * DRIVERS);
}
END_TEST

/* Edge then random lengths, random pieces, aligned or not, against OpenSSL. */
static void differential_on(int hash, enum path path, uint64_t seed)
{
	unsigned char *buf = alloc_buffer();
	struct test_rng rng;
	char name[64], err[256];
	int i;

	driver_name(hash, path, name, sizeof(name));
	test_rng_init(&rng, seed);
	for (i = 0; i < ITERATIONS; i++) {
		size_t len = random_len(&rng, i);
		unsigned char *data = random_data(&rng, buf, len);

		if (check_once(hash, name, NULL, 0, data, len, &rng, err, sizeof(err)))
			ck_abort_msg("%s", err);
	}
	free(buf);
}

START_TEST(differential)
{
	differential_on(_i / PATHS, _i % PATHS, 0x1000 + (uint64_t)_i);
}
END_TEST

/*
 * accept() on an operation socket clones its stream (export, then import into a new request):
 * the original and the clone, fed the same rest, give the digest of the whole; a clone fed
 * something else gives the digest of that.
 */
static void clones_on(int hash, enum path path, uint64_t seed)
{
	size_t dlen = (size_t)EVP_MD_get_size(evp_md(hash));
	unsigned char *buf = alloc_buffer(), got[MAX_DIGEST], want[MAX_DIGEST];
	struct test_rng rng;
	char name[64];
	int i;

	driver_name(hash, path, name, sizeof(name));
	test_rng_init(&rng, seed);
	for (i = 0; i < 6; i++) {
		size_t len = test_rng_range(&rng, 0, i < 3 ? 300 : 3 * THRESHOLD);
		size_t cut = test_rng_range(&rng, 0, len), other = test_rng_range(&rng, 0, 200);
		unsigned char *data = random_data(&rng, buf, len + other);
		int fd = alg_bind("hash", name, NULL, 0), op, clone, clone2;

		ck_assert_int_ge(fd, 0);
		op = alg_accept(fd);
		ck_assert_int_eq(send_piece(op, data, cut, 1), 0);
		clone = alg_accept(op);
		clone2 = alg_accept(op);
		ck_assert_int_eq(send_piece(op, data + cut, len - cut, 1), 0);
		ck_assert_int_eq(send_piece(clone, data + cut, len - cut, 1), 0);
		reference(hash, NULL, 0, data, len, want);
		ck_assert_int_eq(read_digest(op, got, dlen), 0);
		ck_assert_bytes_eq("original", got, want, dlen);
		ck_assert_int_eq(read_digest(clone, got, dlen), 0);
		ck_assert_bytes_eq("clone", got, want, dlen);
		/* the second clone goes on with other bytes than the original */
		ck_assert_int_eq(send_piece(clone2, data + len, other, 1), 0);
		memcpy(buf + MAX_LEN / 2, data, cut);
		memcpy(buf + MAX_LEN / 2 + cut, data + len, other);
		reference(hash, NULL, 0, buf + MAX_LEN / 2, cut + other, want);
		ck_assert_int_eq(read_digest(clone2, got, dlen), 0);
		ck_assert_bytes_eq("clone with other data", got, want, dlen);
		close(clone2);
		close(clone);
		close(op);
		close(fd);
	}
	free(buf);
}

START_TEST(clones)
{
	clones_on(_i / PATHS, _i % PATHS, 0x2000 + (uint64_t)_i);
}
END_TEST

struct stream {
	int hash, fd, op;
	size_t len, sent, pieces[MAX_PIECES], count, next;
	unsigned char *data;
};

/* STREAMS sockets on random drivers, fed a piece each in turn: the engine serves all at once. */
START_TEST(interleaved)
{
	struct stream s[STREAMS];
	unsigned char got[MAX_DIGEST], want[MAX_DIGEST];
	struct test_rng rng;
	int i, busy;

	test_rng_init(&rng, 0x3000);
	for (i = 0; i < STREAMS; i++) {
		int driver = (int)test_rng_range(&rng, 0, DRIVERS - 1);
		char name[64];

		s[i].hash = driver / PATHS;
		driver_name(s[i].hash, driver % PATHS, name, sizeof(name));
		s[i].fd = alg_bind("hash", name, NULL, 0);
		ck_assert_int_ge(s[i].fd, 0);
		s[i].op = alg_accept(s[i].fd);
		s[i].len = test_rng_range(&rng, 1, 4 * THRESHOLD);
		s[i].data = malloc(s[i].len);
		ck_assert_ptr_nonnull(s[i].data);
		test_rng_fill(&rng, s[i].data, s[i].len);
		s[i].count = split(&rng, s[i].len, s[i].pieces);
		s[i].next = 0;
		s[i].sent = 0;
	}
	do {
		busy = 0;
		for (i = 0; i < STREAMS; i++) {
			if (s[i].next == s[i].count)
				continue;
			busy = 1;
			ck_assert_int_eq(send_piece(s[i].op, s[i].data + s[i].sent,
						    s[i].pieces[s[i].next], 1),
					 0);
			s[i].sent += s[i].pieces[s[i].next++];
		}
	} while (busy);
	for (i = 0; i < STREAMS; i++) {
		size_t dlen = (size_t)EVP_MD_get_size(evp_md(s[i].hash));

		reference(s[i].hash, NULL, 0, s[i].data, s[i].len, want);
		ck_assert_int_eq(read_digest(s[i].op, got, dlen), 0);
		ck_assert_bytes_eq(hashes[s[i].hash].name, got, want, dlen);
		close(s[i].op);
		close(s[i].fd);
		free(s[i].data);
	}
}
END_TEST

static void *thread_main(void *arg)
{
	struct thread_result *r = arg;
	unsigned char *buf = malloc(MAX_LEN + PAGE);
	struct test_rng rng;
	int i;

	test_rng_init(&rng, 0x4000 + (uint64_t)r->index);
	for (i = 0; buf && i < THREAD_ITERATIONS && !r->failed; i++) {
		int driver = (int)test_rng_range(&rng, 0, DRIVERS - 1);
		size_t len = random_len(&rng, 100);
		unsigned char *data = random_data(&rng, buf, len);
		char name[64];

		driver_name(driver / PATHS, driver % PATHS, name, sizeof(name));
		r->failed = check_once(driver / PATHS, name, NULL, 0, data, len, &rng, r->err,
				       sizeof(r->err));
	}
	if (!buf) {
		r->failed = 1;
		snprintf(r->err, sizeof(r->err), "out of memory");
	}
	free(buf);
	return NULL;
}

START_TEST(threads)
{
	run_threads(THREADS, thread_main);
}
END_TEST

/*
 * RUNS digests of @len bytes through one driver, each checked; @off from a page boundary,
 * @piece > 0: sent in pieces of that size.
 */
static void run_checked(int hash, enum path path, size_t len, size_t off, size_t piece)
{
	size_t dlen = (size_t)EVP_MD_get_size(evp_md(hash)), pieces[MAX_LEN / 16 + 1], count = 0;
	unsigned char *buf = alloc_buffer(), got[MAX_DIGEST], want[MAX_DIGEST];
	struct test_rng rng;
	char name[64];
	int i;

	driver_name(hash, path, name, sizeof(name));
	test_rng_init(&rng, 0x5000 + (uint64_t)len + off);
	for (; piece && count * piece < len; count++)
		pieces[count] = len - count * piece < piece ? len - count * piece : piece;
	if (!piece)
		pieces[count++] = len;
	for (i = 0; i < RUNS; i++) {
		test_rng_fill(&rng, buf + off, len);
		reference(hash, NULL, 0, buf + off, len, want);
		ck_assert_int_eq(kernel_digest(name, NULL, 0, buf + off, pieces, count, got, dlen),
				 0);
		ck_assert_bytes_eq(name, got, want, dlen);
	}
	free(buf);
}

/* The statistics prove which path each driver takes, and where the bytes wait. */
START_TEST(paths_by_statistics)
{
	long long pio, dma, zero_copy, bounces, auto_pio, auto_dma, buffered, saved;
	char threshold[128];

	/* -pio: PIO counters grow, DMA ones do not */
	pio = stat_value("hash_pio_requests");
	dma = stat_value("hash_dma_requests");
	run_checked(_i, PIO, 3 * 4096 + 5, 0, 0);
	ck_assert_stat_grew("hash_pio_requests", pio, RUNS);
	ck_assert_stat_same("hash_dma_requests", dma);

	/* -dma from page-aligned buffers: the caller's pages go to the engine uncopied */
	pio = stat_value("hash_pio_requests");
	dma = stat_value("hash_dma_requests");
	zero_copy = stat_value("dma_zero_copy");
	bounces = stat_value("dma_bounces");
	run_checked(_i, DMA, 16 * 4096, 0, 0);
	ck_assert_stat_grew("hash_dma_requests", dma, RUNS);
	ck_assert_stat_grew("dma_zero_copy", zero_copy, RUNS);
	ck_assert_stat_same("dma_bounces", bounces);
	ck_assert_stat_same("hash_pio_requests", pio);

	/* -dma from a misaligned buffer: bounced */
	bounces = stat_value("dma_bounces");
	run_checked(_i, DMA, 16 * 4096, 3, 0);
	ck_assert_stat_grew("dma_bounces", bounces, RUNS);

	/* sub-block pieces stay in the request: one engine request per digest, the final one */
	buffered = stat_value("hash_buffered");
	pio = stat_value("hash_pio_requests");
	run_checked(_i, PIO, hashes[_i].block - 1, 0, 7);
	ck_assert_stat_grew("hash_buffered", buffered, RUNS * 9);
	ck_assert_msg(stat_value("hash_pio_requests") - pio == RUNS,
		      "%lld engine requests for %d digests of sub-block pieces",
		      stat_value("hash_pio_requests") - pio, RUNS);

	/* auto: PIO up to the threshold, DMA above it */
	snprintf(threshold, sizeof(threshold), "%s%s", SYSFS_THRESHOLD, hashes[_i].name);
	saved = read_number(threshold);
	auto_pio = stat_value("hash_auto_pio");
	auto_dma = stat_value("hash_auto_dma");
	run_checked(_i, AUTO, 256, 0, 0);
	run_checked(_i, AUTO, 64 * 1024, 0, 0);
	ck_assert_stat_grew("hash_auto_pio", auto_pio, RUNS);
	ck_assert_stat_grew("hash_auto_dma", auto_dma, RUNS);

	/* and the threshold moves in sysfs (at 0 only the socket's empty finals go by PIO) */
	write_number(threshold, 0);
	auto_dma = stat_value("hash_auto_dma");
	run_checked(_i, AUTO, 256, 0, 0);
	ck_assert_stat_grew("hash_auto_dma", auto_dma, RUNS);
	write_number(threshold, 1024 * 1024);
	auto_pio = stat_value("hash_auto_pio");
	auto_dma = stat_value("hash_auto_dma");
	run_checked(_i, AUTO, 64 * 1024, 0, 0);
	ck_assert_stat_grew("hash_auto_pio", auto_pio, RUNS);
	ck_assert_stat_same("hash_auto_dma", auto_dma);
	write_number(threshold, saved);
	ck_assert_int_eq(read_number(threshold), saved);
}
END_TEST

/*
 * Each injected fault fails its request with an error, never a wrong digest and never a hang;
 * the next request succeeds.
 */
struct fault_request {
	const char *name;
	const unsigned char *data;
	size_t len;
	unsigned char *out;
	size_t dlen;
};

static int fault_request(void *arg)
{
	struct fault_request *r = arg;

	return kernel_digest(r->name, NULL, 0, r->data, &r->len, 1, r->out, r->dlen);
}

START_TEST(injected_faults)
{
	const struct fault_case *f = &fault_cases[_i];
	size_t dlen = (size_t)EVP_MD_get_size(evp_md(f->alg));
	unsigned char *buf = alloc_buffer(), got[MAX_DIGEST] = { 0 }, want[MAX_DIGEST];
	struct test_rng rng;
	char name[64];
	struct fault_request r = { name, buf, f->len, got, dlen };

	driver_name(f->alg, f->path, name, sizeof(name));
	test_rng_init(&rng, 0x6000 + (uint64_t)_i);
	test_rng_fill(&rng, buf, f->len);
	reference(f->alg, NULL, 0, buf, f->len, want);
	/* an error gives no digest at all: read() fails */
	if (!run_with_fault(f, name, fault_request, &r))
		ck_assert_bytes_eq("digest after a lost interrupt", got, want, dlen);
	free(buf);

	/* the next requests succeed */
	run_checked(f->alg, f->path, f->len, 0, 0);
}
END_TEST

/*
 * The driver's hmac(DRIVER) with random keys, shorter and longer than a block (hashed first), on
 * random lengths and pieces, against OpenSSL's HMAC. (The kernel's hmac template cannot be built
 * over an async hash before 6.16; the driver's own HMACs carry the names it would give.)
 */
static void hmac_on(int hash, enum path path, uint64_t seed)
{
	unsigned char *buf = alloc_buffer(), key[300];
	struct test_rng rng;
	char name[80], err[256];
	int i;

	hmac_name(hash, path, name, sizeof(name));
	test_rng_init(&rng, seed);
	for (i = 0; i < 10; i++) {
		size_t key_len = test_rng_range(&rng, 1, i & 1 ? sizeof(key) : hashes[hash].block);
		size_t len = random_len(&rng, i < 5 ? i * 3 : 100);
		unsigned char *data = random_data(&rng, buf, len);

		test_rng_fill(&rng, key, key_len);
		if (check_once(hash, name, key, key_len, data, len, &rng, err, sizeof(err)))
			ck_abort_msg("%s", err);
	}
	free(buf);
}

START_TEST(hmac)
{
	hmac_on(_i / PATHS, _i % PATHS, 0x7000 + (uint64_t)_i);
}
END_TEST

/*
 * The auto driver's software tier (kernel/hwoffload.h): a stream whose first request the engine
 * would hash is up to software_HASH bytes goes to the kernel's software for good, with its later
 * requests, clones (export/import) and HMACs; a longer first request keeps it on the engine.
 */
START_TEST(software_tier)
{
	long long software, pio, dma, saved;
	char threshold[128];

	snprintf(threshold, sizeof(threshold), "%s%s", SYSFS_SOFTWARE, hashes[_i].name);
	saved = read_number(threshold);
	write_number(threshold, 1024);
	software = stat_value("hash_auto_software");
	pio = stat_value("hash_pio_requests");
	dma = stat_value("hash_dma_requests");
	/* a 512-byte message; a 64 KiB one whose first piece is 1000 bytes */
	run_checked(_i, AUTO, 512, 0, 0);
	run_checked(_i, AUTO, 64 * 1024, 0, 1000);
	ck_assert_stat_grew("hash_auto_software", software, 2 * RUNS);
	ck_assert_stat_same("hash_pio_requests", pio);
	ck_assert_stat_same("hash_dma_requests", dma);
	/* 8 KiB in one piece: the engine's */
	software = stat_value("hash_auto_software");
	run_checked(_i, AUTO, 8192, 0, 0);
	ck_assert_stat_same("hash_auto_software", software);
	ck_assert_msg(stat_value("hash_pio_requests") + stat_value("hash_dma_requests") >=
			      pio + dma + RUNS,
		      "8 KiB digests did not reach the engine");
	/* random lengths and pieces, clones and HMACs across the threshold */
	write_number(threshold, THRESHOLD);
	differential_on(_i, AUTO, 0x8000 + (uint64_t)_i);
	clones_on(_i, AUTO, 0x8100 + (uint64_t)_i);
	hmac_on(_i, AUTO, 0x8200 + (uint64_t)_i);
	ck_assert_stat_grew("hash_auto_software", software, 1);
	write_number(threshold, saved);
}
END_TEST

/*
 * The kernel's self-tests (tcrypt: testmgr's vectors of each hash and its HMAC on the highest
 * priority driver) on the auto drivers with their software tier in force
 * (run_tcrypt_software_tier()): the module with hash_priority, so that they rank first.
 */
START_TEST(tcrypt_software_tier)
{
	/* md5, sha1, sha256, sha384, sha512, sha224, then hmac() of each */
	static const int tcrypt_modes[] = { 1, 2, 6, 11, 12, 33, 100, 101, 102, 103, 104, 105 };

	run_tcrypt_software_tier("hash_priority=1000", "hash_", tcrypt_modes,
				 sizeof(tcrypt_modes) / sizeof(tcrypt_modes[0]));
}
END_TEST

/* kcapi-dgst by driver name: what the kernel's generic driver and OpenSSL give. */
START_TEST(kcapi_dgst_tool)
{
	int hash = _i / PATHS;
	size_t len = 100000, dlen = (size_t)EVP_MD_get_size(evp_md(hash));
	unsigned char *data = malloc(len), got[MAX_DIGEST], generic[MAX_DIGEST], want[MAX_DIGEST];
	char name[64], cmd[512];
	struct test_rng rng;

	ck_assert_ptr_nonnull(data);
	driver_name(hash, _i % PATHS, name, sizeof(name));
	test_rng_init(&rng, 0x8000 + (uint64_t)_i);
	test_rng_fill(&rng, data, len);
	write_file("/tmp/driver_hash.in", data, len);
	snprintf(cmd, sizeof(cmd), "kcapi-dgst -c %s -i /tmp/driver_hash.in -o /tmp/driver_hash.got",
		 name);
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
	ck_assert_uint_eq(read_file("/tmp/driver_hash.got", got, sizeof(got)), dlen);
	snprintf(cmd, sizeof(cmd),
		 "kcapi-dgst -c %s-generic -i /tmp/driver_hash.in -o /tmp/driver_hash.want",
		 hashes[hash].name);
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
	ck_assert_uint_eq(read_file("/tmp/driver_hash.want", generic, sizeof(generic)), dlen);
	reference(hash, NULL, 0, data, len, want);
	ck_assert_bytes_eq("the generic driver", generic, want, dlen);
	ck_assert_bytes_eq(name, got, want, dlen);
	free(data);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hwoffload hash driver through AF_ALG");
	TCase *tc = tcase_create("driver");

	tcase_set_timeout(tc, 600);
	tcase_add_test(tc, selftests_passed);
	tcase_add_loop_test(tc, differential, 0, DRIVERS);
	tcase_add_loop_test(tc, clones, 0, DRIVERS);
	tcase_add_test(tc, interleaved);
	tcase_add_test(tc, threads);
	tcase_add_loop_test(tc, paths_by_statistics, 0, HASHES);
	tcase_add_loop_test(tc, injected_faults, 0, FAULT_CASES);
	tcase_add_loop_test(tc, hmac, 0, DRIVERS);
	tcase_add_loop_test(tc, kcapi_dgst_tool, 0, DRIVERS);
	tcase_add_loop_test(tc, software_tier, 0, HASHES);
	tcase_add_test(tc, tcrypt_software_tier);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
