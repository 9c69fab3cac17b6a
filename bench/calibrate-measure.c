// SPDX-License-Identifier: Apache-2.0
/*
 * calibrate-measure.c - the paths of each algorithm, and their speed over request sizes.
 *
 * Software is OpenSSL's default provider in this process (EVP), kernel paths go through the
 * backend's transport (backend/transport.h), the very code the provider sends requests by. One
 * request is one EVP_CipherUpdate or one hwoff_skcipher_crypt() of the size, for a digest a whole
 * message (init, update, final): what a one-shot digest of that size costs; for GCM a whole
 * message of that much data after a TLS record's 13 bytes of AAD, with its tag (a TLS record).
 *
 * A sample is a run of back-to-back requests long enough for the clocks (wall: CLOCK_MONOTONIC;
 * CPU: getrusage(RUSAGE_SELF) of the process that makes the requests, user + system). At each size
 * every path first warms up (which also sizes its samples), then the repeats go round-robin over
 * the paths, starting one path later each time, so that a machine that drifts or is busy for a
 * moment spreads over all paths; each figure is the median of the repeats.
 *
 * Software runs in this process. Every call of a kernel path (bind, setkey, accept, send, recv)
 * runs in a worker process of its own, one per kernel path of a subject, which takes commands
 * over a socket (check at a size; a sample of N requests: its wall time and the worker's own CPU
 * time) and which the calibration abandons when it does not answer in time: a request stuck in
 * the kernel, uninterruptibly, so that no signal ends it (QEMU's virtio-crypto was seen stuck in
 * skcipher_recvmsg from 128 KiB on, right up to 64 KiB, and afterwards every setkey on that
 * device waited for ever), stays with the worker, which is killed and left to the kernel; every
 * driver of that device (its module) is dropped for the rest of the run, keeping the sizes it was
 * measured at below, and the calibration goes on.
 *
 * Another vendor's engine is reached as the provider reaches it: through a guard process
 * (backend/guard.h), its cipher requests in pieces of 64 KiB, so that a request the provider would
 * never send it (one of 31 pages wedges virtio-crypto) is not tried either. The guard's limit
 * (10 s) is shorter than the worker's, so such a worker answers even when its driver hangs: a
 * failure its guard reports stuck counts as no answer, with the guard's reason.
 *
 * Before a kernel path is measured at a size its output there is checked against software's:
 * a driver that is wrong there serves only up to the largest size it was measured at below, and
 * the derivation keeps its ranges below that.
 */
#define _GNU_SOURCE /* MSG_NOSIGNAL, SOCK_CLOEXEC */
#include <errno.h>
#include <math.h>
#include <openssl/core_names.h>
#include <openssl/evp.h>
#include <openssl/rand.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/fingerprint.h"
#include "backend/guard.h"
#include "backend/probe.h"
#include "backend/text.h"
#include "backend/transport.h"
#include "bench/calibrate.h"

/*
 * How long a kernel path's worker has to answer a command: ANSWER_SECONDS, and SECONDS_PER_MIB
 * more for every MiB the command moves (a check: software's pass and the kernel's; a sample: its
 * requests). Our engine in a TCG guest moves 7 MB/s at its slowest (HMAC, 4 KiB by PIO) and takes
 * 10-20 times as long a request when other guests load the host: a sample (sized to take
 * --seconds) or a check of up to 16 MiB answers well within that even then.
 */
#define ANSWER_SECONDS	30
#define SECONDS_PER_MIB 2
#define STOP_SECONDS	5 /* for a worker told to stop to exit */
#define KILLED_SECONDS	1 /* for a killed one: one stuck in the kernel is left there */
#define REPEATS_MAX	64

/* One path of one subject, ready to serve requests. */
struct runner {
	const struct hwoff_alg *alg;
	bool encrypt;
	EVP_CIPHER *cipher;
	EVP_CIPHER_CTX *cipher_ctx;
	EVP_MD *md;
	EVP_MD_CTX *md_ctx;
	EVP_MAC_CTX *mac_ctx; /* an HMAC row's, keyed with key */
	struct hwoff_skcipher *sk;
	struct hwoff_hash *hash;
	struct hwoff_aead *aead;
	/* GCM decryption: in encrypted, with its tag, for requests of gcm_len bytes of that in */
	unsigned char *gcm_in, gcm_tag[HWOFF_GCM_TAG_MAX];
	const unsigned char *gcm_from;
	size_t gcm_len;
};

/* What one sample took. */
struct sample {
	double wall_ns, cpu_ns;
};

/* A command to a kernel path's worker. */
struct command {
	enum { WORKER_CHECK, WORKER_SAMPLE } op;
	size_t size;
	unsigned long requests; /* WORKER_SAMPLE */
};

/* A worker's answer: first to its start (its runner opened), then to each command. */
struct answer {
	int status; /* 0, or -1 with err */
	/* no answer: the worker's in time (worker_answer()) or its driver's guard's
	 * (worker_reply()) */
	bool stuck;
	struct sample took; /* WORKER_SAMPLE */
	size_t request_max; /* to its start: kernel_request_max() */
	char err[HWOFF_TRANSPORT_ERROR_MAX];
};

/* A kernel path's worker process, as its parent sees it. */
struct worker {
	pid_t pid; /* 0: none (not started, ended, or killed) */
	int fd; /* the parent's end of their socket */
	size_t request_max;
};

/* What one subject's measurement needs. */
struct measure {
	const struct cal_config *cfg;
	struct cal_run *run;
	struct cal_subject *s;
	size_t index; /* of s in run->subjects, for progress */
	struct runner software; /* paths[0] */
	struct worker workers[CAL_PATHS_MAX]; /* the kernel paths', by path */
	unsigned char *in, *out;
	size_t buf_len;
	/* The devices (device_of()) that stopped answering: left out for the rest of the run. */
	size_t wedged_count;
	char wedged[HWOFF_IMPLS_MAX][HWOFF_MODULE_NAME_MAX];
};

