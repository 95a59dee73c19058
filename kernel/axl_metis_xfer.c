// SPDX-License-Identifier: GPL-2.0
/*
 * axl: DMA_ATTACH, DMA_DETACH and DMA_XFER of the Metis-compatible node, and
 * the card memory its simulated eDMA copies to and from.
 *
 * metis.ko attaches a buffer to the card's PCI function, maps it
 * DMA_BIDIRECTIONAL and keeps the whole scatterlist. A transfer is bounded
 * by the sum of every DMA entry's length, and its eDMA is programmed with a
 * linked list of descriptors, one per entry the transfer touches (the first
 * one starting at the offset, the last one cut at the size), at most
 * AXL_METIS_LL_MAX per pass; a longer list takes more passes. A scattered
 * buffer (a system-heap buffer without an IOMMU to merge it) therefore
 * transfers whole: contiguity is not required.
 *
 * The node builds the same descriptors, pass by pass, and its eDMA runs
 * them: a kernel-side copy of each descriptor's run through a vmap of the
 * buffer, standing in for the card's PCIe DMA. The vmap covers the
 * buffer's size, so transfers are also bounded by that size: an exporter
 * whose table is longer than its buffer cannot take a copy past the vmap. The buffer offset of an
 * entry is the sum of the lengths of the entries before it. CPU access is
 * bracketed by dma_buf_begin_cpu_access()/end_cpu_access(), so the exporter
 * keeps every attachment coherent. The node signals no dma_fence, so the
 * copy runs outside any fence-signalling section. The axl_metis_xfer trace
 * event records how much moved.
 *
 * Card memory is a vmalloc()ed area of metis_card_mb MiB at card address 0.
 */
#include <linux/dma-buf.h>
#include <linux/delay.h>
#include <linux/dma-mapping.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/overflow.h>
#include <linux/poll.h>
#include <linux/scatterlist.h>
#include <linux/slab.h>
#include <linux/stringify.h>
#include <linux/uaccess.h>
#include <linux/vmalloc.h>

#include "axl_drv.h"
#include "axl_metis.h"
#include "axl_trace.h"

static unsigned int metis_card_mb = 64;
module_param(metis_card_mb, uint, 0444);
MODULE_PARM_DESC(metis_card_mb, "Card memory of the Metis-compatible node in MiB (default: 64)");

static unsigned int metis_xfer_us = 100;
module_param(metis_xfer_us, uint, 0644);
MODULE_PARM_DESC(metis_xfer_us, "Set-up time of each simulated eDMA transfer in microseconds (default: 100)");

static unsigned int metis_done_us;
module_param(metis_done_us, uint, 0644);
MODULE_PARM_DESC(metis_done_us, "Delay between the end of a simulated eDMA copy and its completion being reported, in microseconds (default: 0)");

static unsigned int metis_ll_max = AXL_METIS_LL_MAX;
module_param(metis_ll_max, uint, 0644);
MODULE_PARM_DESC(metis_ll_max, "eDMA descriptors per pass, 1 to " __stringify(AXL_METIS_LL_MAX) " (default: " __stringify(AXL_METIS_LL_MAX) ", as metis.ko)");

static unsigned int metis_sync_wait_ms;
module_param(metis_sync_wait_ms, uint, 0644);
MODULE_PARM_DESC(metis_sync_wait_ms, "Test only: a SYNC transfer sleeps this long after it is queued, before it waits for its end (default: 0)");

#define AXL_METIS_VALID_FLAGS (AXL_METIS_XFER_READ | AXL_METIS_XFER_WRITE | \
			       AXL_METIS_XFER_SYNC | AXL_METIS_XFER_ASYNC)

/* A SYNC transfer waits at most this long; metis.ko's default dma_timeout is 2 s. */
#define AXL_METIS_SYNC_TIMEOUT_MS 2000

static u8 *axl_card;
static u64 axl_card_bytes;
static atomic_t axl_metis_next_id = ATOMIC_INIT(0);

