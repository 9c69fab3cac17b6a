// SPDX-License-Identifier: Apache-2.0
/*
 * table.c - the path table: the decision, building the table, and its paths' run-time state
 * (out of service, back-off, counters) with the check of its drivers against discovery.
 */
#include <ctype.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "backend/table.h"
#include "backend/text.h"
#include "backend/transport.h"

/*
 * hwoff_path.state. "Being marked" lasts while one thread writes the reason and the back-off; it
 * decides as unusable. A failed path is tried again by one request once retry_at has passed
 * (trying), and serves again when that request succeeds.
 */
enum path_state {
	PATH_USABLE,
	PATH_BEING_MARKED,
	PATH_FAILED,
	PATH_TRYING,
	PATH_UNUSABLE, /* for good */
};

const char *const hwoff_direction_names[HWOFF_DIRECTION_COUNT] = {
	[HWOFF_ENCRYPT] = "encrypt",
	[HWOFF_DECRYPT] = "decrypt",
	[HWOFF_DIGEST] = "digest",
};

const char *const hwoff_objective_names[HWOFF_OBJECTIVE_COUNT] = {
	[HWOFF_THROUGHPUT] = "throughput",
	[HWOFF_CPU] = "cpu",
};

const char *hwoff_direction_name(enum hwoff_direction direction)
{
	return direction < HWOFF_DIRECTION_COUNT ? hwoff_direction_names[direction] : "?";
}

const char *hwoff_objective_name(enum hwoff_objective objective)
{
	return objective < HWOFF_OBJECTIVE_COUNT ? hwoff_objective_names[objective] : "?";
}

bool hwoff_direction_fits(const struct hwoff_alg *alg, enum hwoff_direction direction)
{
	if (hwoff_alg_is_digest(alg))
		return direction == HWOFF_DIGEST;
	return direction == HWOFF_ENCRYPT || direction == HWOFF_DECRYPT;
}

uint64_t hwoff_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * 1000000000u + (uint64_t)ts.tv_nsec;
}

/*
 * Whether this request tries a failed path again: its back-off has passed and no other request
 * took this turn. A try that never reports (its context freed first) is taken over by a request
 * one back-off later.
 */
static bool claim_retry(struct hwoff_path *path)
{
	int state = atomic_load_explicit(&path->state, memory_order_acquire);
	uint64_t at, now;

	if (state != PATH_FAILED && state != PATH_TRYING)
		return false;
	at = atomic_load_explicit(&path->retry_at, memory_order_relaxed);
	now = hwoff_now_ns();
	if (now < at || !atomic_compare_exchange_strong(&path->retry_at, &at,
							now + atomic_load(&path->backoff_ns)))
		return false;
	return state == PATH_TRYING ||
	       atomic_compare_exchange_strong(&path->state, &state, PATH_TRYING);
}

struct hwoff_choice hwoff_decide(struct hwoff_table *t, const struct hwoff_alg *alg,
				 enum hwoff_direction direction, size_t size,
				 enum hwoff_objective objective)
{
	struct hwoff_path *software = &t->paths[0];
	const struct hwoff_entry *e;
	struct hwoff_path *path;
	unsigned int i;

	size_t to;

	if (direction >= HWOFF_DIRECTION_COUNT || objective >= HWOFF_OBJECTIVE_COUNT)
		return (struct hwoff_choice){ .path = software, .to = SIZE_MAX };
	e = &t->entries[hwoff_table_entry_index(alg, direction, objective)];
	if (!e->count)
		return (struct hwoff_choice){ .path = software, .to = SIZE_MAX };
	/* The starts increase from 0, so the last range starting at or below size holds it. */
	for (i = e->count - 1; i > 0 && size < e->ranges[i].start; i--)
		;
	to = i + 1 < e->count ? e->ranges[i + 1].start : SIZE_MAX;
	path = &t->paths[e->ranges[i].path];
	if (!hwoff_path_usable(path) && !claim_retry(path))
		return (struct hwoff_choice){
			.path = software, .unusable = path, .from = e->ranges[i].start, .to = to
		};
	return (struct hwoff_choice){ .path = path, .from = e->ranges[i].start, .to = to };
}

