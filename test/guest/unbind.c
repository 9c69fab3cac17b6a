// SPDX-License-Identifier: Apache-2.0
/*
 * test/vm/run: --vcpus 2
 * Unbinding and rebinding the engine (/sys/bus/pci/drivers/hwoffload/unbind, bind) under load,
 * as PCI removal or a driver reload does (kernel/hwoffload.h, "Lifetime"):
 *
 * - a socket bound before an unbind gets ENODEV from then on, even after the rebind; binding
 *   while no engine is bound gets ENODEV; a socket bound after the rebind serves;
 * - 8 processes stream through AF_ALG by driver name (ecb, cbc, ctr(aes), gcm(aes) and sha256,
 *   sha512 on the PIO and DMA paths, each process going round them) while the device is unbound and
 *   rebound at random moments: every result equals OpenSSL's default provider's, or is an
 *   ENODEV error; a request begun after an unbind on a socket bound before it never succeeds;
 * - after the rebinds every driver serves, runtime PM is balanced (the idle device suspends, no
 *   usage count underflow), and the module unloads and loads again.
 *
 * The harness fails the run on any WARN, BUG or oops in the kernel log. Runs in the guest as
 * root, from the build tree, with the module loaded (test/vm/run).
 */
#define _GNU_SOURCE
#include <check.h>
#include <errno.h>
#include <libgen.h>
#include <linux/if_alg.h>
#include <openssl/evp.h>
#include <stdarg.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/utsname.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "test/guest/driverutil.h"
#include "test/testutil.h"

#define DRIVER_DIR "/sys/bus/pci/drivers/hwoffload/"
#define WORKERS	   8
#define CYCLES	   6
#define MAX_LEN	   16384
#define REQUESTS   4 /* per socket, then a new one */
#define AES_BLOCK  16
#define GCM_IV	   12
#define GCM_TAG	   16
#define GCM_AAD	   64 /* AAD of up to this many bytes before the data */

/* The drivers the workers go round: each worker starts at its own. */
static const struct driver {
	const char *name;
	const char *openssl; /* for the AES modes, with the key length */
	size_t digest; /* 0: an AES mode */
	size_t block; /* lengths are multiples of this */
	int has_iv;
	/* gcm(aes): AAD and data up to this many bytes (the PIO driver's: what fits the FIFO) */
	size_t aead_max;
} drivers[] = {
	{ "ecb-aes-hwoffload-pio", "AES-%zu-ECB", 0, AES_BLOCK, 0, 0 },
	{ "cbc-aes-hwoffload-dma", "AES-%zu-CBC", 0, AES_BLOCK, 1, 0 },
	{ "gcm-aes-hwoffload-pio", "AES-%zu-GCM", 0, 1, 1, 4096 },
	{ "sha256-hwoffload-pio", "SHA256", 32, 1, 0, 0 },
	{ "ctr-aes-hwoffload-pio", "AES-%zu-CTR", 0, 1, 1, 0 },
	{ "sha512-hwoffload-dma", "SHA512", 64, 1, 0, 0 },
	{ "ecb-aes-hwoffload-dma", "AES-%zu-ECB", 0, AES_BLOCK, 0, 0 },
	{ "gcm-aes-hwoffload-dma", "AES-%zu-GCM", 0, 1, 1, MAX_LEN },
	{ "cbc-aes-hwoffload-pio", "AES-%zu-CBC", 0, AES_BLOCK, 1, 0 },
	{ "sha256-hwoffload-dma", "SHA256", 32, 1, 0, 0 },
	{ "ctr-aes-hwoffload-dma", "AES-%zu-CTR", 0, 1, 1, 0 },
	{ "sha512-hwoffload-pio", "SHA512", 64, 1, 0, 0 },
};

#define DRIVERS (int)(sizeof(drivers) / sizeof(drivers[0]))

/* What the workers did, in memory shared with the parent. */
struct worker_result {
	long ok; /* results equal to OpenSSL's */
	long enodev; /* requests that failed with ENODEV */
	long stale_enodev; /* of those, begun after an unbind on a socket bound before it */
	long bind_enodev; /* binds refused with ENODEV: no engine bound */
	int failed;
	char err[256];
};

struct shared {
	atomic_int stop;
	atomic_long unbinds; /* unbinds completed */
	struct worker_result worker[WORKERS];
};

