// SPDX-License-Identifier: Apache-2.0
/*
 * transport.c - the calls of transport.h: a context's transport found by its driver's name, what
 * every transport would check checked once, then the transport's operation.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>

#include "backend/transport.h"

#define HWOFF_TRANSPORT_ENTRY(name) &hwoff_transport_##name,
static const struct hwoff_transport *const transports[] = { HWOFF_TRANSPORTS(
	HWOFF_TRANSPORT_ENTRY) };
#undef HWOFF_TRANSPORT_ENTRY

const struct hwoff_transport *hwoff_transport_of(const char *driver)
{
	size_t i = 0;

	/* the last one reaches every driver */
	while (transports[i]->reaches && !transports[i]->reaches(driver))
		i++;
	return transports[i];
}

/*
 * A cipher context's key: alg of the context's kind (kind_fits), its key's size, which the
 * context keeps (at most HWOFF_AES_KEY_MAX).
 */
static int check_cipher_key(bool kind_fits, const struct hwoff_alg *alg, const char *driver,
			    size_t key_len, char *err, size_t err_len)
{
	if (kind_fits && key_len == alg->key_bytes && key_len <= HWOFF_AES_KEY_MAX)
		return 0;
	snprintf(err, err_len, "%s on %s: a key of %zu bytes, the algorithm takes %u", alg->name,
		 driver, key_len, alg->key_bytes);
	return -EINVAL;
}

/* A transport that serves no such algorithm (its ops are NULL): a table naming it is wrong. */
static int not_served(const struct hwoff_alg *alg, const char *driver, char *err, size_t err_len)
{
	snprintf(err, err_len, "%s on %s: the transport of that path does not serve it", alg->name,
		 driver);
	return -EOPNOTSUPP;
}

/* ---- skcipher -------------------------------------------------------------------------------- */

int hwoff_skcipher_new(struct hwoff_skcipher **out, const struct hwoff_alg *alg, const char *driver,
		       const unsigned char *key, size_t key_len, char *err, size_t err_len)
{
	const struct hwoff_skcipher_ops *ops = hwoff_transport_of(driver)->skcipher;

	*out = NULL;
	return check_cipher_key(!hwoff_alg_is_digest(alg), alg, driver, key_len, err, err_len)
		       ?: !ops ? not_served(alg, driver, err, err_len)
			       : ops->open(out, alg, driver, key, key_len, err, err_len);
}

void hwoff_skcipher_free(struct hwoff_skcipher *c)
{
	if (c)
		c->ops->close(c);
}

int hwoff_skcipher_crypt(struct hwoff_skcipher *c, bool encrypt, const unsigned char *in,
			 unsigned char *out, size_t len)
{
	return c->ops->crypt(c, encrypt, in, out, len);
}

int hwoff_skcipher_set_iv(struct hwoff_skcipher *c, const unsigned char *iv, size_t iv_len)
{
	return c->ops->set_iv(c, iv, iv_len);
}

size_t hwoff_skcipher_chunk_bytes(const struct hwoff_skcipher *c)
{
	return c->ops->chunk_bytes(c);
}

const char *hwoff_skcipher_error(const struct hwoff_skcipher *c)
{
	return c->ops->error(c);
}

/* ---- hash ------------------------------------------------------------------------------------ */

int hwoff_hash_new(struct hwoff_hash **out, const struct hwoff_alg *alg, const char *driver,
		   const unsigned char *key, size_t key_len, char *err, size_t err_len)
{
	*out = NULL;
	if (!hwoff_alg_is_digest(alg)) {
		snprintf(err, err_len, "%s on %s: not a digest", alg->name, driver);
		return -EINVAL;
	}
	if (!hwoff_transport_of(driver)->hash)
		return not_served(alg, driver, err, err_len);
	return hwoff_transport_of(driver)->hash->open(out, alg, driver, key, key_len, err, err_len);
}

int hwoff_hash_dup(struct hwoff_hash **out, struct hwoff_hash *h, char *err, size_t err_len)
{
	*out = NULL;
	return h->ops->dup(out, h, err, err_len);
}

void hwoff_hash_free(struct hwoff_hash *h)
{
	if (h)
		h->ops->close(h);
}

int hwoff_hash_update(struct hwoff_hash *h, const void *data, size_t len)
{
	return h->ops->update(h, data, len);
}

int hwoff_hash_final(struct hwoff_hash *h, unsigned char *md, size_t md_len)
{
	return h->ops->final(h, md, md_len);
}

int hwoff_hash_finup(struct hwoff_hash *h, const void *data, size_t len, unsigned char *md,
		     size_t md_len)
{
	return h->ops->finup(h, data, len, md, md_len);
}

int hwoff_hash_reset(struct hwoff_hash *h)
{
	return h->ops->reset(h);
}

const char *hwoff_hash_error(const struct hwoff_hash *h)
{
	return h->ops->error(h);
}

bool hwoff_hash_orphaned(const struct hwoff_hash *h)
{
	return h->ops->orphaned(h);
}

/* ---- AEAD ------------------------------------------------------------------------------------ */

bool hwoff_aead_tag_len_valid(size_t tag_len)
{
	return tag_len == 4 || tag_len == 8 || (tag_len >= 12 && tag_len <= HWOFF_GCM_TAG_MAX);
}

int hwoff_aead_new(struct hwoff_aead **out, const struct hwoff_alg *alg, const char *driver,
		   const unsigned char *key, size_t key_len, char *err, size_t err_len)
{
	const struct hwoff_aead_ops *ops = hwoff_transport_of(driver)->aead;

	*out = NULL;
	return check_cipher_key(hwoff_alg_is_aead(alg), alg, driver, key_len, err, err_len)
		       ?: !ops ? not_served(alg, driver, err, err_len)
			       : ops->open(out, alg, driver, key, key_len, err, err_len);
}

void hwoff_aead_free(struct hwoff_aead *a)
{
	if (a)
		a->ops->close(a);
}

int hwoff_aead_crypt(struct hwoff_aead *a, bool encrypt, const unsigned char *iv,
		     const unsigned char *aad, size_t aad_len, const unsigned char *in,
		     unsigned char *out, size_t len, unsigned char *tag, size_t tag_len)
{
	return a->ops->crypt(a, encrypt, iv, aad, aad_len, in, out, len, tag, tag_len);
}

const char *hwoff_aead_error(const struct hwoff_aead *a)
{
	return a->ops->error(a);
}
