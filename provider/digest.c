// SPDX-License-Identifier: Apache-2.0
/*
 * digest.c - MD5, SHA-1 and SHA-2: every row of the algorithm table of kind digest; and the
 * messages of its HMAC rows, for mac.c.
 *
 * A digest's length is known only at its end, and a hash state cannot move from the kernel to
 * software. So the message is buffered while the path table's answer could still change with
 * more bytes; once it cannot (past the entry's last range start, or BUFFER_MAX), or when the
 * message ends, the path for the size so far takes the buffer and everything after it. While
 * the buffered message is smaller than the table's software size, software also hashes it as it
 * arrives ("shadows" it), so a message that ends there (TLS's transcript hash, HKDF's) needs no
 * hash of the buffer at final, and its copies (the transcript's, at every handshake message) no
 * more than the software context's copy. While streaming to the kernel, small updates are
 * gathered so that one system call carries many of them.
 */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "backend/stats.h"
#include "backend/transport.h"
#include "provider/provider.h"

#define BUFFER_MAX   (4u << 20) /* past this the path for the size so far takes the message */
#define GATHER_MAX   HWOFF_HASH_GATHER_MAX /* updates this small are gathered for the kernel */
#define SMALL_BUFFER 512 /* above the built-in cut-off of 256 B */

enum digest_state {
	DIGEST_BUFFERING, /* the table's answer may still change: keep the message */
	DIGEST_KERNEL, /* streaming to path */
	DIGEST_SOFTWARE,
	DIGEST_FINISHED, /* final() ran; init() starts again */
};

struct digest_ctx {
	struct hwprov *prov;
	const struct hwoff_alg *alg;
	enum digest_state state;
	unsigned char *buf; /* BUFFERING: the message; KERNEL: gathered updates */
	size_t buf_len, buf_cap;
	size_t buf_dirty; /* bytes of buf ever written: what freeing wipes */
	size_t total; /* message bytes so far */
	struct hwoff_path *path; /* what serves this message */
	struct hwoff_hash *kernel; /* on kernel_path, kept across messages */
	struct hwoff_path *kernel_path;
	bool kernel_fresh; /* no partial message in kernel */
	const struct hwprov_software *sw; /* the default provider's functions, once used */
	/*
	 * Its context. An HMAC row's is mac.c's, which gives it the key and the parameters and
	 * initialises it for every message: this file only feeds and finishes it.
	 */
	void *software;
	/*
	 * software has the message's first software_has bytes (set up for this message; an HMAC
	 * row's always is, by mac.c), whatever the path: the shadow of the buffer, or all of it.
	 */
	bool software_ready;
	size_t software_has;
	unsigned char *key; /* an HMAC row's, for its kernel sockets */
	size_t key_len;
	struct hwprov_tally tally;
	/* Last, and never zeroed: only what was written is wiped (buf_dirty). */
	unsigned char small[SMALL_BUFFER]; /* buf until a message outgrows it: no malloc */
};

static void wipe_buffer(struct digest_ctx *c)
{
	OPENSSL_cleanse(c->buf, c->buf_dirty);
	if (c->buf != c->small)
		OPENSSL_free(c->buf);
	c->buf = c->small;
	c->buf_cap = sizeof(c->small);
	c->buf_dirty = 0;
}

static int append(struct digest_ctx *c, const void *data, size_t len)
{
	if (c->buf_len + len > c->buf_cap) {
		size_t cap = c->buf_cap * 2;
		unsigned char *buf;

		while (cap < c->buf_len + len)
			cap *= 2;
		buf = OPENSSL_malloc(cap);
		if (!buf) {
			HWPROV_RAISE(c->prov, HWPROV_R_OUT_OF_MEMORY, "%s: a buffer of %zu bytes",
				     c->alg->name, cap);
			return 0;
		}
		memcpy(buf, c->buf, c->buf_len);
		wipe_buffer(c);
		c->buf = buf;
		c->buf_cap = cap;
		c->buf_dirty = c->buf_len;
	}
	memcpy(c->buf + c->buf_len, data, len);
	c->buf_len += len;
	if (c->buf_dirty < c->buf_len)
		c->buf_dirty = c->buf_len;
	return 1;
}

