// SPDX-License-Identifier: Apache-2.0
/*
 * The hwoffload driver's gcm(aes) AEADs (kernel/hwoffload-aead.c) through AF_ALG "aead" sockets,
 * bound by driver name (gcm-aes-hwoffload, -pio, -dma) and compared with OpenSSL's
 * aes-{128,192,256}-gcm: random keys, every tag length the kernel accepts (4, 8, 12..16), AAD of
 * 0 to 64 KiB and data of 0 to 1 MiB (empty and AAD-only messages included), the message sent
 * as several iovec pieces and received into several, page-aligned, 16-byte-aligned or
 * misaligned user buffers, in place (one buffer for input and output) or not. Every encrypt's
 * AAD || ciphertext || tag equals OpenSSL's, the decrypt gives the data back, and a flipped tag
 * bit gives EBADMSG with no plaintext in the output (empty messages are encrypted only: AF_ALG
 * runs no request for an empty output). Then the debugfs statistics show each path
 * ran (PIO, DMA zero-copy and bounced, the auto threshold, tag mismatches counted apart from
 * errors, the auto driver's software tier by direction), every injected engine fault fails a
 * GCM request with an error, never wrong bytes, after which the driver serves again, the
 * kernel's rfc4106 template over the driver (IPsec's form) passes its self-test and equals
 * OpenSSL, and the kernel's gcm(aes) self-tests (tcrypt) pass on the auto driver with its
 * software tier in force.
 *
 * ITERATIONS cases per driver; HWOFFLOAD_TEST_LONG=1 runs ten times as many. Runs in the guest
 * as root, from the build tree, with the module loaded (test/vm/run).
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <linux/if_alg.h>
#include <openssl/evp.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include "test/guest/driverutil.h"
#include "test/testutil.h"

#ifndef SOL_ALG
#define SOL_ALG 279
#endif

#define PAGE	   4096
#define MAX_AAD	   (64 * 1024)
#define MAX_DATA   (1024 * 1024)
#define TAG	   16
#define IV_LEN	   12
#define BUF_LEN	   (MAX_AAD + MAX_DATA + TAG + PAGE)
#define MAX_PIECES 5
#define ITERATIONS 300
#define RUNS	   4 /* requests per check of the statistics */
/* the socket buffers one request of the largest size needs (AF_ALG holds it whole) */
#define SOCK_BUF (4 * 1024 * 1024)

static const unsigned int authsizes[] = { 4, 8, 12, 13, 14, 15, 16 };

/* (AAD, data) lengths every driver tries first: empty, AAD only, around the FIFO, the largest. */
static const size_t edge_lens[][2] = {
	{ 0, 0 },    { 0, 1 },	  { 16, 0 },	  { 13, 17 },	   { 20, 4076 },
	{ 0, 4096 }, { 1, 4096 }, { MAX_AAD, 0 }, { 0, MAX_DATA }, { MAX_AAD, MAX_DATA },
};

#define EDGES (int)(sizeof(edge_lens) / sizeof(edge_lens[0]))

/* One message and how user space lays it out. */
struct layout {
	size_t aad, data;
	unsigned int authsize;
	size_t key_len;
	size_t in_off, out_off; /* offsets of the user buffers from a page boundary */
	int in_place;
	size_t in_pieces, out_pieces; /* iovec entries of sendmsg and recvmsg */
	size_t iv_len; /* 0: gcm(aes)'s 12 bytes */
};

struct buffers {
	unsigned char *in, *out, *want, *pt; /* page-aligned, BUF_LEN each */
};

static void driver_name(enum path path, char *buf, size_t size)
{
	snprintf(buf, size, "gcm-aes-hwoffload%s", path_suffix[path]);
}

static void buffers_alloc(struct buffers *b)
{
	unsigned char **p[] = { &b->in, &b->out, &b->want, &b->pt };
	size_t i;

	for (i = 0; i < sizeof(p) / sizeof(p[0]); i++)
		ck_assert_int_eq(posix_memalign((void **)p[i], PAGE, BUF_LEN), 0);
}

