/* SPDX-License-Identifier: Apache-2.0 */
/*
 * timing.c - named timing profiles and the cost function of the engine model.
 */
#include <errno.h>
#include <string.h>
#include <time.h>

#include "timing.h"

#define NSEC_PER_SEC	1000000000ULL

/* omap-aes on am335x, 128-bit keys, tcrypt ops/s (lkml, Joel Fernandes, Aug 2013) */
#define OMAP_SMALL_LEN		16
#define OMAP_LARGE_LEN		8192
#define OMAP_PIO_SMALL_OPS	20585.0
#define OMAP_PIO_LARGE_OPS	79.0
#define OMAP_DMA_SMALL_OPS	4318.0
#define OMAP_DMA_LARGE_OPS	1766.0

/* slow-dma-setup: about ten times the emulation's own MSI-X round trip (~90 us) */
#define SLOW_DMA_SETUP_NS	1000000ULL

struct hwemu_cost hwemu_cost_fit(uint64_t len1, double ops1, uint64_t len2, double ops2)
{
	double t1 = 1e9 / ops1, t2 = 1e9 / ops2;	/* ns per request */
	double ns_per_byte = (t2 - t1) / (double)(len2 - len1);
	struct hwemu_cost c = {
		.setup_ns = (uint64_t)(t1 - ns_per_byte * (double)len1 + 0.5),
		.ps_per_byte = (uint64_t)(ns_per_byte * 1000.0 + 0.5),
	};

	return c;
}

bool hwemu_timing_profile(const char *name, struct hwemu_timing *t)
{
	memset(t, 0, sizeof(*t));
	if (!strcmp(name, "native")) {
		t->profile = "native";
	} else if (!strcmp(name, "omap")) {
		t->profile = "omap";
		t->pio = hwemu_cost_fit(OMAP_SMALL_LEN, OMAP_PIO_SMALL_OPS, OMAP_LARGE_LEN,
					OMAP_PIO_LARGE_OPS);
		t->dma = hwemu_cost_fit(OMAP_SMALL_LEN, OMAP_DMA_SMALL_OPS, OMAP_LARGE_LEN,
					OMAP_DMA_LARGE_OPS);
	} else if (!strcmp(name, "slow-dma-setup")) {
		t->profile = "slow-dma-setup";
		t->dma.setup_ns = SLOW_DMA_SETUP_NS;
	} else {
		return false;
	}
	return true;
}

uint64_t hwemu_cost_ns(const struct hwemu_cost *c, uint64_t len)
{
	return c->setup_ns + (len * c->ps_per_byte + 500) / 1000;
}

uint64_t hwemu_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (uint64_t)ts.tv_sec * NSEC_PER_SEC + (uint64_t)ts.tv_nsec;
}

void hwemu_sleep_until(uint64_t deadline_ns)
{
	struct timespec ts = {
		.tv_sec = (time_t)(deadline_ns / NSEC_PER_SEC),
		.tv_nsec = (long)(deadline_ns % NSEC_PER_SEC),
	};

	if (deadline_ns <= hwemu_now_ns())
		return;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
}
