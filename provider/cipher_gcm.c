// SPDX-License-Identifier: Apache-2.0
/*
 * cipher_gcm.c - AES-128/192/256-GCM, every row of the algorithm table that is an AEAD.
 *
 * The default provider's GCM context is kept beside ours for every stream and given every
 * call's parameters first: it holds the IV and its rules (generated IVs, the TLS fixed and
 * invocation fields, the IV length), answers the parameters OpenSSL's GCM answers, raises
 * OpenSSL's own errors, and is the stream whenever software serves it. It is also given the
 * AAD, which costs little, so that a message can continue in software at any point.
 *
 * A message is decided by its first data update (a TLS 1.3 record arrives in one): where the
 * table sends that size to the engine, AAD || data go as one AEAD request and the output is
 * given at once, since EVP's final can return no data for a cipher of block size 1. The tag is
 * kept for final and the tag parameter. Should the message go on (another update), software
 * takes it over: it is given the data the engine served, which it computes again (in the kept
 * copy, not the caller's output), and continues. A decrypt goes to the engine only with its tag
 * set before the data; a tag that does not match there may be the start of a longer message, so
 * software decrypts that update too, as a stream, and its final gives the verdict, exactly as
 * OpenSSL's own; the engine's mismatch is counted apart from errors. The TLS 1.2 record form
 * (EVP_Cipher with the TLS AAD) is a whole message: a mismatch there gives no plaintext.
 *
 * Software serves messages whose IV is not 96 bits, whose tag length the kernel refuses, whose
 * tag comes after the data, and empty decrypts (the router counts them as unsupported).
 */
#include <errno.h>
#include <string.h>

#include <openssl/core_dispatch.h>
#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>

#include "provider/cipher_base.h"

#define TLS_EXPLICIT_IV EVP_GCM_TLS_EXPLICIT_IV_LEN
#define TLS_TAG		EVP_GCM_TLS_TAG_LEN
#define GCM_IV_MAX	64 /* OpenSSL's GCM takes IVs of up to this many bytes */

enum gcm_message {
	GCM_OPEN, /* AAD so far in both contexts; no data yet */
	GCM_ENGINE, /* the engine served AAD and the first data: tag in engine_tag */
	GCM_SOFTWARE, /* the default provider's context is the message */
	GCM_FINISHED, /* final returned after the engine served: a new IV is needed */
};

struct gcm_ctx {
	struct cipher_base base; /* first: a pointer to either is a pointer to both */
	size_t iv_len; /* as the default provider's context has it */
	unsigned char tag[HWOFF_GCM_TAG_MAX]; /* a decrypt's, as set */
	size_t tag_len; /* 0: not set */
	unsigned char engine_tag[HWOFF_GCM_TAG_MAX]; /* the engine's, or the tag it checked */
	size_t engine_tag_len;
	enum gcm_message message;
	struct hwoff_path *engine_path; /* GCM_ENGINE: the path that served the message */
	bool aad_kept; /* msg holds all the AAD (false once it outgrew a request) */
	unsigned char *msg; /* AAD || the data the engine served */
	size_t msg_cap, aad_len, data_len;
	bool tls; /* the TLS 1.2 AAD is set: the next EVP_Cipher() is one record */
	unsigned char tls_aad[EVP_AEAD_TLS1_AAD_LEN];
};
CIPHER_BASE_FIRST(struct gcm_ctx);

/* The message's kept bytes wiped; the stream goes on in state next. */
static void forget_message(struct gcm_ctx *c, enum gcm_message next)
{
	if (c->aad_len + c->data_len)
		OPENSSL_cleanse(c->msg, c->aad_len + c->data_len);
	c->aad_len = c->data_len = 0;
	c->aad_kept = true;
	c->message = next;
}

static void gcm_freectx(void *vctx)
{
	struct gcm_ctx *c = vctx;

	if (!c)
		return;
	OPENSSL_clear_free(c->msg, c->msg_cap);
	cipher_base_free(&c->base, sizeof(*c));
}

