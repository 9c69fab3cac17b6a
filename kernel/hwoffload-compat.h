/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The one place where the kernel API changes since 6.1 show: crypto_engine's of Linux 6.6,
 * the completion callback's of 6.3 (hwoffload_done_arg) and 6.12's unaligned accessors.
 *
 * 6.6 moved do_one_request from a struct crypto_engine_ctx at the start of every tfm context
 * into the algorithm (struct skcipher_engine_alg / ahash_engine_alg / aead_engine_alg,
 * crypto_engine_register_skciphers / _ahashes / _aeads). The driver is written against the 6.6
 * form; on older kernels this header provides that form on top of the old one.
 */
#ifndef HWOFFLOAD_COMPAT_H
#define HWOFFLOAD_COMPAT_H

#include <crypto/engine.h>
#include <crypto/internal/aead.h>
#include <crypto/internal/hash.h>
#include <crypto/internal/skcipher.h>
#include <linux/version.h>

/* 6.12 moved the unaligned accessors from asm/ to linux/ */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#include <linux/unaligned.h>
#else
#include <asm/unaligned.h>
#endif

/*
 * The largest state crypto_register_ahash() accepts; 6.1 exports it, later kernels keep it in
 * crypto/hash.h, outside include/.
 */
#ifndef HASH_MAX_STATESIZE
#define HASH_MAX_STATESIZE	512
#endif

/*
 * Completion callbacks: 6.3 passes one its request's data, 6.1 the request, whose data it is.
 * A callback takes a hwoffload_done_arg and finds its data with hwoffload_done_data();
 * hwoffload_request_complete() completes a request as 6.3's crypto_request_complete().
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 3, 0)
typedef void *hwoffload_done_arg;

static inline void *hwoffload_done_data(hwoffload_done_arg arg)
{
	return arg;
}

static inline void hwoffload_request_complete(struct crypto_async_request *base, int err)
{
	base->complete(base->data, err);
}
#else
typedef struct crypto_async_request *hwoffload_done_arg;

static inline void *hwoffload_done_data(hwoffload_done_arg arg)
{
	return arg->data;
}

static inline void hwoffload_request_complete(struct crypto_async_request *base, int err)
{
	base->complete(base, err);
}
#endif

#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 6, 0)

/* The engine finds do_one_request through the algorithm: nothing in the tfm context. */
struct hwoffload_engine_tfm_ctx {
};

static inline void hwoffload_engine_tfm_init(struct hwoffload_engine_tfm_ctx *ctx,
					     const struct crypto_engine_op *op)
{
}

#else

struct skcipher_engine_alg {
	struct skcipher_alg base;
	struct crypto_engine_op op;
};

struct ahash_engine_alg {
	struct ahash_alg base;
	struct crypto_engine_op op;
};

struct aead_engine_alg {
	struct aead_alg base;
	struct crypto_engine_op op;
};

/* The engine reads do_one_request from the first member of the tfm context. */
struct hwoffload_engine_tfm_ctx {
	struct crypto_engine_ctx enginectx;
};

static inline void hwoffload_engine_tfm_init(struct hwoffload_engine_tfm_ctx *ctx,
					     const struct crypto_engine_op *op)
{
	ctx->enginectx.op = *op;
}

/*
 * The plural helpers of 6.6 on 6.1's registration of one algorithm: @algs[0..@count), unwound on
 * failure.
 */
#define HWOFFLOAD_ENGINE_REGISTER_ALGS(type, types)					\
static inline int crypto_engine_register_##types(struct type##_engine_alg *algs, int count) \
{											\
	int i, ret;									\
											\
	for (i = 0; i < count; i++) {							\
		ret = crypto_register_##type(&algs[i].base);				\
		if (ret)								\
			goto err_unregister;						\
	}										\
	return 0;									\
err_unregister:										\
	while (i--)									\
		crypto_unregister_##type(&algs[i].base);				\
	return ret;									\
}											\
											\
static inline void crypto_engine_unregister_##types(struct type##_engine_alg *algs, int count) \
{											\
	while (count--)									\
		crypto_unregister_##type(&algs[count].base);				\
}

HWOFFLOAD_ENGINE_REGISTER_ALGS(skcipher, skciphers)
HWOFFLOAD_ENGINE_REGISTER_ALGS(ahash, ahashes)
HWOFFLOAD_ENGINE_REGISTER_ALGS(aead, aeads)

#endif

#endif /* HWOFFLOAD_COMPAT_H */
