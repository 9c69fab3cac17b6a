// SPDX-License-Identifier: Apache-2.0
/*
 * test/vm/run: --vcpus 2 --engine-profile omap
 * The driver's own device, /dev/hwoffload0 (kernel/DEVICE.md, kernel/hwoffload_uapi.h):
 *
 * - INFO: the interface's version and limits; the node is root's, 0600, without the udev rule;
 * - every mode (ECB, CBC, CTR) on every path (auto, PIO, DMA), both directions: a session's
 *   requests of random lengths run on as one stream, equal to OpenSSL's default provider over
 *   the whole; CTR continues mid-block from PIO to DMA; in place and apart;
 * - requests in flight: a batch of 16 DMA requests of one CBC-encrypt stream, completions read
 *   by poll() and read(), equal to one encryption of the whole; the DMA path pins and maps the
 *   caller's pages (device_dma_requests grows, no bounce), and unpins them all as the requests
 *   finish, before their completions are read: debugfs pinned_pages back to 0,
 *   /proc/vmstat's nr_foll_pin_acquired and _released grow alike;
 * - GET_STATE and SET_STATE carry a stream over to another session;
 * - every hash (MD5, SHA-1, SHA-2) on every path: messages of UPDATEs of random lengths and a
 *   FINAL with the tail, several messages per session, the empty message, a batch of UPDATEs in
 *   flight and a FINAL behind them, equal to OpenSSL's digests; an UPDATE hands its state out,
 *   which carries the message to another session (a forked child's too);
 * - a failed hash request on the ring: the rest ECANCELED, the message's state lost (EPIPE) until
 *   SET_STATE;
 * - a failed DMA request (an injected engine fault) fails alone, those of the session behind it
 *   on the ring complete with ECANCELED (or, submitted once the failure is known, are refused
 *   with EPIPE), and the stream needs a new IV (EPIPE) until one is set;
 * - every refusal of the header's errno table that a caller can provoke, each its own errno;
 * - a WAIT batch's completions are its caller's, whatever another thread read()s meanwhile;
 * - a forked child gets EPERM from its parent's session and makes its own; the session fd is
 *   close-on-exec; RLIMIT_MEMLOCK bounds what a process without CAP_IPC_LOCK pins (ENOBUFS);
 * - unbinding the engine under a submitting process: its calls fail with ENODEV from then on,
 *   even after the rebind, whose node serves again;
 * - a fuzzer, bounded in time (HWOFFLOAD_DEVICE_FUZZ_S, default 10; HWOFFLOAD_TEST_LONG=1: 600):
 *   random commands and fields, bad and read-only pointers, huge counts; afterwards no page
 *   stays pinned.
 *
 * The harness fails the run on any WARN, BUG or oops in the kernel log. Runs in the guest as
 * root, from the build tree, with the module loaded (test/vm/run).
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <fcntl.h>
#include <libgen.h>
#include <linux/capability.h>
#include <poll.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <openssl/evp.h>

#include "kernel/hwoffload_uapi.h"
#include "test/guest/driverutil.h"
#include "test/testutil.h"

#define NODE	   "/dev/hwoffload0"
#define DRIVER_DIR "/sys/bus/pci/drivers/hwoffload/"
#define PINNED	   "/sys/kernel/debug/hwoffload/pinned_pages"
#define FIFO	   4096
#define BIG	   (1024 * 1024)

static const char *const alg_names[] = {
	[HWO_ALG_AES_ECB] = "ecb",   [HWO_ALG_AES_CBC] = "cbc",	  [HWO_ALG_AES_CTR] = "ctr",
	[HWO_ALG_MD5] = "md5",	     [HWO_ALG_SHA1] = "sha1",	  [HWO_ALG_SHA224] = "sha224",
	[HWO_ALG_SHA256] = "sha256", [HWO_ALG_SHA384] = "sha384", [HWO_ALG_SHA512] = "sha512",
};
#define HASHES (HWO_ALG_SHA512 - HWO_ALG_MD5 + 1)
static const char *const path_names[] = {
	[HWO_PATH_AUTO] = "auto", [HWO_PATH_PIO] = "pio", [HWO_PATH_DMA] = "dma"
};

static int open_node(void)
{
	int fd = open(NODE, O_RDWR);

	ck_assert_msg(fd >= 0, "open %s: %s", NODE, strerror(errno));
	return fd;
}

/* A session's fd, or -errno. */
static int session_try(int dev, uint32_t alg, uint32_t path, const unsigned char *key,
		       uint32_t key_len, const unsigned char *iv)
{
	struct hwo_session_new sn = {
		.size = sizeof(sn),
		.alg = alg,
		.path = path,
		.key_len = key_len,
		.key = (uintptr_t)key,
	};
	int fd;

	if (iv)
		memcpy(sn.iv, iv, sizeof(sn.iv));
	fd = ioctl(dev, HWO_IOC_SESSION_NEW, &sn);
	return fd < 0 ? -errno : fd;
}

static int session_new(int dev, uint32_t alg, uint32_t path, const unsigned char *key,
		       uint32_t key_len, const unsigned char *iv)
{
	int fd = session_try(dev, alg, path, key, key_len, iv);

	ck_assert_msg(fd >= 0, "SESSION_NEW %s %s: %s", alg_names[alg], path_names[path],
		      strerror(-fd));
	return fd;
}

static struct hwo_request request(uint32_t op, const void *src, void *dst, uint32_t len)
{
	return (struct hwo_request){
		.op = op,
		.src = (uintptr_t)src,
		.dst = (uintptr_t)dst,
		.len = len,
	};
}

/* SUBMIT @count requests: 0 or -errno, *@taken set. */
static int submit_try(int s, struct hwo_request *reqs, uint32_t count, uint32_t flags,
		      struct hwo_completion *comps, uint32_t *taken)
{
	struct hwo_submit sub = {
		.size = sizeof(sub),
		.flags = flags,
		.count = count,
		.req_size = sizeof(*reqs),
		.requests = (uintptr_t)reqs,
		.completions = (uintptr_t)comps,
	};
	int ret = ioctl(s, HWO_IOC_SUBMIT, &sub);

	if (taken)
		*taken = sub.taken;
	return ret < 0 ? -errno : 0;
}

/* One request, waited for: its completion's status (0 or -errno), or the refusal's -errno. */
static int run_one(int s, struct hwo_request req, uint32_t *path)
{
	struct hwo_completion c;
	int ret = submit_try(s, &req, 1, HWO_SUBMIT_WAIT, &c, NULL);

	if (ret)
		return ret;
	if (path)
		*path = c.path;
	return c.status;
}

static const EVP_CIPHER *reference_cipher(uint32_t alg, size_t key_len)
{
	static const char *const names[][3] = {
		[HWO_ALG_AES_ECB] = { "AES-128-ECB", "AES-192-ECB", "AES-256-ECB" },
		[HWO_ALG_AES_CBC] = { "AES-128-CBC", "AES-192-CBC", "AES-256-CBC" },
		[HWO_ALG_AES_CTR] = { "AES-128-CTR", "AES-192-CTR", "AES-256-CTR" },
	};
	static EVP_CIPHER *fetched[4][3];
	int k = (int)(key_len - 16) / 8;

	if (!fetched[alg][k])
		fetched[alg][k] = EVP_CIPHER_fetch(NULL, names[alg][k], "provider=default");
	ck_assert_ptr_nonnull(fetched[alg][k]);
	return fetched[alg][k];
}

