// SPDX-License-Identifier: GPL-2.0
/*
 * axl: which metis.ko the Metis-compatible node presents, and the card's
 * own DMA witness.
 *
 * metis_generation= picks the release of Axelera's driver the node stands
 * in for: 1.6.2 (the default), 1.4.17 (what Voyager 1.6.1 pins; its source
 * is not published, 1.4.16's is the nearest) or 1.4.4 (the older metis-*.c
 * sources). The release decides:
 *
 * - what the node shows where metis.ko shows its version and parameters:
 *   /sys/class/misc/<node>/metis/version stands for /sys/module/metis/version,
 *   /sys/class/misc/<node>/metis_parameters/ for /sys/module/metis/parameters/
 *   (the parameter names and defaults of that release, read only);
 * - the debugfs tree, as metis.ko's: axl-metis/version, and a directory
 *   axl-metis/metis-<device> with dma-statistics (every release) and
 *   dma-trace (1.4.16 and later: a ring of one entry per transfer).
 *
 * The formats of dma-statistics and dma-trace are 1.6.2's (1.4.16 prints
 * the same). Writes are checked: dma-statistics takes 1 (reset all) or 2
 * (reset the durations), dma-trace takes enable, disable, clear or reset;
 * anything else is -EINVAL.
 */
#include <linux/debugfs.h>
#include <linux/device.h>
#include <linux/log2.h>
#include <linux/mm.h>
#include <linux/module.h>
#include <linux/pci.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/string.h>
#include <linux/sysfs.h>
#include <linux/uaccess.h>

#include "axl_drv.h"
#include "axl_metis.h"

static char metis_generation[8] = "1.6.2";
module_param_string(metis_generation, metis_generation, sizeof(metis_generation), 0444);
MODULE_PARM_DESC(metis_generation, "metis.ko release the Metis-compatible node presents: 1.6.2 (default), 1.4.17 or 1.4.4");

/* A module parameter of metis.ko as a release declares it, with its default. */
struct axl_metis_param {
	const char *name;
	const char *value;
	bool since_1416; /* absent from the metis-*.c sources (1.4.4) */
};

static const struct axl_metis_param axl_metis_params[] = {
	{ "dma_timeout", "2", false },
	{ "irq_timeout", "1", false },
	{ "single_msi", "0", false },
	{ "dma_poll", "0", false },
	{ "europa_veloce", "0", true },
	{ "enable_sg_host_dma", "0", true },
	{ "dma_trace_entries", "4000", true },
};

/* dma_trace_entries' default; the ring is the next power of two. */
#define AXL_METIS_TRACE_ENTRIES 4000

/**
 * struct axl_metis_gen - a release of metis.ko
 * @version: its DRIVER_VERSION.
 * @recent:  the axl-aipu-*.c sources (1.4.16 on): more parameters, dma-trace.
 */
struct axl_metis_gen {
	const char *version;
	bool recent;
};

static const struct axl_metis_gen axl_metis_gens[] = {
	{ "1.6.2", true },
	{ "1.4.17", true },
	{ "1.4.4", false },
};

static const struct axl_metis_gen *axl_metis_gen;

/* One transfer in the ring, as metis.ko keeps it. */
struct axl_metis_trace_entry {
	char mode[4];
	int channel;
	u64 ktime_ns;
	u64 wq_ns;
	u64 start_ns;
	u64 end_ns;
	u64 size;
};

/**
 * struct axl_metis_trace - the dma-trace ring
 * @lock:    protects everything below.
 * @entries: @size entries, a power of two.
 * @size:    ring size.
 * @head:    next entry written.
 * @tail:    oldest entry kept.
 * @enabled: transfers are recorded.
 * @total:   entries recorded since the last reset.
 * @overruns: entries overwritten before being read since the last reset.
 */
struct axl_metis_trace {
	spinlock_t lock; /* the ring */
	struct axl_metis_trace_entry *entries;
	unsigned int size;
	unsigned int head;
	unsigned int tail;
	bool enabled;
	u64 total;
	u64 overruns;
};

static struct axl_metis_trace axl_metis_trace = {
	.lock = __SPIN_LOCK_UNLOCKED(axl_metis_trace.lock),
};

static struct dentry *axl_metis_debugfs;

static ssize_t version_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	return sysfs_emit(buf, "%s\n", axl_metis_gen->version);
}
static DEVICE_ATTR_RO(version);

static struct attribute *axl_metis_gen_attrs[] = {
	&dev_attr_version.attr,
	NULL,
};

