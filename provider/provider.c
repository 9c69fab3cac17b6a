// SPDX-License-Identifier: Apache-2.0
/*
 * provider.c - hwoffload.so's core: OSSL_provider_init, the algorithms it offers, its
 * parameters and errors, and the route of each request.
 *
 * The algorithms come from the one algorithm table (backend/algs.c): one OSSL_ALGORITHM per
 * enabled row, property "provider=hwoffload". The software tier is OpenSSL's default provider,
 * fetched from a child library context, so the bytes are OpenSSL's own and no structure of
 * OpenSSL's is copied.
 */
#include <errno.h>
#include <fcntl.h>
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
#include "backend/text.h"
#include "provider/params.h"
#include "provider/provider.h"

#define PROVIDER_PROPERTIES "provider=hwoffload"

/* ---- errors --------------------------------------------------------------------------------- */

static const OSSL_ITEM reason_strings[] = {
	{ HWPROV_R_CONFIG, "bad configuration value" },
	{ HWPROV_R_TABLE, "path table does not load" },
	{ HWPROV_R_INIT, "provider set-up failed" },
	{ HWPROV_R_NO_PATH, "no engine driver for the configured mode" },
	{ HWPROV_R_KERNEL, "kernel request failed" },
	{ HWPROV_R_SOFTWARE, "default provider failed" },
	{ HWPROV_R_KEY_LENGTH, "invalid key length" },
	{ HWPROV_R_IV_LENGTH, "invalid iv length" },
	{ HWPROV_R_BAD_ARGUMENT, "bad argument" },
	{ HWPROV_R_NOT_BLOCK_MULTIPLE, "data not a multiple of the block length" },
	{ HWPROV_R_BAD_DECRYPT, "bad decrypt" },
	{ HWPROV_R_NOT_INITIALIZED, "operation not initialized" },
	{ HWPROV_R_PARAMETER, "bad parameter" },
	{ HWPROV_R_OUT_OF_MEMORY, "out of memory" },
	{ 0, NULL },
};

void hwprov_raise(const struct hwprov *prov, enum hwprov_reason reason, const char *file, int line,
		  const char *func, const char *fmt, ...)
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

/* ---- statistics: printed at unload, kept in stats_dir while loaded ------------------------- */

/* A header naming the table, and a line per path. */
#define STATISTICS_TEXT_MAX (sizeof(((struct hwprov *)0)->table_source) + 128 + HWPROV_REPORT_MAX)
/* stats_dir/hwoffload.PID.INSTANCE.new */
#define STATISTICS_FILE_MAX (sizeof(((struct hwprov *)0)->config.stats_dir) + HWPROV_STATS_FILE_MAX)

static void statistics_text(const struct hwprov *prov, char *buf, size_t size)
{
	snprintf(buf, size, "hwoffload statistics (pid %d, mode %s, objective %s, table %s):\n",
		 (int)getpid(), hwprov_run_mode_name(prov->config.mode),
		 hwoff_objective_name(prov->config.objective), prov->table_source);
	hwoff_table_format_stats(prov->router.table, buf, size);
}

/* stats_dir/hwoffload.PID.INSTANCE (PID of now: a child after fork() has a file of its own). */
static void statistics_file(const struct hwprov *prov, char *buf, size_t size, const char *suffix)
{
	snprintf(buf, size, "%s/hwoffload.%d.%u%s", prov->config.stats_dir, (int)getpid(),
		 prov->instance, suffix);
}

/*
 * The statistics file written anew (a new file renamed over it, so that a reader sees a whole
 * one) when force is true or a second has passed since the last write; one thread writes at a
 * time, the others go on. 0 or -errno.
 */
static int write_statistics(struct hwprov *prov, bool force)
{
	char text[STATISTICS_TEXT_MAX], path[STATISTICS_FILE_MAX], new_path[STATISTICS_FILE_MAX];
	uint64_t last = atomic_load_explicit(&prov->stats_written_ns, memory_order_relaxed);
	uint64_t now = hwoff_now_ns();
	int fd, err = 0;
	ssize_t len, written;

	if (force)
		atomic_store(&prov->stats_written_ns, now);
	else if (now - last < 1000000000u ||
		 !atomic_compare_exchange_strong(&prov->stats_written_ns, &last, now))
		return 0;
	statistics_text(prov, text, sizeof(text));
	statistics_file(prov, path, sizeof(path), "");
	statistics_file(prov, new_path, sizeof(new_path), ".new");
	fd = open(new_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC | O_NOFOLLOW, 0644);
	if (fd < 0)
		return -errno;
	len = (ssize_t)strlen(text);
	written = write(fd, text, (size_t)len);
	if (written != len)
		err = written < 0 ? -errno : -EIO;
	if (close(fd) && !err)
		err = -errno;
	if (!err && rename(new_path, path))
		err = -errno;
	if (err)
		unlink(new_path);
	return err;
}