static const unsigned char key[32] = "hwoffload calibration key 0123!";
/* A GCM message's IV, and a TLS 1.2 record's 13 bytes of AAD: a size is the record's data. */
static const unsigned char gcm_iv[12] = "hwoffload iv";
static const unsigned char gcm_aad[13] = "TLS record 13";

static void runner_close(struct runner *r)
{
	EVP_CIPHER_CTX_free(r->cipher_ctx);
	EVP_CIPHER_free(r->cipher);
	EVP_MD_CTX_free(r->md_ctx);
	EVP_MD_free(r->md);
	EVP_MAC_CTX_free(r->mac_ctx);
	hwoff_skcipher_free(r->sk);
	hwoff_hash_free(r->hash);
	hwoff_aead_free(r->aead);
	free(r->gcm_in);
	memset(r, 0, sizeof(*r));
}

/* Set up path for s's algorithm and direction; the IV is all zeros. Returns 0 or -1 with err. */
static int runner_open(struct runner *r, const struct cal_subject *s, const struct cal_path *path,
		       char *err, size_t err_len)
{
	const struct hwoff_alg *alg = s->alg;
	unsigned char iv[HWOFF_IV_MAX] = { 0 };

	*r = (struct runner){ .alg = alg, .encrypt = s->direction == HWOFF_ENCRYPT };
	if (!path->software) {
		int ret = hwoff_alg_is_digest(alg) ? hwoff_hash_new(&r->hash, alg, path->name, key,
								    sizeof(key), err, err_len)
			  : hwoff_alg_is_aead(alg)
				  ? hwoff_aead_new(&r->aead, alg, path->name, key, alg->key_bytes,
						   err, err_len)
				  : hwoff_skcipher_new(&r->sk, alg, path->name, key, alg->key_bytes,
						       err, err_len);
		return ret ? -1 : 0;
	}
	if (hwoff_alg_is_hmac(alg)) {
		EVP_MAC *mac = EVP_MAC_fetch(NULL, "HMAC", "provider=default");
		OSSL_PARAM params[] = {
			OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)alg->hmac_of->name,
					       0),
			OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_PROPERTIES, "provider=default", 0),
			OSSL_PARAM_END,
		};

		r->mac_ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
		EVP_MAC_free(mac);
		if (r->mac_ctx && EVP_MAC_init(r->mac_ctx, key, sizeof(key), params) == 1)
			return 0;
	} else if (hwoff_alg_is_digest(alg)) {
		r->md = EVP_MD_fetch(NULL, alg->name, "provider=default");
		r->md_ctx = EVP_MD_CTX_new();
		if (r->md && r->md_ctx)
			return 0;
	} else {
		r->cipher = EVP_CIPHER_fetch(NULL, alg->name, "provider=default");
		r->cipher_ctx = EVP_CIPHER_CTX_new();
		if (r->cipher && r->cipher_ctx &&
		    EVP_CipherInit_ex2(r->cipher_ctx, r->cipher, key, alg->iv_bytes ? iv : NULL,
				       r->encrypt, NULL) == 1 &&
		    EVP_CIPHER_CTX_set_padding(r->cipher_ctx, 0) == 1)
			return 0;
	}
	snprintf(err, err_len, "OpenSSL's default provider cannot set up %s", alg->name);
	runner_close(r);
	return -1;
}

/*
 * One GCM message of len bytes of data: in software, init (the IV), AAD, data, final and the
 * tag, as a TLS record takes. The output is the data and, encrypting, the tag after it.
 */
static bool gcm_software(struct runner *r, bool encrypt, const unsigned char *in,
			 unsigned char *out, size_t len, unsigned char *tag)
{
	EVP_CIPHER_CTX *ctx = r->cipher_ctx;
	int outl;

	return EVP_CipherInit_ex2(ctx, NULL, NULL, gcm_iv, encrypt, NULL) == 1 &&
	       (encrypt ||
		EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, HWOFF_GCM_TAG_MAX, tag)) &&
	       EVP_CipherUpdate(ctx, NULL, &outl, gcm_aad, sizeof(gcm_aad)) == 1 &&
	       EVP_CipherUpdate(ctx, out, &outl, in, (int)len) == 1 &&
	       EVP_CipherFinal_ex(ctx, out + len, &outl) == 1 &&
	       (!encrypt ||
		EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, HWOFF_GCM_TAG_MAX, tag));
}

/*
 * A GCM decryption needs a ciphertext with its tag: in encrypted by software, once per size.
 * Returns what to decrypt.
 */
static const unsigned char *gcm_ciphertext(struct runner *r, const unsigned char *in, size_t len)
{
	struct runner sw = { 0 };
	bool ok;

	if (r->gcm_in && r->gcm_from == in && r->gcm_len == len)
		return r->gcm_in;
	free(r->gcm_in);
	r->gcm_in = malloc(len + HWOFF_GCM_TAG_MAX);
	sw.cipher = EVP_CIPHER_fetch(NULL, r->alg->name, "provider=default");
	sw.cipher_ctx = EVP_CIPHER_CTX_new();
	ok = r->gcm_in && sw.cipher && sw.cipher_ctx &&
	     EVP_CipherInit_ex2(sw.cipher_ctx, sw.cipher, key, NULL, 1, NULL) == 1 &&
	     gcm_software(&sw, true, in, r->gcm_in, len, r->gcm_tag);
	runner_close(&sw);
	r->gcm_from = ok ? in : NULL;
	r->gcm_len = len;
	return ok ? r->gcm_in : NULL;
}