/* Every stream's default provider's context is made with it. */
void *hwprov_gcm_newctx(struct hwprov *prov, const struct hwoff_alg *alg)
{
	struct gcm_ctx *c = cipher_base_new(prov, alg, sizeof(*c));

	if (!c)
		return NULL;
	if (!cipher_base_software(&c->base)) {
		gcm_freectx(c);
		return NULL;
	}
	c->iv_len = alg->iv_bytes;
	c->aad_kept = true;
	return c;
}

static void *gcm_dupctx(void *vctx)
{
	struct gcm_ctx *src = vctx, *c = cipher_base_dup(&src->base, sizeof(*src));

	if (!c || !src->msg_cap)
		return c;
	c->msg = OPENSSL_memdup(src->msg, src->msg_cap);
	if (c->msg)
		return c;
	c->msg_cap = 0;
	gcm_freectx(c);
	return NULL;
}

/* What the default provider accepted, seen by us: the tag, its length, the IV length, TLS. */
static void note_params(struct gcm_ctx *c, const OSSL_PARAM params[])
{
	const OSSL_PARAM *p;
	size_t len;

	if (!params)
		return;
	p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_TAG);
	if (p && !c->base.encrypt && p->data && p->data_size <= sizeof(c->tag)) {
		memcpy(c->tag, p->data, p->data_size);
		c->tag_len = p->data_size;
	}
	p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_IVLEN);
	if (p && OSSL_PARAM_get_size_t(p, &len))
		c->iv_len = len;
	p = OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_TLS1_AAD);
	if (p && p->data_size == sizeof(c->tls_aad)) {
		memcpy(c->tls_aad, p->data, sizeof(c->tls_aad));
		c->tls = true;
	}
	/* A new IV by the TLS fields: a new message may start (OpenSSL's IV state is its). */
	if (OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_TLS1_IV_FIXED) ||
	    OSSL_PARAM_locate_const(params, OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV))
		forget_message(c, GCM_OPEN);
}

static int gcm_set_ctx_params(void *vctx, const OSSL_PARAM params[])
{
	struct gcm_ctx *c = vctx;

	if (!params)
		return 1;
	if (!c->base.sw->cipher.set_ctx_params(c->base.software, params))
		return 0;
	note_params(c, params);
	return 1;
}

static int gcm_init(struct gcm_ctx *c, bool encrypt, const unsigned char *key, size_t keylen,
		    const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
	cipher_base_init(&c->base);
	c->base.encrypt = encrypt;
	if (!cipher_base_software_init(&c->base, key, keylen, iv, ivlen, NULL))
		return 0;
	if (key)
		cipher_base_set_key(&c->base, key); /* the default provider checked its length */
	if (iv) {
		c->iv_len = ivlen;
		forget_message(c, GCM_OPEN);
	} else if (c->message != GCM_FINISHED) {
		forget_message(c, GCM_OPEN);
	}
	c->tls = false;
	return gcm_set_ctx_params(c, params);
}

static int gcm_encrypt_init(void *vctx, const unsigned char *key, size_t keylen,
			    const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
	return gcm_init(vctx, true, key, keylen, iv, ivlen, params);
}

static int gcm_decrypt_init(void *vctx, const unsigned char *key, size_t keylen,
			    const unsigned char *iv, size_t ivlen, const OSSL_PARAM params[])
{
	return gcm_init(vctx, false, key, keylen, iv, ivlen, params);
}

/* ---- the message's store --------------------------------------------------------------------- */

static int msg_append(struct gcm_ctx *c, const unsigned char *in, size_t len)
{
	size_t used = c->aad_len + c->data_len, need = used + len;

	if (need > c->msg_cap) {
		size_t cap = need < 256 ? 256 : need + need / 2;
		unsigned char *msg;

		if (cap > HWOFF_AEAD_MESSAGE_MAX)
			cap = HWOFF_AEAD_MESSAGE_MAX;
		msg = OPENSSL_clear_realloc(c->msg, c->msg_cap, cap);
		if (!msg) {
			HWPROV_RAISE(c->base.prov, HWPROV_R_OUT_OF_MEMORY,
				     "%s: %zu bytes of message", c->base.alg->name, cap);
			return 0;
		}
		c->msg = msg;
		c->msg_cap = cap;
	}
	memcpy(c->msg + used, in, len);
	return 1;
}