/*
 * The statistics file written a first time, so that the process shows in hwoffload-info --stats
 * before its first request; where it cannot be written, none is kept and stats_file says why
 * (the provider loads all the same: statistics are no reason to fail an application).
 */
static void keep_statistics(struct hwprov *prov)
{
	static atomic_uint instances;
	char path[STATISTICS_FILE_MAX];
	int err;

	prov->instance = atomic_fetch_add(&instances, 1);
	if (!prov->config.stats_dir[0]) {
		snprintf(prov->stats_file, sizeof(prov->stats_file), "none (stats_dir not set)");
		return;
	}
	statistics_file(prov, path, sizeof(path), "");
	err = write_statistics(prov, true);
	if (err) {
		snprintf(prov->stats_file, sizeof(prov->stats_file),
			 "none: %s cannot be written: %s", path, strerror(-err));
		prov->config.stats_dir[0] = '\0';
		return;
	}
	snprintf(prov->stats_file, sizeof(prov->stats_file), "%s (pid %d)", path, (int)getpid());
}

void hwprov_tally_flush(struct hwprov *prov, struct hwprov_tally *t)
{
	if (t->requests)
		hwoff_count_requests(&t->path->counters, t->requests, t->bytes);
	*t = (struct hwprov_tally){ 0 };
	if (prov->config.stats_dir[0])
		write_statistics(prov, false);
}

/* ---- parameters: each sets params' entry for key, if it asks for one --------------------------
 */

int hwprov_param_set_size(OSSL_PARAM params[], const char *key, size_t value)
{
	OSSL_PARAM *p = OSSL_PARAM_locate(params, key);

	return !p || OSSL_PARAM_set_size_t(p, value);
}

int hwprov_param_set_uint(OSSL_PARAM params[], const char *key, unsigned int value)
{
	OSSL_PARAM *p = OSSL_PARAM_locate(params, key);

	return !p || OSSL_PARAM_set_uint(p, value);
}

int hwprov_param_set_int(OSSL_PARAM params[], const char *key, int value)
{
	OSSL_PARAM *p = OSSL_PARAM_locate(params, key);

	return !p || OSSL_PARAM_set_int(p, value);
}

int hwprov_param_set_utf8(OSSL_PARAM params[], const char *key, const char *value)
{
	OSSL_PARAM *p = OSSL_PARAM_locate(params, key);

	return !p || OSSL_PARAM_set_utf8_ptr(p, value);
}

/* ---- per-row entry points: OpenSSL's newctx and get_params carry no algorithm --------------- */

static void *alg_newctx(void *provctx, size_t row)
{
	const struct hwoff_alg *alg = &hwoff_algs[row];

	if (hwoff_alg_is_digest(alg))
		return hwprov_digest_newctx(provctx, alg);
	if (hwoff_alg_is_aead(alg))
		return hwprov_gcm_newctx(provctx, alg);
	return hwprov_cipher_newctx(provctx, alg);
}

static int alg_get_params(OSSL_PARAM params[], size_t row)
{
	const struct hwoff_alg *alg = &hwoff_algs[row];

	if (hwoff_alg_is_digest(alg))
		return hwprov_digest_get_params(alg, params);
	return hwprov_cipher_get_params(alg, params);
}

