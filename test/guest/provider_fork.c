/* SPDX-License-Identifier: Apache-2.0 */
/*
 * test/vm/run: --vcpus 2
 * provider_fork - fork() while threads stream through hwoffload.so, on every path (modes
 * software, pio, dma, auto), fallback off.
 *
 * Per path, worker threads run random differential cases (test/provider/providerutil.h) without
 * pause while the main thread, round after round, starts a cipher and a digest stream of its own,
 * forks, and waits for the child. The child continues both inherited streams, runs new contexts,
 * checks every result against the default provider and exits. The parent then continues its own
 * copies of the two streams (the backend clones a hash state in the child from the parent's socket,
 * so the parent leaves it alone until the child is done: backend/transport.h) and checks them. A
 * child that does not end within CHILD_TIMEOUT_S is a hang: its state (kernel stack and wait
 * channel of every thread, and gdb's backtrace where gdb is installed) is printed, and it is
 * killed. The provider is loaded anew every ROUNDS_PER_LOAD rounds, so that forks come in its first
 * uses too, not only in its steady state. HWOFFLOAD_FORK_ROUNDS (per path, default 1000) sizes it;
 * HWOFFLOAD_TEST_LONG=1 runs 20000 rounds per path.
 *
 * And per kernel path, a request's output while another thread forks and a third writes on the
 * output's last page, past its end: before 6.5 AF_ALG takes the output pages by reference
 * (FOLL_GET), so a fork write-protects them and the writer's fault gives the process a copy the
 * kernel does not write (backend/skcipher.c, "landing").
 *
 * And per kernel path, a child that closes the descriptors it inherited, or opens another
 * AF_ALG socket at their numbers (a daemon's start; and what fork() itself can leave when another
 * thread opens or closes a socket while it copies the process: the descriptor table is copied
 * before the memory): the inherited contexts and the spare ones must give right results or an
 * error, never use or close a number that is no longer theirs.
 */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <linux/if_alg.h>
#include <openssl/err.h>

#include "test/provider/providerutil.h"

#define WORKERS		2
#define CHILD_TIMEOUT_S 30
#define STREAM_MAX	(3 * 8192)
#define ROUNDS_PER_LOAD 100

static const char *const modes[] = { "software", "pio", "dma", "auto" };
#define MODES (sizeof(modes) / sizeof(modes[0]))

/* ---- the threads that keep streaming ------------------------------------------------------- */

struct worker {
	pthread_t thread;
	const struct prov_env *e;
	unsigned int id;
	size_t mode;
	uint64_t first_round; /* of the provider load it works in */
	atomic_bool *stop;
	struct case_tally tally;
	enum case_result result;
	char why[CASE_WHY_MAX];
	/* not on the thread's stack: still reachable in a forked child (leak checkers) */
	struct case_buffers b;
};

static void *work(void *arg)
{
	struct worker *w = arg;
	const struct case_sizes sizes = { .small_percent = 70, .medium_percent = 30 };

	w->result = CASE_RIGHT;
	if (!case_buffers_alloc(&w->b)) {
		snprintf(w->why, sizeof(w->why), "out of memory for the buffers");
		w->result = CASE_ERROR;
	}
	for (uint64_t k = 0; w->result == CASE_RIGHT && !atomic_load(w->stop); k++) {
		struct test_rng rng;

		test_rng_init(&rng, (uint64_t)(w->mode + 1) << 56 | w->first_round << 34 |
					    (uint64_t)w->id << 32 | k);
		w->result = case_run(w->e, &rng, &sizes, &w->b, &w->tally, w->why, sizeof(w->why));
	}
	case_buffers_free(&w->b);
	return NULL;
}

/* ---- the streams the child inherits ---------------------------------------------------------- */

/* A cipher stream (padding off) and a digest stream, cut at `cut`; what the whole gives. */
struct streams {
	const struct hwoff_alg *cipher_alg, *digest_alg;
	EVP_CIPHER_CTX *cipher;
	EVP_MD_CTX *digest;
	size_t len, cut; /* the cut is a whole number of blocks */
	unsigned char in[STREAM_MAX], out[STREAM_MAX], want[STREAM_MAX];
	unsigned char md[64], want_md[64];
	size_t done; /* ciphertext bytes out before the cut */
};

static bool cipher_row(const struct hwoff_alg *alg)
{
	return !hwoff_alg_is_digest(alg);
}

