// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwoffload core: identification, bring-up and teardown, reset and recovery of the engine,
 * independent of the bus that carries it (hwoffload-pci.c is the PCI glue).
 *
 * Bring-up order: identify, latch the ring by a reset (hwoffload_core_init), the bus glue enables
 * MSI-X and requests the interrupt, then interrupts on, crypto_engine, debugfs and, last, the
 * device is bound behind the algorithms, which the first device registers (hwoffload_core_start):
 * their self-tests run through the engine at registration. Unbinding is the reverse
 * (hwoffload_core_stop): see "Lifetime" in hwoffload.h.
 */
#include <linux/dma-mapping.h>
#include <linux/iopoll.h>
#include <linux/module.h>

#include "hwoffload.h"

unsigned int hwoffload_timeout_ms = 2000;
module_param_named(timeout_ms, hwoffload_timeout_ms, uint, 0644);
MODULE_PARM_DESC(timeout_ms, "time limit of every wait on the engine: PIO, DMA, reset (ms)");

#define HWOFFLOAD_RESET_POLL_US		10

static int hwoffload_identify(struct hwoffload_dev *hw)
{
	const u32 needed = HWE_CAP_AES_ECB | HWE_CAP_AES_CBC | HWE_CAP_AES_CTR |
			   HWE_CAP_PIO | HWE_CAP_DMA;
	u32 version;

	/* Any ivshmem device has this PCI id: only BAR2 tells whether it is the engine. */
	if (hwoffload_read(hw, HWE_REG_ID) != HWE_ID_MAGIC)
		return -ENODEV;
	version = hwoffload_read(hw, HWE_REG_VERSION);
	if (version >> 16 != HWE_VERSION_MAJOR) {
		dev_err(hw->dev, "engine version %u.%u not supported\n", version >> 16,
			version & 0xffff);
		return -ENODEV;
	}
	hw->caps = hwoffload_read(hw, HWE_REG_CAPS);
	if ((hw->caps & needed) != needed) {
		dev_err(hw->dev, "engine lacks capabilities %#x\n", needed & ~hw->caps);
		return -ENODEV;
	}
	if (hwoffload_read(hw, HWE_REG_FIFO_DEPTH) != HWE_FIFO_DEPTH ||
	    hwoffload_read(hw, HWE_REG_DMA_ALIGN) != HWE_DMA_ALIGN ||
	    hwoffload_read(hw, HWE_REG_DMA_MAX_LEN) < HWE_DMA_MAX_LEN ||
	    hwoffload_read(hw, HWE_REG_RING_MAX) < HWOFFLOAD_RING_ENTRIES) {
		dev_err(hw->dev, "engine geometry not supported\n");
		return -ENODEV;
	}
	hw->peer_id = hwoffload_read(hw, HWE_REG_PEER_ID);
	dev_info(hw->dev, "engine %u.%u, capabilities %#x\n", version >> 16, version & 0xffff,
		 hw->caps);
	return 0;
}

/*
 * Reset the engine (ENGINE.md section 7) and fail what the ring still held: the reset drops it.
 * Marks the device dead if the engine does not answer.
 */
int hwoffload_reset_locked(struct hwoffload_dev *hw)
{
	u32 ctrl;
	int ret;

	lockdep_assert_held(&hw->hw_lock);
	atomic_or(HWE_CTRL_RESET, hwoffload_reg_atomic(hw, HWE_REG_CTRL));
	hwoffload_ring_doorbell(hw, HWE_DB_PIO);
	ret = read_poll_timeout(hwoffload_read, ctrl, !(ctrl & HWE_CTRL_RESET),
				HWOFFLOAD_RESET_POLL_US, hwoffload_timeout_ms * USEC_PER_MSEC,
				false, hw, HWE_REG_CTRL);
	hwoffload_stat_inc(hw, HWOFFLOAD_STAT_RESETS);
	if (ret) {
		hw->dead = true;
		hwoffload_stat_inc(hw, HWOFFLOAD_STAT_RESET_FAILURES);
		dev_err(hw->dev, "engine does not answer a reset: offload stopped\n");
	}
	hwoffload_dma_complete(hw, hw->dead, 0);
	return ret;
}