static void buffers_free(struct buffers *b)
{
	free(b->in);
	free(b->out);
	free(b->want);
	free(b->pt);
}

/*
 * A whole message is in the socket before the request runs: room for the largest, and for
 * AF_ALG's per-request lists (net.core.optmem_max, 20 KiB on 6.1).
 */
static void raise_socket_limits(void)
{
	static const char *const files[] = { "/proc/sys/net/core/optmem_max",
					     "/proc/sys/net/core/wmem_max",
					     "/proc/sys/net/core/rmem_max" };
	char value[32];
	size_t i;

	snprintf(value, sizeof(value), "%d\n", SOCK_BUF);
	for (i = 0; i < sizeof(files) / sizeof(files[0]); i++)
		write_file(files[i], value, strlen(value));
}

/* The request socket of driver @name keyed with @key and @authsize: >= 0, or -errno. */
static int aead_open(const char *name, const unsigned char *key, size_t key_len,
		     unsigned int authsize)
{
	int fd = alg_bind("aead", name, key, key_len), op, size = SOCK_BUF, err;

	if (fd < 0)
		return fd;
	if (setsockopt(fd, SOL_ALG, ALG_SET_AEAD_AUTHSIZE, NULL, authsize)) {
		err = -errno;
		close(fd);
		return err;
	}
	op = accept(fd, NULL, 0);
	err = -errno;
	close(fd);
	if (op < 0)
		return err;
	if (setsockopt(op, SOL_SOCKET, SO_SNDBUF, &size, sizeof(size)) ||
	    setsockopt(op, SOL_SOCKET, SO_RCVBUF, &size, sizeof(size))) {
		err = -errno;
		close(op);
		return err;
	}
	return op;
}

/* @len bytes at @buf as @pieces iovec entries of random lengths. */
static size_t make_iov(struct test_rng *rng, unsigned char *buf, size_t len, size_t pieces,
		       struct iovec *iov)
{
	size_t i, off = 0, part;

	for (i = 0; i < pieces - 1 && off < len; i++) {
		part = test_rng_range(rng, 0, len - off);
		iov[i] = (struct iovec){ buf + off, part };
		off += part;
	}
	iov[i] = (struct iovec){ buf + off, len - off };
	return i + 1;
}

/*
 * One request on @op: @in_len bytes from @in (AAD first, @aad of them) encrypted or decrypted
 * into @out_len bytes at @out, each side cut into the layout's pieces. 0, or -errno.
 */
static int aead_request(struct test_rng *rng, int op, int enc, const unsigned char *iv,
			const struct layout *l, unsigned char *in, size_t in_len,
			unsigned char *out, size_t out_len)
{
	char control[CMSG_SPACE(sizeof(__u32)) * 2 + CMSG_SPACE(sizeof(struct af_alg_iv) + IV_LEN)];
	size_t iv_len = l->iv_len ? l->iv_len : IV_LEN;
	struct iovec in_iov[MAX_PIECES], out_iov[MAX_PIECES];
	struct msghdr msg = { .msg_control = control, .msg_controllen = sizeof(control) };
	struct af_alg_iv *alg_iv;
	struct cmsghdr *cmsg;
	ssize_t n;

	memset(control, 0, sizeof(control));
	cmsg = CMSG_FIRSTHDR(&msg);
	cmsg->cmsg_level = SOL_ALG;
	cmsg->cmsg_type = ALG_SET_OP;
	cmsg->cmsg_len = CMSG_LEN(sizeof(__u32));
	*(__u32 *)CMSG_DATA(cmsg) = enc ? ALG_OP_ENCRYPT : ALG_OP_DECRYPT;
	cmsg = CMSG_NXTHDR(&msg, cmsg);
	cmsg->cmsg_level = SOL_ALG;
	cmsg->cmsg_type = ALG_SET_AEAD_ASSOCLEN;
	cmsg->cmsg_len = CMSG_LEN(sizeof(__u32));
	*(__u32 *)CMSG_DATA(cmsg) = (__u32)l->aad;
	cmsg = CMSG_NXTHDR(&msg, cmsg);
	cmsg->cmsg_level = SOL_ALG;
	cmsg->cmsg_type = ALG_SET_IV;
	cmsg->cmsg_len = CMSG_LEN(sizeof(struct af_alg_iv) + iv_len);
	alg_iv = (struct af_alg_iv *)CMSG_DATA(cmsg);
	alg_iv->ivlen = (__u32)iv_len;
	memcpy(alg_iv->iv, iv, iv_len);
	msg.msg_controllen =
		CMSG_SPACE(sizeof(__u32)) * 2 + CMSG_SPACE(sizeof(struct af_alg_iv) + iv_len);
	msg.msg_iov = in_iov;
	msg.msg_iovlen = make_iov(rng, in, in_len, l->in_pieces, in_iov);
	n = sendmsg(op, &msg, 0);
	if (n < 0)
		return -errno;
	if ((size_t)n != in_len)
		return -EMSGSIZE;
	memset(&msg, 0, sizeof(msg));
	msg.msg_iov = out_iov;
	msg.msg_iovlen = make_iov(rng, out, out_len, l->out_pieces, out_iov);
	n = recvmsg(op, &msg, 0);
	if (n < 0)
		return -errno;
	return (size_t)n == out_len ? 0 : -EMSGSIZE;
}

