// SPDX-License-Identifier: Apache-2.0
/*
 * device.c - ECB, CBC and CTR requests to the bundled engine through its own device,
 * /dev/hwoffloadN (kernel/DEVICE.md, kernel/hwoffload_uapi.h), and the discovery of its paths.
 *
 * Where AF_ALG is closed (Linux 7.2 refuses off-CPU drivers; containers block the socket) the
 * device still reaches the engine, and where both work it costs less: the kernel maps the
 * caller's pages for DMA instead of copying them into a socket, and one call puts several
 * requests on the ring, which the engine chains. A path of the device is named
 * "dev.NODE.DRIVER", DRIVER being the AF_ALG driver of the same path ("dev.hwoffload0.cbc-aes-
 * hwoffload-dma"), so that a table says which transport it means and the class of a path
 * (discover.h) reads the same from both.
 *
 * An operation is cut into requests of HWOFF_DEVICE_PIECE bytes (PIO: of its FIFO) sent in one
 * batch and waited for together: while the kernel pins and maps one, the engine runs the one
 * before. A CTR tail shorter than a block goes as its padded block from the context (the engine
 * moves whole blocks by DMA), and what it gives back is copied out. The
 * session chains CBC and CTR from request to request in the engine; this file keeps the IV it
 * computes (as AF_ALG's does) and hands it to the session whenever the session's own may differ
 * from the transport's contract: first, after set_iv, a CTR request that ended mid-block, a
 * failure or a fork. Buffers not aligned to the engine's 16 bytes go through an aligned area of
 * the context's, copied.
 *
 * After fork() the child's calls on the parent's session fail (EPERM): the child opens its own
 * session, closing its copy of the parent's descriptor only while the number is still a session
 * of another process (transport.h, "fork()": /proc/self/fd names it, and the driver refuses it
 * with EPERM; every anon fd shares one inode, so the inode says nothing).
 *
 * A batch pins its pages while it runs: its requests are as many as the process's
 * RLIMIT_MEMLOCK and the driver's per-session ceiling allow, halved for the process's other
 * contexts; one refused for the pinning or the in-flight limit after others were taken is sent
 * again once those are done.
 */
#define _GNU_SOURCE /* explicit_bzero */
#include <errno.h>
#include <stdarg.h>
#include <fcntl.h>
#include <glob.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/resource.h>
#include <unistd.h>

#include "backend/device.h"
#include "backend/text.h"
#include "backend/transport.h"
#include "kernel/hwoffload_uapi.h"

#define HWOFF_DEVICE_PIECE  (256u << 10) /* bytes per request of a large operation */
#define HWOFF_DEVICE_BOUNCE (1u << 20) /* the aligned area for unaligned buffers, at most */

struct device_skcipher {
	struct hwoff_skcipher base;
	const struct hwoff_alg *alg;
	char driver[HWOFF_NAME_MAX];
	char node[HWOFF_NAME_MAX];
	uint32_t hwo_alg;
	uint32_t path;
	int fd; /* the session */
	pid_t pid; /* the session's owner */
	uint32_t max_batch; /* requests per SUBMIT: the driver's, within the pinning budget */
	size_t piece; /* bytes per request: HWOFF_DEVICE_PIECE, PIO's at most its FIFO */
	unsigned char tail[HWOFF_AES_BLOCK] __attribute__((aligned(HWOFF_AES_BLOCK)));
	unsigned char key[HWOFF_AES_KEY_MAX];
	size_t key_len;
	unsigned char iv[HWOFF_IV_MAX]; /* the IV the next request starts from */
	bool iv_to_session; /* the session's own IV may differ from iv: send it */
	unsigned char *bounce; /* HWOFF_DEVICE_BOUNCE bytes, 16-aligned; NULL until needed */
	char err[HWOFF_TRANSPORT_ERROR_MAX];
};

static const struct hwoff_skcipher_ops device_skcipher_ops;

static struct device_skcipher *device_skcipher(const struct hwoff_skcipher *base)
{
	return (struct device_skcipher *)base; /* its first member */
}

static uint32_t hwo_alg_of(const struct hwoff_alg *alg)
{
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

static int device_fail(struct device_skcipher *c, int error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));

