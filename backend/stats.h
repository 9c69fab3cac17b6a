/* SPDX-License-Identifier: Apache-2.0 */
/*
 * stats.h - per-path counters: requests, bytes, errors and software fallbacks by reason.
 *
 * Every path of the path table carries one struct hwoff_counters. They are the documented
 * exception to "no shared mutable state": any thread adds to them without a lock (C11 atomics,
 * relaxed: each counter is exact, but a reader may see one counter of a request before another),
 * and the provider reads them at any time to report.
 */
#ifndef HWOFF_BACKEND_STATS_H
#define HWOFF_BACKEND_STATS_H

#include <stdatomic.h>
#include <stddef.h>
#include <stdint.h>

/* Why a request the table sent to a kernel path was served in software instead. */
enum hwoff_fallback_reason {
	HWOFF_FALLBACK_PATH_UNUSABLE, /* the path was marked unusable before (its reason says why)
				       */
	HWOFF_FALLBACK_SETUP_FAILED, /* the kernel context (socket, bind, key) could not be made */
	HWOFF_FALLBACK_REQUEST_FAILED, /* the kernel failed this request; software redid it */
	/*
	 * a request the kernel's interface for the algorithm cannot carry, served by software
	 * whatever the fallback setting: GCM with an IV that is not 96 bits, a tag length the
	 * kernel refuses, a decrypt whose tag comes after its data, an empty decrypt, a message
	 * larger than one request takes (transport.h), or one that goes on after its first data
	 * update was the engine's (counted once, when software takes it over)
	 */
	HWOFF_FALLBACK_UNSUPPORTED,
	HWOFF_FALLBACK_REASON_COUNT,
};

struct hwoff_counters {
	atomic_uint_least64_t requests; /* requests this path served */
	atomic_uint_least64_t bytes; /* their bytes */
	atomic_uint_least64_t errors; /* requests that failed on this path */
	/* requests that failed unsent as the path was out of service (fallback off) */
	atomic_uint_least64_t refused;
	/* requests the table sent here that software served instead */
	atomic_uint_least64_t fallbacks[HWOFF_FALLBACK_REASON_COUNT];
	atomic_uint_least64_t failures; /* times a failure took the path out of service */
	atomic_uint_least64_t recoveries; /* times it served again after that */
	atomic_uint_least64_t unusable_ns; /* out of service, summed at each recovery */
	/* AEAD decrypts whose tag did not match: results, not errors */
	atomic_uint_least64_t tag_mismatches;
};

/* A plain copy, for reporting. */
struct hwoff_counts {
	uint64_t requests;
	uint64_t bytes;
	uint64_t errors;
	uint64_t refused;
	uint64_t fallbacks[HWOFF_FALLBACK_REASON_COUNT];
	uint64_t failures;
	uint64_t recoveries;
	uint64_t unusable_ns;
	uint64_t tag_mismatches;
};

/* Several requests at once: a caller that tallies its own requests adds them in batches. */
void hwoff_count_requests(struct hwoff_counters *c, uint64_t requests, uint64_t bytes);
void hwoff_count_error(struct hwoff_counters *c);
void hwoff_count_refusal(struct hwoff_counters *c);
void hwoff_count_fallback(struct hwoff_counters *c, enum hwoff_fallback_reason reason);
void hwoff_count_failure(struct hwoff_counters *c);
void hwoff_count_recovery(struct hwoff_counters *c, uint64_t unusable_ns);
void hwoff_count_tag_mismatch(struct hwoff_counters *c);
void hwoff_counters_read(const struct hwoff_counters *c, struct hwoff_counts *out);

/* "path-unusable", "setup-failed", "request-failed", "unsupported". */
const char *hwoff_fallback_reason_name(enum hwoff_fallback_reason reason);

/*
 * Append one line to the string in buf (see hwoff_appendf()): "NAME requests=N bytes=N
 * errors=N refused=N fallbacks=N (path-unusable=N setup-failed=N request-failed=N unsupported=N)
 * failures=N recoveries=N unusable-ms=N tag-mismatches=N" (unusable-ms: the time out of service
 * until the last recovery).
 */
void hwoff_counters_format(char *buf, size_t size, const char *path_name,
			   const struct hwoff_counters *c);

#endif
