// SPDX-License-Identifier: GPL-2.0
/*
 * axl: AXL_IOCTL_SUBMIT and the end of a job.
 *
 * A submit prepares everything that can fail (input and result mappings,
 * the fd) before the fence is published; what can still fail afterwards
 * (sync_file creation, copying the answer out) cancels the job, so its
 * fence signals like any other. fd_install() comes last.
 *
 * Both kernel mappings the engine uses are made here, at submit: between
 * publishing a fence and signalling it the driver allocates nothing, as
 * the dma-fence signalling rules ask.
 */
#include <linux/dma-buf.h>
#include <linux/dma-fence.h>
#include <linux/file.h>
#include <linux/fs.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/sync_file.h>
#include <linux/uaccess.h>

#include "axl_compat.h"
#include "axl_drv.h"
#include "axl_trace.h"

static unsigned int max_jobs = 16;
module_param(max_jobs, uint, 0444);
MODULE_PARM_DESC(max_jobs, "Jobs one open file may have in flight at once (default: 16)");

/**
 * axl_max_jobs() - the per-file job limit
 *
 * Return: jobs one open file may have in flight at once (at least 1).
 */
u32 axl_max_jobs(void)
{
	return max_jobs ? max_jobs : 1;
}

static void axl_file_free(struct kref *ref)
{
	struct axl_file *file = container_of(ref, struct axl_file, ref);

	xa_destroy(&file->imports);
	mutex_destroy(&file->lock);
	kfree(file);
	atomic64_dec(&axl_stats.files);
}

/**
 * axl_file_put() - drop a reference to an open file's state
 * @file: the state; freed with the last reference.
 */
void axl_file_put(struct axl_file *file)
{
	kref_put(&file->ref, axl_file_free);
}

static int axl_submit_check(const struct axl_submit *args)
{
	if (args->flags & ~AXL_SUBMIT_VALID_FLAGS)
		return -EINVAL;
	if (args->reserved[0] || args->reserved[1])
		return -EINVAL;
	if (args->timeout_us > AXL_SUBMIT_MAX_TIMEOUT_US)
		return -EINVAL;
	return 0;
}

static int axl_job_map_input(struct axl_job *job)
{
	struct dma_buf *dmabuf = job->import->dmabuf;
	int ret;

	ret = axl_dma_buf_vmap(dmabuf, &job->in_map);
	if (ret)
		return ret;
	/* the engine reads with plain loads: system memory only */
	if (job->in_map.is_iomem) {
		axl_dma_buf_vunmap(dmabuf, &job->in_map);
		return -EOPNOTSUPP;
	}
	return 0;
}

static void axl_job_unmap_input(struct axl_job *job)
{
	axl_dma_buf_vunmap(job->import->dmabuf, &job->in_map);
}

/* The result buffer: attached and mapped for device writes, plus a kernel mapping. */
static int axl_job_map_result(struct axl_job *job, int fd)
{
	struct dma_buf *result;
	int ret;

	result = dma_buf_get(fd);
	if (IS_ERR(result))
		return PTR_ERR(result);
	/* the engine would overwrite the frame it reads */
	if (result == job->import->dmabuf ||
	    result->size < sizeof(struct axl_result)) {
		ret = -EINVAL;
		goto err_put;
	}

	job->result_attach = dma_buf_attach(result, axl_dev());
	if (IS_ERR(job->result_attach)) {
		ret = PTR_ERR(job->result_attach);
		goto err_put;
	}
	job->result_sgt = dma_buf_map_attachment_unlocked(job->result_attach,
							  DMA_FROM_DEVICE);
	if (IS_ERR(job->result_sgt)) {
		ret = PTR_ERR(job->result_sgt);
		goto err_detach;
	}
	ret = axl_dma_buf_vmap(result, &job->out_map);
	if (ret)
		goto err_unmap;

	job->result = result;
	return 0;

err_unmap:
	dma_buf_unmap_attachment_unlocked(job->result_attach, job->result_sgt,
					  DMA_FROM_DEVICE);
err_detach:
	dma_buf_detach(result, job->result_attach);
err_put:
	dma_buf_put(result);
	return ret;
}

static void axl_job_unmap_result(struct axl_job *job)
{
	axl_dma_buf_vunmap(job->result, &job->out_map);
	dma_buf_unmap_attachment_unlocked(job->result_attach, job->result_sgt,
					  DMA_FROM_DEVICE);
	dma_buf_detach(job->result, job->result_attach);
	dma_buf_put(job->result);
}

/* Write the result header (and, on success, the statistics); returns the final status. */
static int axl_job_write_result(struct axl_job *job, int status)
{
	const struct axl_frame *frame = &job->import->frame;
	struct axl_result *res = &job->res;
	int ret;

	if (status)
		memset(res, 0, sizeof(*res));
	res->magic = AXL_RESULT_MAGIC;
	res->version = AXL_RESULT_VERSION;
	res->seqno = job->fence->seqno;
	res->model_id = job->model_id;
	res->pixfmt = frame->pixfmt;
	res->width = frame->width;
	res->height = frame->height;
	res->status = status;

	ret = dma_buf_begin_cpu_access(job->result, DMA_TO_DEVICE);
	if (ret)
		return status ? status : ret;
	iosys_map_memcpy_to(&job->out_map, 0, res, sizeof(*res));
	ret = dma_buf_end_cpu_access(job->result, DMA_TO_DEVICE);
	return status ? status : ret;
}