/* OpenSSL's AAD || ciphertext || tag (authsize bytes) of @pt under @key and @iv. */
static void reference_encrypt(const struct layout *l, const unsigned char *key,
			      const unsigned char *iv, const unsigned char *aad,
			      const unsigned char *pt, unsigned char *out)
{
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	unsigned char tag[TAG];
	char name[32];
	EVP_CIPHER *cipher;
	int n, ok;

	snprintf(name, sizeof(name), "AES-%zu-GCM", l->key_len * 8);
	cipher = EVP_CIPHER_fetch(NULL, name, "provider=default");
	memmove(out, aad, l->aad);
	ok = ctx && cipher && EVP_EncryptInit_ex2(ctx, cipher, key, iv, NULL) &&
	     (!l->aad || EVP_EncryptUpdate(ctx, NULL, &n, aad, (int)l->aad)) &&
	     (!l->data || EVP_EncryptUpdate(ctx, out + l->aad, &n, pt, (int)l->data)) &&
	     EVP_EncryptFinal_ex(ctx, out + l->aad + l->data, &n) &&
	     EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, TAG, tag);
	ck_assert_msg(ok, "OpenSSL %s failed", name);
	memcpy(out + l->aad + l->data, tag, l->authsize);
	EVP_CIPHER_CTX_free(ctx);
	EVP_CIPHER_free(cipher);
}

static const char *describe(const struct layout *l, char *buf, size_t size)
{
	snprintf(buf, size,
		 "key %zu, AAD %zu, data %zu, tag %u, %s, offsets %zu/%zu, pieces %zu/%zu",
		 l->key_len * 8, l->aad, l->data, l->authsize,
		 l->in_place ? "in place" : "out of place", l->in_off, l->out_off, l->in_pieces,
		 l->out_pieces);
	return buf;
}

/* Says in @err what went wrong with @step of the message @l; returns 1. */
static int step_failed(char *err, size_t err_size, const char *name, const char *step,
		       const struct layout *l, const char *what, int ret)
{
	char shape[256];

	snprintf(err, err_size, "%s %s (%s): %s %d", name, step, describe(l, shape, sizeof(shape)),
		 what, ret);
	return 1;
}

/*
 * On the request socket @op: encrypt @b->pt (AAD || data) with @iv and compare with @b->want,
 * OpenSSL's; decrypt that back; decrypt it with a flipped tag bit: EBADMSG, and the output holds
 * no plaintext. 0, or a message in @err.
 */
static int check_message(int op, const char *name, const unsigned char *iv, const struct layout *l,
			 struct test_rng *rng, struct buffers *b, char *err, size_t err_size)
{
	size_t msg_len = l->aad + l->data, ct_len = msg_len + l->authsize;
	unsigned char *src = b->in + l->in_off;
	unsigned char *dst = l->in_place ? src : b->out + l->out_off;
	int ret;

