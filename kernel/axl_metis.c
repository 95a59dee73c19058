// SPDX-License-Identifier: GPL-2.0
/*
 * axl: the Metis-compatible node.
 *
 * Beside /dev/axl the module can serve the dma-buf subset of the ABI of
 * Axelera's own driver (metis.ko; linux/axl_metis.h) on the engine's
 * device, so code written for a Jetson with a Metis card runs against
 * metis-sim unchanged. The node is /dev/axl-metis-<domain>-<bus>-<slot>
 * (hex, as metis.ko names its /dev/metis-... nodes) for the edu PCI
 * function, or /dev/axl-metis-platform for the platform stand-in: names
 * metis.ko never uses. metis_node=0 leaves it out.
 *
 * This file: registration, open/release, poll(), the property, resource
 * and statistics queries, and the eDMA counters. Attach and transfers are
 * in axl_metis_xfer.c.
 */
#include <linux/fs.h>
#include <linux/math64.h>
#include <linux/miscdevice.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/poll.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/uaccess.h>

#include "axl_drv.h"
#include "axl_metis.h"

static bool metis_node = true;
module_param(metis_node, bool, 0444);
MODULE_PARM_DESC(metis_node, "Serve the Metis-compatible node /dev/axl-metis-* (default: true)");

/* What the simulated card reports through GET_DEV_PROPERTY. */
#define AXL_METIS_HW_GEN_METIS 0
#define AXL_METIS_AICORES      4
#define AXL_METIS_PVE_CORES    0
#define AXL_METIS_NO_PES_GROUP (-1) /* not behind a PCIe switch */

/* The open files, so a device removal can detach their buffers. */
static DEFINE_MUTEX(axl_metis_files_lock);
static LIST_HEAD(axl_metis_files);

/* The eDMA counters of GET_DMA_STATS: per device, like metis.ko's. */
static DEFINE_SPINLOCK(axl_metis_stats_lock);
static struct axl_metis_dma_stats axl_metis_stats;

static char axl_metis_name[32];
static bool axl_metis_ready;      /* axl_metis_init() set up the card */
static bool axl_metis_registered; /* the node exists */

static struct axl_metis_channel_stats *axl_metis_channel(const struct axl_metis_xfer *x)
{
	return x->flags & AXL_METIS_XFER_READ ? &axl_metis_stats.rd_channels[x->channel] :
						&axl_metis_stats.wr_channels[x->channel];
}

/**
 * axl_metis_count_start() - count a transfer that was queued
 * @x:     the transfer, its channel resolved.
 * @nents: scatterlist entries of the attached buffer.
 */
void axl_metis_count_start(const struct axl_metis_xfer *x, u32 nents)
{
	struct axl_metis_channel_stats *ch;

	spin_lock(&axl_metis_stats_lock);
	ch = axl_metis_channel(x);
	ch->count++;
	ch->num_xfer++;
	ch->bytes_xfer += x->size;
	ch->max_sgt = max_t(s32, ch->max_sgt, nents);
	spin_unlock(&axl_metis_stats_lock);
}

/**
 * axl_metis_count_end() - count a transfer that ended
 * @x:      the transfer.
 * @status: 0 or the error it ended with.
 * @queued: when it was queued.
 */
void axl_metis_count_end(const struct axl_metis_xfer *x, int status, ktime_t queued)
{
	u64 us = ktime_us_delta(ktime_get(), queued);
	struct axl_metis_channel_stats *ch;

	spin_lock(&axl_metis_stats_lock);
	ch = axl_metis_channel(x);
	ch->count--;
	if (status)
		ch->num_err++;
	ch->duration_us = us;
	ch->max_duration_us = max(ch->max_duration_us, us);
	ch->size = x->size;
	ch->speed_mbps = us ? div64_u64(x->size, us) : 0;
	spin_unlock(&axl_metis_stats_lock);
}

/**
 * axl_metis_stats_get() - a copy of the eDMA counters
 * @out: where to copy them.
 */
void axl_metis_stats_get(struct axl_metis_dma_stats *out)
{
	spin_lock(&axl_metis_stats_lock);
	*out = axl_metis_stats;
	spin_unlock(&axl_metis_stats_lock);
}

/**
 * axl_metis_stats_reset() - what a write to debugfs dma-statistics resets
 * @all: every counter but the transfers in flight (metis.ko's 1), or only
 *       the durations and last size (its 2).
 */
