/* SPDX-License-Identifier: Apache-2.0 */
/*
 * router.h - the one router: which path serves each request, and what happens when it fails.
 *
 * The path table (table.h) holds the calibrated ranges; the router applies them to requests: the
 * configured objective, the fallback policy, the back-off of a failed path, the sizes noted once
 * from the table, and the counting of every reason a request does not take the table's path
 * (stats.h, enum hwoff_fallback_reason). The provider's operations ask only the router. The
 * kernel driver's own auto mode (PIO or DMA inside hwoffload.ko) is the driver's, documented in
 * kernel/hwoffload.h.
 *
 * After hwoff_router_init() the router changes only through the table's lock-free path state and
 * counters, so any number of threads route at once.
 */
#ifndef HWOFF_BACKEND_ROUTER_H
#define HWOFF_BACKEND_ROUTER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/algs.h"
#include "backend/stats.h"
#include "backend/table.h"

struct hwoff_router {
	struct hwoff_table *table; /* owned */
	enum hwoff_objective objective;
	bool fallback; /* a request the table's path cannot serve is served by software */
	uint64_t retry_ns; /* a failed path's first back-off (hwoff_path_failed()) */
	/*
	 * Per row, noted from the table at init: requests smaller than software_below[row][0]
	 * (encrypt, digest) or [row][1] (decrypt) go to software, and a digest's path is the same
	 * for every message of settled_from[row] bytes or more. Noted once, as at 16 bytes asking
	 * the table per request costs a tenth of the request under TCG.
	 */
	size_t software_below[HWOFF_ALG_COUNT][2];
	size_t settled_from[HWOFF_ALG_COUNT];
};

/* A caller's last answer, for the sizes it holds: [from, to) while path stays usable. */
struct hwoff_route_cache {
	struct hwoff_path *path; /* the table's path for [from, to), usable or not */
	size_t from, to;
};

/*
 * The router takes t (freed by hwoff_router_fini()) and notes its sizes. retry_ms is the first
 * back-off of a failed path.
 */
void hwoff_router_init(struct hwoff_router *r, struct hwoff_table *t,
		       enum hwoff_objective objective, bool fallback, unsigned int retry_ms);
void hwoff_router_fini(struct hwoff_router *r);

/*
 * A kernel path failed a request (why: its setup or the request itself; message: the
 * transport's). Counts the error, takes the path out of service for its back-off (for the rest
 * of the process when its driver is stuck: backend/guard.h), and returns
 * whether software serves the request instead (fallback on, and can_redo: false when software
 * cannot redo it, as for a digest the kernel had part of), which is counted as a fallback.
 */
bool hwoff_route_failed(struct hwoff_router *r, struct hwoff_path *path,
			enum hwoff_fallback_reason why, bool can_redo, const char *message);

/*
 * The table's path for a request cannot carry it (HWOFF_FALLBACK_UNSUPPORTED says which
 * requests): counted on that path, and software serves it, whatever the fallback setting.
 */
struct hwoff_path *hwoff_route_unsupported(struct hwoff_router *r, struct hwoff_path *path);

/* OpenSSL's default provider, the path every fallback takes. */
static inline struct hwoff_path *hwoff_router_software(const struct hwoff_router *r)
{
	return &r->table->paths[0];
}

/* Requests of alg smaller than this go to software (SIZE_MAX: every size; 0: none). */
static inline size_t hwoff_router_software_below(const struct hwoff_router *r,
						 const struct hwoff_alg *alg,
						 enum hwoff_direction direction)
{
	return r->software_below[hwoff_alg_index(alg)][direction == HWOFF_DECRYPT];
}

/* A digest's path is the same for every message of this many bytes or more. */
static inline size_t hwoff_router_settled_from(const struct hwoff_router *r,
					       const struct hwoff_alg *alg)
{
	return r->settled_from[hwoff_alg_index(alg)];
}

/* hwoff_route() past the sizes noted at init and the caller's cache: the table decides. */
struct hwoff_path *hwoff_route_by_table(struct hwoff_router *r, const struct hwoff_alg *alg,
					enum hwoff_direction direction, size_t size,
					struct hwoff_route_cache *cache,
					struct hwoff_path **refused);

/*
 * The path that serves a request of size bytes. cache, which may be NULL, keeps the answer while
 * it holds. When the table's path is out of service it counts a fallback and returns software;
 * or, with fallback off, counts a refusal and returns NULL with that path in *refused (the
 * request must fail; see hwoff_route_refusal()). Inline up to the table: at 16 bytes a call is a
 * tenth of a request.
 */
static inline struct hwoff_path *hwoff_route(struct hwoff_router *r, const struct hwoff_alg *alg,
					     enum hwoff_direction direction, size_t size,
					     struct hwoff_route_cache *cache,
					     struct hwoff_path **refused)
{
	if (size < hwoff_router_software_below(r, alg, direction))
		return hwoff_router_software(r);
	if (cache && size >= cache->from && size < cache->to && hwoff_path_usable(cache->path))
		return cache->path;
	return hwoff_route_by_table(r, alg, direction, size, cache, refused);
}

/* Why hwoff_route() refused a request: the path, its reason, and its next try. */
void hwoff_route_refusal(const struct hwoff_path *refused, char *why, size_t why_len);

#endif