/* OpenSSL's default provider over the whole stream. */
static void reference(uint32_t alg, int decrypt, const unsigned char *key, size_t key_len,
		      const unsigned char *iv, const unsigned char *in, unsigned char *out,
		      size_t len)
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	int n;

	ck_assert(EVP_CipherInit_ex2(ctx, reference_cipher(alg, key_len), key,
				     alg == HWO_ALG_AES_ECB ? NULL : iv, !decrypt, NULL));
	EVP_CIPHER_CTX_set_padding(ctx, 0);
	ck_assert(EVP_CipherUpdate(ctx, out, &n, in, (int)len));
	ck_assert_int_eq((size_t)n, len);
	EVP_CIPHER_CTX_free(ctx);
}

/* 16-byte aligned buffers from mmap: page-aligned, so offsets are the test's to choose. */
static unsigned char *buffer(size_t len)
{
	void *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);

	ck_assert(p != MAP_FAILED);
	return p;
}

static long long pinned_pages(void)
{
	return read_number(PINNED);
}

/* A counter of /proc/vmstat, the CPUs' pending differences folded in first (stat_refresh). */
static long long vmstat(const char *name)
{
	char line[128];
	long long v = -1;
	size_t n = strlen(name);
	FILE *f;

	write_file("/proc/sys/vm/stat_refresh", "1", 1);
	f = fopen("/proc/vmstat", "r");
	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, name, n) && line[n] == ' ')
			v = atoll(line + n + 1);
	fclose(f);
	ck_assert_msg(v >= 0, "no %s in /proc/vmstat", name);
	return v;
}

START_TEST(info_and_node)
{
	struct hwo_info info = { .size = sizeof(info) };
	struct stat st;
	int dev = open_node();

	ck_assert_int_eq(ioctl(dev, HWO_IOC_INFO, &info), 0);
	ck_assert_uint_eq(info.version, HWO_VERSION);
	ck_assert_uint_eq(info.algorithms, 1u << HWO_ALG_AES_ECB | 1u << HWO_ALG_AES_CBC |
						   1u << HWO_ALG_AES_CTR | 1u << HWO_ALG_MD5 |
						   1u << HWO_ALG_SHA1 | 1u << HWO_ALG_SHA224 |
						   1u << HWO_ALG_SHA256 | 1u << HWO_ALG_SHA384 |
						   1u << HWO_ALG_SHA512);
	ck_assert_uint_eq(info.paths, 7);
	ck_assert_uint_ge(info.max_batch, 16);
	ck_assert_uint_ge(info.max_inflight, info.max_batch);
	ck_assert_uint_eq(info.max_request, BIG);
	ck_assert_uint_eq(info.fifo_size, FIFO);
	ck_assert_uint_eq(info.dma_align, 16);
	ck_assert_uint_ge(info.max_pinned_bytes, 2ull * BIG);
	ck_assert_int_eq(stat(NODE, &st), 0);
	ck_assert_msg((st.st_mode & 0777) == 0600 && st.st_uid == 0, "%s: mode %o uid %d", NODE,
		      st.st_mode & 0777, st.st_uid);
	close(dev);
}
END_TEST

/*
 * A session of @path sent @pio requests by PIO and @dma by DMA (as their completions said): a
 * PIO or DMA session's by that path alone, auto's by both; the driver counted them, from
 * @pio0 and @dma0.
 */
static void assert_paths_taken(uint32_t path, int pio, int dma, long long pio0, long long dma0)
{
	ck_assert_msg(path != HWO_PATH_PIO || !dma, "a PIO session's request went by DMA");
	ck_assert_msg(path != HWO_PATH_DMA || !pio, "a DMA session's request went by PIO");
	ck_assert_msg(path != HWO_PATH_AUTO || (pio && dma), "auto: %d by PIO, %d by DMA", pio,
		      dma);
	ck_assert_stat_grew("device_pio_requests", pio0, pio);
	ck_assert_stat_grew("device_dma_requests", dma0, dma);
}

/*
 * One stream per mode, path and direction: random request lengths (whole blocks but for CTR;
 * aligned for DMA), in place or apart, equal to one reference pass over the whole.
 */
START_TEST(streams)
{
	uint32_t alg = HWO_ALG_AES_ECB + (uint32_t)_i / 6, path = (uint32_t)(_i / 2) % 3;
	int decrypt = _i % 2, dev = open_node(), s;
	size_t total = path == HWO_PATH_PIO ? BIG / 4 : 3 * BIG / 2, off, len, key_len;
	unsigned char key[32], iv[16], *in = buffer(total), *out = buffer(total + 16);
	unsigned char *want = buffer(total);
	long long pio0 = stat_value("device_pio_requests"),
		  dma0 = stat_value("device_dma_requests");
	long long bounces0 = stat_value("dma_bounces");
	int pio = 0, dma = 0, n = 0;
	struct test_rng rng;

	test_rng_init(&rng, (uint64_t)_i);
	key_len = 16 + 8 * test_rng_range(&rng, 0, 2);
	test_rng_fill(&rng, key, sizeof(key));
	test_rng_fill(&rng, iv, sizeof(iv));
	test_rng_fill(&rng, in, total);
	reference(alg, decrypt, key, key_len, iv, in, want, total);
	s = session_new(dev, alg, path, key, (uint32_t)key_len, iv);
	for (off = 0; off < total; off += len) {
		int in_place = test_rng_range(&rng, 0, 1);
		size_t max = path == HWO_PATH_PIO ? FIFO : (size_t)BIG;
		uint32_t took;

		/* a third each up to the FIFO, to 64 KiB, to the longest: auto takes both paths */
		len = test_rng_range(&rng, 1, n % 3 == 0 ? FIFO : n % 3 == 1 ? 65536 : max);
		len = len < max ? len : max;
		n++;
		/* CTR takes any length by PIO; DMA wants whole blocks at aligned addresses */
		if (alg != HWO_ALG_AES_CTR || path == HWO_PATH_DMA || len > FIFO ||
		    test_rng_range(&rng, 0, 1))
			len = (len + 15) & ~(size_t)15;
		/* mid-block only PIO takes a request: one that brings the stream back to a block */
		if (off % 16 && len > FIFO)
			len = FIFO - off % 16;
		if (len > total - off)
			len = total - off;
		if (in_place)
			memcpy(out + off, in + off, len);
		ck_assert_int_eq(
			run_one(s,
				request(decrypt ? HWO_OP_DECRYPT : HWO_OP_ENCRYPT,
					in_place ? out + off : in + off, out + off, (uint32_t)len),
				&took),
			0);
		pio += took == HWO_PATH_PIO;
		dma += took == HWO_PATH_DMA;
	}
	ck_assert_bytes_eq("stream", out, want, total);
	assert_paths_taken(path, pio, dma, pio0, dma0);
	ck_assert_stat_same("dma_bounces", bounces0);
	close(s);
	ck_assert_int_eq(pinned_pages(), 0);
	close(dev);
}
END_TEST

/*
 * CTR runs on mid-block from PIO (odd lengths) into DMA (whole blocks, from an aligned copy)
 * and back, the stream handed between the two sessions by its state.
 */