/* The AAD, kept while one request could still take the message. */
static int keep_aad(struct gcm_ctx *c, const unsigned char *in, size_t len)
{
	if (!c->aad_kept)
		return 1;
	if (len > HWOFF_AEAD_MESSAGE_MAX - c->aad_len) {
		OPENSSL_cleanse(c->msg, c->aad_len);
		c->aad_kept = false;
		return 1;
	}
	if (!msg_append(c, in, len))
		return 0;
	c->aad_len += len;
	return 1;
}

/*
 * Software takes over a message the engine began (GCM_ENGINE): it has the AAD; it is given the
 * data the engine served, in the kept copy (its output there is the engine's, not needed again).
 */
static int software_takes_over(struct gcm_ctx *c)
{
	unsigned char *data = c->msg + c->aad_len;
	size_t outl;

	/* the message outgrew the one request its path took: counted as such */
	hwoff_route_unsupported(&c->base.prov->router, c->engine_path);
	if (c->data_len && (!c->base.sw->cipher.update(c->base.software, data, &outl, c->data_len,
						       data, c->data_len) ||
			    outl != c->data_len))
		return cipher_base_software_failed(&c->base);
	OPENSSL_cleanse(c->msg, c->aad_len + c->data_len);
	c->message = GCM_SOFTWARE;
	return 1;
}

/* ---- the engine ------------------------------------------------------------------------------ */

/* The IV of the message now, from the default provider's context (which may generate it). */
static int current_iv(struct gcm_ctx *c, unsigned char iv[GCM_IV_MAX])
{
	OSSL_PARAM params[] = {
		OSSL_PARAM_octet_string(OSSL_CIPHER_PARAM_IV, iv, GCM_IV_MAX),
		OSSL_PARAM_END,
	};

	return c->base.sw->cipher.get_ctx_params(c->base.software, params) &&
	       params[0].return_size == c->base.alg->iv_bytes;
}

enum engine_outcome {
	ENGINE_DONE,
	ENGINE_TAG_MISMATCH, /* a decrypt's tag did not match: a result */
	ENGINE_SOFTWARE, /* not sent, or failed and software redoes it: software serves */
	ENGINE_FAILED, /* error raised */
};

/*
 * One message on path: aad_len bytes of AAD, len of data from in to out, with tag (written
 * when encrypting, checked when decrypting).
 */
static enum engine_outcome engine_message(struct gcm_ctx *c, struct hwoff_path *path,
					  const unsigned char *iv, const unsigned char *aad,
					  size_t aad_len, const unsigned char *in, size_t len,
					  unsigned char *out, unsigned char *tag, size_t tag_len)
{
	char err[HWOFF_TRANSPORT_ERROR_MAX];
	struct cipher_kernel_session *s = cipher_kernel_session(&c->base, path, err, sizeof(err));
	int ret = -1;

	if (s)
		ret = hwoff_aead_crypt(s->aead, c->base.encrypt, iv, aad, aad_len, in, out, len,
				       tag, tag_len);
	if (ret && ret != -EBADMSG)
		return cipher_kernel_failed(&c->base, path, s, err) ? ENGINE_SOFTWARE
								    : ENGINE_FAILED;
	hwoff_path_served(path);
	hwprov_tally_add(c->base.prov, &c->base.tally, path, aad_len + len);
	if (!ret)
		return ENGINE_DONE;
	hwoff_count_tag_mismatch(&path->counters);
	return ENGINE_TAG_MISMATCH;
}

/*
 * The message kept in msg (its AAD, then len bytes of data) on path, to out; the tag is the
 * engine's when encrypting, the one set when decrypting (kept in engine_tag for final).
 */