/* One GCM message; returns 0 or -1 with err. */
static int gcm_request(struct runner *r, const unsigned char *in, unsigned char *out, size_t len,
		       char *err, size_t err_len)
{
	unsigned char *tag = r->encrypt ? out + len : r->gcm_tag;
	int ret;

	if (!r->encrypt && !(in = gcm_ciphertext(r, in, len))) {
		snprintf(err, err_len, "no %s ciphertext of %zu bytes to decrypt", r->alg->name,
			 len);
		return -1;
	}
	if (!r->aead) {
		if (gcm_software(r, r->encrypt, in, out, len, tag))
			return 0;
		snprintf(err, err_len, "OpenSSL's default provider failed a %zu-byte %s message",
			 len, r->alg->name);
		return -1;
	}
	ret = hwoff_aead_crypt(r->aead, r->encrypt, gcm_iv, gcm_aad, sizeof(gcm_aad), in, out, len,
			       tag, HWOFF_GCM_TAG_MAX);
	if (ret)
		snprintf(err, err_len, "%s",
			 ret == -EBADMSG ? "the tag of OpenSSL's ciphertext did not match"
					 : hwoff_aead_error(r->aead));
	return ret ? -1 : 0;
}

/* One request of len bytes from in to out (a digest into out). Returns 0 or -1 with err. */
static int runner_request(struct runner *r, const unsigned char *in, unsigned char *out, size_t len,
			  char *err, size_t err_len)
{
	unsigned int md_len;
	size_t mac_len;
	int outl, ret;

	if (hwoff_alg_is_aead(r->alg))
		return gcm_request(r, in, out, len, err, err_len);
	if (r->sk) {
		ret = hwoff_skcipher_crypt(r->sk, r->encrypt, in, out, len);
		if (ret)
			snprintf(err, err_len, "%s", hwoff_skcipher_error(r->sk));
		return ret ? -1 : 0;
	}
	if (r->hash) {
		/* as the provider sends a one-shot message */
		ret = len <= HWOFF_HASH_GATHER_MAX
			      ? hwoff_hash_finup(r->hash, in, len, out, EVP_MAX_MD_SIZE)
			      : hwoff_hash_update(r->hash, in, len) ?:
					hwoff_hash_final(r->hash, out, EVP_MAX_MD_SIZE);
		if (ret)
			snprintf(err, err_len, "%s", hwoff_hash_error(r->hash));
		return ret ? -1 : 0;
	}
	if (r->mac_ctx ? EVP_MAC_init(r->mac_ctx, NULL, 0, NULL) == 1 &&
				 EVP_MAC_update(r->mac_ctx, in, len) == 1 &&
				 EVP_MAC_final(r->mac_ctx, out, &mac_len, EVP_MAX_MD_SIZE) == 1
	    : r->md ? EVP_DigestInit_ex2(r->md_ctx, r->md, NULL) == 1 &&
			      EVP_DigestUpdate(r->md_ctx, in, len) == 1 &&
			      EVP_DigestFinal_ex(r->md_ctx, out, &md_len) == 1
		    : EVP_CipherUpdate(r->cipher_ctx, out, &outl, in, (int)len) == 1)
		return 0;
	snprintf(err, err_len, "OpenSSL's default provider failed a %zu-byte %s request", len,
		 r->alg->name);
	return -1;
}

/*
 * Whether a kernel path gives OpenSSL's answer for size bytes of in: a driver that is wrong
 * must not be calibrated into the table. Both start from the same key and zero IV.
 */
static int check_path(const struct cal_subject *s, const struct cal_path *path,
		      const unsigned char *in, size_t size, char *err, size_t err_len)
{
	unsigned char *want = malloc(size + EVP_MAX_MD_SIZE), *got = malloc(size + EVP_MAX_MD_SIZE);
	struct runner sw, kernel;
	int ret = -1;

	if (!want || !got) {
		snprintf(err, err_len, "out of memory");
		goto out;
	}
	if (runner_open(&sw, s, &s->paths[0], err, err_len))
		goto out;
	ret = runner_request(&sw, in, want, size, err, err_len);
	runner_close(&sw);
	if (ret || (ret = runner_open(&kernel, s, path, err, err_len)))
		goto out;
	ret = runner_request(&kernel, in, got, size, err, err_len);
	runner_close(&kernel);
	if (!ret && memcmp(got, want,
			   hwoff_alg_is_digest(s->alg) ? s->alg->digest_bytes
			   : hwoff_alg_is_aead(s->alg) && s->direction == HWOFF_ENCRYPT
				   ? size + HWOFF_GCM_TAG_MAX
				   : size)) {
		snprintf(err, err_len, "its %zu-byte %s differs from OpenSSL's", size,
			 hwoff_direction_name(s->direction));
		ret = -1;
	}
out:
	free(want);
	free(got);
	return ret;
}

static double now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1e9 + ts.tv_nsec;
}

static double cpu_ns(void)
{
	struct rusage ru;

	getrusage(RUSAGE_SELF, &ru);
	return (ru.ru_utime.tv_sec + ru.ru_stime.tv_sec) * 1e9 +
	       (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) * 1e3;
}

/* requests back-to-back requests of size bytes by r, timed. Returns 0 or -1 with err. */
static int sample_requests(struct runner *r, const unsigned char *in, unsigned char *out,
			   size_t size, unsigned long requests, struct sample *took, char *err,
			   size_t err_len)
{
	double wall0 = now_ns(), cpu0 = cpu_ns();

	for (unsigned long i = 0; i < requests; i++)
		if (runner_request(r, in, out, size, err, err_len))
			return -1;
	took->cpu_ns = cpu_ns() - cpu0;
	took->wall_ns = now_ns() - wall0;
	return 0;
}

/*
 * The most bytes the driver gets in one request, whatever the caller's size: the transport sends
 * a cipher's in pieces of the socket's buffer, and algif_hash hands a hash driver at most
 * ALG_MAX_PAGES (16) pages per update. SIZE_MAX when not known.
 */
