// SPDX-License-Identifier: GPL-2.0
/*
 * axl: accounting of the dma-bufs the driver keeps pinned.
 *
 * Imports hold their buffers mapped for as long as the handle lives, a job
 * holds its result buffer mapped until it ends, and a file of the Metis node
 * holds its attached buffer mapped until it detaches. All of them count, as
 * the bytes of the dma-buf, against two bounds:
 *  - max_user_pinned_mb for everything one user (real uid of the caller)
 *    holds through all its open files, so one user cannot take all of
 *    max_pinned_mb and leave nothing to the others;
 *  - max_pinned_mb for all users together.
 * A dma-buf counts once per open file, however many of its imports and jobs
 * use it: importing one buffer 64 times pins it once.
 *
 * The open file is the unit, not the user: a buffer imported on /dev/axl
 * and attached on a Metis node (or on two files of either) counts once for
 * each file. Each of those files holds an attachment and a mapping of its
 * own that lives exactly as long as that file keeps it, so each is charged
 * for what it holds and gives it back on its own, without a lookup shared
 * between files. Counting a buffer more than once only ever charges the
 * user who opened the files: it takes from that user's own share, never
 * from another's. A Metis file attaches one buffer at a time, so it holds
 * one pin (axl_pin_new()) and needs no list.
 *
 * Each open file keeps a list of the buffers it pins with a use count; the
 * first use charges the buffer to the user of the call, and the last one
 * gives the bytes back to that same user.
 */
#include <linux/dma-buf.h>
#include <linux/module.h>
#include <linux/mutex.h>
#include <linux/slab.h>

#include "axl_drv.h"

static unsigned int max_pinned_mb = 1024;
module_param(max_pinned_mb, uint, 0644);
MODULE_PARM_DESC(max_pinned_mb, "MiB of dma-bufs all users' imports, jobs and Metis attachments together may hold (default: 1024)");

static unsigned int max_user_pinned_mb = 512;
module_param(max_user_pinned_mb, uint, 0644);
MODULE_PARM_DESC(max_user_pinned_mb, "MiB of dma-bufs one user's imports, jobs and Metis attachments may hold (default: 512)");

/* Bytes pinned by everyone; at most max_pinned_mb MiB. */
static atomic64_t axl_pinned;

/**
 * struct axl_pin - one buffer an open file pins
 * @node:  in the file's @pins list (empty for axl_pin_new()'s).
 * @buf:   the buffer; alive while @users is non-zero (each user holds it).
 * @size:  bytes charged.
 * @user:  who they are charged to.
 * @users: imports and jobs of the file that use @buf (1 for axl_pin_new()'s).
 */
struct axl_pin {
	struct list_head node;
	const struct dma_buf *buf;
	u64 size;
	struct axl_user *user;
	unsigned int users;
};

/* Add @size to @counter unless that takes it past @cap_mb MiB. */
static bool axl_charge(atomic64_t *counter, u64 size, unsigned int cap_mb)
{
	if (atomic64_add_return(size, counter) <= ((u64)cap_mb << 20))
		return true;
	atomic64_sub(size, counter);
	return false;
}

static int axl_pin_charge(struct axl_pin *pin)
{
	pin->user = axl_user_get();
	if (!pin->user)
		return -ENOMEM;
	if (!axl_charge(&pin->user->pinned, pin->size,
			READ_ONCE(max_user_pinned_mb)))
		goto err_put_user;
	if (!axl_charge(&axl_pinned, pin->size, READ_ONCE(max_pinned_mb)))
		goto err_uncharge_user;
	return 0;

err_uncharge_user:
	atomic64_sub(pin->size, &pin->user->pinned);
err_put_user:
	axl_user_put(pin->user);
	return -ENOSPC;
}

static struct axl_pin *axl_pin_find(struct axl_file *file,
				    const struct dma_buf *buf)
{
	struct axl_pin *pin;

	lockdep_assert_held(&file->pins_lock);
	list_for_each_entry(pin, &file->pins, node)
		if (pin->buf == buf)
			return pin;
	return NULL;
}

/**
 * axl_pin_new() - charge a buffer held by one holder alone
 * @buf: the buffer; the caller holds a reference until axl_pin_free().
 *
 * For a Metis file's attachment: charged to the user of the call, like
 * the first use in axl_pin_get().
 *
 * Return: the pin; ERR_PTR(-ENOSPC) when the buffer would take the caller's
 * user past max_user_pinned_mb or everyone past max_pinned_mb; -ENOMEM.
 */
struct axl_pin *axl_pin_new(const struct dma_buf *buf)
{
	struct axl_pin *pin;
	int ret;

	pin = AXL_FAULT_NULL("pin.alloc", kzalloc(sizeof(*pin), GFP_KERNEL_ACCOUNT));
	if (!pin)
		return ERR_PTR(-ENOMEM);
	INIT_LIST_HEAD(&pin->node);
	pin->buf = buf;
	pin->size = buf->size;
	pin->users = 1;
	ret = axl_pin_charge(pin);
	if (ret) {
		kfree(pin);
		return ERR_PTR(ret);
	}
	atomic64_inc(&axl_stats.pins);
	return pin;
}

/* Give a pin's bytes back to its user and everyone; free it. */
static void axl_pin_uncharge(struct axl_pin *pin)
{
	atomic64_sub(pin->size, &axl_pinned);
	atomic64_sub(pin->size, &pin->user->pinned);
	axl_user_put(pin->user);
	kfree(pin);
	atomic64_dec(&axl_stats.pins);
}

/**
 * axl_pin_free() - undo axl_pin_new()
 * @pin: the pin; NULL does nothing.
 */
void axl_pin_free(struct axl_pin *pin)
{
	if (pin)
		axl_pin_uncharge(pin);
}

/**
 * axl_pin_get() - count a buffer @file keeps mapped
 * @file: the open file the import or job belongs to.
 * @buf:  the buffer; the caller holds a reference until axl_pin_put().
 *
 * Return: 0; -ENOSPC when the buffer would take the caller's user past
 * max_user_pinned_mb or everyone past max_pinned_mb; -ENOMEM.
 */
int axl_pin_get(struct axl_file *file, const struct dma_buf *buf)
{
	struct axl_pin *pin;
	int ret = 0;

	mutex_lock(&file->pins_lock);
	pin = axl_pin_find(file, buf);
	if (pin) {
		pin->users++;
		goto out;
	}
	pin = axl_pin_new(buf);
	if (IS_ERR(pin)) {
		ret = PTR_ERR(pin);
		goto out;
	}
	list_add(&pin->node, &file->pins);
out:
	mutex_unlock(&file->pins_lock);
	return ret;
}

/**
 * axl_pin_put() - end one use counted by axl_pin_get()
 * @file: as given to axl_pin_get().
 * @buf:  as given to axl_pin_get().
 */
void axl_pin_put(struct axl_file *file, const struct dma_buf *buf)
{
	struct axl_pin *pin;

	mutex_lock(&file->pins_lock);
	pin = axl_pin_find(file, buf);
	if (WARN_ON(!pin) || --pin->users)
		goto out;
	list_del(&pin->node);
	axl_pin_uncharge(pin);
out:
	mutex_unlock(&file->pins_lock);
}
