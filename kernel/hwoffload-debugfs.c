// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwoffload debugfs, in /sys/kernel/debug/hwoffload/DEVICE/:
 *
 *   stats		"name: value" lines: the driver's counters, then the engine's own
 *			(engine_*, never reset). pio_* and dma_* requests and bytes are AES,
 *			hash_* the hashes, gcm_* gcm(aes) (requests and bytes: those that
 *			succeeded; gcm_tag_mismatches: decrypts refused by their tag, which
 *			are not errors); errors, timeouts, bounces, descriptors, interrupts
 *			and chains count every kind. pio_sync and dma_sync count the
 *			requests, AES and hash, run in their caller. auto_software,
 *			auto_pio and auto_dma (gcm_auto_*, hash_auto_* likewise) count where
 *			the auto drivers sent their requests: software is their software
 *			tier (hwoffload.h), by its threshold. hash_buffered counts
 *			the updates kept whole in the request (less than a block: the engine
 *			never sees them alone). dma_chains counts completion passes that
 *			finished requests, dma_chained_requests the requests they finished,
 *			dma_chain_max the most in one pass; dma_late_completions the requests
 *			the timeout found finished (a lost interrupt).
 *   requests		the last HWOFFLOAD_REQ_LOG skcipher requests, oldest first, one line
 *			each: "seq path bytes decrypt err" and the ktime_get_ns() (the
 *			CLOCK_MONOTONIC of user space) at enter start doorbell seen thread
 *			done, then the engine's own time for it in ns, as struct
 *			hwoffload_req_times says; 0 where a path has no such point. For
 *			bench/request_cost, which times the system calls around.
 *   roundtrip		reading it runs, on an idle engine, the least request of each path
 *			and prints, in ns, the PIO round trip from the doorbell to the poll
 *			that sees it done, the DMA one from the doorbell to the hard interrupt
 *			and on to the interrupt thread, and the engine's own time for each
 *			(ENGINE.md section 8): what the emulation costs on top of the work.
 *   chain		1 (default): DMA requests are published while the engine walks, so
 *			one walk and one interrupt can finish several. 0: each request waits
 *			for the ring to drain, for measuring what chaining gains.
 *   pinned_pages	(beside the devices) pages the sessions of /dev/hwoffloadN hold pinned
 *			for their requests (hwoffload-device.c): 0 when none holds a request
 *   software		(beside the devices) "NAME DRIVER" lines: the implementation the auto
 *			drivers' software tier took last, per algorithm name, since the module
 *			loaded: what hwoffload-calibrate measures it on
 *   fault_dma_error	model only (CAPS.FAULT_INJECTION): write N to arm the engine's
 *   fault_stall	fault-injection counter (ENGINE.md section 9), read the count still
 *   fault_lost_irq	armed
 *   fault_fifo_error
 */
#include <linux/debugfs.h>
#include <linux/seq_file.h>
#include <linux/slab.h>

#include "hwoffload.h"

static struct dentry *hwoffload_debugfs_root;

#define HWOFFLOAD_STAT_NAME(stat, name)	[HWOFFLOAD_STAT_##stat] = name,

static const char * const hwoffload_stat_names[HWOFFLOAD_STAT_COUNT] = {
	HWOFFLOAD_STATS(HWOFFLOAD_STAT_NAME)
};

static const struct hwoffload_reg_name {
	const char *name;
	u32 reg;
} hwoffload_engine_counters[] = {
	{ "engine_doorbells", HWE_REG_CNT_DOORBELLS },
	{ "engine_pio_requests", HWE_REG_CNT_PIO_REQUESTS },
	{ "engine_pio_bytes", HWE_REG_CNT_PIO_BYTES },
	{ "engine_dma_requests", HWE_REG_CNT_DMA_REQUESTS },
	{ "engine_dma_bytes", HWE_REG_CNT_DMA_BYTES },
	{ "engine_dma_descs", HWE_REG_CNT_DMA_DESCS },
	{ "engine_dma_irqs", HWE_REG_CNT_DMA_IRQS },
	{ "engine_irqs_lost", HWE_REG_CNT_IRQS_LOST },
	{ "engine_errors", HWE_REG_CNT_ERRORS },
	{ "engine_resets", HWE_REG_CNT_RESETS },
	{ "engine_pio_busy_ns", HWE_REG_CNT_PIO_BUSY_NS },
	{ "engine_dma_busy_ns", HWE_REG_CNT_DMA_BUSY_NS },
	{ "engine_tag_mismatches", HWE_REG_CNT_TAG_MISMATCHES },
}, hwoffload_fault_regs[HWOFFLOAD_FAULT_KNOBS] = {
	{ "fault_dma_error", HWE_REG_FAULT_DMA_ERROR },
	{ "fault_stall", HWE_REG_FAULT_STALL },
	{ "fault_lost_irq", HWE_REG_FAULT_LOST_IRQ },
	{ "fault_fifo_error", HWE_REG_FAULT_FIFO_ERROR },
};