static void drop_kernel(struct digest_ctx *c)
{
	hwoff_hash_free(c->kernel);
	c->kernel = NULL;
	c->kernel_path = NULL;
}

/* The software context set up for this message, which it has none of yet. */
static int software_begin(struct digest_ctx *c)
{
	if (!c->sw) {
		c->sw = hwprov_software_of(c->prov, c->alg);
		if (!c->sw)
			return 0;
	}
	if (!c->software)
		c->software = c->sw->digest.newctx(c->sw->provctx);
	if (!c->software ||
	    (!hwoff_alg_is_hmac(c->alg) && !c->sw->digest.init(c->software, NULL))) {
		HWPROV_RAISE(c->prov, HWPROV_R_SOFTWARE, "%s in the default provider failed",
			     c->alg->name);
		return 0;
	}
	c->software_ready = true;
	c->software_has = 0;
	return 1;
}

/*
 * Software takes the message from here, starting with what is buffered (the whole message so far)
 * and it does not have yet.
 */
static int start_software(struct digest_ctx *c)
{
	if (!c->software_ready && !software_begin(c))
		return 0;
	if (c->buf_len > c->software_has &&
	    !c->sw->digest.update(c->software, c->buf + c->software_has,
				  c->buf_len - c->software_has)) {
		HWPROV_RAISE(c->prov, HWPROV_R_SOFTWARE, "%s in the default provider failed",
			     c->alg->name);
		return 0;
	}
	c->buf_len = 0;
	c->state = DIGEST_SOFTWARE;
	c->path = hwoff_router_software(&c->prov->router);
	return 1;
}

static int software_update(struct digest_ctx *c, const void *data, size_t len)
{
	if (c->sw->digest.update(c->software, data, len))
		return 1;
	HWPROV_RAISE(c->prov, HWPROV_R_SOFTWARE, "%s in the default provider failed", c->alg->name);
	return 0;
}

/*
 * The kernel failed, with pending bytes of the message not given to it yet. While every earlier
 * byte is still in buf, software takes the message over (if fallback is on); once some are only
 * in the kernel, software cannot redo what it never saw, and the message fails.
 */
static int kernel_failed(struct digest_ctx *c, size_t pending)
{
	char err[HWOFF_TRANSPORT_ERROR_MAX];
	struct hwoff_path *path = c->path;
	bool orphaned = hwoff_hash_orphaned(c->kernel);

	snprintf(err, sizeof(err), "%s", hwoff_hash_error(c->kernel));
	drop_kernel(c);
	if (c->buf_len == c->total - pending)
		return hwprov_kernel_failed(c->prov, path, HWOFF_FALLBACK_REQUEST_FAILED, err) &&
		       start_software(c);
	if (!orphaned) /* the path is not at fault for a socket the process closed */
		hwoff_route_failed(&c->prov->router, path, HWOFF_FALLBACK_REQUEST_FAILED, false,
				   err);
	c->state = DIGEST_FINISHED;
	HWPROV_RAISE(c->prov, HWPROV_R_KERNEL,
		     "%s: %s; the kernel had part of this message, so software cannot finish it",
		     c->alg->name, err);
	return 0;
}

