// SPDX-License-Identifier: GPL-2.0
/*
 * axl: AXL_IOCTL_SUBMIT and the end of a job.
 *
 * A submit does everything that can fail before the job is queued: the
 * input and result mappings, the dependencies, the fd and the sync_file
 * (made from an initialised but unqueued fence). A failure up to there
 * undoes it all: no job runs, no result is written, the seqno is not
 * consumed. The answer is copied to user space after the job is queued
 * and every lock dropped, so a caller whose argument faults (into a
 * stalled userfaultfd or FUSE file) holds up nobody else; if that copy
 * fails the job still runs and the fd is not installed.
 *
 * Both kernel mappings the engine uses are made here, at submit: between
 * publishing a fence and signalling it the driver allocates nothing, as
 * the dma-fence signalling rules ask. The dependencies are collected here
 * too, so a job waits for what its buffers' reservation objects held when
 * it was submitted: never for its own fence or a later one.
 *
 * Implicit sync. SUBMIT publishes the job's fence in the result's
 * reservation object as a writer's and in the input's as a reader's, so
 * poll(), DMA_BUF_IOCTL_SYNC and other drivers wait for the job without
 * user space's help: readers and writers of the result, writers of the
 * input. Both objects are locked together under the engine's submit lock,
 * the slots reserved and the dependencies collected under those locks, and
 * the fence added after the job is queued: lock order device lock (read),
 * submit lock, reservation locks (one ww_acquire_ctx; see struct
 * axl_job_resv). A buffer keeps the fence, and with it a module reference,
 * until a later fence replaces it or the buffer is freed (see
 * axl_engine_fence_init()).
 *
 * The end of a job comes in two steps: axl_job_signal() in the engine's
 * signalling worker (result header, import idle, signal), then
 * axl_job_cleanup() on another workqueue (end of CPU access, unmap,
 * detach, put), which may take reservation locks.
 *
 * CPU access. metis-sim is a CPU: the engine reads the frame and writes the
 * result header through kernel mappings, and does so by the dma-buf rules,
 * inside dma_buf_begin_cpu_access()/dma_buf_end_cpu_access(), never by
 * syncing the importer's own sg table (CONFIG_DMABUF_DEBUG scrambles the
 * page links of that table on 5.15, and an exporter that tracks which
 * domain owns the buffer would never hear of the access). Both calls may
 * take the buffer's reservation lock (dma-buf.c says so with might_lock())
 * and begin waits for the buffer's fences, so neither may run in the
 * engine's signalling section, nor anywhere the fence's signalling waits
 * for: a holder of that lock may be waiting for the job's fence. So:
 *
 *  - SUBMIT begins the engine's access to the input (AXL_CPU_READ, what
 *    DMA_BUF_IOCTL_SYNC gives SYNC_READ) and to the result (AXL_CPU_WRITE,
 *    SYNC_WRITE's); axl_drv.h says why. It is process context before the
 *    job is queued, and the job's fence does not exist for anyone yet.
 *  - begin waits for the buffer's fences without a bound (a read for its
 *    writers', a write for all), and on 5.15 and 6.12 calls the exporter's
 *    begin_cpu_access (the cache invalidate) before that wait. So SUBMIT
 *    first waits itself, for what begin would (the input's writers, every
 *    fence of the result), interruptibly and
 *    for at most the job's timeout: -ETIMEDOUT or -EINTR, and no job. The
 *    dependencies the engine waits for are collected after begin, from the
 *    same reservation objects: only a fence added in between is left for
 *    the engine, and its wait counts against the job's timeout as before.
 *  - axl_job_cleanup() ends, on the cleanup workqueue after the fence
 *    signalled, as do SUBMIT's failure paths, the removal drain and module
 *    unload (every job's end goes through axl_job_unprepare()).
 *
 * Ending after the signal is safe for CPU readers: the header is stored
 * before the fence signals, and CPU caches are coherent among CPUs (arm64
 * data caches behave as physically tagged), so user space that waits for
 * the fence and reads the result through its mmap, with or without
 * DMA_BUF_IOCTL_SYNC, sees it. The end is what cleans the lines to memory
 * for devices: on a system that is not DMA-coherent, a device that starts
 * reading the result the moment the fence signals, before the cleanup ran,
 * can read the old bytes. Nothing in the driver can close that window
 * without running end_cpu_access() before the signal, which the locking
 * rules forbid; a device consumer of the result waits for the fence and
 * then maps or syncs the buffer for itself, which happens after the
 * cleanup in every user of this driver.
 */
