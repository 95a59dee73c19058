// SPDX-License-Identifier: GPL-2.0
/*
 * axl: the device imports attach to.
 *
 * On the real board this is the Metis PCI function. metis-sim binds to
 * QEMU's "edu" PCI device (1234:11e8) instead, so dma_buf_attach() and
 * dma_buf_map_attachment() go through a real IOMMU (intel-iommu in the VM,
 * standing in for the Tegra SMMU). edu's own DMA engine is never used: the
 * engine reads frames through the kernel mapping. Without edu a platform
 * device "metis-sim" takes its place, mapped without an IOMMU.
 */
#include <linux/device.h>
#include <linux/dma-mapping.h>
#include <linux/iommu.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/platform_device.h>
#include <linux/rwsem.h>
#include <linux/sizes.h>
#include <linux/version.h>

#include "axl_drv.h"
#include "axl_metis.h"

#define AXL_EDU_VENDOR 0x1234
#define AXL_EDU_DEVICE 0x11e8

static bool bind_pci = true;
module_param(bind_pci, bool, 0444);
MODULE_PARM_DESC(bind_pci, "Bind to QEMU's edu PCI device when present (default: true)");

/*
 * The longest scatterlist segment the engine declares: it takes segments
 * of any length, and without this the DMA layer assumes 64 KiB, so
 * DMA_API_DEBUG flags every frame.
 *
 * Before Linux 6.0, DMA_API_DEBUG searches for the mapping of a sync that
 * names an address inside one (bucket_find_contain() in kernel/dma/debug.c)
 * back from the address in 8 KiB steps up to the device's maximum segment,
 * counting in 32 bits: at 4 GiB - 8 KiB or more the count wraps and the
 * search never ends when no mapping contains the address. The CMA and
 * system heaps make such syncs: their begin/end_cpu_access() sync every
 * attachment marked mapped while another CPU may be unmapping one. The
 * task then spins in the kernel for good, unkillable, holding the heap
 * buffer's lock. Upstream bounded the search in 6.0 ("dma-debug: improve
 * search for partial syncs"); until then a debug kernel gets 256 MiB, the
 * most the arm64 rig's CMA area holds, so a contiguous buffer still maps
 * as one segment and a failed search ends after 32,768 steps with the
 * "has not allocated" report (docs/rig.md has the measurements).
 */
#if IS_ENABLED(CONFIG_DMA_API_DEBUG) && LINUX_VERSION_CODE < KERNEL_VERSION(6, 0, 0)
#define AXL_MAX_SEG_SIZE SZ_256M
#else
#define AXL_MAX_SEG_SIZE UINT_MAX
#endif

/*
 * The device lock: held for reading while an ioctl maps buffers for the
 * device or queues a job, for writing while the device comes or goes. A
 * removal thus sees every import in a handle table and every job queued,
 * and nothing new gets mapped for a device that is gone.
 */
static DECLARE_RWSEM(axl_dev_sem);

/* Written under axl_dev_sem (probe, remove) or at init/exit. */
static struct {
	struct pci_dev *pdev;
	struct platform_device *plat;
	struct device *dev;
	u32 caps;
} axl_engine_dev;

static u32 axl_dev_iommu_caps(struct device *dev)
{
	struct iommu_domain *domain = iommu_get_domain_for_dev(dev);

	return domain && iommu_is_dma_domain(domain) ? AXL_CAP_IOMMU : 0;
}

static int axl_pci_probe(struct pci_dev *pdev, const struct pci_device_id *id)
{
	int ret;

	/* One engine: a second edu function stays unbound. */
	if (READ_ONCE(axl_engine_dev.dev))
		return -EBUSY;

	ret = pcim_enable_device(pdev);
	if (ret)
		return ret;
	/* The mask a 64-bit PCIe NPU advertises; bounds the IOVAs we get. */
	ret = dma_set_mask_and_coherent(&pdev->dev, DMA_BIT_MASK(64));
	if (ret)
		return ret;
	/* cannot fail for a PCI device, and returns nothing since 6.10 */
	dma_set_max_seg_size(&pdev->dev, AXL_MAX_SEG_SIZE);

	down_write(&axl_dev_sem);
	if (axl_engine_dev.dev) {
		up_write(&axl_dev_sem);
		return -EBUSY;
	}
	axl_engine_dev.pdev = pdev;
	axl_engine_dev.dev = &pdev->dev;
	axl_engine_dev.caps = AXL_CAP_PCI | axl_dev_iommu_caps(&pdev->dev);
	up_write(&axl_dev_sem);
	dev_info(&pdev->dev, "metis-sim engine on PCI %s%s\n", pci_name(pdev),
		 axl_engine_dev.caps & AXL_CAP_IOMMU ? " behind an IOMMU" : "");
	return 0;
}

