// SPDX-License-Identifier: Apache-2.0
#define _GNU_SOURCE /* strchrnul */
#include "test/provider/providerutil.h"

#include "backend/discover.h"
#include "test/engine_rows.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/err.h>
#include <openssl/params.h>

#define AES_BLOCK 16
#define MISALIGN  16 /* buffers start 0..15 bytes past an aligned address */

static const char *const env_keys[] = { "HWOFFLOAD_MODE",	"HWOFFLOAD_TABLE",
					"HWOFFLOAD_OBJECTIVE",	"HWOFFLOAD_FALLBACK",
					"HWOFFLOAD_ALGORITHMS", "HWOFFLOAD_STATS" };
#define ENV_KEYS (sizeof(env_keys) / sizeof(env_keys[0]))

/*
 * An HMAC context of hwoffload (hw) or of the default provider, with row's digest set and no key.
 * The default provider's takes its digest from the default provider too (by name alone it would
 * fetch hwoffload's); hwoffload's picks its own.
 */
static EVP_MAC_CTX *hmac_with_digest(const struct prov_env *e, bool hw, const struct hwoff_alg *row)
{
	const char *properties = hw ? "provider=hwoffload" : "provider=default";
	OSSL_PARAM params[] = { OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_DIGEST,
						       (char *)row->hmac_of->name, 0),
				hw ? (OSSL_PARAM)OSSL_PARAM_END
				   : (OSSL_PARAM)OSSL_PARAM_utf8_string(OSSL_MAC_PARAM_PROPERTIES,
									(char *)properties, 0),
				OSSL_PARAM_END };
	EVP_MAC *mac = EVP_MAC_fetch(e->libctx, "HMAC", properties);
	EVP_MAC_CTX *ctx = mac ? EVP_MAC_CTX_new(mac) : NULL;

	EVP_MAC_free(mac);
	ck_assert_msg(ctx && EVP_MAC_CTX_set_params(ctx, params), "%s (%s): not fetched", row->name,
		      properties);
	return ctx;
}

void prov_env_load(struct prov_env *e, const char *mode, const char *fallback)
{
	const char *dir = getenv("HWOFFLOAD_PROVIDER_DIR");

	memset(e, 0, sizeof(*e));
	for (size_t i = 0; i < ENV_KEYS; i++)
		unsetenv(env_keys[i]);
	setenv("HWOFFLOAD_MODE", mode, 1);
	setenv("HWOFFLOAD_FALLBACK", fallback, 1);
	e->libctx = OSSL_LIB_CTX_new();
	ck_assert_ptr_nonnull(e->libctx);
	ck_assert(OSSL_PROVIDER_set_default_search_path(e->libctx, dir ? dir : "provider/.libs"));
	e->ref = OSSL_PROVIDER_load(e->libctx, "default");
	e->hw = OSSL_PROVIDER_load(e->libctx, "hwoffload");
	unsetenv("HWOFFLOAD_MODE");
	unsetenv("HWOFFLOAD_FALLBACK");
	for (size_t i = 0; i < HWOFF_ALG_COUNT; i++)
		e->drawn[i] = test_mode_serves(mode, hwoff_algs[i].kernel_name);
	if (!e->ref || !e->hw) {
		ERR_print_errors_fp(stderr);
		ck_abort_msg("hwoffload or default does not load (mode=%s fallback=%s)", mode,
			     fallback);
	}
	for (size_t i = 0; i < HWOFF_ALG_COUNT; i++) {
		const char *name = hwoff_algs[i].name;

		if (!e->drawn[i])
			continue;
		if (hwoff_alg_is_hmac(&hwoff_algs[i])) {
			e->hw_hmac[i] = hmac_with_digest(e, true, &hwoff_algs[i]);
			e->ref_hmac[i] = hmac_with_digest(e, false, &hwoff_algs[i]);
		} else if (hwoff_alg_is_digest(&hwoff_algs[i])) {
			e->hw_md[i] = EVP_MD_fetch(e->libctx, name, "provider=hwoffload");
			e->ref_md[i] = EVP_MD_fetch(e->libctx, name, "provider=default");
			ck_assert_msg(e->hw_md[i] && e->ref_md[i], "%s: not fetched", name);
		} else {
			e->hw_cipher[i] = EVP_CIPHER_fetch(e->libctx, name, "provider=hwoffload");
			e->ref_cipher[i] = EVP_CIPHER_fetch(e->libctx, name, "provider=default");
			ck_assert_msg(e->hw_cipher[i] && e->ref_cipher[i], "%s: not fetched", name);
		}
	}
}