void axl_metis_stats_reset(bool all)
{
	int i;

	spin_lock(&axl_metis_stats_lock);
	for (i = 0; i < AXL_METIS_DMA_CHANNELS; i++) {
		struct axl_metis_channel_stats *ch[] = {
			&axl_metis_stats.rd_channels[i], &axl_metis_stats.wr_channels[i],
		};
		int j;

		for (j = 0; j < ARRAY_SIZE(ch); j++) {
			if (all) {
				ch[j]->num_xfer = 0;
				ch[j]->num_err = 0;
				ch[j]->bytes_xfer = 0;
				ch[j]->max_sgt = 0;
			}
			ch[j]->max_duration_us = 0;
			ch[j]->duration_us = 0;
			ch[j]->size = 0;
		}
	}
	spin_unlock(&axl_metis_stats_lock);
}

static int axl_metis_get_stats(void __user *uarg)
{
	struct axl_metis_dma_stats stats;

	axl_metis_stats_get(&stats);
	return copy_to_user(uarg, &stats, sizeof(stats)) ? -EFAULT : 0;
}

static int axl_metis_get_property(u64 __user *uarg)
{
	u64 id, value;

	if (get_user(id, uarg))
		return -EFAULT;
	switch (id) {
	case AXL_METIS_PROP_HW_GEN:
		value = AXL_METIS_HW_GEN_METIS;
		break;
	case AXL_METIS_PROP_AICORE_COUNT:
		value = AXL_METIS_AICORES;
		break;
	case AXL_METIS_PROP_PVE_CORE_COUNT:
		value = AXL_METIS_PVE_CORES;
		break;
	case AXL_METIS_PROP_PES_GROUP:
		value = (u64)(s64)AXL_METIS_NO_PES_GROUP; /* metis.ko widens an int */
		break;
	default:
		return -EINVAL;
	}
	return put_user(value, uarg);
}

static int axl_metis_get_resources(void __user *uarg)
{
	struct axl_metis_res_info info = {};

	info.ddr_base[0] = 0;
	info.ddr_size[0] = axl_metis_card_size();
	return copy_to_user(uarg, &info, sizeof(info)) ? -EFAULT : 0;
}

static int axl_metis_open(struct inode *inode, struct file *filp)
{
	struct axl_metis_file *f;

	f = kzalloc(sizeof(*f), GFP_KERNEL);
	if (!f)
		return -ENOMEM;
	axl_metis_file_init(f);
	mutex_lock(&axl_metis_files_lock);
	list_add(&f->node, &axl_metis_files);
	mutex_unlock(&axl_metis_files_lock);
	filp->private_data = f;
	atomic64_inc(&axl_stats.files);
	return 0;
}

/*
 * Closing with a transfer in flight is safe: one still waiting for the
 * eDMA is cancelled, one being copied is waited for (bounded: a memcpy),
 * then the buffer is detached.
 */
static int axl_metis_release(struct inode *inode, struct file *filp)
{
	struct axl_metis_file *f = filp->private_data;

	axl_dev_hold(); /* a removal revokes either before or after this */
	axl_metis_stop(f, true);
	axl_dev_unlock();
	mutex_lock(&axl_metis_files_lock);
	list_del(&f->node);
	mutex_unlock(&axl_metis_files_lock);
	mutex_destroy(&f->lock);
	kfree(f);
	atomic64_dec(&axl_stats.files);
	return 0;
}

static __poll_t axl_metis_poll(struct file *filp, poll_table *wait)
{
	struct axl_metis_file *f = filp->private_data;

	poll_wait(filp, &f->poll_wq, wait);
	return atomic_read(&f->poll_events) > 0 ? EPOLLIN | EPOLLRDNORM : 0;
}

