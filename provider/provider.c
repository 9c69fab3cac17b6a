/*
 * provider.c - hwoffload.so's core: OSSL_provider_init, the algorithms it offers, its
 * parameters and errors, and the route of each request.
 *
 * The algorithms come from the one algorithm table (backend/algs.c): one OSSL_ALGORITHM per
 * enabled row, property "provider=hwoffload". The software tier is OpenSSL's default provider,
 * fetched from a child library context, so the bytes are OpenSSL's own and no structure of
 * OpenSSL's is copied.
 */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/params.h>
#include <openssl/provider.h>

#include "config.h"
#include "backend/fingerprint.h"
#include "backend/table_file.h"
#include "backend/text.h"
#include "provider/provider.h"

#define PROVIDER_PROPERTIES "provider=hwoffload"
#define SOFTWARE_PROPERTIES "provider=default"

/* ---- errors --------------------------------------------------------------------------------- */

static const OSSL_ITEM reason_strings[] = {
	{ HWOFF_R_CONFIG, "bad configuration value" },
	{ HWOFF_R_TABLE, "path table does not load" },
	{ HWOFF_R_INIT, "provider set-up failed" },
	{ HWOFF_R_NO_PATH, "no engine driver for the configured mode" },
	{ HWOFF_R_KERNEL, "kernel request failed" },
	{ HWOFF_R_SOFTWARE, "default provider failed" },
	{ HWOFF_R_KEY_LENGTH, "invalid key length" },
	{ HWOFF_R_IV_LENGTH, "invalid iv length" },
	{ HWOFF_R_BAD_ARGUMENT, "bad argument" },
	{ HWOFF_R_NOT_BLOCK_MULTIPLE, "data not a multiple of the block length" },
	{ HWOFF_R_BAD_DECRYPT, "bad decrypt" },
	{ HWOFF_R_NOT_INITIALIZED, "operation not initialized" },
	{ HWOFF_R_PARAMETER, "bad parameter" },
	{ HWOFF_R_OUT_OF_MEMORY, "out of memory" },
	{ 0, NULL },
};

void hwoff_raise(const struct hwoff_prov *prov, enum hwoff_reason reason, const char *file,
		 int line, const char *func, const char *fmt, ...)
{
	va_list ap;

	if (!prov->core_new_error || !prov->core_vset_error)
		return;
	prov->core_new_error(prov->handle);
	if (prov->core_set_error_debug)
		prov->core_set_error_debug(prov->handle, file, line, func);
	va_start(ap, fmt);
	prov->core_vset_error(prov->handle, reason, fmt, ap);
	va_end(ap);
}

/* ---- software: the default provider's implementations, found once per row -------------------- */

static bool first_name_is(const char *names, const char *name)
{
	size_t len = strcspn(names, ":");

	return strlen(name) == len && strncasecmp(names, name, len) == 0;
}

static void take_software_cipher_functions(struct hwoff_software *sw, const OSSL_DISPATCH *fn)
{
	for (; fn->function_id; fn++) {
		switch (fn->function_id) {
		case OSSL_FUNC_CIPHER_NEWCTX:
			sw->cipher.newctx = OSSL_FUNC_cipher_newctx(fn);
			break;
		case OSSL_FUNC_CIPHER_ENCRYPT_INIT:
			sw->cipher.encrypt_init = OSSL_FUNC_cipher_encrypt_init(fn);
			break;
		case OSSL_FUNC_CIPHER_DECRYPT_INIT:
			sw->cipher.decrypt_init = OSSL_FUNC_cipher_decrypt_init(fn);
			break;
		case OSSL_FUNC_CIPHER_CIPHER:
			sw->cipher.cipher = OSSL_FUNC_cipher_cipher(fn);
			break;
		case OSSL_FUNC_CIPHER_UPDATE:
			sw->cipher.update = OSSL_FUNC_cipher_update(fn);
			break;
		case OSSL_FUNC_CIPHER_FINAL:
			sw->cipher.final = OSSL_FUNC_cipher_final(fn);
			break;
		case OSSL_FUNC_CIPHER_GET_CTX_PARAMS:
			sw->cipher.get_ctx_params = OSSL_FUNC_cipher_get_ctx_params(fn);
			break;
		case OSSL_FUNC_CIPHER_SET_CTX_PARAMS:
			sw->cipher.set_ctx_params = OSSL_FUNC_cipher_set_ctx_params(fn);
			break;
		case OSSL_FUNC_CIPHER_FREECTX:
			sw->cipher.freectx = OSSL_FUNC_cipher_freectx(fn);
			break;
		case OSSL_FUNC_CIPHER_DUPCTX:
			sw->cipher.dupctx = OSSL_FUNC_cipher_dupctx(fn);
			break;
		}
	}
}

