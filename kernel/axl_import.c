// SPDX-License-Identifier: GPL-2.0
/*
 * axl: AXL_IOCTL_IMPORT_FD, AXL_IOCTL_IMPORT_FD2 and AXL_IOCTL_RELEASE_IMPORT.
 *
 * An import attaches a dma-buf to the engine's device and maps it there for
 * as long as the handle lives, so the IOVA user space is told stays valid
 * and debugfs bufinfo lists the device among the buffer's attachments.
 * Handles belong to the open file that made them.
 *
 * Imports pin their buffers, so besides the per-file handle limit their
 * bytes count against the caller's user and all users (axl_pin.c).
 */
#include <linux/dma-buf.h>
#include <linux/fs.h>
#include <linux/capability.h>
#include <linux/delay.h>
#include <linux/module.h>
#include <linux/scatterlist.h>
#include <linux/user_namespace.h>
#include <linux/slab.h>
#include <linux/uaccess.h>
#include <linux/wait_bit.h>

#include "axl_compat.h"
#include "axl_drv.h"
#include "axl_trace.h"

static unsigned int max_imports = 64;
module_param(max_imports, uint, 0444);
MODULE_PARM_DESC(max_imports, "Imports one open file may hold at once (default: 64)");

static unsigned int import_copy_wait_ms;
module_param(import_copy_wait_ms, uint, 0644);
MODULE_PARM_DESC(import_copy_wait_ms, "Test only: an import sleeps this long after its handle is made, before its answer is copied out (default: 0)");

/* Handle 0 is never used, so a zeroed struct never names an import. */
#define AXL_HANDLE_LIMIT XA_LIMIT(1, INT_MAX)

/*
 * A handle stored but not yet told to user space: its import is in the
 * array, so a device removal revokes it and close releases it, but no
 * lookup by handle (SUBMIT, RELEASE_IMPORT) finds it until the answer was
 * copied out. XA_MARK_0 is the allocating array's free mark.
 */
#define AXL_IMPORT_PENDING XA_MARK_1

/**
 * axl_max_imports() - the per-file import limit
 *
 * Return: imports one open file may hold at once (at least 1).
 */
u32 axl_max_imports(void)
{
	return max_imports ? max_imports : 1;
}

static int axl_import_dir(u32 flags, enum dma_data_direction *dir)
{
	switch (flags) {
	case AXL_IMPORT_TO_DEVICE:
		*dir = DMA_TO_DEVICE;
		return 0;
	case AXL_IMPORT_FROM_DEVICE:
		*dir = DMA_FROM_DEVICE;
		return 0;
	case AXL_IMPORT_BIDIRECTIONAL:
		*dir = DMA_BIDIRECTIONAL;
		return 0;
	}
	return -EINVAL; /* none, several, or unknown bits */
}

static bool axl_sgt_contiguous(struct sg_table *sgt)
{
	dma_addr_t next = sg_dma_address(sgt->sgl);
	struct scatterlist *sg;
	int i;

	for_each_sgtable_dma_sg(sgt, sg, i) {
		if (sg_dma_address(sg) != next)
			return false;
		next += sg_dma_len(sg);
	}
	return true;
}

/*
 * dma_buf_get(), attach to the engine's device and map: the IOVA comes from
 * here. The caller holds the device lock (axl_dev_lock()).
 */
static int axl_import_map(struct axl_import *imp, int fd)
{
	struct device *dev = axl_dev();
	int ret;

	if (!dev)
		return -ENODEV;

	imp->dmabuf = AXL_FAULT_PTR("import.dma_buf_get", -EBADF, dma_buf_get(fd));
	if (IS_ERR(imp->dmabuf))
		return PTR_ERR(imp->dmabuf);

	if (imp->frame.size > imp->dmabuf->size) {
		ret = -EINVAL;
		goto err_put;
	}
	/* mapped for device writes: not a read-only buffer */
	if (imp->dir != DMA_TO_DEVICE && !axl_dma_buf_writable(imp->dmabuf)) {
		ret = -EACCES;
		goto err_put;
	}
	ret = axl_pin_get(imp->file, imp->dmabuf);
	if (ret)
		goto err_put;
	ret = axl_writer_claim(imp->dmabuf, imp, imp->dir);
	if (ret)
		goto err_unpin;

	imp->dev = dev;
	imp->attach = AXL_FAULT_PTR("import.attach", -ENOMEM,
				    dma_buf_attach(imp->dmabuf, dev));
	if (IS_ERR(imp->attach)) {
		ret = PTR_ERR(imp->attach);
		goto err_unclaim;
	}

	imp->sgt = AXL_FAULT_PTR("import.map", -ENOMEM,
				 dma_buf_map_attachment_unlocked(imp->attach,
								 axl_map_dir(imp->dir)));
	if (IS_ERR(imp->sgt)) {
		ret = PTR_ERR(imp->sgt);
		goto err_detach;
	}
	if (!imp->sgt->nents) {
		ret = -EIO;
		goto err_unmap;
	}

	imp->iova = sg_dma_address(imp->sgt->sgl);
	imp->contiguous = axl_sgt_contiguous(imp->sgt);
	imp->inode = file_inode(imp->dmabuf->file)->i_ino;
	return 0;

err_unmap:
	dma_buf_unmap_attachment_unlocked(imp->attach, imp->sgt, axl_map_dir(imp->dir));
err_detach:
	dma_buf_detach(imp->dmabuf, imp->attach);
err_unclaim:
	axl_writer_release(imp->dmabuf, imp->dir);
err_unpin:
	axl_pin_put(imp->file, imp->dmabuf);
err_put:
	dma_buf_put(imp->dmabuf);
	return ret;
}