int hwoffload_core_init(struct hwoffload_dev *hw)
{
	unsigned int i;
	int ret;

	/* INT_STATUS and CTRL are updated with atomic_t operations on little-endian words. */
	BUILD_BUG_ON(IS_ENABLED(CONFIG_CPU_BIG_ENDIAN));

	ret = hwoffload_identify(hw);
	if (ret)
		return ret;
	/* The engine reaches all of guest RAM by guest-physical address. */
	ret = dma_set_mask_and_coherent(hw->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	mutex_init(&hw->hw_lock);
	INIT_DELAYED_WORK(&hw->timeout_work, hwoffload_dma_timeout_work);
	hw->irq_cpu = -1;
	for (i = 0; i < HWOFFLOAD_THRESHOLD_COUNT; i++)
		hw->threshold[i] = HWOFFLOAD_DEFAULT_THRESHOLD;

	/* A previous driver may have left sources enabled; MSI-X is not on yet. */
	hwoffload_write(hw, HWE_REG_INT_ENABLE, 0);
	ret = hwoffload_ring_init(hw);
	if (ret)
		return ret;
	hw->pio_seq = hwoffload_read(hw, HWE_REG_PIO_SEQ);

	mutex_lock(&hw->hw_lock);
	ret = hwoffload_reset_locked(hw);
	mutex_unlock(&hw->hw_lock);
	if (ret)
		return ret;
	if (!(hwoffload_read(hw, HWE_REG_STATUS) & HWE_STATUS_RING_VALID)) {
		dev_err(hw->dev, "engine refused the descriptor ring\n");
		hwoffload_core_exit(hw);
		return -EIO;
	}
	return 0;
}

/*
 * Quiesce: no interrupt, no timeout work, and the ring unlatched before its memory goes back
 * to the allocator.
 */
void hwoffload_core_exit(struct hwoffload_dev *hw)
{
	hwoffload_write(hw, HWE_REG_INT_ENABLE, 0);
	if (hw->dma_irq > 0) {
		synchronize_irq(hw->dma_irq);
		irq_update_affinity_hint(hw->dma_irq, NULL);
	}
	cancel_delayed_work_sync(&hw->timeout_work);
	hwoffload_write(hw, HWE_REG_RING_SIZE, 0);
	mutex_lock(&hw->hw_lock);
	hwoffload_reset_locked(hw);
	mutex_unlock(&hw->hw_lock);
}

int hwoffload_core_start(struct hwoffload_dev *hw)
{
	int ret;

	/*
	 * The reset cleared INT_STATUS and nothing is published yet, so no completion can be
	 * lost to enabling the source now (ENGINE.md section 3).
	 */
	hwoffload_write(hw, HWE_REG_INT_ENABLE, HWE_INT_DMA_DONE | HWE_INT_DMA_ERROR);

	/* retry_support: do_one_request only publishes a DMA request; the interrupt finishes it. */
	hw->engine =
		crypto_engine_alloc_init_and_set(hw->dev, true, NULL, false, HWOFFLOAD_QUEUE_LEN);
	if (!hw->engine) {
		ret = -ENOMEM;
		goto err_disable_interrupts;
	}
	ret = crypto_engine_start(hw->engine);
	if (ret)
		goto err_engine_exit;
	hwoffload_debugfs_init(hw);
	ret = hwoffload_bind(hw);
	if (ret)
		goto err_debugfs_exit;
	return 0;

err_debugfs_exit:
	hwoffload_debugfs_exit(hw);
err_engine_exit:
	crypto_engine_exit(hw->engine);
err_disable_interrupts:
	hwoffload_write(hw, HWE_REG_INT_ENABLE, 0);
	return ret;
}

void hwoffload_core_stop(struct hwoffload_dev *hw)
{
	hwoffload_unbind(hw);
	hwoffload_debugfs_exit(hw);
	crypto_engine_exit(hw->engine);
}

/* The device behind the algorithms, if any; its generation is never 0. */
static DEFINE_MUTEX(hwoffload_bind_lock); /* hwoffload_bound, hwoffload_generation, sessions */
static struct hwoffload_dev __rcu *hwoffload_bound;
static unsigned long hwoffload_generation;

/*
 * Put @hw behind the algorithms, registering those not registered yet: the self-tests then
 * run on @hw. One engine at a time: the algorithms' names are the driver's.
 */
int hwoffload_bind(struct hwoffload_dev *hw)
{
	int ret;

	atomic_set(&hw->inflight, 0);
	mutex_lock(&hwoffload_bind_lock);
	if (rcu_access_pointer(hwoffload_bound)) {
		mutex_unlock(&hwoffload_bind_lock);
		dev_err(hw->dev, "another engine is bound: one at a time\n");
		return -EBUSY;
	}
	hw->generation = ++hwoffload_generation;
	rcu_assign_pointer(hwoffload_bound, hw);
	mutex_unlock(&hwoffload_bind_lock);

	ret = hwoffload_algs_register(hw);
	if (ret)
		hwoffload_unbind(hw);
	return ret;
}

/*
 * Take @hw from behind the algorithms: the transforms attached to it lose it (their runtime PM
 * references go back now), requests not started fail with -ENODEV, started ones finish. On
 * return no request uses @hw any more.
 */
void hwoffload_unbind(struct hwoffload_dev *hw)
{
	mutex_lock(&hwoffload_bind_lock);
	RCU_INIT_POINTER(hwoffload_bound, NULL);
	for (; hw->sessions; hw->sessions--)
		pm_runtime_put_noidle(hw->dev);
	mutex_unlock(&hwoffload_bind_lock);
	WRITE_ONCE(hw->unbound, true);
	/* after this, hwoffload_dev_get() no longer returns @hw */
	synchronize_rcu();
	wait_var_event(&hw->inflight, !atomic_read(&hw->inflight));
}

/*
 * A new transform attaches to the bound device, which must have @caps: it holds a runtime PM
 * reference on it until it is freed or the device is unbound. Its requests go to that device
 * only (hwoffload_dev_get).
 */
int hwoffload_tfm_attach(unsigned long *generation, u32 caps)
{
	struct hwoffload_dev *hw;
	int ret = -ENODEV;

	mutex_lock(&hwoffload_bind_lock);
	hw = rcu_dereference_protected(hwoffload_bound, lockdep_is_held(&hwoffload_bind_lock));
	if (hw && (hw->caps & caps) == caps)
		ret = pm_runtime_resume_and_get(hw->dev);
	if (!ret) {
		hw->sessions++;
		*generation = hw->generation;
	}
	mutex_unlock(&hwoffload_bind_lock);
	return ret;
}

/* A transform is freed: its runtime PM reference goes back, unless hwoffload_unbind() took it. */
void hwoffload_tfm_detach(unsigned long generation)
{
	struct hwoffload_dev *hw;

	mutex_lock(&hwoffload_bind_lock);
	hw = rcu_dereference_protected(hwoffload_bound, lockdep_is_held(&hwoffload_bind_lock));
	if (hw && hw->generation == generation) {
		hw->sessions--;
		pm_runtime_mark_last_busy(hw->dev);
		pm_runtime_put_autosuspend(hw->dev);
	}
	mutex_unlock(&hwoffload_bind_lock);
}

/*
 * The device of a transform attached at @generation, for one request until hwoffload_dev_put(),
 * or NULL (-ENODEV) when it is unbound: a device bound since is a new session, which holds no
 * runtime PM reference of the transform's.
 */
struct hwoffload_dev *hwoffload_dev_get(unsigned long generation)
{
	struct hwoffload_dev *hw;

	rcu_read_lock();
	hw = rcu_dereference(hwoffload_bound);
	if (hw && hw->generation == generation)
		atomic_inc(&hw->inflight);
	else
		hw = NULL;
	rcu_read_unlock();
	return hw;
}

/*
 * A request is finalized: after the last, hwoffload_unbind() returns (only @hw's address is
 * used).
 */
void hwoffload_dev_put(struct hwoffload_dev *hw)
{
	if (atomic_dec_and_test(&hw->inflight))
		wake_up_var(&hw->inflight);
}

/*
 * Whether a request on @path runs in its caller (hwoffload.h, "Synchronous requests"), counted
 * in pio_sync or dma_sync: both take hw_lock and may sleep, and a request handed to
 * crypto_engine before it starts first, as in the queue (a caller may chain requests through
 * one IV buffer without waiting for each). DMA also needs a caller that waits for the result
 * anyway: an AIO batch is published from the queue, where its requests chain into one walk.
 */
bool hwoffload_run_sync(struct hwoffload_dev *hw, struct crypto_async_request *base,
			enum hwoffload_path path)
{
	bool dma = path == HWOFFLOAD_PATH_DMA;

	if (!(base->flags & CRYPTO_TFM_REQ_MAY_SLEEP) || (dma && base->complete != crypto_req_done))
		return false;
	/* acquire: what the last queued request wrote (its IV out) before it left the count */
	if (atomic_read_acquire(&hw->queued))
		return false;
	hwoffload_stat_inc(hw, dma ? HWOFFLOAD_STAT_DMA_SYNC : HWOFFLOAD_STAT_PIO_SYNC);
	return true;
}

/* A request of @hw is about to be handed to crypto_engine: queued until it starts. */
void hwoffload_queue_enter(struct hwoffload_dev *hw)
{
	atomic_inc(&hw->queued);
}

/*
 * The hand-off's result @ret, returned: -EINPROGRESS, or -EBUSY (backlogged), and the request
 * is queued; any other and it is neither queued nor in flight.
 */
int hwoffload_queue_result(struct hwoffload_dev *hw, int ret)
{
	if (ret != -EINPROGRESS && ret != -EBUSY) {
		hwoffload_queue_leave(hw);
		hwoffload_dev_put(hw);
	}
	return ret;
}

/*
 * A queued request has started (PIO done, DMA published) or failed to: requests after it may
 * run in their callers again.
 */
void hwoffload_queue_leave(struct hwoffload_dev *hw)
{
	atomic_dec_return_release(&hw->queued);
}
