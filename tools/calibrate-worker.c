// SPDX-License-Identifier: Apache-2.0
/*
 * calibrate-worker.c - a path's worker: a process of its own where the provider serves one
 * subject's requests by one path, and the calibration's requests go through EVP as an
 * application's do.
 *
 * The calibration measures what an application gets: each path is measured through hwoffload.so
 * itself (its buffering, its request splitting, its guard for another vendor's engine), loaded
 * in a library context of the worker's with a path table that sends the subject's every size to
 * that path (software, or one kernel driver; for the verification pass, the learnt table), with
 * fallback off so that a failure is seen and never measured as software. One request is what an
 * application makes: one EVP_CipherUpdate of the size; for a digest or HMAC a whole message
 * (init, update, final); for GCM a TLS record (IV, 13 bytes of AAD, the data, final, the tag).
 *
 * Every call that reaches a kernel driver runs here, where the calibration can abandon it (a
 * request stuck in the kernel, uninterruptibly, stays with this process, which is killed). The
 * provider reaches another vendor's engine through its guard, whose limit (10 s) is shorter than
 * the calibration's: a driver its guard found stuck shows in the provider's statistics as
 * unusable, and the worker answers "stuck" with the guard's reason.
 */
#define _GNU_SOURCE /* MSG_NOSIGNAL */
#include <errno.h>
#include <math.h>
#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/evp.h>
#include <openssl/provider.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/guard.h"
#include "backend/table_file.h"
#include "backend/text.h"
#include "backend/transport.h"
#include "tools/calibrate.h"
#include "provider/params.h"

#define HWOFFLOAD      "provider=hwoffload"
#define DEFAULT	       "provider=default"
#define STATISTICS_MAX (64 << 10)

/* A command to a worker. */
struct command {
	enum cal_op op;
	size_t size;
	unsigned long requests; /* CAL_SAMPLE */
};

/* The requests of one subject through one provider of a library context. */
struct runner {
	const struct hwoff_alg *alg;
	bool encrypt;
	OSSL_LIB_CTX *libctx;
	EVP_CIPHER *cipher;
	EVP_CIPHER_CTX *cipher_ctx;
	EVP_MD *md;
	EVP_MD_CTX *md_ctx;
	EVP_MAC_CTX *mac_ctx; /* an HMAC row's, keyed with key */
	/* GCM decryption: in encrypted, with its tag, for requests of gcm_len bytes of that in */
	unsigned char *gcm_in, gcm_tag[HWOFF_GCM_TAG_MAX];
	const unsigned char *gcm_from;
	size_t gcm_len;
};

/* The worker's side: its library context with hwoffload and the default provider. */
struct serving {
	const struct cal_worker_job *job;
	OSSL_LIB_CTX *libctx;
	OSSL_PROVIDER *hwoffload, *fallback;
	struct runner r; /* through hwoffload */
};

static const unsigned char key[32] = "hwoffload calibration key 0123!";
/* A GCM message's IV, and a TLS 1.2 record's 13 bytes of AAD: a size is the record's data. */
static const unsigned char gcm_iv[12] = "hwoffload iv";
static const unsigned char gcm_aad[13] = "TLS record 13";

size_t cal_gcm_data_max(void)
{
	return HWOFF_AEAD_MESSAGE_MAX - sizeof(gcm_aad);
}

static void runner_close(struct runner *r)
{
	EVP_CIPHER_CTX_free(r->cipher_ctx);
	EVP_CIPHER_free(r->cipher);
	EVP_MD_CTX_free(r->md_ctx);
	EVP_MD_free(r->md);
	EVP_MAC_CTX_free(r->mac_ctx);
	free(r->gcm_in);
	memset(r, 0, sizeof(*r));
}

/*
 * Set up s's algorithm and direction from the provider propq names in libctx; the IV is all
 * zeros. Returns 0 or -1 with err.
 */