/**
 * axl_metis_card_init() - allocate the card memory
 *
 * Return: 0, -EINVAL for metis_card_mb 0, or -ENOMEM.
 */
int axl_metis_card_init(void)
{
	if (!metis_card_mb)
		return -EINVAL;
	axl_card_bytes = (u64)metis_card_mb << 20;
	axl_card = vzalloc(axl_card_bytes);
	return axl_card ? 0 : -ENOMEM;
}

/**
 * axl_metis_card_fini() - free the card memory; no transfer may be left
 */
void axl_metis_card_fini(void)
{
	vfree(axl_card);
	axl_card = NULL;
}

/**
 * axl_metis_card_size() - bytes of card memory, at card address 0
 *
 * Return: the size.
 */
u64 axl_metis_card_size(void)
{
	return axl_card_bytes;
}

static void axl_metis_xfer_work(struct work_struct *work);

/**
 * axl_metis_file_init() - set up the transfer state of a new file
 * @f: zeroed file state.
 */
void axl_metis_file_init(struct axl_metis_file *f)
{
	mutex_init(&f->lock);
	INIT_LIST_HEAD(&f->node);
	atomic_set(&f->state, 0);
	atomic_set(&f->poll_events, 0);
	init_waitqueue_head(&f->poll_wq);
	INIT_DELAYED_WORK(&f->work, axl_metis_xfer_work);
}

/*
 * dma_buf_get(), attach, map and vmap: everything an attachment holds. The
 * caller holds the device lock and f->lock, and f has nothing attached.
 */
static int axl_metis_map(struct axl_metis_file *f, int fd)
{
	struct scatterlist *sg;
	int ret, i;

	f->dev = axl_dev();
	f->dmabuf = AXL_FAULT_PTR("metis.dma_buf_get", -EBADF, dma_buf_get(fd));
	if (IS_ERR(f->dmabuf)) {
		ret = PTR_ERR(f->dmabuf);
		goto err_clear;
	}
	/* READ transfers store the card's bytes in it: not a read-only buffer */
	if (!axl_dma_buf_writable(f->dmabuf)) {
		ret = -EACCES;
		goto err_put;
	}
	/* mapped until detached: charged to the caller's user (axl_pin.c) */
	f->pin = axl_pin_new(f->dmabuf);
	if (IS_ERR(f->pin)) {
		ret = PTR_ERR(f->pin);
		goto err_put;
	}
	/* one mapping for writing per buffer, as for /dev/axl (axl_writers.c) */
	ret = axl_writer_claim(f->dmabuf, f, AXL_METIS_DIR);
	if (ret)
		goto err_unpin;
	f->attach = AXL_FAULT_PTR("metis.attach", -ENOMEM,
				  dma_buf_attach(f->dmabuf, f->dev));
	if (IS_ERR(f->attach)) {
		ret = PTR_ERR(f->attach);
		goto err_unclaim;
	}
	f->sgt = AXL_FAULT_PTR("metis.map", -ENOMEM,
			       dma_buf_map_attachment_unlocked(f->attach, AXL_METIS_DIR));
	if (IS_ERR(f->sgt)) {
		ret = PTR_ERR(f->sgt);
		goto err_detach;
	}
	ret = -EIO;
	if (!f->sgt->nents)
		goto err_unmap;
	ret = AXL_FAULT_INT("metis.vmap", -ENOMEM, axl_dma_buf_vmap(f->dmabuf, &f->map));
	if (ret)
		goto err_unmap;
	/* the simulated eDMA copies with plain loads and stores */
	ret = -EOPNOTSUPP;
	if (f->map.is_iomem)
		goto err_vunmap;
	ret = -ENOMEM;
	f->ll = AXL_FAULT_NULL("metis.ll",
			       kmalloc_array(AXL_METIS_LL_MAX, sizeof(*f->ll), GFP_KERNEL));
	if (!f->ll)
		goto err_vunmap;

	f->phys = sg_dma_address(f->sgt->sgl);
	f->mapped_len = 0;
	/* as metis.ko sums them: up to the first entry of length 0 */
	for_each_sgtable_dma_sg(f->sgt, sg, i) {
		if (!sg_dma_len(sg))
			break;
		f->mapped_len += sg_dma_len(sg);
	}
	/*
	 * The eDMA copies through the vmap, which covers the buffer's size: a
	 * table longer than that (a broken exporter) must not take a copy
	 * past it. Transfers are bounded by both.
	 */
	if (f->mapped_len > f->dmabuf->size) {
		pr_warn_ratelimited("axl: dma-buf %lu: DMA table of %llu bytes, longer than its %zu: transfers stop at its size\n",
				    file_inode(f->dmabuf->file)->i_ino, f->mapped_len,
				    f->dmabuf->size);
		f->mapped_len = f->dmabuf->size;
	}
	f->nents = f->sgt->nents;
	f->inode = file_inode(f->dmabuf->file)->i_ino;
	f->id = atomic_inc_return(&axl_metis_next_id);
	return 0;

err_vunmap:
	axl_dma_buf_vunmap(f->dmabuf, &f->map);
err_unmap:
	dma_buf_unmap_attachment_unlocked(f->attach, f->sgt, AXL_METIS_DIR);
err_detach:
	dma_buf_detach(f->dmabuf, f->attach);
err_unclaim:
	axl_writer_release(f->dmabuf, AXL_METIS_DIR);
err_unpin:
	axl_pin_free(f->pin);
err_put:
	dma_buf_put(f->dmabuf);
err_clear:
	f->pin = NULL;
	f->dmabuf = NULL;
	f->attach = NULL;
	f->sgt = NULL;
	return ret;
}

