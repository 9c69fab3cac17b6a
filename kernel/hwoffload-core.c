// SPDX-License-Identifier: GPL-2.0
/*
 * hwoffload core: identification, bring-up and teardown, reset and recovery of the engine,
 * independent of the bus that carries it (hwoffload-pci.c is the PCI glue).
 *
 * Bring-up order: identify, latch the ring by a reset (hwoff_core_init), the bus glue enables
 * MSI-X and requests the interrupt, then interrupts on, crypto_engine, debugfs and, last, the
 * device is bound behind the algorithms, which the first device registers (hwoff_core_start):
 * their self-tests run through the engine at registration. Unbinding is the reverse
 * (hwoff_core_stop): see "Lifetime" in hwoffload.h.
 */
#include <linux/dma-mapping.h>
#include <linux/iopoll.h>
#include <linux/module.h>

#include "hwoffload.h"

unsigned int hwoff_timeout_ms = 2000;
module_param_named(timeout_ms, hwoff_timeout_ms, uint, 0644);
MODULE_PARM_DESC(timeout_ms, "time limit of every wait on the engine: PIO, DMA, reset (ms)");

#define HWOFF_RESET_POLL_US		10

static int hwoff_identify(struct hwoff_dev *hw)
{
	const u32 needed = HWOFF_CAP_AES_ECB | HWOFF_CAP_AES_CBC | HWOFF_CAP_AES_CTR |
			   HWOFF_CAP_PIO | HWOFF_CAP_DMA;
	u32 version;

	/* Any ivshmem device has this PCI id: only BAR2 tells whether it is the engine. */
	if (hwoff_read(hw, HWOFF_REG_ID) != HWOFF_ID_MAGIC)
		return -ENODEV;
	version = hwoff_read(hw, HWOFF_REG_VERSION);
	if (version >> 16 != HWOFF_VERSION_MAJOR) {
		dev_err(hw->dev, "engine version %u.%u not supported\n", version >> 16,
			version & 0xffff);
		return -ENODEV;
	}
	hw->caps = hwoff_read(hw, HWOFF_REG_CAPS);
	if ((hw->caps & needed) != needed) {
		dev_err(hw->dev, "engine lacks capabilities %#x\n", needed & ~hw->caps);
		return -ENODEV;
	}
	if (hwoff_read(hw, HWOFF_REG_FIFO_DEPTH) != HWOFF_FIFO_DEPTH ||
	    hwoff_read(hw, HWOFF_REG_DMA_ALIGN) != HWOFF_DMA_ALIGN ||
	    hwoff_read(hw, HWOFF_REG_DMA_MAX_LEN) < HWOFF_DMA_MAX_LEN ||
	    hwoff_read(hw, HWOFF_REG_RING_MAX) < HWOFF_RING_ENTRIES) {
		dev_err(hw->dev, "engine geometry not supported\n");
		return -ENODEV;
	}
	hw->peer_id = hwoff_read(hw, HWOFF_REG_PEER_ID);
	dev_info(hw->dev, "engine %u.%u, capabilities %#x\n", version >> 16, version & 0xffff,
		 hw->caps);
	return 0;
}

/*
 * Reset the engine (ENGINE.md section 7) and fail what the ring still held: the reset drops it.
 * Marks the device dead if the engine does not answer.
 */
int hwoff_reset_locked(struct hwoff_dev *hw)
{
	u32 ctrl;
	int ret;

	lockdep_assert_held(&hw->hw_lock);
	atomic_or(HWOFF_CTRL_RESET, hwoff_reg_atomic(hw, HWOFF_REG_CTRL));
	hwoff_ring_doorbell(hw, HWOFF_DB_PIO);
	ret = read_poll_timeout(hwoff_read, ctrl, !(ctrl & HWOFF_CTRL_RESET), HWOFF_RESET_POLL_US,
				hwoff_timeout_ms * USEC_PER_MSEC, false, hw, HWOFF_REG_CTRL);
	hwoff_stat_inc(hw, HWOFF_STAT_RESETS);
	if (ret) {
		hw->dead = true;
		hwoff_stat_inc(hw, HWOFF_STAT_RESET_FAILURES);
		dev_err(hw->dev, "engine does not answer a reset: offload stopped\n");
	}
	hwoff_dma_complete(hw, hw->dead);
	return ret;
}

