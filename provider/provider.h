/* SPDX-License-Identifier: Apache-2.0 */
/*
 * provider.h - what the operations (cipher.c, digest.c) share with the provider's core.
 *
 * The core (provider.c) reads the configuration, asks the backend what this machine offers and
 * which path table applies, and hands each operation a struct hwprov. After init that
 * structure changes only through the backend's lock-free parts (statistics, unusable paths), so
 * any number of threads use it at once.
 */
#ifndef HWPROV_PROVIDER_H
#define HWPROV_PROVIDER_H

#include <limits.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>

#include <openssl/core.h>
#include <openssl/core_dispatch.h>
#include <openssl/types.h>

#include "backend/algs.h"
#include "backend/discover.h"
#include "backend/probe.h"
#include "backend/router.h"
#include "backend/table.h"

#define HWPROV_REPORT_MAX 4096

/* What the provider does with a request (configuration key "mode"). */
enum hwprov_run_mode {
	HWPROV_RUN_AUTO, /* the path table decides */
	HWPROV_RUN_SOFTWARE, /* always OpenSSL's default provider */
	HWPROV_RUN_PIO, /* always the bundled engine's PIO driver */
	HWPROV_RUN_DMA, /* always the bundled engine's DMA driver */
};

#define HWPROV_RETRY_MS_DEFAULT 1000
#define HWPROV_RETRY_MS_MAX	3600000

struct hwprov_config {
	char table[PATH_MAX]; /* "" for the built-in table */
	enum hwoff_objective objective;
	enum hwprov_run_mode mode;
	bool fallback; /* redo a failed kernel request in software */
	unsigned int retry_ms; /* a failed path's first back-off (table.h: hwoff_path_failed()) */
	bool stats; /* print the statistics to stderr when the provider is unloaded */
	/* where the statistics are kept up to date for hwoffload-info --stats; "" for nowhere */
	char stats_dir[PATH_MAX];
	bool enabled[HWOFF_ALG_COUNT]; /* by row of hwoff_algs[] */
};

/* The longest name of a statistics file in stats_dir: "hwoffload.PID.INSTANCE", and ".new". */
#define HWPROV_STATS_FILE_MAX 64

/* Reason codes of the errors the provider raises; provider.c has their texts. */
enum hwprov_reason {
	HWPROV_R_CONFIG = 1, /* a configuration key has a bad value */
	HWPROV_R_TABLE, /* the path table file does not load */
	HWPROV_R_INIT, /* the provider could not set itself up */
	HWPROV_R_NO_PATH, /* mode pio or dma, and the engine has no such driver here */
	HWPROV_R_KERNEL, /* a kernel request failed and fallback is off */
	HWPROV_R_SOFTWARE, /* OpenSSL's default provider failed */
	HWPROV_R_KEY_LENGTH,
	HWPROV_R_IV_LENGTH,
	HWPROV_R_BAD_ARGUMENT, /* NULL, too small an output buffer, a size past a limit */
	HWPROV_R_NOT_BLOCK_MULTIPLE,
	HWPROV_R_BAD_DECRYPT,
	HWPROV_R_NOT_INITIALIZED,
	HWPROV_R_PARAMETER,
	HWPROV_R_OUT_OF_MEMORY,
};

/*
 * The default provider's implementation of a row, called through its dispatch table (public
 * provider API: OSSL_PROVIDER_query_operation()), not through a second EVP layer: at 16 bytes
 * that layer costs as much as the AES itself.
 */
