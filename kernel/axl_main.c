// SPDX-License-Identifier: GPL-2.0
/*
 * axl: dma-buf import and job submission for the Axelera Metis NPU, with
 * metis-sim, a simulated engine. The misc device /dev/axl, its file
 * operations, AXL_IOCTL_GET_INFO, debugfs counters and module setup.
 */
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/fs.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/seq_file.h>
#include <linux/slab.h>
#include <linux/string.h>
#include <linux/uaccess.h>

#include "axl_compat.h"
#include "axl_drv.h"
#include "axl_metis.h"

#define CREATE_TRACE_POINTS
#include "axl_trace.h"

struct axl_stats axl_stats;

static struct dentry *axl_debugfs;

static char *fail_init;
module_param(fail_init, charp, 0);
MODULE_PARM_DESC(fail_init, "Test only: this step of the module's init fails with -ENOSPC: engine, dev, metis, misc (each fails the load) or metis_node (the module loads without that node) (default: none)");

/**
 * axl_fail_at() - whether fail_init= names @step
 * @step: a step of the module's init.
 *
 * Return: true when that step must fail, as if it had (logged).
 */
bool axl_fail_at(const char *step)
{
	if (!fail_init || strcmp(fail_init, step))
		return false;
	pr_info("axl: fail_init=%s: failing that step of the load\n", step);
	return true;
}

/* Every open file, so a device removal can revoke their imports. */
static DEFINE_MUTEX(axl_files_lock);
static LIST_HEAD(axl_files);

/**
 * axl_files_revoke() - revoke the imports of every open file
 *
 * Called with the device lock held for writing, after the engine drained.
 */
void axl_files_revoke(void)
{
	struct axl_file *file;

	mutex_lock(&axl_files_lock);
	list_for_each_entry(file, &axl_files, node)
		axl_import_revoke_all(file);
	mutex_unlock(&axl_files_lock);
}

static int axl_open(struct inode *inode, struct file *filp)
{
	struct axl_file *file;

	file = kzalloc(sizeof(*file), GFP_KERNEL);
	if (!file)
		return -ENOMEM;
	kref_init(&file->ref);
	mutex_init(&file->lock);
	mutex_init(&file->pins_lock);
	INIT_LIST_HEAD(&file->pins);
	xa_init_flags(&file->imports, XA_FLAGS_ALLOC1);
	atomic_set(&file->nr_jobs, 0);
	atomic64_set(&file->queued_ns, 0);
	mutex_lock(&axl_files_lock);
	list_add(&file->node, &axl_files);
	mutex_unlock(&axl_files_lock);

	filp->private_data = file;
	atomic64_inc(&axl_stats.files);
	return 0;
}

/* Closing the file cancels its queued jobs and drops every handle. */
static int axl_release(struct inode *inode, struct file *filp)
{
	struct axl_file *file = filp->private_data;

	axl_engine_cancel_file(file, -ECANCELED);
	axl_import_release_all(file);
	/* listed until here: a removal meanwhile revokes what is left */
	mutex_lock(&axl_files_lock);
	list_del(&file->node);
	mutex_unlock(&axl_files_lock);
	axl_file_put(file);
	return 0;
}

static int axl_get_info(struct axl_file *file, void __user *uarg)
{
	struct axl_info info;

	memset(&info, 0, sizeof(info));
	info.abi_version = AXL_ABI_VERSION;
	info.caps = axl_dev_caps() | AXL_CAP_IMPORT_PLANES | AXL_CAP_IMPLICIT_SYNC |
		    AXL_CAP_IMPLICIT_SYNC_INPUT;
	info.max_imports = axl_max_imports();
	info.max_jobs = axl_max_jobs();
	mutex_lock(&file->lock);
	info.file_imports = file->nr_imports;
	mutex_unlock(&file->lock);
	info.file_jobs = atomic_read(&file->nr_jobs);
	strscpy(info.driver, AXL_DRIVER_NAME, sizeof(info.driver));
	strscpy(info.engine, AXL_ENGINE_NAME, sizeof(info.engine));
	if (!axl_dev_lock()) {
		strscpy(info.device, dev_name(axl_dev()), sizeof(info.device));
		axl_dev_unlock();
	} else {
		strscpy(info.device, "none", sizeof(info.device));
	}
	strscpy(info.timeline, AXL_TIMELINE_NAME, sizeof(info.timeline));

	return copy_to_user(uarg, &info, sizeof(info)) ? -EFAULT : 0;
}