static void take_software_digest_functions(struct hwoff_software *sw, const OSSL_DISPATCH *fn)
{
	for (; fn->function_id; fn++) {
		switch (fn->function_id) {
		case OSSL_FUNC_DIGEST_NEWCTX:
			sw->digest.newctx = OSSL_FUNC_digest_newctx(fn);
			break;
		case OSSL_FUNC_DIGEST_INIT:
			sw->digest.init = OSSL_FUNC_digest_init(fn);
			break;
		case OSSL_FUNC_DIGEST_UPDATE:
			sw->digest.update = OSSL_FUNC_digest_update(fn);
			break;
		case OSSL_FUNC_DIGEST_FINAL:
			sw->digest.final = OSSL_FUNC_digest_final(fn);
			break;
		case OSSL_FUNC_DIGEST_FREECTX:
			sw->digest.freectx = OSSL_FUNC_digest_freectx(fn);
			break;
		case OSSL_FUNC_DIGEST_DUPCTX:
			sw->digest.dupctx = OSSL_FUNC_digest_dupctx(fn);
			break;
		}
	}
}

/*
 * Guards the first look-up of a row's software implementation, in every instance of the
 * provider. One lock for all, held across fork() (pthread_atfork): a child forked while another
 * thread looked one up would otherwise inherit it locked for good, and hang at its own first
 * look-up.
 */
static pthread_mutex_t software_lock = PTHREAD_MUTEX_INITIALIZER;
static pthread_once_t software_lock_atfork = PTHREAD_ONCE_INIT;

static void software_lock_take(void)
{
	pthread_mutex_lock(&software_lock);
}

static void software_lock_give(void)
{
	pthread_mutex_unlock(&software_lock);
}

static void software_lock_hold_across_fork(void)
{
	pthread_atfork(software_lock_take, software_lock_give, software_lock_give);
}

/* Under software_lock: the default provider's entry for alg, and the functions we call. */
static int find_software(struct hwoff_prov *prov, const struct hwoff_alg *alg)
{
	struct hwoff_software *sw = &prov->software[hwoff_alg_index(alg)];
	bool digest = hwoff_alg_is_digest(alg);
	const OSSL_ALGORITHM *a;
	int no_cache;

	if (!prov->software_provider) {
		/* Fetching through the child context finds the default provider, wherever it is. */
		EVP_MD *md = EVP_MD_fetch(prov->libctx, "SHA2-256", SOFTWARE_PROPERTIES);

		if (!md)
			return 0;
		prov->software_provider = (OSSL_PROVIDER *)EVP_MD_get0_provider(md);
		EVP_MD_free(md);
	}
	if (!prov->software_algorithms[digest])
		prov->software_algorithms[digest] = OSSL_PROVIDER_query_operation(
			prov->software_provider, digest ? OSSL_OP_DIGEST : OSSL_OP_CIPHER,
			&no_cache);
	for (a = prov->software_algorithms[digest]; a && a->algorithm_names; a++)
		if (first_name_is(a->algorithm_names, alg->name))
			break;
	if (!a || !a->algorithm_names)
		return 0;
	memset(sw, 0, sizeof(*sw));
	sw->provctx = OSSL_PROVIDER_get0_provider_ctx(prov->software_provider);
	if (digest) {
		take_software_digest_functions(sw, a->implementation);
		return sw->digest.newctx && sw->digest.freectx && sw->digest.dupctx &&
		       sw->digest.init && sw->digest.update && sw->digest.final;
	}
	take_software_cipher_functions(sw, a->implementation);
	return sw->cipher.newctx && sw->cipher.freectx && sw->cipher.dupctx &&
	       sw->cipher.encrypt_init && sw->cipher.decrypt_init && sw->cipher.cipher &&
	       sw->cipher.update && sw->cipher.final && sw->cipher.get_ctx_params &&
	       sw->cipher.set_ctx_params;
}