#include <linux/delay.h>
#include <linux/dma-buf.h>
#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/dma-resv.h>
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

/*
 * Test only: a window between SUBMIT's wait for its buffers' fences and the
 * device lock, wide enough for a test to dup2() another buffer over the
 * result fd in it (tests/device/c/axl_race.c). 0 (no delay) but in tests.
 */
static unsigned int submit_delay_ms;
module_param(submit_delay_ms, uint, 0644);
MODULE_PARM_DESC(submit_delay_ms, "Test only: SUBMIT sleeps this long after its fence wait (default: 0)");

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

	WARN_ON(!list_empty(&file->pins));
	xa_destroy(&file->imports);
	mutex_destroy(&file->pins_lock);
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

	ret = AXL_FAULT_INT("submit.vmap_input", -ENOMEM,
			    axl_dma_buf_vmap(dmabuf, &job->in_map));
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

/*
 * The result buffer (@result: SUBMIT's reference, which the job takes over,
 * or which is dropped on failure): attached and mapped for the engine, plus
 * a kernel mapping the engine stores the header through. The exporter syncs every
 * mapped attachment in the direction of the CPU access (the system heap
 * does), and the CPU writes: a FROM_DEVICE mapping synced TO_DEVICE is an
 * error to DMA_API_DEBUG, and handing it to the device may invalidate the
 * store away on non-coherent arm64. So the mapping is BIDIRECTIONAL.
 */
#define AXL_RESULT_DIR DMA_BIDIRECTIONAL

static int axl_job_map_result(struct axl_job *job, struct axl_file *file,
			      struct dma_buf *result)
{
	int ret;

	/* the engine would overwrite the frame it reads */
	if (result == job->import->dmabuf ||
	    result->size < sizeof(struct axl_result)) {
		ret = -EINVAL;
		goto err_put;
	}
	/* the engine writes the header: not into a read-only buffer */
	if (!axl_dma_buf_writable(result)) {
		ret = -EACCES;
		goto err_put;
	}
	/* one job in flight at a time writes a result buffer: see axl_writers.c */
	ret = axl_writer_claim(result, job, AXL_RESULT_DIR);
	if (ret)
		goto err_put;
	/* mapped while the job lives: counted like an import */
	ret = axl_pin_get(file, result);
	if (ret)
		goto err_unclaim;
	job->pin_file = file;

	job->dev = axl_dev();
	job->result_attach = AXL_FAULT_PTR("submit.attach", -ENOMEM,
					   dma_buf_attach(result, job->dev));
	if (IS_ERR(job->result_attach)) {
		ret = PTR_ERR(job->result_attach);
		goto err_unpin;
	}
	job->result_sgt = AXL_FAULT_PTR("submit.map", -ENOMEM,
					dma_buf_map_attachment_unlocked(job->result_attach,
									AXL_RESULT_DIR));
	if (IS_ERR(job->result_sgt)) {
		ret = PTR_ERR(job->result_sgt);
		goto err_detach;
	}
	ret = AXL_FAULT_INT("submit.vmap_result", -ENOMEM,
			    axl_dma_buf_vmap(result, &job->out_map));
	if (ret)
		goto err_unmap;

