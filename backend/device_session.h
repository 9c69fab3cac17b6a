/* SPDX-License-Identifier: Apache-2.0 */
/*
 * device_session.h - the device transport's own: one session on the bundled engine's device
 * (device.c) under its skcipher and hash contexts (device_skcipher.c, device_hash.c). Nothing
 * else includes it: the rest of the backend reaches the device through transport.h.
 */
#ifndef HWOFF_BACKEND_DEVICE_SESSION_H
#define HWOFF_BACKEND_DEVICE_SESSION_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "backend/algs.h"
#include "backend/discover.h" /* HWOFF_NAME_MAX */
#include "backend/transport.h"
#include "kernel/hwoffload_uapi.h"

#define HWOFF_DEVICE_PIECE  (256u << 10) /* bytes per request of a large operation */
#define HWOFF_DEVICE_BOUNCE (1u << 20) /* the aligned area for unaligned buffers, at most */
#define HWOFF_DEVICE_BATCH  64u /* requests per SUBMIT, at most */

/* One context's session on the device, and what sizes its requests. */
struct hwoff_device_session {
	const struct hwoff_alg *alg;
	char driver[HWOFF_NAME_MAX]; /* "dev.NODE.DRIVER" */
	char node[HWOFF_NAME_MAX]; /* "/dev/NODE" */
	uint32_t hwo_alg;
	uint32_t path;
	int fd; /* the session */
	pid_t pid; /* the session's owner */
	uint32_t max_batch; /* requests per SUBMIT: the driver's, within the pinning budget */
	size_t piece; /* bytes per request: HWOFF_DEVICE_PIECE, PIO's at most its FIFO */
	unsigned char *bounce; /* HWOFF_DEVICE_BOUNCE bytes, 128-aligned; NULL until needed */
	char err[HWOFF_TRANSPORT_ERROR_MAX];
};

/* Sets s->err to "ALG on DRIVER: " and the printf-style detail; -error. */
int hwoff_device_fail(struct hwoff_device_session *s, int error, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* s for driver, a path of the device, without a session yet: 0, or -EINVAL with s->err set. */
int hwoff_device_init(struct hwoff_device_session *s, const struct hwoff_alg *alg,
		      const char *driver);
/*
 * A session of this process's on s->node: key (key_len bytes; none for a hash) and the first IV
 * (NULL: zeros). Returns 0, or -errno with s->err set.
 */
int hwoff_device_open(struct hwoff_device_session *s, const unsigned char *key, size_t key_len,
		      const unsigned char *iv);
/*
 * In a forked child, on its first call: the parent's session let go (its descriptor closed
 * only while it is still that session: transport.h, "fork()"). Returns whether s needs a
 * session of this process's (hwoff_device_open()).
 */
bool hwoff_device_forked(struct hwoff_device_session *s);
/*
 * @n requests (at most s->max_batch) in one SUBMIT with WAIT; one refused for a limit (pinning,
 * in flight) or a signal after others were taken is sent again once those are done. Returns 0
 * when every request completed right, else -errno with s->err set.
 */
int hwoff_device_submit(struct hwoff_device_session *s, struct hwo_request *reqs, uint32_t n);
/* s->bounce allocated, or -ENOMEM with s->err set (len: the request that needs it). */
int hwoff_device_need_bounce(struct hwoff_device_session *s, size_t len);
/* Close s's session where it is this process's, wipe the bounce area. */
void hwoff_device_close(struct hwoff_device_session *s);

/* The operations of each kind of context, for hwoff_transport_device (device.c). */
extern const struct hwoff_skcipher_ops hwoff_device_skcipher_ops;
extern const struct hwoff_hash_ops hwoff_device_hash_ops;

#endif
