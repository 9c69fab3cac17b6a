/* SPDX-License-Identifier: Apache-2.0 */
/*
 * table.h - the path table, and THE decision: which path serves a request.
 *
 * For each (algorithm, key size, direction, objective) the table holds ordered size ranges, each
 * sent to a path: software (OpenSSL's default provider) or a kernel driver by name. The
 * calibration writes it in the text format of backend/TABLE.md (table_file.h), with the
 * machine's fingerprint (fingerprint.h); without one, hwoff_table_default() gives conservative
 * cut-offs for a discovered engine. The table's structure is fixed once built; what changes at
 * run time is lock-free: a path can be taken out of service (for good, or after a failure until
 * a back-off has passed), and its counters count.
 */
#ifndef HWOFF_BACKEND_TABLE_H
#define HWOFF_BACKEND_TABLE_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "backend/algs.h"
#include "backend/discover.h"
#include "backend/fingerprint.h" /* and HWOFF_PATHS_MAX */
#include "backend/stats.h"

struct hwoff_transport;

#define HWOFF_SOFTWARE	 "software" /* the path name of OpenSSL's default provider */
#define HWOFF_RANGES_MAX 8 /* per entry */
#define HWOFF_SIZE_LIMIT (1UL << 30) /* no range starts past 1 GiB: surely a typo */

/* Built-in cut-offs when no table was calibrated: upstream omap-aes and omap-sham. */
#define HWOFF_DEFAULT_CIPHER_CUTOFF 200 /* omap-aes aes_fallback_sz */
#define HWOFF_DEFAULT_DIGEST_CUTOFF 256 /* omap-sham OMAP_SHA_DMA_THRESHOLD */

enum hwoff_direction {
	HWOFF_ENCRYPT,
	HWOFF_DECRYPT,
	HWOFF_DIGEST,
	HWOFF_DIRECTION_COUNT,
};

/* What the calibration optimised a range for. */
enum hwoff_objective {
	HWOFF_THROUGHPUT, /* bytes per second of wall time */
	HWOFF_CPU, /* CPU time per byte */
	HWOFF_OBJECTIVE_COUNT,
};

struct hwoff_path {
	char name[HWOFF_NAME_MAX]; /* HWOFF_SOFTWARE or a kernel driver name */
	bool software;
	const struct hwoff_transport *transport; /* reaches the driver; software: NULL */
	atomic_int state; /* usable, being marked, failed, unusable for good: see table.c */
	char unusable_reason[256]; /* valid once failed or unusable */
	/* While failed: when a request may try it again (CLOCK_MONOTONIC ns), and since when. */
	atomic_uint_least64_t retry_at;
	uint64_t failed_at;
	atomic_uint_least64_t backoff_ns; /* the wait before a try; doubles with each failure */
	atomic_uint failures_in_row;
	struct hwoff_counters counters;
};

/* Sizes from start up to the next range's start (the last: up to SIZE_MAX) go to path. */
struct hwoff_range {
	size_t start;
	unsigned int path; /* index into hwoff_table.paths */
};

/* No ranges: everything in software. */
struct hwoff_entry {
	unsigned int count;
	struct hwoff_range ranges[HWOFF_RANGES_MAX];
};

/*
 * What a driver was shown to do right: the largest request size whose output the calibration
 * checked against OpenSSL's on it (HWOFF_PROVEN_ALL: every size, as it was checked right at a
 * size no smaller than the most one kernel request gets). Another vendor's engine serves no size
 * past its proof (hwoff_table_check_drivers()): one request of an unproven size can wedge such a
 * device for every process.
 */
#define HWOFF_PROVEN_ALL SIZE_MAX

struct hwoff_proof {
	char driver[HWOFF_NAME_MAX];
	size_t bytes;
};

/* Read the fields; change it only through the functions below. */
struct hwoff_table {
	struct hwoff_fingerprint fingerprint;
	unsigned int proof_count;
	struct hwoff_proof proofs[HWOFF_PATHS_MAX];
	unsigned int path_count;
	struct hwoff_path paths[HWOFF_PATHS_MAX]; /* paths[0] is software */
	struct hwoff_entry *entries; /* HWOFF_TABLE_ENTRY_COUNT, see hwoff_table_entry_index() */
};