const struct hwoff_software *hwoff_software_of(struct hwoff_prov *prov, const struct hwoff_alg *alg)
{
	size_t row = hwoff_alg_index(alg);
	int found;

	if (atomic_load_explicit(&prov->software_found[row], memory_order_acquire))
		return &prov->software[row];
	software_lock_take();
	found = atomic_load(&prov->software_found[row]) || find_software(prov, alg);
	if (found)
		atomic_store_explicit(&prov->software_found[row], true, memory_order_release);
	software_lock_give();
	if (found)
		return &prov->software[row];
	HWOFF_RAISE(prov, HWOFF_R_SOFTWARE, "the default provider has no %s", alg->name);
	return NULL;
}

void hwoff_tally_flush(struct hwoff_tally *t)
{
	if (t->requests)
		hwoff_count_requests(&t->path->counters, t->requests, t->bytes);
	*t = (struct hwoff_tally){ 0 };
}

/* ---- parameters: each sets params' entry for key, if it asks for one --------------------------
 */

int hwoff_param_set_size(OSSL_PARAM params[], const char *key, size_t value)
{
	OSSL_PARAM *p = OSSL_PARAM_locate(params, key);

	return !p || OSSL_PARAM_set_size_t(p, value);
}

int hwoff_param_set_uint(OSSL_PARAM params[], const char *key, unsigned int value)
{
	OSSL_PARAM *p = OSSL_PARAM_locate(params, key);

	return !p || OSSL_PARAM_set_uint(p, value);
}

int hwoff_param_set_int(OSSL_PARAM params[], const char *key, int value)
{
	OSSL_PARAM *p = OSSL_PARAM_locate(params, key);

	return !p || OSSL_PARAM_set_int(p, value);
}

int hwoff_param_set_utf8(OSSL_PARAM params[], const char *key, const char *value)
{
	OSSL_PARAM *p = OSSL_PARAM_locate(params, key);

	return !p || OSSL_PARAM_set_utf8_ptr(p, value);
}

/* ---- routes: the backend's router, and the errors its answers raise ---------------------------
 */

struct hwoff_path *hwoff_prov_route(struct hwoff_prov *prov, const struct hwoff_alg *alg,
				    enum hwoff_direction direction, size_t size,
				    struct hwoff_route_cache *cache)
{
	char why[HWOFF_NAME_MAX + HWOFF_PROBE_REASON_MAX + 128];
	struct hwoff_path *path =
		hwoff_route(&prov->router, alg, direction, size, cache, why, sizeof(why));

	if (!path)
		HWOFF_RAISE(prov, HWOFF_R_KERNEL, "%s", why);
	return path;
}

bool hwoff_prov_kernel_failed(struct hwoff_prov *prov, struct hwoff_path *path,
			      enum hwoff_fallback_reason why, const char *message)
{
	if (hwoff_route_failed(&prov->router, path, why, true, message))
		return true;
	HWOFF_RAISE(prov, HWOFF_R_KERNEL, "%s (fallback is off)", message);
	return false;
}