static int runner_open(struct runner *r, const struct cal_subject *s, OSSL_LIB_CTX *libctx,
		       const char *propq, char *err, size_t err_len)
{
	const struct hwoff_alg *alg = s->alg;
	unsigned char iv[HWOFF_IV_MAX] = { 0 };

	*r = (struct runner){ .alg = alg,
			      .encrypt = s->direction == HWOFF_ENCRYPT,
			      .libctx = libctx };
	if (hwoff_alg_is_hmac(alg)) {
		EVP_MAC *mac = EVP_MAC_fetch(libctx, "HMAC", propq);
		OSSL_PARAM params[] = {
			OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_DIGEST, (char *)alg->hmac_of->name,
					       0),
			OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_PROPERTIES, (char *)propq, 0),
			OSSL_PARAM_END,
		};

		r->mac_ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;
		EVP_MAC_free(mac);
		if (r->mac_ctx && EVP_MAC_init(r->mac_ctx, key, sizeof(key), params) == 1)
			return 0;
	} else if (hwoff_alg_is_digest(alg)) {
		r->md = EVP_MD_fetch(libctx, alg->name, propq);
		r->md_ctx = EVP_MD_CTX_new();
		if (r->md && r->md_ctx)
			return 0;
	} else {
		r->cipher = EVP_CIPHER_fetch(libctx, alg->name, propq);
		r->cipher_ctx = EVP_CIPHER_CTX_new();
		if (r->cipher && r->cipher_ctx &&
		    EVP_CipherInit_ex2(r->cipher_ctx, r->cipher, key, alg->iv_bytes ? iv : NULL,
				       r->encrypt, NULL) == 1 &&
		    EVP_CIPHER_CTX_set_padding(r->cipher_ctx, 0) == 1)
			return 0;
	}
	snprintf(err, err_len, "%s cannot set up %s", propq, alg->name);
	runner_close(r);
	return -1;
}

/* What OpenSSL's error queue says, after prefix, into err; the queue is emptied. */
static int openssl_failed(char *err, size_t err_len, const char *prefix)
{
	unsigned long e = ERR_peek_last_error();
	char reason[256] = "";

	if (e)
		ERR_error_string_n(e, reason, sizeof(reason));
	ERR_clear_error();
	snprintf(err, err_len, "%s%s%s", prefix, e ? ": " : "", reason);
	return -1;
}

/*
 * One GCM message of len bytes of data, as a TLS record takes it: init (the IV), AAD, data,
 * final and the tag. The output is the data and, encrypting, the tag after it.
 */