/* Let go of the device: unmap and detach, unless revoked already. */
static void axl_import_detach(struct axl_import *imp)
{
	if (!imp->attach)
		return;
	dma_buf_unmap_attachment_unlocked(imp->attach, imp->sgt, axl_map_dir(imp->dir));
	dma_buf_detach(imp->dmabuf, imp->attach);
	axl_writer_release(imp->dmabuf, imp->dir);
	imp->attach = NULL;
	imp->sgt = NULL;
}

static void axl_import_unmap(struct axl_import *imp)
{
	axl_import_detach(imp);
	axl_pin_put(imp->file, imp->dmabuf);
	dma_buf_put(imp->dmabuf);
}

static void axl_import_free(struct kref *ref)
{
	struct axl_import *imp = container_of(ref, struct axl_import, ref);

	trace_axl_dmabuf_release(imp->handle, imp->dmabuf, imp->iova,
				 imp->dmabuf->size);
	axl_import_unmap(imp);
	atomic64_dec(&axl_stats.imports);
	atomic64_inc(&axl_stats.released);
	kfree(imp);
}

/* Reserve a handle: visible to no lookup until axl_handle_commit(). */
static int axl_handle_reserve(struct axl_file *file, u32 *handle)
{
	int ret;

	mutex_lock(&file->lock);
	if (file->nr_imports >= axl_max_imports()) {
		ret = -ENOSPC;
	} else {
		ret = AXL_FAULT_INT("import.xa_alloc", -ENOMEM,
				    xa_alloc_cyclic(&file->imports, handle, NULL,
						    AXL_HANDLE_LIMIT,
						    &file->next_handle, GFP_KERNEL));
		if (ret >= 0) {
			file->nr_imports++;
			ret = 0;
		}
	}
	mutex_unlock(&file->lock);
	return ret;
}

static void axl_handle_unreserve(struct axl_file *file, u32 handle)
{
	mutex_lock(&file->lock);
	xa_release(&file->imports, handle);
	file->nr_imports--;
	mutex_unlock(&file->lock);
}

static int axl_handle_commit(struct axl_file *file, struct axl_import *imp)
{
	int ret;

	mutex_lock(&file->lock);
	ret = AXL_FAULT_INT("import.xa_store", -ENOMEM,
			    xa_err(xa_store(&file->imports, imp->handle, imp,
					    GFP_KERNEL)));
	if (!ret) {
		xa_set_mark(&file->imports, imp->handle, AXL_IMPORT_PENDING);
		atomic64_inc(&axl_stats.imports);
		atomic64_inc(&axl_stats.imported);
		/* under the lock: a racing release cannot free imp yet */
		trace_axl_dmabuf_import(imp->handle, imp->dmabuf, imp->iova,
					imp->dmabuf->size);
	}
	mutex_unlock(&file->lock);
	return ret;
}

static void axl_import_fill(struct axl_import_fd *args,
			    const struct axl_import *imp)
{
	args->handle = imp->handle;
	args->out_flags = imp->contiguous ? AXL_IMPORT_OUT_CONTIGUOUS : 0;
	/*
	 * Without an IOMMU the IOVA is a physical address: like the PFNs
	 * in /proc/<pid>/pagemap, only CAP_SYS_ADMIN gets to see it. Not
	 * having it is no error, so no audit record of a denial either.
	 */
	args->iova_base = ns_capable_noaudit(&init_user_ns, CAP_SYS_ADMIN) ?
			  imp->iova : 0;
	args->size = imp->dmabuf->size;
	args->inode = imp->inode;
	args->nents = imp->sgt->nents;
}