const struct hwoff_alg *prov_env_row(const struct prov_env *e, struct test_rng *rng,
				     bool (*pick)(const struct hwoff_alg *))
{
	const struct hwoff_alg *alg;

	do
		alg = &hwoff_algs[test_rng_range(rng, 0, HWOFF_ALG_COUNT - 1)];
	while (!e->drawn[hwoff_alg_index(alg)] || (pick && !pick(alg)));
	return alg;
}

void prov_env_unload(struct prov_env *e)
{
	for (size_t i = 0; i < HWOFF_ALG_COUNT; i++) {
		EVP_MD_free(e->hw_md[i]);
		EVP_MD_free(e->ref_md[i]);
		EVP_CIPHER_free(e->hw_cipher[i]);
		EVP_CIPHER_free(e->ref_cipher[i]);
		EVP_MAC_CTX_free(e->hw_hmac[i]);
		EVP_MAC_CTX_free(e->ref_hmac[i]);
	}
	OSSL_PROVIDER_unload(e->hw);
	OSSL_PROVIDER_unload(e->ref);
	OSSL_LIB_CTX_free(e->libctx);
}

long long prov_stats_counter(const char *stats, const char *path, const char *counter)
{
	char needle[160];
	long long sum = 0;

	snprintf(needle, sizeof(needle), " %s=", counter);
	for (const char *line = stats; *line; line = strchrnul(line, '\n') + (*line != 0)) {
		const char *field, *end = strchrnul(line, '\n'), *space = strchr(line, ' ');
		bool software = !strncmp(line, "software ", 9);

		if (!space || space > end ||
		    (path && (strncmp(line, path, strlen(path)) || line[strlen(path)] != ' ')))
			continue;
		if (!path && software)
			continue;
		field = strstr(line, needle);
		if (field && field < end)
			sum += strtoll(field + strlen(needle), NULL, 10);
	}
	return sum;
}

long long prov_path_counter(const struct prov_env *e, const char *path, const char *counter)
{
	static __thread char stats[65536];
	OSSL_PARAM p[] = { OSSL_PARAM_utf8_string("hwoffload-statistics", stats, sizeof(stats)),
			   OSSL_PARAM_END };

	ck_assert(OSSL_PROVIDER_get_params(e->hw, p));
	return prov_stats_counter(stats, path, counter);
}

void prov_error_text(char *buf, size_t size)
{
	unsigned long code;
	const char *data;
	int flags;

	buf[0] = 0;
	while ((code = ERR_get_error_all(NULL, NULL, NULL, &data, &flags))) {
		char one[256];
		size_t used = strlen(buf);

		ERR_error_string_n(code, one, sizeof(one));
		snprintf(buf + used, size - used, "%s %s; ", one,
			 (flags & ERR_TXT_STRING) ? data : "");
	}
}

bool case_buffers_alloc(struct case_buffers *b)
{
	size_t size = CASE_MAX_LEN + MISALIGN + 2 * AES_BLOCK;

	b->in = malloc(size);
	b->in_copy = malloc(size);
	b->out = malloc(size);
	b->out_copy = malloc(size);
	b->ref = malloc(size);
	return b->in && b->in_copy && b->out && b->out_copy && b->ref;
}

void case_buffers_free(struct case_buffers *b)
{
	free(b->in);
	free(b->in_copy);
	free(b->out);
	free(b->out_copy);
	free(b->ref);
}

/* ---- one case ---------------------------------------------------------------------------------
 */

struct case_spec {
	const struct hwoff_alg *alg;
	int enc, padding, in_place;
	size_t len; /* of the input */
	size_t in_off, out_off; /* misalignment of the input and output buffers */
	size_t pieces[CASE_MAX_PIECES], count;
	size_t copy_after; /* the context is copied after this many updates; count + 1: never */
	unsigned char key[32], iv[16];
	unsigned char tag[16]; /* GCM: the reference encryption's (a decrypt is given it first) */
};

/* CTR and GCM take any length, in any updates; ECB and CBC whole blocks, padded or not. */
static bool stream_mode(const struct hwoff_alg *alg)
{
	return alg->mode == HWOFF_MODE_CTR || hwoff_alg_is_aead(alg);
}

