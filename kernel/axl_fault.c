// SPDX-License-Identifier: GPL-2.0
/*
 * axl: test-only fault points at the driver's own failure sites.
 *
 * The kernels the driver is tested on have no fault injection of their
 * own (CONFIG_FAULT_INJECTION, FAILSLAB and fail_function are off in the
 * Debian 6.12 kernel, and the Jetson-shaped 5.15 kits cannot be rebuilt),
 * so each allocation and each kernel call that can fail on the IMPORT,
 * IMPORT_FD2, SUBMIT, Metis ATTACH and XFER paths asks axl_fault() first.
 * A test arms the points through debugfs:
 *
 *   axl/fault_nth    write N > 0: the Nth point hit from now on fails, once,
 *                    with the errno the real call would give; write 0 to
 *                    disarm. Reads the N armed (0 when disarmed).
 *   axl/fault_state  "hits H\nfired SITE ERRNO\n": points hit since the
 *                    arming (counted until disarmed) and the one that
 *                    fired ("fired none 0" before that).
 *
 * Arming is global, for one test at a time: hits from any task count. A
 * test iterates N = 1, 2, ... until a call succeeds with nothing fired;
 * the hits of that call are the points its path has.
 *
 * Not armed, a point costs one static branch, never taken. Nothing a
 * user can see changes: debugfs is root's, and the module behaves the
 * same until someone writes fault_nth.
 */
#include <linux/atomic.h>
#include <linux/debugfs.h>
#include <linux/fs.h>
#include <linux/jump_label.h>
#include <linux/kernel.h>
#include <linux/mutex.h>
#include <linux/seq_file.h>
#include <linux/uaccess.h>

#include "axl_drv.h"

DEFINE_STATIC_KEY_FALSE(axl_fault_key);

static DEFINE_MUTEX(axl_fault_lock);	/* arming and disarming */
static unsigned int axl_fault_nth;
static atomic_t axl_fault_hits;
static atomic_t axl_fault_done;		/* the Nth point fired */
static const char *axl_fault_site;	/* a string literal of this module */
static int axl_fault_errno;

/**
 * __axl_fault() - count a fault point hit while armed; fire the Nth
 * @site: the point's name, a string literal.
 * @err:  the negative errno the real call gives when it fails.
 *
 * Any context: an atomic increment and, for the one that fires, two stores.
 *
 * Return: @err when this hit is the Nth, else 0.
 */
int __axl_fault(const char *site, int err)
{
	unsigned int hit = atomic_inc_return(&axl_fault_hits);

	if (hit != READ_ONCE(axl_fault_nth) || atomic_xchg(&axl_fault_done, 1))
		return 0;
	WRITE_ONCE(axl_fault_site, site);
	WRITE_ONCE(axl_fault_errno, err);
	pr_info("axl: fault point %s: failing with %d (fault_nth=%u)\n",
		site, err, hit);
	return err;
}

static void axl_fault_arm(unsigned int nth)
{
	mutex_lock(&axl_fault_lock);
	if (static_key_enabled(&axl_fault_key))
		static_branch_disable(&axl_fault_key);
	WRITE_ONCE(axl_fault_nth, nth);
	atomic_set(&axl_fault_hits, 0);
	atomic_set(&axl_fault_done, 0);
	WRITE_ONCE(axl_fault_site, NULL);
	WRITE_ONCE(axl_fault_errno, 0);
	if (nth)
		static_branch_enable(&axl_fault_key);
	mutex_unlock(&axl_fault_lock);
}

static int axl_fault_nth_get(void *data, u64 *val)
{
	*val = READ_ONCE(axl_fault_nth);
	return 0;
}

static int axl_fault_nth_set(void *data, u64 val)
{
	if (val > UINT_MAX)
		return -EINVAL;
	axl_fault_arm(val);
	return 0;
}
DEFINE_DEBUGFS_ATTRIBUTE(axl_fault_nth_fops, axl_fault_nth_get,
			 axl_fault_nth_set, "%llu\n");

static int axl_fault_state_show(struct seq_file *m, void *unused)
{
	const char *site = READ_ONCE(axl_fault_site);

	seq_printf(m, "hits %d\n", atomic_read(&axl_fault_hits));
	seq_printf(m, "fired %s %d\n", site ? site : "none",
		   site ? READ_ONCE(axl_fault_errno) : 0);
	return 0;
}
DEFINE_SHOW_ATTRIBUTE(axl_fault_state);

/**
 * axl_fault_debugfs() - create the fault files in axl's debugfs directory
 * @dir: the directory.
 */
void axl_fault_debugfs(struct dentry *dir)
{
	debugfs_create_file_unsafe("fault_nth", 0600, dir, NULL,
				   &axl_fault_nth_fops);
	debugfs_create_file("fault_state", 0400, dir, NULL,
			    &axl_fault_state_fops);
}

/**
 * axl_fault_fini() - disarm at unload
 */
void axl_fault_fini(void)
{
	axl_fault_arm(0);
}