bool hwoff_path_usable(const struct hwoff_path *path)
{
	return atomic_load_explicit(&path->state, memory_order_acquire) == PATH_USABLE;
}

size_t hwoff_table_next_start(const struct hwoff_table *t, const struct hwoff_alg *alg,
			      enum hwoff_direction direction, size_t size,
			      enum hwoff_objective objective)
{
	const struct hwoff_entry *e;

	if (direction >= HWOFF_DIRECTION_COUNT || objective >= HWOFF_OBJECTIVE_COUNT)
		return SIZE_MAX;
	e = &t->entries[hwoff_table_entry_index(alg, direction, objective)];
	for (unsigned int i = 0; i < e->count; i++)
		if (e->ranges[i].start > size)
			return e->ranges[i].start;
	return SIZE_MAX;
}

struct hwoff_table *hwoff_table_new(void)
{
	struct hwoff_table *t = calloc(1, sizeof(*t));

	if (!t)
		return NULL;
	t->entries = calloc(HWOFF_TABLE_ENTRY_COUNT, sizeof(*t->entries));
	if (!t->entries) {
		free(t);
		return NULL;
	}
	strcpy(t->paths[0].name, HWOFF_SOFTWARE);
	t->paths[0].software = true;
	atomic_init(&t->paths[0].state, PATH_USABLE);
	t->path_count = 1;
	return t;
}

void hwoff_table_free(struct hwoff_table *t)
{
	if (!t)
		return;
	free(t->entries);
	free(t);
}

bool hwoff_driver_name_valid(const char *name)
{
	size_t len = strlen(name);
	int depth = 0;

	if (!len || len >= HWOFF_NAME_MAX || !(isalnum((unsigned char)name[0]) || name[0] == '_'))
		return false;
	for (const char *p = name; *p; p++) {
		if (*p == '(')
			depth++;
		else if (*p == ')' && --depth < 0)
			return false;
		else if (*p != ')' && !isalnum((unsigned char)*p) && !strchr("-_.,", *p))
			return false;
	}
	return depth == 0;
}

static int find_path(const struct hwoff_table *t, const char *name)
{
	for (unsigned int p = 0; p < t->path_count; p++)
		if (strcmp(t->paths[p].name, name) == 0)
			return (int)p;
	return -1;
}

static unsigned int intern_path(struct hwoff_table *t, const char *name)
{
	int found = find_path(t, name);
	struct hwoff_path *path;

	if (found >= 0)
		return (unsigned int)found;
	path = &t->paths[t->path_count];
	strcpy(path->name, name);
	path->software = false;
	path->transport = hwoff_transport_of(name);
	atomic_init(&path->state, PATH_USABLE);
	return t->path_count++;
}

/* Paths in ranges[] that t does not have yet, each counted once. */
static unsigned int new_path_count(const struct hwoff_table *t,
				   const struct hwoff_range_spec *ranges, unsigned int count)
{
	unsigned int added = 0;

	for (unsigned int i = 0; i < count; i++) {
		bool seen = find_path(t, ranges[i].path) >= 0;

		for (unsigned int j = 0; j < i && !seen; j++)
			seen = strcmp(ranges[j].path, ranges[i].path) == 0;
		added += !seen;
	}
	return added;
}