static enum engine_outcome engine_kept_message(struct gcm_ctx *c, struct hwoff_path *path,
					       unsigned char iv[GCM_IV_MAX], size_t len,
					       unsigned char *out)
{
	enum engine_outcome outcome;

	memcpy(c->engine_tag, c->tag, c->tag_len);
	c->engine_tag_len = c->base.encrypt ? HWOFF_GCM_TAG_MAX : c->tag_len;
	outcome = engine_message(c, path, iv, c->msg, c->aad_len, len ? c->msg + c->aad_len : NULL,
				 len, out, c->engine_tag, c->engine_tag_len);
	OPENSSL_cleanse(iv, GCM_IV_MAX);
	return outcome;
}

/*
 * The engine path for a message of size bytes, or software (NULL with error raised: the
 * request must fail). Software for what the engine cannot carry, counted as unsupported.
 */
static struct hwoff_path *message_path(struct gcm_ctx *c, size_t size, size_t aad_len, size_t len,
				       unsigned char iv[GCM_IV_MAX])
{
	struct hwoff_path *path = hwprov_route(
		c->base.prov, c->base.alg, cipher_base_direction(&c->base), size, &c->base.route);

	if (!path || path->software)
		return path;
	if (c->iv_len != c->base.alg->iv_bytes || aad_len > HWOFF_AEAD_MESSAGE_MAX ||
	    len > HWOFF_AEAD_MESSAGE_MAX - aad_len ||
	    (!c->base.encrypt &&
	     (!c->tag_len || !hwoff_aead_tag_len_valid(c->tag_len) || !(aad_len + len))))
		return hwoff_route_unsupported(&c->base.prov->router, path);
	if (!current_iv(c, iv))
		return hwoff_router_software(&c->base.prov->router); /* it raises OpenSSL's error */
	return path;
}

/* ---- the TLS 1.2 record: explicit IV || payload || tag, in place ----------------------------- */

/* The TLS AAD's length field names the payload: the record less the explicit IV (and the tag). */
static void tls_payload_aad(const struct gcm_ctx *c, unsigned char aad[EVP_AEAD_TLS1_AAD_LEN])
{
	size_t len;

	memcpy(aad, c->tls_aad, EVP_AEAD_TLS1_AAD_LEN);
	len = (size_t)aad[EVP_AEAD_TLS1_AAD_LEN - 2] << 8 | aad[EVP_AEAD_TLS1_AAD_LEN - 1];
	len -= TLS_EXPLICIT_IV + (c->base.encrypt ? 0 : TLS_TAG); /* checked when it was set */
	aad[EVP_AEAD_TLS1_AAD_LEN - 2] = (unsigned char)(len >> 8);
	aad[EVP_AEAD_TLS1_AAD_LEN - 1] = (unsigned char)len;
}

/* Past the explicit IV, as OpenSSL's GCM: the encrypter's from its counter, the decrypter's. */
static int tls_take_explicit_iv(struct gcm_ctx *c, unsigned char *record)
{
	OSSL_PARAM params[] = {
		OSSL_PARAM_octet_string(c->base.encrypt ? OSSL_CIPHER_PARAM_AEAD_TLS1_GET_IV_GEN
							: OSSL_CIPHER_PARAM_AEAD_TLS1_SET_IV_INV,
					record, TLS_EXPLICIT_IV),
		OSSL_PARAM_END,
	};

	return c->base.encrypt ? c->base.sw->cipher.get_ctx_params(c->base.software, params)
			       : c->base.sw->cipher.set_ctx_params(c->base.software, params);
}

/*
 * One record. What it says it wrote is OpenSSL's: the whole record through EVP_Cipher()
 * (by_cipher), else the record encrypted, or the payload decrypted.
 */