static size_t kernel_request_max(const struct runner *r)
{
	if (r->sk)
		return hwoff_skcipher_chunk_bytes(r->sk);
	if (r->aead)
		return HWOFF_AEAD_MESSAGE_MAX - sizeof(gcm_aad);
	return r->hash ? 16 * (size_t)sysconf(_SC_PAGESIZE) : SIZE_MAX;
}

/*
 * Send a to the worker's parent: a failure of a guarded driver whose guard gave no answer is
 * stuck, with the guard's reason. Returns whether it went.
 */
static bool worker_reply(int fd, const struct cal_path *path, struct answer *a)
{
	const char *stuck = a->status ? hwoff_guard_stuck(path->name) : NULL;

	if (stuck) {
		a->stuck = true;
		snprintf(a->err, sizeof(a->err), "%s", stuck);
	}
	return send(fd, a, sizeof(*a), MSG_NOSIGNAL) == sizeof(*a);
}

/*
 * The worker of kernel path p, in its own process: open the path's runner and say how it went
 * (with kernel_request_max()), then answer each command until the socket ends.
 */
static void __attribute__((noreturn)) worker_serve(struct measure *m, unsigned int p, int fd)
{
	const struct cal_path *path = &m->s->paths[p];
	struct answer a = { 0 };
	struct command c;
	struct runner r;

	/* as the provider reaches another vendor's engine: through a guard, in pieces of 64 KiB */
	if (path->class == HWOFF_IMPL_OFFLOAD && hwoff_guard_driver(path->name, 0))
		_exit(0);
	a.status = runner_open(&r, m->s, path, a.err, sizeof(a.err));
	if (!a.status)
		a.request_max = kernel_request_max(&r);
	if (!worker_reply(fd, path, &a) || a.status)
		_exit(0);
	while (recv(fd, &c, sizeof(c), 0) == sizeof(c)) {
		a = (struct answer){ 0 };
		a.status = c.op == WORKER_CHECK
				   ? check_path(m->s, path, m->in, c.size, a.err, sizeof(a.err))
				   : sample_requests(&r, m->in, m->out, c.size, c.requests, &a.took,
						     a.err, sizeof(a.err));
		if (!worker_reply(fd, path, &a))
			break;
	}
	_exit(0);
}

/* The time limit of a command that moves bytes through the kernel (see ANSWER_SECONDS). */
static double answer_seconds(double bytes)
{
	return ANSWER_SECONDS + SECONDS_PER_MIB * bytes / (1 << 20);
}

/*
 * w's answer, waited for up to seconds: 0 (a->status says how it went; a worker gone without
 * one is a failure too), or -ETIMEDOUT with why in a->err: none came in time, or the driver's
 * guard gave none (a->stuck). Here alone is decided that a path stopped answering (wedged()).
 */
static int worker_answer(struct worker *w, struct answer *a, double seconds)
{
	double deadline = now_ns() + seconds * 1e9, left;
	struct pollfd ready = { .fd = w->fd, .events = POLLIN };
	int n = 0;

	while (n != 1 && (left = deadline - now_ns()) > 0) {
		n = poll(&ready, 1, (int)ceil(left / 1e6));
		if (n < 0 && errno != EINTR)
			break;
	}
	if (n == 0 || (n < 0 && errno == EINTR)) {
		*a = (struct answer){ .status = -1, .stuck = true };
		snprintf(a->err, sizeof(a->err), "no answer within %.0f s", seconds);
	} else if (recv(w->fd, a, sizeof(*a), MSG_DONTWAIT) != sizeof(*a)) {
		*a = (struct answer){ .status = -1 };
		snprintf(a->err, sizeof(a->err), "its worker process ended without an answer");
	}
	a->err[sizeof(a->err) - 1] = '\0';
	return a->stuck ? -ETIMEDOUT : 0;
}

/* Send c to w and wait for the answer within seconds: as worker_answer(). */
static int worker_ask(struct worker *w, const struct command *c, struct answer *a, double seconds)
{
	if (send(w->fd, c, sizeof(*c), MSG_NOSIGNAL) == sizeof(*c))
		return worker_answer(w, a, seconds);
	*a = (struct answer){ .status = -1 };
	snprintf(a->err, sizeof(a->err), "its worker process is gone: %s", strerror(errno));
	return 0;
}

/*
 * Start the worker of kernel path p: fork, and wait for it to open its runner (bind, setkey)
 * within ANSWER_SECONDS. Returns as worker_answer().
 */
static int worker_start(struct measure *m, unsigned int p, struct answer *a)
{
	struct worker *w = &m->workers[p];
	int fds[2], ret;

	*a = (struct answer){ .status = -1 };
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds)) {
		snprintf(a->err, sizeof(a->err), "socketpair: %s", strerror(errno));
		return 0;
	}
	fflush(NULL); /* the worker must not write the parent's buffers again */
	w->pid = fork();
	if (w->pid == 0) {
		close(fds[0]);
		for (unsigned int q = 0; q < CAL_PATHS_MAX; q++)
			if (m->workers[q].pid)
				close(m->workers[q].fd);
		worker_serve(m, p, fds[1]);
	}
	close(fds[1]);
	if (w->pid < 0) {
		snprintf(a->err, sizeof(a->err), "fork: %s", strerror(errno));
		close(fds[0]);
		w->pid = 0;
		return 0;
	}
	w->fd = fds[0];
	ret = worker_answer(w, a, ANSWER_SECONDS);
	if (!ret && !a->status)
		w->request_max = a->request_max;
	return ret;
}

/*
 * End w: tell it to stop, or kill it at once (it stopped answering), and give it up to seconds
 * to exit. One still there is killed and left to the kernel: stuck in a request, it ends when
 * the request does, if ever. No wait here is without a limit.
 */