static int hwoffload_stats_show(struct seq_file *m, void *unused)
{
	struct hwoffload_dev *hw = m->private;
	int i;

	for (i = 0; i < HWOFFLOAD_STAT_COUNT; i++)
		seq_printf(m, "%s: %lld\n", hwoffload_stat_names[i], atomic64_read(&hw->stats[i]));
	for (i = 0; i < ARRAY_SIZE(hwoffload_engine_counters); i++)
		seq_printf(m, "%s: %llu\n", hwoffload_engine_counters[i].name,
			   hwoffload_read64(hw, hwoffload_engine_counters[i].reg));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hwoffload_stats);

/* From a request's caller (synchronous PIO) or, bottom halves off, from its completion. */
void hwoffload_debugfs_log_request(struct hwoffload_dev *hw, const struct hwoffload_req_record *rec)
{
	struct hwoffload_req_log *log = &hw->req_log;
	struct hwoffload_req_record *slot;

	spin_lock_bh(&log->lock);
	slot = &log->records[log->seq % HWOFFLOAD_REQ_LOG];
	*slot = *rec;
	slot->seq = ++log->seq;
	spin_unlock_bh(&log->lock);
}

static int hwoffload_requests_show(struct seq_file *m, void *unused)
{
	struct hwoffload_dev *hw = m->private;
	struct hwoffload_req_log *log = &hw->req_log;
	struct hwoffload_req_record *copy, *r;
	u64 first, seq;

	/* copied out under the lock, printed without it */
	copy = kmalloc_array(HWOFFLOAD_REQ_LOG, sizeof(*copy), GFP_KERNEL);
	if (!copy)
		return -ENOMEM;
	spin_lock_bh(&log->lock);
	memcpy(copy, log->records, sizeof(log->records));
	seq = log->seq;
	spin_unlock_bh(&log->lock);
	first = seq > HWOFFLOAD_REQ_LOG ? seq - HWOFFLOAD_REQ_LOG : 0;
	for (; first < seq; first++) {
		r = &copy[first % HWOFFLOAD_REQ_LOG];
		seq_printf(m, "%llu %s %u %d %d %llu %llu %llu %llu %llu %llu %llu\n", r->seq,
			   hwoffload_paths[r->path].name, r->len, r->decrypt, r->err,
			   r->times.enter, r->times.start, r->times.doorbell, r->times.seen,
			   r->times.thread, r->times.done, r->times.engine_ns);
	}
	kfree(copy);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hwoffload_requests);

static int hwoffload_roundtrip_show(struct seq_file *m, void *unused)
{
	struct hwoffload_dev *hw = m->private;
	struct hwoffload_req_times pio = {}, dma = {};
	int ret;

	/* a request in flight: the unbind waits for it */
	if (!hwoffload_dev_get(hw->generation))
		return -ENODEV;
	ret = pm_runtime_resume_and_get(hw->dev);
	if (!ret) {
		ret = hwoffload_pio_probe(hw, &pio);
		if (!ret)
			ret = hwoffload_dma_probe(hw, &dma);
		pm_runtime_mark_last_busy(hw->dev);
		pm_runtime_put_autosuspend(hw->dev);
	}
	hwoffload_dev_put(hw);
	if (ret)
		return ret;
	seq_printf(m, "pio_polled_ns: %llu\npio_engine_ns: %llu\n", pio.seen - pio.doorbell,
		   pio.engine_ns);
	seq_printf(m, "dma_interrupt_ns: %llu\ndma_thread_ns: %llu\ndma_engine_ns: %llu\n",
		   dma.seen - dma.doorbell, dma.thread - dma.seen, dma.engine_ns);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hwoffload_roundtrip);

