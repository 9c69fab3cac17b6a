/* SPDX-License-Identifier: Apache-2.0 */
/*
 * timing.h - the engine's timing model: a per-request cost for each data path.
 *
 * cost(len) = setup + len * per_byte. The engine sleeps (never spins) until the request's
 * start time plus its cost, so the real work done on the host counts against the cost.
 */
#ifndef HWEMU_TIMING_H
#define HWEMU_TIMING_H

#include <stdbool.h>
#include <stdint.h>

struct hwemu_cost {
	uint64_t setup_ns;
	uint64_t ps_per_byte;	/* picoseconds: the omap PIO path costs 1.5 us per byte */
};

struct hwemu_timing {
	const char *profile;
	struct hwemu_cost pio;
	struct hwemu_cost dma;
};

/* Fill @t from a named profile (native, omap, slow-dma-setup); false if the name is unknown. */
bool hwemu_timing_profile(const char *name, struct hwemu_timing *t);

/* Straight line through two throughput figures (ops/s at a request size), as in ENGINE.md. */
struct hwemu_cost hwemu_cost_fit(uint64_t len1, double ops1, uint64_t len2, double ops2);

uint64_t hwemu_cost_ns(const struct hwemu_cost *c, uint64_t len);

uint64_t hwemu_now_ns(void);

/* Block (clock_nanosleep, absolute CLOCK_MONOTONIC) until @deadline_ns; returns at once if past. */
void hwemu_sleep_until(uint64_t deadline_ns);

#endif /* HWEMU_TIMING_H */