/* Undo axl_metis_map(); f->lock held, no transfer in flight. */
static void axl_metis_unmap(struct axl_metis_file *f)
{
	trace_axl_dmabuf_release(f->id, f->dmabuf, f->phys, f->dmabuf->size);
	kfree(f->ll);
	f->ll = NULL;
	axl_dma_buf_vunmap(f->dmabuf, &f->map);
	dma_buf_unmap_attachment_unlocked(f->attach, f->sgt, AXL_METIS_DIR);
	dma_buf_detach(f->dmabuf, f->attach);
	axl_writer_release(f->dmabuf, AXL_METIS_DIR);
	axl_pin_free(f->pin);
	f->pin = NULL;
	dma_buf_put(f->dmabuf);
	f->dmabuf = NULL;
	f->attach = NULL;
	f->sgt = NULL;
	atomic64_dec(&axl_stats.imports);
	atomic64_inc(&axl_stats.released);
}

/**
 * axl_metis_attach() - AXL_METIS_IOCTL_DMA_ATTACH
 * @f:    the calling file.
 * @uarg: an int, the dma-buf fd.
 *
 * Return: 0; -EFAULT; -EBADF or -EINVAL for an fd that is not a dma-buf;
 * -EBUSY when the file has a buffer attached already (metis.ko would
 * overwrite, and leak, the first) or another mapping writes this buffer;
 * -ENOSPC when the buffer would take the bytes the caller's user pins past
 * max_user_pinned_mb, or everyone's past max_pinned_mb (as an import on
 * /dev/axl; see axl_pin.c);
 * -ENODEV when the engine's device is gone; -EOPNOTSUPP for a buffer the
 * kernel can only map as I/O memory; or what attaching or mapping returned.
 */
int axl_metis_attach(struct axl_metis_file *f, int __user *uarg)
{
	int fd, ret;

	if (get_user(fd, uarg))
		return -EFAULT;
	ret = axl_dev_lock();
	if (ret)
		return ret;
	mutex_lock(&f->lock);
	if (f->dmabuf) {
		ret = -EBUSY;
	} else {
		ret = axl_metis_map(f, fd);
		if (!ret) {
			atomic64_inc(&axl_stats.imports);
			atomic64_inc(&axl_stats.imported);
			trace_axl_dmabuf_import(f->id, f->dmabuf, f->phys,
						f->dmabuf->size);
		}
	}
	mutex_unlock(&f->lock);
	axl_dev_unlock();
	return ret;
}