static size_t case_len(struct test_rng *rng, const struct case_sizes *sizes)
{
	unsigned int pick = (unsigned int)test_rng_range(rng, 0, 99);

	if (pick < sizes->small_percent)
		return test_rng_range(rng, 0, 1024);
	if (pick < sizes->small_percent + sizes->medium_percent)
		return test_rng_range(rng, 1025, 65536);
	return test_rng_range(rng, 65537, CASE_MAX_LEN);
}

static void describe(const struct case_spec *s, char *why, size_t why_len, const char *what)
{
	const char *op = s->enc ? "encrypt" : "decrypt";
	size_t used;

	snprintf(why, why_len,
		 "%s %s, %zu bytes, padding %d, in place %d, input +%zu, output +%zu, copied after "
		 "update %zu (%zu: never), updates",
		 s->alg->name, hwoff_alg_is_digest(s->alg) ? "digest" : op, s->len, s->padding,
		 s->in_place, s->in_off, s->out_off, s->copy_after, s->count + 1);
	for (size_t i = 0; i < s->count; i++) {
		used = strlen(why);
		snprintf(why + used, why_len - used, " %zu", s->pieces[i]);
	}
	used = strlen(why);
	snprintf(why + used, why_len - used, ": %s", what);
}

static enum case_result failed(const struct case_spec *s, char *why, size_t why_len,
			       const char *call)
{
	char text[CASE_WHY_MAX / 2], what[CASE_WHY_MAX / 2 + 64];

	prov_error_text(text, sizeof(text));
	snprintf(what, sizeof(what), "%s failed: %s", call, text);
	describe(s, why, why_len, what);
	return CASE_ERROR;
}

static enum case_result differs(const struct case_spec *s, char *why, size_t why_len,
				const char *which, const unsigned char *got,
				const unsigned char *want, size_t got_len, size_t want_len)
{
	char what[160];
	size_t i = 0;

	while (i < got_len && i < want_len && got[i] == want[i])
		i++;
	if (i == got_len && got_len == want_len)
		return CASE_RIGHT;
	snprintf(what, sizeof(what), "%s: %zu bytes, default provider %zu, first difference at %zu",
		 which, got_len, want_len, i);
	describe(s, why, why_len, what);
	return CASE_WRONG;
}

/* A digest's or an HMAC row's context: the same steps through EVP_MD or EVP_MAC. */
struct hasher {
	EVP_MD_CTX *md;
	EVP_MAC_CTX *mac;
};

/* A hasher of s's row from hwoffload (hw) or the default provider, initialised; NULL name. */
static const char *hasher_init(const struct prov_env *e, const struct case_spec *s, bool hw,
			       struct hasher *h)
{
	size_t row = hwoff_alg_index(s->alg);

	*h = (struct hasher){ NULL, NULL };
	if (hwoff_alg_is_hmac(s->alg)) {
		h->mac = EVP_MAC_CTX_dup(hw ? e->hw_hmac[row] : e->ref_hmac[row]);
		return h->mac && EVP_MAC_init(h->mac, s->key, sizeof(s->key), NULL)
			       ? NULL
			       : "EVP_MAC_init";
	}
	h->md = EVP_MD_CTX_new();
	return h->md && EVP_DigestInit_ex2(h->md, hw ? e->hw_md[row] : e->ref_md[row], NULL)
		       ? NULL
		       : "EVP_DigestInit_ex2";
}

static bool hasher_update(struct hasher *h, const unsigned char *in, size_t len)
{
	return h->mac ? EVP_MAC_update(h->mac, in, len) : EVP_DigestUpdate(h->md, in, len);
}

static bool hasher_copy(struct hasher *to, const struct hasher *from)
{
	if (from->mac)
		return (to->mac = EVP_MAC_CTX_dup(from->mac)) != NULL;
	to->md = EVP_MD_CTX_new();
	return to->md && EVP_MD_CTX_copy_ex(to->md, from->md);
}

static bool hasher_final(struct hasher *h, unsigned char *out, size_t *out_len)
{
	unsigned int n;

	if (h->mac)
		return EVP_MAC_final(h->mac, out, out_len, EVP_MAX_MD_SIZE);
	if (!EVP_DigestFinal_ex(h->md, out, &n))
		return false;
	*out_len = n;
	return true;
}

static void hasher_free(struct hasher *h)
{
	EVP_MD_CTX_free(h->md);
	EVP_MAC_CTX_free(h->mac);
}