	job->result = result;
	return 0;

err_unmap:
	dma_buf_unmap_attachment_unlocked(job->result_attach, job->result_sgt,
					  AXL_RESULT_DIR);
err_detach:
	dma_buf_detach(result, job->result_attach);
err_unpin:
	axl_pin_put(file, result);
err_unclaim:
	axl_writer_release(result, AXL_RESULT_DIR);
err_put:
	dma_buf_put(result);
	return ret;
}

static void axl_job_unmap_result(struct axl_job *job)
{
	axl_dma_buf_vunmap(job->result, &job->out_map);
	dma_buf_unmap_attachment_unlocked(job->result_attach, job->result_sgt,
					  AXL_RESULT_DIR);
	dma_buf_detach(job->result, job->result_attach);
	axl_pin_put(job->pin_file, job->result);
	axl_writer_release(job->result, AXL_RESULT_DIR);
	dma_buf_put(job->result);
}

/* Write the result header (and, on success, the statistics); returns the final status. */
static int axl_job_write_result(struct axl_job *job, int status)
{
	const struct axl_frame *frame = &job->import->frame;
	struct axl_result *res = &job->res;

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

	/* inside the CPU access SUBMIT began: see the top of this file */
	iosys_map_memcpy_to(&job->out_map, 0, res, sizeof(*res));
	return status;
}

/*
 * Wait for what dma_buf_begin_cpu_access(@buf, @dir) would wait for, the
 * fences of @buf's writers for a read and every fence for a write, for at
 * most *@left jiffies, which are used up. 0, -ETIMEDOUT or -EINTR.
 */
static int axl_job_wait_idle(struct dma_buf *buf, enum dma_data_direction dir,
			     long *left)
{
	long ret = axl_resv_wait(buf->resv, dir == DMA_FROM_DEVICE, *left);

	if (ret < 0)
		return ret == -ERESTARTSYS ? -EINTR : (int)ret;
	if (!ret)
		return -ETIMEDOUT;
	*left = ret;
	return 0;
}

/*
 * SUBMIT's wait for the fences of its buffers, before it takes the device
 * lock (a removal waits for that lock and must not wait for a stuck fence).
 * @result is the buffer SUBMIT resolved its result fd to, once: the job
 * writes that buffer whatever the fd names later. An unknown handle is
 * answered later, under the lock. 0, -EBUSY, -ETIMEDOUT or -EINTR; *@left
 * is the budget, and what remains of it.
 */
static int axl_submit_wait_idle(struct axl_file *file,
				const struct axl_submit *args,
				struct dma_buf *result, long *left)
{
	struct dma_buf *input = NULL;
	struct axl_import *imp;
	int ret = 0;

	/* an import in the array holds its dma-buf */
	mutex_lock(&file->lock);
	imp = xa_load(&file->imports, args->input_handle);
	if (imp) {
		input = imp->dmabuf;
		get_dma_buf(input);
	}
	mutex_unlock(&file->lock);
	if (!input)
		return 0;
	/*
	 * A result buffer another job in flight writes holds that job's fence:
	 * fail at once, as the claim would, rather than wait for the job.
	 */
	if (axl_writer_busy(result)) {
		ret = -EBUSY;
		goto out_put_input;
	}
	ret = axl_job_wait_idle(input, AXL_CPU_READ, left);
	if (!ret)
		ret = axl_job_wait_idle(result, AXL_CPU_WRITE, left);
out_put_input:
	dma_buf_put(input);
	return ret;
}

/*
 * Begin the engine's CPU access to the input and the result buffer, once
 * their fences signalled (within what is left of the job's timeout, @left
 * jiffies). In SUBMIT, before the job is queued: see the top of this file.
 */