static void axl_job_count(int status)
{
	atomic64_dec(&axl_stats.jobs);
	if (!status)
		atomic64_inc(&axl_stats.completed);
	else if (status == -ETIMEDOUT)
		atomic64_inc(&axl_stats.timed_out);
	else if (status == -ECANCELED || status == -ENODEV)
		atomic64_inc(&axl_stats.cancelled);
	else
		atomic64_inc(&axl_stats.failed);
}

/**
 * axl_job_complete() - end a job: write its result, let go, signal
 * @job:    a job taken off the engine queue; freed here.
 * @status: 0, or the negative errno the job failed with.
 *
 * The buffers are unmapped and the import marked idle before the fence
 * signals, so a waiter that releases the import right away succeeds and
 * sees the device gone from the buffers' attachments.
 */
void axl_job_complete(struct axl_job *job, int status)
{
	struct dma_fence *fence = job->fence;
	struct axl_import *imp = job->import;

	status = axl_job_write_result(job, status);
	axl_job_unmap_result(job);
	axl_job_unmap_input(job);
	axl_import_idle(imp);
	atomic_dec(&job->file->nr_jobs);

	trace_axl_job_complete(fence->context, fence->seqno, imp->handle,
			       imp->inode, job->model_id, status);
	if (status)
		dma_fence_set_error(fence, status);
	dma_fence_signal(fence);
	axl_job_count(status);

	axl_import_put(imp);
	axl_file_put(job->file);
	kfree(job);
	/*
	 * May drop the last module reference. This runs in the engine's
	 * worker, and module exit waits for that worker, so returning into
	 * it stays safe.
	 */
	dma_fence_put(fence);
}

/* Queue the job and answer user space; on failure the job is cancelled, its fence still signals. */
static int axl_submit_publish(struct axl_job *job, struct axl_submit *args,
			      void __user *uarg, int fd)
{
	struct sync_file *sync;
	struct dma_fence *fence;
	u64 submit_ns;
	int ret;

	fence = axl_engine_push(job, &submit_ns);

	sync = sync_file_create(fence);
	if (!sync) {
		ret = -ENOMEM;
		goto err_cancel;
	}

	args->fence_fd = fd;
	args->seqno = fence->seqno;
	args->submit_ns = submit_ns;
	if (copy_to_user(uarg, args, sizeof(*args))) {
		ret = -EFAULT;
		goto err_put_sync;
	}

	fd_install(fd, sync->file);
	dma_fence_put(fence);
	return 0;

err_put_sync:
	fput(sync->file);
err_cancel:
	axl_engine_cancel_fence(fence, -ECANCELED);
	dma_fence_put(fence);
	return ret;
}

/**
 * axl_submit_ioctl() - AXL_IOCTL_SUBMIT
 * @file: the calling open file.
 * @uarg: struct axl_submit in user memory.
 *
 * Return: 0; -EFAULT; -EINVAL for unknown flags, non-zero reserved fields,
 * a timeout above AXL_SUBMIT_MAX_TIMEOUT_US, a result buffer that is the
 * input or smaller than struct axl_result, or a result fd that is not a
 * dma-buf; -EBADF for a bad result fd; -ENOENT for an unknown handle;
 * -EBUSY when the file has max_jobs jobs in flight; -EOPNOTSUPP when the
 * input has no kernel mapping in system memory; -EMFILE when no fd is free.
 */
int axl_submit_ioctl(struct axl_file *file, void __user *uarg)
{
	struct axl_submit args;
	struct axl_job *job;
	int fd, ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	ret = axl_submit_check(&args);
	if (ret)
		return ret;

	if (atomic_inc_return(&file->nr_jobs) > axl_max_jobs()) {
		ret = -EBUSY;
		goto err_count;
	}
	job = kzalloc(sizeof(*job), GFP_KERNEL);
	if (!job) {
		ret = -ENOMEM;
		goto err_count;
	}
	job->fence = kzalloc(sizeof(*job->fence), GFP_KERNEL);
	if (!job->fence) {
		ret = -ENOMEM;
		goto err_free_job;
	}

	job->import = axl_import_get_busy(file, args.input_handle);
	if (IS_ERR(job->import)) {
		ret = PTR_ERR(job->import);
		goto err_free_fence;
	}
	ret = axl_job_map_input(job);
	if (ret)
		goto err_put_import;
	ret = axl_job_map_result(job, args.result_fd);
	if (ret)
		goto err_unmap_input;

	fd = get_unused_fd_flags(O_CLOEXEC);
	if (fd < 0) {
		ret = fd;
		goto err_unmap_result;
	}

	kref_get(&file->ref);
	job->file = file;
	job->model_id = args.model_id;
	job->timeout_ns = args.timeout_us ?
			  (u64)args.timeout_us * NSEC_PER_USEC :
			  axl_engine_default_timeout_ns();
	INIT_LIST_HEAD(&job->node);

	/* the engine owns the job from here; failures cancel it */
	ret = axl_submit_publish(job, &args, uarg, fd);
	if (ret)
		put_unused_fd(fd);
	return ret;

err_unmap_result:
	axl_job_unmap_result(job);
err_unmap_input:
	axl_job_unmap_input(job);
err_put_import:
	axl_import_idle(job->import);
	axl_import_put(job->import);
err_free_fence:
	kfree(job->fence);
err_free_job:
	kfree(job);
err_count:
	atomic_dec(&file->nr_jobs);
	return ret;
}
