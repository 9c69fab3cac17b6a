// SPDX-License-Identifier: Apache-2.0
/*
 * stats.c - lock-free per-path counters and their text form.
 */
#include "backend/stats.h"
#include "backend/text.h"

void hwoff_count_requests(struct hwoff_counters *c, uint64_t requests, uint64_t bytes)
{
	atomic_fetch_add_explicit(&c->requests, requests, memory_order_relaxed);
	atomic_fetch_add_explicit(&c->bytes, bytes, memory_order_relaxed);
}

void hwoff_count_error(struct hwoff_counters *c)
{
	atomic_fetch_add_explicit(&c->errors, 1, memory_order_relaxed);
}

void hwoff_count_refusal(struct hwoff_counters *c)
{
	atomic_fetch_add_explicit(&c->refused, 1, memory_order_relaxed);
}

void hwoff_count_fallback(struct hwoff_counters *c, enum hwoff_fallback_reason reason)
{
	if (reason < HWOFF_FALLBACK_REASON_COUNT)
		atomic_fetch_add_explicit(&c->fallbacks[reason], 1, memory_order_relaxed);
}

void hwoff_count_failure(struct hwoff_counters *c)
{
	atomic_fetch_add_explicit(&c->failures, 1, memory_order_relaxed);
}

void hwoff_count_recovery(struct hwoff_counters *c, uint64_t unusable_ns)
{
	atomic_fetch_add_explicit(&c->recoveries, 1, memory_order_relaxed);
	atomic_fetch_add_explicit(&c->unusable_ns, unusable_ns, memory_order_relaxed);
}

void hwoff_count_tag_mismatch(struct hwoff_counters *c)
{
	atomic_fetch_add_explicit(&c->tag_mismatches, 1, memory_order_relaxed);
}

void hwoff_counters_read(const struct hwoff_counters *c, struct hwoff_counts *out)
{
	out->requests = atomic_load_explicit(&c->requests, memory_order_relaxed);
	out->bytes = atomic_load_explicit(&c->bytes, memory_order_relaxed);
	out->errors = atomic_load_explicit(&c->errors, memory_order_relaxed);
	out->refused = atomic_load_explicit(&c->refused, memory_order_relaxed);
	for (int r = 0; r < HWOFF_FALLBACK_REASON_COUNT; r++)
		out->fallbacks[r] = atomic_load_explicit(&c->fallbacks[r], memory_order_relaxed);
	out->failures = atomic_load_explicit(&c->failures, memory_order_relaxed);
	out->recoveries = atomic_load_explicit(&c->recoveries, memory_order_relaxed);
	out->unusable_ns = atomic_load_explicit(&c->unusable_ns, memory_order_relaxed);
	out->tag_mismatches = atomic_load_explicit(&c->tag_mismatches, memory_order_relaxed);
}

const char *hwoff_fallback_reason_name(enum hwoff_fallback_reason reason)
{
	switch (reason) {
	case HWOFF_FALLBACK_PATH_UNUSABLE:
		return "path-unusable";
	case HWOFF_FALLBACK_SETUP_FAILED:
		return "setup-failed";
	case HWOFF_FALLBACK_REQUEST_FAILED:
		return "request-failed";
	case HWOFF_FALLBACK_UNSUPPORTED:
		return "unsupported";
	case HWOFF_FALLBACK_REASON_COUNT:
		break;
	}
	return "?";
}

void hwoff_counters_format(char *buf, size_t size, const char *path_name,
			   const struct hwoff_counters *c)
{
	struct hwoff_counts n;
	unsigned long long fallbacks = 0;

	hwoff_counters_read(c, &n);
	for (int r = 0; r < HWOFF_FALLBACK_REASON_COUNT; r++)
		fallbacks += n.fallbacks[r];
	hwoff_appendf(buf, size,
		      "%s requests=%llu bytes=%llu errors=%llu refused=%llu fallbacks=%llu (",
		      path_name, (unsigned long long)n.requests, (unsigned long long)n.bytes,
		      (unsigned long long)n.errors, (unsigned long long)n.refused, fallbacks);
	for (int r = 0; r < HWOFF_FALLBACK_REASON_COUNT; r++)
		hwoff_appendf(buf, size, "%s%s=%llu", r ? " " : "", hwoff_fallback_reason_name(r),
			      (unsigned long long)n.fallbacks[r]);
	hwoff_appendf(buf, size,
		      ") failures=%llu recoveries=%llu unusable-ms=%llu tag-mismatches=%llu\n",
		      (unsigned long long)n.failures, (unsigned long long)n.recoveries,
		      (unsigned long long)(n.unusable_ns / 1000000),
		      (unsigned long long)n.tag_mismatches);
}