/* Fills the answer to user space from a new import, before it is visible. */
typedef void (*axl_import_fill_fn)(const struct axl_import *imp, void *ctx);

/*
 * The path both import ioctls share once the frame is validated: map the
 * dma-buf of @fd, reserve a handle, fill the answer through @fill and store
 * the import, pending: no lookup by handle finds it before
 * axl_import_copy_out() told user space. On failure everything but @imp
 * itself is undone.
 */
static int axl_import_add(struct axl_file *file, struct axl_import *imp,
			  int fd, axl_import_fill_fn fill, void *ctx)
{
	u32 handle;
	int ret;

	/* cheap early check; axl_handle_reserve() has the final word */
	if (READ_ONCE(file->nr_imports) >= axl_max_imports())
		return -ENOSPC;

	imp->file = file;
	/* held until the handle is committed, so a device removal revokes it */
	ret = axl_dev_lock();
	if (ret)
		return ret;
	ret = axl_import_map(imp, fd);
	if (ret)
		goto err_unlock_dev;

	ret = axl_handle_reserve(file, &handle);
	if (ret)
		goto err_unmap;
	imp->handle = handle;
	fill(imp, ctx);

	ret = axl_handle_commit(file, imp);
	if (ret)
		goto err_unreserve;
	axl_dev_unlock();
	return 0;

err_unreserve:
	axl_handle_unreserve(file, handle);
err_unmap:
	axl_import_unmap(imp);
err_unlock_dev:
	axl_dev_unlock();
	return ret;
}

/*
 * Erase @handle and unmap its import: see axl_import_remove(). @pending
 * says which kind of handle: one user space has not been told yet (the
 * import ioctl's own unwind) or one it was; the other kind is -ENOENT.
 */
static int axl_import_erase(struct axl_file *file, u32 handle, bool pending)
{
	struct axl_import *imp;
	int ret = 0;

	axl_dev_hold();
	mutex_lock(&file->lock);
	imp = xa_load(&file->imports, handle);
	if (!imp ||
	    xa_get_mark(&file->imports, handle, AXL_IMPORT_PENDING) != pending) {
		ret = -ENOENT;
	} else if (atomic_read(&imp->busy)) {
		ret = -EBUSY;
	} else {
		xa_erase(&file->imports, handle);
		file->nr_imports--;
	}
	mutex_unlock(&file->lock);
	if (!ret) {
		/* handle erased: nobody can take a new reference */
		wait_var_event(&imp->ref, kref_read(&imp->ref) == 1);
		kref_put(&imp->ref, axl_import_free);
	}
	axl_dev_unlock();
	return ret;
}

/*
 * Tell user space the new handle, then make it visible. The copy happens
 * with no lock held (a copy that stalls holds up nobody else), while the
 * handle is still pending: no other thread of the file can submit on it or
 * release it, even by guessing it (handles are cyclic), so on EFAULT the
 * import is dropped for certain and the caller, told it has none, has none.
 */
static int axl_import_copy_out(struct axl_file *file, void __user *uarg,
			       const void *args, size_t size, u32 handle)
{
	unsigned int wait_ms = READ_ONCE(import_copy_wait_ms);

	if (wait_ms)
		msleep(wait_ms);
	if (copy_to_user(uarg, args, size)) {
		WARN_ON_ONCE(axl_import_erase(file, handle, true));
		return -EFAULT;
	}
	mutex_lock(&file->lock);
	xa_clear_mark(&file->imports, handle, AXL_IMPORT_PENDING);
	mutex_unlock(&file->lock);
	return 0;
}

static struct axl_import *axl_import_alloc(void)
{
	struct axl_import *imp;

	imp = AXL_FAULT_NULL("import.alloc",
			     kzalloc(sizeof(*imp), GFP_KERNEL_ACCOUNT));

	if (imp) {
		kref_init(&imp->ref);
		atomic_set(&imp->busy, 0);
	}
	return imp;
}

static void axl_import_fill_v1(const struct axl_import *imp, void *ctx)
{
	axl_import_fill(ctx, imp);
}