/* The kernel takes the message from here: the buffer first, which is kept until it is sent. */
static int start_kernel(struct digest_ctx *c, struct hwoff_path *path)
{
	char err[HWOFF_TRANSPORT_ERROR_MAX];

	if (c->kernel && c->kernel_path != path)
		drop_kernel(c);
	if (c->kernel && !c->kernel_fresh && hwoff_hash_reset(c->kernel))
		drop_kernel(c);
	if (!c->kernel) {
		if (hwoff_hash_new(&c->kernel, c->alg, path->name, c->key, c->key_len, err,
				   sizeof(err)))
			return hwprov_kernel_failed(c->prov, path, HWOFF_FALLBACK_SETUP_FAILED,
						    err) &&
			       start_software(c);
		c->kernel_path = path;
	}
	c->kernel_fresh = false;
	c->path = path;
	c->state = DIGEST_KERNEL;
	if (c->buf_len < GATHER_MAX)
		return 1;
	if (hwoff_hash_update(c->kernel, c->buf, c->buf_len))
		return kernel_failed(c, 0); /* the buffer is the whole message: software can redo */
	c->buf_len = 0;
	return 1;
}

/*
 * The path for a message of size bytes takes it over, from the buffered bytes on: the table's
 * answer will not change now.
 */
static int commit(struct digest_ctx *c, size_t size)
{
	struct hwoff_path *path = hwprov_route(c->prov, c->alg, HWOFF_DIGEST, size, NULL);
	if (!path)
		return 0;
	return path->software ? start_software(c) : start_kernel(c, path);
}

/* Messages smaller than this go to software: what is buffered below it is shadowed. */
static size_t shadowed_below(const struct digest_ctx *c)
{
	return hwoff_router_software_below(&c->prov->router, c->alg, HWOFF_DIGEST);
}

/*
 * Whether an update of len bytes commits the message to the path for its size so far, though
 * more could follow: one this large is sent on its own in any case (GATHER_MAX) and is past the
 * software sizes, a message handed over whole (EVP_Digest(), openssl speed) or the bulk of one.
 * Buffering it to wait for the message's end would cost more than a later change of path could
 * win (its copy and wipe: the path's speed times 0.88 at 256 KiB, SHA2-256 on qemu64); a stream
 * of smaller updates is still routed by its whole size.
 */
static bool commits(const struct digest_ctx *c, size_t len)
{
	return len >= GATHER_MAX && len >= shadowed_below(c);
}

/* Whether no message larger than size bytes could take another path. */
static bool settled(const struct digest_ctx *c, size_t size)
{
	return size >= BUFFER_MAX || size >= hwoff_router_settled_from(&c->prov->router, c->alg);
}

static int kernel_update(struct digest_ctx *c, const void *data, size_t len)
{
	if (c->buf_len + len <= GATHER_MAX)
		return append(c, data, len);
	if (c->buf_len && hwoff_hash_update(c->kernel, c->buf, c->buf_len))
		return kernel_failed(c, len) && software_update(c, data, len);
	c->buf_len = 0;
	if (len < GATHER_MAX)
		return append(c, data, len);
	if (hwoff_hash_update(c->kernel, data, len))
		return kernel_failed(c, len) && software_update(c, data, len);
	return 1;
}

/* ---- the dispatch functions ---------------------------------------------------------------------
 */

/* A context of its own when the row has no spare; out of line, off the spare's path. */
static __attribute__((noinline)) struct digest_ctx *new_digest_ctx(struct hwprov *prov,
								   const struct hwoff_alg *alg)
{
	struct digest_ctx *c = OPENSSL_malloc(sizeof(*c));

	if (!c) {
		HWPROV_RAISE(prov, HWPROV_R_OUT_OF_MEMORY, "%s: a context", alg->name);
		return NULL;
	}
	memset(c, 0, offsetof(struct digest_ctx, small));
	c->prov = prov;
	c->alg = alg;
	c->state = DIGEST_FINISHED;
	c->buf = c->small;
	c->buf_cap = sizeof(c->small);
	return c;
}

void *hwprov_digest_newctx(struct hwprov *prov, const struct hwoff_alg *alg)
{
	struct digest_ctx *c;

	if (!hwprov_can_serve(prov, alg))
		return NULL;
	c = atomic_exchange_explicit(&prov->spare_digest[hwoff_alg_index(alg)], NULL,
				     memory_order_acquire);
	return c ? c : new_digest_ctx(prov, alg);
}