bool hwoff_prov_can_serve(struct hwoff_prov *prov, const struct hwoff_alg *alg)
{
	const char *why = prov->no_path[hwoff_alg_index(alg)];

	if (!why[0])
		return true;
	HWOFF_RAISE(prov, HWOFF_R_NO_PATH, "%s", why);
	return false;
}

/* ---- the table of the configured mode -------------------------------------------------------- */

static enum hwoff_direction first_direction(const struct hwoff_alg *alg)
{
	return hwoff_alg_is_digest(alg) ? HWOFF_DIGEST : HWOFF_ENCRYPT;
}

static enum hwoff_direction last_direction(const struct hwoff_alg *alg)
{
	return hwoff_alg_is_digest(alg) ? HWOFF_DIGEST : HWOFF_DECRYPT;
}

/* mode pio or dma: every size of every row to that driver of the engine, where it has one. */
static bool force_engine_path(struct hwoff_prov *prov, struct hwoff_table *t,
			      enum hwoff_impl_class class)
{
	const char *mode = hwoff_run_mode_name(prov->config.mode);
	char err[256];

	for (size_t a = 0; a < hwoff_alg_count; a++) {
		const struct hwoff_alg *alg = &hwoff_algs[a];
		const struct hwoff_impl *impl;
		struct hwoff_range_spec all;

		if (!prov->config.enabled[a])
			continue;
		if (prov->probe.error) {
			snprintf(prov->no_path[a], sizeof(prov->no_path[a]),
				 "mode=%s: AF_ALG is unavailable: %s", mode, prov->probe.reason);
			continue;
		}
		impl = hwoff_discovery_find_class(prov->discovery, alg->kernel_name, class);
		if (!impl) {
			snprintf(prov->no_path[a], sizeof(prov->no_path[a]),
				 "mode=%s: the kernel has no %s driver of the hwoffload engine for "
				 "%s (is hwoffload.ko loaded? hwoffload-info lists what there is)",
				 mode, mode, alg->kernel_name);
			continue;
		}
		all = (struct hwoff_range_spec){ .start = 0, .path = impl->driver };
		for (int dir = first_direction(alg); dir <= (int)last_direction(alg); dir++)
			for (int obj = 0; obj < HWOFF_OBJECTIVE_COUNT; obj++)
				if (hwoff_table_set(t, alg, dir, obj, &all, 1, err, sizeof(err))) {
					HWOFF_RAISE(prov, HWOFF_R_INIT, "%s", err);
					return false;
				}
	}
	return true;
}

/* The calibrated table of the configuration's file, checked against this machine. */
static struct hwoff_table *load_table_file(struct hwoff_prov *prov)
{
	struct hwoff_fingerprint machine;
	struct hwoff_table *t;
	char err[512];

	t = hwoff_table_load(prov->config.table, err, sizeof(err));
	if (!t) {
		HWOFF_RAISE(prov, HWOFF_R_TABLE, "%s", err);
		return NULL;
	}
	snprintf(prov->table_source, sizeof(prov->table_source), "%s", prov->config.table);
	hwoff_fingerprint_machine(&machine, t, prov->discovery);
	hwoff_fingerprint_compare(&t->fingerprint, &machine, prov->warnings,
				  sizeof(prov->warnings));
	hwoff_table_check_drivers(t, prov->discovery, prov->warnings, sizeof(prov->warnings));
	return t;
}

/* The table of the configured mode; NULL with an error raised. */
static struct hwoff_table *table_of_mode(struct hwoff_prov *prov)
{
	struct hwoff_table *t = NULL;