/**
 * axl_import_ioctl() - AXL_IOCTL_IMPORT_FD
 * @file: the calling open file.
 * @uarg: struct axl_import_fd in user memory.
 *
 * Return: 0; -EFAULT; -EINVAL for non-zero pad or reserved fields, a bad
 * direction, geometry or pixel format, a frame larger than the buffer, or
 * an fd that is not a dma-buf; -EBADF for a bad fd; -EACCES for a read-only
 * buffer imported for device writes; -ENOSPC when the file
 * holds max_imports handles or the buffer would take the bytes the caller's
 * user pins past max_user_pinned_mb, or everyone's past max_pinned_mb; -ENODEV when the engine's device is gone; or
 * what attaching or mapping returned.
 */
int axl_import_ioctl(struct axl_file *file, void __user *uarg)
{
	struct axl_import_fd args;
	struct axl_import *imp;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.pad || args.reserved[0] || args.reserved[1])
		return -EINVAL;

	imp = axl_import_alloc();
	if (!imp)
		return -ENOMEM;

	ret = axl_import_dir(args.flags, &imp->dir);
	if (ret)
		goto err_free;
	ret = axl_frame_init(&imp->frame, args.pixfmt, args.width,
			     args.height, args.stride);
	if (ret)
		goto err_free;

	ret = axl_import_add(file, imp, args.fd, axl_import_fill_v1, &args);
	if (ret)
		goto err_free;
	/* no lock held: a copy that faults stalls nobody else */
	return axl_import_copy_out(file, uarg, &args, sizeof(args), args.handle);

err_free:
	kfree(imp);
	return ret;
}

/* The output fields are those of AXL_IOCTL_IMPORT_FD: fill them the same way. */
static void axl_import_fill_v2(const struct axl_import *imp, void *ctx)
{
	struct axl_import_fd2 *args = ctx;
	struct axl_import_fd v1 = {};

	axl_import_fill(&v1, imp);
	args->handle = v1.handle;
	args->out_flags = v1.out_flags;
	args->iova_base = v1.iova_base;
	args->size = v1.size;
	args->inode = v1.inode;
	args->nents = v1.nents;
}

static bool axl_import2_reserved_zero(const struct axl_import_fd2 *args)
{
	u32 i;

	if (args->pad)
		return false;
	for (i = 0; i < ARRAY_SIZE(args->reserved); i++)
		if (args->reserved[i])
			return false;
	return true;
}

/**
 * axl_import2_ioctl() - AXL_IOCTL_IMPORT_FD2
 * @file: the calling open file.
 * @uarg: struct axl_import_fd2 in user memory.
 *
 * Return: as axl_import_ioctl(); also -EINVAL for a plane count that is not
 * the format's, non-zero unused planes or plane reserved fields, a pitch
 * below the line's bytes, planes out of order or overlapping, or a plane
 * past the end of the buffer; -EOPNOTSUPP for a modifier other than
 * AXL_FORMAT_MOD_LINEAR.
 */
int axl_import2_ioctl(struct axl_file *file, void __user *uarg)
{
	struct axl_import_fd2 args;
	struct axl_import *imp;
	int ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (!axl_import2_reserved_zero(&args))
		return -EINVAL;

	imp = axl_import_alloc();
	if (!imp)
		return -ENOMEM;

	ret = axl_import_dir(args.flags, &imp->dir);
	if (ret)
		goto err_free;
	ret = axl_frame_init_planes(&imp->frame, &args);
	if (ret)
		goto err_free;

	ret = axl_import_add(file, imp, args.fd, axl_import_fill_v2, &args);
	if (ret)
		goto err_free;
	return axl_import_copy_out(file, uarg, &args, sizeof(args), args.handle);

err_free:
	kfree(imp);
	return ret;
}

/**
 * axl_import_remove() - drop a handle and unmap its import
 * @file:   the file.
 * @handle: the handle.
 *
 * Jobs that read the import mark it idle before their fences signal, but
 * keep their reference until their cleanup ran (after the signal, off the
 * signalling worker). This waits for those references, so the buffer is
 * unmapped and detached here, in the caller's context. The wait is short:
 * cleanups depend on no fence.
 *
 * The device is held from before the handle is erased to after the
 * unmap: a removal either finds the import in the table and revokes it,
 * or starts once it is unmapped. Never an import it cannot see that is
 * unmapped after the device is gone.
 *
 * Return: 0; -ENOENT when @file has no such handle (also one whose import
 * ioctl has not returned it yet); -EBUSY while a job reading it is in
 * flight.
 */
int axl_import_remove(struct axl_file *file, u32 handle)
{
	return axl_import_erase(file, handle, false);
}

