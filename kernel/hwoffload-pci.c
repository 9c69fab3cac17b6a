// SPDX-License-Identifier: GPL-2.0
/*
 * hwoffload PCI glue: the engine behind QEMU's ivshmem-doorbell device (1af4:1110). BAR0 holds
 * the doorbell, BAR1 the MSI-X table and BAR2 the engine. Other ivshmem devices share the id:
 * probe leaves them alone when BAR2 does not identify the engine (hwoff_core_init).
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pm_runtime.h>

#include "hwoffload.h"

#define HWOFF_IVSHMEM_DOORBELL		0x0c	/* BAR0: peer << 16 | vector */
#define HWOFF_AUTOSUSPEND_MS		1000

static int hwoff_pci_map(struct pci_dev *pdev, struct hwoff_dev *hw)
{
	resource_size_t bar2 = pci_resource_start(pdev, 2);
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pcim_iomap_regions(pdev, BIT(0), HWOFF_DRIVER_NAME);
	if (ret)
		return ret;
	hw->doorbell = pcim_iomap_table(pdev)[0] + HWOFF_IVSHMEM_DOORBELL;
	if (pci_resource_len(pdev, 2) < HWOFF_BAR2_SIZE)
		return -ENODEV;
	if (!devm_request_mem_region(&pdev->dev, bar2, HWOFF_BAR2_SIZE, HWOFF_DRIVER_NAME))
		return -EBUSY;
	/* write-back, for atomics on the words with two writers (ENGINE.md section 1) */
	hw->regs = devm_memremap(&pdev->dev, bar2, HWOFF_BAR2_SIZE, MEMREMAP_WB);
	if (IS_ERR(hw->regs))
		return PTR_ERR(hw->regs);
	pci_set_master(pdev);
	return 0;
}

static int hwoff_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct device *dev = &pdev->dev;
	struct hwoff_dev *hw;
	int ret;

	hw = devm_kzalloc(dev, sizeof(*hw), GFP_KERNEL);
	if (!hw)
		return -ENOMEM;
	hw->dev = dev;
	pci_set_drvdata(pdev, hw);
	ret = hwoff_pci_map(pdev, hw);
	if (ret)
		return ret;
	ret = hwoff_core_init(hw);
	if (ret)
		return ret;

	/* MSI-X before any INT_ENABLE bit: QEMU drops messages sent earlier. */
	ret = pci_alloc_irq_vectors(pdev, HWOFF_MIN_VECTORS, HWOFF_MIN_VECTORS, PCI_IRQ_MSIX);
	if (ret < 0)
		goto err_core_exit;
	hw->dma_irq = pci_irq_vector(pdev, HWOFF_MSIX_DMA);
	ret = devm_request_threaded_irq(dev, hw->dma_irq, hwoff_dma_irq, hwoff_dma_irq_thread, 0,
					dev_name(dev), hw);
	if (ret)
		goto err_core_exit;

	ret = hwoff_core_start(hw);
	if (ret)
		goto err_core_exit;

	pm_runtime_set_autosuspend_delay(dev, HWOFF_AUTOSUSPEND_MS);
	pm_runtime_use_autosuspend(dev);
	/* drop the reference the PCI core took for probe; transforms take their own */
	pm_runtime_put_noidle(dev);
	pm_runtime_allow(dev);
	return 0;

err_core_exit:
	hwoff_core_exit(hw);
	return ret;
}

static void hwoff_pci_remove(struct pci_dev *pdev)
{
	struct hwoff_dev *hw = pci_get_drvdata(pdev);
	struct device *dev = &pdev->dev;

	pm_runtime_forbid(dev);
	pm_runtime_get_noresume(dev);
	pm_runtime_dont_use_autosuspend(dev);
	hwoff_core_stop(hw);
	hwoff_core_exit(hw);
}

/*
 * The emulated engine has no clock or power to gate (a SoC driver would gate its clock here):
 * the transitions are only counted.
 */
static int hwoff_pci_runtime_suspend(struct device *dev)
{
	struct hwoff_dev *hw = dev_get_drvdata(dev);

	hwoff_stat_inc(hw, HWOFF_STAT_PM_SUSPENDS);
	return 0;
}

static int hwoff_pci_runtime_resume(struct device *dev)
{
	struct hwoff_dev *hw = dev_get_drvdata(dev);

	hwoff_stat_inc(hw, HWOFF_STAT_PM_RESUMES);
	return 0;
}

static const struct dev_pm_ops hwoff_pci_pm_ops = {
	RUNTIME_PM_OPS(hwoff_pci_runtime_suspend, hwoff_pci_runtime_resume, NULL)
};

static const struct pci_device_id hwoff_pci_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110) },	/* ivshmem */
	{ }
};
MODULE_DEVICE_TABLE(pci, hwoff_pci_ids);

static struct pci_driver hwoff_pci_driver = {
	.name = HWOFF_DRIVER_NAME,
	.id_table = hwoff_pci_ids,
	.probe = hwoff_pci_probe,
	.remove = hwoff_pci_remove,
	.dev_groups = hwoff_attr_groups,
	.driver.pm = pm_ptr(&hwoff_pci_pm_ops),
};

static int __init hwoff_module_init(void)
{
	int ret;

	hwoff_debugfs_module_init();
	ret = pci_register_driver(&hwoff_pci_driver);
	if (ret)
		hwoff_debugfs_module_exit();
	return ret;
}
module_init(hwoff_module_init);

static void __exit hwoff_module_exit(void)
{
	pci_unregister_driver(&hwoff_pci_driver);
	hwoff_algs_unregister();
	hwoff_debugfs_module_exit();
}
module_exit(hwoff_module_exit);

MODULE_DESCRIPTION("hwoffload AES engine (ECB, CBC, CTR by PIO and DMA)");
MODULE_LICENSE("GPL");
