/* SPDX-License-Identifier: Apache-2.0 */
/*
 * provider_test.h - what provider_test.c shares with provider_gcm.c and provider_hmac.c: one
 * provider_test binary, built for the host and for the guest (PROVIDER_TEST_IN_GUEST).
 */
#ifndef HWOFF_TEST_PROVIDER_TEST_H
#define HWOFF_TEST_PROVIDER_TEST_H

#include <check.h>
#include <stdbool.h>

#include <openssl/provider.h>

#include "backend/algs.h"
#include "backend/discover.h"

#ifndef PROVIDER_TEST_IN_GUEST
#error "build with -DPROVIDER_TEST_IN_GUEST=0 (host) or 1 (guest)"
#endif

/* The provider's modes tried: the engine's only in the guest. */
#define MODES (PROVIDER_TEST_IN_GUEST ? 4 : 2)
extern const char *const modes[MODES];

/* A provider loaded into a library context of its own, the default provider beside it. */
struct env {
	OSSL_LIB_CTX *libctx;
	OSSL_PROVIDER *hw, *ref;
};

/* "KEY=VALUE" settings, NULL-terminated; the others are unset. Whether hwoffload loaded. */
int load_with(struct env *e, const char *const *settings);
void load(struct env *e, const char *mode, const char *fallback);
void unload(struct env *e);
const char *provider_param(const struct env *e, const char *key);
/* A counter ("requests", "request-failed" ...) of one path in the provider's statistics. */
long long path_counter(const struct env *e, const char *path, const char *counter);
#if PROVIDER_TEST_IN_GUEST
/* The engine's driver of this class for kernel_name (the test fails without one). */
const char *engine_driver(const char *kernel_name, enum hwoff_impl_class class);
#endif

/*
 * Modes pio and dma serve the rows the engine's module registers (test_mode_serves()); for any
 * other row an operation fails with the reason, naming the mode and the row's kernel name.
 * Checks that, and returns true, for such a row in such a mode: the caller has nothing more to
 * check. False otherwise.
 */
bool engine_refuses(const struct env *e, const struct hwoff_alg *alg, const char *mode);

/* The i-th row for which pick() holds (ck_abort past the last); how many there are. */
const struct hwoff_alg *row_where(bool (*pick)(const struct hwoff_alg *), size_t i);
size_t rows_where(bool (*pick)(const struct hwoff_alg *));

/* provider_gcm.c's and provider_hmac.c's tests, added to provider_test's case. */
void provider_gcm_tests(TCase *tc);
void provider_hmac_tests(TCase *tc);
/* Whether hwoffload's HMAC of row's digest gives the default provider's for len bytes of in. */
bool hmac_matches_default(const struct env *e, const struct hwoff_alg *row, const unsigned char *in,
			  size_t len);

#endif