START_TEST(ctr_mid_block)
{
	static const uint32_t lens[] = { 5, 4096, 11, 16, 3, 65536, 1, 4095 };
	unsigned char key[16] = { 1 }, iv[16] = { 2 }, *in = buffer(BIG), *out = buffer(BIG);
	unsigned char *want = buffer(BIG), *tmp = buffer(BIG);
	int dev = open_node(), pio = session_new(dev, HWO_ALG_AES_CTR, HWO_PATH_PIO, key, 16, iv);
	int dma = session_new(dev, HWO_ALG_AES_CTR, HWO_PATH_DMA, key, 16, iv);
	struct hwo_state st = { .size = sizeof(st) };
	size_t off = 0, i;

	for (i = 0; i < BIG; i++)
		in[i] = (unsigned char)(i * 7);
	reference(HWO_ALG_AES_CTR, 0, key, 16, iv, in, want, BIG);
	for (i = 0; i < sizeof(lens) / sizeof(lens[0]); i++) {
		int by_dma = lens[i] % 16 == 0 && i % 2;
		int s = by_dma ? dma : pio, other = by_dma ? pio : dma;

		ck_assert_int_eq(ioctl(other, HWO_IOC_GET_STATE, &st), 0);
		ck_assert_int_eq(ioctl(s, HWO_IOC_SET_STATE, &st), 0);
		memcpy(tmp, in + off, lens[i]);
		ck_assert_int_eq(run_one(s, request(HWO_OP_ENCRYPT, tmp, tmp, lens[i]), NULL), 0);
		memcpy(out + off, tmp, lens[i]);
		ck_assert_int_eq(ioctl(s, HWO_IOC_GET_STATE, &st), 0);
		ck_assert_int_eq(ioctl(other, HWO_IOC_SET_STATE, &st), 0);
		off += lens[i];
	}
	ck_assert_uint_eq(st.ctr_offset, off % 16);
	ck_assert_bytes_eq("CTR across PIO and DMA", out, want, off);
	close(pio);
	close(dma);
	close(dev);
}
END_TEST

/* Wait for and read @n completions (poll, then read), in submission order. */
static void read_completions(int s, struct hwo_completion *c, unsigned int n)
{
	unsigned int got = 0;

	while (got < n) {
		struct pollfd p = { .fd = s, .events = POLLIN };
		ssize_t r;

		ck_assert_int_eq(poll(&p, 1, 30000), 1);
		r = read(s, c + got, (n - got) * sizeof(*c));
		ck_assert_msg(r > 0 && r % sizeof(*c) == 0, "read: %zd (%s)", r, strerror(errno));
		got += (unsigned int)(r / sizeof(*c));
	}
}

START_TEST(in_flight)
{
	enum { N = 16, PIECE = 65536 };
	unsigned char key[32] = { 3 }, iv[16] = { 4 }, *in = buffer(N * PIECE);
	unsigned char *out = buffer(N * PIECE), *want = buffer(N * PIECE);
	struct hwo_request reqs[N];
	struct hwo_completion c[N];
	long long acquired = vmstat("nr_foll_pin_acquired"),
		  released = vmstat("nr_foll_pin_released");
	long long dma0 = stat_value("device_dma_requests");
	long long chained0 = stat_value("dma_chained_requests"), chains0 = stat_value("dma_chains");
	int dev = open_node(), s, i, flags;
	uint32_t taken;

	memset(in, 0x5a, N * PIECE);
	reference(HWO_ALG_AES_CBC, 0, key, 32, iv, in, want, N * PIECE);
	s = session_new(dev, HWO_ALG_AES_CBC, HWO_PATH_DMA, key, 32, iv);
	flags = fcntl(s, F_GETFD);
	ck_assert_msg(flags >= 0 && (flags & FD_CLOEXEC), "the session fd is not close-on-exec");
	for (i = 0; i < N; i++) {
		reqs[i] = request(HWO_OP_ENCRYPT, in + i * PIECE, out + i * PIECE, PIECE);
		reqs[i].user_data = 1000 + i;
	}
	ck_assert_int_eq(submit_try(s, reqs, N, 0, NULL, &taken), 0);
	ck_assert_uint_eq(taken, N);
	/* done and not read yet: their pages are back already */
	for (i = 0; i < 3000 && pinned_pages(); i++)
		usleep(10000);
	ck_assert_msg(!pinned_pages(),
		      "%lld pages pinned 30 s after the batch, its completions "
		      "unread",
		      pinned_pages());
	read_completions(s, c, N);
	for (i = 0; i < N; i++) {
		ck_assert_uint_eq(c[i].user_data, 1000 + i);
		ck_assert_int_eq(c[i].status, 0);
		ck_assert_uint_eq(c[i].path, HWO_PATH_DMA);
	}
	ck_assert_bytes_eq("a batch of one CBC stream", out, want, N * PIECE);
	ck_assert_stat_grew("device_dma_requests", dma0, N);
	printf("in_flight: %d requests finished by %lld completion passes\n",
	       (int)(stat_value("dma_chained_requests") - chained0),
	       stat_value("dma_chains") - chains0);
	/* nothing left: a non-blocking read says EAGAIN, a blocking one 0 */
	ck_assert_int_eq(read(s, c, sizeof(c)), 0);
	fcntl(s, F_SETFL, O_NONBLOCK);
	ck_assert_int_eq(read(s, c, sizeof(c)), -1);
	ck_assert_int_eq(errno, EAGAIN);
	ck_assert_int_eq(pinned_pages(), 0);
	ck_assert_msg(vmstat("nr_foll_pin_acquired") > acquired, "the DMA path pinned nothing");
	ck_assert_int_eq(vmstat("nr_foll_pin_acquired") - acquired,
			 vmstat("nr_foll_pin_released") - released);
	close(s);
	close(dev);
}
END_TEST

/*
 * @n requests of session s as one batch with an engine fault on the first: it fails (EIO), the
 * rest ran from a record it never wrote (ECANCELED), or came after the failure was known and
 * were refused (EPIPE). Returns how many were taken.
 */
static uint32_t fault_on_the_first(int s, struct hwo_request *reqs, uint32_t n)
{
	struct hwo_completion c[8];
	uint32_t taken = 0, i;
	int ret;

	ck_assert_uint_le(n, 8);
	write_number(DEBUGFS_KNOB "fault_dma_error", 1);
	ret = submit_try(s, reqs, n, HWO_SUBMIT_WAIT, c, &taken);
	if (ret == -EPIPE) {
		/* the failure came back before the rest went: they are refused, not run */
		ck_assert_uint_ge(taken, 1);
		read_completions(s, c, taken);
	} else {
		ck_assert_int_eq(ret, 0);
	}
	printf("fault: %u of %u requests on the ring with the failed one\n", taken, n);
	ck_assert_int_eq(c[0].status, -EIO);
	for (i = 1; i < taken; i++)
		ck_assert_msg(c[i].status == -ECANCELED, "request %u: %d", i, c[i].status);
	return taken;
}

/*
 * An engine fault on the first of a batch on the ring: it fails (EIO), the rest ECANCELED; then
 * the stream wants a new IV (EPIPE) until it has one.
 */
