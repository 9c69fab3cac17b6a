// SPDX-License-Identifier: GPL-2.0
/*
 * hwoffload core: identification, bring-up and teardown, reset and recovery of the engine,
 * independent of the bus that carries it (hwoffload-pci.c is the PCI glue).
 *
 * Bring-up order: identify, latch the ring by a reset (hwoff_core_init), the bus glue enables
 * MSI-X and requests the interrupt, then interrupts on, crypto_engine, debugfs and, last, the
 * algorithms (hwoff_core_start): their self-tests run through the engine at registration.
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
	ret = hwoff_algs_register(hw);
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
	hwoff_algs_unregister(hw);
	hwoff_debugfs_exit(hw);
	crypto_engine_exit(hw->engine);
}