/**
 * axl_release_ioctl() - AXL_IOCTL_RELEASE_IMPORT
 * @file: the calling open file.
 * @uarg: struct axl_release in user memory.
 *
 * The buffer is unmapped and detached when the ioctl returns, and gone
 * from debugfs bufinfo: see axl_import_remove().
 *
 * Return: 0; -EFAULT; -EINVAL for a non-zero reserved field; -ENOENT when
 * this file has no such handle; -EBUSY while a job reading it is in flight.
 */
int axl_release_ioctl(struct axl_file *file, void __user *uarg)
{
	struct axl_release args;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	if (args.reserved)
		return -EINVAL;
	return axl_import_remove(file, args.handle);
}

/**
 * axl_import_get_busy() - look up a handle for a job
 * @file:   the submitting file.
 * @handle: the handle.
 *
 * Takes a reference and marks the import busy, so RELEASE_IMPORT fails
 * with -EBUSY until axl_import_idle().
 *
 * The caller holds the device lock, so a revoked import stays revoked
 * and a live one stays mapped.
 *
 * Return: the import, ERR_PTR(-ENOENT) (also for a handle whose import
 * ioctl has not told it yet), or ERR_PTR(-ENODEV) when the import was
 * revoked.
 */
struct axl_import *axl_import_get_busy(struct axl_file *file, u32 handle)
{
	struct axl_import *imp;

	mutex_lock(&file->lock);
	imp = xa_load(&file->imports, handle);
	if (!imp || xa_get_mark(&file->imports, handle, AXL_IMPORT_PENDING))
		imp = ERR_PTR(-ENOENT);
	else if (!imp->attach)
		imp = ERR_PTR(-ENODEV);
	if (!IS_ERR(imp)) {
		kref_get(&imp->ref);
		atomic_inc(&imp->busy);
	}
	mutex_unlock(&file->lock);
	return imp;
}

/**
 * axl_import_idle() - a job no longer reads the import
 * @imp: from axl_import_get_busy().
 *
 * Called before the job's fence signals, so a release right after the wait
 * succeeds.
 */
void axl_import_idle(struct axl_import *imp)
{
	atomic_dec(&imp->busy);
}

/**
 * axl_import_put() - drop a job's reference
 * @imp: from axl_import_get_busy().
 *
 * Wakes a RELEASE_IMPORT waiting for the jobs' references to go.
 */
void axl_import_put(struct axl_import *imp)
{
	if (kref_put(&imp->ref, axl_import_free))
		return;
	/*
	 * A put that does not free is only a release: without a full barrier
	 * the wake-up's look at the wait queue may be ordered before the
	 * decrement (arm64 does), see no waiter, while the waiter, queued
	 * meanwhile, still reads the old count and sleeps for good.
	 */
	smp_mb__after_atomic();
	wake_up_var(&imp->ref);
}

/**
 * axl_import_release_all() - drop every handle of a closing file
 * @file: the file; no ioctl can run on it any more.
 *
 * One handle at a time: each is erased under the file's lock and put
 * outside it, since the last put unmaps. The device is held from before
 * the erase to after the put, so a removal either revokes the import or
 * starts after it is unmapped. Imports that cancelled jobs still read are
 * unmapped when those jobs are cleaned up (a removal waits for that).
 */
void axl_import_release_all(struct axl_file *file)
{
	struct axl_import *imp;
	unsigned long handle = 0;

	for (;;) {
		axl_dev_hold();
		mutex_lock(&file->lock);
		imp = xa_find(&file->imports, &handle, ULONG_MAX, XA_PRESENT);
		if (imp) {
			xa_erase(&file->imports, handle);
			file->nr_imports--;
		}
		mutex_unlock(&file->lock);
		if (imp)
			axl_import_put(imp);
		axl_dev_unlock();
		if (!imp)
			break;
	}
}

/**
 * axl_import_revoke_all() - let go of the device in every import of a file
 * @file: the file.
 *
 * For the engine's device going away: the caller holds the device lock for
 * writing and no job is left. Each import is unmapped and detached, outside
 * the file's lock (the unmap takes the buffer's reservation lock); the
 * handle and the buffer reference stay until user space releases the
 * handle or closes the file, and jobs on it fail with -ENODEV.
 */
void axl_import_revoke_all(struct axl_file *file)
{
	struct axl_import *imp;
	unsigned long index = 0;

	for (;;) {
		mutex_lock(&file->lock);
		imp = xa_find(&file->imports, &index, ULONG_MAX, XA_PRESENT);
		if (imp)
			kref_get(&imp->ref);
		mutex_unlock(&file->lock);
		if (!imp)
			break;
		axl_import_detach(imp);
		axl_import_put(imp);
		index++;
	}
}