static const struct attribute_group axl_metis_gen_group = {
	.name = "metis",
	.attrs = axl_metis_gen_attrs,
};

/* The parameters' attributes: index i of axl_metis_params. */
static ssize_t axl_metis_param_show(struct device *dev, struct device_attribute *attr, char *buf);

#define AXL_METIS_PARAM_ATTR(i) \
	{ .attr = { .mode = 0444 }, .show = axl_metis_param_show }

static struct device_attribute axl_metis_param_dev_attrs[ARRAY_SIZE(axl_metis_params)] = {
	AXL_METIS_PARAM_ATTR(0), AXL_METIS_PARAM_ATTR(1), AXL_METIS_PARAM_ATTR(2),
	AXL_METIS_PARAM_ATTR(3), AXL_METIS_PARAM_ATTR(4), AXL_METIS_PARAM_ATTR(5),
	AXL_METIS_PARAM_ATTR(6),
};

static struct attribute *axl_metis_param_attrs[ARRAY_SIZE(axl_metis_params) + 1];

static ssize_t axl_metis_param_show(struct device *dev, struct device_attribute *attr, char *buf)
{
	unsigned int i = attr - axl_metis_param_dev_attrs;

	return sysfs_emit(buf, "%s\n", axl_metis_params[i].value);
}

static umode_t axl_metis_param_visible(struct kobject *kobj, struct attribute *attr, int n)
{
	return !axl_metis_params[n].since_1416 || axl_metis_gen->recent ? attr->mode : 0;
}

static const struct attribute_group axl_metis_param_group = {
	.name = "metis_parameters",
	.attrs = axl_metis_param_attrs,
	.is_visible = axl_metis_param_visible,
};

/* The node's sysfs groups (axl_metis.c hands them to misc_register()). */
const struct attribute_group *axl_metis_gen_groups[] = {
	&axl_metis_gen_group,
	&axl_metis_param_group,
	NULL,
};

/**
 * axl_metis_trace_add() - record a transfer that ran
 * @x:      the transfer.
 * @queued: when DMA_XFER queued it.
 * @start:  when the simulated eDMA began it.
 * @end:    when its copy ended.
 * @moved:  bytes copied.
 */
void axl_metis_trace_add(const struct axl_metis_xfer *x, ktime_t queued, ktime_t start,
			 ktime_t end, u64 moved)
{
	struct axl_metis_trace *tb = &axl_metis_trace;
	struct axl_metis_trace_entry *e;
	unsigned long flags;

	spin_lock_irqsave(&tb->lock, flags);
	if (!tb->entries || !tb->enabled) {
		spin_unlock_irqrestore(&tb->lock, flags);
		return;
	}
	if (((tb->head + 1) & (tb->size - 1)) == tb->tail) {
		/* full: the oldest entry goes */
		tb->tail = (tb->tail + 1) & (tb->size - 1);
		tb->overruns++;
	}
	e = &tb->entries[tb->head];
	/* metis.ko's modes name the eDMA channel: RD reads host memory */
	strscpy(e->mode, x->flags & AXL_METIS_XFER_READ ? "WR" : "RD", sizeof(e->mode));
	e->channel = x->channel;
	e->ktime_ns = ktime_to_ns(queued);
	e->wq_ns = ktime_to_ns(start);
	e->start_ns = ktime_to_ns(start);
	e->end_ns = ktime_to_ns(end);
	e->size = moved;
	tb->head = (tb->head + 1) & (tb->size - 1);
	tb->total++;
	spin_unlock_irqrestore(&tb->lock, flags);
}

/* Room for one entry's line (7 fields, 4 of them u64). */
#define AXL_METIS_TRACE_LINE 112