/* One newctx and get_params per row of the algorithm table (backend/algs.h: HWOFF_ALGS). */
#define ROW_ENTRY_POINTS(row, ...)                              \
	static void *newctx_##row(void *provctx)                \
	{                                                       \
		return alg_newctx(provctx, HWOFF_ROW_##row);    \
	}                                                       \
	static int get_params_##row(OSSL_PARAM params[])        \
	{                                                       \
		return alg_get_params(params, HWOFF_ROW_##row); \
	}
HWOFF_ALGS(ROW_ENTRY_POINTS, ROW_ENTRY_POINTS)

struct row_entry_points {
	void *(*newctx)(void *provctx);
	int (*get_params)(OSSL_PARAM params[]);
};
#define ROW_ENTRY(row, ...) [HWOFF_ROW_##row] = { newctx_##row, get_params_##row },
static const struct row_entry_points row_entry_points[HWOFF_ALG_COUNT] = { HWOFF_ALGS(ROW_ENTRY,
										      ROW_ENTRY) };

/*
 * The row's dispatch: its newctx and get_params, then its kind's shared functions, which fit
 * (HWPROV_SHARED_FUNCTIONS_FIT() in cipher.c, cipher_gcm.c and digest.c).
 */
static void build_dispatch(OSSL_DISPATCH out[HWPROV_ROW_DISPATCH_MAX], size_t row)
{
	const OSSL_DISPATCH *shared =
		hwoff_alg_is_digest(&hwoff_algs[row]) ? hwprov_digest_functions
		: hwoff_alg_is_aead(&hwoff_algs[row]) ? hwprov_gcm_functions
						      : hwprov_cipher_functions;
	int newctx_id = hwoff_alg_is_digest(&hwoff_algs[row]) ? OSSL_FUNC_DIGEST_NEWCTX
							      : OSSL_FUNC_CIPHER_NEWCTX;
	int get_params_id = hwoff_alg_is_digest(&hwoff_algs[row]) ? OSSL_FUNC_DIGEST_GET_PARAMS
								  : OSSL_FUNC_CIPHER_GET_PARAMS;
	size_t n = 0;

	out[n++] = (OSSL_DISPATCH){ newctx_id, (void (*)(void))row_entry_points[row].newctx };
	out[n++] =
		(OSSL_DISPATCH){ get_params_id, (void (*)(void))row_entry_points[row].get_params };
	for (; shared->function_id; shared++)
		out[n++] = *shared;
	out[n] = (OSSL_DISPATCH){ 0, NULL };
}

static void build_algorithms(struct hwprov *prov)
{
	size_t ciphers = 0, digests = 0;

	for (size_t a = 0; a < HWOFF_ALG_COUNT; a++) {
		OSSL_ALGORITHM *slot;

		if (!prov->config.enabled[a])
			continue;
		if (hwoff_alg_is_hmac(&hwoff_algs[a])) { /* one EVP_MAC for all: mac.c */
			prov->macs[0] = (OSSL_ALGORITHM){ "HMAC", PROVIDER_PROPERTIES,
							  hwprov_hmac_functions, NULL };
			continue;
		}
		build_dispatch(prov->dispatch[a], a);
		slot = hwoff_alg_is_digest(&hwoff_algs[a]) ? &prov->digests[digests++]
							   : &prov->ciphers[ciphers++];
		*slot = (OSSL_ALGORITHM){ hwoff_algs[a].names, PROVIDER_PROPERTIES,
					  prov->dispatch[a], NULL };
	}
}

/* ---- the provider's own functions ------------------------------------------------------------ */

static const OSSL_PARAM provider_gettable[] = {
	OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_NAME, NULL, 0),
	OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_VERSION, NULL, 0),
	OSSL_PARAM_utf8_ptr(OSSL_PROV_PARAM_BUILDINFO, NULL, 0),
	OSSL_PARAM_int(OSSL_PROV_PARAM_STATUS, NULL),
	OSSL_PARAM_utf8_ptr(HWPROV_PARAM_AF_ALG, NULL, 0),
	OSSL_PARAM_utf8_ptr(HWPROV_PARAM_AF_ALG_REASON, NULL, 0),
	OSSL_PARAM_utf8_ptr(HWPROV_PARAM_MODE, NULL, 0),
	OSSL_PARAM_utf8_ptr(HWPROV_PARAM_OBJECTIVE, NULL, 0),
	OSSL_PARAM_utf8_ptr(HWPROV_PARAM_TABLE, NULL, 0),
	OSSL_PARAM_utf8_ptr(HWPROV_PARAM_TABLE_WARNINGS, NULL, 0),
	OSSL_PARAM_utf8_string(HWPROV_PARAM_STATISTICS, NULL, 0),
	OSSL_PARAM_utf8_ptr(HWPROV_PARAM_STATS_FILE, NULL, 0),
	OSSL_PARAM_END,
};

static const OSSL_PARAM *provider_gettable_params(void *provctx)
{
	return provider_gettable;
}