/**
 * axl_metis_detach() - AXL_METIS_IOCTL_DMA_DETACH
 * @f: the calling file.
 *
 * Return: 0; -EINVAL when nothing is attached; -EBUSY while a transfer is
 * queued or running.
 */
int axl_metis_detach(struct axl_metis_file *f)
{
	int ret = 0;

	axl_dev_hold(); /* a removal detaches either before or after this */
	mutex_lock(&f->lock);
	if (!f->dmabuf)
		ret = -EINVAL;
	else if (f->busy)
		ret = -EBUSY;
	else
		axl_metis_unmap(f);
	mutex_unlock(&f->lock);
	axl_dev_unlock();
	return ret;
}

static int axl_metis_xfer_check_flags(s32 flags)
{
	s32 dir = flags & (AXL_METIS_XFER_READ | AXL_METIS_XFER_WRITE);
	s32 mode = flags & (AXL_METIS_XFER_SYNC | AXL_METIS_XFER_ASYNC);

	if (flags & ~AXL_METIS_VALID_FLAGS)
		return -EINVAL;
	/* exactly one direction and one mode, as metis.ko checks */
	if (dir != AXL_METIS_XFER_READ && dir != AXL_METIS_XFER_WRITE)
		return -EINVAL;
	if (mode != AXL_METIS_XFER_SYNC && mode != AXL_METIS_XFER_ASYNC)
		return -EINVAL;
	return 0;
}

/* The ranges of a transfer, against the attached buffer and card memory. */
static int axl_metis_xfer_check_range(const struct axl_metis_file *f,
				      const struct axl_metis_xfer *x)
{
	u64 buf_end, card_end;

	if (!x->size || x->channel >= AXL_METIS_DMA_CHANNELS)
		return -EINVAL;
	if (check_add_overflow((u64)x->offset, (u64)x->size, &buf_end) ||
	    buf_end > f->mapped_len)
		return -EINVAL;
	if (check_add_overflow(x->phy, (u64)x->size, &card_end) ||
	    card_end > axl_card_bytes)
		return -EINVAL;
	return 0;
}

/**
 * struct axl_metis_walk - where the descriptor list of a transfer stands
 * @sg:   the next DMA entry.
 * @left: entries from @sg to the end of the table.
 * @pos:  buffer offset of @sg: the lengths of the entries before it.
 * @skip: bytes of the transfer's offset not yet passed.
 * @size: bytes not yet described.
 * @card: card address of the next byte.
 */
struct axl_metis_walk {
	struct scatterlist *sg;
	unsigned int left;
	u64 pos;
	u64 skip;
	u64 size;
	u64 card;
};

/*
 * One pass: up to @max descriptors from where @w stands, as metis.ko fills
 * a linked list; entries wholly before the offset are passed over. Returns
 * the number of descriptors, 0 when the transfer is described.
 */
static unsigned int axl_metis_ll_build(struct axl_metis_walk *w, struct axl_metis_desc *ll,
				       unsigned int max)
{
	unsigned int n = 0;

	while (n < max && w->left && w->size) {
		u64 len = sg_dma_len(w->sg);

		if (w->skip >= len) {
			w->skip -= len;
		} else {
			ll[n].pos = w->pos + w->skip;
			ll[n].len = min(len - w->skip, w->size);
			ll[n].card = w->card;
			w->card += ll[n].len;
			w->size -= ll[n].len;
			w->skip = 0;
			n++;
		}
		w->pos += len;
		w->sg = sg_next(w->sg);
		w->left--;
	}
	return n;
}