static void worker_end(struct worker *w, bool kill_now, double seconds)
{
	const struct timespec tick = { .tv_nsec = 10 * 1000 * 1000 };

	if (!w->pid)
		return;
	if (kill_now)
		kill(w->pid, SIGKILL);
	shutdown(w->fd, SHUT_RDWR); /* its end of the socket reads the end */
	close(w->fd);
	for (double waited = 0; waitpid(w->pid, NULL, WNOHANG) == 0; waited += 0.01) {
		if (waited >= seconds) {
			kill(w->pid, SIGKILL);
			break;
		}
		nanosleep(&tick, NULL);
	}
	w->pid = 0;
}

/* What a driver's device is known by: its module, or for a built-in driver the driver itself. */
static const char *device_of(const struct cal_path *path)
{
	return strcmp(path->module, "kernel") ? path->module : path->name;
}

static void fail_path(struct measure *m, unsigned int p, const char *why)
{
	struct cal_path *path = &m->s->paths[p];

	path->failed = true;
	snprintf(path->failure, sizeof(path->failure), "%s", why);
	if (path->software)
		runner_close(&m->software);
	else
		worker_end(&m->workers[p], false, STOP_SECONDS);
	hwoff_appendf(m->run->notes, sizeof(m->run->notes), "dropped %s for %s %s: %s\n",
		      path->name, m->s->alg->name, hwoff_direction_name(m->s->direction), why);
}

/*
 * Path p failed at size: it serves only up to the largest size below that it was measured at,
 * and its figures above that are forgotten; one measured at no smaller size is dropped.
 */
static void limit_below(struct measure *m, unsigned int p, size_t size, const char *why)
{
	struct cal_subject *s = m->s;
	struct cal_path *path = &s->paths[p];
	size_t below = 0;

	for (size_t i = 0; i < s->point_count; i++)
		if (s->points[i].size < size && s->points[i].bytes_per_s[p] > 0)
			below = s->points[i].size;
	if (!below) {
		fail_path(m, p, why);
		return;
	}
	for (size_t i = 0; i < s->point_count; i++) {
		struct cal_point *pt = &s->points[i];

		if (pt->size > below)
			pt->bytes_per_s[p] = pt->cpu_ns_per_byte[p] = pt->bytes_per_s_spread[p] =
				pt->cpu_spread[p] = 0;
	}
	path->verified = below;
	path->limited = true;
	path->serves_all = false;
	hwoff_appendf(m->run->limits, sizeof(m->run->limits),
		      "%s serves %s %s up to %zu bytes only: %s\n", path->name, s->alg->name,
		      hwoff_direction_name(s->direction), below, why);
}

/*
 * Kernel path p did not answer at size (0: while setting up), for reason (worker_answer()): its
 * worker is killed, its device is taken as wedged, and every driver of it keeps the sizes below
 * it was measured at in this subject (limit_below()) and is left out of the later ones
 * (add_paths()).
 */
static void wedged(struct measure *m, unsigned int p, size_t size, const char *reason)
{
	struct cal_subject *s = m->s;
	char why[HWOFF_TRANSPORT_ERROR_MAX + 64];
	const char *device = device_of(&s->paths[p]);

	worker_end(&m->workers[p], true, KILLED_SECONDS);
	if (size)
		snprintf(why, sizeof(why), "at %zu bytes: %s", size, reason);
	else
		snprintf(why, sizeof(why), "binding and setting a key: %s", reason);
	hwoff_appendf(m->run->notes, sizeof(m->run->notes),
		      "%s stopped answering (%s %s): %s; killed and left to the kernel; the device "
		      "may stay wedged until reboot: the drivers of %s are dropped from here on\n",
		      s->paths[p].name, s->alg->name, hwoff_direction_name(s->direction), why,
		      device);
	if (m->wedged_count < HWOFF_IMPLS_MAX)
		snprintf(m->wedged[m->wedged_count++], sizeof(m->wedged[0]), "%s", device);
	for (unsigned int q = 1; q < s->path_count; q++) {
		if (s->paths[q].failed || strcmp(device_of(&s->paths[q]), device) != 0)
			continue;
		worker_end(&m->workers[q], true, KILLED_SECONDS);
		limit_below(m, q, size, q == p ? why : "its device stopped answering");
	}
}

static bool is_wedged(const struct measure *m, const struct cal_path *path)
{
	for (size_t i = 0; i < m->wedged_count; i++)
		if (strcmp(m->wedged[i], device_of(path)) == 0)
			return true;
	return false;
}

/*
 * Whether path p may be measured at size: not failed, not limited below it, and for a kernel
 * path its worker still there.
 */
static bool measurable(const struct measure *m, unsigned int p, size_t size)
{
	const struct cal_path *path = &m->s->paths[p];

	return !path->failed && !(path->limited && size > path->verified) &&
	       (path->software || m->workers[p].pid);
}

/*
 * Check kernel path p at size before it is measured there, by its worker (check_path()). A path
 * that fails its first check is dropped; one that fails later serves only up to the largest size
 * it was measured at below (limit_below()); one that does not answer wedged() its device.
 * Returns whether p may be measured at size.
 */
static bool verify(struct measure *m, unsigned int p, size_t size)
{
	struct cal_path *path = &m->s->paths[p];
	const struct command check = { .op = WORKER_CHECK, .size = size };
	double seconds = answer_seconds(2.0 * size); /* software's pass and the kernel's */
	struct answer a;

	if (path->software)
		return true;
	if (worker_ask(&m->workers[p], &check, &a, seconds)) {
		wedged(m, p, size, a.err);
		return false;
	}
	if (a.status) {
		limit_below(m, p, size, a.err);
		return false;
	}
	if (size > path->verified)
		path->verified = size;
	if (!path->limited && size >= m->workers[p].request_max)
		path->serves_all = true;
	return true;
}