	/* encrypt: AAD || data in, AAD || ciphertext || tag out */
	memcpy(src, b->pt, msg_len);
	ret = aead_request(rng, op, 1, iv, l, src, msg_len, dst, ct_len);
	if (ret || memcmp(dst, b->want, ct_len))
		return step_failed(err, err_size, name, "encrypt", l,
				   ret ? "error" : "wrong output", ret);
	/*
	 * decrypt: AAD || ciphertext || tag in, AAD || data out. AF_ALG runs no request for an
	 * empty output (recvmsg of 0 bytes): the kernel's self-tests cover that decrypt.
	 */
	if (!msg_len)
		return 0;
	memcpy(src, b->want, ct_len);
	ret = aead_request(rng, op, 0, iv, l, src, ct_len, dst, msg_len);
	if (ret || memcmp(dst, b->pt, msg_len))
		return step_failed(err, err_size, name, "decrypt", l,
				   ret ? "error" : "wrong output", ret);
	/* a forged tag: refused, and no plaintext handed out (none left from the decrypt above) */
	memset(dst, 0x5a, msg_len);
	memcpy(src, b->want, ct_len);
	src[msg_len + test_rng_range(rng, 0, l->authsize - 1)] ^=
		(unsigned char)(1 << test_rng_range(rng, 0, 7));
	ret = aead_request(rng, op, 0, iv, l, src, ct_len, dst, msg_len);
	if (ret != -EBADMSG)
		return step_failed(err, err_size, name, "forged tag", l, "not EBADMSG but", ret);
	/* 8 bytes or more: the chance that what is left equals the plaintext is nil */
	if (l->data >= 8 && !memcmp(dst + l->aad, b->pt + l->aad, l->data))
		return step_failed(err, err_size, name, "forged tag", l, "plaintext in the output",
				   ret);
	return 0;
}

/* A random key and IV, OpenSSL's answer, and check_message() on a socket of driver @name. */
static int check_driver(const char *name, const struct layout *l, struct test_rng *rng,
			struct buffers *b, char *err, size_t err_size)
{
	unsigned char key[32], iv[IV_LEN];
	int op, ret;

	test_rng_fill(rng, key, sizeof(key));
	test_rng_fill(rng, iv, sizeof(iv));
	test_rng_fill(rng, b->pt, l->aad + l->data);
	reference_encrypt(l, key, iv, b->pt, b->pt + l->aad, b->want);
	op = aead_open(name, key, l->key_len, l->authsize);
	if (op < 0) {
		snprintf(err, err_size, "%s: socket: %s", name, strerror(-op));
		return 1;
	}
	ret = check_message(op, name, iv, l, rng, b, err, err_size);
	close(op);
	return ret;
}

/* Mostly small, sometimes up to @max. */
static size_t random_len(struct test_rng *rng, size_t small, size_t max)
{
	switch (test_rng_range(rng, 0, 7)) {
	case 0:
		return 0;
	case 1:
		return test_rng_range(rng, 0, max);
	default:
		return test_rng_range(rng, 1, small);
	}
}

static size_t random_offset(struct test_rng *rng)
{
	/* aligned (zero copy by DMA), 16-byte aligned off the page, or misaligned (bounced) */
	switch (test_rng_range(rng, 0, 2)) {
	case 0:
		return 0;
	case 1:
		return 16 * test_rng_range(rng, 1, 255);
	default:
		return test_rng_range(rng, 1, PAGE - 1);
	}
}

/* A random message shape; the first iterations take the edge lengths. */
static void random_layout(struct test_rng *rng, int iteration, struct layout *l)
{
	memset(l, 0, sizeof(*l));
	if (iteration < EDGES) {
		l->aad = edge_lens[iteration][0];
		l->data = edge_lens[iteration][1];
	} else {
		l->aad = random_len(rng, 64, MAX_AAD);
		l->data = random_len(rng, 8192, MAX_DATA);
	}
	l->authsize =
		authsizes[test_rng_range(rng, 0, sizeof(authsizes) / sizeof(authsizes[0]) - 1)];
	l->key_len = 16 + 8 * test_rng_range(rng, 0, 2);
	l->in_place = (int)test_rng_range(rng, 0, 1);
	l->in_off = random_offset(rng);
	l->out_off = random_offset(rng);
	l->in_pieces = test_rng_range(rng, 1, MAX_PIECES);
	l->out_pieces = test_rng_range(rng, 1, MAX_PIECES);
}

