/* SPDX-License-Identifier: GPL-2.0-only WITH Linux-syscall-note OR Apache-2.0 */
/*
 * The hwoffload device: the bundled driver's own interface to user space (kernel/DEVICE.md says
 * how it behaves; where the two disagree, this header wins). Included by the driver and by the
 * backend's device transport alike, as hwoffload_regs.h is by the driver and the engine.
 *
 * Every structure begins with its size: a caller built against an older header passes a shorter
 * one (the driver zero-fills the rest), one built against a newer header a longer one (refused
 * with E2BIG if the bytes the driver does not know are not zero). Fields are fixed-width, user
 * pointers are __u64, padding is explicit and must be zero.
 *
 * Refusals, one errno each (DEVICE.md section 6):
 *   ENOTTY        an unknown command, or a session command on the device fd and the reverse
 *   EINVAL        a reserved field or padding not zero, an unknown flag, algorithm, path or op
 *   E2BIG         a structure longer than the driver's with non-zero bytes it does not know
 *   EOPNOTSUPP    an algorithm, path or op this engine or this session does not offer
 *   EKEYREJECTED  a key of the wrong length for the algorithm
 *   EMSGSIZE      a length of 0 (but a hash's FINAL), past HWO_INFO max_request (PIO: the FIFO),
 *                 or not whole blocks (ECB, CBC, a hash's UPDATE)
 *   ERANGE        a batch of 0 requests or more than max_batch; a request size the driver
 *                 cannot read
 *   EFAULT        a buffer that is not mapped, not readable or (a destination) not writable, or
 *                 an address + length that wraps
 *   EADDRNOTAVAIL a DMA request whose addresses or length break the engine's alignment (a
 *                 hash's source: its block size, but for an empty FINAL)
 *   EADDRINUSE    a source and destination that overlap without being equal
 *   EAGAIN        a session with max_inflight requests unread; read() with none done on a
 *                 non-blocking fd
 *   ENOBUFS       more pinned memory than RLIMIT_MEMLOCK or max_pinned_bytes allows
 *   ENOSPC        the engine has max_sessions sessions open
 *   EPIPE         a CBC or CTR request without SET_IV, or a hash's request, after a DMA
 *                 request of the session failed: the stream's state is lost (also GET_STATE
 *                 then) until SET_IV or SET_STATE gives it one
 *   EPROTO        a state blob of another algorithm or version
 *   EPERM         a session used by another process than its owner (a forked child)
 *   ENODEV        the session's engine was unbound
 *   ENOMEM        the kernel's own allocation failed, and only that
 *   ETIMEDOUT     the ring had no room within twice the driver's timeout (a stalled engine)
 *   EIO           the engine is dead (a reset failed)
 *
 * GET_STATE and SET_STATE wait while requests of the session are on the engine; a completion is
 * read once: whole records, oldest first.
 */
#ifndef HWOFFLOAD_UAPI_H
#define HWOFFLOAD_UAPI_H

#include <linux/ioctl.h>
#include <linux/types.h>

#define HWO_VERSION		1	/* HWO_INFO version */

/* struct hwo_session_new alg; HWO_INFO algorithms has bit (1 << alg) for each offered */
enum hwo_alg {
	HWO_ALG_AES_ECB = 1,
	HWO_ALG_AES_CBC = 2,
	HWO_ALG_AES_CTR = 3,
	/* hashes: no key; requests UPDATE and FINAL */
	HWO_ALG_MD5 = 8,
	HWO_ALG_SHA1 = 9,
	HWO_ALG_SHA224 = 10,
	HWO_ALG_SHA256 = 11,
	HWO_ALG_SHA384 = 12,
	HWO_ALG_SHA512 = 13,
};

/* struct hwo_session_new path; HWO_INFO paths has bit (1 << path) for each offered */
enum hwo_path {
	HWO_PATH_AUTO = 0,	/* PIO up to the sysfs threshold of the mode, DMA above */
	HWO_PATH_PIO = 1,
	HWO_PATH_DMA = 2,
};

/* HWO_IOC_INFO, on the device fd: the driver's interface and limits. */
struct hwo_info {
	__u32 size;		/* in: sizeof(struct hwo_info) */
	__u32 version;		/* out: HWO_VERSION */
	__u32 algorithms;	/* bit (1 << enum hwo_alg) */
	__u32 paths;		/* bit (1 << enum hwo_path) */
	__u32 max_batch;	/* requests per HWO_IOC_SUBMIT */
	__u32 max_inflight;	/* requests per session submitted and not read yet */
	__u32 max_sessions;	/* sessions open on this engine at once */
	__u32 max_request;	/* bytes per request (longer ones: split them, they chain) */
	__u64 max_pinned_bytes;	/* per session, besides RLIMIT_MEMLOCK */
	__u32 fifo_size;	/* the longest PIO request */
	__u32 dma_align;	/* a DMA request's addresses and length are multiples of this */
};