/* One entry per (algorithm, direction, objective): where each is in entries[], and whose. */
#define HWOFF_TABLE_ENTRY_COUNT (HWOFF_ALG_COUNT * HWOFF_DIRECTION_COUNT * HWOFF_OBJECTIVE_COUNT)

static inline size_t hwoff_table_entry_index(const struct hwoff_alg *alg,
					     enum hwoff_direction direction,
					     enum hwoff_objective objective)
{
	return (hwoff_alg_index(alg) * HWOFF_DIRECTION_COUNT + direction) * HWOFF_OBJECTIVE_COUNT +
	       objective;
}

static inline const struct hwoff_alg *hwoff_table_entry_alg(size_t index)
{
	return &hwoff_algs[index / (HWOFF_DIRECTION_COUNT * HWOFF_OBJECTIVE_COUNT)];
}

/* Where hwoff_decide() sends a request. */
struct hwoff_choice {
	struct hwoff_path *path; /* serves it: the table's path, or software */
	struct hwoff_path *unusable; /* the table's path when it was unusable, else NULL */
	/* The sizes [from, to) of the same range: a caller may keep the answer for them while
	 * the range's path stays usable (hwoff_path_usable()). */
	size_t from, to;
};

/* A range as the calibration or the loader gives it, before the path is interned. */
struct hwoff_range_spec {
	size_t start;
	const char *path; /* HWOFF_SOFTWARE or a driver name */
};

/*
 * THE decision. No system calls, no allocation, no locks: the entry is indexed, its ranges
 * scanned. Anything the table does not cover (no entry, a direction that is not the
 * algorithm's) goes to software, as does a request for a path out of service; except that once a
 * failed path's back-off has passed, one request is sent to it again (reading the clock).
 */
struct hwoff_choice hwoff_decide(struct hwoff_table *t, const struct hwoff_alg *alg,
				 enum hwoff_direction direction, size_t size,
				 enum hwoff_objective objective);

/*
 * Where the decision for this entry changes next: the start of the first range above size, or
 * SIZE_MAX when every larger size takes the same path. A digest's total is unknown until it ends,
 * so the provider buffers while the answer may still change; this tells it how far. Like
 * hwoff_decide(): no system calls, no allocation.
 */
size_t hwoff_table_next_start(const struct hwoff_table *t, const struct hwoff_alg *alg,
			      enum hwoff_direction direction, size_t size,
			      enum hwoff_objective objective);

/* A table that sends everything to software; NULL when out of memory. */
struct hwoff_table *hwoff_table_new(void);
void hwoff_table_free(struct hwoff_table *t);

/*
 * Set one entry. Ranges start at 0, strictly
 * increasing, none past HWOFF_SIZE_LIMIT. Returns 0, or -1 with the reason in err.
 */
int hwoff_table_set(struct hwoff_table *t, const struct hwoff_alg *alg,
		    enum hwoff_direction direction, enum hwoff_objective objective,
		    const struct hwoff_range_spec *ranges, unsigned int count, char *err,
		    size_t err_len);

/*
 * Record driver's proof (see struct hwoff_proof); a second proof of the same driver replaces the
 * first. Returns 0, or -1 with the reason in err (a bad driver name, too many drivers).
 */
int hwoff_table_set_proven(struct hwoff_table *t, const char *driver, size_t bytes, char *err,
			   size_t err_len);
/* driver's proof in t: its bytes, or 0 when t has none. */
size_t hwoff_table_proven(const struct hwoff_table *t, const char *driver);

/*
 * Without a calibration: for each algorithm with a driver of the bundled engine in d (see
 * hwoff_discovery_offload_for()), software below the built-in cut-off and that driver from it;
 * software for the rest and for everything when d is NULL. Another vendor's engine gets nothing:
 * no size of it is proven until a calibration checks it. NULL when out of memory.
 */