int hwoff_table_set(struct hwoff_table *t, const struct hwoff_alg *alg,
		    enum hwoff_direction direction, enum hwoff_objective objective,
		    const struct hwoff_range_spec *ranges, unsigned int count, char *err,
		    size_t err_len)
{
	struct hwoff_entry *e;

	if (direction >= HWOFF_DIRECTION_COUNT || !hwoff_direction_fits(alg, direction)) {
		snprintf(err, err_len, "direction %s does not apply to %s, which takes %s",
			 hwoff_direction_name(direction), alg->name,
			 hwoff_alg_is_digest(alg) ? "digest" : "encrypt or decrypt");
		return -1;
	}
	if (objective >= HWOFF_OBJECTIVE_COUNT) {
		snprintf(err, err_len, "objective %d is none of throughput, cpu", (int)objective);
		return -1;
	}
	if (!count || count > HWOFF_RANGES_MAX) {
		snprintf(err, err_len, "%u ranges: an entry has 1 to %d", count, HWOFF_RANGES_MAX);
		return -1;
	}
	for (unsigned int i = 0; i < count; i++) {
		const struct hwoff_range_spec *r = &ranges[i];

		if (i == 0 && r->start != 0) {
			snprintf(err, err_len, "the first range starts at %zu, not 0", r->start);
			return -1;
		}
		if (i > 0 && r->start <= ranges[i - 1].start) {
			snprintf(err, err_len,
				 "range start %zu does not follow %zu: starts must increase",
				 r->start, ranges[i - 1].start);
			return -1;
		}
		if (r->start > HWOFF_SIZE_LIMIT) {
			snprintf(err, err_len, "range start %zu is past the limit of %lu bytes",
				 r->start, HWOFF_SIZE_LIMIT);
			return -1;
		}
		if (strcmp(r->path, HWOFF_SOFTWARE) != 0 && !hwoff_driver_name_valid(r->path)) {
			snprintf(err, err_len,
				 "path '%.64s' is neither '" HWOFF_SOFTWARE
				 "' nor a kernel driver name "
				 "(letters, digits, - _ . , and balanced parentheses)",
				 r->path);
			return -1;
		}
	}
	if (t->path_count + new_path_count(t, ranges, count) > HWOFF_PATHS_MAX) {
		snprintf(err, err_len, "more than %d different paths in one table",
			 HWOFF_PATHS_MAX);
		return -1;
	}

	e = &t->entries[hwoff_table_entry_index(alg, direction, objective)];
	e->count = count;
	for (unsigned int i = 0; i < count; i++) {
		e->ranges[i].start = ranges[i].start;
		e->ranges[i].path = intern_path(t, ranges[i].path);
	}
	return 0;
}

static struct hwoff_proof *find_proof(const struct hwoff_table *t, const char *driver)
{
	for (unsigned int i = 0; i < t->proof_count; i++)
		if (strcmp(t->proofs[i].driver, driver) == 0)
			return (struct hwoff_proof *)&t->proofs[i];
	return NULL;
}

int hwoff_table_set_proven(struct hwoff_table *t, const char *driver, size_t bytes, char *err,
			   size_t err_len)
{
	struct hwoff_proof *proof = find_proof(t, driver);

	if (!hwoff_driver_name_valid(driver)) {
		snprintf(err, err_len,
			 "'%.64s' is not a kernel driver name (letters, digits, - _ . , and "
			 "balanced "
			 "parentheses)",
			 driver);
		return -1;
	}
	if (!proof && t->proof_count == HWOFF_PATHS_MAX) {
		snprintf(err, err_len, "more than %d drivers with a proof", HWOFF_PATHS_MAX);
		return -1;
	}
	if (!proof) {
		proof = &t->proofs[t->proof_count++];
		snprintf(proof->driver, sizeof(proof->driver), "%s", driver);
	}
	proof->bytes = bytes;
	return 0;
}

size_t hwoff_table_proven(const struct hwoff_table *t, const char *driver)
{
	const struct hwoff_proof *proof = find_proof(t, driver);

	return proof ? proof->bytes : 0;
}

/* Software below the cut-off, driver from it, for every direction and objective of alg. */
static int set_default_entries(struct hwoff_table *t, const struct hwoff_alg *alg,
			       const char *driver)
{
	const struct hwoff_range_spec ranges[] = {
		{ .start = 0, .path = HWOFF_SOFTWARE },
		{ .start = hwoff_alg_is_digest(alg) ? HWOFF_DEFAULT_DIGEST_CUTOFF
						    : HWOFF_DEFAULT_CIPHER_CUTOFF,
		  .path = driver },
	};
	char err[256];

	for (int dir = 0; dir < HWOFF_DIRECTION_COUNT; dir++) {
		if (!hwoff_direction_fits(alg, dir))
			continue;
		for (int obj = 0; obj < HWOFF_OBJECTIVE_COUNT; obj++)
			if (hwoff_table_set(t, alg, dir, obj, ranges, 2, err, sizeof(err)))
				return -1;
	}
	return 0;
}