int hwoff_core_init(struct hwoff_dev *hw)
{
	unsigned int i;
	int ret;

	/* INT_STATUS and CTRL are updated with atomic_t operations on little-endian words. */
	BUILD_BUG_ON(IS_ENABLED(CONFIG_CPU_BIG_ENDIAN));

	ret = hwoff_identify(hw);
	if (ret)
		return ret;
	/* The engine reaches all of guest RAM by guest-physical address. */
	ret = dma_set_mask_and_coherent(hw->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	mutex_init(&hw->hw_lock);
	INIT_DELAYED_WORK(&hw->timeout_work, hwoff_dma_timeout_work);
	hw->irq_cpu = -1;
	for (i = 0; i < HWOFF_THRESHOLD_COUNT; i++)
		hw->threshold[i] = HWOFF_DEFAULT_THRESHOLD;

	/* A previous driver may have left sources enabled; MSI-X is not on yet. */
	hwoff_write(hw, HWOFF_REG_INT_ENABLE, 0);
	ret = hwoff_ring_init(hw);
	if (ret)
		return ret;
	hw->pio_seq = hwoff_read(hw, HWOFF_REG_PIO_SEQ);

	mutex_lock(&hw->hw_lock);
	ret = hwoff_reset_locked(hw);
	mutex_unlock(&hw->hw_lock);
	if (ret)
		return ret;
	if (!(hwoff_read(hw, HWOFF_REG_STATUS) & HWOFF_STATUS_RING_VALID)) {
		dev_err(hw->dev, "engine refused the descriptor ring\n");
		hwoff_core_exit(hw);
		return -EIO;
	}
	return 0;
}

/*
 * Quiesce: no interrupt, no timeout work, and the ring unlatched before its memory goes back
 * to the allocator.
 */
void hwoff_core_exit(struct hwoff_dev *hw)
{
	hwoff_write(hw, HWOFF_REG_INT_ENABLE, 0);
	if (hw->dma_irq > 0) {
		synchronize_irq(hw->dma_irq);
		irq_update_affinity_hint(hw->dma_irq, NULL);
	}
	cancel_delayed_work_sync(&hw->timeout_work);
	hwoff_write(hw, HWOFF_REG_RING_SIZE, 0);
	mutex_lock(&hw->hw_lock);
	hwoff_reset_locked(hw);
	mutex_unlock(&hw->hw_lock);
}

int hwoff_core_start(struct hwoff_dev *hw)
{
	int ret;

	/*
	 * The reset cleared INT_STATUS and nothing is published yet, so no completion can be
	 * lost to enabling the source now (ENGINE.md section 3).
	 */
	hwoff_write(hw, HWOFF_REG_INT_ENABLE, HWOFF_INT_DMA_DONE | HWOFF_INT_DMA_ERROR);

	/* retry_support: do_one_request only publishes a DMA request; the interrupt finishes it. */
	hw->engine = crypto_engine_alloc_init_and_set(hw->dev, true, NULL, false, HWOFF_QUEUE_LEN);
	if (!hw->engine) {
		ret = -ENOMEM;
		goto err_disable_interrupts;
	}
	ret = crypto_engine_start(hw->engine);
	if (ret)
		goto err_engine_exit;
	hwoff_debugfs_init(hw);
	ret = hwoff_bind(hw);
	if (ret)
		goto err_debugfs_exit;
	return 0;

err_debugfs_exit:
	hwoff_debugfs_exit(hw);
err_engine_exit:
	crypto_engine_exit(hw->engine);
err_disable_interrupts:
	hwoff_write(hw, HWOFF_REG_INT_ENABLE, 0);
	return ret;
}

void hwoff_core_stop(struct hwoff_dev *hw)
{
	hwoff_unbind(hw);
	hwoff_debugfs_exit(hw);
	crypto_engine_exit(hw->engine);
}

/* The device behind the algorithms, if any; its generation is never 0. */
static DEFINE_MUTEX(hwoff_bind_lock);		/* hwoff_bound, hwoff_generation, sessions */
static struct hwoff_dev __rcu *hwoff_bound;
static unsigned long hwoff_generation;

/*
 * Put @hw behind the algorithms, registering those not registered yet: the self-tests then
 * run on @hw. One engine at a time: the algorithms' names are the driver's.
 */
int hwoff_bind(struct hwoff_dev *hw)
{
	int ret;

	atomic_set(&hw->inflight, 0);
	mutex_lock(&hwoff_bind_lock);
	if (rcu_access_pointer(hwoff_bound)) {
		mutex_unlock(&hwoff_bind_lock);
		dev_err(hw->dev, "another engine is bound: one at a time\n");
		return -EBUSY;
	}
	hw->generation = ++hwoff_generation;
	rcu_assign_pointer(hwoff_bound, hw);
	mutex_unlock(&hwoff_bind_lock);

	ret = hwoff_algs_register(hw);
	if (ret)
		hwoff_unbind(hw);
	return ret;
}

/*
 * Take @hw from behind the algorithms: the transforms attached to it lose it (their runtime PM
 * references go back now), requests not started fail with -ENODEV, started ones finish. On
 * return no request uses @hw any more.
 */
void hwoff_unbind(struct hwoff_dev *hw)
{
	mutex_lock(&hwoff_bind_lock);
	RCU_INIT_POINTER(hwoff_bound, NULL);
	for (; hw->sessions; hw->sessions--)
		pm_runtime_put_noidle(hw->dev);
	mutex_unlock(&hwoff_bind_lock);
	WRITE_ONCE(hw->unbound, true);
	/* after this, hwoff_dev_get() no longer returns @hw */
	synchronize_rcu();
	wait_var_event(&hw->inflight, !atomic_read(&hw->inflight));
}

/*
 * A new transform attaches to the bound device, which must have @caps: it holds a runtime PM
 * reference on it until it is freed or the device is unbound. Its requests go to that device
 * only (hwoff_dev_get).
 */
int hwoff_tfm_attach(unsigned long *generation, u32 caps)
{
	struct hwoff_dev *hw;
	int ret = -ENODEV;

	mutex_lock(&hwoff_bind_lock);
	hw = rcu_dereference_protected(hwoff_bound, lockdep_is_held(&hwoff_bind_lock));
	if (hw && (hw->caps & caps) == caps)
		ret = pm_runtime_resume_and_get(hw->dev);
	if (!ret) {
		hw->sessions++;
		*generation = hw->generation;
	}
	mutex_unlock(&hwoff_bind_lock);
	return ret;
}

/* A transform is freed: its runtime PM reference goes back, unless hwoff_unbind() took it. */
void hwoff_tfm_detach(unsigned long generation)
{
	struct hwoff_dev *hw;

	mutex_lock(&hwoff_bind_lock);
	hw = rcu_dereference_protected(hwoff_bound, lockdep_is_held(&hwoff_bind_lock));
	if (hw && hw->generation == generation) {
		hw->sessions--;
		pm_runtime_mark_last_busy(hw->dev);
		pm_runtime_put_autosuspend(hw->dev);
	}
	mutex_unlock(&hwoff_bind_lock);
}

/*
 * The device of a transform attached at @generation, for one request until hwoff_dev_put(),
 * or NULL (-ENODEV) when it is unbound: a device bound since is a new session, which holds no
 * runtime PM reference of the transform's.
 */
struct hwoff_dev *hwoff_dev_get(unsigned long generation)
{
	struct hwoff_dev *hw;

	rcu_read_lock();
	hw = rcu_dereference(hwoff_bound);
	if (hw && hw->generation == generation)
		atomic_inc(&hw->inflight);
	else
		hw = NULL;
	rcu_read_unlock();
	return hw;
}

/* A request is finalized: after the last, hwoff_unbind() returns (only @hw's address is used). */
void hwoff_dev_put(struct hwoff_dev *hw)
{
	if (atomic_dec_and_test(&hw->inflight))
		wake_up_var(&hw->inflight);
}