/* The command encodes the struct size: another size is another (unknown) command. */
static long axl_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct axl_file *file = filp->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case AXL_IOCTL_GET_INFO:
		return axl_get_info(file, uarg);
	case AXL_IOCTL_IMPORT_FD:
		return axl_import_ioctl(file, uarg);
	case AXL_IOCTL_SUBMIT:
		return axl_submit_ioctl(file, uarg);
	case AXL_IOCTL_RELEASE_IMPORT:
		return axl_release_ioctl(file, uarg);
	case AXL_IOCTL_IMPORT_FD2:
		return axl_import2_ioctl(file, uarg);
	}
	return -ENOTTY;
}

static const struct file_operations axl_fops = {
	.owner = THIS_MODULE,
	.open = axl_open,
	.release = axl_release,
	.unlocked_ioctl = axl_ioctl,
	.compat_ioctl = compat_ptr_ioctl, /* fixed-layout structs only */
	.llseek = noop_llseek,
};

static struct miscdevice axl_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = AXL_DEVICE_NAME,
	.fops = &axl_fops,
};

static int axl_stats_show(struct seq_file *m, void *unused)
{
	static const struct {
		const char *name;
		atomic64_t *value;
	} rows[] = {
		{ "files", &axl_stats.files },
		{ "imports", &axl_stats.imports },
		{ "jobs", &axl_stats.jobs },
		{ "fences", &axl_stats.fences },
		{ "imported", &axl_stats.imported },
		{ "released", &axl_stats.released },
		{ "submitted", &axl_stats.submitted },
		{ "completed", &axl_stats.completed },
		{ "failed", &axl_stats.failed },
		{ "timed_out", &axl_stats.timed_out },
		{ "cancelled", &axl_stats.cancelled },
		{ "pins", &axl_stats.pins },
		{ "users", &axl_stats.users },
		{ "writers", &axl_stats.writers },
	};
	size_t i;

	for (i = 0; i < ARRAY_SIZE(rows); i++)
		seq_printf(m, "%s %lld\n", rows[i].name,
			   (long long)atomic64_read(rows[i].value));
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(axl_stats);

/* Debugfs is optional: failures only lose the counters file. */
static void axl_debugfs_init(void)
{
	axl_debugfs = debugfs_create_dir(AXL_DRIVER_NAME, NULL);
	debugfs_create_file("stats", 0444, axl_debugfs, NULL, &axl_stats_fops);
	axl_fault_debugfs(axl_debugfs);
}

/*
 * Nodes last: once one exists an open may take a reference on the module,
 * and a load that failed after that would free the module under an open
 * file. So every step that can fail the load runs first, and /dev/axl's
 * registration is the last of them; the Metis node and debugfs follow it
 * and cannot fail the load (axl_metis_register()).
 */
static int __init axl_init(void)
{
	int ret;

	ret = axl_fail_at("engine") ? -ENOSPC : axl_engine_init();
	if (ret)
		return ret;
	ret = axl_fail_at("dev") ? -ENOSPC : axl_dev_init();
	if (ret)
		goto err_engine;
	ret = axl_fail_at("metis") ? -ENOSPC : axl_metis_init();
	if (ret)
		goto err_dev;
	ret = axl_fail_at("misc") ? -ENOSPC : misc_register(&axl_misc);
	if (ret)
		goto err_metis;
	/* nothing may fail from here on */
	axl_metis_register();
	axl_debugfs_init();
	return 0;

err_metis:
	axl_metis_fini();
err_dev:
	axl_dev_fini();
err_engine:
	axl_engine_fini();
	return ret;
}

static void __exit axl_exit(void)
{
	misc_deregister(&axl_misc);
	debugfs_remove_recursive(axl_debugfs);
	axl_fault_fini();
	axl_metis_fini();
	/* queued jobs still hold attachments to the device */
	axl_engine_fini();
	axl_dev_fini();
}

module_init(axl_init);
module_exit(axl_exit);

MODULE_DESCRIPTION("axl: dma-buf import and job submission for the Axelera Metis NPU (metis-sim engine)");
MODULE_LICENSE("GPL");
/* kernel/Kbuild probes both: see axl_compat.h */
#if defined(AXL_HAVE_DMA_BUF_NS) && defined(AXL_HAVE_MODULE_IMPORT_NS_IDENT)
MODULE_IMPORT_NS(DMA_BUF);
#elif defined(AXL_HAVE_DMA_BUF_NS)
MODULE_IMPORT_NS("DMA_BUF");
#endif