struct hwprov_software {
	void *provctx;
	union {
		struct {
			OSSL_FUNC_cipher_newctx_fn *newctx;
			OSSL_FUNC_cipher_freectx_fn *freectx;
			OSSL_FUNC_cipher_dupctx_fn *dupctx;
			OSSL_FUNC_cipher_encrypt_init_fn *encrypt_init;
			OSSL_FUNC_cipher_decrypt_init_fn *decrypt_init;
			OSSL_FUNC_cipher_cipher_fn *cipher;
			OSSL_FUNC_cipher_update_fn *update;
			OSSL_FUNC_cipher_final_fn *final;
			OSSL_FUNC_cipher_get_ctx_params_fn *get_ctx_params;
			OSSL_FUNC_cipher_set_ctx_params_fn *set_ctx_params;
			/* GCM answers with the default provider's lists (cipher_gcm.c) */
			OSSL_FUNC_cipher_gettable_ctx_params_fn *gettable_ctx_params;
			OSSL_FUNC_cipher_settable_ctx_params_fn *settable_ctx_params;
		} cipher;
		struct {
			OSSL_FUNC_digest_newctx_fn *newctx;
			OSSL_FUNC_digest_freectx_fn *freectx;
			OSSL_FUNC_digest_dupctx_fn *dupctx;
			OSSL_FUNC_digest_init_fn *init;
			OSSL_FUNC_digest_update_fn *update;
			OSSL_FUNC_digest_final_fn *final;
			/*
			 * HMAC rows: the default provider's HMAC, whose newctx, freectx, dupctx,
			 * update and final take the places above (their types are the same), and:
			 */
			OSSL_FUNC_mac_init_fn *mac_init;
			OSSL_FUNC_mac_get_ctx_params_fn *get_ctx_params;
			OSSL_FUNC_mac_set_ctx_params_fn *set_ctx_params;
			OSSL_FUNC_mac_gettable_ctx_params_fn *gettable_ctx_params;
			OSSL_FUNC_mac_settable_ctx_params_fn *settable_ctx_params;
		} digest;
	};
};

/*
 * A row's dispatch: its newctx and get_params, then the functions its kind shares
 * (hwprov_cipher_functions, hwprov_digest_functions), the terminator last. A shared table, its
 * own terminator included, has at most HWPROV_SHARED_FUNCTIONS_MAX entries: the file defining it
 * checks so at compile time with HWPROV_SHARED_FUNCTIONS_FIT().
 */
