/* SPDX-License-Identifier: Apache-2.0 */
/*
 * cipher_base.h - the context skeleton every cipher family shares (cipher_base.c), as OpenSSL's
 * ciphercommon.c is theirs: the key, the direction, the count of requests, the route cache, the
 * default provider's context and the kernel sessions; making, copying and wiping a context; the
 * algorithm's parameters. A family's context begins with a struct cipher_base, so that one
 * pointer is both (cipher.h for ECB, CBC and CTR; cipher_gcm.c for GCM).
 */
#ifndef HWPROV_CIPHER_BASE_H
#define HWPROV_CIPHER_BASE_H

#include <stdbool.h>
#include <stddef.h>

#include "backend/algs.h"
#include "backend/transport.h"
#include "provider/provider.h"

#define CIPHER_KERNEL_SESSIONS 4 /* kernel paths a stream keeps a session for: PIO, DMA, ... */

/* One kernel path's socket, keyed with the context's key; of the row's kind. */
struct cipher_kernel_session {
	struct hwoff_path *path; /* NULL: a free slot */
	union {
		struct hwoff_skcipher *skcipher; /* a cipher row's */
		struct hwoff_aead *aead; /* an AEAD row's */
	};
	bool holds_chain; /* cipher.h: its IV is the stream's chaining value */
};

struct cipher_base {
	struct hwprov *prov;
	const struct hwoff_alg *alg;
	bool keyed;
	bool encrypt;
	unsigned char key[HWOFF_AES_KEY_MAX];
	struct hwprov_tally tally;
	struct hwoff_route_cache route; /* reset by init: the direction may change */
	const struct hwprov_software *sw; /* the default provider's functions, once used */
	void *software; /* its context */
	struct cipher_kernel_session kernel[CIPHER_KERNEL_SESSIONS];
};

/* The rule every family's context keeps (they are made, copied and freed as a cipher_base). */
#define CIPHER_BASE_FIRST(type) \
	_Static_assert(offsetof(type, base) == 0, #type " does not begin with its cipher_base")

/* A family's context of size bytes, zeroed, beginning with its base; NULL with the error raised. */
void *cipher_base_new(struct hwprov *prov, const struct hwoff_alg *alg, size_t size);
/*
 * A copy of a context of size bytes: no kernel sessions (it makes its own), no requests counted,
 * its own copy of the default provider's context; what else the family's part points to is
 * src's until the family copies it. NULL on failure.
 */
void *cipher_base_dup(const struct cipher_base *src, size_t size);
/* The counted requests to the paths, the sessions and the software context freed, all wiped. */
void cipher_base_free(struct cipher_base *b, size_t size);

/* init: the counted requests go to the paths' counters, the route is asked again. */
void cipher_base_init(struct cipher_base *b);
/* init with a key of the algorithm's length: the sessions keep it when it is the same. */
void cipher_base_set_key(struct cipher_base *b, const unsigned char *key);

static inline enum hwoff_direction cipher_base_direction(const struct cipher_base *b)
{
	return b->encrypt ? HWOFF_ENCRYPT : HWOFF_DECRYPT;
}

/* The default provider's encrypt or decrypt init, by the direction, on its context. */
static inline int cipher_base_software_init(struct cipher_base *b, const unsigned char *key,
					    size_t keylen, const unsigned char *iv, size_t ivlen,
					    const OSSL_PARAM params[])
{
	return (b->encrypt ? b->sw->cipher.encrypt_init : b->sw->cipher.decrypt_init)(
		b->software, key, keylen, iv, ivlen, params);
}

/* Bytes the default provider served, counted to the software path. */
static inline void cipher_base_count_software(struct cipher_base *b, size_t bytes)
{
	hwprov_tally_add(b->prov, &b->tally, hwoff_router_software(&b->prov->router), bytes);
}

/*
 * fn, the default provider's update or cipher, on its context; the served bytes of inl (those
 * it gives output for) are counted to the software path when it succeeds.
 */
static inline int cipher_base_software_call(struct cipher_base *b, OSSL_FUNC_cipher_cipher_fn *fn,
					    unsigned char *out, size_t *outl, size_t outsize,
					    const unsigned char *in, size_t inl, size_t served)
{
	if (!fn(b->software, out, outl, outsize, in, inl))
		return 0;
	if (served)
		cipher_base_count_software(b, served);
	return 1;
}

/* The default provider's update on its context, counted: an AEAD's AAD (no output) is not. */
static inline int cipher_base_software_update(struct cipher_base *b, unsigned char *out,
					      size_t *outl, size_t outsize, const unsigned char *in,
					      size_t inl)
{
	return cipher_base_software_call(b, b->sw->cipher.update, out, outl, outsize, in, inl,
					 out ? inl : 0);
}

/* The default provider's functions and context, made on first use; 0 with the error raised. */
int cipher_base_software(struct cipher_base *b);
/* Raises "the default provider failed" and returns 0. */
int cipher_base_software_failed(const struct cipher_base *b);
/* The output buffer has room for need bytes, or the error is raised. */
int cipher_base_check_room(const struct cipher_base *b, size_t need, size_t outsize);

/*
 * The session of path, made with the key when the context has none; NULL with the transport's
 * message in err. Past CIPHER_KERNEL_SESSIONS paths (a table that alternates many drivers), the
 * first session is made again for the new path.
 */
struct cipher_kernel_session *cipher_kernel_session(struct cipher_base *b, struct hwoff_path *path,
						    char *err, size_t err_len);
void cipher_drop_kernel_session(const struct cipher_base *b, struct cipher_kernel_session *s);
void cipher_drop_kernel_sessions(struct cipher_base *b);
/*
 * A request on s (NULL: the session could not be made, err says why) failed: the router's
 * verdict (hwprov_kernel_failed()), true when software redoes the request.
 */
bool cipher_kernel_failed(struct cipher_base *b, struct hwoff_path *path,
			  const struct cipher_kernel_session *s, const char *err);

#endif