static int axl_job_begin_cpu(struct axl_job *job, long left)
{
	struct dma_buf *input = job->import->dmabuf;
	int ret;

	/* short: SUBMIT waited before taking the device lock */
	ret = axl_job_wait_idle(input, AXL_CPU_READ, &left);
	if (ret)
		return ret;
	ret = axl_job_wait_idle(job->result, AXL_CPU_WRITE, &left);
	if (ret)
		return ret;
	ret = AXL_FAULT_INT("submit.begin_cpu_input", -EIO,
			    dma_buf_begin_cpu_access(input, AXL_CPU_READ));
	if (ret)
		return ret;
	ret = AXL_FAULT_INT("submit.begin_cpu_result", -EIO,
			    dma_buf_begin_cpu_access(job->result, AXL_CPU_WRITE));
	if (ret)
		goto err_end_input;
	return 0;

err_end_input:
	dma_buf_end_cpu_access(input, AXL_CPU_READ);
	return ret;
}

/* End what axl_job_begin_cpu() began; never in the signalling section. */
static void axl_job_end_cpu(struct axl_job *job)
{
	dma_buf_end_cpu_access(job->result, AXL_CPU_WRITE);
	dma_buf_end_cpu_access(job->import->dmabuf, AXL_CPU_READ);
}

static void axl_job_count(int status)
{
	if (!status)
		atomic64_inc(&axl_stats.completed);
	else if (status == -ETIMEDOUT)
		atomic64_inc(&axl_stats.timed_out);
	else if (status == -ECANCELED || status == -ENODEV)
		atomic64_inc(&axl_stats.cancelled);
	else
		atomic64_inc(&axl_stats.failed);
}

/* The job's dependencies: what its input's writers and anyone using its result left. */
static int axl_job_get_deps(struct axl_job *job)
{
	struct dma_fence **in, **out;
	unsigned int nr_in, nr_out;
	int ret;

	/* the engine reads the input: wait for writers */
	ret = AXL_FAULT_INT("submit.get_fences_input", -ENOMEM,
			    axl_resv_get_fences(job->import->dmabuf->resv, true,
						&nr_in, &in));
	if (ret)
		return ret;
	/* and writes the result: wait for everyone */
	ret = AXL_FAULT_INT("submit.get_fences_result", -ENOMEM,
			    axl_resv_get_fences(job->result->resv, false,
						&nr_out, &out));
	if (ret)
		goto err_put_in;

	job->nr_deps = nr_in + nr_out;
	if (!job->nr_deps)
		goto out_free;
	job->deps = AXL_FAULT_NULL("submit.deps",
				   kmalloc_array(job->nr_deps, sizeof(*job->deps),
						 GFP_KERNEL_ACCOUNT));
	if (!job->deps) {
		ret = -ENOMEM;
		goto err_put_out;
	}
	memcpy(job->deps, in, nr_in * sizeof(*in));
	memcpy(job->deps + nr_in, out, nr_out * sizeof(*out));
out_free:
	kfree(out);
	kfree(in);
	return 0;

err_put_out:
	job->nr_deps = 0;
	while (nr_out--)
		dma_fence_put(out[nr_out]);
	kfree(out);
err_put_in:
	while (nr_in--)
		dma_fence_put(in[nr_in]);
	kfree(in);
	return ret;
}

static void axl_job_put_deps(struct axl_job *job)
{
	unsigned int i;

	if (job->dep_armed)
		dma_fence_remove_callback(job->deps[job->dep_next], &job->dep_cb);
	for (i = 0; i < job->nr_deps; i++)
		dma_fence_put(job->deps[i]);
	kfree(job->deps);
}

/**
 * axl_job_signal() - end a job: write its result header and signal
 * @job:    a job taken off the engine queue.
 * @status: 0, or the negative errno the job failed with.
 *
 * Runs in the engine's signalling section: no allocation, no reservation
 * lock, no fence wait. The import is marked idle (an atomic decrement)
 * and the job counted before the fence signals, so a waiter's
 * RELEASE_IMPORT right after the wait does not fail with -EBUSY and the
 * counters it reads already include the job; the mappings stay until
 * axl_job_cleanup().
 */