struct hwoff_table *hwoff_table_default(const struct hwoff_discovery *d)
{
	struct hwoff_table *t = hwoff_table_new();

	if (!t || !d)
		return t;
	for (size_t a = 0; a < HWOFF_ALG_COUNT; a++) {
		const struct hwoff_impl *engine =
			hwoff_discovery_offload_for(d, hwoff_algs[a].kernel_name);

		/*
		 * Setting fails only for a driver name outside TABLE.md's syntax; the algorithm
		 * then stays in software rather than losing the whole table.
		 */
		if (engine)
			set_default_entries(t, &hwoff_algs[a], engine->driver);
	}
	return t;
}

/* ---- run-time state ----------------------------------------------------------------------- */

/* From one of the states from[] to "being marked": whether this thread holds it, and from what. */
static bool take_for_marking(struct hwoff_path *path, const int *from, int count, int *was)
{
	*was = atomic_load_explicit(&path->state, memory_order_acquire);
	if (path->software)
		return false;
	for (int i = 0; i < count; i++)
		if (*was == from[i])
			return atomic_compare_exchange_strong_explicit(
				&path->state, was, PATH_BEING_MARKED, memory_order_acquire,
				memory_order_relaxed);
	return false;
}

bool hwoff_path_mark_unusable(struct hwoff_path *path, const char *reason)
{
	static const int from[] = { PATH_USABLE, PATH_FAILED, PATH_TRYING };
	int was;

	if (!take_for_marking(path, from, 3, &was))
		return false;
	snprintf(path->unusable_reason, sizeof(path->unusable_reason), "%s", reason);
	atomic_store_explicit(&path->state, PATH_UNUSABLE, memory_order_release);
	return true;
}

/*
 * Only a usable path or the request trying a failed one again takes it out of service: the
 * requests that were in flight when it first failed fail too, and must not stretch the back-off.
 */
bool hwoff_path_failed(struct hwoff_path *path, const char *reason, uint64_t backoff_ns)
{
	static const int from[] = { PATH_USABLE, PATH_TRYING };
	uint64_t now, backoff;
	int was;

	if (!take_for_marking(path, from, 2, &was))
		return false;
	now = hwoff_now_ns();
	backoff = atomic_load_explicit(&path->backoff_ns, memory_order_relaxed) * 2;
	if (was == PATH_USABLE) {
		snprintf(path->unusable_reason, sizeof(path->unusable_reason), "%s", reason);
		path->failed_at = now;
		path->failures_in_row = 0;
		backoff = backoff_ns;
	} else if (backoff > backoff_ns * HWOFF_BACKOFF_GROWTH_MAX) {
		backoff = backoff_ns * HWOFF_BACKOFF_GROWTH_MAX;
	}
	path->failures_in_row++;
	atomic_store_explicit(&path->backoff_ns, backoff, memory_order_relaxed);
	atomic_store_explicit(&path->retry_at, now + backoff, memory_order_relaxed);
	hwoff_count_failure(&path->counters);
	atomic_store_explicit(&path->state, PATH_FAILED, memory_order_release);
	return true;
}

void hwoff_path_served(struct hwoff_path *path)
{
	static const int from[] = { PATH_TRYING };
	int was;

	if (atomic_load_explicit(&path->state, memory_order_relaxed) != PATH_TRYING ||
	    !take_for_marking(path, from, 1, &was))
		return;
	hwoff_count_recovery(&path->counters, hwoff_now_ns() - path->failed_at);
	path->failures_in_row = 0;
	atomic_store_explicit(&path->state, PATH_USABLE, memory_order_release);
}

const char *hwoff_path_unusable_reason(const struct hwoff_path *path)
{
	switch (atomic_load_explicit(&path->state, memory_order_acquire)) {
	case PATH_USABLE:
		return NULL;
	case PATH_BEING_MARKED:
		return "being marked unusable";
	}
	return path->unusable_reason;
}