static void check_gcm_selftests(void)
{
	const char *names[PATHS];
	char buf[PATHS][64];
	int i;

	for (i = 0; i < PATHS; i++) {
		driver_name(i, buf[i], sizeof(buf[i]));
		names[i] = buf[i];
	}
	check_selftests_passed(names, PATHS);
}

START_TEST(selftests_passed)
{
	check_gcm_selftests();
}
END_TEST

/* /proc/crypto shows driver @name with "selftest : passed". */
static int proc_crypto_passed(const char *name)
{
	char line[256], driver[128] = "";
	FILE *f = fopen("/proc/crypto", "r");
	int passed = 0;

	ck_assert_ptr_nonnull(f);
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "driver : %127s", driver) != 1 && !strcmp(driver, name) &&
		    !strncmp(line, "selftest", 8))
			passed |= strstr(line, ": passed") != NULL;
	fclose(f);
	return passed;
}

/*
 * rfc4106(gcm(aes)), IPsec's form, is the kernel's template over gcm-aes-hwoffload (the driver
 * registers none of its own, hwoffload-aead.c says why): it instantiates over the driver,
 * passes the kernel's self-test, and with key = AES key || 4-byte salt, an 8-byte IV and
 * assoclen counting that IV after the AAD, equals OpenSSL's GCM with IV salt || IV.
 */
START_TEST(rfc4106_template)
{
	static const char name[] = "rfc4106(gcm-aes-hwoffload)";
	/* IPsec's AAD: SPI and sequence number (8 bytes; 12 with extended numbers) */
	enum { AAD = 8, DATA = 1000, RFC_IV = 8, SALT = 4 };
	struct layout l = { .aad = AAD,
			    .data = DATA,
			    .authsize = TAG,
			    .key_len = 32,
			    .in_pieces = 1,
			    .out_pieces = 1 };
	unsigned char key[32 + SALT], iv[IV_LEN], in[AAD + RFC_IV + DATA];
	unsigned char out[AAD + RFC_IV + DATA + TAG], want[AAD + DATA + TAG];
	struct layout wire = l;
	struct test_rng rng;
	int op;

	raise_socket_limits();
	test_rng_init(&rng, 0x5100);
	test_rng_fill(&rng, key, sizeof(key));
	test_rng_fill(&rng, iv, sizeof(iv));
	test_rng_fill(&rng, in, sizeof(in));
	/* the GCM IV is salt || the request's 8 bytes, which follow the AAD in the request */
	memcpy(iv, key + 32, SALT);
	memcpy(iv + SALT, in + AAD, RFC_IV);
	memmove(in + AAD, in + AAD + RFC_IV, DATA);
	reference_encrypt(&l, key, iv, in, in + AAD, want);
	memmove(in + AAD + RFC_IV, in + AAD, DATA);
	memcpy(in + AAD, iv + SALT, RFC_IV);

	op = aead_open(name, key, sizeof(key), TAG);
	ck_assert_msg(op >= 0, "%s: %s", name, strerror(-op));
	ck_assert_msg(proc_crypto_passed(name), "%s: no \"selftest : passed\"", name);
	wire.aad = AAD + RFC_IV;
	wire.iv_len = RFC_IV;
	ck_assert_int_eq(
		aead_request(&rng, op, 1, iv + SALT, &wire, in, sizeof(in), out, sizeof(out)), 0);
	close(op);
	ck_assert_bytes_eq(name, out + AAD + RFC_IV, want + AAD, DATA + TAG);
}
END_TEST

static int iterations(void)
{
	const char *v = getenv("HWOFFLOAD_TEST_LONG");

	return v && *v && strcmp(v, "0") ? 10 * ITERATIONS : ITERATIONS;
}