/*
 * requests back-to-back requests of size bytes on path p: software here, a kernel path by its
 * worker. Returns 0, or -1: the path failed (dropped) or stopped answering (wedged()).
 */
static int run_sample(struct measure *m, unsigned int p, size_t size, unsigned long requests,
		      struct sample *out)
{
	const struct command sample = { .op = WORKER_SAMPLE, .size = size, .requests = requests };
	double seconds = answer_seconds((double)requests * size);
	struct answer a = { 0 };

	if (m->s->paths[p].software)
		a.status = sample_requests(&m->software, m->in, m->out, size, requests, &a.took,
					   a.err, sizeof(a.err));
	else if (worker_ask(&m->workers[p], &sample, &a, seconds)) {
		wedged(m, p, size, a.err);
		return -1;
	}
	if (a.status) {
		fail_path(m, p, a.err);
		return -1;
	}
	*out = a.took;
	return 0;
}

/*
 * Warm up path p at size (caches, page faults, the engine's first requests) by runs of 1, 2,
 * 4 ... requests until half a sample's time went by, and return how many requests make a
 * sample: 0 when the path failed.
 */
static unsigned long warm_up(struct measure *m, unsigned int p, size_t size)
{
	double target = m->cfg->sample_seconds * 1e9, spent = 0;
	unsigned long done = 0, batch = 1;
	struct sample w;

	while (spent < target / 2) {
		if (run_sample(m, p, size, batch, &w))
			return 0;
		spent += w.wall_ns;
		done += batch;
		batch *= 2;
	}
	return (unsigned long)fmax(1, round(target * done / spent));
}

static void csv_row(struct measure *m, unsigned int p, size_t size, unsigned int repeat,
		    unsigned long requests, const struct sample *x, const char *phase)
{
	const struct cal_subject *s = m->s;
	double bytes = (double)requests * size;

	if (!m->cfg->csv)
		return;
	fprintf(m->cfg->csv, "%s,%u,%s,%s,%zu,%u,%lu,%.0f,%.0f,%.0f,%.1f,%.4f,%s\n", s->alg->name,
		s->alg->key_bytes * 8, hwoff_direction_name(s->direction), s->paths[p].name, size,
		repeat, requests, bytes, x->wall_ns, x->cpu_ns, bytes * 1e9 / x->wall_ns,
		x->cpu_ns / bytes, phase);
}

/* Insert an empty point for size in order; NULL when the subject is full. */
static struct cal_point *new_point(struct cal_subject *s, size_t size)
{
	size_t i = 0;

	if (s->point_count == CAL_POINTS_MAX)
		return NULL;
	while (i < s->point_count && s->points[i].size < size)
		i++;
	memmove(&s->points[i + 1], &s->points[i], (s->point_count - i) * sizeof(s->points[0]));
	s->point_count++;
	memset(&s->points[i], 0, sizeof(s->points[i]));
	s->points[i].size = size;
	return &s->points[i];
}

/* Every usable path at size, interleaved; the medians become a point. */
static void measure_size(struct measure *m, size_t size, const char *phase)
{
	struct cal_subject *s = m->s;
	unsigned int repeats = m->cfg->repeats, order[CAL_PATHS_MAX], count = 0;
	unsigned long requests[CAL_PATHS_MAX];
	double rate[CAL_PATHS_MAX][REPEATS_MAX], cpu[CAL_PATHS_MAX][REPEATS_MAX];
	struct cal_point *pt;

	if (m->cfg->progress)
		m->cfg->progress(m->cfg->progress_arg, m->index, m->run->subject_count, s, size);
	for (unsigned int p = 0; p < s->path_count; p++) {
		if (!measurable(m, p, size) || !verify(m, p, size))
			continue;
		requests[p] = warm_up(m, p, size);
		if (requests[p])
			order[count++] = p;
	}
	for (unsigned int r = 0; r < repeats; r++) {
		for (unsigned int k = 0; k < count; k++) {
			unsigned int p = order[(k + r) % count];
			double bytes = (double)requests[p] * size;
			struct sample x;

			if (!measurable(m, p, size) || run_sample(m, p, size, requests[p], &x))
				continue;
			rate[p][r] = bytes * 1e9 / x.wall_ns;
			cpu[p][r] = x.cpu_ns / bytes;
			csv_row(m, p, size, r, requests[p], &x, phase);
		}
	}
	pt = new_point(s, size);
	for (unsigned int k = 0; pt && k < count; k++) {
		unsigned int p = order[k];

		if (!measurable(m, p, size))
			continue;
		pt->bytes_per_s[p] = cal_median(rate[p], repeats, &pt->bytes_per_s_spread[p]);
		pt->cpu_ns_per_byte[p] = cal_median(cpu[p], repeats, &pt->cpu_spread[p]);
	}
}

/* A derivation the bisection refines: an objective over some paths. */
struct view {
	cal_mask mask;
	enum hwoff_objective objective;
};

/*
 * The sizes of the views' crossovers are known to within cfg->resolve_ratio: find two adjacent
 * points with different winners further apart and measure between them, until none is left.
 */
static void bisect(struct measure *m, const struct view *views, unsigned int view_count)
{
	struct cal_subject *s = m->s;
	bool found = true;

	while (found && s->point_count < CAL_POINTS_MAX) {
		found = false;
		for (unsigned int v = 0; v < view_count && !found; v++) {
			int previous = -1;

			for (size_t i = 0; i < s->point_count && !found; i++) {
				int w = cal_winner(&s->points[i], views[v].mask & cal_usable(s),
						   views[v].objective, m->cfg->tie, previous);
				size_t lo = i ? s->points[i - 1].size : 0, hi = s->points[i].size;
				size_t mid = (size_t)sqrt((double)lo * hi);

				mid -= mid % CAL_STEP;
				if (i && w != previous && w >= 0 && previous >= 0 &&
				    hi > lo * m->cfg->resolve_ratio && mid > lo && mid < hi) {
					measure_size(m, mid, "bisect");
					found = true;
				}
				previous = w;
			}
		}
	}
}