static int provider_get_params(void *provctx, OSSL_PARAM params[])
{
	struct hwprov *prov = provctx;
	char statistics[HWPROV_REPORT_MAX] = "";
	OSSL_PARAM *p;

	/* The name says at a glance, in `openssl list -providers`, whether the kernel is used. */
	static const char *const names[] = {
		"hwoffload: crypto engines through AF_ALG",
		"hwoffload: crypto engines through AF_ALG (unavailable here: software only)",
		"hwoffload: crypto engines through AF_ALG (unavailable here: the engine's own "
		"device "
		"and software)",
	};
	unsigned int name = !prov->probe.error						     ? 0
			    : prov->discovery && hwoff_discovery_has_device(prov->discovery) ? 2
											     : 1;

	if (!hwprov_param_set_int(params, OSSL_PROV_PARAM_STATUS, 1))
		return 0;
	p = OSSL_PARAM_locate(params, HWPROV_PARAM_STATISTICS);
	if (p) {
		hwprov_digest_flush_spares(prov);
		hwoff_table_format_stats(prov->router.table, statistics, sizeof(statistics));
		if (!OSSL_PARAM_set_utf8_string(p, statistics))
			return 0;
	}
	return hwprov_param_set_utf8(params, OSSL_PROV_PARAM_NAME, names[name]) &&
	       hwprov_param_set_utf8(params, OSSL_PROV_PARAM_VERSION, PACKAGE_VERSION) &&
	       hwprov_param_set_utf8(params, OSSL_PROV_PARAM_BUILDINFO,
				     PACKAGE_NAME " " PACKAGE_VERSION
						  ", built against " OPENSSL_VERSION_TEXT) &&
	       hwprov_param_set_utf8(params, HWPROV_PARAM_AF_ALG,
				     prov->probe.error ? "unavailable" : "available") &&
	       hwprov_param_set_utf8(params, HWPROV_PARAM_AF_ALG_REASON, prov->probe.reason) &&
	       hwprov_param_set_utf8(params, HWPROV_PARAM_MODE,
				     hwprov_run_mode_name(prov->config.mode)) &&
	       hwprov_param_set_utf8(params, HWPROV_PARAM_OBJECTIVE,
				     hwoff_objective_name(prov->config.objective)) &&
	       hwprov_param_set_utf8(params, HWPROV_PARAM_TABLE, prov->table_source) &&
	       hwprov_param_set_utf8(params, HWPROV_PARAM_TABLE_WARNINGS, prov->warnings) &&
	       hwprov_param_set_utf8(params, HWPROV_PARAM_STATS_FILE, prov->stats_file);
}

static const OSSL_ALGORITHM *provider_query(void *provctx, int operation_id, int *no_cache)
{
	struct hwprov *prov = provctx;

	*no_cache = 0;
	switch (operation_id) {
	case OSSL_OP_CIPHER:
		return prov->ciphers;
	case OSSL_OP_DIGEST:
		return prov->digests;
	case OSSL_OP_MAC:
		return prov->macs;
	}
	return NULL;
}

static const OSSL_ITEM *provider_reason_strings(void *provctx)
{
	return reason_strings;
}

static void provider_teardown(void *provctx)
{
	struct hwprov *prov = provctx;
	char statistics[STATISTICS_TEXT_MAX];

	if (!prov)
		return;
	hwprov_digest_free_spares(prov);
	if (prov->config.stats && prov->router.table) {
		statistics_text(prov, statistics, sizeof(statistics));
		fputs(statistics, stderr);
	}
	if (prov->config.stats_dir[0]) {
		statistics_file(prov, statistics, sizeof(statistics), "");
		unlink(statistics);
	}
	hwprov_software_tear_down(prov);
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

static void take_core_functions(struct hwprov *prov, const OSSL_DISPATCH *in)
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

int OSSL_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
		       const OSSL_DISPATCH **out, void **provctx);

int OSSL_provider_init(const OSSL_CORE_HANDLE *handle, const OSSL_DISPATCH *in,
		       const OSSL_DISPATCH **out, void **provctx)
{
	struct hwprov *prov;

	prov = calloc(1, sizeof(*prov));
	if (!prov)
		return 0;
	prov->handle = handle;
	take_core_functions(prov, in);
	if (!hwprov_config_read(prov, in) || !hwprov_software_set_up(prov, in))
		goto fail;
	if (!hwprov_routes_set_up(prov))
		goto fail;
	build_algorithms(prov);
	keep_statistics(prov);
	*out = provider_functions;
	*provctx = prov;
	return 1;
fail:
	provider_teardown(prov);
	return 0;
}