void axl_job_signal(struct axl_job *job, int status)
{
	struct dma_fence *fence = job->fence;
	struct axl_import *imp = job->import;

	status = axl_job_write_result(job, status);
	axl_import_idle(imp);
	axl_share_release(job->file, job->user, job->timeout_ns);

	trace_axl_job_complete(fence->context, fence->seqno, imp->handle,
			       imp->inode, job->model_id, status);
	axl_job_count(status);
	if (status)
		dma_fence_set_error(fence, status);
	dma_fence_signal(fence);
}

/* Undo a job's preparation: everything axl_submit_ioctl() set up. */
static void axl_job_unprepare(struct axl_job *job)
{
	axl_job_put_deps(job);
	axl_job_end_cpu(job);
	axl_job_unmap_result(job);
	axl_job_unmap_input(job);
	axl_import_put(job->import);
	axl_user_put(job->user);
	axl_file_put(job->file);
	kfree(job);
}

/**
 * axl_job_cleanup() - unmap and free a job whose fence signalled
 * @work: job->cleanup.
 *
 * Runs on the engine's cleanup workqueue, never in the signalling worker:
 * ending the CPU access, unmapping and vunmap take the buffers'
 * reservation locks, whose holders may wait for later fences of the
 * engine. Dropping the import's reference wakes a RELEASE_IMPORT waiting
 * to unmap it.
 */
void axl_job_cleanup(struct work_struct *work)
{
	struct axl_job *job = container_of(work, struct axl_job, cleanup);
	struct dma_fence *fence = job->fence;

	axl_job_unprepare(job);
	atomic64_dec(&axl_stats.jobs);
	/*
	 * May drop the last module reference. Module exit destroys this
	 * workqueue, which waits for this function to return.
	 */
	dma_fence_put(fence);
}

/**
 * axl_job_complete() - end a job outside the worker (module unload)
 * @job:    a job taken off the engine queue.
 * @status: the negative errno it ends with.
 */
void axl_job_complete(struct axl_job *job, int status)
{
	bool cookie = dma_fence_begin_signalling();

	axl_job_signal(job, status);
	dma_fence_end_signalling(cookie);
	axl_engine_defer(job);
}

/*
 * The reservation objects a job's fence is published in, locked together
 * (one ww_acquire_ctx) from before the job's dependencies are collected
 * until its fence is there: the result's, where the fence is a writer's,
 * and the input's, where it is a reader's, so that a writer of the input
 * (the next capture into that frame) waits for the engine reading it. Each
 * buffer is held by a reference of its own: once queued, the job may end
 * and drop its buffers before SUBMIT adds its fence.
 *
 * A reader's fence on the input holds back no other reader: SUBMIT begins
 * the engine's access to its input as a read (axl_drv.h), which waits only
 * for writers, so a second job on the same frame does not wait for the
 * first. An input whose reservation object is the result's (an exporter
 * may share one object between buffers) gets only the writer's fence,
 * which every reader and writer waits for already: @in is NULL then.
 */
struct axl_job_resv {
	struct dma_buf *out;	/* the result: the job's fence as a writer's */
	struct dma_buf *in;	/* the input: as a reader's, or NULL */
	struct ww_acquire_ctx ctx;
};

/*
 * Lock @n reservation objects in one acquire context, backing off and
 * retrying on -EDEADLK as the wound-wait rules ask. 0 with all locked, or
 * -EINTR with none locked. The fault points are on the first pass only, so
 * that a fault walk hits the same points however often a retry comes
 * (CONFIG_DEBUG_WW_MUTEX_SLOWPATH injects -EDEADLK into some contexts'
 * second lock).
 */