/* HWO_IOC_SESSION_NEW, on the device fd: returns the session's fd (close-on-exec). */
struct hwo_session_new {
	__u32 size;		/* sizeof(struct hwo_session_new) */
	__u32 alg;		/* enum hwo_alg */
	__u32 path;		/* enum hwo_path */
	__u32 key_len;		/* 16, 24 or 32; a hash: 0 */
	__u64 key;		/* user pointer */
	__u8 iv[16];		/* the stream's first IV (CBC, CTR; ECB and hashes: zero) */
};

/* struct hwo_request op */
enum hwo_op {
	HWO_OP_ENCRYPT = 1,	/* AES sessions */
	HWO_OP_DECRYPT = 2,
	HWO_OP_UPDATE = 3,	/* hashes: whole blocks of the message, at least one */
	HWO_OP_FINAL = 4,	/* hashes: the message's last bytes (any number, 0 too) */
};

/* struct hwo_request flags */
#define HWO_REQ_SET_IV		(1u << 0)	/* start from iv (CTR: offset 0), not the stream's */

/*
 * One request of a batch. CBC and CTR run on from the session's previous request (the engine
 * writes the IV back into the session's record; CTR continues mid-block), unless SET_IV. A hash
 * session's requests are the UPDATEs and the FINAL of one message, then of the next: an UPDATE's
 * dst, unless 0, receives the message's struct hwo_hash_state after it (so that a caller keeps
 * what a forked child needs; the next request of the session waits for such an UPDATE, as for
 * a FINAL), a FINAL's dst the digest; both when the completion is read (a fault there is its
 * status, EFAULT, the request having taken effect). A hash's iv is zero.
 */
struct hwo_request {
	__u64 user_data;	/* echoed in the completion */
	__u32 op;		/* enum hwo_op */
	__u32 flags;		/* HWO_REQ_* (a hash: none) */
	__u64 src;		/* user pointers; dst == src: in place */
	__u64 dst;
	__u32 len;
	__u32 reserved;
	__u8 iv[16];
};

/* struct hwo_submit flags */
#define HWO_SUBMIT_WAIT		(1u << 0)	/* return when the batch is done, completions out */

/*
 * HWO_IOC_SUBMIT, on a session fd: a batch of requests, in order. Taken up to the first refused
 * request: on a refusal the call fails with its errno and @taken says how many went before it.
 */
struct hwo_submit {
	__u32 size;		/* sizeof(struct hwo_submit) */
	__u32 flags;		/* HWO_SUBMIT_* */
	__u32 count;		/* requests, 1..max_batch */
	__u32 req_size;		/* sizeof(struct hwo_request) as the caller knows it */
	__u64 requests;		/* user pointer: count requests, req_size bytes apart */
	__u64 completions;	/* WAIT: user pointer to count struct hwo_completion */
	__u32 taken;		/* out: requests taken */
	__u32 reserved;
};

/* One finished request, from read() on the session fd, oldest first, or SUBMIT with WAIT. */
struct hwo_completion {
	__u64 user_data;
	__s32 status;		/* 0 or -errno: ECANCELED, EIO, ETIMEDOUT, EFAULT (PIO's output) */
	__u32 path;		/* enum hwo_path: PIO or DMA, the one it took */
	__u64 engine_ns;	/* the engine's own time for it (ENGINE.md section 8) */
};

/*
 * A hash message's state after its UPDATEs: the bytes hashed (whole blocks: 0 is a message not
 * started, whose state is not read) and the chaining words as the engine keeps them
 * (ENGINE.md section 11, the hash context's state).
 */
struct hwo_hash_state {
	__u64 len_lo;		/* bytes hashed, low 64 bits */
	__u64 len_hi;
	__u8 state[64];
};

/* HWO_IOC_GET_STATE and HWO_IOC_SET_STATE, on a session fd: the stream's state. */
struct hwo_state {
	__u32 size;		/* sizeof(struct hwo_state) */
	__u32 alg;		/* enum hwo_alg; SET: the session's (EPROTO otherwise) */
	__u32 version;		/* HWO_VERSION; SET: EPROTO otherwise */
	__u32 ctr_offset;	/* CTR: 0..15 (EINVAL past) */
	__u8 iv[16];
	struct hwo_hash_state hash;	/* a hash's (SET: len not whole blocks, EINVAL) */
};

#define HWO_IOC_MAGIC		0xB7
#define HWO_IOC_INFO		_IOWR(HWO_IOC_MAGIC, 0x00, struct hwo_info)
#define HWO_IOC_SESSION_NEW	_IOW(HWO_IOC_MAGIC, 0x01, struct hwo_session_new)
#define HWO_IOC_SUBMIT		_IOWR(HWO_IOC_MAGIC, 0x02, struct hwo_submit)
#define HWO_IOC_GET_STATE	_IOWR(HWO_IOC_MAGIC, 0x03, struct hwo_state)
#define HWO_IOC_SET_STATE	_IOW(HWO_IOC_MAGIC, 0x04, struct hwo_state)

#endif /* HWOFFLOAD_UAPI_H */
