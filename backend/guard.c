// SPDX-License-Identifier: Apache-2.0
/*
 * guard.c - AF_ALG calls on another vendor's engine, made by a guard process under a time limit
 * (guard.h says why): the drivers guarded, and the caller's side of each call (the guard's is
 * guard_process.c; what they say to each other, guard_process.h). The guard keeps no socket
 * between calls, so a descriptor's life is the caller's alone.
 */
#define _GNU_SOURCE /* explicit_bzero */
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "backend/discover.h" /* HWOFF_NAME_MAX */
#include "backend/guard.h"
#include "backend/guard_process.h"

#define GUARDS_MAX 32 /* drivers guarded in one process: a path table has at most 31 */

static const char *const op_names[] = {
	[HWOFF_GUARD_OP_BIND] = "bind",	    [HWOFF_GUARD_OP_SETSOCKOPT] = "setsockopt",
	[HWOFF_GUARD_OP_ACCEPT] = "accept", [HWOFF_GUARD_OP_SENDMSG] = "sendmsg",
	[HWOFF_GUARD_OP_READ] = "recvmsg",  [HWOFF_GUARD_OP_CLOSE] = "close",
};

struct hwoff_guard {
	char driver[HWOFF_NAME_MAX];
	unsigned int limit_ms;
	pthread_mutex_t lock; /* one call at a time */
	pid_t owner; /* the process the guard below serves; 0: none made yet */
	pid_t pid; /* the guard */
	pid_t reap; /* a guard retired before it ended, to reap once it has */
	int cmd; /* the caller's end of the command socket */
	unsigned char *window; /* HWOFF_GUARD_WINDOW bytes shared with the guard */
	atomic_bool stuck;
	char stuck_reason[384];
};

static struct hwoff_guard guards[GUARDS_MAX];
static atomic_uint guard_count;
static pthread_mutex_t registry = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t fork_handler_once = PTHREAD_ONCE_INIT;

/*
 * A fork's child starts with no guard: the parent's serves the parent. Only locks are made anew
 * here (none is taken), as a thread of the parent may have held one at the fork.
 */
static void forget_in_child(void)
{
	unsigned int count = atomic_load(&guard_count);

	pthread_mutex_init(&registry, NULL);
	for (unsigned int i = 0; i < count; i++) {
		struct hwoff_guard *g = &guards[i];

		pthread_mutex_init(&g->lock, NULL);
		if (g->cmd >= 0)
			close(g->cmd);
		if (g->window)
			munmap(g->window, HWOFF_GUARD_WINDOW);
		g->cmd = -1;
		g->window = NULL;
		g->owner = g->pid = g->reap = 0;
		atomic_store(&g->stuck, false);
	}
}

static void install_fork_handler(void)
{
	pthread_atfork(NULL, NULL, forget_in_child);
}

int hwoff_guard_driver(const char *driver, unsigned int limit_ms)
{
	int ret = 0;

	pthread_once(&fork_handler_once, install_fork_handler);
	pthread_mutex_lock(&registry);
	if (!hwoff_guard_of(driver)) {
		unsigned int n = atomic_load(&guard_count);
		struct hwoff_guard *g = &guards[n];

		if (n == GUARDS_MAX) {
			ret = -ENOSPC;
		} else {
			snprintf(g->driver, sizeof(g->driver), "%s", driver);
			g->limit_ms = limit_ms ? limit_ms : HWOFF_GUARD_LIMIT_MS;
			pthread_mutex_init(&g->lock, NULL);
			g->cmd = -1;
			atomic_store(&guard_count, n + 1); /* publishes the entry to lookups */
		}
	}
	pthread_mutex_unlock(&registry);
	return ret;
}

struct hwoff_guard *hwoff_guard_of(const char *driver)
{
	unsigned int count = atomic_load(&guard_count);

	for (unsigned int i = 0; i < count; i++)
		if (strcmp(guards[i].driver, driver) == 0)
			return &guards[i];
	return NULL;
}

const char *hwoff_guard_stuck(const char *driver)
{
	struct hwoff_guard *g = hwoff_guard_of(driver);

	return g && atomic_load(&g->stuck) ? g->stuck_reason : NULL;
}

/* ---- the caller's side ----------------------------------------------------------------------- */