/*
 * The reference: the default provider, one update from an aligned buffer. GCM has no AAD here
 * (provider_gcm.c tests it); its encryption writes the tag to s->tag, its decryption checks it.
 */
static size_t reference(const struct prov_env *e, struct case_spec *s, const unsigned char *in,
			unsigned char *out)
{
	bool aead = hwoff_alg_is_aead(s->alg);
	size_t row = hwoff_alg_index(s->alg);
	int n = 0, fin = 0;

	if (hwoff_alg_is_digest(s->alg)) {
		struct hasher h;
		size_t md_len = (size_t)-1;

		if (hasher_init(e, s, false, &h) || !hasher_update(&h, in, s->len) ||
		    !hasher_final(&h, out, &md_len))
			md_len = (size_t)-1;
		hasher_free(&h);
		return md_len;
	}
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new();

	if (!ctx || !EVP_CipherInit_ex2(ctx, e->ref_cipher[row], s->key, s->iv, s->enc, NULL) ||
	    !EVP_CIPHER_CTX_set_padding(ctx, s->padding) ||
	    (aead && !s->enc &&
	     !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, sizeof(s->tag), s->tag)) ||
	    !EVP_CipherUpdate(ctx, out, &n, in, (int)s->len) ||
	    !EVP_CipherFinal_ex(ctx, out + n, &fin) ||
	    (aead && s->enc &&
	     !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, sizeof(s->tag), s->tag)))
		n = -1;
	EVP_CIPHER_CTX_free(ctx);
	return n < 0 ? (size_t)-1 : (size_t)(n + fin);
}

/*
 * ECB and CBC in place: updates of whole blocks, so that each writes where it reads (OpenSSL
 * allows out == in, never partial overlap); not decrypting with padding, which holds a block back.
 */
static bool in_place_allowed(const struct case_spec *s)
{
	return stream_mode(s->alg) || !(s->enc == 0 && s->padding);
}

/* Everything but the split: the row, direction, padding, key, IV, size and buffers. */
static void draw(const struct prov_env *e, struct test_rng *rng, const struct case_sizes *sizes,
		 struct case_spec *s)
{
	memset(s, 0, sizeof(*s));
	s->alg = prov_env_row(e, rng, NULL);
	s->len = case_len(rng, sizes);
	s->in_off = test_rng_range(rng, 0, MISALIGN - 1);
	s->out_off = test_rng_range(rng, 0, MISALIGN - 1);
	test_rng_fill(rng, s->key, sizeof(s->key)); /* HMAC's too */
	if (hwoff_alg_is_digest(s->alg))
		return;
	s->enc = (int)test_rng_range(rng, 0, 1);
	s->padding = !stream_mode(s->alg) && test_rng_range(rng, 0, 1);
	test_rng_fill(rng, s->iv, sizeof(s->iv));
	s->in_place = test_rng_range(rng, 0, 3) == 0 && in_place_allowed(s);
	/* Without padding ECB and CBC take whole blocks. */
	if (!stream_mode(s->alg) && !s->padding)
		s->len -= s->len % AES_BLOCK;
}

/* The updates (whole blocks in place, where each must write where it reads) and the copy. */
static void draw_split(struct test_rng *rng, struct case_spec *s)
{
	size_t step = s->in_place && !stream_mode(s->alg) ? AES_BLOCK : 1;

	if (test_rng_range(rng, 0, 3) == 0) {
		s->pieces[0] = s->len;
		s->count = 1;
	} else {
		s->count = test_rng_split(rng, s->len, step, CASE_MAX_PIECES, s->pieces);
	}
	s->copy_after =
		test_rng_range(rng, 0, 2) == 0 ? test_rng_range(rng, 0, s->count) : s->count + 1;
}

static enum case_result digest_case(const struct prov_env *e, struct case_spec *s,
				    struct case_buffers *b, char *why, size_t why_len)
{
	size_t md_len = s->alg->digest_bytes, off = 0, n;
	unsigned char *in = b->in + s->in_off, md[64], md_copy[64];
	struct hasher ctx, copy = { NULL, NULL };
	enum case_result r = CASE_RIGHT;
	const char *call = hasher_init(e, s, true, &ctx);
	bool copied = false;