/* The engine's PCI address, while bound. */
static void device_name(char *buf, size_t size)
{
	char path[512];

	find_path(DRIVER_DIR "0000:*", path, sizeof(path));
	snprintf(buf, size, "%s", basename(path));
}

static void driver_write(const char *file, const char *dev)
{
	char path[256];

	snprintf(path, sizeof(path), DRIVER_DIR "%s", file);
	write_file(path, dev, strlen(dev));
}

/* The transform socket of @d (with @key for a cipher): >= 0, or -errno of bind or setkey. */
static int driver_bind(const struct driver *d, const unsigned char *key, size_t key_len)
{
	return alg_bind(d->digest     ? "hash"
			: d->aead_max ? "aead"
				      : "skcipher",
			d->name, key, key_len);
}

/* The next control message of @msg (after @prev, if not NULL), counted in @used. */
static struct cmsghdr *add_cmsg(struct msghdr *msg, struct cmsghdr *prev, int type, size_t len,
				size_t *used)
{
	struct cmsghdr *cmsg = prev ? CMSG_NXTHDR(msg, prev) : CMSG_FIRSTHDR(msg);

	*used += CMSG_SPACE(len);
	cmsg->cmsg_level = SOL_ALG;
	cmsg->cmsg_type = type;
	cmsg->cmsg_len = CMSG_LEN(len);
	return cmsg;
}

/*
 * One encryption of @len bytes on the request socket @op (for gcm(aes), @aad of them AAD, and
 * the tag after the output): 0 or -errno.
 */
static int cipher_request(int op, const struct driver *d, const unsigned char *iv,
			  const unsigned char *in, unsigned char *out, size_t len, size_t aad)
{
	char control[CMSG_SPACE(sizeof(__u32)) * 2 +
		     CMSG_SPACE(sizeof(struct af_alg_iv) + AES_BLOCK)];
	size_t iv_len = d->aead_max ? GCM_IV : AES_BLOCK, out_len = len, used = 0;
	struct iovec iov = { (void *)in, len };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = control };
	struct af_alg_iv *alg_iv;
	struct cmsghdr *cmsg;
	ssize_t n;

	memset(control, 0, sizeof(control));
	msg.msg_controllen = sizeof(control);
	cmsg = add_cmsg(&msg, NULL, ALG_SET_OP, sizeof(__u32), &used);
	*(__u32 *)CMSG_DATA(cmsg) = ALG_OP_ENCRYPT;
	if (d->has_iv) {
		cmsg = add_cmsg(&msg, cmsg, ALG_SET_IV, sizeof(struct af_alg_iv) + iv_len, &used);
		alg_iv = (struct af_alg_iv *)CMSG_DATA(cmsg);
		alg_iv->ivlen = (__u32)iv_len;
		memcpy(alg_iv->iv, iv, iv_len);
	}
	if (d->aead_max) {
		cmsg = add_cmsg(&msg, cmsg, ALG_SET_AEAD_ASSOCLEN, sizeof(__u32), &used);
		*(__u32 *)CMSG_DATA(cmsg) = (__u32)aad;
		out_len += GCM_TAG;
	}
	msg.msg_controllen = used;
	n = sendmsg(op, &msg, 0);
	if (n < 0)
		return -errno;
	if ((size_t)n != len)
		return -EBADMSG;
	n = read(op, out, out_len);
	if (n < 0)
		return -errno;
	return (size_t)n == out_len ? 0 : -EBADMSG;
}

/* One digest of @len bytes on @op, in two pieces (the first with MSG_MORE): 0 or -errno. */
static int hash_request(int op, const unsigned char *in, size_t len, size_t first,
			unsigned char *out, size_t dlen)
{
	ssize_t n = send(op, in, first, MSG_MORE);

	if (n >= 0 && (size_t)n == first)
		n = send(op, in + first, len - first, 0);
	if (n >= 0)
		n = read(op, out, dlen);
	if (n < 0)
		return -errno;
	return (size_t)n == dlen ? 0 : -EBADMSG;
}

/*
 * OpenSSL's default provider's answer for the same request (gcm(aes): AAD || ciphertext || tag,
 * @aad bytes of AAD); 0 or -1.
 */