static ssize_t axl_metis_trace_read(struct file *file, char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	struct axl_metis_trace *tb = &axl_metis_trace;
	size_t cap = (size_t)tb->size * AXL_METIS_TRACE_LINE + 1024;
	unsigned int n, i;
	size_t off = 0;
	ssize_t ret;
	char *buf;

	buf = kvmalloc(cap, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	spin_lock_irq(&tb->lock);
	n = (tb->head - tb->tail) & (tb->size - 1);
	off += scnprintf(buf + off, cap - off, "DMA Trace Buffer Status:\n");
	off += scnprintf(buf + off, cap - off, "  Enabled: %s\n", tb->enabled ? "yes" : "no");
	off += scnprintf(buf + off, cap - off, "  Total traces: %llu\n", tb->total);
	off += scnprintf(buf + off, cap - off, "  Overruns: %llu\n", tb->overruns);
	off += scnprintf(buf + off, cap - off, "  Buffer size: %u entries\n", tb->size);
	off += scnprintf(buf + off, cap - off, "  Current entries: %u\n\n", n);
	for (i = 0; i < n; i++) {
		const struct axl_metis_trace_entry *e =
			&tb->entries[(tb->tail + i) & (tb->size - 1)];

		off += scnprintf(buf + off, cap - off, "%s, CH%d, %llu, %llu, %llu, %llu, %llu\n",
				 e->mode, e->channel, e->ktime_ns, e->wq_ns, e->start_ns,
				 e->end_ns, e->size);
	}
	spin_unlock_irq(&tb->lock);
	ret = simple_read_from_buffer(ubuf, count, ppos, buf, off);
	kvfree(buf);
	return ret;
}

static ssize_t axl_metis_trace_write(struct file *file, const char __user *ubuf, size_t count,
				     loff_t *ppos)
{
	struct axl_metis_trace *tb = &axl_metis_trace;
	char cmd[16];

	if (count == 0 || count >= sizeof(cmd))
		return -EINVAL;
	if (copy_from_user(cmd, ubuf, count))
		return -EFAULT;
	cmd[count] = '\0';

	spin_lock_irq(&tb->lock);
	if (sysfs_streq(cmd, "enable")) {
		tb->enabled = true;
	} else if (sysfs_streq(cmd, "disable")) {
		tb->enabled = false;
	} else if (sysfs_streq(cmd, "clear")) {
		tb->head = 0;
		tb->tail = 0;
	} else if (sysfs_streq(cmd, "reset")) {
		tb->head = 0;
		tb->tail = 0;
		tb->total = 0;
		tb->overruns = 0;
	} else {
		spin_unlock_irq(&tb->lock);
		return -EINVAL;
	}
	spin_unlock_irq(&tb->lock);
	return count;
}

static const struct file_operations axl_metis_trace_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = axl_metis_trace_read,
	.write = axl_metis_trace_write,
	.llseek = default_llseek,
};

/* One channel's block of dma-statistics, as metis.ko prints it. */
static size_t axl_metis_stat_block(char *buf, size_t cap, const char *label, int i,
				   const struct axl_metis_channel_stats *c, const char *max_label)
{
	size_t off = 0;

	off += scnprintf(buf + off, cap - off, "\n========= %s Channel %d ================\n",
			 label, i);
	off += scnprintf(buf + off, cap - off, "count : %d\n", c->count);
	off += scnprintf(buf + off, cap - off, "request : %d\n", c->num_xfer);
	off += scnprintf(buf + off, cap - off, "errors : %d\n", c->num_err);
	off += scnprintf(buf + off, cap - off, "bytes : %llu\n", c->bytes_xfer);
	off += scnprintf(buf + off, cap - off, "max sgt : %d\n", c->max_sgt);
	off += scnprintf(buf + off, cap - off, "%s : %lluus\n", max_label, c->max_duration_us);
	off += scnprintf(buf + off, cap - off, "duration : %llu us\n", c->duration_us);
	off += scnprintf(buf + off, cap - off, "size : %lu Bytes\n", (unsigned long)c->size);
	off += scnprintf(buf + off, cap - off, "speed : %u MB/s\n",
			 (u32)(c->size / (c->duration_us ? c->duration_us : 1)));
	return off;
}

#define AXL_METIS_STAT_CAP 8192

/*
 * metis.ko's blocks are named after the eDMA channel: "RD" reads host
 * memory (WRITE transfers, buffer -> card), "WR" writes it (READ ones).
 * 1.6.2 spells the first block's longest duration "max max_duration".
 */
static ssize_t axl_metis_stat_read(struct file *file, char __user *ubuf, size_t count,
				   loff_t *ppos)
{
	struct axl_metis_dma_stats s;
	size_t off = 0;
	ssize_t ret;
	char *buf;
	int i;

	buf = kmalloc(AXL_METIS_STAT_CAP, GFP_KERNEL);
	if (!buf)
		return -ENOMEM;
	axl_metis_stats_get(&s);
	off += scnprintf(buf, AXL_METIS_STAT_CAP, "\nDMA Statistics\n");
	for (i = 0; i < AXL_METIS_DMA_CHANNELS; i++) {
		off += axl_metis_stat_block(buf + off, AXL_METIS_STAT_CAP - off, "RD", i,
					    &s.wr_channels[i], "max max_duration");
		off += axl_metis_stat_block(buf + off, AXL_METIS_STAT_CAP - off, "WR", i,
					    &s.rd_channels[i], "max duration");
	}
	ret = simple_read_from_buffer(ubuf, count, ppos, buf, off);
	kfree(buf);
	return ret;
}