struct hwoff_table *hwoff_table_default(const struct hwoff_discovery *d);

/*
 * Mark a path unusable for good (no AF_ALG, no such driver): later decisions send its requests
 * to software. The first reason is kept; software cannot be marked. Returns whether this call
 * marked it. Lock-free.
 */
bool hwoff_path_mark_unusable(struct hwoff_path *path, const char *reason);

/* The longest wait before a failed path is tried again, as a multiple of the first. */
#define HWOFF_BACKOFF_GROWTH_MAX 64

/*
 * A request on the path failed: it is out of service for backoff_ns, then the next request
 * decided for it tries it (hwoff_decide()); if that one fails too, the wait doubles, up to
 * HWOFF_BACKOFF_GROWTH_MAX times backoff_ns. The reason of the first failure in a row is kept.
 * Returns whether this call took the path out of service (or moved its next try). Lock-free.
 */
bool hwoff_path_failed(struct hwoff_path *path, const char *reason, uint64_t backoff_ns);
/*
 * A request on the path succeeded: a failed path serves again (counted as a recovery, with the
 * time it was out of service). One atomic load while the path is usable.
 */
void hwoff_path_served(struct hwoff_path *path);
/* Whether the path serves requests now: software always, a kernel path while in service. */
bool hwoff_path_usable(const struct hwoff_path *path);
/* Why the path is out of service, or NULL while it is usable. */
const char *hwoff_path_unusable_reason(const struct hwoff_path *path);
/* While failed: the ms until its next try (0: due); -1 when usable or unusable for good. */
long long hwoff_path_retry_in_ms(const struct hwoff_path *path);
/* Every path AF_ALG reaches (not the engine's device's), e.g. when the AF_ALG probe fails. */
void hwoff_table_mark_afalg_paths_unusable(struct hwoff_table *t, const char *reason);
/*
 * Where AF_ALG is unusable and the engine's own device serves: as above, and the AF_ALG paths'
 * ranges become software's, the route there and not a fallback; a line of warnings per path the
 * table sent sizes to.
 */
void hwoff_table_afalg_paths_to_software(struct hwoff_table *t, const char *reason, char *warnings,
					 size_t warnings_len);

/*
 * Check the kernel paths against discovery: a driver that is not there, or that implements a
 * different kernel algorithm than an entry sending requests to it, is marked unusable; the
 * ranges of another vendor's engine (HWOFF_IMPL_OFFLOAD) are clamped to its proof, the sizes past
 * it going to software, and its calls in this process are made by a guard under a time limit
 * (guard.h). Appends one line per problem to warnings (a clamp names the entry, the size and
 * why); returns the number of problems.
 */
size_t hwoff_table_check_drivers(struct hwoff_table *t, const struct hwoff_discovery *d,
				 char *warnings, size_t warnings_len);

/* Append one hwoff_counters_format() line per path, and "NAME unusable: REASON" if it is. */
void hwoff_table_format_stats(const struct hwoff_table *t, char *buf, size_t size);

/* "encrypt", "decrypt", "digest"; "throughput", "cpu". */
extern const char *const hwoff_direction_names[HWOFF_DIRECTION_COUNT];
extern const char *const hwoff_objective_names[HWOFF_OBJECTIVE_COUNT];
/* The same, "?" for a value out of range. */
const char *hwoff_direction_name(enum hwoff_direction direction);
const char *hwoff_objective_name(enum hwoff_objective objective);

/* Whether alg takes direction: digest for a digest, encrypt and decrypt for a cipher. */
bool hwoff_direction_fits(const struct hwoff_alg *alg, enum hwoff_direction direction);
/* CLOCK_MONOTONIC in ns: the clock of a path's back-off (and of the provider's statistics file). */
uint64_t hwoff_now_ns(void);

/* A kernel driver name: letters, digits, - _ . , and balanced parentheses ("cbc(aes-generic)"). */
bool hwoff_driver_name_valid(const char *name);

#endif