static int axl_job_lock_objs(struct dma_resv **objs, unsigned int n,
			     struct ww_acquire_ctx *ctx)
{
	static const char *const sites[] = {
		"submit.resv_lock", "submit.resv_lock_input",
	};
	int contended = -1;
	int i, j, ret;

retry:
	if (contended != -1) {
		ret = dma_resv_lock_slow_interruptible(objs[contended], ctx);
		if (ret)
			return -EINTR;
	}
	for (i = 0; i < n; i++) {
		if (i == contended)
			continue;
		if (contended == -1)
			ret = AXL_FAULT_INT(sites[i], -EINTR,
					    dma_resv_lock_interruptible(objs[i], ctx));
		else
			ret = dma_resv_lock_interruptible(objs[i], ctx);
		if (!ret)
			continue;
		/* objs[0..i) are locked, and objs[contended] past them */
		for (j = 0; j < i; j++)
			dma_resv_unlock(objs[j]);
		if (contended > i)
			dma_resv_unlock(objs[contended]);
		if (ret == -EDEADLK) {
			contended = i;
			goto retry;
		}
		return -EINTR;
	}
	return 0;
}

/*
 * Lock the result's and the input's reservation objects and reserve the
 * slots the job's fence takes. Caller holds the submit lock, which is
 * never taken under a reservation lock. 0, -EINTR or -ENOMEM; on failure
 * nothing is locked or held.
 */
static int axl_job_lock_resv(struct axl_job *job, struct axl_job_resv *r)
{
	struct dma_resv *objs[2];
	unsigned int n = 1;
	int ret;

	r->out = job->result;
	get_dma_buf(r->out);
	objs[0] = r->out->resv;
	r->in = NULL;
	if (job->import->dmabuf->resv != r->out->resv) {
		r->in = job->import->dmabuf;
		get_dma_buf(r->in);
		objs[n++] = r->in->resv;
	}
	ww_acquire_init(&r->ctx, &reservation_ww_class);
	ret = axl_job_lock_objs(objs, n, &r->ctx);
	if (ret)
		goto err_fini;
	ww_acquire_done(&r->ctx);
	ret = AXL_FAULT_INT("submit.resv_reserve", -ENOMEM,
			    axl_resv_reserve(r->out->resv, 1, 0));
	if (ret)
		goto err_unlock;
	if (r->in) {
		ret = AXL_FAULT_INT("submit.resv_reserve_input", -ENOMEM,
				    axl_resv_reserve(r->in->resv, 0, 1));
		if (ret)
			goto err_unlock;
	}
	return 0;

err_unlock:
	while (n--)
		dma_resv_unlock(objs[n]);
err_fini:
	ww_acquire_fini(&r->ctx);
	if (r->in)
		dma_buf_put(r->in);
	dma_buf_put(r->out);
	return ret;
}

/* Unlock what axl_job_lock_resv() locked and drop its references. */
static void axl_job_unlock_resv(struct axl_job_resv *r)
{
	if (r->in)
		dma_resv_unlock(r->in->resv);
	dma_resv_unlock(r->out->resv);
	ww_acquire_fini(&r->ctx);
	if (r->in)
		dma_buf_put(r->in);
	dma_buf_put(r->out);
}

/* Publish a queued job's fence: a writer's on the result, a reader's on the input. */
static void axl_job_add_fence(struct axl_job_resv *r, struct dma_fence *fence)
{
	axl_resv_add(r->out->resv, fence, true);
	if (r->in)
		axl_resv_add(r->in->resv, fence, false);
}

/*
 * Give the job its seqno and queue it, with the sync_file user space gets.
 * The caller holds the submit lock and the result's reservation lock. The
 * sync_file is the last step that can fail: on failure the fence,
 * initialised but never queued, is signalled with -ECANCELED and nobody
 * ever saw it, and the seqno is given back. On success the job may end at
 * any time (the sync_file's reference keeps the fence); @args holds what
 * user space is told.
 */
static struct sync_file *axl_submit_publish(struct axl_job *job,
					    struct axl_submit *args, int fd)
{
	struct dma_fence *fence = job->fence;
	struct sync_file *sync;

	axl_engine_fence_init(job);

	sync = AXL_FAULT_NULL("submit.sync_file", sync_file_create(fence));
	if (!sync) {
		dma_fence_set_error(fence, -ECANCELED);
		dma_fence_signal(fence);
		dma_fence_put(fence);
		return NULL;
	}
	args->fence_fd = fd;
	args->seqno = fence->seqno;
	args->submit_ns = job->submit_ns;