START_TEST(fault_cancels_the_rest)
{
	enum { N = 4, PIECE = 65536 };
	unsigned char key[16] = { 5 }, iv[16] = { 6 }, *in = buffer(N * PIECE);
	unsigned char *out = buffer(N * PIECE), *want = buffer(N * PIECE);
	struct hwo_request reqs[N];
	struct hwo_completion c[N];
	struct hwo_state st = { .size = sizeof(st) };
	int dev = open_node(), s, i;
	long long errors0 = stat_value("device_errors");
	uint32_t taken;

	s = session_new(dev, HWO_ALG_AES_CBC, HWO_PATH_DMA, key, 16, iv);
	for (i = 0; i < N; i++)
		reqs[i] = request(HWO_OP_ENCRYPT, in + i * PIECE, out + i * PIECE, PIECE);
	taken = fault_on_the_first(s, reqs, N);
	ck_assert_stat_grew("device_errors", errors0, (int)taken);
	ck_assert_int_eq(read_number(DEBUGFS_KNOB "fault_dma_error"), 0);
	ck_assert_int_eq(run_one(s, reqs[0], NULL), -EPIPE);
	ck_assert_int_eq(ioctl(s, HWO_IOC_GET_STATE, &st), -1);
	ck_assert_int_eq(errno, EPIPE);
	reqs[0].flags = HWO_REQ_SET_IV;
	memcpy(reqs[0].iv, iv, 16);
	ck_assert_int_eq(submit_try(s, reqs, N, HWO_SUBMIT_WAIT, c, NULL), 0);
	for (i = 0; i < N; i++)
		ck_assert_int_eq(c[i].status, 0);
	reference(HWO_ALG_AES_CBC, 0, key, 16, iv, in, want, N * PIECE);
	ck_assert_bytes_eq("the stream after a new IV", out, want, N * PIECE);
	close(s);
	ck_assert_int_eq(pinned_pages(), 0);
	close(dev);
}
END_TEST

#define ck_assert_errno(expr, err)                                                    \
	do {                                                                          \
		long ret_ = (expr);                                                   \
		ck_assert_msg(ret_ == -(err), "%s: %ld (%s), want -%s", #expr, ret_,  \
			      ret_ < 0 ? strerror((int)-ret_) : "ok", strerror(err)); \
	} while (0)

static long ioctl_err(int fd, unsigned long cmd, void *arg)
{
	long ret = ioctl(fd, cmd, arg);

	return ret < 0 ? -errno : ret;
}