/*
 * The most data one GCM message of the kernel's takes (in steps of the grid): the grid is
 * measured there too, so that a kernel path's ranges reach up to its limit, not to the grid's
 * size below it. SIZE_MAX for the other algorithms, whose requests go in pieces.
 */
static size_t message_max(const struct cal_subject *s)
{
	size_t max = HWOFF_AEAD_MESSAGE_MAX - sizeof(gcm_aad);

	return hwoff_alg_is_aead(s->alg) ? max - max % CAL_STEP : SIZE_MAX;
}

/* The grid, the crossovers, the ranges. */
static void measure_subject(struct measure *m)
{
	struct cal_subject *s = m->s;
	struct view views[HWOFF_OBJECTIVE_COUNT + 1];
	unsigned int view_count = 0, pio = 0, dma = 0;
	size_t limits[CAL_PATHS_MAX], most = message_max(s);

	for (size_t g = 0; g < m->cfg->grid_count; g++) {
		if (m->cfg->grid[g] > most && (!g || m->cfg->grid[g - 1] < most))
			measure_size(m, most, "limit");
		measure_size(m, m->cfg->grid[g], "grid");
	}
	/* Every path for each objective, and the engine's own PIO/DMA crossover for sysfs. */
	for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++)
		views[view_count++] = (struct view){ .mask = ~0u, .objective = o };
	for (unsigned int p = 1; p < s->path_count; p++) {
		pio |= (s->paths[p].class == HWOFF_IMPL_ENGINE_PIO) << p;
		dma |= (s->paths[p].class == HWOFF_IMPL_ENGINE_DMA) << p;
	}
	if (pio && dma)
		views[view_count++] =
			(struct view){ .mask = pio | dma, .objective = HWOFF_THROUGHPUT };
	bisect(m, views, view_count);
	cal_limits(s, limits);
	for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++)
		cal_derive(s->points, s->point_count, cal_usable(s), limits, o, m->cfg->tie,
			   &s->ranges[o]);
}

/*
 * Whether impl is a candidate. Off-CPU drivers are: the engine's PIO and DMA drivers and other
 * vendors' engines. The engine's auto driver is not while its PIO and DMA drivers are there:
 * the table names the concrete driver, and the auto driver is only as good as its threshold.
 * The kernel's CPU drivers (aes-generic, aesni, sha256-generic) are not: they run the same
 * kind of code as OpenSSL in this process, on the same CPU, plus a system call and two copies;
 * OpenSSL uses the same CPU instructions as they do.
 */
static bool candidate(const struct hwoff_discovery *d, const struct hwoff_impl *impl)
{
	if (impl->class == HWOFF_IMPL_CPU)
		return false;
	if (impl->class != HWOFF_IMPL_ENGINE_AUTO)
		return true;
	for (size_t i = 0; i < d->count; i++)
		if (strcmp(d->impls[i].name, impl->name) == 0 &&
		    (d->impls[i].class == HWOFF_IMPL_ENGINE_PIO ||
		     d->impls[i].class == HWOFF_IMPL_ENGINE_DMA))
			return false;
	return true;
}

/*
 * Software, then each kernel candidate whose device did not stop answering; measure_size()
 * checks each before it measures it.
 */
static void add_paths(struct measure *m, struct cal_subject *s)
{
	struct cal_run *run = m->run;
	const struct hwoff_discovery *d = &run->discovery;

	s->paths[0] = (struct cal_path){ .software = true };
	strcpy(s->paths[0].name, HWOFF_SOFTWARE);
	s->path_count = 1;
	for (size_t i = 0; run->af_alg && i < d->count; i++) {
		const struct hwoff_impl *impl = &d->impls[i];
		struct cal_path *path = &s->paths[s->path_count];

		if (strcmp(impl->name, s->alg->kernel_name) != 0 || !candidate(d, impl))
			continue;
		if (s->path_count == CAL_PATHS_MAX) {
			hwoff_appendf(run->notes, sizeof(run->notes),
				      "left out %s for %s: more than %d paths\n", impl->driver,
				      s->alg->name, CAL_PATHS_MAX);
			continue;
		}
		*path = (struct cal_path){ .class = impl->class };
		snprintf(path->name, sizeof(path->name), "%s", impl->driver);
		snprintf(path->module, sizeof(path->module), "%s", impl->module);
		if (is_wedged(m, path))
			hwoff_appendf(run->notes, sizeof(run->notes),
				      "left out %s for %s %s: %s stopped answering earlier\n",
				      impl->driver, s->alg->name,
				      hwoff_direction_name(s->direction), device_of(path));
		else
			s->path_count++;
	}
}

/* One subject per algorithm of cfg->algs and direction it takes, in the table's order. */
static int make_subjects(struct cal_run *run, const struct cal_config *cfg)
{
	run->subjects = calloc(HWOFF_ALG_COUNT * 2, sizeof(*run->subjects));
	if (!run->subjects)
		return -1;
	for (size_t a = 0; a < HWOFF_ALG_COUNT; a++) {
		const struct hwoff_alg *alg = &hwoff_algs[a];

		if (cfg->algs && !cfg->algs[a])
			continue;
		for (int dir = 0; dir < HWOFF_DIRECTION_COUNT; dir++) {
			if (hwoff_alg_is_digest(alg) != (dir == HWOFF_DIGEST))
				continue;
			run->subjects[run->subject_count++] =
				(struct cal_subject){ .alg = alg, .direction = dir };
		}
	}
	return 0;
}