long long hwoff_path_retry_in_ms(const struct hwoff_path *path)
{
	int state = atomic_load_explicit(&path->state, memory_order_acquire);
	uint64_t at = atomic_load_explicit(&path->retry_at, memory_order_relaxed),
		 now = hwoff_now_ns();

	if (state != PATH_FAILED && state != PATH_TRYING)
		return -1;
	return at > now ? (long long)((at - now + 999999) / 1000000) : 0;
}

void hwoff_table_mark_afalg_paths_unusable(struct hwoff_table *t, const char *reason)
{
	for (unsigned int p = 1; p < t->path_count; p++)
		if (t->paths[p].transport == &hwoff_transport_afalg)
			hwoff_path_mark_unusable(&t->paths[p], reason);
}

/* Mark path unusable for the printf-style reason, which becomes a line of warnings; 1 problem. */
static size_t mark_and_warn(struct hwoff_path *path, char *warnings, size_t warnings_len,
			    const char *fmt, ...) __attribute__((format(printf, 4, 5)));

static size_t mark_and_warn(struct hwoff_path *path, char *warnings, size_t warnings_len,
			    const char *fmt, ...)
{
	char reason[384];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(reason, sizeof(reason), fmt, ap);
	va_end(ap);
	hwoff_path_mark_unusable(path, reason);
	hwoff_appendf(warnings, warnings_len, "%s\n", reason);
	return 1;
}

/* Merge e's adjacent ranges of one path, after a clamp made some of them software. */
static void merge_ranges(struct hwoff_entry *e)
{
	unsigned int kept = 1;

	if (!e->count)
		return;

	for (unsigned int i = 1; i < e->count; i++)
		if (e->ranges[i].path != e->ranges[kept - 1].path)
			e->ranges[kept++] = e->ranges[i];
	e->count = kept;
}

void hwoff_table_afalg_paths_to_software(struct hwoff_table *t, const char *reason, char *warnings,
					 size_t warnings_len)
{
	hwoff_table_mark_afalg_paths_unusable(t, reason);
	for (unsigned int p = 1; p < t->path_count; p++) {
		bool used = false;

		if (t->paths[p].transport != &hwoff_transport_afalg)
			continue;
		for (size_t index = 0; index < HWOFF_TABLE_ENTRY_COUNT; index++) {
			struct hwoff_entry *e = &t->entries[index];

			for (unsigned int i = 0; i < e->count; i++)
				if (e->ranges[i].path == p) {
					e->ranges[i].path = 0;
					used = true;
				}
			merge_ranges(e);
		}
		if (used)
			hwoff_appendf(
				warnings, warnings_len,
				"the table's %s is reached through AF_ALG, unusable here (%s): "
				"its sizes go to software\n",
				t->paths[p].name, reason);
	}
}

/*
 * The ranges of e on path p serve no size past proven: a range that starts past it goes to
 * software, one that reaches past it ends there (the sizes after it to software). Returns the
 * smallest size taken from p, or SIZE_MAX when none was.
 */
static size_t clamp_entry(struct hwoff_entry *e, unsigned int p, size_t proven)
{
	size_t clamped = SIZE_MAX;

	for (unsigned int i = 0; i < e->count; i++) {
		struct hwoff_range *r = &e->ranges[i];
		size_t to = i + 1 < e->count ? r[1].start : SIZE_MAX;

		if (r->path != p || to - 1 <= proven)
			continue;
		if (!proven || r->start > proven) {
			r->path = 0;
			clamped = clamped < r->start ? clamped : r->start;
			continue;
		}
		clamped = clamped < proven + 1 ? clamped : proven + 1;
		if (i + 1 < e->count && r[1].path == 0) {
			r[1].start = proven + 1;
		} else if (e->count < HWOFF_RANGES_MAX) {
			memmove(&r[2], &r[1], (e->count - i - 1) * sizeof(*r));
			r[1] = (struct hwoff_range){ .start = proven + 1, .path = 0 };
			e->count++;
		} else {
			/* no room for one more range: the whole range is software's */
			r->path = 0;
			clamped = r->start;
		}
	}
	merge_ranges(e);
	return clamped;
}