static int reference(const struct driver *d, const unsigned char *key, size_t key_len,
		     const unsigned char *iv, const unsigned char *in, size_t len, size_t aad,
		     unsigned char *out, size_t *out_len)
{
	char name[32];
	int ok = 0, n;

	if (d->digest) {
		EVP_MD *md = EVP_MD_fetch(NULL, d->openssl, "provider=default");
		unsigned int dlen;

		ok = md && EVP_Digest(in, len, out, &dlen, md, NULL);
		*out_len = dlen;
		EVP_MD_free(md);
	} else {
		EVP_CIPHER *cipher;
		EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

		snprintf(name, sizeof(name), d->openssl, key_len * 8);
		cipher = EVP_CIPHER_fetch(NULL, name, "provider=default");
		ok = cipher && ctx && EVP_EncryptInit_ex2(ctx, cipher, key, iv, NULL) &&
		     EVP_CIPHER_CTX_set_padding(ctx, 0);
		if (d->aead_max) {
			memcpy(out, in, aad);
			ok = ok && (!aad || EVP_EncryptUpdate(ctx, NULL, &n, in, (int)aad)) &&
			     (len == aad ||
			      EVP_EncryptUpdate(ctx, out + aad, &n, in + aad, (int)(len - aad))) &&
			     EVP_EncryptFinal_ex(ctx, out + len, &n) &&
			     EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, GCM_TAG, out + len);
			*out_len = len + GCM_TAG;
		} else {
			ok = ok && EVP_EncryptUpdate(ctx, out, &n, in, (int)len) &&
			     (size_t)n == len;
			*out_len = len;
		}
		EVP_CIPHER_CTX_free(ctx);
		EVP_CIPHER_free(cipher);
	}
	return ok ? 0 : -1;
}

/*
 * One request of @d on @op with random data, compared with OpenSSL: 0 (right), -errno (the
 * kernel's error), or 1 with @err set (a wrong result).
 */
static int checked_request(struct test_rng *rng, const struct driver *d, int op,
			   const unsigned char *key, size_t key_len, char *err, size_t err_size)
{
	static unsigned char in[MAX_LEN], got[MAX_LEN + GCM_TAG], want[MAX_LEN + GCM_TAG];
	unsigned char iv[AES_BLOCK];
	size_t len = test_rng_range(rng, 1, MAX_LEN / d->block) * d->block, want_len, aad = 0;
	int ret;

	if (d->aead_max) {
		aad = test_rng_range(rng, 0, GCM_AAD);
		len = aad + test_rng_range(rng, 0, d->aead_max - aad);
	}
	test_rng_fill(rng, in, len);
	test_rng_fill(rng, iv, sizeof(iv));
	if (d->digest)
		ret = hash_request(op, in, len, test_rng_range(rng, 0, len), got, d->digest);
	else
		ret = cipher_request(op, d, iv, in, got, len, aad);
	if (ret)
		return ret;
	if (reference(d, key, key_len, iv, in, len, aad, want, &want_len)) {
		snprintf(err, err_size, "%s: OpenSSL failed", d->name);
		return 1;
	}
	if (memcmp(got, want, want_len)) {
		snprintf(err, err_size, "%s: %zu bytes: result differs from OpenSSL's", d->name,
			 len);
		return 1;
	}
	return 0;
}

/* A worker cannot use Check: the parent reports its first failure. */
static void __attribute__((format(printf, 2, 3)))
worker_fail(struct worker_result *r, const char *fmt, ...)
{
	va_list ap;

	if (!r->failed) {
		va_start(ap, fmt);
		vsnprintf(r->err, sizeof(r->err), fmt, ap);
		va_end(ap);
	}
	r->failed = 1;
}