/* A plain digest's row (the fork cases of HMAC rows come from case_run()). */
static bool plain_digest_row(const struct hwoff_alg *alg)
{
	return hwoff_alg_is_digest(alg) && !hwoff_alg_is_hmac(alg);
}

/* Starts both streams up to the cut (by the main thread, before the fork). */
static const char *streams_start(struct streams *s, const struct prov_env *e, struct test_rng *rng)
{
	size_t crow, drow;
	unsigned char key[32], iv[16];
	unsigned int md_len;
	int n, fin;

	s->cipher_alg = prov_env_row(e, rng, cipher_row);
	s->digest_alg = prov_env_row(e, rng, plain_digest_row);
	crow = hwoff_alg_index(s->cipher_alg);
	drow = hwoff_alg_index(s->digest_alg);
	/* around the built-in cut-offs (200 B, 256 B) and the engine's threshold (4 KiB) */
	s->len = test_rng_range(rng, 1, STREAM_MAX / 16) * 16;
	s->cut = test_rng_range(rng, 0, s->len / 16) * 16;
	test_rng_fill(rng, s->in, s->len);
	test_rng_fill(rng, key, sizeof(key));
	test_rng_fill(rng, iv, sizeof(iv));

	s->cipher = EVP_CIPHER_CTX_new();
	if (!s->cipher || !EVP_EncryptInit_ex2(s->cipher, e->ref_cipher[crow], key, iv, NULL) ||
	    !EVP_CIPHER_CTX_set_padding(s->cipher, 0) ||
	    !EVP_EncryptUpdate(s->cipher, s->want, &n, s->in, (int)s->len) ||
	    !EVP_EncryptFinal_ex(s->cipher, s->want + n, &fin) ||
	    !EVP_Digest(s->in, s->len, s->want_md, &md_len, e->ref_md[drow], NULL))
		return "the default provider failed";
	if (!EVP_EncryptInit_ex2(s->cipher, e->hw_cipher[crow], key, iv, NULL) ||
	    !EVP_CIPHER_CTX_set_padding(s->cipher, 0) ||
	    !EVP_EncryptUpdate(s->cipher, s->out, &n, s->in, (int)s->cut))
		return "the cipher stream before the fork failed";
	s->done = (size_t)n;
	s->digest = EVP_MD_CTX_new();
	if (!s->digest || !EVP_DigestInit_ex2(s->digest, e->hw_md[drow], NULL) ||
	    !EVP_DigestUpdate(s->digest, s->in, s->cut))
		return "the digest stream before the fork failed";
	return NULL;
}

/* Finishes both streams (in the child, or in the parent after it) and checks them. */
static const char *streams_finish(struct streams *s)
{
	unsigned int md_len;
	int n, fin;

	if (!EVP_EncryptUpdate(s->cipher, s->out + s->done, &n, s->in + s->cut,
			       (int)(s->len - s->cut)) ||
	    !EVP_EncryptFinal_ex(s->cipher, s->out + s->done + n, &fin))
		return "continuing the cipher stream failed";
	if (s->done + (size_t)n + (size_t)fin != s->len || memcmp(s->out, s->want, s->len))
		return "the cipher stream's output differs from the default provider's";
	if (!EVP_DigestUpdate(s->digest, s->in + s->cut, s->len - s->cut) ||
	    !EVP_DigestFinal_ex(s->digest, s->md, &md_len))
		return "continuing the digest stream failed";
	if (memcmp(s->md, s->want_md, s->digest_alg->digest_bytes))
		return "the digest stream's result differs from the default provider's";
	return NULL;
}

static void streams_free(struct streams *s)
{
	EVP_CIPHER_CTX_free(s->cipher);
	EVP_MD_CTX_free(s->digest);
	s->cipher = NULL;
	s->digest = NULL;
}

/* ---- the child ------------------------------------------------------------------------------- */

#define CHILD_NEW_CASES 2

/* Writes what went wrong to fd; exit() (as applications end) or _exit() by the round. */
static void child(const struct prov_env *e, struct streams *s, struct case_buffers *b,
		  struct test_rng *rng, int fd, bool use_exit)
{
	const struct case_sizes sizes = { .small_percent = 60, .medium_percent = 40 };
	char why[CASE_WHY_MAX + 128];
	const char *failed = streams_finish(s);
	struct case_tally tally = { 0 };
	int status = 0;