static int tls_record(struct gcm_ctx *c, bool by_cipher, unsigned char *out, size_t *outl,
		      size_t outsize, const unsigned char *in, size_t len)
{
	OSSL_FUNC_cipher_cipher_fn *software =
		by_cipher ? c->base.sw->cipher.cipher : c->base.sw->cipher.update;
	unsigned char aad[EVP_AEAD_TLS1_AAD_LEN], iv[GCM_IV_MAX], *payload_out;
	enum engine_outcome outcome;
	struct hwoff_path *path;
	size_t payload;

	c->tls = false; /* one record per AAD, as OpenSSL's */
	/* What OpenSSL's GCM refuses, it refuses with its own error. */
	if (!c->base.keyed || out != in || len < TLS_EXPLICIT_IV + TLS_TAG || outsize < len ||
	    c->iv_len != c->base.alg->iv_bytes)
		return software(c->base.software, out, outl, outsize, in, len);
	payload = len - TLS_EXPLICIT_IV - TLS_TAG;
	payload_out = out + TLS_EXPLICIT_IV;
	path = hwprov_route(c->base.prov, c->base.alg, cipher_base_direction(&c->base), payload,
			    &c->base.route);
	if (!path)
		return 0;
	if (path->software)
		goto software;
	/* The encrypter's IV is its counter now, advanced once the engine has done. */
	if (c->base.encrypt ? !current_iv(c, iv)
			    : !tls_take_explicit_iv(c, out) || !current_iv(c, iv))
		goto software;
	tls_payload_aad(c, aad);
	outcome = engine_message(c, path, iv, aad, sizeof(aad), payload_out, payload, payload_out,
				 payload_out + payload, TLS_TAG);
	OPENSSL_cleanse(iv, sizeof(iv));
	switch (outcome) {
	case ENGINE_DONE:
		if (c->base.encrypt && !tls_take_explicit_iv(c, out))
			return cipher_base_software_failed(&c->base);
		*outl = c->base.encrypt || by_cipher ? len : payload;
		return 1;
	case ENGINE_TAG_MISMATCH: /* a whole record: no plaintext, as OpenSSL's */
		OPENSSL_cleanse(payload_out, payload);
		*outl = 0;
		return 0;
	case ENGINE_FAILED:
		return 0;
	case ENGINE_SOFTWARE:
		break;
	}
software:
	if (!software(c->base.software, out, outl, outsize, in, len))
		return 0;
	cipher_base_count_software(&c->base, payload);
	return 1;
}

/* ---- update, final --------------------------------------------------------------------------- */

/* The message's first data: by the engine when the table says so, else software's stream. */
static int first_data(struct gcm_ctx *c, unsigned char *out, size_t *outl, size_t outsize,
		      const unsigned char *in, size_t inl)
{
	unsigned char iv[GCM_IV_MAX];
	struct hwoff_path *path;
	enum engine_outcome outcome;

	if (outsize < inl) /* OpenSSL's error */
		return cipher_base_software_update(&c->base, out, outl, outsize, in, inl);
	path = message_path(c, inl, c->aad_kept ? c->aad_len : SIZE_MAX, inl, iv);
	if (!path)
		return 0;
	if (path->software || !msg_append(c, in, inl)) {
		forget_message(c, GCM_SOFTWARE);
		return cipher_base_software_update(&c->base, out, outl, outsize, in, inl);
	}
	c->data_len = inl;
	outcome = engine_kept_message(c, path, iv, inl, out);
	switch (outcome) {
	case ENGINE_DONE:
		c->message = GCM_ENGINE;
		c->engine_path = path;
		*outl = inl;
		return 1;
	case ENGINE_FAILED:
		return 0;
	case ENGINE_TAG_MISMATCH: /* maybe only the start of the message: software decides */
	case ENGINE_SOFTWARE:
		break;
	}
	/* Software has the AAD; this update's data is in msg, intact. */
	c->message = GCM_SOFTWARE;
	if (!cipher_base_software_update(&c->base, out, outl, outsize, c->msg + c->aad_len, inl))
		return 0;
	OPENSSL_cleanse(c->msg, c->aad_len + c->data_len);
	return 1;
}

static int refuse_finished(struct gcm_ctx *c)
{
	HWPROV_RAISE(c->base.prov, HWPROV_R_PARAMETER,
		     "%s: this IV's message is finished: set a new IV (init) for the next",
		     c->base.alg->name);
	return 0;
}