	/* the job owns the fence's first reference, the sync_file another */
	axl_engine_push(job);
	return sync;
}

/* Reject an input the engine may not read. */
static int axl_submit_check_input(const struct axl_import *imp)
{
	/* mapped for device writes only: the engine reads its input */
	if (imp->dir == DMA_FROM_DEVICE)
		return -EINVAL;
	return 0;
}

/**
 * axl_submit_ioctl() - AXL_IOCTL_SUBMIT
 * @file: the calling open file.
 * @uarg: struct axl_submit in user memory.
 *
 * Return: 0; -EFAULT; -EINVAL for unknown flags, non-zero reserved fields,
 * a timeout above AXL_SUBMIT_MAX_TIMEOUT_US, an input imported
 * AXL_IMPORT_FROM_DEVICE, a result buffer that is the input or smaller
 * than struct axl_result, or a result fd that is not a dma-buf; -EBADF for
 * a bad result fd; -EACCES for a read-only result buffer; -ENOSPC when the result buffer would take the bytes
 * pinned past max_user_pinned_mb or max_pinned_mb (see axl_pin.c); -ENOENT for an unknown handle; -ENODEV when the
 * engine's device is gone (also for imports it revoked); -EBUSY when the
 * file has max_jobs jobs in flight or the job's timeout would take the
 * file's jobs past max_file_queued_ms, the user's past max_user_queued_ms
 * or everyone's past max_queued_ms (axl_share.c); -EOPNOTSUPP when the input has no
 * kernel mapping in system memory; -EMFILE when no fd is free;
 * -ETIMEDOUT when the buffers' fences did not signal within the job's
 * timeout, -EINTR when a signal came first (see axl_job_begin_cpu()) or
 * while the buffers' reservation objects were being locked; -ENOMEM. On any
 * error but -EFAULT from the final copy no job was queued and no seqno
 * consumed; after that -EFAULT the job runs and writes its result, but
 * user space has no fd for its fence.
 */
