// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwoffload core: identification, the descriptor ring, bring-up and teardown, reset and
 * recovery of the engine, independent of the bus that carries it (hwoffload-pci.c is the PCI
 * glue), and the registration of the algorithms.
 *
 * Bring-up order: identify, allocate the ring and latch it by a reset (hwoffload_core_init), the
 * bus glue enables MSI-X and requests the interrupt, then interrupts on, crypto_engine, debugfs
 * and, last, the device is bound behind the algorithms, which the first device with the
 * capabilities of a type registers (hwoffload_core_start): their self-tests run through the
 * engine at registration. Unbinding is the reverse (hwoffload_core_stop): see "Lifetime" in
 * hwoffload.h.
 */
#include <linux/dma-mapping.h>
#include <linux/iopoll.h>
#include <linux/module.h>

#include "hwoffload.h"

unsigned int hwoffload_timeout_ms = 2000;
module_param_named(timeout_ms, hwoffload_timeout_ms, uint, 0644);
MODULE_PARM_DESC(timeout_ms, "time limit of every wait on the engine: PIO, DMA, reset (ms)");

/*
 * The AES auto drivers' priority, read when the algorithms register (the first engine bound).
 * It decides for every kernel user that asks for the algorithm by name (kernel TLS, IPsec,
 * dm-crypt), not for AF_ALG users alone: the default sits above the kernel's C code (100-170)
 * and below AES-NI's drivers (400 and more), so that a CPU with AES instructions keeps them.
 * doc/driver.md, "Priority".
 */
int hwoffload_priority = 300;
module_param_named(priority, hwoffload_priority, int, 0444);
MODULE_PARM_DESC(priority, "AES auto drivers' priority; DMA, PIO drivers' 10, 20 below (300)");

/*
 * The hash auto drivers' priority, read as hwoffload_priority is; 0 (the default): 10 below the
 * kernel's generic C driver of each hash, so that the kernel keeps its own hashes for every
 * kernel user that asks by name, and the engine is taken by driver name. doc/driver.md,
 * "Priority".
 */
int hwoffload_hash_priority;
module_param_named(hash_priority, hwoffload_hash_priority, int, 0444);
MODULE_PARM_DESC(hash_priority,
		 "hash auto drivers' priority; DMA, PIO drivers' 10, 20 below (0: below generic)");

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

/*
 * The descriptor ring and its slots, in coherent memory, written into the ring registers: the
 * next reset latches them (ENGINE.md section 6).
 */
static int hwoffload_ring_init(struct hwoffload_dev *hw)
{
	struct hwoffload_ring *ring = &hw->ring;

	BUILD_BUG_ON(sizeof(struct hwe_desc) != 32);
	BUILD_BUG_ON(sizeof(struct hwe_aes_ctx) != 64);
	BUILD_BUG_ON(!is_power_of_2(HWOFFLOAD_RING_ENTRIES) ||
		     HWOFFLOAD_RING_ENTRIES > HWE_RING_MAX_ENTRIES);
	BUILD_BUG_ON(HWOFFLOAD_MAX_DATA_DESCS + 2 > HWOFFLOAD_RING_ENTRIES);

	/* Coherent allocations are page-aligned: more than HWE_RING_ALIGN. */
	ring->desc = dmam_alloc_coherent(hw->dev, HWOFFLOAD_RING_ENTRIES * sizeof(*ring->desc),
					 &ring->desc_dma, GFP_KERNEL);
	if (!ring->desc)
		return -ENOMEM;
	ring->slots = dmam_alloc_coherent(hw->dev, HWOFFLOAD_RING_ENTRIES * sizeof(*ring->slots),
					  &ring->slots_dma, GFP_KERNEL);
	if (!ring->slots)
		return -ENOMEM;
	spin_lock_init(&ring->lock);
	INIT_LIST_HEAD(&ring->pending);
	init_waitqueue_head(&ring->space);
	hw->dma_chain = true;

	/* Go on from the HEAD a previous driver left: the reset makes CUR equal to it. */
	ring->head = hwoffload_read(hw, HWE_REG_RING_HEAD);
	ring->tail = ring->head;
	hwoffload_write64(hw, HWE_REG_RING_BASE, ring->desc_dma);
	hwoffload_write(hw, HWE_REG_RING_SIZE, HWOFFLOAD_RING_ENTRIES);
	return 0;
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
	for (i = 0; i < HWOFFLOAD_ALG_COUNT; i++)
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

/* The algorithm types, in the order they register; each is registered once, for the module. */
static const struct hwoffload_alg_type *const hwoffload_alg_types[] = {
	&hwoffload_skcipher_type,
	&hwoffload_hash_type,
	&hwoffload_aead_type,
};

static bool hwoffload_alg_types_registered[ARRAY_SIZE(hwoffload_alg_types)];

/*
 * Register the types not registered yet whose capabilities @hw has: their self-tests run on
 * @hw, the device bound. An engine without the hash unit or GCM still serves the rest, and a
 * later one with them adds them. Serialized by binding: one device is bound at a time.
 */
static int hwoffload_algs_register(struct hwoffload_dev *hw)
{
	const struct hwoffload_alg_type *type;
	unsigned int i;
	int ret;

	for (i = 0; i < ARRAY_SIZE(hwoffload_alg_types); i++) {
		type = hwoffload_alg_types[i];
		if (hwoffload_alg_types_registered[i] || (hw->caps & type->caps) != type->caps)
			continue;
		ret = type->register_algs();
		if (ret) {
			dev_err(hw->dev, "cannot register the %s algorithms: %d\n", type->name,
				ret);
			return ret;
		}
		hwoffload_alg_types_registered[i] = true;
	}
	return 0;
}

/* At module exit: no transform is left (hwoffload.h, "Lifetime"). */
void hwoffload_algs_unregister(void)
{
	unsigned int i = ARRAY_SIZE(hwoffload_alg_types);

	while (i--) {
		if (hwoffload_alg_types_registered[i])
			hwoffload_alg_types[i]->unregister_algs();
		hwoffload_alg_types_registered[i] = false;
	}
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
	ret = hwoffload_algs_register(hw);
	if (ret)
		goto err_unbind;
	ret = hwoffload_device_add(hw);
	if (ret)
		goto err_unbind;
	return 0;

err_unbind:
	hwoffload_unbind(hw);
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
	hwoffload_device_remove(hw);
	hwoffload_unbind(hw);
	hwoffload_device_exit(hw);
	hwoffload_debugfs_exit(hw);
	crypto_engine_exit(hw->engine);
}