/* Random keys, tag lengths, messages and buffer layouts against OpenSSL. */
START_TEST(differential)
{
	int i, count = iterations(), large = 0;
	size_t bytes = 0;
	struct test_rng rng;
	struct buffers b;
	char name[64], err[512];

	raise_socket_limits();
	driver_name(_i, name, sizeof(name));
	test_rng_init(&rng, 0x1100 + (uint64_t)_i);
	buffers_alloc(&b);
	for (i = 0; i < count; i++) {
		struct layout l;

		random_layout(&rng, i, &l);
		if (check_driver(name, &l, &rng, &b, err, sizeof(err)))
			ck_abort_msg("%s", err);
		bytes += l.aad + l.data;
		large += l.aad + l.data > 4096;
	}
	printf("%s: %d messages right (%d longer than the FIFO), %zu bytes of AAD and data\n", name,
	       count, large, bytes);
	buffers_free(&b);
}
END_TEST

/* RUNS / 2 checked messages of one shape through one driver, each 3 requests. */
static void run_checked(enum path path, size_t aad, size_t data, size_t out_off)
{
	struct layout l = { .aad = aad,
			    .data = data,
			    .authsize = TAG,
			    .key_len = 32,
			    .out_off = out_off,
			    .in_pieces = 1,
			    .out_pieces = 1 };
	struct test_rng rng;
	struct buffers b;
	char name[64], err[512];
	int i;

	driver_name(path, name, sizeof(name));
	test_rng_init(&rng, 0x2100 + (uint64_t)data + out_off);
	buffers_alloc(&b);
	for (i = 0; i < RUNS / 2; i++)
		if (check_driver(name, &l, &rng, &b, err, sizeof(err)))
			ck_abort_msg("%s", err);
	buffers_free(&b);
}

