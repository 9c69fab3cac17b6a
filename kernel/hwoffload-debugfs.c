// SPDX-License-Identifier: GPL-2.0
/*
 * hwoffload debugfs, in /sys/kernel/debug/hwoffload/DEVICE/:
 *
 *   stats		"name: value" lines: the driver's counters, then the engine's own
 *			(engine_*, never reset). pio_* and dma_* requests and bytes are AES,
 *			hash_* the hashes; errors, timeouts, bounces, descriptors, interrupts
 *			and chains count both units. hash_buffered counts the updates kept
 *			whole in the request (less than a block: the engine never sees them
 *			alone). dma_chains counts completion passes that
 *			finished requests, dma_chained_requests the requests they finished,
 *			dma_chain_max the most in one pass; dma_late_completions the requests
 *			the timeout found finished (a lost interrupt).
 *   chain		1 (default): DMA requests are published while the engine walks, so
 *			one walk and one interrupt can finish several. 0: each request waits
 *			for the ring to drain, for measuring what chaining gains.
 *   fault_dma_error	model only (CAPS.FAULT_INJECTION): write N to arm the engine's
 *   fault_stall	fault-injection counter (ENGINE.md section 9), read the count still
 *   fault_lost_irq	armed
 *   fault_fifo_error
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>

#include "hwoffload.h"

static struct dentry *hwoff_debugfs_root;

static const char * const hwoff_stat_names[HWOFF_STAT_COUNT] = {
	[HWOFF_STAT_PIO_REQUESTS] = "pio_requests",
	[HWOFF_STAT_PIO_BYTES] = "pio_bytes",
	[HWOFF_STAT_PIO_CHUNKS] = "pio_chunks",
	[HWOFF_STAT_PIO_ERRORS] = "pio_errors",
	[HWOFF_STAT_PIO_TIMEOUTS] = "pio_timeouts",
	[HWOFF_STAT_DMA_REQUESTS] = "dma_requests",
	[HWOFF_STAT_DMA_BYTES] = "dma_bytes",
	[HWOFF_STAT_DMA_DESCS] = "dma_descs",
	[HWOFF_STAT_DMA_ZERO_COPY] = "dma_zero_copy",
	[HWOFF_STAT_DMA_BOUNCES] = "dma_bounces",
	[HWOFF_STAT_DMA_BOUNCE_BYTES] = "dma_bounce_bytes",
	[HWOFF_STAT_DMA_BOUNCE_MISALIGNED] = "dma_bounce_misaligned",
	[HWOFF_STAT_DMA_BOUNCE_SEGMENTS] = "dma_bounce_segments",
	[HWOFF_STAT_DMA_CTR_TAILS] = "dma_ctr_tails",
	[HWOFF_STAT_DMA_ERRORS] = "dma_errors",
	[HWOFF_STAT_DMA_TIMEOUTS] = "dma_timeouts",
	[HWOFF_STAT_DMA_INTERRUPTS] = "dma_interrupts",
	[HWOFF_STAT_DMA_CHAINS] = "dma_chains",
	[HWOFF_STAT_DMA_CHAINED_REQUESTS] = "dma_chained_requests",
	[HWOFF_STAT_DMA_CHAIN_MAX] = "dma_chain_max",
	[HWOFF_STAT_DMA_LATE_COMPLETIONS] = "dma_late_completions",
	[HWOFF_STAT_AUTO_PIO] = "auto_pio",
	[HWOFF_STAT_AUTO_DMA] = "auto_dma",
	[HWOFF_STAT_HASH_PIO_REQUESTS] = "hash_pio_requests",
	[HWOFF_STAT_HASH_PIO_BYTES] = "hash_pio_bytes",
	[HWOFF_STAT_HASH_DMA_REQUESTS] = "hash_dma_requests",
	[HWOFF_STAT_HASH_DMA_BYTES] = "hash_dma_bytes",
	[HWOFF_STAT_HASH_AUTO_PIO] = "hash_auto_pio",
	[HWOFF_STAT_HASH_AUTO_DMA] = "hash_auto_dma",
	[HWOFF_STAT_HASH_BUFFERED] = "hash_buffered",
	[HWOFF_STAT_RESETS] = "resets",
	[HWOFF_STAT_RESET_FAILURES] = "reset_failures",
	[HWOFF_STAT_PM_RESUMES] = "pm_resumes",
	[HWOFF_STAT_PM_SUSPENDS] = "pm_suspends",
};

static const struct hwoff_reg_name {
	const char *name;
	u32 reg;
} hwoff_engine_counters[] = {
	{ "engine_doorbells", HWOFF_REG_CNT_DOORBELLS },
	{ "engine_pio_requests", HWOFF_REG_CNT_PIO_REQUESTS },
	{ "engine_pio_bytes", HWOFF_REG_CNT_PIO_BYTES },
	{ "engine_dma_requests", HWOFF_REG_CNT_DMA_REQUESTS },
	{ "engine_dma_bytes", HWOFF_REG_CNT_DMA_BYTES },
	{ "engine_dma_descs", HWOFF_REG_CNT_DMA_DESCS },
	{ "engine_dma_irqs", HWOFF_REG_CNT_DMA_IRQS },
	{ "engine_irqs_lost", HWOFF_REG_CNT_IRQS_LOST },
	{ "engine_errors", HWOFF_REG_CNT_ERRORS },
	{ "engine_resets", HWOFF_REG_CNT_RESETS },
}, hwoff_fault_regs[HWOFF_FAULT_KNOBS] = {
	{ "fault_dma_error", HWOFF_REG_FAULT_DMA_ERROR },
	{ "fault_stall", HWOFF_REG_FAULT_STALL },
	{ "fault_lost_irq", HWOFF_REG_FAULT_LOST_IRQ },
	{ "fault_fifo_error", HWOFF_REG_FAULT_FIFO_ERROR },
};

static int hwoff_stats_show(struct seq_file *m, void *unused)
{
	struct hwoff_dev *hw = m->private;
	int i;

	for (i = 0; i < HWOFF_STAT_COUNT; i++)
		seq_printf(m, "%s: %lld\n", hwoff_stat_names[i], atomic64_read(&hw->stats[i]));
	for (i = 0; i < ARRAY_SIZE(hwoff_engine_counters); i++)
		seq_printf(m, "%s: %llu\n", hwoff_engine_counters[i].name,
			   hwoff_read64(hw, hwoff_engine_counters[i].reg));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hwoff_stats);

static int hwoff_fault_get(void *data, u64 *val)
{
	struct hwoff_fault_knob *knob = data;

	*val = hwoff_read(knob->hw, knob->reg);
	return 0;
}

static int hwoff_fault_set(void *data, u64 val)
{
	struct hwoff_fault_knob *knob = data;

	if (val > U32_MAX)
		return -EINVAL;
	hwoff_write(knob->hw, knob->reg, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(hwoff_fault_fops, hwoff_fault_get, hwoff_fault_set, "%llu\n");

void hwoff_debugfs_init(struct hwoff_dev *hw)
{
	int i;

	hw->debugfs = debugfs_create_dir(dev_name(hw->dev), hwoff_debugfs_root);
	debugfs_create_file("stats", 0444, hw->debugfs, hw, &hwoff_stats_fops);
	debugfs_create_bool("chain", 0600, hw->debugfs, &hw->dma_chain);
	if (!(hw->caps & HWOFF_CAP_FAULT_INJECTION))
		return;
	for (i = 0; i < HWOFF_FAULT_KNOBS; i++) {
		hw->fault_knobs[i].hw = hw;
		hw->fault_knobs[i].reg = hwoff_fault_regs[i].reg;
		debugfs_create_file_unsafe(hwoff_fault_regs[i].name, 0600, hw->debugfs,
					   &hw->fault_knobs[i], &hwoff_fault_fops);
	}
}

void hwoff_debugfs_exit(struct hwoff_dev *hw)
{
	debugfs_remove_recursive(hw->debugfs);
}

void hwoff_debugfs_module_init(void)
{
	hwoff_debugfs_root = debugfs_create_dir(HWOFF_DRIVER_NAME, NULL);
}

void hwoff_debugfs_module_exit(void)
{
	debugfs_remove_recursive(hwoff_debugfs_root);
}