	switch (prov->config.mode) {
	case HWOFF_RUN_AUTO:
		if (prov->config.table[0]) {
			t = load_table_file(prov);
			if (!t)
				return NULL;
		}
		if (prov->probe.error) {
			/* Nothing but software can serve here: that is the route, not a fallback. */
			if (t)
				hwoff_appendf(prov->warnings, sizeof(prov->warnings),
					      "table %s is not used: %s\n", prov->config.table,
					      prov->probe.reason);
			hwoff_table_free(t);
			t = hwoff_table_new();
			snprintf(prov->table_source, sizeof(prov->table_source),
				 "none: software only, as AF_ALG is unusable here");
			break;
		}
		if (t)
			break;
		t = hwoff_table_default(prov->discovery);
		snprintf(prov->table_source, sizeof(prov->table_source),
			 "built-in (software below %d B for AES, %d B for digests, the engine's "
			 "driver from there where one is found)",
			 HWOFF_DEFAULT_CIPHER_CUTOFF, HWOFF_DEFAULT_DIGEST_CUTOFF);
		break;
	case HWOFF_RUN_SOFTWARE:
		t = hwoff_table_new();
		snprintf(prov->table_source, sizeof(prov->table_source), "none (mode=software)");
		break;
	case HWOFF_RUN_PIO:
	case HWOFF_RUN_DMA:
		t = hwoff_table_new();
		snprintf(prov->table_source, sizeof(prov->table_source), "none (mode=%s)",
			 hwoff_run_mode_name(prov->config.mode));
		if (t && !force_engine_path(prov, t,
					    prov->config.mode == HWOFF_RUN_PIO
						    ? HWOFF_IMPL_ENGINE_PIO
						    : HWOFF_IMPL_ENGINE_DMA)) {
			hwoff_table_free(t);
			return NULL;
		}
		break;
	}
	if (!t)
		HWOFF_RAISE(prov, HWOFF_R_OUT_OF_MEMORY, "for the path table");
	return t;
}

/* What this machine offers, the table of the configured mode, and the router over it. */
static bool set_up_routes(struct hwoff_prov *prov)
{
	struct hwoff_table *t;
	char err[512];

	hwoff_probe_afalg(&prov->probe);
	prov->discovery = calloc(1, sizeof(*prov->discovery));
	if (!prov->discovery) {
		HWOFF_RAISE(prov, HWOFF_R_OUT_OF_MEMORY, "for the discovery");
		return false;
	}
	if (hwoff_discover(prov->discovery, err, sizeof(err)))
		hwoff_appendf(prov->warnings, sizeof(prov->warnings), "discovery: %s\n", err);
	t = table_of_mode(prov);
	if (!t)
		return false;
	if (hwoff_router_init(&prov->router, t, prov->config.objective, prov->config.fallback,
			      prov->config.retry_ms)) {
		HWOFF_RAISE(prov, HWOFF_R_OUT_OF_MEMORY, "for the router");
		return false;
	}
	return true;
}

/* ---- per-row entry points: OpenSSL's newctx and get_params carry no algorithm --------------- */

static void *alg_newctx(void *provctx, size_t row)
{
	const struct hwoff_alg *alg = &hwoff_algs[row];

	if (hwoff_alg_is_digest(alg))
		return hwoff_digest_newctx(provctx, alg);
	return hwoff_cipher_newctx(provctx, alg);
}

static int alg_get_params(OSSL_PARAM params[], size_t row)
{
	const struct hwoff_alg *alg = &hwoff_algs[row];

	if (hwoff_alg_is_digest(alg))
		return hwoff_digest_get_params(alg, params);
	return hwoff_cipher_get_params(alg, params);
}

#define ROW_ENTRY_POINTS(row)                            \
	static void *newctx_##row(void *provctx)         \
	{                                                \
		return alg_newctx(provctx, row);         \
	}                                                \
	static int get_params_##row(OSSL_PARAM params[]) \
	{                                                \
		return alg_get_params(params, row);      \
	}
