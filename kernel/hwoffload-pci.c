// SPDX-License-Identifier: GPL-2.0-only
/*
 * hwoffload PCI glue: the engine behind QEMU's ivshmem-doorbell device (1af4:1110). BAR0 holds
 * the doorbell, BAR1 the MSI-X table and BAR2 the engine. Other ivshmem devices share the id:
 * probe leaves them alone when BAR2 does not identify the engine (hwoffload_core_init).
 */
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/pm_runtime.h>

#include "hwoffload.h"

#define HWOFFLOAD_IVSHMEM_DOORBELL	0x0c	/* BAR0: peer << 16 | vector */
#define HWOFFLOAD_AUTOSUSPEND_MS	1000

static int hwoffload_pci_map(struct pci_dev *pdev, struct hwoffload_dev *hw)
{
	resource_size_t bar2 = pci_resource_start(pdev, 2);
	int ret;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	ret = pcim_iomap_regions(pdev, BIT(0), HWOFFLOAD_DRIVER_NAME);
	if (ret)
		return ret;
	hw->doorbell = pcim_iomap_table(pdev)[0] + HWOFFLOAD_IVSHMEM_DOORBELL;
	if (pci_resource_len(pdev, 2) < HWE_BAR2_SIZE)
		return -ENODEV;
	if (!devm_request_mem_region(&pdev->dev, bar2, HWE_BAR2_SIZE, HWOFFLOAD_DRIVER_NAME))
		return -EBUSY;
	/* write-back, for atomics on the words with two writers (ENGINE.md section 1) */
	hw->regs = devm_memremap(&pdev->dev, bar2, HWE_BAR2_SIZE, MEMREMAP_WB);
	if (IS_ERR(hw->regs))
		return PTR_ERR(hw->regs);
	pci_set_master(pdev);
	return 0;
}

static int hwoffload_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	struct device *dev = &pdev->dev;
	struct hwoffload_dev *hw;
	int ret;

	hw = devm_kzalloc(dev, sizeof(*hw), GFP_KERNEL);
	if (!hw)
		return -ENOMEM;
	hw->dev = dev;
	pci_set_drvdata(pdev, hw);
	ret = hwoffload_pci_map(pdev, hw);
	if (ret)
		return ret;
	ret = hwoffload_core_init(hw);
	if (ret)
		return ret;

	/* MSI-X before any INT_ENABLE bit: QEMU drops messages sent earlier. */
	ret = pci_alloc_irq_vectors(pdev, HWE_MIN_VECTORS, HWE_MIN_VECTORS, PCI_IRQ_MSIX);
	if (ret < 0)
		goto err_core_exit;
	hw->dma_irq = pci_irq_vector(pdev, HWE_MSIX_DMA);
	ret = devm_request_threaded_irq(dev, hw->dma_irq, hwoffload_dma_irq,
					hwoffload_dma_irq_thread, 0, dev_name(dev), hw);
	if (ret)
		goto err_core_exit;

	ret = hwoffload_core_start(hw);
	if (ret)
		goto err_core_exit;

	pm_runtime_set_autosuspend_delay(dev, HWOFFLOAD_AUTOSUSPEND_MS);
	pm_runtime_use_autosuspend(dev);
	/* drop the reference the PCI core took for probe; transforms take their own */
	pm_runtime_put_noidle(dev);
	pm_runtime_allow(dev);
	return 0;

err_core_exit:
	hwoffload_core_exit(hw);
	return ret;
}

static void hwoffload_pci_remove(struct pci_dev *pdev)
{
	struct hwoffload_dev *hw = pci_get_drvdata(pdev);
	struct device *dev = &pdev->dev;

	pm_runtime_forbid(dev);
	pm_runtime_get_noresume(dev);
	pm_runtime_dont_use_autosuspend(dev);
	hwoffload_core_stop(hw);
	hwoffload_core_exit(hw);
}

/*
 * The emulated engine has no clock or power to gate (a SoC driver would gate its clock here):
 * the transitions are only counted.
 */
static int hwoffload_pci_runtime_suspend(struct device *dev)
{
	struct hwoffload_dev *hw = dev_get_drvdata(dev);

	hwoffload_stat_inc(hw, HWOFFLOAD_STAT_PM_SUSPENDS);
	return 0;
}

static int hwoffload_pci_runtime_resume(struct device *dev)
{
	struct hwoffload_dev *hw = dev_get_drvdata(dev);

	hwoffload_stat_inc(hw, HWOFFLOAD_STAT_PM_RESUMES);
	return 0;
}

static const struct dev_pm_ops hwoffload_pci_pm_ops = {
	RUNTIME_PM_OPS(hwoffload_pci_runtime_suspend, hwoffload_pci_runtime_resume, NULL)
};

static const struct pci_device_id hwoffload_pci_ids[] = {
	{ PCI_DEVICE(PCI_VENDOR_ID_REDHAT_QUMRANET, 0x1110) },	/* ivshmem */
	{ }
};
MODULE_DEVICE_TABLE(pci, hwoffload_pci_ids);

static struct pci_driver hwoffload_pci_driver = {
	.name = HWOFFLOAD_DRIVER_NAME,
	.id_table = hwoffload_pci_ids,
	.probe = hwoffload_pci_probe,
	.remove = hwoffload_pci_remove,
	.dev_groups = hwoffload_attr_groups,
	.driver.pm = pm_ptr(&hwoffload_pci_pm_ops),
};

static int __init hwoffload_module_init(void)
{
	int ret;

	hwoffload_debugfs_module_init();
	ret = pci_register_driver(&hwoffload_pci_driver);
	if (ret)
		hwoffload_debugfs_module_exit();
	return ret;
}
module_init(hwoffload_module_init);

static void __exit hwoffload_module_exit(void)
{
	pci_unregister_driver(&hwoffload_pci_driver);
	hwoffload_algs_unregister();
	hwoffload_debugfs_module_exit();
}
module_exit(hwoffload_module_exit);

MODULE_DESCRIPTION("hwoffload AES engine (ECB, CBC, CTR by PIO and DMA)");
MODULE_LICENSE("GPL");