static ssize_t axl_metis_stat_write(struct file *file, const char __user *ubuf, size_t count,
				    loff_t *ppos)
{
	int ret, val;

	ret = kstrtoint_from_user(ubuf, count, 0, &val);
	if (ret)
		return ret;
	if (val != 1 && val != 2)
		return -EINVAL; /* metis.ko logs the choices and accepts the write */
	axl_metis_stats_reset(val == 1);
	return count;
}

static const struct file_operations axl_metis_stat_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = axl_metis_stat_read,
	.write = axl_metis_stat_write,
	.llseek = default_llseek,
};

static ssize_t axl_metis_version_read(struct file *file, char __user *ubuf, size_t count,
				      loff_t *ppos)
{
	char buf[16];
	int n = scnprintf(buf, sizeof(buf), "%s\n", axl_metis_gen->version);

	return simple_read_from_buffer(ubuf, count, ppos, buf, n);
}

static const struct file_operations axl_metis_version_fops = {
	.owner = THIS_MODULE,
	.open = simple_open,
	.read = axl_metis_version_read,
	.llseek = default_llseek,
};

/**
 * axl_metis_gen_init() - check metis_generation=, build the sysfs groups
 * and the trace ring
 *
 * Return: 0, -EINVAL for a release the node does not know, or -ENOMEM.
 */
int axl_metis_gen_init(void)
{
	unsigned int i;

	axl_metis_gen = NULL;
	for (i = 0; i < ARRAY_SIZE(axl_metis_gens); i++)
		if (sysfs_streq(metis_generation, axl_metis_gens[i].version))
			axl_metis_gen = &axl_metis_gens[i];
	if (!axl_metis_gen) {
		pr_err("axl: metis_generation=%s: not 1.6.2, 1.4.17 or 1.4.4\n", metis_generation);
		return -EINVAL;
	}
	for (i = 0; i < ARRAY_SIZE(axl_metis_params); i++) {
		axl_metis_param_dev_attrs[i].attr.name = axl_metis_params[i].name;
		axl_metis_param_attrs[i] = &axl_metis_param_dev_attrs[i].attr;
	}

	if (axl_metis_gen->recent) {
		struct axl_metis_trace_entry *entries;
		unsigned int size = roundup_pow_of_two(AXL_METIS_TRACE_ENTRIES);

		entries = kvcalloc(size, sizeof(*entries), GFP_KERNEL);
		if (!entries)
			return -ENOMEM;
		spin_lock_irq(&axl_metis_trace.lock);
		axl_metis_trace.entries = entries;
		axl_metis_trace.size = size;
		axl_metis_trace.head = 0;
		axl_metis_trace.tail = 0;
		axl_metis_trace.enabled = false;
		axl_metis_trace.total = 0;
		axl_metis_trace.overruns = 0;
		spin_unlock_irq(&axl_metis_trace.lock);
	}

	return 0;
}

/**
 * axl_metis_gen_debugfs() - create the debugfs tree, once the node is registered
 *
 * Debugfs is optional: a failure only loses the files.
 */
void axl_metis_gen_debugfs(void)
{
	char name[64] = "metis-platform";
	struct dentry *dir;

	if (!axl_dev_lock()) {
		if (dev_is_pci(axl_dev()))
			snprintf(name, sizeof(name), "metis-%s", dev_name(axl_dev()));
		axl_dev_unlock();
	}
	axl_metis_debugfs = debugfs_create_dir("axl-metis", NULL);
	debugfs_create_file("version", 0444, axl_metis_debugfs, NULL, &axl_metis_version_fops);
	dir = debugfs_create_dir(name, axl_metis_debugfs);
	debugfs_create_file("dma-statistics", 0644, dir, NULL, &axl_metis_stat_fops);
	if (axl_metis_gen->recent)
		debugfs_create_file("dma-trace", 0644, dir, NULL, &axl_metis_trace_fops);
}

/**
 * axl_metis_gen_fini() - remove the debugfs tree and free the trace ring
 */
void axl_metis_gen_fini(void)
{
	struct axl_metis_trace_entry *entries;

	debugfs_remove_recursive(axl_metis_debugfs);
	axl_metis_debugfs = NULL;
	spin_lock_irq(&axl_metis_trace.lock);
	entries = axl_metis_trace.entries;
	axl_metis_trace.entries = NULL;
	spin_unlock_irq(&axl_metis_trace.lock);
	kvfree(entries);
}