#define ROWS(X)                                                                                 \
	X(0)                                                                                    \
	X(1)                                                                                    \
	X(2) X(3) X(4) X(5) X(6) X(7) X(8) X(9) X(10) X(11) X(12) X(13) X(14) X(15) X(16) X(17) \
		X(18) X(19) X(20) X(21) X(22) X(23) X(24) X(25) X(26) X(27) X(28) X(29) X(30)   \
			X(31)
ROWS(ROW_ENTRY_POINTS)

struct row_entry_points {
	void *(*newctx)(void *provctx);
	int (*get_params)(OSSL_PARAM params[]);
};
#define ROW_ENTRY(row) { newctx_##row, get_params_##row },
static const struct row_entry_points row_entry_points[HWOFF_PROV_ALGS_MAX] = { ROWS(ROW_ENTRY) };

_Static_assert(HWOFF_PROV_ALGS_MAX == sizeof(row_entry_points) / sizeof(row_entry_points[0]),
	       "one entry point pair per row");

/* The row's dispatch: its newctx and get_params, then its kind's shared functions. */
static void build_dispatch(OSSL_DISPATCH *out, size_t out_count, size_t row)
{
	const OSSL_DISPATCH *shared = hwoff_alg_is_digest(&hwoff_algs[row])
					      ? hwoff_digest_functions
					      : hwoff_cipher_functions;
	int newctx_id = hwoff_alg_is_digest(&hwoff_algs[row]) ? OSSL_FUNC_DIGEST_NEWCTX
							      : OSSL_FUNC_CIPHER_NEWCTX;
	int get_params_id = hwoff_alg_is_digest(&hwoff_algs[row]) ? OSSL_FUNC_DIGEST_GET_PARAMS
								  : OSSL_FUNC_CIPHER_GET_PARAMS;
	size_t n = 0;

	out[n++] = (OSSL_DISPATCH){ newctx_id, (void (*)(void))row_entry_points[row].newctx };
	out[n++] =
		(OSSL_DISPATCH){ get_params_id, (void (*)(void))row_entry_points[row].get_params };
	for (; shared->function_id && n < out_count - 1; shared++)
		out[n++] = *shared;
	out[n] = (OSSL_DISPATCH){ 0, NULL };
}

static void build_algorithms(struct hwoff_prov *prov)
{
	size_t ciphers = 0, digests = 0;

	for (size_t a = 0; a < hwoff_alg_count; a++) {
		OSSL_ALGORITHM *slot;

		if (!prov->config.enabled[a])
			continue;
		build_dispatch(prov->dispatch[a],
			       sizeof(prov->dispatch[a]) / sizeof(prov->dispatch[a][0]), a);
		slot = hwoff_alg_is_digest(&hwoff_algs[a]) ? &prov->digests[digests++]
							   : &prov->ciphers[ciphers++];
		*slot = (OSSL_ALGORITHM){ hwoff_algs[a].names, PROVIDER_PROPERTIES,
					  prov->dispatch[a], NULL };
	}
}

/* ---- the provider's own functions ------------------------------------------------------------ */

#define PARAM_AF_ALG	     "hwoffload-af-alg"
#define PARAM_AF_ALG_REASON  "hwoffload-af-alg-reason"
#define PARAM_MODE	     "hwoffload-mode"
#define PARAM_OBJECTIVE	     "hwoffload-objective"
#define PARAM_TABLE	     "hwoffload-table"
#define PARAM_TABLE_WARNINGS "hwoffload-table-warnings"
#define PARAM_STATISTICS     "hwoffload-statistics"

static const OSSL_PARAM provider_gettable[] = {
	OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, NULL, 0),
	OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, NULL, 0),
	OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, NULL, 0),
	OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, NULL),
	OSSL_PARAM_utf8_ptr(PARAM_AF_ALG, NULL, 0),
	OSSL_PARAM_utf8_ptr(PARAM_AF_ALG_REASON, NULL, 0),
	OSSL_PARAM_utf8_ptr(PARAM_MODE, NULL, 0),
	OSSL_PARAM_utf8_ptr(PARAM_OBJECTIVE, NULL, 0),
	OSSL_PARAM_utf8_ptr(PARAM_TABLE, NULL, 0),
	OSSL_PARAM_utf8_ptr(PARAM_TABLE_WARNINGS, NULL, 0),
	OSSL_PARAM_utf8_string(PARAM_STATISTICS, NULL, 0),
	OSSL_PARAM_END,
};