/* Each refusal of hwoffload_uapi.h's table that a caller can provoke, with its errno. */
START_TEST(refusals)
{
	unsigned char key[32] = { 7 }, *buf = buffer(4 * BIG), *ro;
	int dev = open_node(), s, pio, i;
	struct hwo_request reqs[70], r;
	struct hwo_submit sub;
	struct {
		struct hwo_session_new sn;
		uint64_t extra;
	} big = { { .size = sizeof(big),
		    .alg = HWO_ALG_AES_CBC,
		    .key_len = 16,
		    .key = (uintptr_t)key },
		  1 };
	struct hwo_state st = { .size = sizeof(st) };
	uint32_t taken = 99;

	ro = mmap(NULL, 4096, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(ro != MAP_FAILED);
	/* the device fd */
	ck_assert_errno(ioctl_err(dev, _IO(HWO_IOC_MAGIC, 0x7f), NULL), ENOTTY);
	ck_assert_errno(ioctl_err(dev, _IO('x', 0), NULL), ENOTTY);
	ck_assert_errno(ioctl_err(dev, HWO_IOC_SUBMIT, &sub), ENOTTY);
	ck_assert_errno(session_try(dev, 0, 0, key, 16, NULL), EINVAL);
	ck_assert_errno(session_try(dev, 99, 0, key, 16, NULL), EINVAL);
	ck_assert_errno(session_try(dev, HWO_ALG_AES_CBC, 3, key, 16, NULL), EINVAL);
	ck_assert_errno(session_try(dev, HWO_ALG_AES_CBC, 0, key, 17, NULL), EKEYREJECTED);
	ck_assert_errno(session_try(dev, HWO_ALG_AES_CBC, 0, key, 0, NULL), EKEYREJECTED);
	ck_assert_errno(session_try(dev, HWO_ALG_AES_CBC, 0, (void *)8, 16, NULL), EFAULT);
	ck_assert_errno(ioctl_err(dev, HWO_IOC_SESSION_NEW, &big), E2BIG);
	big.extra = 0;
	s = (int)ioctl_err(dev, HWO_IOC_SESSION_NEW, &big);
	ck_assert_int_ge(s, 0);
	ck_assert_errno(ioctl_err(dev, HWO_IOC_SESSION_NEW, NULL), EFAULT);
	/* the session fd */
	pio = session_new(dev, HWO_ALG_AES_CBC, HWO_PATH_PIO, key, 16, NULL);
	ck_assert_errno(ioctl_err(s, HWO_IOC_INFO, &sub), ENOTTY);
	ck_assert_errno(ioctl_err(s, HWO_IOC_SESSION_NEW, &sub), ENOTTY);
	/* longer than the FIFO and auto's threshold: by DMA */
	r = request(HWO_OP_ENCRYPT, buf, buf, 8192);
	ck_assert_errno(submit_try(s, &r, 0, 0, NULL, NULL), ERANGE);
	for (i = 0; i < 70; i++)
		reqs[i] = r;
	ck_assert_errno(submit_try(s, reqs, 65, 0, NULL, NULL), ERANGE);
	sub = (struct hwo_submit){
		.size = sizeof(sub), .count = 1, .req_size = 8, .requests = (uintptr_t)&r
	};
	ck_assert_errno(ioctl_err(s, HWO_IOC_SUBMIT, &sub), ERANGE);
	sub.req_size = sizeof(r);
	sub.flags = 2;
	ck_assert_errno(ioctl_err(s, HWO_IOC_SUBMIT, &sub), EINVAL);
	sub.flags = 0;
	sub.reserved = 1;
	ck_assert_errno(ioctl_err(s, HWO_IOC_SUBMIT, &sub), EINVAL);
	sub.reserved = 0;
	sub.requests = 16;
	ck_assert_errno(ioctl_err(s, HWO_IOC_SUBMIT, &sub), EFAULT);
	/* requests: each refused with its errno, the ones before it taken */
#define REFUSED(field_change, err)                                                       \
	do {                                                                             \
		struct hwo_request x_[2] = { r, r };                                     \
		struct hwo_completion c_[2];                                             \
		x_[1].field_change;                                                      \
		ck_assert_errno(submit_try(s, x_, 2, HWO_SUBMIT_WAIT, c_, &taken), err); \
		ck_assert_uint_eq(taken, 1);                                             \
		read_completions(s, c_, 1);                                              \
	} while (0)
	REFUSED(op = 0, EINVAL);
	REFUSED(op = 5, EINVAL);
	REFUSED(op = HWO_OP_UPDATE, EOPNOTSUPP);
	REFUSED(flags = 2, EINVAL);
	REFUSED(reserved = 1, EINVAL);
	REFUSED(len = 0, EMSGSIZE);
	REFUSED(len = 15, EMSGSIZE);
	REFUSED(len = BIG + 16, EMSGSIZE);
	REFUSED(src = 0, EFAULT);
	REFUSED(src = (uintptr_t)buf + 2 * BIG + 1, EADDRNOTAVAIL);
	REFUSED(dst = (uintptr_t)buf + 2 * BIG + 8, EADDRNOTAVAIL);
	REFUSED(dst = (uintptr_t)buf + 16, EADDRINUSE);
	REFUSED(dst = (uintptr_t)ro, EFAULT);
	REFUSED(src = UINT64_MAX - 4095, EFAULT);
	REFUSED(src = 0xffff888000000000ull, EFAULT);
	/* PIO: longer than the FIFO; an unreadable source; an unwritable destination completes */
	r = request(HWO_OP_ENCRYPT, buf, buf, FIFO + 16);
	ck_assert_errno(run_one(pio, r, NULL), EMSGSIZE);
	r = request(HWO_OP_ENCRYPT, (void *)4096, buf, 16);
	ck_assert_errno(run_one(pio, r, NULL), EFAULT);
	r = request(HWO_OP_ENCRYPT, buf, ro, 16);
	ck_assert_errno(run_one(pio, r, NULL), EFAULT);
	/* in flight: at most max_inflight unread */
	r = request(HWO_OP_ENCRYPT, buf, buf, 16);
	for (i = 0; i < 64; i++)
		reqs[i] = r;
	ck_assert_int_eq(submit_try(pio, reqs, 64, 0, NULL, &taken), 0);
	ck_assert_errno(submit_try(pio, reqs, 1, 0, NULL, &taken), EAGAIN);
	ck_assert_uint_eq(taken, 0);
	/* state */
	ck_assert_int_eq(ioctl(pio, HWO_IOC_GET_STATE, &st), 0);
	st.alg = HWO_ALG_AES_CTR;
	ck_assert_errno(ioctl_err(pio, HWO_IOC_SET_STATE, &st), EPROTO);
	st.alg = HWO_ALG_AES_CBC;
	st.version = 0;
	ck_assert_errno(ioctl_err(pio, HWO_IOC_SET_STATE, &st), EPROTO);
	st.version = HWO_VERSION;
	st.ctr_offset = 3;
	ck_assert_errno(ioctl_err(pio, HWO_IOC_SET_STATE, &st), EINVAL);
	close(pio); /* with 64 completions unread */
	close(s);
	ck_assert_int_eq(pinned_pages(), 0);
	close(dev);
}
END_TEST

/* ---- hashes ------------------------------------------------------------------------------ */

static const EVP_MD *reference_md(uint32_t alg)
{
	static const char *const names[] = {
		"MD5", "SHA1", "SHA224", "SHA256", "SHA384", "SHA512"
	};
	static EVP_MD *fetched[HASHES];
	uint32_t k = alg - HWO_ALG_MD5;

	if (!fetched[k])
		fetched[k] = EVP_MD_fetch(NULL, names[k], "provider=default");
	ck_assert_ptr_nonnull(fetched[k]);
	return fetched[k];
}

static uint32_t hash_block(uint32_t alg)
{
	return alg >= HWO_ALG_SHA384 ? 128 : 64;
}

static void hash_reference(uint32_t alg, const unsigned char *in, size_t len, unsigned char *md)
{
	ck_assert(EVP_Digest(in, len, md, NULL, reference_md(alg), NULL));
}

/*
 * One message through session s: UPDATEs of whole blocks (random counts; @batch at once, in
 * flight together, else one at a time), then the FINAL with the rest; the digest into md. The
 * source is aligned to the block for DMA sessions, anywhere for PIO's. Returns how many went
 * by PIO and DMA through *pio and *dma.
 */
static void hash_message(int s, uint32_t alg, uint32_t path, const unsigned char *in, size_t len,
			 unsigned int batch, struct test_rng *rng, unsigned char *md, int *pio,
			 int *dma)
{
	uint32_t block = hash_block(alg), max = path == HWO_PATH_PIO ? FIFO : 65536 * 4;
	struct hwo_request reqs[8];
	struct hwo_completion c[8];
	size_t off = 0;
	unsigned int n = 0, i;

	while (off < len) {
		size_t blocks = (len - off) / block, take = test_rng_range(rng, 0, blocks);

		take = take * block > max ? max / block : take;
		if (!take || n == batch)
			break;
		reqs[n++] = request(HWO_OP_UPDATE, in + off, NULL, (uint32_t)(take * block));
		off += take * block;
		if (batch == 1 || n == batch) {
			ck_assert_int_eq(submit_try(s, reqs, n, HWO_SUBMIT_WAIT, c, NULL), 0);
			for (i = 0; i < n; i++) {
				ck_assert_int_eq(c[i].status, 0);
				*pio += c[i].path == HWO_PATH_PIO;
				*dma += c[i].path == HWO_PATH_DMA;
			}
			n = batch == 1 ? 0 : n;
		}
	}
	/* the rest, behind the UPDATEs of the last batch: the FINAL waits for them */
	if (n == batch && batch > 1)
		n = 0;
	while (len - off > (path == HWO_PATH_PIO ? FIFO : (size_t)BIG)) {
		reqs[n++] = request(HWO_OP_UPDATE, in + off, NULL, FIFO);
		off += FIFO;
		ck_assert_int_eq(submit_try(s, reqs, n, HWO_SUBMIT_WAIT, c, NULL), 0);
		n = 0;
	}
	reqs[n++] = request(HWO_OP_FINAL, in + off, md, (uint32_t)(len - off));
	ck_assert_int_eq(submit_try(s, reqs, n, HWO_SUBMIT_WAIT, c, NULL), 0);
	for (i = 0; i < n; i++) {
		ck_assert_msg(c[i].status == 0, "%s: request %u of the last batch: %s",
			      alg_names[alg], i, strerror(-c[i].status));
		*pio += c[i].path == HWO_PATH_PIO;
		*dma += c[i].path == HWO_PATH_DMA;
	}
}

/*
 * Per hash and path (_i: hash * 3 + path): messages of random lengths (the empty one among
 * them), each a digest equal to OpenSSL's, one after another in one session, one at a time and
 * in batches in flight.
 */
START_TEST(hashes)
{
	uint32_t alg = HWO_ALG_MD5 + (uint32_t)_i / 3, path = (uint32_t)_i % 3;
	static const size_t lens[] = { 0, 1, 64, 200, 4096, 5000, 65536 + 77, 300000, 3 };
	unsigned char *in = buffer(BIG), md[64], want[64];
	long long pio0 = stat_value("device_pio_requests"),
		  dma0 = stat_value("device_dma_requests");
	int dev = open_node(), s = session_new(dev, alg, path, NULL, 0, NULL), pio = 0, dma = 0;
	struct test_rng rng;

	test_rng_init(&rng, 100 + (uint64_t)_i);
	test_rng_fill(&rng, in, BIG);
	for (size_t k = 0; k < sizeof(lens) / sizeof(lens[0]); k++) {
		/* PIO takes any source; DMA's starts on a block */
		const unsigned char *src = in + (path == HWO_PATH_PIO ? k : 0);

		hash_message(s, alg, path, src, lens[k], k % 2 ? 4 : 1, &rng, md, &pio, &dma);
		hash_reference(alg, src, lens[k], want);
		ck_assert_msg(!memcmp(md, want, EVP_MD_get_size(reference_md(alg))),
			      "%s %s: the digest of %zu bytes differs", alg_names[alg],
			      path_names[path], lens[k]);
	}
	assert_paths_taken(path, pio, dma, pio0, dma0);
	close(s);
	ck_assert_int_eq(pinned_pages(), 0);
	close(dev);
}
END_TEST

/*
 * A message's state handed out by an UPDATE (and by GET_STATE, the same) carries it into
 * another session, and into a forked child, whose session of its own finishes it right.
 */
START_TEST(hash_state_carried)
{
	unsigned char *in = buffer(BIG), md[64], want[64];
	struct hwo_hash_state handed;
	struct hwo_state st = { .size = sizeof(st) };
	int dev = open_node(), s = session_new(dev, HWO_ALG_SHA512, HWO_PATH_DMA, NULL, 0, NULL);
	int other, status;
	pid_t pid;

	memset(in, 0x3c, BIG);
	hash_reference(HWO_ALG_SHA512, in, 100000, want);
	ck_assert_int_eq(run_one(s, request(HWO_OP_UPDATE, in, &handed, 65536), NULL), 0);
	ck_assert_uint_eq(handed.len_lo, 65536);
	ck_assert_int_eq(ioctl(s, HWO_IOC_GET_STATE, &st), 0);
	ck_assert_uint_eq(st.alg, HWO_ALG_SHA512);
	ck_assert_msg(!memcmp(&st.hash, &handed, sizeof(handed)),
		      "GET_STATE differs from the UPDATE's");
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		int own = session_try(dev, HWO_ALG_SHA512, HWO_PATH_AUTO, NULL, 0, NULL), bad = 0;
		struct hwo_state mine = { .size = sizeof(mine),
					  .alg = HWO_ALG_SHA512,
					  .version = HWO_VERSION,
					  .hash = handed };

		bad |= run_one(s, request(HWO_OP_FINAL, in + 65536, md, 34464), NULL) != -EPERM;
		bad |= (own < 0 || ioctl(own, HWO_IOC_SET_STATE, &mine)) << 1;
		bad |= (run_one(own, request(HWO_OP_FINAL, in + 65536, md, 34464), NULL) ||
			memcmp(md, want, 64))
		       << 2;
		_exit(bad);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status), "child: status %#x", status);
	/* the parent's own message goes on; another session carries a copy to the same end */
	other = session_new(dev, HWO_ALG_SHA512, HWO_PATH_AUTO, NULL, 0, NULL);
	ck_assert_int_eq(ioctl(other, HWO_IOC_SET_STATE, &st), 0);
	ck_assert_int_eq(run_one(other, request(HWO_OP_FINAL, in + 65536, md, 34464), NULL), 0);
	ck_assert_msg(!memcmp(md, want, 64), "the state carried to another session");
	memset(md, 0, sizeof(md));
	ck_assert_int_eq(run_one(s, request(HWO_OP_FINAL, in + 65536, md, 34464), NULL), 0);
	ck_assert_msg(!memcmp(md, want, 64), "the parent's message");
	/* after a FINAL, a new message */
	ck_assert_int_eq(ioctl(s, HWO_IOC_GET_STATE, &st), 0);
	ck_assert_uint_eq(st.hash.len_lo, 0);
	close(other);
	close(s);
	ck_assert_int_eq(pinned_pages(), 0);
	close(dev);
}
END_TEST