static int spawn(struct hwoff_guard *g, char *why, size_t why_len)
{
	unsigned char *window;
	sigset_t all, old;
	int sock[2], error;
	long pid;

	window = mmap(NULL, HWOFF_GUARD_WINDOW, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS,
		      -1, 0);
	if (window == MAP_FAILED) {
		error = errno;
		snprintf(why, why_len, "no window for %s's guard: %s", g->driver, strerror(error));
		return -error;
	}
	if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, sock)) {
		error = errno;
		munmap(window, HWOFF_GUARD_WINDOW);
		snprintf(why, why_len, "no socket pair for %s's guard: %s", g->driver,
			 strerror(error));
		return -error;
	}
	/*
	 * fork() without its handlers or SIGCHLD: the application's own children are its own. Every
	 * signal blocked in the guard (no handler of the application's runs there) and a process
	 * group of its own (the terminal's ^C and ^Z do not reach it); SIGKILL still ends it.
	 */
	sigfillset(&all);
	pthread_sigmask(SIG_SETMASK, &all, &old);
	pid = syscall(SYS_clone, 0ul, NULL, NULL, NULL, NULL);
	if (pid == 0) {
		setpgid(0, 0);
		close(sock[0]);
		hwoff_guard_serve(sock[1], window);
	}
	error = errno;
	pthread_sigmask(SIG_SETMASK, &old, NULL);
	close(sock[1]);
	if (pid < 0) {
		close(sock[0]);
		munmap(window, HWOFF_GUARD_WINDOW);
		snprintf(why, why_len, "no guard process for %s: clone: %s", g->driver,
			 strerror(error));
		return -error;
	}
	g->owner = getpid();
	g->pid = (pid_t)pid;
	g->cmd = sock[0];
	g->window = window;
	return 0;
}

/* Reap g's retired guard if it has ended (a stuck one may never). */
static void reap(struct hwoff_guard *g)
{
	if (g->reap && waitpid(g->reap, NULL, __WCLONE | WNOHANG) != 0)
		g->reap = 0;
}

/*
 * Close the guard: killed (a stuck one is left to the kernel, asleep with the sockets it kept),
 * and reaped now or, once it has ended, at a later call.
 */
static void retire(struct hwoff_guard *g)
{
	kill(g->pid, SIGKILL);
	close(g->cmd);
	munmap(g->window, HWOFF_GUARD_WINDOW);
	reap(g);
	g->reap = g->pid;
	reap(g);
	g->cmd = -1;
	g->window = NULL;
	g->owner = g->pid = 0;
}

static long ms_since(const struct timespec *start)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	return (now.tv_sec - start->tv_sec) * 1000 + (now.tv_nsec - start->tv_nsec) / 1000000;
}

/* Wait for the answer within the limit: 1 when it came (or the guard ended), 0 when not, -1. */
static int answer_in_time(struct hwoff_guard *g)
{
	struct pollfd p = { .fd = g->cmd, .events = POLLIN };
	struct timespec start;
	long left;
	int n;

	clock_gettime(CLOCK_MONOTONIC, &start);
	do {
		left = (long)g->limit_ms - ms_since(&start);
		n = poll(&p, 1, left > 0 ? (int)left : 0);
	} while (n < 0 && errno == EINTR);
	return n;
}

static int stuck_error(struct hwoff_guard *g, char *why, size_t why_len)
{
	snprintf(why, why_len, "%s", g->stuck_reason);
	return -ETIMEDOUT;
}

/* Take g for one call within the limit, with a guard of this process running. */
static int take(struct hwoff_guard *g, char *why, size_t why_len)
{
	struct timespec until;
	int ret;

	if (atomic_load(&g->stuck))
		return stuck_error(g, why, why_len);
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += g->limit_ms / 1000;
	until.tv_nsec += (long)(g->limit_ms % 1000) * 1000000;
	if (until.tv_nsec >= 1000000000) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000;
	}
	ret = pthread_mutex_clocklock(&g->lock, CLOCK_MONOTONIC, &until);
	if (ret) {
		if (atomic_load(&g->stuck))
			return stuck_error(g, why, why_len);
		snprintf(why, why_len,
			 "%s's guard was busy with another call for %u ms, the limit of one call",
			 g->driver, g->limit_ms);
		return -ETIMEDOUT;
	}
	reap(g);
	if (atomic_load(&g->stuck)) {
		pthread_mutex_unlock(&g->lock);
		return stuck_error(g, why, why_len);
	}
	if (g->owner != getpid()) {
		ret = spawn(g, why, why_len);
		if (ret)
			pthread_mutex_unlock(&g->lock);
	}
	return ret;
}