static int device_fail(struct device_skcipher *c, int error, const char *fmt, ...)
{
	va_list ap;
	int n;

	n = snprintf(c->err, sizeof(c->err), "%s on %s: ", c->alg->name, c->driver);
	va_start(ap, fmt);
	if (n > 0 && (size_t)n < sizeof(c->err))
		vsnprintf(c->err + n, sizeof(c->err) - (size_t)n, fmt, ap);
	va_end(ap);
	c->iv_to_session = true; /* what the session holds now is unknown */
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

/* A session of this process on the node, keyed, starting from the context's IV. */
static int open_session(struct device_skcipher *c)
{
	struct hwo_session_new sn = {
		.size = sizeof(sn),
		.alg = c->hwo_alg,
		.path = c->path,
		.key_len = (uint32_t)c->key_len,
		.key = (uintptr_t)c->key,
	};
	struct hwo_info info;
	struct rlimit memlock;
	size_t budget, per_request;
	int dev = open_node(c->node, &info);

	if (dev < 0)
		return device_fail(c, -dev, "cannot use %s: %s", c->node, strerror(-dev));
	memcpy(sn.iv, c->iv, sizeof(sn.iv));
	c->fd = ioctl(dev, HWO_IOC_SESSION_NEW, &sn);
	if (c->fd < 0) {
		int error = errno;

		close(dev);
		return device_fail(c, error, "no session on %s: %s", c->node, strerror(error));
	}
	close(dev);
	c->pid = getpid();
	c->piece = c->path == HWO_PATH_PIO && info.fifo_size < HWOFF_DEVICE_PIECE
			   ? info.fifo_size
			   : HWOFF_DEVICE_PIECE;
	/* half of what the process may pin, for its other contexts; a request pins two buffers */
	budget = info.max_pinned_bytes;
	if (!getrlimit(RLIMIT_MEMLOCK, &memlock) && memlock.rlim_cur != RLIM_INFINITY &&
	    memlock.rlim_cur < budget)
		budget = memlock.rlim_cur;
	budget /= 2;
	while (c->piece > 4096 && 2 * (c->piece + 4096) > budget)
		c->piece /= 2;
	per_request = 2 * (c->piece + 4096);
	c->max_batch = info.max_batch < info.max_inflight ? info.max_batch : info.max_inflight;
	if (c->max_batch > 64)
		c->max_batch = 64;
	if (budget / per_request < c->max_batch)
		c->max_batch = budget / per_request ? (uint32_t)(budget / per_request) : 1;
	c->iv_to_session = false;
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

/* After a fork, the child's own session (its copy of the parent's closed while it is one). */
static int own_session(struct device_skcipher *c)
{
	if (c->pid == getpid())
		return 0;
	if (c->fd >= 0 && parents_session(c->fd))
		close(c->fd);
	c->fd = -1;
	return open_session(c);
}

static void device_close(struct hwoff_skcipher *base)
{
	struct device_skcipher *c = device_skcipher(base);

	if (c->fd >= 0 && (c->pid == getpid() || parents_session(c->fd)))
		close(c->fd);
	if (c->bounce) {
		explicit_bzero(c->bounce, HWOFF_DEVICE_BOUNCE);
		free(c->bounce);
	}
	explicit_bzero(c, sizeof(*c));
	free(c);
}

static int device_open(struct hwoff_skcipher **out, const struct hwoff_alg *alg, const char *driver,
		       const unsigned char *key, size_t key_len, char *err, size_t err_len)
{
	const char *node = driver + strlen(HWOFF_DEVICE_PREFIX), *dot = strchr(node, '.');
	struct device_skcipher *c = calloc(1, sizeof(*c));
	int ret;

	if (!c) {
		snprintf(err, err_len, "%s on %s: out of memory", alg->name, driver);
		return -ENOMEM;
	}
	c->base.ops = &device_skcipher_ops;
	c->alg = alg;
	c->fd = -1;
	snprintf(c->driver, sizeof(c->driver), "%s", driver);
	snprintf(c->node, sizeof(c->node), "/dev/%.*s", dot ? (int)(dot - node) : 0, node);
	c->hwo_alg = hwo_alg_of(alg);
	c->path = hwo_path_of(driver);
	memcpy(c->key, key, key_len);
	c->key_len = key_len;
	ret = !dot || !c->hwo_alg ? device_fail(c, EINVAL, "not a path of the device")
				  : open_session(c);
	if (ret) {
		snprintf(err, err_len, "%s", c->err);
		device_close(&c->base);
		return ret;
	}
	*out = &c->base;
	return 0;
}

/* The next request of a window: a piece of the whole blocks, then a CTR tail in its block. */
static bool next_request(struct device_skcipher *c, bool encrypt, const unsigned char *in,
			 unsigned char *out, size_t len, size_t *off, struct hwo_request *r)
{
	size_t whole = len & ~(size_t)(HWOFF_AES_BLOCK - 1), piece;

	if (*off >= len)
		return false;
	*r = (struct hwo_request){ .op = encrypt ? HWO_OP_ENCRYPT : HWO_OP_DECRYPT };
	if (*off < whole) {
		piece = whole - *off < c->piece ? whole - *off : c->piece;
		r->src = (uintptr_t)(in + *off);
		r->dst = (uintptr_t)(out + *off);
		r->len = (uint32_t)piece;
		*off += piece;
	} else {
		/* the engine moves whole blocks by DMA: the tail's keystream block, padded */
		memset(c->tail, 0, sizeof(c->tail));
		memcpy(c->tail, in + whole, len - whole);
		r->src = r->dst = (uintptr_t)c->tail;
		r->len = HWOFF_AES_BLOCK;
		*off = len;
	}
	return true;
}

/* @n completions of the session, oldest first, into @comps: 0, or -errno. */
static int drain(struct device_skcipher *c, struct hwo_completion *comps, uint32_t n)
{
	uint32_t got = 0;

	while (got < n) {
		ssize_t r = read(c->fd, comps + got, (n - got) * sizeof(*comps));

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return device_fail(c, r ? errno : EIO, "reading %u completions: %s",
					   n - got, r ? strerror(errno) : "none outstanding");
		got += (uint32_t)(r / (ssize_t)sizeof(*comps));
	}
	return 0;
}

/*
 * One window of an operation, in place or apart, in requests of c->piece bytes sent as batches
 * of c->max_batch and waited for: 0, or -errno with the reason. A batch refused partway for a
 * limit (pinning, in flight) or interrupted goes on from its first request not taken, once the
 * ones taken are done.
 */
static int crypt_window(struct device_skcipher *c, bool encrypt, const unsigned char *in,
			unsigned char *out, size_t len)
{
	struct hwo_request reqs[64];
	struct hwo_completion comps[64];
	size_t off = 0, starts[64];

	while (off < len) {
		struct hwo_submit sub = {
			.size = sizeof(sub),
			.flags = HWO_SUBMIT_WAIT,
			.req_size = sizeof(reqs[0]),
			.requests = (uintptr_t)reqs,
			.completions = (uintptr_t)comps,
		};
		size_t cursor = off;
		uint32_t n = 0, done;

		while (n < c->max_batch) {
			starts[n] = cursor;
			if (!next_request(c, encrypt, in, out, len, &cursor, &reqs[n]))
				break;
			n++;
		}
		if (c->iv_to_session) {
			reqs[0].flags = HWO_REQ_SET_IV;
			memcpy(reqs[0].iv, c->iv, sizeof(reqs[0].iv));
		}
		sub.count = n;
		done = n;
		if (ioctl(c->fd, HWO_IOC_SUBMIT, &sub)) {
			int error = errno, ret;

			/* the requests taken before the refusal or the signal complete all the same
			 */
			done = sub.taken;
			ret = drain(c, comps, done);
			if (ret)
				return ret;
			if (!done || (error != EINTR && error != ENOBUFS && error != EAGAIN))
				return device_fail(c, error, "request of %zu bytes refused: %s",
						   len, strerror(error));
			if (done < n)
				cursor = starts[done];
		}
		c->iv_to_session = false;
		for (uint32_t i = 0; i < done; i++)
			if (comps[i].status)
				return device_fail(c, -comps[i].status,
						   "request of %u bytes failed: %s", reqs[i].len,
						   strerror(-comps[i].status));
		off = cursor;
	}
	if (len % HWOFF_AES_BLOCK) {
		size_t whole = len & ~(size_t)(HWOFF_AES_BLOCK - 1);

		memcpy(out + whole, c->tail, len - whole);
		explicit_bzero(c->tail, sizeof(c->tail));
	}
	return 0;
}

/* Unaligned buffers: through the context's aligned area, a window at a time. */
static int crypt_bounced(struct device_skcipher *c, bool encrypt, const unsigned char *in,
			 unsigned char *out, size_t len)
{
	if (!c->bounce && posix_memalign((void **)&c->bounce, 64, HWOFF_DEVICE_BOUNCE))
		return device_fail(c, ENOMEM, "no memory to align a request of %zu bytes", len);
	for (size_t off = 0; off < len;) {
		size_t n = len - off < HWOFF_DEVICE_BOUNCE ? len - off : HWOFF_DEVICE_BOUNCE;
		int ret;

		memcpy(c->bounce, in + off, n);
		ret = crypt_window(c, encrypt, c->bounce, c->bounce, n);
		if (ret)
			return ret;
		memcpy(out + off, c->bounce, n);
		off += n;
	}
	return 0;
}

static int device_crypt(struct hwoff_skcipher *base, bool encrypt, const unsigned char *in,
			unsigned char *out, size_t len)
{
	struct device_skcipher *c = device_skcipher(base);
	const struct hwoff_alg *alg = c->alg;
	unsigned char next_iv[HWOFF_IV_MAX];
	int ret;

	if (alg->mode != HWOFF_MODE_CTR && len % HWOFF_AES_BLOCK)
		return device_fail(c, EINVAL, "a request of %zu bytes, not a multiple of %d", len,
				   HWOFF_AES_BLOCK);
	if (!len)
		return 0;
	ret = own_session(c);
	if (ret)
		return ret;
	memcpy(next_iv, c->iv, sizeof(next_iv));
	if (alg->mode == HWOFF_MODE_CBC && !encrypt) /* before out overwrites it */
		memcpy(next_iv, in + len - HWOFF_AES_BLOCK, HWOFF_AES_BLOCK);
	if (((uintptr_t)in | (uintptr_t)out) % HWOFF_AES_BLOCK)
		ret = crypt_bounced(c, encrypt, in, out, len);
	else
		ret = crypt_window(c, encrypt, in, out, len);
	if (ret)
		return ret;
	if (alg->mode == HWOFF_MODE_CBC && encrypt)
		memcpy(next_iv, out + len - HWOFF_AES_BLOCK, HWOFF_AES_BLOCK);
	else if (alg->mode == HWOFF_MODE_CTR)
		hwoff_ctr_add(next_iv, (len + HWOFF_AES_BLOCK - 1) / HWOFF_AES_BLOCK);
	memcpy(c->iv, next_iv, sizeof(c->iv));
	/* the session would run on mid-block; the contract starts the next counter */
	if (len % HWOFF_AES_BLOCK)
		c->iv_to_session = true;
	return 0;
}

static int device_set_iv(struct hwoff_skcipher *base, const unsigned char *iv, size_t iv_len)
{
	struct device_skcipher *c = device_skcipher(base);

	if (iv_len != c->alg->iv_bytes)
		return device_fail(c, EINVAL, "an IV of %zu bytes, the algorithm takes %u", iv_len,
				   c->alg->iv_bytes);
	memcpy(c->iv, iv, iv_len);
	c->iv_to_session = true;
	return 0;
}

static size_t device_chunk_bytes(const struct hwoff_skcipher *base)
{
	return (size_t)device_skcipher(base)->max_batch * device_skcipher(base)->piece;
}

static const char *device_error(const struct hwoff_skcipher *base)
{
	return device_skcipher(base)->err;
}

static const struct hwoff_skcipher_ops device_skcipher_ops = {
	.open = device_open,
	.close = device_close,
	.crypt = device_crypt,
	.set_iv = device_set_iv,
	.chunk_bytes = device_chunk_bytes,
	.error = device_error,
};

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
	.skcipher = &device_skcipher_ops,
	.guard = device_guard,
	.stuck = device_stuck,
};

/* ---- discovery ------------------------------------------------------------------------------ */

/*
 * For each node that answers INFO: the algorithms it offers, each on its three paths, named
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
			char mode[16];

			/* one implementation per kernel name, as /proc/crypto lists them */
			if (!hwo || !(info.algorithms & 1u << hwo) || alg->key_bytes != 16)
				continue;
			snprintf(mode, sizeof(mode), "%.*s", (int)strcspn(alg->kernel_name, "("),
				 alg->kernel_name);
			for (size_t p = 0; p < 3 && d->count < HWOFF_IMPLS_MAX; p++) {
				struct hwoff_impl *impl = &d->impls[d->count++];

				*impl = (struct hwoff_impl){
					.priority = 0,
					.binds_device = true,
					.device = true,
				};
				snprintf(impl->name, sizeof(impl->name), "%s", alg->kernel_name);
				snprintf(impl->driver, sizeof(impl->driver),
					 HWOFF_DEVICE_PREFIX "%s.%s-aes-" HWOFF_ENGINE_MODULE "%s",
					 node, mode, suffixes[p]);
				snprintf(impl->module, sizeof(impl->module), HWOFF_ENGINE_MODULE);
				snprintf(impl->type, sizeof(impl->type), "device");
			}
		}
	}
	globfree(&g);
}