/* A hash's refusals, and a failed request on the ring: the rest ECANCELED, EPIPE until SET_STATE.
 */
START_TEST(hash_refusals_and_fault)
{
	enum { N = 4, PIECE = 65536 };
	unsigned char key[16] = { 1 }, iv[16] = { 1 }, *buf = buffer(N * PIECE), md[64], want[64];
	int dev = open_node(), s = session_new(dev, HWO_ALG_SHA256, HWO_PATH_DMA, NULL, 0, NULL);
	struct hwo_state st = { .size = sizeof(st) };
	struct hwo_request reqs[N + 1];
	struct hwo_completion c[N + 1];
	int i;

	ck_assert_errno(session_try(dev, HWO_ALG_SHA256, 0, key, 16, NULL), EKEYREJECTED);
	ck_assert_errno(session_try(dev, HWO_ALG_SHA256, 0, NULL, 0, iv), EINVAL);
	ck_assert_errno(run_one(s, request(HWO_OP_ENCRYPT, buf, buf, 64), NULL), EOPNOTSUPP);
	ck_assert_errno(run_one(s, request(HWO_OP_UPDATE, buf, NULL, 0), NULL), EMSGSIZE);
	ck_assert_errno(run_one(s, request(HWO_OP_UPDATE, buf, NULL, 96), NULL), EMSGSIZE);
	ck_assert_errno(run_one(s, request(HWO_OP_FINAL, buf, NULL, 64), NULL), EFAULT);
	ck_assert_errno(run_one(s, request(HWO_OP_UPDATE, buf + 16, NULL, 64), NULL),
			EADDRNOTAVAIL);
	reqs[0] = request(HWO_OP_UPDATE, buf, NULL, 64);
	reqs[0].flags = HWO_REQ_SET_IV;
	ck_assert_errno(run_one(s, reqs[0], NULL), EINVAL);
	ck_assert_int_eq(ioctl(s, HWO_IOC_GET_STATE, &st), 0);
	st.hash.len_lo = 65;
	ck_assert_errno(ioctl_err(s, HWO_IOC_SET_STATE, &st), EINVAL);
	/* an unwritable digest: the completion says so */
	ck_assert_errno(run_one(s, request(HWO_OP_FINAL, buf, (void *)4096, 64), NULL), EFAULT);

	memset(buf, 0x77, N * PIECE);
	for (i = 0; i < N; i++)
		reqs[i] = request(HWO_OP_UPDATE, buf + i * PIECE, NULL, PIECE);
	fault_on_the_first(s, reqs, N);
	ck_assert_errno(run_one(s, request(HWO_OP_FINAL, buf, md, 64), NULL), EPIPE);
	ck_assert_errno(ioctl_err(s, HWO_IOC_GET_STATE, &st), EPIPE);
	st = (struct hwo_state){ .size = sizeof(st),
				 .alg = HWO_ALG_SHA256,
				 .version = HWO_VERSION };
	ck_assert_int_eq(ioctl(s, HWO_IOC_SET_STATE, &st), 0);
	reqs[N] = request(HWO_OP_FINAL, buf, md, 0);
	ck_assert_int_eq(submit_try(s, reqs, N, HWO_SUBMIT_WAIT, c, NULL), 0);
	ck_assert_int_eq(submit_try(s, &reqs[N], 1, HWO_SUBMIT_WAIT, c, NULL), 0);
	hash_reference(HWO_ALG_SHA256, buf, N * PIECE, want);
	ck_assert_msg(!memcmp(md, want, 32), "the message after SET_STATE");
	close(s);
	ck_assert_int_eq(pinned_pages(), 0);
	close(dev);
}
END_TEST

/* A forked child has its parent's session fd, not the session; it makes its own. */
START_TEST(fork_child)
{
	unsigned char key[16] = { 8 }, *buf = buffer(65536);
	int dev = open_node(), s = session_new(dev, HWO_ALG_AES_CTR, HWO_PATH_AUTO, key, 16, NULL);
	struct hwo_request r = request(HWO_OP_ENCRYPT, buf, buf, 65536);
	struct hwo_state st = { .size = sizeof(st) };
	struct hwo_completion c;
	int status;
	pid_t pid;

	ck_assert_int_eq(run_one(s, r, NULL), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		int own, bad = 0;

		bad |= run_one(s, r, NULL) != -EPERM;
		bad |= (ioctl(s, HWO_IOC_GET_STATE, &st) != -1 || errno != EPERM) << 1;
		bad |= (read(s, &c, sizeof(c)) != -1 || errno != EPERM) << 2;
		own = session_try(dev, HWO_ALG_AES_CTR, HWO_PATH_AUTO, key, 16, NULL);
		bad |= (own < 0 || run_one(own, r, NULL) != 0) << 3;
		close(s);
		_exit(bad);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status), "child: status %#x", status);
	ck_assert_int_eq(run_one(s, r, NULL), 0);
	close(s);
	close(dev);
}
END_TEST