/* A worker: sockets of the drivers in turn, REQUESTS requests each, until told to stop. */
static void worker_main(struct shared *sh, int index)
{
	struct worker_result *r = &sh->worker[index];
	unsigned char key[32];
	struct test_rng rng;
	int round, i;

	test_rng_init(&rng, 0x5000 + (uint64_t)index);
	for (round = index; !atomic_load(&sh->stop) && !r->failed; round++) {
		const struct driver *d = &drivers[round % DRIVERS];
		size_t key_len = 16 + 8 * test_rng_range(&rng, 0, 2);
		int fd, op = -1, ret;
		long bound_unbinds;

		test_rng_fill(&rng, key, sizeof(key));
		fd = driver_bind(d, d->digest ? NULL : key, key_len);
		if (fd == -ENODEV) {
			r->bind_enodev++;
			usleep(20 * 1000);
			continue;
		}
		if (fd < 0) {
			worker_fail(r, "%s: bind: %s", d->name, strerror(-fd));
			break;
		}
		/* read after the bind: an unbind counted later took this socket's engine away */
		bound_unbinds = atomic_load(&sh->unbinds);
		for (i = 0; i < REQUESTS && !r->failed; i++) {
			long unbinds = atomic_load(&sh->unbinds);
			char err[200];

			if (op < 0)
				op = accept(fd, NULL, 0);
			if (op < 0) {
				worker_fail(r, "%s: accept: %s", d->name, strerror(errno));
				break;
			}
			ret = checked_request(&rng, d, op, key, key_len, err, sizeof(err));
			if (ret == 1) {
				worker_fail(r, "%s", err);
			} else if (ret == 0 && unbinds > bound_unbinds) {
				worker_fail(
					r, "%s: served after an unbind on a socket bound before it",
					d->name);
			} else if (ret == -ENODEV) {
				r->enodev++;
				r->stale_enodev += unbinds > bound_unbinds;
				/*
				 * the socket's stream is broken: a new one, a little later, so that
				 * the socket outlives the unbind and meets the rebind
				 */
				close(op);
				op = -1;
				usleep(50 * 1000);
			} else if (ret) {
				worker_fail(r, "%s: request: %s", d->name, strerror(-ret));
			} else {
				r->ok++;
			}
		}
		if (op >= 0)
			close(op);
		close(fd);
	}
}

/* One request on a fresh socket of every driver: each serves and is right. */
static void check_all_drivers_serve(void)
{
	unsigned char key[32] = { 1, 2, 3 };
	struct test_rng rng;
	char err[200];
	int i, fd, op, ret;

	test_rng_init(&rng, 0x4000);
	for (i = 0; i < DRIVERS; i++) {
		fd = driver_bind(&drivers[i], drivers[i].digest ? NULL : key, 32);
		ck_assert_msg(fd >= 0, "%s: bind: %s", drivers[i].name, strerror(-fd));
		op = accept(fd, NULL, 0);
		ck_assert_msg(op >= 0, "%s: accept: %s", drivers[i].name, strerror(errno));
		ret = checked_request(&rng, &drivers[i], op, key, 32, err, sizeof(err));
		ck_assert_msg(ret != 1, "%s", err);
		ck_assert_msg(ret == 0, "%s: %s", drivers[i].name, strerror(-ret));
		close(op);
		close(fd);
	}
}

/*
 * Sockets bound before an unbind fail with ENODEV while no engine is bound and after the
 * rebind; binding while unbound fails with ENODEV; new sockets serve after the rebind.
 */
START_TEST(stale_sockets)
{
	unsigned char key[16] = { 7 };
	int fd[DRIVERS], op[DRIVERS], i, ret;
	struct test_rng rng;
	char dev[64], err[200];

	test_rng_init(&rng, 0x3000);
	device_name(dev, sizeof(dev));
	check_module_selftests_passed();
	for (i = 0; i < DRIVERS; i++) {
		fd[i] = driver_bind(&drivers[i], drivers[i].digest ? NULL : key, sizeof(key));
		ck_assert_msg(fd[i] >= 0, "%s: bind: %s", drivers[i].name, strerror(-fd[i]));
		op[i] = accept(fd[i], NULL, 0);
		ck_assert_int_ge(op[i], 0);
		ret = checked_request(&rng, &drivers[i], op[i], key, sizeof(key), err, sizeof(err));
		ck_assert_msg(ret == 0, "%s: before unbind: %d %s", drivers[i].name, ret, err);
	}
	driver_write("unbind", dev);
	for (i = 0; i < DRIVERS; i++) {
		ret = checked_request(&rng, &drivers[i], op[i], key, sizeof(key), err, sizeof(err));
		ck_assert_msg(ret == -ENODEV, "%s: unbound: %d, want -ENODEV", drivers[i].name,
			      ret);
		ret = driver_bind(&drivers[i], NULL, 0);
		ck_assert_msg(ret == -ENODEV, "%s: bind while unbound: %d, want -ENODEV",
			      drivers[i].name, ret);
	}
	driver_write("bind", dev);
	for (i = 0; i < DRIVERS; i++) {
		close(op[i]);
		op[i] = accept(fd[i], NULL, 0);
		ck_assert_int_ge(op[i], 0);
		ret = checked_request(&rng, &drivers[i], op[i], key, sizeof(key), err, sizeof(err));
		ck_assert_msg(ret == -ENODEV, "%s: rebound, socket from before: %d, want -ENODEV",
			      drivers[i].name, ret);
		close(op[i]);
		close(fd[i]);
	}
	check_all_drivers_serve();
}
END_TEST

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/* Idle, the device autosuspends (1 s): no transform's runtime PM reference is left behind. */
static void check_runtime_pm_balanced(const char *dev)
{
	char path[256], status[32] = "";

	sleep(3);
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/power/runtime_status", dev);
	read_file(path, status, sizeof(status) - 1);
	ck_assert_msg(!strncmp(status, "suspended", 9), "idle device is %s", status);
	ck_assert_msg(system("dmesg | grep -q 'usage count underflow'") != 0,
		      "runtime PM usage count underflow in the kernel log");
}