static int gcm_update(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
		      const unsigned char *in, size_t inl)
{
	struct gcm_ctx *c = vctx;

	if (!hwprov_check_length(c->base.prov, c->base.alg->name, inl))
		return 0;
	if (c->tls)
		return tls_record(c, false, out, outl, outsize, in, inl);
	if (!inl) {
		*outl = 0;
		return 1;
	}
	switch (c->message) {
	case GCM_FINISHED:
		return refuse_finished(c);
	case GCM_ENGINE:
		if (!software_takes_over(c))
			return 0;
		/* fall through */
	case GCM_SOFTWARE:
		return cipher_base_software_update(&c->base, out, outl, outsize, in, inl);
	case GCM_OPEN:
		break;
	}
	if (!c->base.keyed || !in) /* OpenSSL's error */
		return cipher_base_software_update(&c->base, out, outl, outsize, in, inl);
	if (!out)
		return cipher_base_software_update(&c->base, out, outl, outsize, in, inl) &&
		       keep_aad(c, in, inl);
	return first_data(c, out, outl, outsize, in, inl);
}

/* A message of AAD only (GMAC) or nothing, at final: one request where the table says so. */
static int final_without_data(struct gcm_ctx *c, unsigned char *out, size_t *outl, size_t outsize)
{
	unsigned char iv[GCM_IV_MAX];
	struct hwoff_path *path = NULL;
	enum engine_outcome outcome = ENGINE_SOFTWARE;

	if (c->base.keyed && c->aad_kept)
		path = message_path(c, c->aad_len, c->aad_len, 0, iv);
	if (c->base.keyed && c->aad_kept && !path)
		return 0;
	if (path && !path->software)
		outcome = engine_kept_message(c, path, iv, 0, NULL);
	switch (outcome) {
	case ENGINE_DONE:
		forget_message(c, GCM_FINISHED);
		*outl = 0;
		return 1;
	case ENGINE_TAG_MISMATCH: /* the whole message: the verdict, as OpenSSL's final gives */
		forget_message(c, GCM_FINISHED);
		return 0;
	case ENGINE_FAILED:
		return 0;
	case ENGINE_SOFTWARE:
		break;
	}
	forget_message(c, GCM_SOFTWARE);
	return c->base.sw->cipher.final(c->base.software, out, outl, outsize);
}

static int gcm_final(void *vctx, unsigned char *out, size_t *outl, size_t outsize)
{
	struct gcm_ctx *c = vctx;

	if (c->tls) /* OpenSSL's GCM refuses a TLS record without data: its error */
		return c->base.sw->cipher.final(c->base.software, out, outl, outsize);
	switch (c->message) {
	case GCM_OPEN:
		return final_without_data(c, out, outl, outsize);
	case GCM_FINISHED:
		return refuse_finished(c);
	case GCM_ENGINE:
		/* A decrypt's tag set again after the data: checked by software. */
		if (c->base.encrypt || (c->tag_len == c->engine_tag_len &&
					!memcmp(c->tag, c->engine_tag, c->tag_len))) {
			forget_message(c, GCM_FINISHED);
			*outl = 0;
			return 1;
		}
		if (!software_takes_over(c))
			return 0;
		/* fall through */
	case GCM_SOFTWARE:
		break;
	}
	return c->base.sw->cipher.final(c->base.software, out, outl, outsize);
}

/*
 * EVP_Cipher(): the TLS 1.2 record with the TLS AAD set, else as OpenSSL's GCM takes it (out
 * NULL: AAD; in NULL: final).
 */
static int gcm_cipher(void *vctx, unsigned char *out, size_t *outl, size_t outsize,
		      const unsigned char *in, size_t inl)
{
	struct gcm_ctx *c = vctx;

	if (c->tls)
		return tls_record(c, true, out, outl, outsize, in, inl);
	if (outsize < inl)
		return c->base.sw->cipher.cipher(c->base.software, out, outl, outsize, in, inl);
	if (!in) {
		if (!gcm_final(c, out, outl, outsize))
			return 0;
	} else if (!gcm_update(c, out, outl, outsize, in, inl)) {
		return 0;
	}
	*outl = inl;
	return 1;
}

/* ---- parameters ------------------------------------------------------------------------------ */