/* The eDMA runs one pass: each descriptor's bytes, in order. Returns the bytes moved. */
static u64 axl_metis_ll_run(struct axl_metis_file *f, const struct axl_metis_desc *ll,
			    unsigned int n, bool to_buffer)
{
	u64 moved = 0;
	unsigned int i;

	for (i = 0; i < n; i++) {
		u8 *buf = (u8 *)f->map.vaddr + ll[i].pos;
		u8 *card = axl_card + ll[i].card;

		if (to_buffer)
			memcpy(buf, card, ll[i].len);
		else
			memcpy(card, buf, ll[i].len);
		moved += ll[i].len;
	}
	return moved;
}

/*
 * The eDMA copy of @x over every entry of the attached buffer, in passes of
 * metis_ll_max descriptors. Sets *@moved to the bytes moved; returns 0, what
 * dma_buf_begin_cpu_access() returned, or -EIO when the list ran out before
 * the size (the range check makes that impossible).
 */
static int axl_metis_copy(struct axl_metis_file *f, const struct axl_metis_xfer *x, u64 *moved)
{
	struct axl_metis_walk w = {
		.sg = f->sgt->sgl, .left = f->sgt->nents,
		.skip = x->offset, .size = x->size, .card = x->phy,
	};
	unsigned int max = clamp_t(unsigned int, READ_ONCE(metis_ll_max), 1, AXL_METIS_LL_MAX);
	bool to_buffer = x->flags & AXL_METIS_XFER_READ;
	/* a READ stores into part of the buffer, a WRITE reads it (axl_drv.h) */
	enum dma_data_direction dir = to_buffer ? AXL_CPU_READ_WRITE : AXL_CPU_READ;
	unsigned int n;
	int ret;

	*moved = 0;
	ret = AXL_FAULT_INT("metis.begin_cpu", -EIO,
			    dma_buf_begin_cpu_access(f->dmabuf, dir));
	if (ret)
		return ret;
	while ((n = axl_metis_ll_build(&w, f->ll, max)))
		*moved += axl_metis_ll_run(f, f->ll, n, to_buffer);
	dma_buf_end_cpu_access(f->dmabuf, dir);
	return *moved == x->size ? 0 : -EIO;
}

/*
 * End the transfer in flight with @status: state, poll event, waiter. All
 * of it is published under f->lock with @busy cleared last, so the next
 * transfer can only be queued once this one reads DONE, its event is raised
 * and its waiters are woken: none of these can be taken for the next one's.
 */
static void axl_metis_xfer_end(struct axl_metis_file *f, int status, u64 moved)
{
	trace_axl_metis_xfer(f->id, f->inode, f->xfer.phy, f->xfer.offset,
			     f->xfer.size, moved, f->xfer.flags, status);
	axl_metis_count_end(&f->xfer, status, f->queued);
	mutex_lock(&f->lock);
	atomic_cmpxchg(&f->state, AXL_METIS_XFER_PENDING,
		       status ? AXL_METIS_XFER_FAIL : AXL_METIS_XFER_DONE);
	/* metis.ko raises a poll event for every transfer, SYNC ones too */
	atomic_inc(&f->poll_events);
	wake_up_interruptible_poll(&f->poll_wq, EPOLLIN | EPOLLRDNORM);
	if (f->waiter) {
		f->waiter->status = status;
		complete(&f->waiter->done);
		f->waiter = NULL;
	}
	f->busy = false;
	mutex_unlock(&f->lock);
}

static void axl_metis_xfer_work(struct work_struct *work)
{
	struct axl_metis_file *f = container_of(to_delayed_work(work),
						struct axl_metis_file, work);
	ktime_t start = ktime_get();
	unsigned int done_us;
	u64 moved;
	int status;

	status = axl_metis_copy(f, &f->xfer, &moved);
	axl_metis_trace_add(&f->xfer, f->queued, start, ktime_get(), moved);
	/* the card's interrupt latency, widened for tests */
	done_us = READ_ONCE(metis_done_us);
	if (done_us)
		fsleep(done_us);
	axl_metis_xfer_end(f, status, moved);
}

/* Queue @x on @f with @w, its SYNC caller (NULL for ASYNC); the caller holds the device lock. */
static int axl_metis_xfer_queue(struct axl_metis_file *f, const struct axl_metis_xfer *x,
				struct axl_metis_waiter *w)
{
	int ret;