/* Without CAP_IPC_LOCK, RLIMIT_MEMLOCK bounds what a process has pinned at once. */
START_TEST(memlock_limit)
{
	unsigned char key[16] = { 9 }, *buf = buffer(BIG);
	int dev = open_node(), s = session_new(dev, HWO_ALG_AES_ECB, HWO_PATH_DMA, key, 16, NULL);
	struct __user_cap_header_struct hdr = { .version = _LINUX_CAPABILITY_VERSION_3 };
	struct __user_cap_data_struct data[2];
	struct rlimit lim = { 64 * 1024, 64 * 1024 };

	ck_assert_int_eq(syscall(SYS_capget, &hdr, data), 0);
	data[0].effective &= ~(1u << CAP_IPC_LOCK);
	ck_assert_int_eq(syscall(SYS_capset, &hdr, data), 0);
	ck_assert_int_eq(setrlimit(RLIMIT_MEMLOCK, &lim), 0);
	ck_assert_errno(run_one(s, request(HWO_OP_ENCRYPT, buf, buf, BIG), NULL), ENOBUFS);
	ck_assert_int_eq(run_one(s, request(HWO_OP_ENCRYPT, buf, buf, 32768), NULL), 0);
	ck_assert_int_eq(pinned_pages(), 0);
	close(s);
	close(dev);
}
END_TEST

static void driver_write(const char *file, const char *dev)
{
	char path[256];

	snprintf(path, sizeof(path), DRIVER_DIR "%s", file);
	write_file(path, dev, strlen(dev));
}

/*
 * A child submits without pause while the engine is unbound: every call succeeds or, from some
 * moment on, fails with ENODEV, and stays so after the rebind; the new node serves.
 */
START_TEST(unbind)
{
	unsigned char key[16] = { 10 }, *buf = buffer(BIG);
	char path[512], name[64], go;
	int dev = open_node(), s, status, pipefd[2];
	pid_t pid;

	find_path(DRIVER_DIR "0000:*", path, sizeof(path));
	snprintf(name, sizeof(name), "%s", basename(path));
	ck_assert_int_eq(pipe(pipefd), 0);
	pid = fork();
	ck_assert_int_ge(pid, 0);
	if (!pid) {
		int child = session_try(dev, HWO_ALG_AES_CBC, HWO_PATH_AUTO, key, 16, NULL);
		int ret = 0, n, gone = 0;

		close(pipefd[0]);
		for (n = 0; child >= 0 && gone < 200; n++) {
			uint32_t len = 16u << (n % 14);

			if (n == 50)
				ck_assert_int_eq(write(pipefd[1], "x", 1), 1);
			ret = run_one(child, request(n % 2 + 1, buf, buf, len), NULL);
			if (ret == -ENODEV)
				gone++;
			else if (ret || gone)
				_exit(1);
		}
		_exit(child < 0 ? 2 : 0);
	}
	close(pipefd[1]);
	ck_assert_int_eq(read(pipefd[0], &go, 1), 1);
	driver_write("unbind", name);
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status), "child: status %#x", status);
	ck_assert_int_eq(access(NODE, F_OK), -1);
	driver_write("bind", name);
	s = session_try(dev, HWO_ALG_AES_CBC, HWO_PATH_AUTO, key, 16, NULL);
	ck_assert_errno(s, ENODEV);
	close(dev);
	dev = open_node();
	s = session_new(dev, HWO_ALG_AES_CBC, HWO_PATH_AUTO, key, 16, NULL);
	ck_assert_int_eq(run_one(s, request(HWO_OP_ENCRYPT, buf, buf, 65536), NULL), 0);
	close(s);
	close(dev);
	ck_assert_int_eq(pinned_pages(), 0);
}
END_TEST

struct racer {
	int s;
	unsigned char *buf;
	atomic_bool stop;
	unsigned long waits, reads;
	int bad;
};

/* read() without pause on a session another thread submits to with WAIT and without. */
static void *race_reader(void *arg)
{
	struct racer *r = arg;
	struct hwo_completion c[8];

	while (!atomic_load(&r->stop))
		if (read(r->s, c, sizeof(c)) > 0)
			r->reads++;
	return NULL;
}

/*
 * A WAIT batch's completions are the waiter's: a reader in another thread of the owner never
 * takes them (it gets those of batches submitted without WAIT), and nothing is freed twice.
 */
START_TEST(wait_and_read_race)
{
	unsigned char key[16] = { 12 };
	struct racer r = { .buf = buffer(BIG) };
	int dev = open_node(), n, i;
	pthread_t reader;
	time_t end;

	r.s = session_new(dev, HWO_ALG_AES_ECB, HWO_PATH_AUTO, key, 16, NULL);
	fcntl(r.s, F_SETFL, O_NONBLOCK);
	ck_assert_int_eq(pthread_create(&reader, NULL, race_reader, &r), 0);
	end = time(NULL) + 3;
	for (n = 0; time(NULL) < end; n++) {
		struct hwo_request reqs[4];
		struct hwo_completion c[4];

		for (i = 0; i < 4; i++) {
			reqs[i] = request(HWO_OP_ENCRYPT, r.buf + i * 65536, r.buf + i * 65536,
					  n % 2 ? 65536 : 512);
			reqs[i].user_data = (uint64_t)n << 8 | (uint64_t)i;
		}
		if (n % 3) {
			int ret;

			/* the reader may not have caught up with the batches without WAIT */
			while ((ret = submit_try(r.s, reqs, 4, HWO_SUBMIT_WAIT, c, NULL)) ==
			       -EAGAIN)
				usleep(1000);
			ck_assert_int_eq(ret, 0);
			for (i = 0; i < 4; i++)
				ck_assert_uint_eq(c[i].user_data, (uint64_t)n << 8 | (uint64_t)i);
			r.waits++;
		} else if (submit_try(r.s, reqs, 4, 0, NULL, NULL) == -EAGAIN) {
			usleep(1000);
		}
	}
	atomic_store(&r.stop, true);
	ck_assert_int_eq(pthread_join(reader, NULL), 0);
	printf("wait_and_read_race: %lu WAIT batches, %lu reads\n", r.waits, r.reads);
	close(r.s);
	close(dev);
	ck_assert_int_eq(pinned_pages(), 0);
}
END_TEST

/* A pointer from the fuzzer's set: good, unmapped, read-only, kernel, wrapping, NULL. */
static uint64_t fuzz_pointer(struct test_rng *rng, unsigned char *good, unsigned char *ro)
{
	switch (test_rng_range(rng, 0, 7)) {
	case 0:
		return 0;
	case 1:
		return (uintptr_t)ro + 16 * test_rng_range(rng, 0, 255);
	case 2:
		return 0xffff888000000000ull + test_rng_next(rng) % (1ull << 30);
	case 3:
		return UINT64_MAX - test_rng_range(rng, 0, 65536);
	case 4:
		return test_rng_next(rng);
	default:
		return (uintptr_t)good + test_rng_range(rng, 0, 2 * BIG);
	}
}

static uint32_t fuzz_number(struct test_rng *rng, uint32_t typical)
{
	switch (test_rng_range(rng, 0, 5)) {
	case 0:
		return (uint32_t)test_rng_next(rng);
	case 1:
		return UINT32_MAX - (uint32_t)test_rng_range(rng, 0, 2);
	case 2:
		return (uint32_t)test_rng_range(rng, 0, 2);
	default:
		return typical;
	}
}