	if (failed) {
		char text[CASE_WHY_MAX];

		prov_error_text(text, sizeof(text));
		snprintf(why, sizeof(why),
			 "inherited streams %s and %s, %zu bytes cut at %zu: %s: %s",
			 s->cipher_alg->name, s->digest_alg->name, s->len, s->cut, failed, text);
		status = 1;
	}
	for (int i = 0; !status && i < CHILD_NEW_CASES; i++)
		if (case_run(e, rng, &sizes, b, &tally, why, sizeof(why)) != CASE_RIGHT)
			status = 1;
	if (status && write(fd, why, strlen(why)) < 0)
		status = 2;
	if (use_exit)
		exit(status);
	_exit(status);
}

/* ---- the parent's watch ---------------------------------------------------------------------- */

static void print_file(pid_t pid, const char *task, const char *name)
{
	char path[128], line[512];
	FILE *f;

	snprintf(path, sizeof(path), "/proc/%d/task/%s/%s", (int)pid, task, name);
	f = fopen(path, "r");
	if (!f)
		return;
	fprintf(stderr, "  %s %s:\n", task, name);
	while (fgets(line, sizeof(line), f))
		fprintf(stderr, "    %s%s", line, strchr(line, '\n') ? "" : "\n");
	fclose(f);
}

/* Where a hung child is: every thread's state in the kernel, then gdb's view of user space. */
static void report_hang(pid_t pid)
{
	char path[64], command[256];
	struct dirent *d;
	DIR *dir;

	fprintf(stderr, "child %d still running after %d s; its threads:\n", (int)pid,
		CHILD_TIMEOUT_S);
	snprintf(path, sizeof(path), "/proc/%d/task", (int)pid);
	dir = opendir(path);
	while (dir && (d = readdir(dir))) {
		if (d->d_name[0] == '.')
			continue;
		print_file(pid, d->d_name, "stat");
		print_file(pid, d->d_name, "wchan");
		print_file(pid, d->d_name, "syscall");
		print_file(pid, d->d_name, "stack");
	}
	if (dir)
		closedir(dir);
	snprintf(command, sizeof(command),
		 "command -v gdb >/dev/null && gdb -p %d -batch -nx -ex 'thread apply all bt' "
		 "</dev/null >&2 2>&1",
		 (int)pid);
	if (system(command))
		fprintf(stderr, "  (no gdb backtrace)\n");
}