static void free_digest_ctx(struct digest_ctx *c)
{
	hwprov_tally_flush(c->prov, &c->tally);
	drop_kernel(c);
	if (c->software && !hwoff_alg_is_hmac(c->alg))
		c->sw->digest.freectx(c->software);
	wipe_buffer(c);
	OPENSSL_clear_free(c->key, c->key_len);
	OPENSSL_free(c);
}

/*
 * Kept as its row's spare when there is none, wiped, with its software and kernel contexts and
 * its count of requests (hwprov_digest_flush_spares()).
 */
static void digest_freectx(void *vctx)
{
	struct digest_ctx *c = vctx;
	void *none = NULL;

	if (!c)
		return;
	if (c->state != DIGEST_FINISHED) {
		if (c->software && !c->sw->digest.init(c->software, NULL)) {
			free_digest_ctx(c);
			return;
		}
		if (c->state == DIGEST_KERNEL)
			drop_kernel(c); /* its partial message goes with the socket */
	}
	wipe_buffer(c);
	c->buf_len = 0;
	c->state = DIGEST_FINISHED;
	if (!atomic_compare_exchange_strong_explicit(
		    &c->prov->spare_digest[hwoff_alg_index(c->alg)], &none, c, memory_order_release,
		    memory_order_relaxed))
		free_digest_ctx(c);
}

void hwprov_digest_flush_spares(struct hwprov *prov)
{
	for (size_t i = 0; i < HWOFF_ALG_COUNT; i++) {
		struct digest_ctx *c = atomic_exchange(&prov->spare_digest[i], NULL);
		void *none = NULL;

		if (!c)
			continue;
		hwprov_tally_flush(c->prov, &c->tally);
		if (!atomic_compare_exchange_strong(&prov->spare_digest[i], &none, c))
			free_digest_ctx(c);
	}
}

void hwprov_digest_free_spares(struct hwprov *prov)
{
	for (size_t i = 0; i < HWOFF_ALG_COUNT; i++) {
		struct digest_ctx *c = atomic_exchange(&prov->spare_digest[i], NULL);

		if (c)
			free_digest_ctx(c);
	}
}

/* A copy of src; an HMAC row's takes hmac_software, mac.c's copy of src's. */
static struct digest_ctx *dup_message(const struct digest_ctx *src, void *hmac_software)
{
	struct digest_ctx *c = OPENSSL_malloc(sizeof(*src));
	char err[HWOFF_TRANSPORT_ERROR_MAX];

	if (!c) {
		HWPROV_RAISE(src->prov, HWPROV_R_OUT_OF_MEMORY, "%s: a copy of a context",
			     src->alg->name);
		return NULL;
	}
	memcpy(c, src, offsetof(struct digest_ctx, small)); /* the buffer's bytes: append() */
	c->buf = c->small;
	c->buf_cap = sizeof(c->small);
	c->buf_len = c->buf_dirty = 0;
	c->tally = (struct hwprov_tally){ 0 };
	c->kernel = NULL;
	c->kernel_path = NULL;
	c->software = hmac_software;
	c->key = NULL;
	c->key_len = 0;
	if (!append(c, src->buf, src->buf_len))
		goto fail;
	if (src->key) {
		c->key = OPENSSL_memdup(src->key, src->key_len ? src->key_len : 1);
		if (!c->key)
			goto fail;
		c->key_len = src->key_len;
	}
	if (src->software_ready && !hwoff_alg_is_hmac(src->alg)) {
		c->software = src->sw->digest.dupctx(src->software);
		if (!c->software)
			goto fail;
	}
	if (src->state == DIGEST_KERNEL) {
		/* accept() on the original's socket: the kernel copies its partial state. */
		if (hwoff_hash_dup(&c->kernel, src->kernel, err, sizeof(err))) {
			HWPROV_RAISE(c->prov, HWPROV_R_KERNEL, "%s: copying the kernel's state: %s",
				     c->alg->name, err);
			goto fail;
		}
		c->kernel_path = src->kernel_path;
	}
	return c;
fail:
	free_digest_ctx(c);
	return NULL;
}

