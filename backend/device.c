// SPDX-License-Identifier: Apache-2.0
/*
 * device.c - requests to the bundled engine through its own device, /dev/hwoffloadN
 * (kernel/DEVICE.md, kernel/hwoffload_uapi.h): the session under every context
 * (device_session.h; the ciphers in device_skcipher.c, the hashes in device_hash.c), the
 * transport, and the discovery of the device's paths.
 *
 * Where AF_ALG is closed (Linux 7.2 refuses off-CPU drivers; containers block the socket) the
 * device still reaches the engine, and where both work it costs less: the kernel maps the
 * caller's pages for DMA instead of copying them into a socket, and one call puts several
 * requests on the ring, which the engine chains. A path of the device is named
 * "dev.NODE.DRIVER", DRIVER being the AF_ALG driver of the same path ("dev.hwoffload0.cbc-aes-
 * hwoffload-dma", "dev.hwoffload0.sha256-hwoffload-pio"), so that a table says which transport
 * it means and the class of a path (discover.h) reads the same from both.
 *
 * An operation is cut into requests of HWOFF_DEVICE_PIECE bytes (PIO: of its FIFO) sent in one
 * batch and waited for together: while the kernel pins and maps one, the engine runs the one
 * before. Buffers the engine cannot take where they are go through an aligned area of the
 * context's, copied.
 *
 * After fork() the child's calls on the parent's session fail (EPERM): the child opens its own
 * session, closing its copy of the parent's descriptor only while the number is still a session
 * of another process (transport.h, "fork()": /proc/self/fd names it, and the driver refuses it
 * with EPERM; every anon fd shares one inode, so the inode says nothing). What the child's
 * session starts from is the context's: a cipher's IV, a hash's state as its last UPDATE
 * handed it out.
 *
 * A batch pins its pages while it runs: its requests are as many as the process's
 * RLIMIT_MEMLOCK and the driver's per-session ceiling allow, halved for the process's other
 * contexts; one refused for the pinning or the in-flight limit after others were taken is sent
 * again once those are done.
 */
#define _GNU_SOURCE /* explicit_bzero */
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "backend/device.h"
#include "backend/device_session.h"
#include "backend/text.h"

/* The device's algorithm of a row: AES ECB, CBC, CTR and the plain hashes; 0 for the others. */
static uint32_t hwo_alg_of(const struct hwoff_alg *alg)
{
	static const struct {
		const char *kernel_name;
		uint32_t hwo_alg;
	} hashes[] = {
		{ "md5", HWO_ALG_MD5 },	      { "sha1", HWO_ALG_SHA1 },
		{ "sha224", HWO_ALG_SHA224 }, { "sha256", HWO_ALG_SHA256 },
		{ "sha384", HWO_ALG_SHA384 }, { "sha512", HWO_ALG_SHA512 },
	};

	if (hwoff_alg_is_digest(alg)) {
		for (size_t i = 0; i < sizeof(hashes) / sizeof(hashes[0]); i++)
			if (!strcmp(alg->kernel_name, hashes[i].kernel_name))
				return hashes[i].hwo_alg;
		return 0;
	}
	switch (alg->mode) {
	case HWOFF_MODE_ECB:
		return HWO_ALG_AES_ECB;
	case HWOFF_MODE_CBC:
		return HWO_ALG_AES_CBC;
	case HWOFF_MODE_CTR:
		return HWO_ALG_AES_CTR;
	default:
		return 0;
	}
}

/* The session's path: that of the AF_ALG driver the path is named after (discover.c). */
static uint32_t hwo_path_of(const char *driver)
{
	switch (hwoff_engine_class(driver)) {
	case HWOFF_IMPL_ENGINE_PIO:
		return HWO_PATH_PIO;
	case HWOFF_IMPL_ENGINE_DMA:
		return HWO_PATH_DMA;
	default:
		return HWO_PATH_AUTO;
	}
}

int hwoff_device_fail(struct hwoff_device_session *s, int error, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(s->err, sizeof(s->err), "%s on %s: ", s->alg->name, s->driver);
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(s->err))
		vsnprintf(s->err + n, sizeof(s->err) - (size_t)n, fmt, ap);
	va_end(ap);
	return -error;
}

static int open_node(const char *node, struct hwo_info *info)
{
	int fd = open(node, O_RDWR | O_CLOEXEC);

	*info = (struct hwo_info){ .size = sizeof(*info) };
	if (fd < 0)
		return -errno;
	if (ioctl(fd, HWO_IOC_INFO, info)) {
		int error = errno;

		close(fd);
		return -error;
	}
	return fd;
}