#define HWPROV_SHARED_FUNCTIONS_MAX 22
#define HWPROV_ROW_DISPATCH_MAX	    (2 + HWPROV_SHARED_FUNCTIONS_MAX)
#define HWPROV_SHARED_FUNCTIONS_FIT(table)                                                \
	_Static_assert(sizeof(table) / sizeof((table)[0]) <= HWPROV_SHARED_FUNCTIONS_MAX, \
		       #table "[] outgrows a row's dispatch: raise HWPROV_SHARED_FUNCTIONS_MAX")

struct hwprov {
	const OSSL_CORE_HANDLE *handle;
	OSSL_LIB_CTX *libctx; /* a child of the application's: where software is fetched */
	OSSL_PROVIDER *default_provider; /* loaded into libctx by us, or NULL */
	struct hwprov_config config;
	struct hwoff_probe probe;
	struct hwoff_discovery *discovery;
	struct hwoff_router router; /* over the table of config.mode */
	char table_source[PATH_MAX + 32]; /* the file, or what the built-in table was made from */
	char warnings[HWPROV_REPORT_MAX]; /* about the table, one per line; "" when none */
	/* Why mode pio/dma cannot serve a row here, by row; "" when it can. */
	char no_path[HWOFF_ALG_COUNT][HWOFF_PROBE_REASON_MAX + 256];
	/* The default provider's implementations, found at load (software.c). */
	bool software_found[HWOFF_ALG_COUNT];
	struct hwprov_software software[HWOFF_ALG_COUNT];
	OSSL_PROVIDER *software_provider; /* whose dispatch tables those are */
	/*
	 * A freed digest context of each row, kept for the next: EVP_Digest() makes and frees
	 * one per message, and at 16 bytes two allocations more than OpenSSL's own cost a tenth.
	 */
	_Atomic(void *) spare_digest[HWOFF_ALG_COUNT];
	const OSSL_ALGORITHM *software_algorithms[3]; /* queried: ciphers, digests, MACs */
	unsigned int instance; /* this load of hwoffload among the process's: in the file's name */
	atomic_uint_least64_t stats_written_ns; /* when the statistics file was last written */
	char stats_file[PATH_MAX + HWPROV_STATS_FILE_MAX + 128]; /* its name, or why none */

	OSSL_FUNC_core_new_error_fn *core_new_error;
	OSSL_FUNC_core_set_error_debug_fn *core_set_error_debug;
	OSSL_FUNC_core_vset_error_fn *core_vset_error;

	OSSL_ALGORITHM ciphers[HWOFF_ALG_COUNT + 1];
	OSSL_ALGORITHM digests[HWOFF_ALG_COUNT + 1];
	OSSL_ALGORITHM macs[2]; /* HMAC, when some HMAC row is enabled */
	OSSL_DISPATCH dispatch[HWOFF_ALG_COUNT][HWPROV_ROW_DISPATCH_MAX];
};

/*
 * A context's own count of the requests it served, added to the path's shared counters in
 * batches: at small sizes two atomic additions per request are a tenth of the request's cost
 * (under TCG, where the tests and benchmarks run). The shared counters lag by at most
 * HWPROV_TALLY_BATCH requests per live context; freeing a context adds what it holds.
 */
#define HWPROV_TALLY_BATCH 64
struct hwprov_tally {
	struct hwoff_path *path;
	uint64_t requests;
	uint64_t bytes;
};
/* Adds t to its path's counters, and brings the statistics file up to date once a second. */
void hwprov_tally_flush(struct hwprov *prov, struct hwprov_tally *t);
static inline void hwprov_tally_add(struct hwprov *prov, struct hwprov_tally *t,
				    struct hwoff_path *path, size_t bytes)
{
	if (t->path != path || t->requests >= HWPROV_TALLY_BATCH) {
		hwprov_tally_flush(prov, t);
		t->path = path;
	}
	t->requests++;
	t->bytes += bytes;
}

/* Set params' entry for key to value when params has one; 0 when it cannot take the value. */
int hwprov_param_set_size(OSSL_PARAM params[], const char *key, size_t value);
int hwprov_param_set_uint(OSSL_PARAM params[], const char *key, unsigned int value);
int hwprov_param_set_int(OSSL_PARAM params[], const char *key, int value);
int hwprov_param_set_utf8(OSSL_PARAM params[], const char *key, const char *value);

/* An entry of an OSSL_DISPATCH table. */
#define HWPROV_FN(f) ((void (*)(void))(f))

/* Raise an error in OpenSSL's queue: "hwoffload: REASON-TEXT: detail". */
#define HWPROV_RAISE(prov, reason, ...) \
	hwprov_raise(prov, reason, __FILE__, __LINE__, __func__, __VA_ARGS__)
void hwprov_raise(const struct hwprov *prov, enum hwprov_reason reason, const char *file, int line,
		  const char *func, const char *fmt, ...) __attribute__((format(printf, 6, 7)));

/*
 * An input length no buffer has: a negative int (EVP_CipherUpdate()'s inl) that OpenSSL passed
 * on as a size_t. 1 when len is not one, else 0 with an error that names it. OpenSSL's own AES-CTR
 * and GCM read past the buffer with it, its CBC says "output buffer too small".
 */
static inline int hwprov_check_length(const struct hwprov *prov, const char *name, size_t len)
{
	if (len <= PTRDIFF_MAX)
		return 1;
	HWPROV_RAISE(prov, HWPROV_R_BAD_ARGUMENT, "%s: an input length of %lld bytes", name,
		     (long long)len);
	return 0;
}

/*
 * The software tier (software.c): a child library context with the default provider in it;
 * 1, or 0 with the error raised. Tear-down undoes it.
 */
int hwprov_software_set_up(struct hwprov *prov, const OSSL_DISPATCH *in);
void hwprov_software_tear_down(struct hwprov *prov);

/* The default provider's implementation of a row; NULL with an error raised. */
const struct hwprov_software *hwprov_software_of(struct hwprov *prov, const struct hwoff_alg *alg);

/*
 * Probe AF_ALG, discover the kernel's drivers, make the path table of the configured mode and
 * the router over it (routes.c). false with the error raised.
 */
bool hwprov_routes_set_up(struct hwprov *prov);

/* A request the router refused: the error raised, and NULL. */
struct hwoff_path *hwprov_route_refused(struct hwprov *prov, const struct hwoff_path *refused);

/*
 * Where a request of size bytes goes: the router's answer (backend/router.h), cache may be NULL.
 * NULL, with the error raised, when the request must fail.
 */
static inline struct hwoff_path *hwprov_route(struct hwprov *prov, const struct hwoff_alg *alg,
					      enum hwoff_direction direction, size_t size,
					      struct hwoff_route_cache *cache)
{
	struct hwoff_path *refused = NULL;
	struct hwoff_path *path = hwoff_route(&prov->router, alg, direction, size, cache, &refused);

	return path ? path : hwprov_route_refused(prov, refused);
}

/*
 * A kernel path failed (setup or request, with the transport's message): the router's
 * hwoff_route_failed(), and the error raised when software does not redo the request.
 */
bool hwprov_kernel_failed(struct hwprov *prov, struct hwoff_path *path,
			  enum hwoff_fallback_reason why, const char *message);

/* mode pio or dma without the driver: raises the error and returns false. */
bool hwprov_can_serve(struct hwprov *prov, const struct hwoff_alg *alg);

/* Read the configuration: environment first, then the provider's section. config.c. */
int hwprov_config_read(struct hwprov *prov, const OSSL_DISPATCH *in);
const char *hwprov_run_mode_name(enum hwprov_run_mode mode);

/* The operations: functions shared by every row of their kind, and per row. */
extern const OSSL_DISPATCH hwprov_cipher_functions[];
extern const OSSL_DISPATCH hwprov_gcm_functions[];
extern const OSSL_DISPATCH hwprov_digest_functions[];
void *hwprov_cipher_newctx(struct hwprov *prov, const struct hwoff_alg *alg);
void *hwprov_gcm_newctx(struct hwprov *prov, const struct hwoff_alg *alg);
void *hwprov_digest_newctx(struct hwprov *prov, const struct hwoff_alg *alg);
void hwprov_digest_free_spares(struct hwprov *prov);
/* The spare contexts' counts into the paths' counters, before the statistics are read. */
void hwprov_digest_flush_spares(struct hwprov *prov);
/*
 * The messages of an HMAC row (digest.c, for mac.c): routed, buffered and streamed as a
 * digest's, on the row's kernel drivers keyed with the key set, or in software, the default
 * provider's HMAC context given at creation (and to a copy), which the caller keys and
 * initialises for each message before hwprov_hmac_message_init(). NULL or 0: error raised.
 */
void *hwprov_hmac_message_new(struct hwprov *prov, const struct hwoff_alg *row, void *software);
void *hwprov_hmac_message_dup(void *message, void *software);
void hwprov_hmac_message_free(void *message);
int hwprov_hmac_message_set_key(void *message, const unsigned char *key, size_t key_len);
int hwprov_hmac_message_init(void *message);
int hwprov_hmac_message_update(void *message, const unsigned char *in, size_t len);
int hwprov_hmac_message_final(void *message, unsigned char *out, size_t *outl, size_t outsize);
extern const OSSL_DISPATCH hwprov_hmac_functions[];
int hwprov_cipher_get_params(const struct hwoff_alg *alg, OSSL_PARAM params[]);
/* The keys hwprov_cipher_get_params() answers, for every cipher row (GCM's too). */
const OSSL_PARAM *hwprov_cipher_gettable_params(void *provctx);
int hwprov_digest_get_params(const struct hwoff_alg *alg, OSSL_PARAM params[]);

#endif