int axl_submit_ioctl(struct axl_file *file, void __user *uarg)
{
	struct dma_buf *result = NULL;
	struct axl_job_resv resv;
	struct dma_fence *fence;
	struct axl_submit args;
	struct sync_file *sync;
	struct axl_user *user;
	struct axl_job *job;
	u64 timeout_ns;
	long left;
	int fd, ret;

	if (copy_from_user(&args, uarg, sizeof(args)))
		return -EFAULT;
	ret = axl_submit_check(&args);
	if (ret)
		return ret;

	timeout_ns = args.timeout_us ? (u64)args.timeout_us * NSEC_PER_USEC :
				       axl_engine_default_timeout_ns();
	ret = axl_share_admit(file, timeout_ns, &user);
	if (ret)
		return ret;
	job = AXL_FAULT_NULL("submit.job", kzalloc(sizeof(*job), GFP_KERNEL_ACCOUNT));
	if (!job) {
		ret = -ENOMEM;
		goto err_count;
	}
	job->fence = AXL_FAULT_NULL("submit.fence",
				    kzalloc(sizeof(*job->fence), GFP_KERNEL_ACCOUNT));
	if (!job->fence) {
		ret = -ENOMEM;
		goto err_free_job;
	}

	job->timeout_ns = timeout_ns;
	left = max_t(long, nsecs_to_jiffies64(job->timeout_ns), 1);
	/*
	 * The result fd is resolved once: a dup2() over it while SUBMIT runs
	 * cannot swap in another buffer (one that is busy, say, whose fences
	 * SUBMIT would then wait for under the device lock).
	 */
	result = AXL_FAULT_PTR("submit.dma_buf_get", -EBADF,
			       dma_buf_get(args.result_fd));
	if (IS_ERR(result)) {
		ret = PTR_ERR(result);
		goto err_free_fence;
	}
	ret = axl_submit_wait_idle(file, &args, result, &left);
	if (ret)
		goto err_put_result;
	if (READ_ONCE(submit_delay_ms))
		msleep_interruptible(READ_ONCE(submit_delay_ms));

	/* the device stays while the job is prepared and queued */
	ret = axl_dev_lock();
	if (ret)
		goto err_put_result;
	job->import = axl_import_get_busy(file, args.input_handle);
	if (IS_ERR(job->import)) {
		ret = PTR_ERR(job->import);
		goto err_unlock_dev;
	}
	ret = axl_submit_check_input(job->import);
	if (ret)
		goto err_put_import;
	ret = axl_job_map_input(job);
	if (ret)
		goto err_put_import;
	/* the job takes SUBMIT's reference to the result, or it is dropped */
	ret = axl_job_map_result(job, file, result);
	result = NULL;
	if (ret)
		goto err_unmap_input;
	ret = axl_job_begin_cpu(job, left);
	if (ret)
		goto err_unmap_result;

	fd = AXL_FAULT_INT("submit.get_unused_fd", -EMFILE,
			   get_unused_fd_flags(O_CLOEXEC));
	if (fd < 0) {
		ret = fd;
		goto err_end_cpu;
	}

	/*
	 * Lock order: submit lock, then the result's and the input's
	 * reservation locks (see axl_job_lock_resv()). Held from collecting
	 * the dependencies to adding the fence, so that no fence another
	 * driver adds in between is replaced by this job's without the job
	 * waiting for it, and jobs publish in seqno order.
	 */
	axl_engine_submit_lock();
	ret = axl_job_lock_resv(job, &resv);
	if (ret)
		goto err_unlock_submit;
	ret = axl_job_get_deps(job);
	if (ret)
		goto err_unlock_resv;

	kref_get(&file->ref);
	job->file = file;
	job->user = user;
	job->model_id = args.model_id;
	INIT_LIST_HEAD(&job->node);

	fence = job->fence;
	sync = axl_submit_publish(job, &args, fd);
	if (!sync) {
		/* the fence is gone; nothing of the job was published */
		ret = -ENOMEM;
		goto err_unprepare;
	}
	/* the job may have ended already: @fence lives in the sync_file */
	axl_job_add_fence(&resv, fence);
	axl_job_unlock_resv(&resv);
	axl_engine_submit_unlock();
	axl_dev_unlock();

	/*
	 * No lock is held across the copy: a fault there stalls this caller
	 * only. The job is queued already and stays, as a DRM driver's would;
	 * only the fd user space cannot learn goes.
	 */
	if (copy_to_user(uarg, &args, sizeof(args))) {
		fput(sync->file);
		put_unused_fd(fd);
		return -EFAULT;
	}
	fd_install(fd, sync->file);
	return 0;

err_unprepare:
	/* before the device is let go: the unmap must not outlive it */
	axl_job_unlock_resv(&resv);
	axl_engine_submit_unlock();
	put_unused_fd(fd);
	axl_import_idle(job->import);
	axl_share_release(file, user, timeout_ns);
	axl_job_unprepare(job);
	axl_dev_unlock();
	return ret;

err_unlock_resv:
	axl_job_unlock_resv(&resv);
err_unlock_submit:
	axl_engine_submit_unlock();
	put_unused_fd(fd);
err_end_cpu:
	axl_job_end_cpu(job);
err_unmap_result:
	axl_job_unmap_result(job);
err_unmap_input:
	axl_job_unmap_input(job);
err_put_import:
	axl_import_idle(job->import);
	axl_import_put(job->import);
err_unlock_dev:
	axl_dev_unlock();
err_put_result:
	if (result)
		dma_buf_put(result);
err_free_fence:
	kfree(job->fence);
err_free_job:
	kfree(job);
err_count:
	axl_share_release(file, user, timeout_ns);
	axl_user_put(user);
	return ret;
}