static const OSSL_PARAM *provider_gettable_params(void *provctx)
{
	return provider_gettable;
}

static int provider_get_params(void *provctx, OSSL_PARAM params[])
{
	struct hwoff_prov *prov = provctx;
	char statistics[HWOFF_REPORT_MAX] = "";
	OSSL_PARAM *p;

	/* The name says at a glance, in `openssl list -providers`, whether the kernel is used. */
	static const char *const names[] = {
		"hwoffload: crypto engines through AF_ALG",
		"hwoffload: crypto engines through AF_ALG (unavailable here: software only)",
	};

	if (!hwoff_param_set_int(params, OSSL_PROV_PARAM_STATUS, 1))
		return 0;
	p = OSSL_PARAM_locate(params, PARAM_STATISTICS);
	if (p) {
		hwoff_digest_flush_spares(prov);
		hwoff_table_format_stats(prov->router.table, statistics, sizeof(statistics));
		if (!OSSL_PARAM_set_utf8_string(p, statistics))
			return 0;
	}
	return hwoff_param_set_utf8(params, OSSL_PROV_PARAM_NAME, names[prov->probe.error != 0]) &&
	       hwoff_param_set_utf8(params, OSSL_PROV_PARAM_VERSION, PACKAGE_VERSION) &&
	       hwoff_param_set_utf8(params, OSSL_PROV_PARAM_BUILDINFO,
				    PACKAGE_NAME " " PACKAGE_VERSION
						 ", built against " OPENSSL_VERSION_TEXT) &&
	       hwoff_param_set_utf8(params, PARAM_AF_ALG,
				    prov->probe.error ? "unavailable" : "available") &&
	       hwoff_param_set_utf8(params, PARAM_AF_ALG_REASON, prov->probe.reason) &&
	       hwoff_param_set_utf8(params, PARAM_MODE, hwoff_run_mode_name(prov->config.mode)) &&
	       hwoff_param_set_utf8(params, PARAM_OBJECTIVE,
				    hwoff_objective_name(prov->config.objective)) &&
	       hwoff_param_set_utf8(params, PARAM_TABLE, prov->table_source) &&
	       hwoff_param_set_utf8(params, PARAM_TABLE_WARNINGS, prov->warnings);
}

static const OSSL_ALGORITHM *provider_query(void *provctx, int operation_id, int *no_cache)
{
	struct hwoff_prov *prov = provctx;

	*no_cache = 0;
	switch (operation_id) {
	case OSSL_OP_CIPHER:
		return prov->ciphers;
	case OSSL_OP_DIGEST:
		return prov->digests;
	}
	return NULL;
}

static const OSSL_ITEM *provider_reason_strings(void *provctx)
{
	return reason_strings;
}

static void print_statistics(const struct hwoff_prov *prov)
{
	char statistics[HWOFF_REPORT_MAX] = "";

	hwoff_table_format_stats(prov->router.table, statistics, sizeof(statistics));
	fprintf(stderr, "hwoffload statistics (pid %d, mode %s, objective %s, table %s):\n%s",
		(int)getpid(), hwoff_run_mode_name(prov->config.mode),
		hwoff_objective_name(prov->config.objective), prov->table_source, statistics);
}