/*
 * The device goes away (hot unplug, or sysfs "remove"): no attachment may
 * outlive it. New imports and submits fail with -ENODEV from here on;
 * queued jobs end with -ENODEV, and every import is unmapped and detached
 * in this (process) context. Handles stay for user space to release.
 */
static void axl_pci_remove(struct pci_dev *pdev)
{
	down_write(&axl_dev_sem);
	if (axl_engine_dev.pdev != pdev) {
		up_write(&axl_dev_sem);
		return;
	}
	axl_engine_dev.pdev = NULL;
	axl_engine_dev.dev = NULL;
	axl_engine_dev.caps = 0;
	axl_engine_drain(-ENODEV);
	axl_files_revoke();
	axl_metis_revoke_all();
	up_write(&axl_dev_sem);
	dev_info(&pdev->dev, "metis-sim engine removed; imports revoked\n");
}

static const struct pci_device_id axl_pci_ids[] = {
	{ PCI_DEVICE(AXL_EDU_VENDOR, AXL_EDU_DEVICE) },
	{ }
};
MODULE_DEVICE_TABLE(pci, axl_pci_ids);

static struct pci_driver axl_pci_driver = {
	.name = "axl-metis-sim",
	.id_table = axl_pci_ids,
	.probe = axl_pci_probe,
	.remove = axl_pci_remove,
	/*
	 * Unbinding through sysfs stays off, as before; removal of the
	 * device itself revokes what points at it (axl_pci_remove()).
	 */
	.driver.suppress_bind_attrs = true,
};

static int axl_platform_init(void)
{
	struct platform_device_info info = {
		.name = AXL_ENGINE_NAME,
		.id = PLATFORM_DEVID_NONE,
		.dma_mask = DMA_BIT_MASK(64),
	};
	struct platform_device *plat;

	plat = platform_device_register_full(&info);
	if (IS_ERR(plat))
		return PTR_ERR(plat);
	/* as for the PCI function (platform devices have DMA parameters too) */
	dma_set_max_seg_size(&plat->dev, AXL_MAX_SEG_SIZE);
	axl_engine_dev.plat = plat;
	axl_engine_dev.dev = &plat->dev;
	axl_engine_dev.caps = axl_dev_iommu_caps(&plat->dev);
	dev_info(&plat->dev, "metis-sim engine on a platform device (no edu PCI device bound)\n");
	return 0;
}

/**
 * axl_dev_init() - find or create the device imports attach to
 *
 * Return: 0 or a negative errno.
 */
int axl_dev_init(void)
{
	int ret;

	if (bind_pci) {
		/* Probing of present devices happens synchronously here. */
		ret = pci_register_driver(&axl_pci_driver);
		if (ret)
			return ret;
		if (axl_engine_dev.dev)
			return 0;
	}
	ret = axl_platform_init();
	if (ret && bind_pci)
		pci_unregister_driver(&axl_pci_driver);
	return ret;
}

/**
 * axl_dev_fini() - let go of the engine's device
 */
void axl_dev_fini(void)
{
	if (axl_engine_dev.plat) {
		platform_device_unregister(axl_engine_dev.plat);
		axl_engine_dev.plat = NULL;
		axl_engine_dev.dev = NULL;
	}
	if (bind_pci)
		pci_unregister_driver(&axl_pci_driver);
}

/**
 * axl_dev_lock() - keep the engine's device from going away
 *
 * Return: 0 with the device lock held for reading, or -ENODEV (lock not
 * held) when there is no device.
 */
int axl_dev_lock(void)
{
	down_read(&axl_dev_sem);
	if (axl_engine_dev.dev)
		return 0;
	up_read(&axl_dev_sem);
	return -ENODEV;
}

/**
 * axl_dev_unlock() - end axl_dev_lock() or axl_dev_hold()
 */
void axl_dev_unlock(void)
{
	up_read(&axl_dev_sem);
}

/**
 * axl_dev_hold() - keep a removal from finishing, device or not
 *
 * For dropping imports in process context (RELEASE_IMPORT, close): their
 * unmap must not race with a removal that revokes them, so it happens
 * either before the removal starts or after it detached everything. Not
 * for the engine's workers: a removal waits for them with the lock held.
 */
void axl_dev_hold(void)
{
	down_read(&axl_dev_sem);
}

/**
 * axl_dev() - the device imports attach to
 *
 * Return: the device, or NULL once removed; stable while the caller holds
 * axl_dev_lock().
 */
struct device *axl_dev(void)
{
	return axl_engine_dev.dev;
}

/**
 * axl_dev_caps() - AXL_CAP_* flags of the engine's device
 *
 * Return: the flags, AXL_CAP_SIMULATED and AXL_CAP_FENCE_STAMP included.
 */
u32 axl_dev_caps(void)
{
	return axl_engine_dev.caps | AXL_CAP_SIMULATED | AXL_CAP_FENCE_STAMP;
}