/* The statistics prove which path each driver takes, and count the forged tags apart. */
START_TEST(paths_by_statistics)
{
	long long pio, dma, zero_copy, bounces, mismatches, engine_mismatches, pio_errors,
		dma_errors, auto_pio, auto_dma, auto_software, saved;
	char threshold[128], path[512], software[2][128];
	FILE *f;

	raise_socket_limits();
	/* -pio: a message that fits the FIFO by PIO; each check forges one tag */
	pio = stat_value("gcm_pio_requests");
	dma = stat_value("gcm_dma_requests");
	mismatches = stat_value("gcm_tag_mismatches");
	engine_mismatches = stat_value("engine_tag_mismatches");
	pio_errors = stat_value("pio_errors");
	run_checked(PIO, 16, 1000, 0);
	ck_assert_stat_grew("gcm_pio_requests", pio, RUNS);
	ck_assert_stat_same("gcm_dma_requests", dma);
	ck_assert_stat_grew("gcm_tag_mismatches", mismatches, RUNS / 2);
	ck_assert_stat_grew("engine_tag_mismatches", engine_mismatches, RUNS / 2);
	ck_assert_stat_same("pio_errors", pio_errors);

	/* -pio: a longer one goes by DMA, as PIO does not split a message */
	pio = stat_value("gcm_pio_requests");
	dma = stat_value("gcm_dma_requests");
	run_checked(PIO, 1, 4096, 0);
	ck_assert_stat_grew("gcm_dma_requests", dma, RUNS);
	ck_assert_stat_same("gcm_pio_requests", pio);

	/* -dma on page-aligned buffers: zero-copy; forged tags are not DMA errors */
	pio = stat_value("gcm_pio_requests");
	dma = stat_value("gcm_dma_requests");
	zero_copy = stat_value("dma_zero_copy");
	bounces = stat_value("dma_bounces");
	mismatches = stat_value("gcm_tag_mismatches");
	dma_errors = stat_value("dma_errors");
	run_checked(DMA, 0, 16 * 4096, 0);
	ck_assert_stat_grew("gcm_dma_requests", dma, RUNS);
	ck_assert_stat_grew("dma_zero_copy", zero_copy, RUNS);
	ck_assert_stat_same("dma_bounces", bounces);
	ck_assert_stat_same("gcm_pio_requests", pio);
	ck_assert_stat_grew("gcm_tag_mismatches", mismatches, RUNS / 2);
	ck_assert_stat_same("dma_errors", dma_errors);

	/* -dma into a misaligned buffer: bounced */
	bounces = stat_value("dma_bounces");
	run_checked(DMA, 0, 16 * 4096, 3);
	ck_assert_stat_grew("dma_bounces", bounces, RUNS);

	/* auto: PIO up to the threshold, DMA above it */
	snprintf(threshold, sizeof(threshold), "%sgcm", SYSFS_THRESHOLD);
	saved = read_number(threshold);
	auto_pio = stat_value("gcm_auto_pio");
	auto_dma = stat_value("gcm_auto_dma");
	run_checked(AUTO, 16, 240, 0);
	run_checked(AUTO, 16, 64 * 1024, 0);
	ck_assert_stat_grew("gcm_auto_pio", auto_pio, RUNS);
	ck_assert_stat_grew("gcm_auto_dma", auto_dma, RUNS);

	/* the threshold moves in sysfs, up to the FIFO and no further */
	write_number(threshold, 0);
	auto_dma = stat_value("gcm_auto_dma");
	run_checked(AUTO, 16, 240, 0);
	ck_assert_stat_grew("gcm_auto_dma", auto_dma, RUNS);
	find_path(threshold, path, sizeof(path));
	f = fopen(path, "w");
	ck_assert_ptr_nonnull(f);
	fprintf(f, "4097\n");
	ck_assert_msg(fclose(f) != 0, "%s took 4097: PIO cannot carry such a message", path);
	write_number(threshold, saved);
	ck_assert_int_eq(read_number(threshold), saved);

	/*
	 * auto: its software tier up to the software threshold of each direction (AAD and data, as
	 * the threshold), any length; the forged tags are refused there too, and the engine sees
	 * nothing of those messages. Each check is an encrypt and two decrypts.
	 */
	snprintf(software[0], sizeof(software[0]), "%sgcm_encrypt", SYSFS_SOFTWARE);
	snprintf(software[1], sizeof(software[1]), "%sgcm_decrypt", SYSFS_SOFTWARE);
	ck_assert_int_eq(read_number(software[0]), 0);
	ck_assert_int_eq(read_number(software[1]), 0);
	write_number(software[0], 256);
	write_number(software[1], 256);
	auto_software = stat_value("gcm_auto_software");
	pio = stat_value("gcm_pio_requests");
	dma = stat_value("gcm_dma_requests");
	mismatches = stat_value("gcm_tag_mismatches");
	run_checked(AUTO, 16, 240, 0);
	ck_assert_stat_grew("gcm_auto_software", auto_software, RUNS / 2 * 3);
	ck_assert_stat_same("gcm_pio_requests", pio);
	ck_assert_stat_same("gcm_dma_requests", dma);
	ck_assert_stat_same("gcm_tag_mismatches", mismatches);
	/* the encrypts alone; then beyond the FIFO, where PIO cannot go */
	write_number(software[1], 0);
	auto_software = stat_value("gcm_auto_software");
	auto_pio = stat_value("gcm_auto_pio");
	run_checked(AUTO, 16, 240, 0);
	ck_assert_int_eq(stat_value("gcm_auto_software") - auto_software, RUNS / 2);
	ck_assert_int_eq(stat_value("gcm_auto_pio") - auto_pio, RUNS);
	write_number(software[0], 64 * 1024 + 16);
	write_number(software[1], 64 * 1024 + 16);
	auto_software = stat_value("gcm_auto_software");
	dma = stat_value("gcm_dma_requests");
	run_checked(AUTO, 16, 64 * 1024, 3);
	ck_assert_stat_grew("gcm_auto_software", auto_software, RUNS / 2 * 3);
	ck_assert_stat_same("gcm_dma_requests", dma);
	write_number(software[0], 0);
	write_number(software[1], 0);
}
END_TEST