/* The child's exit status, or -1 after a hang (reported and killed). */
static int wait_child(pid_t pid)
{
	int pidfd = (int)syscall(SYS_pidfd_open, pid, 0), status = 0;
	struct pollfd p = { .fd = pidfd, .events = POLLIN };
	int ready;

	ck_assert_msg(pidfd >= 0, "pidfd_open: %s", strerror(errno));
	do
		ready = poll(&p, 1, CHILD_TIMEOUT_S * 1000);
	while (ready < 0 && errno == EINTR);
	close(pidfd);
	if (ready == 0) {
		report_hang(pid);
		kill(pid, SIGKILL);
	}
	ck_assert_int_eq(waitpid(pid, &status, 0), pid);
	if (ready == 0)
		return -1;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

static double now_s(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return (double)t.tv_sec + t.tv_nsec / 1e9;
}

struct fork_totals {
	double slowest; /* seconds from fork to the child's end */
	unsigned long long worker_cases;
};

/*
 * Rounds first .. first + count - 1 of a mode, on a provider loaded for them: the first forks
 * come while the workers' first requests look up the default provider's functions.
 */
static void fork_rounds(size_t mode, unsigned long first, unsigned long count,
			struct fork_totals *totals)
{
	struct worker w[WORKERS] = { 0 };
	atomic_bool stop = false;
	struct case_buffers b;
	struct prov_env e;
	static struct streams s;

	ck_assert(case_buffers_alloc(&b));
	prov_env_load(&e, modes[mode], "no");
	for (unsigned int t = 0; t < WORKERS; t++) {
		w[t] = (struct worker){
			.e = &e, .id = t, .mode = mode, .first_round = first, .stop = &stop
		};
		ck_assert(!pthread_create(&w[t].thread, NULL, work, &w[t]));
	}
	for (unsigned long r = first; r < first + count && !atomic_load(&stop); r++) {
		char why[CASE_WHY_MAX + 128] = "";
		struct test_rng rng;
		const char *failed;
		double forked;
		int fds[2], status;
		pid_t pid;
		ssize_t n;

		test_rng_init(&rng, (uint64_t)(mode + 1) << 56 | 1ull << 55 | r);
		failed = streams_start(&s, &e, &rng);
		ck_assert_msg(!failed, "mode %s, round %lu, before the fork: %s", modes[mode], r,
			      failed);
		ck_assert(!pipe2(fds, O_CLOEXEC));
		forked = now_s();
		pid = fork();
		ck_assert_msg(pid >= 0, "fork: %s", strerror(errno));
		if (pid == 0) {
			close(fds[0]);
			child(&e, &s, &b, &rng, fds[1], r % 2);
		}
		close(fds[1]);
		status = wait_child(pid);
		if (now_s() - forked > totals->slowest)
			totals->slowest = now_s() - forked;
		n = read(fds[0], why, sizeof(why) - 1);
		why[n > 0 ? n : 0] = 0;
		close(fds[0]);
		ck_assert_msg(status != -1, "mode %s, round %lu: the child hung (state above)",
			      modes[mode], r);
		ck_assert_msg(status == 0, "mode %s, round %lu: the child exited with %d: %s",
			      modes[mode], r, status, why);
		failed = streams_finish(&s);
		ck_assert_msg(!failed, "mode %s, round %lu, the parent after the fork: %s",
			      modes[mode], r, failed);
		streams_free(&s);
		for (unsigned int t = 0; t < WORKERS; t++)
			if (w[t].result != CASE_RIGHT)
				atomic_store(&stop, true);
	}
	atomic_store(&stop, true);
	for (unsigned int t = 0; t < WORKERS; t++) {
		pthread_join(w[t].thread, NULL);
		ck_assert_msg(w[t].result == CASE_RIGHT, "mode %s, worker %u: %s", modes[mode], t,
			      w[t].why);
		totals->worker_cases += w[t].tally.cases;
	}
	prov_env_unload(&e);
	case_buffers_free(&b);
}

/* _i: the mode. */
START_TEST(fork_while_threads_run)
{
	unsigned long rounds = test_count("HWOFFLOAD_FORK_ROUNDS", 1000, 20000);
	struct fork_totals totals = { 0 };
	double start = now_s();

	for (unsigned long r = 0; r < rounds; r += ROUNDS_PER_LOAD)
		fork_rounds((size_t)_i, r,
			    rounds - r < ROUNDS_PER_LOAD ? rounds - r : ROUNDS_PER_LOAD, &totals);
	printf("mode %s: %lu forks (provider loaded anew every %d) in %.1f s, slowest child "
	       "%.0f ms, while %d threads ran %llu cases\n",
	       modes[_i], rounds, ROUNDS_PER_LOAD, now_s() - start, totals.slowest * 1000, WORKERS,
	       totals.worker_cases);
	fflush(stdout);
}
END_TEST

/* ---- a fork beside a request ------------------------------------------------------------------
 */

#define BESIDE_REQUESTS 1000
#define BESIDE_PAGE	4096
#define BESIDE_LEN	(2 * BESIDE_PAGE + 2048) /* ends mid-page: the neighbour shares it */

struct beside {
	volatile unsigned char *neighbour; /* on the output's last page, past its end */
	atomic_bool done;
	unsigned long forks;
};

static void *write_beside(void *arg)
{
	struct beside *b = arg;

	while (!atomic_load(&b->done)) {
		(*b->neighbour)++;
		sched_yield();
	}
	return NULL;
}

static void *fork_beside(void *arg)
{
	struct beside *b = arg;

	while (!atomic_load(&b->done)) {
		pid_t pid = fork();

		if (pid == 0)
			_exit(0);
		ck_assert_msg(pid > 0, "fork: %s", strerror(errno));
		ck_assert_int_eq(waitpid(pid, NULL, 0), pid);
		b->forks++;
	}
	return NULL;
}

/* _i: the kernel path (modes pio and dma). */
START_TEST(fork_beside_a_request)
{
	const char *mode = modes[1 + _i];
	const struct hwoff_alg *alg = hwoff_alg_by_name("AES-128-ECB");
	size_t row = hwoff_alg_index(alg);
	static unsigned char in[BESIDE_LEN], want[BESIDE_LEN];
	unsigned char key[16];
	unsigned long wrong = 0;
	size_t first_wrong = 0;
	struct beside b = { 0 };
	pthread_t writer, forker;
	EVP_CIPHER_CTX *ctx;
	struct prov_env e;
	struct test_rng rng;
	unsigned char *out;
	int n;

	test_rng_init(&rng, test_seed() ^ (uint64_t)_i);
	test_rng_fill(&rng, in, sizeof(in));
	test_rng_fill(&rng, key, sizeof(key));
	out = mmap(NULL, 3 * BESIDE_PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1,
		   0);
	ck_assert(out != MAP_FAILED);
	b.neighbour = out + BESIDE_LEN + 100;
	prov_env_load(&e, mode, "no");
	ctx = EVP_CIPHER_CTX_new();
	ck_assert(ctx);
	ck_assert(EVP_EncryptInit_ex2(ctx, e.ref_cipher[row], key, NULL, NULL));
	ck_assert(EVP_CIPHER_CTX_set_padding(ctx, 0));
	ck_assert(EVP_EncryptUpdate(ctx, want, &n, in, BESIDE_LEN) && n == BESIDE_LEN);
	ck_assert(!pthread_create(&writer, NULL, write_beside, &b));
	ck_assert(!pthread_create(&forker, NULL, fork_beside, &b));
	for (int i = 0; i < BESIDE_REQUESTS; i++) {
		memset(out, 0, BESIDE_LEN);
		ck_assert(EVP_EncryptInit_ex2(ctx, e.hw_cipher[row], key, NULL, NULL));
		ck_assert(EVP_CIPHER_CTX_set_padding(ctx, 0));
		ck_assert_msg(EVP_EncryptUpdate(ctx, out, &n, in, BESIDE_LEN) && n == BESIDE_LEN,
			      "mode %s, request %d: the provider failed", mode, i);
		if (memcmp(out, want, BESIDE_LEN)) {
			for (first_wrong = 0; out[first_wrong] == want[first_wrong]; first_wrong++)
				;
			wrong++;
		}
	}
	atomic_store(&b.done, true);
	pthread_join(writer, NULL);
	pthread_join(forker, NULL);
	EVP_CIPHER_CTX_free(ctx);
	prov_env_unload(&e);
	munmap(out, 3 * BESIDE_PAGE);
	printf("mode %s: %d requests of %d bytes while %lu forks ran beside them and a thread "
	       "wrote on the output's last page: %lu wrong\n",
	       mode, BESIDE_REQUESTS, BESIDE_LEN, b.forks, wrong);
	fflush(stdout);
	ck_assert_msg(!wrong,
		      "mode %s: %lu of %d outputs differ from the default provider's, the "
		      "last from byte %zu",
		      mode, wrong, BESIDE_REQUESTS, first_wrong);
}
END_TEST

/* ---- a child that reuses the inherited descriptor numbers ------------------------------------ */

#define REUSE_FDS	  64 /* the numbers 3 .. REUSE_FDS - 1 */
#define REUSE_LEN	  1000
#define REUSE_STARTED_LEN (70 << 10) /* past the 64 KiB the provider gathers: in the kernel */

/* What the child inherits: a cipher stream, a digest in the kernel, a spare digest context. */
struct reuse {
	const struct prov_env *e;
	size_t cbc, sha; /* rows: AES-128-CBC, SHA2-256 */
	unsigned char key[16], iv[16], in[2 * REUSE_STARTED_LEN], want[64];
	unsigned char want_md[32]; /* of the first REUSE_LEN bytes */
	unsigned char want_started_md[32]; /* of all of in */
	EVP_CIPHER_CTX *cipher; /* 32 bytes in, of 64 */
	EVP_MD_CTX *started; /* REUSE_STARTED_LEN bytes in */
};

/* An operation socket of another algorithm, the kernel's SHA-1: what a stale number reaches. */
static int foreign_socket(void)
{
	struct sockaddr_alg sa = { .salg_family = AF_ALG,
				   .salg_type = "hash",
				   .salg_name = "sha1" };
	int tfm = socket(AF_ALG, SOCK_SEQPACKET, 0), op = -1;

	if (tfm >= 0 && !bind(tfm, (struct sockaddr *)&sa, sizeof(sa)))
		op = accept(tfm, NULL, 0);
	if (tfm >= 0)
		close(tfm);
	return op;
}

static ino_t inode_of(int fd)
{
	struct stat st;

	return fstat(fd, &st) ? 0 : st.st_ino;
}

static const char *digest_right(const struct reuse *r, const unsigned char *md)
{
	return memcmp(md, r->want_md, sizeof(r->want_md)) ? "a SHA2-256 digest differs" : NULL;
}

/* The child's checks; keep is its pipe. NULL when all is right. */
static const char *reuse_checks(struct reuse *r, int keep, bool fill)
{
	const size_t half = REUSE_LEN / 2;
	const struct prov_env *e = r->e;
	unsigned char out[64], md[32], md_copy[32];
	EVP_MD_CTX *ctx, *copy;
	ino_t foreign_ino = 0;
	unsigned int n32;
	int foreign = -1, n;
	const char *bad;

	for (int fd = 3; fd < REUSE_FDS; fd++)
		if (fd != keep)
			close(fd);
	if (fill) {
		foreign = foreign_socket();
		if (foreign < 0)
			return "an AF_ALG socket of the kernel's SHA-1 could not be made";
		foreign_ino = inode_of(foreign);
		for (int fd = 3; fd < REUSE_FDS; fd++)
			if (fd != keep && fd != foreign && dup2(foreign, fd) != fd)
				return "dup2 failed";
	}
	/* The spare digest context, copied before its first byte, as provider_fork once failed. */
	ctx = EVP_MD_CTX_new();
	copy = EVP_MD_CTX_new();
	if (!ctx || !copy || !EVP_DigestInit_ex2(ctx, e->hw_md[r->sha], NULL) ||
	    !EVP_MD_CTX_copy_ex(copy, ctx) || !EVP_DigestUpdate(ctx, r->in, half) ||
	    !EVP_DigestUpdate(copy, r->in, half) ||
	    !EVP_DigestUpdate(ctx, r->in + half, REUSE_LEN - half) ||
	    !EVP_DigestUpdate(copy, r->in + half, REUSE_LEN - half) ||
	    !EVP_DigestFinal_ex(ctx, md, &n32) || !EVP_DigestFinal_ex(copy, md_copy, &n32))
		return "a digest on the spare context, or its copy, failed";
	EVP_MD_CTX_free(ctx);
	EVP_MD_CTX_free(copy);
	if ((bad = digest_right(r, md)) || (bad = digest_right(r, md_copy)))
		return bad;
	/* The inherited cipher stream: keyed again, the IV kept. */
	if (!EVP_EncryptUpdate(r->cipher, out, &n, r->in + 32, 32) || n != 32)
		return "continuing the inherited AES-128-CBC stream failed";
	if (memcmp(out, r->want + 32, 32))
		return "the inherited AES-128-CBC stream's output differs";
	/* The inherited digest whose state was in a socket the child closed: an error, nothing
	 * else. */
	if (EVP_DigestUpdate(r->started, r->in + REUSE_STARTED_LEN, REUSE_STARTED_LEN) &&
	    EVP_DigestFinal_ex(r->started, md, &n32) && memcmp(md, r->want_started_md, sizeof(md)))
		return "the inherited SHA2-256 digest gave a wrong result, not an error";
	ERR_clear_error();
	if (!EVP_Digest(r->in, REUSE_LEN, md, &n32, e->hw_md[r->sha], NULL))
		return "a new SHA2-256 digest failed";
	if ((bad = digest_right(r, md)))
		return bad;
	EVP_CIPHER_CTX_free(r->cipher);
	EVP_MD_CTX_free(r->started);
	for (int fd = 3; fill && fd < REUSE_FDS; fd++)
		if (fd != keep && inode_of(fd) != foreign_ino)
			return "a descriptor the child put at an inherited number was closed or "
			       "replaced";
	return NULL;
}

/* _i: the kernel path (modes pio, dma, auto). */
START_TEST(child_reuses_descriptors)
{
	const char *mode = modes[1 + _i];
	const struct hwoff_alg *cbc = hwoff_alg_by_name("AES-128-CBC"),
			       *sha = hwoff_alg_by_name("SHA2-256");
	static struct reuse r;
	struct test_rng rng;
	struct prov_env e;
	unsigned int n32;
	int n;

	test_rng_init(&rng, test_seed() ^ 0x5eu ^ (uint64_t)_i);
	test_rng_fill(&rng, r.in, sizeof(r.in));
	test_rng_fill(&rng, r.key, sizeof(r.key));
	test_rng_fill(&rng, r.iv, sizeof(r.iv));
	prov_env_load(&e, mode, "no");
	r.e = &e;
	r.cbc = hwoff_alg_index(cbc);
	r.sha = hwoff_alg_index(sha);
	ck_assert(EVP_Digest(r.in, REUSE_LEN, r.want_md, &n32, e.ref_md[r.sha], NULL));
	ck_assert(EVP_Digest(r.in, sizeof(r.in), r.want_started_md, &n32, e.ref_md[r.sha], NULL));
	for (int fill = 0; fill <= 1; fill++) {
		char why[256] = "";
		int fds[2], status;
		unsigned char md[32];
		EVP_CIPHER_CTX *ref = EVP_CIPHER_CTX_new();
		EVP_MD_CTX *spare = EVP_MD_CTX_new();
		pid_t pid;
		ssize_t got;

		ck_assert(ref && EVP_EncryptInit_ex2(ref, e.ref_cipher[r.cbc], r.key, r.iv, NULL));
		ck_assert(EVP_CIPHER_CTX_set_padding(ref, 0));
		ck_assert(EVP_EncryptUpdate(ref, r.want, &n, r.in, 64) && n == 64);
		EVP_CIPHER_CTX_free(ref);
		/* a digest on the kernel path, freed: its context is the row's spare */
		ck_assert(spare && EVP_DigestInit_ex2(spare, e.hw_md[r.sha], NULL));
		ck_assert(EVP_DigestUpdate(spare, r.in, REUSE_LEN));
		ck_assert(EVP_DigestFinal_ex(spare, md, &n32) && !memcmp(md, r.want_md, 32));
		EVP_MD_CTX_free(spare);
		r.cipher = EVP_CIPHER_CTX_new();
		ck_assert(r.cipher &&
			  EVP_EncryptInit_ex2(r.cipher, e.hw_cipher[r.cbc], r.key, r.iv, NULL));
		ck_assert(EVP_CIPHER_CTX_set_padding(r.cipher, 0));
		ck_assert(EVP_EncryptUpdate(r.cipher, md, &n, r.in, 32) && n == 32);
		r.started = EVP_MD_CTX_new();
		ck_assert(r.started && EVP_DigestInit_ex2(r.started, e.hw_md[r.sha], NULL));
		ck_assert(EVP_DigestUpdate(r.started, r.in, REUSE_STARTED_LEN));
		ck_assert(!pipe2(fds, O_CLOEXEC));
		pid = fork();
		ck_assert(pid >= 0);
		if (pid == 0) {
			const char *bad;

			close(fds[0]);
			bad = reuse_checks(&r, fds[1], fill);
			if (bad && write(fds[1], bad, strlen(bad)) < 0)
				_exit(2);
			_exit(bad ? 1 : 0);
		}
		close(fds[1]);
		status = wait_child(pid);
		got = read(fds[0], why, sizeof(why) - 1);
		why[got > 0 ? got : 0] = 0;
		close(fds[0]);
		ck_assert_msg(status == 0, "mode %s, the child %s its descriptors: exit %d: %s",
			      mode, fill ? "reused" : "closed", status, why);
		/* The parent's own contexts go on as if nothing happened. */
		ck_assert(EVP_EncryptUpdate(r.cipher, md, &n, r.in + 32, 32) && n == 32);
		ck_assert_msg(!memcmp(md, r.want + 32, 32), "mode %s: the parent's stream differs",
			      mode);
		ck_assert(EVP_DigestUpdate(r.started, r.in + REUSE_STARTED_LEN, REUSE_STARTED_LEN));
		ck_assert(EVP_DigestFinal_ex(r.started, md, &n32));
		ck_assert_msg(!memcmp(md, r.want_started_md, 32),
			      "mode %s: the parent's digest "
			      "differs",
			      mode);
		EVP_CIPHER_CTX_free(r.cipher);
		EVP_MD_CTX_free(r.started);
		printf("mode %s: a child that %s the inherited descriptor numbers: right\n", mode,
		       fill ? "put another AF_ALG socket at" : "closed");
	}
	prov_env_unload(&e);
}
END_TEST

int main(void)
{
	const struct engine_test tests[] = {
		{ fork_while_threads_run, (int)MODES },
		{ fork_beside_a_request, 2 },
		{ child_reuses_descriptors, 3 },
	};

	return engine_suite_run("provider fork (guest)", tests, sizeof(tests) / sizeof(tests[0]));
}