	for (size_t i = 0; !call && i <= s->count; i++) {
		if (i == s->copy_after) {
			copied = true;
			if (!hasher_copy(&copy, &ctx)) {
				call = "a copy of the context";
				break;
			}
		}
		if (i == s->count)
			break;
		if (!hasher_update(&ctx, in + off, s->pieces[i]) ||
		    (copied && !hasher_update(&copy, in + off, s->pieces[i])))
			call = "an update";
		off += s->pieces[i];
	}
	if (!call && !hasher_final(&ctx, md, &n))
		call = "the final";
	if (!call && copied && !hasher_final(&copy, md_copy, &n))
		call = "the copy's final";
	if (call)
		r = failed(s, why, why_len, call);
	if (r == CASE_RIGHT)
		r = differs(s, why, why_len, "digest", md, b->ref, md_len, md_len);
	if (r == CASE_RIGHT && copied)
		r = differs(s, why, why_len, "the copy's digest", md_copy, b->ref, md_len, md_len);
	hasher_free(&ctx);
	hasher_free(&copy);
	return r;
}

/*
 * The updates from piece first on, and the final; out_len counts the output. A GCM encryption's
 * tag goes to tag.
 */
static const char *cipher_continue(EVP_CIPHER_CTX *ctx, const struct case_spec *s, size_t first,
				   const unsigned char *in, unsigned char *out, size_t *out_len,
				   unsigned char tag[16])
{
	size_t off = 0;
	int n;

	for (size_t i = 0; i < first; i++)
		off += s->pieces[i];
	for (size_t i = first; i < s->count; i++) {
		if (!EVP_CipherUpdate(ctx, out + *out_len, &n, in + off, (int)s->pieces[i]))
			return "EVP_CipherUpdate";
		*out_len += (size_t)n;
		off += s->pieces[i];
	}
	if (!EVP_CipherFinal_ex(ctx, out + *out_len, &n))
		return "EVP_CipherFinal_ex";
	*out_len += (size_t)n;
	if (hwoff_alg_is_aead(s->alg) && s->enc &&
	    !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, 16, tag))
		return "EVP_CIPHER_CTX_ctrl(EVP_CTRL_AEAD_GET_TAG)";
	return NULL;
}

static enum case_result cipher_case(const struct prov_env *e, struct case_spec *s,
				    struct case_buffers *b, size_t ref_len, char *why,
				    size_t why_len)
{
	size_t row = hwoff_alg_index(s->alg), done = 0, copy_done = 0, off = 0;
	unsigned char *in = b->in + s->in_off, tag[16], copy_tag[16];
	unsigned char *out = s->in_place ? in : b->out + s->out_off;
	bool aead_encrypt = hwoff_alg_is_aead(s->alg) && s->enc;
	EVP_CIPHER_CTX *ctx = EVP_CIPHER_CTX_new(), *copy = NULL;
	enum case_result r = CASE_RIGHT;
	const char *call = NULL;
	int n;

	/* The copy continues from the untouched input, into its own buffer. */
	if (s->copy_after <= s->count)
		memcpy(b->in_copy + s->in_off, in, s->len);
	if (!ctx || !EVP_CipherInit_ex2(ctx, e->hw_cipher[row], s->key, s->iv, s->enc, NULL) ||
	    !EVP_CIPHER_CTX_set_padding(ctx, s->padding))
		call = "EVP_CipherInit_ex2";
	/* A GCM decryption is given its tag first, as TLS 1.3 does: the engine may check it. */
	if (!call && hwoff_alg_is_aead(s->alg) && !s->enc &&
	    !EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, sizeof(s->tag), s->tag))
		call = "EVP_CIPHER_CTX_ctrl(EVP_CTRL_AEAD_SET_TAG)";
	for (size_t i = 0; !call && i < s->count && i < s->copy_after; i++) {
		if (!EVP_CipherUpdate(ctx, out + done, &n, in + off, (int)s->pieces[i]))
			call = "EVP_CipherUpdate";
		done += (size_t)n;
		off += s->pieces[i];
	}
	if (!call && s->copy_after <= s->count) {
		copy = EVP_CIPHER_CTX_new();
		if (!copy || !EVP_CIPHER_CTX_copy(copy, ctx))
			call = "EVP_CIPHER_CTX_copy";
		memcpy(b->out_copy + s->out_off, out, done);
		copy_done = done;
	}
	if (!call)
		call = cipher_continue(ctx, s, s->copy_after < s->count ? s->copy_after : s->count,
				       in, out, &done, tag);
	if (!call && copy)
		call = cipher_continue(copy, s, s->copy_after, b->in_copy + s->in_off,
				       b->out_copy + s->out_off, &copy_done, copy_tag);
	if (call)
		r = failed(s, why, why_len, call);
	if (r == CASE_RIGHT)
		r = differs(s, why, why_len, "output", out, b->ref, done, ref_len);
	if (r == CASE_RIGHT && copy)
		r = differs(s, why, why_len, "the copy's output", b->out_copy + s->out_off, b->ref,
			    copy_done, ref_len);
	if (r == CASE_RIGHT && aead_encrypt)
		r = differs(s, why, why_len, "tag", tag, s->tag, 16, 16);
	if (r == CASE_RIGHT && aead_encrypt && copy)
		r = differs(s, why, why_len, "the copy's tag", copy_tag, s->tag, 16, 16);
	EVP_CIPHER_CTX_free(ctx);
	EVP_CIPHER_CTX_free(copy);
	return r;
}