/* How long the fuzzer runs: HWOFFLOAD_DEVICE_FUZZ_S, else 10 s (the long mode's 600). */
static int fuzz_seconds(void)
{
	const char *env = getenv("HWOFFLOAD_DEVICE_FUZZ_S");

	return env ? atoi(env) : getenv("HWOFFLOAD_TEST_LONG") ? 600 : 10;
}

/* Random calls on the device and sessions for @seconds: whatever they get, no page stays pinned. */
START_TEST(fuzz)
{
	int seconds = fuzz_seconds();
	unsigned char key[32] = { 11 }, *good = buffer(4 * BIG), *ro;
	long long acquired = vmstat("nr_foll_pin_acquired"),
		  released = vmstat("nr_foll_pin_released");
	int dev = open_node(), sessions[8] = { -1, -1, -1, -1, -1, -1, -1, -1 }, i;
	struct hwo_request reqs[80];
	struct hwo_completion comps[80];
	unsigned char raw[256];
	unsigned long calls = 0, ok = 0;
	struct test_rng rng;
	time_t end;

	ro = mmap(NULL, 4096 * 256, PROT_READ, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	ck_assert(ro != MAP_FAILED);
	test_rng_init(&rng, 29);
	end = time(NULL) + seconds;
	while (time(NULL) < end) {
		int k = (int)test_rng_range(&rng, 0, 7), *sfd = &sessions[k];
		int what = (int)test_rng_range(&rng, 0, 9);
		unsigned int n;
		long ret;

		calls++;
		if (*sfd < 0 || what == 0) {
			struct hwo_session_new sn = {
				.size = test_rng_range(&rng, 0, 3) ? sizeof(sn)
								   : fuzz_number(&rng, 8),
				.alg = fuzz_number(
					&rng, (uint32_t)(test_rng_range(&rng, 0, 1)
								 ? test_rng_range(&rng, 1, 3)
								 : test_rng_range(&rng, 8, 13))),
				.path = fuzz_number(&rng, (uint32_t)test_rng_range(&rng, 0, 2)),
				/* 0 for a hash, 16, 24 or 32 for AES */
				.key_len = fuzz_number(
					&rng, (uint32_t)test_rng_range(&rng, 0, 3) * 8 +
						      (test_rng_range(&rng, 0, 3) ? 8 : 0)),
				.key = test_rng_range(&rng, 0, 3) ? (uintptr_t)key
								  : fuzz_pointer(&rng, good, ro),
			};

			if (*sfd >= 0)
				close(*sfd);
			*sfd = (int)ioctl_err(dev, HWO_IOC_SESSION_NEW, &sn);
			ok += *sfd >= 0;
			continue;
		}
		switch (what) {
		case 1: /* random bytes to a random command */
			test_rng_fill(&rng, raw, sizeof(raw));
			ret = ioctl_err(
				test_rng_range(&rng, 0, 1) ? *sfd : dev,
				_IOC(test_rng_range(&rng, 0, 3), HWO_IOC_MAGIC,
				     test_rng_range(&rng, 0, 6), test_rng_range(&rng, 0, 255)),
				test_rng_range(&rng, 0, 3) ? raw
							   : (void *)fuzz_pointer(&rng, good, ro));
			break;
		case 2:
			ret = read(*sfd, comps, test_rng_range(&rng, 0, sizeof(comps)));
			break;
		case 3: {
			struct hwo_state st = { .size = fuzz_number(&rng, sizeof(st)) };

			test_rng_fill(&rng, st.iv, sizeof(st.iv));
			st.alg = fuzz_number(&rng, (uint32_t)test_rng_range(&rng, 1, 3));
			st.version = fuzz_number(&rng, HWO_VERSION);
			st.ctr_offset = fuzz_number(&rng, (uint32_t)test_rng_range(&rng, 0, 15));
			ret = ioctl_err(*sfd,
					test_rng_range(&rng, 0, 1) ? HWO_IOC_SET_STATE
								   : HWO_IOC_GET_STATE,
					&st);
			break;
		}
		default: { /* a batch, mostly sane */
			struct hwo_submit sub = {
				.size = test_rng_range(&rng, 0, 7) ? sizeof(sub)
								   : fuzz_number(&rng, 40),
				.flags = test_rng_range(&rng, 0, 3) ? 0 : fuzz_number(&rng, 1),
				.count = fuzz_number(&rng, (uint32_t)test_rng_range(&rng, 1, 8)),
				.req_size = test_rng_range(&rng, 0, 7) ? sizeof(reqs[0])
								       : fuzz_number(&rng, 48),
				.requests = test_rng_range(&rng, 0, 7)
						    ? (uintptr_t)reqs
						    : fuzz_pointer(&rng, good, ro),
				.completions = test_rng_range(&rng, 0, 3)
						       ? (uintptr_t)comps
						       : fuzz_pointer(&rng, good, ro),
			};

			for (n = 0; n < 80; n++) {
				uint32_t len = (uint32_t)test_rng_range(&rng, 1, 4) *
					       (test_rng_range(&rng, 0, 1) ? 16 : 4096);

				reqs[n] = (struct hwo_request){
					.user_data = n,
					.op = fuzz_number(&rng,
							  (uint32_t)test_rng_range(&rng, 1, 4)),
					.flags = test_rng_range(&rng, 0, 3) ? 0
									    : fuzz_number(&rng, 1),
					.src = fuzz_pointer(&rng, good, ro),
					.len = test_rng_range(&rng, 0, 5) ? len
									  : fuzz_number(&rng, len),
				};
				reqs[n].dst = test_rng_range(&rng, 0, 1)
						      ? reqs[n].src
						      : fuzz_pointer(&rng, good, ro);
				reqs[n].src &= test_rng_range(&rng, 0, 3) ? ~15ull : ~0ull;
			}
			ret = ioctl_err(*sfd, HWO_IOC_SUBMIT, &sub);
			/* keep the session under max_inflight now and then */
			if (test_rng_range(&rng, 0, 1)) {
				fcntl(*sfd, F_SETFL, O_NONBLOCK);
				while (read(*sfd, comps, sizeof(comps)) > 0)
					;
			}
			break;
		}
		}
		ok += ret >= 0;
	}
	for (i = 0; i < 8; i++)
		if (sessions[i] >= 0)
			close(sessions[i]);
	close(dev);
	printf("fuzz: %lu calls in %d s, %lu accepted\n", calls, seconds, ok);
	ck_assert_int_eq(pinned_pages(), 0);
	ck_assert_int_eq(vmstat("nr_foll_pin_acquired") - acquired,
			 vmstat("nr_foll_pin_released") - released);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hwoffload driver: /dev/hwoffload0");
	TCase *tc = tcase_create("device");

	/* each test takes seconds but the fuzzer: a hang names itself, within the guest's limit */
	tcase_set_timeout(tc, 120 + fuzz_seconds());
	tcase_add_test(tc, info_and_node);
	tcase_add_loop_test(tc, streams, 0, 18);
	tcase_add_test(tc, ctr_mid_block);
	tcase_add_test(tc, in_flight);
	tcase_add_test(tc, fault_cancels_the_rest);
	tcase_add_test(tc, refusals);
	tcase_add_loop_test(tc, hashes, 0, 3 * HASHES);
	tcase_add_test(tc, hash_state_carried);
	tcase_add_test(tc, hash_refusals_and_fault);
	tcase_add_test(tc, fork_child);
	tcase_add_test(tc, memlock_limit);
	tcase_add_test(tc, wait_and_read_race);
	tcase_add_test(tc, fuzz);
	tcase_add_test(tc, unbind);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