static int gcm_get_ctx_params(void *vctx, OSSL_PARAM params[])
{
	struct gcm_ctx *c = vctx;
	OSSL_PARAM *tag;
	const char *key;
	int ok;

	/* The tag of a message the engine encrypted is ours; the rest is the default provider's. */
	if (!c->base.encrypt || c->message != GCM_FINISHED ||
	    !(tag = OSSL_PARAM_locate(params, OSSL_CIPHER_PARAM_AEAD_TAG)))
		return c->base.sw->cipher.get_ctx_params(c->base.software, params);
	if (!tag->data_size || tag->data_size > HWOFF_GCM_TAG_MAX) {
		HWPROV_RAISE(c->base.prov, HWPROV_R_PARAMETER,
			     "%s: a tag of %zu bytes, not 1 to %d", c->base.alg->name,
			     tag->data_size, HWOFF_GCM_TAG_MAX);
		return 0;
	}
	if (!OSSL_PARAM_set_octet_string(tag, c->engine_tag, tag->data_size))
		return 0;
	key = tag->key;
	tag->key = "hwoffload-answered"; /* a name the default provider does not look for */
	ok = c->base.sw->cipher.get_ctx_params(c->base.software, params);
	tag->key = key;
	return ok;
}

/* The default provider's lists, which the parameters are given to; any GCM row's will do. */
static const struct hwprov_software *gcm_software(void *cctx, void *provctx)
{
	return cctx ? ((struct cipher_base *)cctx)->sw
		    : hwprov_software_of(provctx, &hwoff_algs[HWOFF_ROW_aes_128_gcm]);
}

static const OSSL_PARAM *gcm_gettable_ctx_params(void *cctx, void *provctx)
{
	const struct hwprov_software *sw = gcm_software(cctx, provctx);

	return sw ? sw->cipher.gettable_ctx_params(
			    cctx ? ((struct cipher_base *)cctx)->software : NULL, sw->provctx)
		  : NULL;
}

static const OSSL_PARAM *gcm_settable_ctx_params(void *cctx, void *provctx)
{
	const struct hwprov_software *sw = gcm_software(cctx, provctx);

	return sw ? sw->cipher.settable_ctx_params(
			    cctx ? ((struct cipher_base *)cctx)->software : NULL, sw->provctx)
		  : NULL;
}

const OSSL_DISPATCH hwprov_gcm_functions[] = {
	{ OSSL_FUNC_CIPHER_FREECTX, HWPROV_FN(gcm_freectx) },
	{ OSSL_FUNC_CIPHER_DUPCTX, HWPROV_FN(gcm_dupctx) },
	{ OSSL_FUNC_CIPHER_ENCRYPT_INIT, HWPROV_FN(gcm_encrypt_init) },
	{ OSSL_FUNC_CIPHER_DECRYPT_INIT, HWPROV_FN(gcm_decrypt_init) },
	{ OSSL_FUNC_CIPHER_UPDATE, HWPROV_FN(gcm_update) },
	{ OSSL_FUNC_CIPHER_FINAL, HWPROV_FN(gcm_final) },
	{ OSSL_FUNC_CIPHER_CIPHER, HWPROV_FN(gcm_cipher) },
	{ OSSL_FUNC_CIPHER_GETTABLE_PARAMS, HWPROV_FN(hwprov_cipher_gettable_params) },
	{ OSSL_FUNC_CIPHER_GET_CTX_PARAMS, HWPROV_FN(gcm_get_ctx_params) },
	{ OSSL_FUNC_CIPHER_GETTABLE_CTX_PARAMS, HWPROV_FN(gcm_gettable_ctx_params) },
	{ OSSL_FUNC_CIPHER_SET_CTX_PARAMS, HWPROV_FN(gcm_set_ctx_params) },
	{ OSSL_FUNC_CIPHER_SETTABLE_CTX_PARAMS, HWPROV_FN(gcm_settable_ctx_params) },
	{ 0, NULL },
};
HWPROV_SHARED_FUNCTIONS_FIT(hwprov_gcm_functions);
