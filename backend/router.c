/*
 * router.c - the one router (router.h).
 */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>

#include "backend/router.h"

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

int hwoff_router_init(struct hwoff_router *r, struct hwoff_table *t, enum hwoff_objective objective,
		      bool fallback, unsigned int retry_ms)
{
	*r = (struct hwoff_router){ .table = t,
				    .objective = objective,
				    .fallback = fallback,
				    .retry_ns = retry_ms * 1000000ull };
	r->software_below = calloc(hwoff_alg_count, sizeof(*r->software_below));
	r->settled_from = calloc(hwoff_alg_count, sizeof(*r->settled_from));
	if (!t || !r->software_below || !r->settled_from) {
		hwoff_router_fini(r);
		return -ENOMEM;
	}
	for (size_t row = 0; row < hwoff_alg_count; row++) {
		const struct hwoff_alg *alg = &hwoff_algs[row];

		if (hwoff_alg_is_digest(alg)) {
			r->software_below[row][0] = software_below(r, alg, HWOFF_DIGEST);
			r->settled_from[row] = settled_from(r, alg);
			continue;
		}
		r->software_below[row][0] = software_below(r, alg, HWOFF_ENCRYPT);
		r->software_below[row][1] = software_below(r, alg, HWOFF_DECRYPT);
	}
	return 0;
}

void hwoff_router_fini(struct hwoff_router *r)
{
	hwoff_table_free(r->table);
	free(r->software_below);
	free(r->settled_from);
	*r = (struct hwoff_router){ 0 };
}

struct hwoff_path *hwoff_route(struct hwoff_router *r, const struct hwoff_alg *alg,
			       enum hwoff_direction direction, size_t size,
			       struct hwoff_route_cache *cache, char *why, size_t why_len)
{
	struct hwoff_choice c;
	long long retry_in;

	if (size < hwoff_router_software_below(r, alg, direction))
		return hwoff_router_software(r);
	if (cache && size >= cache->from && size < cache->to && hwoff_path_usable(cache->path))
		return cache->path;
	c = hwoff_decide(r->table, alg, direction, size, r->objective);
	if (cache)
		*cache = (struct hwoff_route_cache){ c.unusable ? c.unusable : c.path, c.from,
						     c.to };
	if (!c.unusable)
		return c.path;
	if (r->fallback) {
		hwoff_count_fallback(&c.unusable->counters, HWOFF_FALLBACK_PATH_UNUSABLE);
		return c.path;
	}
	retry_in = hwoff_path_retry_in_ms(c.unusable);
	if (retry_in >= 0)
		snprintf(why, why_len,
			 "%s is out of service and fallback is off: %s (next try in %lld ms)",
			 c.unusable->name, hwoff_path_unusable_reason(c.unusable), retry_in);
	else
		snprintf(why, why_len, "%s is unusable and fallback is off: %s", c.unusable->name,
			 hwoff_path_unusable_reason(c.unusable));
	return NULL;
}

bool hwoff_route_failed(struct hwoff_router *r, struct hwoff_path *path,
			enum hwoff_fallback_reason why, bool can_redo, const char *message)
{
	hwoff_count_error(&path->counters);
	hwoff_path_failed(path, message, r->retry_ns);
	if (!r->fallback || !can_redo)
		return false;
	hwoff_count_fallback(&path->counters, why);
	return true;
}