/* What a call carries in the window: len bytes of iov from offset in, up to out_len bytes out. */
struct window_data {
	const struct iovec *iov;
	int iov_count;
	size_t offset;
	void *out;
	size_t out_len;
};

static void gather(unsigned char *to, const struct window_data *d, size_t len)
{
	size_t skip = d->offset;

	for (int i = 0; i < d->iov_count && len; i++) {
		size_t n = d->iov[i].iov_len;

		if (skip >= n) {
			skip -= n;
			continue;
		}
		n -= skip;
		n = n < len ? n : len;
		memcpy(to, (const unsigned char *)d->iov[i].iov_base + skip, n);
		to += n;
		len -= n;
		skip = 0;
	}
}

/*
 * One call: c's data (d) into the window, c and fd to the guard (fd handed over, closed here once
 * sent, when give), its answer back within the limit (a descriptor it made in *made, when made
 * is not NULL), what it read out of the window, which is wiped after. Returns c->result (for a
 * read, the bytes copied to d->out), or -errno with why.
 */
static long call(struct hwoff_guard *g, struct hwoff_guard_call *c, int fd, bool give,
		 const struct window_data *d, int *made, char *why, size_t why_len)
{
	size_t used = c->op == HWOFF_GUARD_OP_READ ? 0 : c->len;
	enum { GUARD_ANSWERED, GUARD_STUCK, GUARD_ENDED } outcome;
	int answer_fd = -1, cancel, sent;
	long ret;

	/* a thread cancelled in poll() or recvmsg() would leave the guard taken for good */
	pthread_setcancelstate(PTHREAD_CANCEL_DISABLE, &cancel);
	ret = take(g, why, why_len);
	if (ret) {
		if (give)
			close(fd); /* a stuck guard holds the last reference */
		pthread_setcancelstate(cancel, NULL);
		return ret;
	}
	if (d && d->iov)
		gather(g->window, d, c->len);
	sent = hwoff_guard_transmit(g->cmd, c, fd) < 0 ? -1 : 0;
	if (give)
		close(fd); /* not the last reference: one is in flight to the guard */
	outcome = sent < 0 ? GUARD_ENDED : GUARD_ANSWERED;
	if (outcome == GUARD_ANSWERED) {
		int n = answer_in_time(g);

		outcome = n == 0 ? GUARD_STUCK
			  : n < 0 || hwoff_guard_receive(g->cmd, c, &answer_fd) != sizeof(*c)
				  ? GUARD_ENDED
				  : GUARD_ANSWERED;
	}
	if (outcome != GUARD_ANSWERED) {
		explicit_bzero(g->window, used);
		if (outcome == GUARD_STUCK) {
			snprintf(g->stuck_reason, sizeof(g->stuck_reason),
				 "%s gave no answer within %u ms to %s (%zu bytes) in its guard "
				 "process %d: another vendor's engine, stuck in the kernel; it "
				 "serves nothing more in this process",
				 g->driver, g->limit_ms, op_names[c->op], c->len, (int)g->pid);
			atomic_store(&g->stuck, true);
			ret = stuck_error(g, why, why_len);
		} else {
			/* a new guard for the next call */
			snprintf(why, why_len, "%s's guard process %d ended", g->driver,
				 (int)g->pid);
			ret = -EPIPE;
		}
		retire(g);
		pthread_mutex_unlock(&g->lock);
		pthread_setcancelstate(cancel, NULL);
		return ret;
	}
	if (c->op == HWOFF_GUARD_OP_READ && c->result > 0) {
		used = (size_t)c->result < d->out_len ? (size_t)c->result : d->out_len;
		memcpy(d->out, g->window, used);
		c->result = (long)used;
	}
	explicit_bzero(g->window,
		       c->op == HWOFF_GUARD_OP_READ && c->result > 0 ? (size_t)c->result : used);
	pthread_mutex_unlock(&g->lock);
	pthread_setcancelstate(cancel, NULL);
	if (made && c->result >= 0 && answer_fd < 0)
		c->result = -EMFILE; /* made, but no room here for it */
	if (made)
		*made = answer_fd;
	else if (answer_fd >= 0)
		close(answer_fd);
	why[0] = '\0';
	return c->result;
}