/*
 * The kernel's self-tests (tcrypt mode 35: testmgr's gcm(aes) vectors on the highest priority
 * driver) on the auto driver with its software tier in force, as driver_aes's
 * tcrypt_software_tier does for the skciphers.
 */
START_TEST(tcrypt_software_tier)
{
	static const int tcrypt_modes[] = { 35 };

	run_tcrypt_software_tier("priority=1000", "gcm_", tcrypt_modes, 1);
	check_gcm_selftests();
}
END_TEST

/*
 * Each injected fault fails an encrypt and a decrypt with an error, never wrong bytes, and the
 * failed decrypt hands out no plaintext; a lost interrupt is recovered with the right bytes.
 * The next requests succeed.
 */
struct fault_request {
	const char *name;
	int enc;
	struct layout l;
	const unsigned char *key, *iv, *in;
	unsigned char *out;
	struct test_rng *rng;
};

static int fault_request(void *arg)
{
	struct fault_request *r = arg;
	size_t msg_len = r->l.aad + r->l.data;
	int op = aead_open(r->name, r->key, r->l.key_len, r->l.authsize), ret;

	ck_assert_msg(op >= 0, "%s: socket: %s", r->name, strerror(-op));
	ret = r->enc ? aead_request(r->rng, op, 1, r->iv, &r->l, (unsigned char *)r->in, msg_len,
				    r->out, msg_len + r->l.authsize)
		     : aead_request(r->rng, op, 0, r->iv, &r->l, (unsigned char *)r->in,
				    msg_len + r->l.authsize, r->out, msg_len);
	close(op);
	return ret;
}

START_TEST(injected_faults)
{
	const struct fault_case *f = &fault_cases[_i];
	struct layout l = {
		.data = f->len, .authsize = TAG, .key_len = 32, .in_pieces = 1, .out_pieces = 1
	};
	unsigned char key[32], iv[IV_LEN];
	struct test_rng rng;
	struct buffers b;
	char name[64], what[128];
	struct fault_request r = { name, 1, l, key, iv, NULL, NULL, &rng };
	int ret;

	raise_socket_limits();
	driver_name(f->path, name, sizeof(name));
	test_rng_init(&rng, 0x4100 + (uint64_t)_i);
	buffers_alloc(&b);
	test_rng_fill(&rng, key, sizeof(key));
	test_rng_fill(&rng, iv, sizeof(iv));
	test_rng_fill(&rng, b.pt, f->len);
	reference_encrypt(&l, key, iv, b.pt, b.pt, b.want);

	/* encrypt: an error, or for a lost interrupt OpenSSL's bytes */
	r.in = b.pt;
	r.out = b.out;
	memset(b.out, 0x5a, f->len + TAG);
	snprintf(what, sizeof(what), "%s encrypt", name);
	ret = run_with_fault(f, what, fault_request, &r);
	if (!ret)
		ck_assert_bytes_eq("encrypt after a lost interrupt", b.out, b.want, f->len + TAG);

	/* decrypt: an error and no plaintext, or for a lost interrupt the plaintext */
	r.enc = 0;
	r.in = b.want;
	memset(b.out, 0x5a, f->len);
	snprintf(what, sizeof(what), "%s decrypt", name);
	ret = run_with_fault(f, what, fault_request, &r);
	if (!ret)
		ck_assert_bytes_eq("decrypt after a lost interrupt", b.out, b.pt, f->len);
	else
		ck_assert_msg(memcmp(b.out, b.pt, f->len),
			      "%s: a failed decrypt gave the plaintext", what);
	buffers_free(&b);

	/* the next requests succeed */
	run_checked(f->path, 0, f->len, 0);
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hwoffload gcm(aes) driver through AF_ALG");
	TCase *tc = tcase_create("driver");

	tcase_set_timeout(tc, 1200);
	tcase_add_test(tc, selftests_passed);
	tcase_add_loop_test(tc, differential, 0, PATHS);
	tcase_add_test(tc, paths_by_statistics);
	tcase_add_test(tc, rfc4106_template);
	tcase_add_loop_test(tc, injected_faults, 0, FAULT_CASES);
	tcase_add_test(tc, tcrypt_software_tier);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