static void *digest_dupctx(void *vctx)
{
	return dup_message(vctx, NULL);
}

static int digest_init(void *vctx, const OSSL_PARAM params[])
{
	struct digest_ctx *c = vctx;

	if (c->state == DIGEST_KERNEL)
		c->kernel_fresh = false; /* abandoned half-way: reset before reuse */
	c->buf_len = 0;
	c->total = 0;
	c->state = DIGEST_BUFFERING;
	c->path = NULL;
	c->software_ready = hwoff_alg_is_hmac(c->alg); /* mac.c has just initialised it */
	c->software_has = 0;
	if (settled(c, 0))
		return commit(c, 0);
	return c->software_ready || !shadowed_below(c) || software_begin(c);
}

static int digest_update(void *vctx, const unsigned char *in, size_t inl)
{
	struct digest_ctx *c = vctx;

	if (c->state == DIGEST_FINISHED) {
		HWPROV_RAISE(c->prov, HWPROV_R_NOT_INITIALIZED, "%s: update without init",
			     c->alg->name);
		return 0;
	}
	if (!inl)
		return 1;
	if (!hwprov_check_length(c->prov, c->alg->name, inl))
		return 0;
	if (!in) {
		HWPROV_RAISE(c->prov, HWPROV_R_BAD_ARGUMENT, "%s: NULL input of %zu bytes",
			     c->alg->name, inl);
		return 0;
	}
	if (c->state == DIGEST_BUFFERING) {
		/* Not copied when this update settles the path: the path takes it as it comes. */
		if (!settled(c, c->total + inl) && !commits(c, inl)) {
			c->total += inl;
			if (!append(c, in, inl))
				return 0;
			if (!c->software_ready || c->total >= shadowed_below(c))
				return 1;
			if (!software_update(c, in, inl))
				return 0;
			c->software_has = c->total;
			return 1;
		}
		if (!commit(c, c->total + inl))
			return 0;
	}
	c->total += inl;
	switch (c->state) {
	case DIGEST_KERNEL:
		return kernel_update(c, in, inl);
	case DIGEST_SOFTWARE:
		return software_update(c, in, inl);
	default:
		return 0;
	}
}

static int digest_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
	struct digest_ctx *c = vctx;
	size_t mdlen;

	if (c->state == DIGEST_FINISHED) {
		HWPROV_RAISE(c->prov, HWPROV_R_NOT_INITIALIZED, "%s: final without init",
			     c->alg->name);
		return 0;
	}
	if (!out || outsize < c->alg->digest_bytes) {
		HWPROV_RAISE(c->prov, HWPROV_R_BAD_ARGUMENT,
			     "%s: output buffer of %zu bytes, %u needed", c->alg->name,
			     out ? outsize : 0, c->alg->digest_bytes);
		return 0;
	}
	/* Ended while the table could still have chosen: the message's size decides. */
	if (c->state == DIGEST_BUFFERING && !commit(c, c->total))
		return 0;
	if (c->state == DIGEST_KERNEL) {
		if (!hwoff_hash_finup(c->kernel, c->buf, c->buf_len, out, outsize)) {
			c->buf_len = 0;
			c->kernel_fresh = true;
			hwoff_path_served(c->path);
			goto done;
		}
		if (!kernel_failed(c, 0))
			return 0;
	}
	if (!c->sw->digest.final(c->software, out, &mdlen, outsize)) {
		HWPROV_RAISE(c->prov, HWPROV_R_SOFTWARE, "%s in the default provider failed",
			     c->alg->name);
		return 0;
	}
done:
	hwprov_tally_add(c->prov, &c->tally, c->path, c->total);
	c->state = DIGEST_FINISHED;
	*outl = c->alg->digest_bytes;
	return 1;
}

/* ---- parameters ---------------------------------------------------------------------------------
 */