	mutex_lock(&f->lock);
	if (f->busy) {
		ret = -EBUSY; /* metis.ko: one transfer in flight per file */
	} else if (!f->dmabuf) {
		ret = -EINVAL; /* nothing attached */
	} else {
		ret = axl_metis_xfer_check_range(f, x);
	}
	if (!ret) {
		f->busy = true;
		f->xfer = *x;
		f->xfer.channel = max(x->channel, 0);
		f->queued = ktime_get();
		f->waiter = w;
		if (x->flags & AXL_METIS_XFER_ASYNC)
			atomic_set(&f->state, AXL_METIS_XFER_PENDING);
		axl_metis_count_start(&f->xfer, f->nents);
		queue_delayed_work(system_unbound_wq, &f->work,
				   usecs_to_jiffies(READ_ONCE(metis_xfer_us)));
	}
	mutex_unlock(&f->lock);
	return ret;
}

/**
 * axl_metis_xfer() - AXL_METIS_IOCTL_DMA_XFER
 * @f:    the calling file.
 * @uarg: struct axl_metis_xfer in user memory.
 *
 * Return: 0 once an ASYNC transfer is queued or a SYNC one is done; -EFAULT;
 * -EINVAL for flags that are not one direction and one mode, a size of 0, a
 * channel past the last, a range past the attached buffer or card memory,
 * or nothing attached; -EBUSY while a transfer is in flight on this file;
 * -ENODEV when the engine's device is gone; -ETIMEDOUT when a SYNC transfer
 * did not end within 2 s (it still ends later); -EINTR when its wait was
 * killed.
 */
int axl_metis_xfer(struct axl_metis_file *f, void __user *uarg)
{
	struct axl_metis_waiter w;
	struct axl_metis_xfer x;
	bool ended;
	long left;
	int ret;

	if (copy_from_user(&x, uarg, sizeof(x)))
		return -EFAULT;
	ret = axl_metis_xfer_check_flags(x.flags);
	if (ret)
		return ret;
	ret = axl_dev_lock();
	if (ret)
		return ret;
	init_completion(&w.done);
	ret = axl_metis_xfer_queue(f, &x, x.flags & AXL_METIS_XFER_ASYNC ? NULL : &w);
	axl_dev_unlock();
	if (ret || (x.flags & AXL_METIS_XFER_ASYNC))
		return ret;
	if (READ_ONCE(metis_sync_wait_ms))
		msleep(READ_ONCE(metis_sync_wait_ms));

	/* our own completion: a later transfer on the file never touches it */
	left = wait_for_completion_killable_timeout(&w.done,
			msecs_to_jiffies(AXL_METIS_SYNC_TIMEOUT_MS));
	if (left > 0)
		return w.status;
	/* giving up: take @w back, unless the transfer ended meanwhile */
	mutex_lock(&f->lock);
	ended = f->waiter != &w;
	if (!ended)
		f->waiter = NULL;
	mutex_unlock(&f->lock);
	if (ended)
		return w.status;
	return left < 0 ? -EINTR : -ETIMEDOUT;
}

/**
 * axl_metis_stop() - end the file's transfer and, on @revoke, its attachment
 * @f:      the file; no ioctl runs on it when called from release.
 * @revoke: also detach the buffer (release, device removal).
 *
 * A transfer still waiting for the eDMA ends with -ECANCELED and copies
 * nothing; one being copied is waited for. Called with the device lock
 * held (for writing, from a removal) or after axl_dev_hold().
 */
void axl_metis_stop(struct axl_metis_file *f, bool revoke)
{
	if (cancel_delayed_work_sync(&f->work))
		axl_metis_xfer_end(f, -ECANCELED, 0);
	if (!revoke)
		return;
	mutex_lock(&f->lock);
	if (f->dmabuf)
		axl_metis_unmap(f);
	mutex_unlock(&f->lock);
}