int hwoff_device_init(struct hwoff_device_session *s, const struct hwoff_alg *alg,
		      const char *driver)
{
	const char *node = driver + strlen(HWOFF_DEVICE_PREFIX), *dot = strchr(node, '.');

	s->alg = alg;
	s->fd = -1;
	snprintf(s->driver, sizeof(s->driver), "%s", driver);
	snprintf(s->node, sizeof(s->node), "/dev/%.*s", dot ? (int)(dot - node) : 0, node);
	s->hwo_alg = hwo_alg_of(alg);
	s->path = hwo_path_of(driver);
	return !dot || !s->hwo_alg ? hwoff_device_fail(s, EINVAL, "not a path of the device") : 0;
}

int hwoff_device_open(struct hwoff_device_session *s, const unsigned char *key, size_t key_len,
		      const unsigned char *iv)
{
	struct hwo_session_new sn = {
		.size = sizeof(sn),
		.alg = s->hwo_alg,
		.path = s->path,
		.key_len = (uint32_t)key_len,
		.key = (uintptr_t)key,
	};
	struct hwo_info info;
	struct rlimit memlock;
	size_t budget, per_request;
	int dev = open_node(s->node, &info);

	if (dev < 0)
		return hwoff_device_fail(s, -dev, "cannot use %s: %s", s->node, strerror(-dev));
	if (iv)
		memcpy(sn.iv, iv, sizeof(sn.iv));
	s->fd = ioctl(dev, HWO_IOC_SESSION_NEW, &sn);
	if (s->fd < 0) {
		int error = errno;

		close(dev);
		return hwoff_device_fail(s, error, "no session on %s: %s", s->node,
					 strerror(error));
	}
	close(dev);
	s->pid = getpid();
	s->piece = s->path == HWO_PATH_PIO && info.fifo_size < HWOFF_DEVICE_PIECE
			   ? info.fifo_size
			   : HWOFF_DEVICE_PIECE;
	/* half of what the process may pin, for its other contexts; a request pins two buffers */
	budget = info.max_pinned_bytes;
	if (!getrlimit(RLIMIT_MEMLOCK, &memlock) && memlock.rlim_cur != RLIM_INFINITY &&
	    memlock.rlim_cur < budget)
		budget = memlock.rlim_cur;
	budget /= 2;
	while (s->piece > 4096 && 2 * (s->piece + 4096) > budget)
		s->piece /= 2;
	per_request = 2 * (s->piece + 4096);
	s->max_batch = info.max_batch < info.max_inflight ? info.max_batch : info.max_inflight;
	if (s->max_batch > HWOFF_DEVICE_BATCH)
		s->max_batch = HWOFF_DEVICE_BATCH;
	if (budget / per_request < s->max_batch)
		s->max_batch = budget / per_request ? (uint32_t)(budget / per_request) : 1;
	return 0;
}

/*
 * In a forked child: whether descriptor fd is still a session the parent made (the driver
 * refuses it to us with EPERM), so that closing it closes nobody else's file.
 */
static bool parents_session(int fd)
{
	struct hwo_state st = { .size = sizeof(st) };
	char path[32], link[64];
	ssize_t n;

	snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	n = readlink(path, link, sizeof(link) - 1);
	if (n < 0)
		return false;
	link[n] = '\0';
	return !strcmp(link, "anon_inode:[hwoffload-session]") &&
	       ioctl(fd, HWO_IOC_GET_STATE, &st) < 0 && errno == EPERM;
}

bool hwoff_device_forked(struct hwoff_device_session *s)
{
	if (s->fd >= 0 && s->pid == getpid())
		return false;
	if (s->fd >= 0 && parents_session(s->fd))
		close(s->fd);
	s->fd = -1;
	return true;
}

void hwoff_device_close(struct hwoff_device_session *s)
{
	if (s->fd >= 0 && (s->pid == getpid() || parents_session(s->fd)))
		close(s->fd);
	s->fd = -1;
	if (s->bounce) {
		explicit_bzero(s->bounce, HWOFF_DEVICE_BOUNCE);
		free(s->bounce);
		s->bounce = NULL;
	}
}

int hwoff_device_need_bounce(struct hwoff_device_session *s, size_t len)
{
	if (!s->bounce && posix_memalign((void **)&s->bounce, 128, HWOFF_DEVICE_BOUNCE))
		return hwoff_device_fail(s, ENOMEM, "no memory to align a request of %zu bytes",
					 len);
	return 0;
}

/* @n completions of the session, oldest first, into @comps: 0, or -errno. */
static int drain(struct hwoff_device_session *s, struct hwo_completion *comps, uint32_t n)
{
	uint32_t got = 0;

	while (got < n) {
		ssize_t r = read(s->fd, comps + got, (n - got) * sizeof(*comps));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return hwoff_device_fail(s, r ? errno : EIO, "reading %u completions: %s",
						 n - got, r ? strerror(errno) : "none outstanding");
		got += (uint32_t)(r / (ssize_t)sizeof(*comps));
	}
	return 0;
}