static int hwoffload_fault_get(void *data, u64 *val)
{
	struct hwoffload_fault_knob *knob = data;

	*val = hwoffload_read(knob->hw, knob->reg);
	return 0;
}

static int hwoffload_fault_set(void *data, u64 val)
{
	struct hwoffload_fault_knob *knob = data;

	if (val > U32_MAX)
		return -EINVAL;
	hwoffload_write(knob->hw, knob->reg, val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(hwoffload_fault_fops, hwoffload_fault_get, hwoffload_fault_set, "%llu\n");

void hwoffload_debugfs_init(struct hwoffload_dev *hw)
{
	int i;

	hw->debugfs = debugfs_create_dir(dev_name(hw->dev), hwoffload_debugfs_root);
	spin_lock_init(&hw->req_log.lock);
	debugfs_create_file("stats", 0444, hw->debugfs, hw, &hwoffload_stats_fops);
	debugfs_create_file("requests", 0444, hw->debugfs, hw, &hwoffload_requests_fops);
	debugfs_create_file("roundtrip", 0400, hw->debugfs, hw, &hwoffload_roundtrip_fops);
	debugfs_create_bool("chain", 0600, hw->debugfs, &hw->dma_chain);
	if (!(hw->caps & HWE_CAP_FAULT_INJECTION))
		return;
	for (i = 0; i < HWOFFLOAD_FAULT_KNOBS; i++) {
		hw->fault_knobs[i].hw = hw;
		hw->fault_knobs[i].reg = hwoffload_fault_regs[i].reg;
		debugfs_create_file_unsafe(hwoffload_fault_regs[i].name, 0600, hw->debugfs,
					   &hw->fault_knobs[i], &hwoffload_fault_fops);
	}
}

void hwoffload_debugfs_exit(struct hwoffload_dev *hw)
{
	debugfs_remove_recursive(hw->debugfs);
}

/*
 * The software tiers' implementations, for debugfs "software", by algorithm name (a hash row
 * has two: NAME and hmac(NAME)); an empty name: a free slot.
 */
static DEFINE_SPINLOCK(hwoffload_software_lock);
static struct {
	char name[CRYPTO_MAX_ALG_NAME];
	char driver[CRYPTO_MAX_ALG_NAME];
} hwoffload_software_impls[2 * HWOFFLOAD_ALG_COUNT];

void hwoffload_debugfs_software(struct crypto_tfm *software)
{
	const char *name = crypto_tfm_alg_name(software);
	unsigned int i;

	spin_lock(&hwoffload_software_lock);
	for (i = 0; i < ARRAY_SIZE(hwoffload_software_impls); i++) {
		if (hwoffload_software_impls[i].name[0] &&
		    strcmp(hwoffload_software_impls[i].name, name))
			continue;
		strscpy(hwoffload_software_impls[i].name, name, CRYPTO_MAX_ALG_NAME);
		strscpy(hwoffload_software_impls[i].driver, crypto_tfm_alg_driver_name(software),
			CRYPTO_MAX_ALG_NAME);
		break;
	}
	spin_unlock(&hwoffload_software_lock);
}

static int hwoffload_software_show(struct seq_file *m, void *v)
{
	unsigned int i;

	spin_lock(&hwoffload_software_lock);
	for (i = 0; i < ARRAY_SIZE(hwoffload_software_impls); i++)
		if (hwoffload_software_impls[i].name[0])
			seq_printf(m, "%s %s\n", hwoffload_software_impls[i].name,
				   hwoffload_software_impls[i].driver);
	spin_unlock(&hwoffload_software_lock);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(hwoffload_software);

void hwoffload_debugfs_module_init(void)
{
	hwoffload_debugfs_root = debugfs_create_dir(HWOFFLOAD_DRIVER_NAME, NULL);
	debugfs_create_file("software", 0444, hwoffload_debugfs_root, NULL,
			    &hwoffload_software_fops);
	debugfs_create_atomic_t("pinned_pages", 0444, hwoffload_debugfs_root,
				&hwoffload_device_pinned_pages);
}

void hwoffload_debugfs_module_exit(void)
{
	debugfs_remove_recursive(hwoffload_debugfs_root);
}