int hwprov_digest_get_params(const struct hwoff_alg *alg, OSSL_PARAM params[])
{
	return hwprov_param_set_size(params, OSSL_DIGEST_PARAM_BLOCK_SIZE, alg->block_bytes) &&
	       hwprov_param_set_size(params, OSSL_DIGEST_PARAM_SIZE, alg->digest_bytes) &&
	       hwprov_param_set_int(params, OSSL_DIGEST_PARAM_XOF, 0) &&
	       hwprov_param_set_int(params, OSSL_DIGEST_PARAM_ALGID_ABSENT, alg->algid_absent);
}

static const OSSL_PARAM digest_gettable[] = {
	OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_BLOCK_SIZE, NULL),
	OSSL_PARAM_size_t(OSSL_DIGEST_PARAM_SIZE, NULL),
	OSSL_PARAM_int(OSSL_DIGEST_PARAM_XOF, NULL),
	OSSL_PARAM_int(OSSL_DIGEST_PARAM_ALGID_ABSENT, NULL),
	OSSL_PARAM_END,
};

static const OSSL_PARAM *digest_gettable_params(void *provctx)
{
	return digest_gettable;
}

const OSSL_DISPATCH hwprov_digest_functions[] = {
	{ OSSL_FUNC_DIGEST_FREECTX, HWPROV_FN(digest_freectx) },
	{ OSSL_FUNC_DIGEST_DUPCTX, HWPROV_FN(digest_dupctx) },
	{ OSSL_FUNC_DIGEST_INIT, HWPROV_FN(digest_init) },
	{ OSSL_FUNC_DIGEST_UPDATE, HWPROV_FN(digest_update) },
	{ OSSL_FUNC_DIGEST_FINAL, HWPROV_FN(digest_final) },
	{ OSSL_FUNC_DIGEST_GETTABLE_PARAMS, HWPROV_FN(digest_gettable_params) },
	{ 0, NULL },
};
HWPROV_SHARED_FUNCTIONS_FIT(hwprov_digest_functions);

/* ---- the messages of HMAC rows, for mac.c -------------------------------------------------------
 */

void *hwprov_hmac_message_new(struct hwprov *prov, const struct hwoff_alg *row, void *software)
{
	struct digest_ctx *c;

	if (!hwprov_can_serve(prov, row))
		return NULL;
	c = new_digest_ctx(prov, row);
	if (!c)
		return NULL;
	c->sw = hwprov_software_of(prov, row);
	if (!c->sw) {
		free_digest_ctx(c);
		return NULL;
	}
	c->software = software;
	return c;
}

void *hwprov_hmac_message_dup(void *message, void *software)
{
	return dup_message(message, software);
}

void hwprov_hmac_message_free(void *message)
{
	if (message)
		free_digest_ctx(message);
}

int hwprov_hmac_message_set_key(void *message, const unsigned char *key, size_t key_len)
{
	struct digest_ctx *c = message;
	unsigned char *copy;

	/* The same key again (HKDF, TLS, EVP_Q_mac() give it per message): the sockets stay. */
	if (c->key && c->key_len == key_len && CRYPTO_memcmp(c->key, key, key_len) == 0)
		return 1;
	copy = OPENSSL_memdup(key_len ? key : (const unsigned char *)"", key_len ? key_len : 1);
	if (!copy) {
		HWPROV_RAISE(c->prov, HWPROV_R_OUT_OF_MEMORY, "%s: a copy of its key",
			     c->alg->name);
		return 0;
	}
	OPENSSL_clear_free(c->key, c->key_len);
	c->key = copy;
	c->key_len = key_len;
	drop_kernel(c); /* keyed with the old one */
	return 1;
}

int hwprov_hmac_message_init(void *message)
{
	return digest_init(message, NULL);
}

int hwprov_hmac_message_update(void *message, const unsigned char *in, size_t len)
{
	return digest_update(message, in, len);
}

int hwprov_hmac_message_final(void *message, unsigned char *out, size_t *outl, size_t outsize)
{
	return digest_final(message, out, outl, outsize);
}