static void provider_teardown(void *provctx)
{
	struct hwoff_prov *prov = provctx;

	if (!prov)
		return;
	hwoff_digest_free_spares(prov);
	if (prov->config.stats && prov->router.table)
		print_statistics(prov);
	for (int digest = 0; digest < 2; digest++)
		if (prov->software_algorithms[digest])
			OSSL_PROVIDER_unquery_operation(prov->software_provider,
							digest ? OSSL_OP_DIGEST : OSSL_OP_CIPHER,
							prov->software_algorithms[digest]);
	if (prov->default_provider)
		OSSL_PROVIDER_unload(prov->default_provider);
	OSSL_LIB_CTX_free(prov->libctx);
	hwoff_router_fini(&prov->router);
	free(prov->discovery);
	free(prov);
}

static const OSSL_DISPATCH provider_functions[] = {
	{ OSSL_FUNC_PROVIDER_TEARDOWN, (void (*)(void))provider_teardown },
	{ OSSL_FUNC_PROVIDER_GETTABLE_PARAMS, (void (*)(void))provider_gettable_params },
	{ OSSL_FUNC_PROVIDER_GET_PARAMS, (void (*)(void))provider_get_params },
	{ OSSL_FUNC_PROVIDER_QUERY_OPERATION, (void (*)(void))provider_query },
	{ OSSL_FUNC_PROVIDER_GET_REASON_STRINGS, (void (*)(void))provider_reason_strings },
	{ 0, NULL },
};

static void take_core_functions(struct hwoff_prov *prov, const OSSL_DISPATCH *in)
{
	for (; in->function_id; in++) {
		switch (in->function_id) {
		case OSSL_FUNC_CORE_NEW_ERROR:
			prov->core_new_error = OSSL_FUNC_core_new_error(in);
			break;
		case OSSL_FUNC_CORE_SET_ERROR_DEBUG:
			prov->core_set_error_debug = OSSL_FUNC_core_set_error_debug(in);
			break;
		case OSSL_FUNC_CORE_VSET_ERROR:
			prov->core_vset_error = OSSL_FUNC_core_vset_error(in);
			break;
		}
	}
}

/*
 * The software tier: the default provider in a child of the application's library context. A
 * child sees the providers the application loaded; the default one is loaded into it as well,
 * for applications that load only hwoffload.
 */
static int set_up_software(struct hwoff_prov *prov, const OSSL_DISPATCH *in)
{
	prov->libctx = OSSL_LIB_CTX_new_child(prov->handle, in);
	if (!prov->libctx) {
		HWOFF_RAISE(prov, HWOFF_R_INIT, "no child library context for the software tier");
		return 0;
	}
	if (!OSSL_PROVIDER_available(prov->libctx, "default")) {
		prov->default_provider = OSSL_PROVIDER_load(prov->libctx, "default");
		if (!prov->default_provider) {
			HWOFF_RAISE(
				prov, HWOFF_R_INIT,
				"OpenSSL's default provider does not load: hwoffload's software "
				"tier needs it");
			return 0;
		}
	}
	return 1;
}

int OSSL_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
		       const OSSL_DISPATCH **out, void **provctx);

int OSSL_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
		       const OSSL_DISPATCH **out, void **provctx)
{
	struct hwoff_prov *prov;

	prov = calloc(1, sizeof(*prov));
	if (!prov)
		return 0;
	prov->handle = handle;
	pthread_once(&software_lock_atfork, software_lock_hold_across_fork);
	take_core_functions(prov, in);
	if (hwoff_alg_count > HWOFF_PROV_ALGS_MAX) {
		HWOFF_RAISE(prov, HWOFF_R_INIT,
			    "%zu algorithms: raise HWOFF_PROV_ALGS_MAX and ROWS()",
			    hwoff_alg_count);
		goto fail;
	}
	if (!hwoff_config_read(prov, in) || !set_up_software(prov, in))
		goto fail;
	if (!set_up_routes(prov))
		goto fail;
	build_algorithms(prov);
	*out = provider_functions;
	*provctx = prov;
	return 1;
fail:
	provider_teardown(prov);
	return 0;
}