enum case_result case_run(const struct prov_env *e, struct test_rng *rng,
			  const struct case_sizes *sizes, struct case_buffers *b,
			  struct case_tally *tally, char *why, size_t why_len)
{
	unsigned char *in = b->in;
	struct case_spec s;
	enum case_result r;
	size_t ref_len;

	draw(e, rng, sizes, &s);
	if (!hwoff_alg_is_digest(s.alg) && !s.enc) {
		/* Decrypt a real ciphertext, of a message drawn as the reference's output. */
		test_rng_fill(rng, b->ref, s.len);
		s.enc = 1;
		ref_len = s.len;
		s.len = reference(e, &s, b->ref, in + s.in_off);
		s.enc = 0;
	} else {
		test_rng_fill(rng, in + s.in_off, s.len);
		ref_len = reference(e, &s, in + s.in_off, b->ref);
	}
	if (s.len == (size_t)-1 || ref_len == (size_t)-1) {
		snprintf(why, why_len, "%s: the default provider failed", s.alg->name);
		return CASE_ERROR;
	}
	draw_split(rng, &s);
	r = hwoff_alg_is_digest(s.alg) ? digest_case(e, &s, b, why, why_len)
				       : cipher_case(e, &s, b, ref_len, why, why_len);
	tally->cases++;
	tally->bytes += s.len;
	tally->in_place += s.in_place;
	tally->copies += s.copy_after <= s.count;
	if (hwoff_alg_is_digest(s.alg))
		tally->digests++;
	else
		tally->ciphers++;
	tally->errors += r == CASE_ERROR;
	return r;
}

/*
 * The first row the engine's module registers whose PIO or DMA driver discovery does not list
 * (tested); "any row" when it registers none (not loaded); NULL when all are there.
 */
static const char *engine_missing(char *err, size_t err_len)
{
	static struct hwoff_discovery d;
	size_t registered;
	const char *untested;

	if (hwoff_discover(&d, err, err_len))
		return "";
	untested = test_engine_untested_row(&d, &registered);
	return untested || registered ? untested : "any row";
}

static bool engine_wait_ready(char *err, size_t err_len)
{
	const char *missing = engine_missing(err, err_len);
	int waited = 0;

	for (; missing && *missing && waited < 60; waited++) {
		sleep(1);
		missing = engine_missing(err, err_len);
	}
	if (waited)
		printf("waited %d s for the engine's drivers to pass their self-tests\n", waited);
	if (missing && *missing)
		snprintf(err, err_len,
			 "the kernel lists no tested PIO and DMA driver of the engine "
			 "for %s",
			 missing);
	return !missing;
}

int engine_suite_run(const char *name, const struct engine_test *tests, size_t count)
{
	char err[512];
	Suite *s;
	TCase *tc;

	if (!engine_wait_ready(err, sizeof(err))) {
		fprintf(stderr, "%s\n", err);
		return EXIT_FAILURE;
	}
	s = suite_create(name);
	tc = tcase_create("load");
	tcase_set_timeout(tc, test_long_mode() ? 7 * 86400 : 1200);
	for (size_t i = 0; i < count; i++)
		tcase_add_loop_test(tc, tests[i].test, 0, tests[i].loops);
	suite_add_tcase(s, tc);
	return test_run_suite(s);
}

bool test_long_mode(void)
{
	const char *v = getenv("HWOFFLOAD_TEST_LONG");

	return v && *v && strcmp(v, "0");
}

unsigned long test_count(const char *name, unsigned long ci_value, unsigned long long_value)
{
	const char *v = getenv(name);

	if (v && *v)
		return strtoul(v, NULL, 0);
	return test_long_mode() ? long_value : ci_value;
}