int hwoff_guard_bind(struct hwoff_guard *g, const struct sockaddr_alg *sa, char *why,
		     size_t why_len)
{
	struct hwoff_guard_call c = { .op = HWOFF_GUARD_OP_BIND, .u.sa = *sa };
	int fd = -1;
	long ret = call(g, &c, -1, false, NULL, &fd, why, why_len);

	if (ret < 0 && fd >= 0)
		close(fd);
	return ret < 0 ? (int)ret : fd;
}

int hwoff_guard_setsockopt(struct hwoff_guard *g, int fd, int optname, const void *value,
			   socklen_t len, char *why, size_t why_len)
{
	struct iovec iov = { .iov_base = (void *)value, .iov_len = len };
	struct window_data d = { .iov = value ? &iov : NULL, .iov_count = 1 };
	struct hwoff_guard_call c = {
		.op = HWOFF_GUARD_OP_SETSOCKOPT, .arg = optname, .len = len, .no_value = !value
	};

	if (value && len > HWOFF_GUARD_WINDOW)
		return -EMSGSIZE;
	return (int)call(g, &c, fd, false, &d, NULL, why, why_len);
}

int hwoff_guard_accept(struct hwoff_guard *g, int fd, char *why, size_t why_len)
{
	struct hwoff_guard_call c = { .op = HWOFF_GUARD_OP_ACCEPT };
	int made = -1;
	long ret = call(g, &c, fd, false, NULL, &made, why, why_len);

	if (ret < 0 && made >= 0)
		close(made);
	return ret < 0 ? (int)ret : made;
}

ssize_t hwoff_guard_sendmsg(struct hwoff_guard *g, int fd, const struct msghdr *msg, int flags,
			    char *why, size_t why_len)
{
	struct window_data d = { .iov = msg->msg_iov, .iov_count = (int)msg->msg_iovlen };
	size_t total = 0, sent = 0;

	if (msg->msg_controllen > HWOFF_GUARD_CONTROL_MAX)
		return -EMSGSIZE;
	for (size_t i = 0; i < msg->msg_iovlen; i++)
		total += msg->msg_iov[i].iov_len;
	/* the control messages go with the first piece, as one sendmsg() would give them */
	do {
		struct hwoff_guard_call c = { .op = HWOFF_GUARD_OP_SENDMSG };
		size_t piece =
			total - sent < HWOFF_GUARD_WINDOW ? total - sent : HWOFF_GUARD_WINDOW;
		long ret;

		c.len = piece;
		c.arg = sent + piece < total ? flags | MSG_MORE : flags;
		if (!sent && msg->msg_controllen) {
			memcpy(c.u.control, msg->msg_control, msg->msg_controllen);
			c.control_len = msg->msg_controllen;
		}
		d.offset = sent;
		ret = call(g, &c, fd, false, &d, NULL, why, why_len);
		explicit_bzero(c.u.control, sizeof(c.u.control)); /* an IV */
		if (ret < 0)
			return ret; /* what was sent before is lost with the request */
		sent += (size_t)ret;
		if ((size_t)ret < piece)
			break;
	} while (sent < total);
	return (ssize_t)sent;
}

ssize_t hwoff_guard_read(struct hwoff_guard *g, int fd, void *buf, size_t len, char *why,
			 size_t why_len)
{
	struct window_data d = { .out = buf, .out_len = len };
	struct hwoff_guard_call c = { .op = HWOFF_GUARD_OP_READ };

	c.len = len < HWOFF_GUARD_WINDOW ? len : HWOFF_GUARD_WINDOW;
	return call(g, &c, fd, false, &d, NULL, why, why_len);
}

void hwoff_guard_close(struct hwoff_guard *g, int fd)
{
	struct hwoff_guard_call c = { .op = HWOFF_GUARD_OP_CLOSE };
	char why[HWOFF_GUARD_WHY_MAX];

	if (fd < 0)
		return;
	/* a socket this process's guard did not make (inherited at a fork) has its last
	 * reference elsewhere */
	if (g->owner != getpid())
		close(fd);
	else
		call(g, &c, fd, true, NULL, NULL, why, sizeof(why));
}
