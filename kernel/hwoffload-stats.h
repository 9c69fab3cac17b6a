/* SPDX-License-Identifier: GPL-2.0-only */
/*
 * The driver's statistics: their names in debugfs "stats" (hwoffload-debugfs.c says what they
 * count) and their enum. Each family's AUTO_SOFTWARE, AUTO_PIO and AUTO_DMA follow one another,
 * in that order: the router counts a request's route by the first (hwoffload_route()).
 */
#ifndef HWOFFLOAD_STATS_H
#define HWOFFLOAD_STATS_H

#define HWOFFLOAD_STATS(X)								\
	X(PIO_REQUESTS, "pio_requests")							\
	X(PIO_BYTES, "pio_bytes")							\
	X(PIO_CHUNKS, "pio_chunks")							\
	X(PIO_ERRORS, "pio_errors")							\
	X(PIO_TIMEOUTS, "pio_timeouts")							\
	X(PIO_SYNC, "pio_sync")								\
	X(DMA_REQUESTS, "dma_requests")							\
	X(DMA_BYTES, "dma_bytes")							\
	X(DMA_DESCS, "dma_descs")							\
	X(DMA_ZERO_COPY, "dma_zero_copy")						\
	X(DMA_BOUNCES, "dma_bounces")							\
	X(DMA_BOUNCE_BYTES, "dma_bounce_bytes")						\
	X(DMA_BOUNCE_MISALIGNED, "dma_bounce_misaligned")				\
	X(DMA_BOUNCE_SEGMENTS, "dma_bounce_segments")					\
	X(DMA_CTR_TAILS, "dma_ctr_tails")						\
	X(DMA_ERRORS, "dma_errors")							\
	X(DMA_TIMEOUTS, "dma_timeouts")							\
	X(DMA_INTERRUPTS, "dma_interrupts")						\
	X(DMA_CHAINS, "dma_chains")							\
	X(DMA_CHAINED_REQUESTS, "dma_chained_requests")					\
	X(DMA_CHAIN_MAX, "dma_chain_max")						\
	X(DMA_LATE_COMPLETIONS, "dma_late_completions")					\
	X(DMA_SYNC, "dma_sync")								\
	X(AUTO_SOFTWARE, "auto_software")						\
	X(AUTO_PIO, "auto_pio")								\
	X(AUTO_DMA, "auto_dma")								\
	X(HASH_PIO_REQUESTS, "hash_pio_requests")					\
	X(HASH_PIO_BYTES, "hash_pio_bytes")						\
	X(HASH_DMA_REQUESTS, "hash_dma_requests")					\
	X(HASH_DMA_BYTES, "hash_dma_bytes")						\
	X(HASH_AUTO_SOFTWARE, "hash_auto_software")					\
	X(HASH_AUTO_PIO, "hash_auto_pio")						\
	X(HASH_AUTO_DMA, "hash_auto_dma")						\
	X(HASH_BUFFERED, "hash_buffered")						\
	X(GCM_PIO_REQUESTS, "gcm_pio_requests")						\
	X(GCM_PIO_BYTES, "gcm_pio_bytes")						\
	X(GCM_DMA_REQUESTS, "gcm_dma_requests")						\
	X(GCM_DMA_BYTES, "gcm_dma_bytes")						\
	X(GCM_AUTO_SOFTWARE, "gcm_auto_software")					\
	X(GCM_AUTO_PIO, "gcm_auto_pio")							\
	X(GCM_AUTO_DMA, "gcm_auto_dma")							\
	X(GCM_TAG_MISMATCHES, "gcm_tag_mismatches")					\
	X(DEVICE_SESSIONS, "device_sessions")						\
	X(DEVICE_PIO_REQUESTS, "device_pio_requests")					\
	X(DEVICE_PIO_BYTES, "device_pio_bytes")						\
	X(DEVICE_PIO_UNALIGNED, "device_pio_unaligned")					\
	X(DEVICE_DMA_REQUESTS, "device_dma_requests")					\
	X(DEVICE_DMA_BYTES, "device_dma_bytes")						\
	X(DEVICE_HASH_BYTES, "device_hash_bytes")					\
	X(DEVICE_ERRORS, "device_errors")						\
	X(RESETS, "resets")								\
	X(RESET_FAILURES, "reset_failures")						\
	X(PM_RESUMES, "pm_resumes")							\
	X(PM_SUSPENDS, "pm_suspends")

#define HWOFFLOAD_STAT_ENUM(stat, name)	HWOFFLOAD_STAT_##stat,

enum hwoffload_stat {
	HWOFFLOAD_STATS(HWOFFLOAD_STAT_ENUM)
	HWOFFLOAD_STAT_COUNT
};

#endif /* HWOFFLOAD_STATS_H */