START_TEST(unbind_while_streaming)
{
	struct shared *sh =
		mmap(NULL, sizeof(*sh), PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	struct worker_result total = { 0 };
	pid_t pid[WORKERS];
	struct test_rng rng;
	long long start = now_ms(), unbound_ms = 0, t;
	char dev[64];
	int i, status;

	ck_assert_ptr_ne(sh, MAP_FAILED);
	memset(sh, 0, sizeof(*sh));
	test_rng_init(&rng, 0x2000);
	device_name(dev, sizeof(dev));
	for (i = 0; i < WORKERS; i++) {
		pid[i] = fork();
		ck_assert_int_ge(pid[i], 0);
		if (!pid[i]) {
			worker_main(sh, i);
			_exit(0);
		}
	}
	for (i = 0; i < CYCLES; i++) {
		usleep(test_rng_range(&rng, 200, 1500) * 1000);
		driver_write("unbind", dev);
		atomic_fetch_add(&sh->unbinds, 1);
		t = now_ms();
		usleep(test_rng_range(&rng, 0, 400) * 1000);
		driver_write("bind", dev);
		unbound_ms += now_ms() - t;
	}
	usleep(1000 * 1000);
	atomic_store(&sh->stop, 1);
	for (i = 0; i < WORKERS; i++) {
		struct worker_result *r = &sh->worker[i];

		ck_assert_int_eq(waitpid(pid[i], &status, 0), pid[i]);
		ck_assert_msg(WIFEXITED(status) && !WEXITSTATUS(status), "worker %d died", i);
		ck_assert_msg(!r->failed, "worker %d: %s", i, r->err);
		total.ok += r->ok;
		total.enodev += r->enodev;
		total.stale_enodev += r->stale_enodev;
		total.bind_enodev += r->bind_enodev;
	}
	printf("unbind: %d workers, %d unbind/rebind cycles in %lld ms (%lld ms unbound): "
	       "%ld results right, %ld requests ENODEV (%ld on sockets bound before an unbind), "
	       "%ld binds ENODEV\n",
	       WORKERS, CYCLES, now_ms() - start, unbound_ms, total.ok, total.enodev,
	       total.stale_enodev, total.bind_enodev);
	ck_assert_int_gt(total.ok, 0);
	munmap(sh, sizeof(*sh));
	check_all_drivers_serve();
	check_runtime_pm_balanced(dev);
}
END_TEST

/* After all that, the module unloads and loads again, passes its self-tests and serves. */
START_TEST(reload)
{
	const char *names[DRIVERS];
	struct utsname u;
	char cmd[512];
	int i;

	ck_assert_int_eq(uname(&u), 0);
	snprintf(cmd, sizeof(cmd), "rmmod hwoffload && insmod kernel/%s/hwoffload.ko", u.release);
	ck_assert_msg(system(cmd) == 0, "%s failed", cmd);
	for (i = 0; i < DRIVERS; i++)
		names[i] = drivers[i].name;
	check_selftests_passed(names, DRIVERS);
	check_all_drivers_serve();
}
END_TEST

int main(void)
{
	Suite *s = suite_create("hwoffload driver: unbind and rebind");
	TCase *tc = tcase_create("unbind");

	tcase_set_timeout(tc, 300);
	tcase_add_test(tc, stale_sockets);
	tcase_add_test(tc, unbind_while_streaming);
	tcase_add_test(tc, reload);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}
