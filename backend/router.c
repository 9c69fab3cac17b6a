// SPDX-License-Identifier: Apache-2.0
/*
 * router.c - the one router (router.h).
 */
#include <stdio.h>
#include <stdlib.h>

#include "backend/router.h"
#include "backend/transport.h"

/* The smallest request the table sends elsewhere than software: SIZE_MAX when none. */
static size_t software_below(struct hwoff_router *r, const struct hwoff_alg *alg,
			     enum hwoff_direction direction)
{
	size_t size = 0;

	while (size != SIZE_MAX) {
		struct hwoff_choice choice =
			hwoff_decide(r->table, alg, direction, size, r->objective);

		if (!choice.path->software || choice.unusable)
			break;
		size = choice.to;
	}
	return size;
}

/* The start of the entry's last range: no larger message takes another path. */
static size_t settled_from(struct hwoff_router *r, const struct hwoff_alg *alg)
{
	size_t from = 0, next;

	while ((next = hwoff_table_next_start(r->table, alg, HWOFF_DIGEST, from, r->objective)) !=
	       SIZE_MAX)
		from = next;
	return from;
}

void hwoff_router_init(struct hwoff_router *r, struct hwoff_table *t,
		       enum hwoff_objective objective, bool fallback, unsigned int retry_ms)
{
	*r = (struct hwoff_router){ .table = t,
				    .objective = objective,
				    .fallback = fallback,
				    .retry_ns = retry_ms * 1000000ull };
	for (size_t row = 0; row < HWOFF_ALG_COUNT; row++) {
		const struct hwoff_alg *alg = &hwoff_algs[row];

		if (hwoff_alg_is_digest(alg)) {
			r->software_below[row][0] = software_below(r, alg, HWOFF_DIGEST);
			r->settled_from[row] = settled_from(r, alg);
			continue;
		}
		r->software_below[row][0] = software_below(r, alg, HWOFF_ENCRYPT);
		r->software_below[row][1] = software_below(r, alg, HWOFF_DECRYPT);
	}
}

void hwoff_router_fini(struct hwoff_router *r)
{
	hwoff_table_free(r->table);
	r->table = NULL;
}

struct hwoff_path *hwoff_route_by_table(struct hwoff_router *r, const struct hwoff_alg *alg,
					enum hwoff_direction direction, size_t size,
					struct hwoff_route_cache *cache,
					struct hwoff_path **refused)
{
	struct hwoff_choice c = hwoff_decide(r->table, alg, direction, size, r->objective);

	if (cache)
		*cache = (struct hwoff_route_cache){ c.unusable ? c.unusable : c.path, c.from,
						     c.to };
	if (!c.unusable)
		return c.path;
	if (r->fallback) {
		hwoff_count_fallback(&c.unusable->counters, HWOFF_FALLBACK_PATH_UNUSABLE);
		return c.path;
	}
	hwoff_count_refusal(&c.unusable->counters);
	*refused = c.unusable;
	return NULL;
}

void hwoff_route_refusal(const struct hwoff_path *refused, char *why, size_t why_len)
{
	long long retry_in = hwoff_path_retry_in_ms(refused);

	if (retry_in >= 0)
		snprintf(why, why_len,
			 "%s is out of service and fallback is off: %s (next try in %lld ms)",
			 refused->name, hwoff_path_unusable_reason(refused), retry_in);
	else
		snprintf(why, why_len, "%s is unusable and fallback is off: %s", refused->name,
			 hwoff_path_unusable_reason(refused));
}

bool hwoff_route_failed(struct hwoff_router *r, struct hwoff_path *path,
			enum hwoff_fallback_reason why, bool can_redo, const char *message)
{
	const char *stuck = path->transport->stuck(path->name);

	/* an engine that stopped answering is out of service for the rest of the process */
	if (stuck)
		hwoff_path_mark_unusable(path, stuck);
	hwoff_count_error(&path->counters);
	hwoff_path_failed(path, message, r->retry_ns);
	if (!r->fallback || !can_redo)
		return false;
	hwoff_count_fallback(&path->counters, why);
	return true;
}

struct hwoff_path *hwoff_route_unsupported(struct hwoff_router *r, struct hwoff_path *path)
{
	hwoff_count_fallback(&path->counters, HWOFF_FALLBACK_UNSUPPORTED);
	return hwoff_router_software(r);
}
