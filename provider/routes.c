// SPDX-License-Identifier: Apache-2.0
/*
 * routes.c - the provider's side of routing: the path table of the configured mode, the router
 * over it (backend/router.h), and the errors its answers raise.
 */
#include <stdio.h>
#include <stdlib.h>

#include "backend/fingerprint.h"
#include "backend/table_file.h"
#include "backend/text.h"
#include "provider/provider.h"

struct hwoff_path *hwprov_route_refused(struct hwprov *prov, const struct hwoff_path *refused)
{
	char why[sizeof(refused->name) + sizeof(refused->unusable_reason) + 128];

	hwoff_route_refusal(refused, why, sizeof(why));
	HWPROV_RAISE(prov, HWPROV_R_KERNEL, "%s", why);
	return NULL;
}

bool hwprov_kernel_failed(struct hwprov *prov, struct hwoff_path *path,
			  enum hwoff_fallback_reason why, const char *message)
{
	if (hwoff_route_failed(&prov->router, path, why, true, message))
		return true;
	HWPROV_RAISE(prov, HWPROV_R_KERNEL, "%s (fallback is off)", message);
	return false;
}

bool hwprov_can_serve(struct hwprov *prov, const struct hwoff_alg *alg)
{
	const char *why = prov->no_path[hwoff_alg_index(alg)];

	if (!why[0])
		return true;
	HWPROV_RAISE(prov, HWPROV_R_NO_PATH, "%s", why);
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
static bool force_engine_path(struct hwprov *prov, struct hwoff_table *t,
			      enum hwoff_impl_class class)
{
	const char *mode = hwprov_run_mode_name(prov->config.mode);
	char err[256];

	for (size_t a = 0; a < HWOFF_ALG_COUNT; a++) {
		const struct hwoff_alg *alg = &hwoff_algs[a];
		const struct hwoff_impl *impl;
		struct hwoff_range_spec all;

		if (!prov->config.enabled[a])
			continue;
		/* the engine's own device first: it may reach the engine where AF_ALG cannot */
		impl = hwoff_discovery_find_class(prov->discovery, alg->kernel_name, class);
		if (prov->probe.error && (!impl || !impl->device)) {
			snprintf(
				prov->no_path[a], sizeof(prov->no_path[a]),
				"mode=%s: AF_ALG is unavailable: %s%s", mode, prov->probe.reason,
				hwoff_discovery_has_device(prov->discovery)
					? " (the engine's own device does not serve this algorithm)"
					: "");
			continue;
		}
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
					HWPROV_RAISE(prov, HWPROV_R_INIT, "%s", err);
					return false;
				}
	}
	return true;
}

/* The calibrated table of the configuration's file, checked against this machine. */
static struct hwoff_table *load_table_file(struct hwprov *prov)
{
	struct hwoff_fingerprint machine;
	struct hwoff_table *t;
	char err[512];

	t = hwoff_table_load(prov->config.table, err, sizeof(err));
	if (!t) {
		HWPROV_RAISE(prov, HWPROV_R_TABLE, "%s", err);
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
static struct hwoff_table *table_of_mode(struct hwprov *prov)
{
	struct hwoff_table *t = NULL;

	switch (prov->config.mode) {
	case HWPROV_RUN_AUTO:
		if (prov->config.table[0]) {
			t = load_table_file(prov);
			if (!t)
				return NULL;
		}
		if (prov->probe.error && t && hwoff_discovery_has_device(prov->discovery)) {
			/*
			 * The table's paths of the engine's own device serve (a calibration where
			 * AF_ALG is closed measures them alone); its AF_ALG paths' sizes are
			 * software's, the route here and not a fallback.
			 */
			hwoff_table_afalg_paths_to_software(t, prov->probe.reason, prov->warnings,
							    sizeof(prov->warnings));
			break;
		}
		if (prov->probe.error) {
			/*
			 * Without the engine's own device nothing but software can serve here: that
			 * is the route, not a fallback.
			 */
			if (t)
				hwoff_appendf(prov->warnings, sizeof(prov->warnings),
					      "table %s is not used: %s\n", prov->config.table,
					      prov->probe.reason);
			hwoff_table_free(t);
			if (hwoff_discovery_has_device(prov->discovery)) {
				hwoff_discovery_keep_device(prov->discovery);
				t = hwoff_table_default(prov->discovery);
				snprintf(prov->table_source, sizeof(prov->table_source),
					 "built-in, the engine's own device only, as AF_ALG is "
					 "unusable here (software below %d B, the device's driver "
					 "from there)",
					 HWOFF_DEFAULT_CIPHER_CUTOFF);
				break;
			}
			t = hwoff_table_new();
			snprintf(prov->table_source, sizeof(prov->table_source),
				 "none: software only, as AF_ALG is unusable here");
			break;
		}
		if (t)
			break;
		t = hwoff_table_default(prov->discovery);
		snprintf(prov->table_source, sizeof(prov->table_source),
			 "built-in (software below %d B for AES, %d B for digests, the bundled "
			 "engine's driver from there where one is found; another vendor's engine "
			 "only with a calibrated table, which proves its sizes)",
			 HWOFF_DEFAULT_CIPHER_CUTOFF, HWOFF_DEFAULT_DIGEST_CUTOFF);
		break;
	case HWPROV_RUN_SOFTWARE:
		t = hwoff_table_new();
		snprintf(prov->table_source, sizeof(prov->table_source), "none (mode=software)");
		break;
	case HWPROV_RUN_PIO:
	case HWPROV_RUN_DMA:
		t = hwoff_table_new();
		snprintf(prov->table_source, sizeof(prov->table_source), "none (mode=%s)",
			 hwprov_run_mode_name(prov->config.mode));
		if (t && !force_engine_path(prov, t,
					    prov->config.mode == HWPROV_RUN_PIO
						    ? HWOFF_IMPL_ENGINE_PIO
						    : HWOFF_IMPL_ENGINE_DMA)) {
			hwoff_table_free(t);
			return NULL;
		}
		break;
	}
	if (!t)
		HWPROV_RAISE(prov, HWPROV_R_OUT_OF_MEMORY, "for the path table");
	return t;
}

/* What this machine offers, the table of the configured mode, and the router over it. */
bool hwprov_routes_set_up(struct hwprov *prov)
{
	struct hwoff_table *t;
	char err[512];

	hwoff_probe_afalg(&prov->probe);
	prov->discovery = calloc(1, sizeof(*prov->discovery));
	if (!prov->discovery) {
		HWPROV_RAISE(prov, HWPROV_R_OUT_OF_MEMORY, "for the discovery");
		return false;
	}
	if (hwoff_discover(prov->discovery, err, sizeof(err)))
		hwoff_appendf(prov->warnings, sizeof(prov->warnings), "discovery: %s\n", err);
	t = table_of_mode(prov);
	if (!t)
		return false;
	hwoff_router_init(&prov->router, t, prov->config.objective, prov->config.fallback,
			  prov->config.retry_ms);
	return true;
}
