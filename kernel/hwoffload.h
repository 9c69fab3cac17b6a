/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * hwoffload: driver for the hwoffload AES and hash engine (kernel/ENGINE.md).
 *
 * Files, each calling only those after it, but for the reset (hwoffload-pio.c and
 * hwoffload-dma.c call hwoffload_reset_locked(), which completes the ring's requests):
 * hwoffload-pci.c (bus glue: PCI, MSI-X, runtime PM); hwoffload-core.c (bring-up, the ring,
 * reset and recovery, and the one registration loop over the algorithm types);
 * hwoffload-aead.c (the gcm(aes) AEADs: one message per request, the tag), hwoffload-cipher.c
 * (the skciphers), hwoffload-hash.c and hwoffload-hmac.c (the ahashes: buffering, state,
 * export/import; the HMAC keys): each type builds its requests for both paths and finishes
 * them; hwoffload-sysfs.c (the auto drivers' thresholds); hwoffload-debugfs.c (statistics and
 * fault injection); hwoffload-device.c (/dev/hwoffloadN: sessions and requests of user space,
 * kernel/DEVICE.md); hwoffload-bind.c (which device serves the algorithms, and how a request
 * goes); hwoffload-pio.c and hwoffload-dma.c (the two data paths as services: the FIFO, and the
 * ring, which finishes a request through the operations its type put in it).
 *
 * Lifetime: the algorithms are the module's, the engine is a device bound behind them. The
 * first device bound registers them (their self-tests need an engine) and they stay registered
 * until the module goes, across unbind and rebind: crypto_unregister_alg() must not run while
 * transforms exist, and every transform holds the module (cra_module), so module exit is the
 * first moment none can. One device is bound at a time (hwoffload_bound in hwoffload-bind.c,
 * published by RCU). A transform attaches to the device bound when it is created
 * (hwoffload_tfm_attach: its generation and a runtime PM reference) and each request takes that
 * device for its life (hwoffload_dev_get/put, a count of requests in flight); a transform created
 * while none is bound fails with -ENODEV, and so does every request of a transform whose device
 * went away, even after a rebind, since the new device is a new session. Unbinding
 * (hwoffload_unbind, the first step of remove) unpublishes the device and returns the transforms'
 * runtime PM references, so that new requests fail with -ENODEV; requests waiting in the
 * crypto_engine queue fail with -ENODEV when the engine thread reaches them, and those already
 * on the engine finish (or time out and fail); it waits for the count of requests in flight
 * to drop to zero before the crypto_engine, interrupt and device are freed.
 *
 * Software tier (doc/driver.md): the auto drivers hand a request no longer than their software
 * threshold (sysfs) to the kernel's best implementation that is no driver of ours (all are
 * CRYPTO_ALG_NEED_FALLBACK, which its lookup masks out, templates over ours included), holding
 * the device for the decision only; hwoffload_route() decides it with PIO and DMA. An AES one
 * completes through a callback of ours, never the caller's on our request: 6.1 hands a callback
 * its request, which kTLS takes for its own. A hash's is synchronous, done in the call, and takes
 * a stream for good at its first request the engine would have hashed, by the stream's length
 * then (the digest's, for digest() and finup()); its state travels in the request context.
 *
 * Synchronous requests (doc/driver.md, "PIO and DMA"): a request whose caller may sleep runs in
 * encrypt() or the hash's update/final when no request handed to crypto_engine waits to start
 * (hwoffload_run_sync), saving the hand-off and the wake-up: PIO to the end, DMA published and
 * waited for (hwoffload_dma_wait; polling CUR was no faster), the latter only for a caller that
 * waits anyway (crypto_req_done: an AIO batch goes through crypto_engine and chains). It holds
 * the device, fails with -ENODEV and takes hw_lock as a queued request does.
 */
#ifndef HWOFFLOAD_H
#define HWOFFLOAD_H

#include <crypto/aead.h>
#include <crypto/aes.h>
#include <crypto/engine.h>
#include <crypto/hash.h>
#include <crypto/skcipher.h>
#include <linux/atomic.h>
#include <linux/completion.h>
#include <linux/dma-direction.h>
#include <linux/device.h>
#include <linux/interrupt.h>
#include <linux/io.h>
#include <linux/ktime.h>
#include <linux/idr.h>
#include <linux/list.h>
#include <linux/miscdevice.h>
#include <linux/mutex.h>
#include <linux/pm_runtime.h>
#include <linux/scatterlist.h>
#include <linux/spinlock.h>
#include <linux/types.h>
#include <linux/wait.h>
#include <linux/workqueue.h>

#include "hwoffload-compat.h"
#include "hwoffload-stats.h"
#include "hwoffload_regs.h"

#define HWOFFLOAD_DRIVER_NAME		"hwoffload"

#define HWOFFLOAD_RING_ENTRIES		1024	/* descriptors; power of two <= RING_MAX */
#define HWOFFLOAD_MAX_DATA_DESCS	256	/* per request; more SG pieces are bounced */
/*
 * crypto_engine queue: every AF_ALG AIO request of every socket waits here while the engine
 * thread is busy, so leave room for a deep io_submit() batch.
 */
#define HWOFFLOAD_QUEUE_LEN		512
/* sessions of /dev/hwoffloadN open at once, each with a context record (hwoffload-device.c) */
#define HWOFFLOAD_DEVICE_SESSIONS	256
/* auto drivers: requests up to this many bytes go by PIO (one FIFO load), larger ones by DMA */
#define HWOFFLOAD_DEFAULT_THRESHOLD	HWE_FIFO_DEPTH

/*
 * The algorithms the engine serves, one row each; every type's drivers, the auto drivers'
 * thresholds (sysfs threshold_NAME) and their enum come from these rows, in this order:
 *
 *   SKCIPHER(name, engine mode, block size, IV size)	NAME(aes), hwoffload-cipher.c
 *   HASH(name, engine algorithm, digest size, block size, priority of the kernel's generic C
 *        driver, chaining words, word size, little-endian words)	NAME and hmac(NAME),
 *							hwoffload-hash.c
 *   AEAD(name, engine mode, IV size)			NAME(aes), hwoffload-aead.c
 *
 * The chaining words are the state as the generic driver exports it and the engine keeps it.
 */
#define HWOFFLOAD_ALGS(SKCIPHER, HASH, AEAD)						\
	SKCIPHER(ecb, HWE_MODE_ECB, AES_BLOCK_SIZE, 0)					\
	SKCIPHER(cbc, HWE_MODE_CBC, AES_BLOCK_SIZE, AES_BLOCK_SIZE)			\
	SKCIPHER(ctr, HWE_MODE_CTR, 1, AES_BLOCK_SIZE)					\
	HASH(md5, HWE_HASH_MD5, MD5_DIGEST_SIZE, MD5_HMAC_BLOCK_SIZE, 0, 4, 4, true)	\
	HASH(sha1, HWE_HASH_SHA1, SHA1_DIGEST_SIZE, SHA1_BLOCK_SIZE, 100, 5, 4, false)	\
	HASH(sha224, HWE_HASH_SHA224, SHA224_DIGEST_SIZE, SHA224_BLOCK_SIZE, 100, 8, 4, false) \
	HASH(sha256, HWE_HASH_SHA256, SHA256_DIGEST_SIZE, SHA256_BLOCK_SIZE, 100, 8, 4, false) \
	HASH(sha384, HWE_HASH_SHA384, SHA384_DIGEST_SIZE, SHA384_BLOCK_SIZE, 100, 8, 8, false) \
	HASH(sha512, HWE_HASH_SHA512, SHA512_DIGEST_SIZE, SHA512_BLOCK_SIZE, 100, 8, 8, false) \
	AEAD(gcm, HWE_MODE_GCM, GCM_AES_IV_SIZE)

/* Every driver's, with its path's: crypto_engine, hardware, never a software tier (above). */
#define HWOFFLOAD_ALG_FLAGS \
	(CRYPTO_ALG_ASYNC | CRYPTO_ALG_KERN_DRIVER_ONLY | CRYPTO_ALG_NEED_FALLBACK)

/* For the rows a use of HWOFFLOAD_ALGS() leaves out. */
#define HWOFFLOAD_ALG_NONE(name, ...)

#define HWOFFLOAD_ALG_ENUM(name, ...)	HWOFFLOAD_ALG_##name,

/* A row, in the order of HWOFFLOAD_ALGS(): the index of its threshold. */
enum hwoffload_alg_id {
	HWOFFLOAD_ALGS(HWOFFLOAD_ALG_ENUM, HWOFFLOAD_ALG_ENUM, HWOFFLOAD_ALG_ENUM)
	HWOFFLOAD_ALG_COUNT
};

enum hwoffload_path {
	HWOFFLOAD_PATH_AUTO,	/* PIO or DMA by the algorithm's threshold */
	HWOFFLOAD_PATH_PIO,
	HWOFFLOAD_PATH_DMA,
	HWOFFLOAD_PATH_COUNT,
	/* a request's route only, no driver's: an auto driver's software tier (above) */
	HWOFFLOAD_PATH_SOFTWARE = HWOFFLOAD_PATH_COUNT
};

/* hwoffload_route(): the software threshold a request is held to, hw->software[alg][tier] */
#define HWOFFLOAD_TIER_ENCRYPT	0	/* and a hash's */
#define HWOFFLOAD_TIER_DECRYPT	1
#define HWOFFLOAD_TIER_NONE	(-1)	/* one the tier cannot take */

/* What the drivers of a path are called and how the kernel ranks them (hwoffload-bind.c). */
struct hwoffload_path_info {
	const char *name;		/* in debugfs "requests" */
	const char *suffix;		/* of the driver names */
	int below_auto;			/* below the auto drivers' priority parameter */
	int below_generic;		/* hash drivers': below the kernel's generic C driver */
	u32 flags;
};

extern const struct hwoffload_path_info hwoffload_paths[HWOFFLOAD_PATH_COUNT];

#define HWOFFLOAD_FAULT_KNOBS		4

struct hwoffload_dev;

/* A debugfs file that arms one of the engine's fault-injection counters. */
struct hwoffload_fault_knob {
	struct hwoffload_dev *hw;
	u32 reg;
};

/*
 * Per ring slot, in coherent memory: the context record of the request whose LOAD_CTX sits in
 * that slot, which the engine writes back into: for AES the output IV, with the block that
 * carries a CTR tail shorter than 16 bytes; for a hash the length and state (or digest); for GCM
 * an encrypt's tag.
 */
struct hwoffload_slot {
	union {
		struct {
			struct hwe_aes_ctx ctx;
			u8 tail[AES_BLOCK_SIZE];
		};
		struct hwe_hash_ctx hash;
		struct hwe_gcm_ctx gcm;
	};
} __aligned(64);

/*
 * Where one request's time went, in ktime_get_ns(): CLOCK_MONOTONIC, the clock user space reads,
 * so a benchmark can put its own times around the system call beside these. 0: not reached.
 * debugfs "requests" shows the last HWOFFLOAD_REQ_LOG skcipher requests'.
 */
struct hwoffload_req_times {
	u64 enter;		/* encrypt() or decrypt() called */
	u64 start;		/* the crypto_engine thread or its caller started it */
	u64 doorbell;		/* the first doorbell rung for it */
	u64 seen;		/* its last completion seen: PIO poll, DMA hard interrupt */
	u64 thread;		/* DMA: the interrupt thread took the completion */
	u64 done;		/* about to finalize: the caller's completion follows */
	/*
	 * the engine's own time for it: its busy counter of the path (ENGINE.md section 8) from
	 * each doorbell to the completion seen; exact while one request at a time is on the path
	 */
	u64 engine_ns;
	u64 busy_mark;		/* that counter at the last doorbell */
};

#define HWOFFLOAD_REQ_LOG	64	/* requests kept in debugfs "requests"; power of two */

/* One finished skcipher request, for debugfs "requests". */
struct hwoffload_req_record {
	u64 seq;		/* 1 for the first request since the device was bound */
	struct hwoffload_req_times times;
	unsigned int len;
	enum hwoffload_path path;
	bool decrypt;
	int err;
};

struct hwoffload_req_log {
	spinlock_t lock;	/* taken with bottom halves off */
	u64 seq;		/* records written */
	struct hwoffload_req_record records[HWOFFLOAD_REQ_LOG];
};

struct hwoffload_dma_req;

/*
 * What the ring does with a finished request: the file that submitted it puts these in the
 * request, so the ring calls back no file by name.
 */
struct hwoffload_dma_ops {
	/*
	 * under the ring lock, before the slot of the first descriptor is wiped, failed or not:
	 * take the written-back record
	 */
	void (*collect)(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq,
			struct hwoffload_slot *slot);
	/* then, bottom halves off: unmap and finalize the crypto request */
	void (*finish)(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq);
};

/* A request on the ring, as the ring's bookkeeping sees it, from submission to completion. */
struct hwoffload_dma_req {
	struct list_head node;
	const struct hwoffload_dma_ops *ops;
	struct hwoffload_req_times *times;	/* stamped at doorbell and completion, or NULL */
	u32 first_desc;
	u32 ndesc;
	unsigned long deadline;
	int err;
	/* published by its caller, who waits for @done (hwoffload_dma_wait): not finalized */
	bool sync;
	struct completion done;
};

/* A request copied into pages the engine can take, when the caller's list breaks its rules. */
struct hwoffload_bounce {
	struct scatterlist *sgl;	/* NULL: no bounce */
	unsigned int nents;
	unsigned int order;
};

/* The lists an AES request's DATA descriptors run on, from mapping to unmapping. */
struct hwoffload_dma_bufs {
	struct scatterlist *src;	/* mapped: the caller's lists or the bounce list */
	struct scatterlist *dst;
	unsigned int len;		/* bytes the DATA descriptors carry from src */
	int src_nents;			/* entries given to dma_map_sg() */
	int dst_nents;
	struct hwoffload_bounce bounce;	/* when the caller's lists break the 16-byte rule */
};

struct hwoffload_ring {
	struct hwe_desc *desc;
	struct hwoffload_slot *slots;
	dma_addr_t desc_dma;
	dma_addr_t slots_dma;
	u32 head;			/* next descriptor to fill; published as HEAD */
	u32 tail;			/* oldest descriptor not completed */
	struct list_head pending;	/* requests in [tail, head), oldest first */
	spinlock_t lock;		/* pending, tail, head */
	wait_queue_head_t space;	/* woken when completions free descriptors */
};

struct hwoffload_dev {
	struct device *dev;
	void __iomem *doorbell;		/* ivshmem BAR0 Doorbell */
	void *regs;			/* BAR2, mapped write-back (ENGINE.md section 1) */
	u32 peer_id;
	u32 caps;
	int dma_irq;
	int irq_cpu;			/* where dma_irq is steered; -1: not yet */
	struct crypto_engine *engine;
	struct mutex hw_lock;		/* the PIO block, publishing to the ring, reset */
	u32 pio_seq;
	bool dead;			/* a reset failed: every request fails */
	struct hwoffload_ring ring;
	bool dma_chain;			/* publish while the ring is busy; debugfs "chain" */
	struct delayed_work timeout_work;
	unsigned int threshold[HWOFFLOAD_ALG_COUNT];	/* hwoffload-sysfs.c */
	unsigned int software[HWOFFLOAD_ALG_COUNT][2];	/* the software tier's: [row][tier] */
	/* binding (hwoffload-bind.c) */
	unsigned long generation;	/* this binding's; the transforms attached keep it */
	unsigned int sessions;		/* transforms attached, each a runtime PM reference */
	atomic_t inflight;		/* requests between hwoffload_dev_get() and finalize */
	/* requests handed to crypto_engine that it has not run (PIO) or published (DMA) yet */
	atomic_t queued;
	bool unbound;			/* requests not started fail with -ENODEV */
	struct dentry *debugfs;
	struct hwoffload_req_log req_log;
	u64 dma_irq_ns;			/* ktime_get_ns() of the last DMA hard interrupt */
	struct hwoffload_fault_knob fault_knobs[HWOFFLOAD_FAULT_KNOBS];
	atomic64_t stats[HWOFFLOAD_STAT_COUNT];
	/* /dev/hwoffloadN (hwoffload-device.c) and its sessions' context records */
	struct miscdevice misc;
	char misc_name[24];
	int misc_id;
	struct ida session_ida;
	struct hwoffload_slot *session_records;	/* HWOFFLOAD_DEVICE_SESSIONS, coherent */
	dma_addr_t session_records_dma;
};

/*
 * The drivers of one algorithm type, built from their rows of HWOFFLOAD_ALGS(): the core
 * registers them on the first engine bound that has @caps (hwoffload_algs_register).
 */
struct hwoffload_alg_type {
	const char *name;
	u32 caps;
	int (*register_algs)(void);
	void (*unregister_algs)(void);
};

/* An AES transform, skcipher or AEAD. */
struct hwoffload_tfm_ctx {
	struct hwoffload_engine_tfm_ctx engine;	/* first: see hwoffload-compat.h */
	unsigned long generation;	/* of the device attached to (hwoffload_tfm_attach) */
	enum hwoffload_alg_id alg;	/* its row: the auto driver's thresholds */
	enum hwoffload_path path;
	union { /* the auto driver's software tier ("Software tier" above); NULL on the others */
		struct crypto_skcipher *skcipher;
		struct crypto_aead *aead;
	} software;
	u32 hw_mode;
	unsigned int keylen;
	u8 key[AES_MAX_KEY_SIZE];
};

struct hwoffload_req_ctx {
	struct skcipher_request *req;
	struct hwoffload_dev *hw;	/* from submission to completion (hwoffload_dev_get) */
	enum hwoffload_path path;	/* PIO or DMA, chosen at submission */
	bool decrypt;
	struct hwoffload_req_times times;
	/* DMA only, from submission to completion */
	struct hwoffload_dma_req dma;
	struct hwoffload_dma_bufs bufs;
	unsigned int tail_len;		/* CTR bytes after bufs.len, in the slot's tail */
	u8 iv_out[AES_BLOCK_SIZE];
	u8 tail[AES_BLOCK_SIZE];
	/* the software tier's request; last: its context follows */
	struct skcipher_request software_req;
};

/*
 * A gcm(aes) request. The engine takes AAD || data as one stream and gives AAD || output back
 * (ENGINE.md section 12); the tag travels apart, in the record or the GCM registers.
 *
 * A decrypt whose tag does not match completes with -EBADMSG and must not hand on the
 * plaintext the engine produced. PIO writes none (the engine checks before it fills FIFO_OUT),
 * and a bounced DMA request is not copied out; a zero-copy DMA request has had the plaintext
 * written into the caller's destination as it streamed. So after any failed DMA decrypt (a
 * mismatch, or an engine fault midway) the driver zeroes the destination's data bytes, bounced
 * or not, before it completes the request: the simplest guarantee, cheap beside the unmap, and
 * the caller's pages (AF_ALG maps the user's) end up holding nothing of the message.
 */
struct hwoffload_aead_req_ctx {
	struct aead_request *req;
	struct hwoffload_dev *hw;	/* from submission to completion (hwoffload_dev_get) */
	enum hwoffload_path path;	/* PIO or DMA, chosen at submission */
	bool decrypt;
	unsigned int data_len;		/* cryptlen without the tag (decrypt) */
	/* encrypt: the engine's tag; decrypt: the one to compare, from the source */
	u8 tag[HWE_GCM_TAG_SIZE];
	/* DMA only, from submission to completion */
	struct hwoffload_dma_req dma;
	struct hwoffload_dma_bufs bufs;
	/* the software tier's request; last: its context follows */
	struct aead_request software_req;
};

/* A HASH() row of HWOFFLOAD_ALGS(). */
struct hwoffload_hash_info {
	const char *name;
	enum hwoffload_alg_id alg;
	u32 hw_alg;
	unsigned int digestsize;
	unsigned int blocksize;
	int generic_priority;		/* the kernel's generic C driver's */
	/* the chaining words, as the generic driver exports them and the engine keeps them */
	unsigned int words;
	unsigned int word_size;
	bool little_endian;
};

struct hwoffload_hash_tfm_ctx {
	struct hwoffload_engine_tfm_ctx engine;	/* first: see hwoffload-compat.h */
	unsigned long generation;	/* of the device attached to (hwoffload_tfm_attach) */
	const struct hwoffload_hash_info *info;	/* its row */
	enum hwoffload_path path;
	bool hmac;
	/* HMAC only: the generic hash, for keys longer than a block and the pad blocks */
	struct crypto_shash *generic;
	/* the auto driver's software tier ("Software tier" above); NULL on the others */
	struct crypto_ahash *software;
	/* the chaining states after the key's ipad and opad blocks, in the engine's layout */
	u8 ipad_state[HWE_HASH_STATE_SIZE];
	u8 opad_state[HWE_HASH_STATE_SIZE];
};

/*
 * A hash stream between requests, and what export() hands out: self-contained (no pointers,
 * so a state imported into another request or socket is whole; the stm32-hash lesson). A stream
 * the auto driver gave its software tier ("Software tier" above) is that implementation's export
 * (a generic one's is at most a SHA-512 state: state words, a 128-bit count, a block).
 */
struct hwoffload_hash_state {
	u32 software;			/* the software tier's stream: tier_state, no engine */
	union {
		struct {
			u64 len_lo;	/* the engine's length counter: bytes it hashed */
			u64 len_hi;
			u8 state[HWE_HASH_STATE_SIZE];	/* its chaining state after them */
			u8 buf[HWE_HASH_BLOCK_MAX];	/* bytes not sent yet: at most a block */
			u32 buflen;
			u32 started;	/* the engine took a block: resume, no INIT */
		};
		u8 tier_state[HWE_HASH_STATE_SIZE + 16 + HWE_HASH_BLOCK_MAX];
	};
};

struct hwoffload_hash_req_ctx {
	struct hwoffload_hash_state st;	/* first: export() and import() copy it */
	struct ahash_request *req;
	struct hwoffload_dev *hw;	/* from submission to completion (hwoffload_dev_get) */
	enum hwoffload_path path;	/* PIO or DMA, chosen at submission */
	bool final;
	bool hmac_final;		/* the outer hash follows the inner FINAL */
	u32 outer_desc;			/* DMA, HMAC: ring index of the outer LOAD_CTX */
	unsigned int src_len;		/* bytes of req->src the engine takes after st.buf */
	unsigned int keep;		/* bytes of req->src after those, buffered on success */
	/* DMA only, from submission to completion */
	struct hwoffload_dma_req dma;
	struct scatterlist *dma_src;
	int src_nents;			/* entries given to dma_map_sg(); 0: nothing mapped */
	struct hwoffload_bounce bounce;	/* st.buf is not empty, or req->src breaks the rules */
	/* the software tier's: st.buf, then its request; last: the request's context follows */
	struct scatterlist software_sg;
	struct ahash_request software_req;
};

extern unsigned int hwoffload_timeout_ms;
extern int hwoffload_priority;
extern int hwoffload_hash_priority;

/*
 * BAR2 is ordinary shared memory to the CPU: single-copy loads and stores of little-endian
 * words, and atomics on the words with two writers.
 */
static inline u32 hwoffload_read(struct hwoffload_dev *hw, u32 reg)
{
	return le32_to_cpu(READ_ONCE(*(__le32 *)(hw->regs + reg)));
}

static inline u64 hwoffload_read64(struct hwoffload_dev *hw, u32 reg)
{
	return le64_to_cpu(READ_ONCE(*(__le64 *)(hw->regs + reg)));
}

static inline void hwoffload_write(struct hwoffload_dev *hw, u32 reg, u32 val)
{
	WRITE_ONCE(*(__le32 *)(hw->regs + reg), cpu_to_le32(val));
}

static inline void hwoffload_write64(struct hwoffload_dev *hw, u32 reg, u64 val)
{
	WRITE_ONCE(*(__le64 *)(hw->regs + reg), cpu_to_le64(val));
}

/*
 * A word with two writers (INT_STATUS, CTRL); little-endian CPUs only, see
 * hwoffload_core_init().
 */
static inline atomic_t *hwoffload_reg_atomic(struct hwoffload_dev *hw, u32 reg)
{
	return (atomic_t *)(hw->regs + reg);
}

/* writel() orders the BAR2 stores before it: the engine reads BAR2 when the doorbell rings. */
static inline void hwoffload_ring_doorbell(struct hwoffload_dev *hw, u32 vector)
{
	writel(hw->peer_id << 16 | vector, hw->doorbell);
}

static inline void hwoffload_stat_add(struct hwoffload_dev *hw, enum hwoffload_stat stat, u64 n)
{
	atomic64_add(n, &hw->stats[stat]);
}

static inline void hwoffload_stat_inc(struct hwoffload_dev *hw, enum hwoffload_stat stat)
{
	atomic64_inc(&hw->stats[stat]);
}

static inline gfp_t hwoffload_req_gfp(struct crypto_async_request *base)
{
	return base->flags & CRYPTO_TFM_REQ_MAY_SLEEP ? GFP_KERNEL : GFP_ATOMIC;
}

/* Descriptor @index of the ring (a free-running count), and the slot that goes with it. */
static inline struct hwe_desc *hwoffload_ring_desc(struct hwoffload_ring *ring, u32 index)
{
	return &ring->desc[index & (HWOFFLOAD_RING_ENTRIES - 1)];
}

static inline struct hwoffload_slot *hwoffload_ring_slot(struct hwoffload_ring *ring, u32 index)
{
	return &ring->slots[index & (HWOFFLOAD_RING_ENTRIES - 1)];
}

static inline dma_addr_t hwoffload_ring_slot_dma(struct hwoffload_ring *ring, u32 index)
{
	return ring->slots_dma +
	       (index & (HWOFFLOAD_RING_ENTRIES - 1)) * sizeof(struct hwoffload_slot);
}

/* hwoffload-core.c */
int hwoffload_core_init(struct hwoffload_dev *hw);
void hwoffload_core_exit(struct hwoffload_dev *hw);
int hwoffload_core_start(struct hwoffload_dev *hw);
void hwoffload_core_stop(struct hwoffload_dev *hw);
int hwoffload_reset_locked(struct hwoffload_dev *hw);
void hwoffload_algs_unregister(void);

/* hwoffload-aead.c, hwoffload-cipher.c, hwoffload-hash.c */
extern const struct hwoffload_alg_type hwoffload_aead_type;
extern const struct hwoffload_alg_type hwoffload_skcipher_type;
extern const struct hwoffload_alg_type hwoffload_hash_type;
/* shared by the AES types */
int hwoffload_aes_setkey(struct hwoffload_tfm_ctx *ctx, const u8 *key, unsigned int keylen);
void hwoffload_aes_alg_base_init(struct crypto_alg *base, const char *mode,
				 enum hwoffload_path path, unsigned int blocksize,
				 unsigned int ctxsize);

/* hwoffload-hash.c: the HASH() row of an engine hash algorithm (HWE_HASH_*), or NULL */
const struct hwoffload_hash_info *hwoffload_hash_info_of(u32 hw_alg);
/*
 * The chaining words in CPU order (as a generic C driver's export leads with them), in the
 * engine's layout (ENGINE.md section 11).
 */
void hwoffload_hash_words_to_state(const struct hwoffload_hash_info *h, const void *words,
				   u8 *state);
/* The algorithm's initial chaining words, in the engine's layout: a message not started. */
void hwoffload_hash_initial_state(const struct hwoffload_hash_info *h, u8 *state);

/* hwoffload-hmac.c */
int hwoffload_hmac_setkey(struct crypto_ahash *tfm, const u8 *key, unsigned int keylen);
int hwoffload_hmac_init_tfm(struct hwoffload_hash_tfm_ctx *ctx);

/* hwoffload-sysfs.c */
extern const struct attribute_group *hwoffload_attr_groups[];

/* hwoffload-debugfs.c */
void hwoffload_debugfs_module_init(void);
void hwoffload_debugfs_module_exit(void);
void hwoffload_debugfs_software(struct crypto_tfm *software);
void hwoffload_debugfs_init(struct hwoffload_dev *hw);
void hwoffload_debugfs_exit(struct hwoffload_dev *hw);
void hwoffload_debugfs_log_request(struct hwoffload_dev *hw,
				   const struct hwoffload_req_record *rec);

/* hwoffload-device.c */
extern atomic_t hwoffload_device_pinned_pages;
int hwoffload_device_add(struct hwoffload_dev *hw);
void hwoffload_device_remove(struct hwoffload_dev *hw);
void hwoffload_device_exit(struct hwoffload_dev *hw);

/* hwoffload-bind.c */
int hwoffload_bind(struct hwoffload_dev *hw);
void hwoffload_unbind(struct hwoffload_dev *hw);
int hwoffload_tfm_attach(unsigned long *generation, u32 caps);
void hwoffload_tfm_detach(unsigned long generation);
struct hwoffload_dev *hwoffload_dev_get(unsigned long generation);
void hwoffload_dev_put(struct hwoffload_dev *hw);
enum hwoffload_path hwoffload_route(struct hwoffload_dev *hw, enum hwoffload_path path,
				    enum hwoffload_alg_id alg, unsigned int len, int tier,
				    enum hwoffload_stat auto_software);
bool hwoffload_run_sync(struct hwoffload_dev *hw, struct crypto_async_request *base,
			enum hwoffload_path path);
void hwoffload_queue_enter(struct hwoffload_dev *hw);
int hwoffload_queue_result(struct hwoffload_dev *hw, int ret);
void hwoffload_queue_leave(struct hwoffload_dev *hw);

/* hwoffload-pio.c */
int hwoffload_pio_take(struct hwoffload_dev *hw, u32 unit);
int hwoffload_pio_load_aes(struct hwoffload_dev *hw, const struct hwe_aes_ctx *ctx);
void hwoffload_pio_release(struct hwoffload_dev *hw);
int hwoffload_pio_run(struct hwoffload_dev *hw, unsigned int len, struct hwoffload_req_times *t);
int hwoffload_pio_chunk(struct hwoffload_dev *hw, struct scatterlist *src, struct scatterlist *dst,
			unsigned int off, unsigned int len, struct hwoffload_req_times *t);
void hwoffload_pio_count(struct hwoffload_dev *hw, int ret, enum hwoffload_stat requests,
			 enum hwoffload_stat bytes, unsigned int len);
int hwoffload_pio_probe(struct hwoffload_dev *hw, struct hwoffload_req_times *t);

/* hwoffload-dma.c */
int hwoffload_sg_dma_nents(struct device *dev, struct scatterlist *sg, unsigned int len,
			   unsigned int piece);
int hwoffload_bounce_alloc(struct hwoffload_bounce *b, unsigned int len, gfp_t gfp);
int hwoffload_bounce_map(struct hwoffload_dev *hw, struct hwoffload_bounce *b,
			 enum dma_data_direction dir);
void hwoffload_bounce_free(struct hwoffload_dev *hw, struct hwoffload_bounce *b,
			   enum dma_data_direction dir, struct scatterlist *copy_out,
			   unsigned int len);
int hwoffload_dma_map_bufs(struct hwoffload_dev *hw, struct hwoffload_dma_bufs *b,
			   struct scatterlist *src, struct scatterlist *dst, unsigned int len,
			   unsigned int copy_len, unsigned int bounce_len, gfp_t gfp);
void hwoffload_dma_unmap_bufs(struct hwoffload_dev *hw, struct hwoffload_dma_bufs *b,
			      struct scatterlist *src, struct scatterlist *dst,
			      unsigned int copy_len);
void hwoffload_desc_fill(struct hwe_desc *desc, dma_addr_t src, dma_addr_t dst, u32 len, u32 flags);
u32 hwoffload_dma_data_descs(struct hwoffload_ring *ring, u32 index, struct scatterlist *src,
			     struct scatterlist *dst, unsigned int len);
void hwoffload_ring_load_ctx(struct hwoffload_ring *ring, u32 index, size_t off, u32 len);
int hwoffload_ring_reserve(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq, u32 ndesc,
			   size_t ctx_off, u32 ctx_len);
void hwoffload_ring_publish(struct hwoffload_dev *hw, struct hwoffload_dma_req *dreq, u32 end);
int hwoffload_dma_wait(struct hwoffload_dma_req *dreq);
unsigned int hwoffload_dma_complete(struct hwoffload_dev *hw, bool all, u64 seen_ns);
int hwoffload_dma_probe(struct hwoffload_dev *hw, struct hwoffload_req_times *t);
void hwoffload_dma_timeout_work(struct work_struct *work);
irqreturn_t hwoffload_dma_irq(int irq, void *data);
irqreturn_t hwoffload_dma_irq_thread(int irq, void *data);

#endif /* HWOFFLOAD_H */