static bool gcm_message(EVP_CIPHER_CTX *ctx, bool encrypt, const unsigned char *in,
			unsigned char *out, size_t len, unsigned char *tag)
{
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
 * A GCM decryption needs a ciphertext with its tag: in encrypted by the default provider, once
 * per size. Returns what to decrypt.
 */
static const unsigned char *gcm_ciphertext(struct runner *r, const unsigned char *in, size_t len)
{
	EVP_CIPHER *cipher = EVP_CIPHER_fetch(r->libctx, r->alg->name, DEFAULT);
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();
	bool ok;

	if (r->gcm_in && r->gcm_from == in && r->gcm_len == len)
		goto out;
	free(r->gcm_in);
	r->gcm_in = malloc(len + HWOFF_GCM_TAG_MAX);
	ok = r->gcm_in && cipher && ctx &&
	     EVP_CipherInit_ex2(ctx, cipher, key, NULL, 1, NULL) == 1 &&
	     gcm_message(ctx, true, in, r->gcm_in, len, r->gcm_tag);
	r->gcm_from = ok ? in : NULL;
	r->gcm_len = len;
out:
	EVP_CIPHER_CTX_free(ctx);
	EVP_CIPHER_free(cipher);
	return r->gcm_from ? r->gcm_in : NULL;
}

/* One request of len bytes from in to out (a digest into out). Returns 0 or -1 with err. */
static int runner_request(struct runner *r, const unsigned char *in, unsigned char *out, size_t len,
			  char *err, size_t err_len)
{
	unsigned int md_len;
	size_t mac_len;
	int outl;
	bool ok;

	if (hwoff_alg_is_aead(r->alg)) {
		unsigned char *tag = r->encrypt ? out + len : r->gcm_tag;

		if (!r->encrypt && !(in = gcm_ciphertext(r, in, len)))
			return openssl_failed(err, err_len, "no GCM ciphertext to decrypt");
		ok = gcm_message(r->cipher_ctx, r->encrypt, in, out, len, tag);
	} else if (r->mac_ctx) {
		ok = EVP_MAC_init(r->mac_ctx, NULL, 0, NULL) == 1 &&
		     EVP_MAC_update(r->mac_ctx, in, len) == 1 &&
		     EVP_MAC_final(r->mac_ctx, out, &mac_len, EVP_MAX_MD_SIZE) == 1;
	} else if (r->md) {
		ok = EVP_DigestInit_ex2(r->md_ctx, r->md, NULL) == 1 &&
		     EVP_DigestUpdate(r->md_ctx, in, len) == 1 &&
		     EVP_DigestFinal_ex(r->md_ctx, out, &md_len) == 1;
	} else {
		ok = EVP_CipherUpdate(r->cipher_ctx, out, &outl, in, (int)len) == 1;
	}
	if (ok)
		return 0;
	char what[96];

	snprintf(what, sizeof(what), "a %zu-byte %s request failed", len, r->alg->name);
	return openssl_failed(err, err_len, what);
}

/* The provider's statistics text into buf (empty when it has none). */
static void statistics(const struct serving *sv, char *buf, size_t len)
{
	OSSL_PARAM params[] = {
		OSSL_PARAM_utf8_string(HWPROV_PARAM_STATISTICS, buf, len),
		OSSL_PARAM_END,
	};

	buf[0] = '\0';
	if (OSSL_PROVIDER_get_params(sv->hwoffload, params) != 1)
		buf[0] = '\0';
}

/* The line of the statistics that starts with path's name and then what, or NULL. */
static const char *statistics_line(const char *text, const char *path, const char *what)
{
	size_t name_len = strlen(path), what_len = strlen(what);

	for (const char *line = text; line && *line; line = strchr(line, '\n'), line += !!line)
		if (strncmp(line, path, name_len) == 0 && line[name_len] == ' ' &&
		    strncmp(line + name_len + 1, what, what_len) == 0)
			return line + name_len + 1 + what_len;
	return NULL;
}

/* How many requests the provider counts on the served path so far. */
static unsigned long long served(const struct serving *sv)
{
	char *text = malloc(STATISTICS_MAX);
	const char *count;
	unsigned long long n = 0;

	if (!text)
		return 0;
	statistics(sv, text, STATISTICS_MAX);
	count = statistics_line(text, sv->job->path->name, "requests=");
	if (count)
		n = strtoull(count, NULL, 10);
	free(text);
	return n;
}

/*
 * Whether the provider took the served path out of service for the process (its guard found
 * it stuck, or the provider's checks at load refused it): the reason into err.
 */
static bool unusable(const struct serving *sv, char *err, size_t err_len)
{
	char *text = malloc(STATISTICS_MAX);
	const char *reason;

	if (!text || !sv->job->path)
		return free(text), false;
	statistics(sv, text, STATISTICS_MAX);
	reason = statistics_line(text, sv->job->path->name, "unusable: ");
	if (reason)
		snprintf(err, err_len, "%.*s", (int)strcspn(reason, "\n"), reason);
	free(text);
	return reason != NULL;
}

/*
 * Whether the served path gives the default provider's answer for size bytes of in, and took
 * the request: the provider may send a size elsewhere than its table says (a GCM message larger
 * than one kernel request goes to software), and a path must not be measured where it is not
 * the one serving. Returns 0 or -1 with err.
 */
static int check(struct serving *sv, size_t size, char *err, size_t err_len)
{
	const struct cal_worker_job *job = sv->job;
	const struct cal_subject *s = job->s;
	unsigned char *want = malloc(size + EVP_MAX_MD_SIZE), *got = malloc(size + EVP_MAX_MD_SIZE);
	unsigned long long before = job->path ? served(sv) : 0;
	struct runner ref, hw;
	int ret = -1;

	if (!want || !got) {
		snprintf(err, err_len, "out of memory");
		goto out;
	}
	if (runner_open(&ref, s, sv->libctx, DEFAULT, err, err_len))
		goto out;
	ret = runner_request(&ref, job->in, want, size, err, err_len);
	runner_close(&ref);
	if (ret || (ret = runner_open(&hw, s, sv->libctx, HWOFFLOAD, err, err_len)))
		goto out;
	ret = runner_request(&hw, job->in, got, size, err, err_len);
	runner_close(&hw); /* a digest's count reaches the statistics when its context goes */
	if (!ret && memcmp(got, want,
			   hwoff_alg_is_digest(s->alg) ? s->alg->digest_bytes
			   : hwoff_alg_is_aead(s->alg) && s->direction == HWOFF_ENCRYPT
				   ? size + HWOFF_GCM_TAG_MAX
				   : size)) {
		snprintf(err, err_len, "its %zu-byte %s differs from OpenSSL's", size,
			 hwoff_direction_name(s->direction));
		ret = -1;
	} else if (!ret && job->path && served(sv) == before) {
		snprintf(err, err_len, "the provider serves %zu-byte %s requests by another path",
			 size, s->alg->name);
		ret = -1;
	}
out:
	free(want);
	free(got);
	return ret;
}

double cal_now_ns(void)
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

/* requests back-to-back requests of size bytes, timed. Returns 0 or -1 with err. */
static int sample(struct serving *sv, size_t size, unsigned long requests, struct cal_sample *took,
		  char *err, size_t err_len)
{
	double wall0 = cal_now_ns(), cpu0 = cpu_ns();

	for (unsigned long i = 0; i < requests; i++)
		if (runner_request(&sv->r, sv->job->in, sv->job->out, size, err, err_len))
			return -1;
	took->cpu_ns = cpu_ns() - cpu0;
	took->wall_ns = cal_now_ns() - wall0;
	return 0;
}

/*
 * The most bytes the served driver gets in one request, whatever the caller's size: the
 * provider sends a cipher's in pieces of its socket's buffer (64 KiB at most to another vendor's
 * engine), algif_hash hands a hash driver at most ALG_MAX_PAGES (16) pages per update, and a GCM
 * message is one request. SIZE_MAX for software or when not known.
 */
static size_t request_max(const struct cal_worker_job *job)
{
	const struct hwoff_alg *alg = job->s->alg;
	struct hwoff_skcipher *sk;
	char err[HWOFF_TRANSPORT_ERROR_MAX];
	size_t max;

	if (!job->path || job->path->software)
		return SIZE_MAX;
	if (hwoff_alg_is_aead(alg))
		return cal_gcm_data_max();
	if (hwoff_alg_is_digest(alg))
		return 16 * (size_t)sysconf(_SC_PAGESIZE);
	/* the provider's piece is its session's: one like it tells (guarded as the provider's) */
	if (job->path->class == HWOFF_IMPL_OFFLOAD && hwoff_guard_driver(job->path->name, 0))
		return SIZE_MAX;
	if (hwoff_skcipher_new(&sk, alg, job->path->name, key, alg->key_bytes, err, sizeof(err)))
		return SIZE_MAX;
	max = hwoff_skcipher_chunk_bytes(sk);
	hwoff_skcipher_free(sk);
	return max;
}

/*
 * Load hwoffload and the default provider into a library context of their own, hwoffload
 * configured by the environment alone (an openssl.cnf of the machine's does not reach a new
 * library context): job's table, fallback off, no back-off between tries, no statistics file.
 * Returns 0 or -1 with err.
 */
static int load_provider(struct serving *sv, char *err, size_t err_len)
{
	char table[] = "/tmp/hwoffload-calibrate-XXXXXX";
	int fd = mkstemp(table);
	FILE *f = fd >= 0 ? fdopen(fd, "w") : NULL;
	extern char **environ;
	bool written;

	if (!f) {
		snprintf(err, err_len, "a path table in /tmp: %s", strerror(errno));
		if (fd >= 0)
			close(fd);
		return -1;
	}
	written = hwoff_table_write(sv->job->table, f, "a calibration worker's") == 0;
	written = fclose(f) == 0 && written;
	/* the user's HWOFFLOAD_* settings are not the calibration's */
	for (size_t i = 0; environ[i];)
		if (strncmp(environ[i], "HWOFFLOAD_", 10) == 0) {
			char name[64];

			snprintf(name, sizeof(name), "%.*s", (int)strcspn(environ[i], "="),
				 environ[i]);
			unsetenv(name);
		} else {
			i++;
		}
	setenv("HWOFFLOAD_TABLE", table, 1);
	setenv("HWOFFLOAD_MODE", "auto", 1);
	setenv("HWOFFLOAD_OBJECTIVE", hwoff_objective_name(sv->job->objective), 1);
	setenv("HWOFFLOAD_FALLBACK", "no", 1);
	setenv("HWOFFLOAD_RETRY_MS", "0", 1);
	setenv("HWOFFLOAD_STATS", "no", 1);
	sv->libctx = written ? OSSL_LIB_CTX_new() : NULL;
	if (sv->libctx && sv->job->provider_dir &&
	    !OSSL_PROVIDER_set_default_search_path(sv->libctx, sv->job->provider_dir))
		sv->libctx = NULL;
	if (sv->libctx) {
		sv->fallback = OSSL_PROVIDER_load(sv->libctx, "default");
		sv->hwoffload = OSSL_PROVIDER_load(sv->libctx, "hwoffload");
	}
	unlink(table);
	if (!written)
		snprintf(err, err_len, "cannot write a path table in /tmp");
	else if (!sv->hwoffload || !sv->fallback)
		return openssl_failed(err, err_len, "cannot load the hwoffload provider");
	return written ? 0 : -1;
}

/* Reply a to the parent; a failure the provider blames on a stuck path is stuck. */
static bool reply(struct serving *sv, int fd, struct cal_answer *a)
{
	if (a->status && sv->hwoffload && unusable(sv, a->err, sizeof(a->err)))
		a->stuck = true;
	return send(fd, a, sizeof(*a), MSG_NOSIGNAL) == sizeof(*a);
}

/* The worker: set up and say how it went (with request_max()), then answer each command. */
static void __attribute__((noreturn)) serve(const struct cal_worker_job *job, int fd)
{
	struct serving sv = { .job = job };
	struct cal_answer a = { 0 };
	struct command c;

	a.status = load_provider(&sv, a.err, sizeof(a.err));
	if (!a.status && unusable(&sv, a.err, sizeof(a.err))) {
		/* refused at load (not in /proc/crypto, ...): a failure, not stuck */
		a.status = -1;
		send(fd, &a, sizeof(a), MSG_NOSIGNAL);
		_exit(0);
	}
	if (!a.status)
		a.status = runner_open(&sv.r, job->s, sv.libctx, HWOFFLOAD, a.err, sizeof(a.err));
	if (!a.status)
		a.request_max = request_max(job);
	if (!reply(&sv, fd, &a) || a.status)
		_exit(0);
	while (recv(fd, &c, sizeof(c), 0) == sizeof(c)) {
		a = (struct cal_answer){ 0 };
		a.status = c.op == CAL_CHECK
				   ? check(&sv, c.size, a.err, sizeof(a.err))
				   : sample(&sv, c.size, c.requests, &a.took, a.err, sizeof(a.err));
		if (!reply(&sv, fd, &a))
			break;
	}
	_exit(0);
}

/*
 * w's answer, waited for up to seconds: 0 (a->status says how it went; a worker gone without
 * one is a failure too), or -ETIMEDOUT with why in a->err: none came in time, or the provider
 * found the path stuck (a->stuck).
 */
static int answer(struct cal_worker *w, struct cal_answer *a, double seconds)
{
	double deadline = cal_now_ns() + seconds * 1e9, left;
	struct pollfd ready = { .fd = w->fd, .events = POLLIN };
	int n = 0;

	while (n != 1 && (left = deadline - cal_now_ns()) > 0) {
		n = poll(&ready, 1, (int)ceil(left / 1e6));
		if (n < 0 && errno != EINTR)
			break;
	}
	if (n == 0 || (n < 0 && errno == EINTR)) {
		*a = (struct cal_answer){ .status = -1, .stuck = true };
		snprintf(a->err, sizeof(a->err), "no answer within %.0f s", seconds);
	} else if (recv(w->fd, a, sizeof(*a), MSG_DONTWAIT) != sizeof(*a)) {
		*a = (struct cal_answer){ .status = -1 };
		snprintf(a->err, sizeof(a->err), "its worker process ended without an answer");
	}
	a->err[sizeof(a->err) - 1] = '\0';
	return a->stuck ? -ETIMEDOUT : 0;
}

int cal_worker_start(struct cal_worker *w, const struct cal_worker_job *job,
		     const struct cal_worker *others, size_t other_count, struct cal_answer *a,
		     double seconds)
{
	int fds[2], ret;

	*w = (struct cal_worker){ 0 };
	*a = (struct cal_answer){ .status = -1 };
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds)) {
		snprintf(a->err, sizeof(a->err), "socketpair: %s", strerror(errno));
		return 0;
	}
	fflush(NULL); /* the worker must not write the parent's buffers again */
	w->pid = fork();
	if (w->pid == 0) {
		close(fds[0]);
		for (size_t q = 0; q < other_count; q++)
			if (others[q].pid)
				close(others[q].fd);
		serve(job, fds[1]);
	}
	close(fds[1]);
	if (w->pid < 0) {
		snprintf(a->err, sizeof(a->err), "fork: %s", strerror(errno));
		close(fds[0]);
		w->pid = 0;
		return 0;
	}
	w->fd = fds[0];
	ret = answer(w, a, seconds);
	if (!ret && !a->status)
		w->request_max = a->request_max;
	return ret;
}

int cal_worker_ask(struct cal_worker *w, enum cal_op op, size_t size, unsigned long requests,
		   struct cal_answer *a, double seconds)
{
	const struct command c = { .op = op, .size = size, .requests = requests };

	if (send(w->fd, &c, sizeof(c), MSG_NOSIGNAL) == sizeof(c))
		return answer(w, a, seconds);
	*a = (struct cal_answer){ .status = -1 };
	snprintf(a->err, sizeof(a->err), "its worker process is gone: %s", strerror(errno));
	return 0;
}

void cal_worker_end(struct cal_worker *w, bool kill_now, double seconds)
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
