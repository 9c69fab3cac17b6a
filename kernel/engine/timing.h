/* SPDX-License-Identifier: MIT */
/*
 * timing.h - the engine's timing model: a per-request cost for each data path.
 *
 * cost(len) = setup + len * per_byte. The engine sleeps (never spins) until the request's
 * start time plus its cost, so the real work done on the host counts against the cost.
 */
#ifndef HWOFF_TIMING_H
#define HWOFF_TIMING_H

#include <stdbool.h>
#include <stdint.h>

struct hwoff_cost {
	uint64_t setup_ns;
	uint64_t ps_per_byte;	/* picoseconds: the omap PIO path costs 1.5 us per byte */
};

struct hwoff_timing {
	const char *profile;
	struct hwoff_cost pio;
	struct hwoff_cost dma;
};

/* Fill @t from a named profile (native, omap, slow-dma-setup); false if the name is unknown. */
bool hwoff_timing_profile(const char *name, struct hwoff_timing *t);

/* Straight line through two throughput figures (ops/s at a request size), as in ENGINE.md. */
struct hwoff_cost hwoff_cost_fit(uint64_t len1, double ops1, uint64_t len2, double ops2);

uint64_t hwoff_cost_ns(const struct hwoff_cost *c, uint64_t len);

uint64_t hwoff_now_ns(void);

/* Block (clock_nanosleep, absolute CLOCK_MONOTONIC) until @deadline_ns; returns at once if past. */
void hwoff_sleep_until(uint64_t deadline_ns);

#endif /* HWOFF_TIMING_H */