/* The command encodes the argument's size: another size is another (unknown) command. */
static long axl_metis_ioctl(struct file *filp, unsigned int cmd, unsigned long arg)
{
	struct axl_metis_file *f = filp->private_data;
	void __user *uarg = (void __user *)arg;

	switch (cmd) {
	case AXL_METIS_IOCTL_GET_DEV_PROPERTY:
		return axl_metis_get_property(uarg);
	case AXL_METIS_IOCTL_DMA_ATTACH:
		return axl_metis_attach(f, uarg);
	case AXL_METIS_IOCTL_DMA_DETACH:
		return axl_metis_detach(f);
	case AXL_METIS_IOCTL_DMA_XFER:
		return axl_metis_xfer(f, uarg);
	case AXL_METIS_IOCTL_DMA_GET_XFER_ASYNC_STATUS:
		/* the state is the return value, as in metis.ko */
		return atomic_read(&f->state);
	case AXL_METIS_IOCTL_CLEAR_POLL_EVENT:
		/* 1: an event was consumed, 0: there was none */
		return atomic_add_unless(&f->poll_events, -1, 0);
	case AXL_METIS_IOCTL_GET_RESOURCE_INFO:
		return axl_metis_get_resources(uarg);
	case AXL_METIS_IOCTL_GET_DMA_STATS:
		return axl_metis_get_stats(uarg);
	}
	return -ENOTTY;
}

/* No compat_ioctl: size_t and int make 32-bit callers' layouts differ. */
static const struct file_operations axl_metis_fops = {
	.owner = THIS_MODULE,
	.open = axl_metis_open,
	.release = axl_metis_release,
	.poll = axl_metis_poll,
	.unlocked_ioctl = axl_metis_ioctl,
	.llseek = noop_llseek,
};

static struct miscdevice axl_metis_misc = {
	.minor = MISC_DYNAMIC_MINOR,
	.name = axl_metis_name,
	.fops = &axl_metis_fops,
	.groups = axl_metis_gen_groups,
};

/* The node's name, from the engine's device as it is at load. */
static void axl_metis_set_name(void)
{
	struct device *dev;

	snprintf(axl_metis_name, sizeof(axl_metis_name), AXL_METIS_NODE_PREFIX "platform");
	if (axl_dev_lock())
		return;
	dev = axl_dev();
	if (dev_is_pci(dev)) {
		struct pci_dev *pdev = to_pci_dev(dev);

		snprintf(axl_metis_name, sizeof(axl_metis_name),
			 AXL_METIS_NODE_PREFIX "%x-%x-%x", pci_domain_nr(pdev->bus),
			 pdev->bus->number, PCI_SLOT(pdev->devfn));
	}
	axl_dev_unlock();
}

/**
 * axl_metis_init() - set up what the node serves, unless metis_node=0
 *
 * Called after axl_dev_init(); creates no node: axl_metis_register() does,
 * once nothing in the module's init can fail any more.
 *
 * Return: 0 or a negative errno.
 */
int axl_metis_init(void)
{
	int ret;

	if (!metis_node)
		return 0;
	ret = axl_metis_gen_init();
	if (ret)
		goto err_gen;
	ret = axl_metis_card_init();
	if (ret)
		goto err_gen;
	axl_metis_ready = true;
	return 0;

err_gen:
	axl_metis_gen_fini();
	return ret;
}

/**
 * axl_metis_register() - register the node and its debugfs tree
 *
 * The last step of the module's init: once /dev/axl exists the load must
 * not fail (an open file would outlive the module), so a node that cannot
 * be registered is left out, as with metis_node=0, and the kernel log says
 * why. Named after the engine's device as it is at load.
 */
void axl_metis_register(void)
{
	int ret;

	if (!axl_metis_ready)
		return;
	axl_metis_set_name();
	ret = axl_fail_at("metis_node") ? -ENOSPC : misc_register(&axl_metis_misc);
	if (ret) {
		pr_err("axl: /dev/%s: registration failed (%d): loaded without the Metis node\n",
		       axl_metis_name, ret);
		return;
	}
	axl_metis_registered = true;
	axl_metis_gen_debugfs();
}

/**
 * axl_metis_fini() - unregister the node; every file of it is closed
 */
void axl_metis_fini(void)
{
	if (axl_metis_registered)
		misc_deregister(&axl_metis_misc);
	axl_metis_registered = false;
	if (!axl_metis_ready)
		return;
	axl_metis_card_fini();
	axl_metis_gen_fini();
	axl_metis_ready = false;
}

/**
 * axl_metis_revoke_all() - detach every file's buffer
 *
 * For the engine's device going away: the caller holds the device lock
 * for writing, so no attach or transfer starts meanwhile. Transfers in
 * flight end first; later calls on the files fail with -ENODEV.
 */
void axl_metis_revoke_all(void)
{
	struct axl_metis_file *f;

	mutex_lock(&axl_metis_files_lock);
	list_for_each_entry(f, &axl_metis_files, node)
		axl_metis_stop(f, true);
	mutex_unlock(&axl_metis_files_lock);
}