/* Another vendor's engine (p) serves no size past its proof: clamp every entry to it. */
static size_t clamp_to_proof(struct hwoff_table *t, unsigned int p, char *warnings,
			     size_t warnings_len)
{
	const char *driver = t->paths[p].name;
	size_t proven = hwoff_table_proven(t, driver), problems = 0;

	if (proven == HWOFF_PROVEN_ALL)
		return 0;
	for (size_t index = 0; index < HWOFF_TABLE_ENTRY_COUNT; index++) {
		size_t per_alg = index % (HWOFF_DIRECTION_COUNT * HWOFF_OBJECTIVE_COUNT);
		size_t from = clamp_entry(&t->entries[index], p, proven);

		if (from == SIZE_MAX)
			continue;
		problems++;
		hwoff_appendf(warnings, warnings_len,
			      "%s %s %s: ", hwoff_table_entry_alg(index)->name,
			      hwoff_direction_names[per_alg / HWOFF_OBJECTIVE_COUNT],
			      hwoff_objective_names[per_alg % HWOFF_OBJECTIVE_COUNT]);
		if (proven)
			hwoff_appendf(warnings, warnings_len,
				      "sizes from %zu go to software, not to %s: another vendor's "
				      "engine serves only what was proven on it, and the table's "
				      "'proven' line says %zu bytes\n",
				      from, driver, proven);
		else
			hwoff_appendf(
				warnings, warnings_len,
				"sizes from %zu go to software, not to %s: another vendor's "
				"engine serves only what was proven on it, and the table has no "
				"'proven %s' line (hwoffload-calibrate checks a driver's output "
				"and writes one)\n",
				from, driver, driver);
	}
	return problems;
}

size_t hwoff_table_check_drivers(struct hwoff_table *t, const struct hwoff_discovery *d,
				 char *warnings, size_t warnings_len)
{
	size_t problems = 0;

	for (unsigned int p = 1; p < t->path_count; p++) {
		struct hwoff_path *path = &t->paths[p];
		const struct hwoff_impl *impl = hwoff_discovery_find(d, path->name);

		if (!impl) {
			problems +=
				mark_and_warn(path, warnings, warnings_len,
					      "the table's driver %s is not in /proc/crypto (not "
					      "loaded, or its self-test did not pass)",
					      path->name);
			continue;
		}
		for (size_t index = 0; index < HWOFF_TABLE_ENTRY_COUNT; index++) {
			const struct hwoff_entry *e = &t->entries[index];
			const struct hwoff_alg *alg = hwoff_table_entry_alg(index);
			bool used = false;

			for (unsigned int i = 0; i < e->count; i++)
				used |= e->ranges[i].path == p;
			if (!used || strcmp(alg->kernel_name, impl->name) == 0)
				continue;
			problems += mark_and_warn(
				path, warnings, warnings_len,
				"the table sends %s to driver %s, which implements %s, not %s",
				alg->name, path->name, impl->name, alg->kernel_name);
			break;
		}
		if (impl->class != HWOFF_IMPL_OFFLOAD)
			continue;
		problems += clamp_to_proof(t, p, warnings, warnings_len);
		if (path->transport->guard(path->name, 0))
			problems += mark_and_warn(path, warnings, warnings_len,
						  "another vendor's engine %s has no guard: more "
						  "than the drivers one process guards",
						  path->name);
	}
	return problems;
}

void hwoff_table_format_stats(const struct hwoff_table *t, char *buf, size_t size)
{
	for (unsigned int p = 0; p < t->path_count; p++) {
		const struct hwoff_path *path = &t->paths[p];
		const char *reason = hwoff_path_unusable_reason(path);

		long long retry_in = hwoff_path_retry_in_ms(path);

		hwoff_counters_format(buf, size, path->name, &path->counters);
		if (reason && retry_in >= 0)
			hwoff_appendf(buf, size,
				      "%s out of service: %s (%u failures in a row; next try in "
				      "%lld ms)\n",
				      path->name, reason, atomic_load(&path->failures_in_row),
				      retry_in);
		else if (reason)
			hwoff_appendf(buf, size, "%s unusable: %s\n", path->name, reason);
	}
}