/* The kernel's CPU drivers are never candidates (see candidate()); say which were left out. */
static void note_cpu_drivers(struct cal_run *run)
{
	const struct hwoff_discovery *d = &run->discovery;

	for (size_t i = 0; i < d->count; i++)
		if (d->impls[i].class == HWOFF_IMPL_CPU)
			hwoff_appendf(run->notes, sizeof(run->notes),
				      "left out %s (%s): a CPU driver, software in process does "
				      "the same without the system call\n",
				      d->impls[i].driver, d->impls[i].name);
}

/* Start kernel path p's worker: a path that cannot be set up is dropped, one that hangs wedged().
 */
static void start_path(struct measure *m, unsigned int p)
{
	struct answer a;

	if (worker_start(m, p, &a))
		wedged(m, p, 0, a.err);
	else if (a.status)
		fail_path(m, p, a.err);
}

/* The subject's paths are done with: software's runner closed, the workers ended. */
static void end_paths(struct measure *m)
{
	runner_close(&m->software);
	for (unsigned int p = 0; p < CAL_PATHS_MAX; p++)
		worker_end(&m->workers[p], false, STOP_SECONDS);
}

int cal_measure(struct cal_run *run, const struct cal_config *cfg, char *err, size_t err_len)
{
	struct measure m = { .cfg = cfg, .run = run };
	struct hwoff_probe probe = { 0 };
	int ret = -1;

	memset(run, 0, sizeof(*run));
	if (!cfg->grid_count || cfg->repeats < 1 || cfg->repeats > REPEATS_MAX) {
		snprintf(err, err_len, "a grid of sizes and 1 to %d repeats are needed",
			 REPEATS_MAX);
		return -1;
	}
	m.buf_len = cfg->grid[cfg->grid_count - 1];
	m.in = malloc(m.buf_len);
	m.out = malloc(m.buf_len + HWOFF_GCM_TAG_MAX); /* GCM writes its tag after the data */
	if (!m.in || !m.out || make_subjects(run, cfg) || RAND_bytes(m.in, (int)m.buf_len) != 1) {
		snprintf(err, err_len, "out of memory");
		goto out;
	}
	run->af_alg = hwoff_probe_afalg(&probe) == 0;
	snprintf(run->af_alg_reason, sizeof(run->af_alg_reason), "%s", probe.reason);
	if (hwoff_discover(&run->discovery, err, err_len)) {
		/* Without /proc/crypto there is nothing to offload to: software only. */
		hwoff_appendf(run->notes, sizeof(run->notes), "discovery failed: %s\n", err);
		run->af_alg = false;
	}
	if (!run->af_alg)
		hwoff_appendf(run->notes, sizeof(run->notes), "software only: AF_ALG: %s\n",
			      run->af_alg_reason[0] ? run->af_alg_reason : "not used");
	else
		note_cpu_drivers(run);
	for (size_t i = 0; i < run->subject_count; i++) {
		m.s = &run->subjects[i];
		m.index = i;
		add_paths(&m, m.s);
		if (runner_open(&m.software, m.s, &m.s->paths[0], err, err_len))
			goto out;
		for (unsigned int p = 1; p < m.s->path_count; p++)
			if (!m.s->paths[p].failed)
				start_path(&m, p);
		measure_subject(&m);
		end_paths(&m);
	}
	ret = 0;
out:
	end_paths(&m);
	free(m.in);
	free(m.out);
	return ret;
}

void cal_run_free(struct cal_run *run)
{
	free(run->subjects);
	run->subjects = NULL;
	run->subject_count = 0;
}

struct hwoff_table *cal_table(const struct cal_run *run, const bool *objectives, char *warnings,
			      size_t warnings_len, size_t *left_out)
{
	struct hwoff_table *t = hwoff_table_new();
	char why[256];

	*left_out = 0;
	if (!t)
		return NULL;
	for (size_t i = 0; i < run->subject_count; i++) {
		const struct cal_subject *s = &run->subjects[i];

		for (int o = 0; o < HWOFF_OBJECTIVE_COUNT; o++) {
			struct hwoff_range_spec specs[HWOFF_RANGES_MAX];
			const struct cal_ranges *r = &s->ranges[o];

			if (!objectives[o])
				continue;
			for (unsigned int k = 0; k < r->count; k++)
				specs[k] = (struct hwoff_range_spec){
					.start = r->r[k].start, .path = s->paths[r->r[k].path].name
				};
			/* The table's limits (HWOFF_PATHS_MAX) cost this entry, not the others. */
			if (hwoff_table_set(t, s->alg, s->direction, o, specs, r->count, why,
					    sizeof(why))) {
				hwoff_appendf(warnings, warnings_len,
					      "%s %s %s left to software: %s\n", s->alg->name,
					      hwoff_direction_name(s->direction),
					      hwoff_objective_name(o), why);
				(*left_out)++;
			}
		}
	}
	/*
	 * Each kernel driver's proof, for the loader to keep another vendor's engine within it: of
	 * every driver measured, the table's and the others (an administrator may send requests
	 * to one by hand, within its proof).
	 */
	for (size_t i = 0; i < run->subject_count; i++) {
		for (unsigned int p = 1; p < run->subjects[i].path_count; p++) {
			const char *driver = run->subjects[i].paths[p].name;
			size_t proven = cal_proven(run->subjects, run->subject_count, driver);

			if (!proven || hwoff_table_proven(t, driver) ||
			    !hwoff_table_set_proven(t, driver, proven, why, sizeof(why)))
				continue;
			hwoff_appendf(warnings, warnings_len, "no proof of %s in the table: %s\n",
				      driver, why);
			(*left_out)++;
		}
	}
	hwoff_fingerprint_machine(&t->fingerprint, t, &run->discovery);
	return t;
}