/* The first of requests from..from + n - 1 that failed, as the call's error; else 0. */
static int failed(struct hwoff_device_session *s, const struct hwo_request *reqs,
		  const struct hwo_completion *comps, uint32_t from, uint32_t n)
{
	for (uint32_t i = from; i < from + n; i++)
		if (comps[i].status)
			return hwoff_device_fail(s, -comps[i].status,
						 "request of %u bytes failed: %s", reqs[i].len,
						 strerror(-comps[i].status));
	return 0;
}

int hwoff_device_submit(struct hwoff_device_session *s, struct hwo_request *reqs, uint32_t n)
{
	struct hwo_completion comps[HWOFF_DEVICE_BATCH];
	uint32_t done = 0;

	while (done < n) {
		struct hwo_submit sub = {
			.size = sizeof(sub),
			.flags = HWO_SUBMIT_WAIT,
			.count = n - done,
			.req_size = sizeof(reqs[0]),
			.requests = (uintptr_t)(reqs + done),
			.completions = (uintptr_t)(comps + done),
		};
		int error = ioctl(s->fd, HWO_IOC_SUBMIT, &sub) ? errno : 0, ret;
		/* the requests taken before a refusal or a signal complete all the same */
		uint32_t taken = !error ? sub.count : sub.taken < sub.count ? sub.taken : sub.count;

		ret = error ? drain(s, comps + done, taken) : 0;
		ret = ret ?: failed(s, reqs, comps, done, taken);
		if (ret)
			return ret;
		/* one refused for a limit or a signal goes again once those before it are done */
		if (error && (!taken || (error != EINTR && error != ENOBUFS && error != EAGAIN)))
			return hwoff_device_fail(s, error, "request of %u bytes refused: %s",
						 reqs[done + (taken < sub.count ? taken : 0)].len,
						 strerror(error));
		done += taken;
	}
	return 0;
}

static bool device_reaches(const char *driver)
{
	return !strncmp(driver, HWOFF_DEVICE_PREFIX, strlen(HWOFF_DEVICE_PREFIX));
}

/* Only the bundled engine has the device, and it is never guarded (guard.h). */
static int device_guard(const char *driver, unsigned int limit_ms)
{
	(void)driver;
	(void)limit_ms;
	return 0;
}

static const char *device_stuck(const char *driver)
{
	(void)driver;
	return NULL;
}

const struct hwoff_transport hwoff_transport_device = {
	.reaches = device_reaches,
	.skcipher = &hwoff_device_skcipher_ops,
	.hash = &hwoff_device_hash_ops,
	.guard = device_guard,
	.stuck = device_stuck,
};

/* ---- discovery ------------------------------------------------------------------------------ */

/*
 * For each node that answers INFO: the algorithms it offers, each on the paths it offers, named
 * after the AF_ALG driver of the same path and classed as it is (discover.c).
 */
void hwoff_device_discover(struct hwoff_discovery *d, const char *pattern)
{
	static const char *const suffixes[] = { "", "-pio", "-dma" };
	glob_t g;

	if (glob(pattern, 0, NULL, &g))
		return;
	for (size_t n = 0; n < g.gl_pathc; n++) {
		const char *node = strrchr(g.gl_pathv[n], '/') + 1;
		struct hwo_info info;
		int fd = open_node(g.gl_pathv[n], &info);

		if (fd < 0) {
			hwoff_appendf(d->basis, sizeof(d->basis), "; %s: %s", g.gl_pathv[n],
				      strerror(-fd));
			continue;
		}
		close(fd);
		for (size_t a = 0; a < HWOFF_ALG_COUNT; a++) {
			const struct hwoff_alg *alg = &hwoff_algs[a];
			uint32_t hwo = hwo_alg_of(alg);
			char driver[64];

			/* one implementation per kernel name, as /proc/crypto lists them */
			if (!hwo || !(info.algorithms & 1u << hwo) ||
			    (!hwoff_alg_is_digest(alg) && alg->key_bytes != 16))
				continue;
			if (hwoff_alg_is_digest(alg))
				snprintf(driver, sizeof(driver), "%s-" HWOFF_ENGINE_MODULE,
					 alg->kernel_name);
			else
				snprintf(driver, sizeof(driver), "%.*s-aes-" HWOFF_ENGINE_MODULE,
					 (int)strcspn(alg->kernel_name, "("), alg->kernel_name);
			for (size_t p = 0; p < 3 && d->count < HWOFF_IMPLS_MAX; p++) {
				struct hwoff_impl impl = {
					.priority = 0,
					.binds_device = true,
					.device = true,
				};

				snprintf(impl.driver, sizeof(impl.driver),
					 HWOFF_DEVICE_PREFIX "%s.%s%s", node, driver, suffixes[p]);
				if (!(info.paths & 1u << hwo_path_of(impl.driver)))
					continue;
				snprintf(impl.name, sizeof(impl.name), "%s", alg->kernel_name);
				snprintf(impl.module, sizeof(impl.module), HWOFF_ENGINE_MODULE);
				snprintf(impl.type, sizeof(impl.type), "device");
				d->impls[d->count++] = impl;
			}
		}
	}
	globfree(&g);
}
