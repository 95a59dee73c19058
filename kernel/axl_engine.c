// SPDX-License-Identifier: GPL-2.0
/*
 * axl: metis-sim, the simulated Metis engine.
 *
 * One queue, one timeline ("metis-0"), jobs run one at a time in submission
 * order. A job reaching the head of the queue starts its clock: it finishes
 * latency_us (+ stall_ms) later, or times out at its deadline if it would
 * take longer or was told to stall. Only the head job ever finishes, so
 * fences on the timeline signal in seqno order, whatever happens.
 *
 * Fault injection (module parameters, writable at run time): fail_next and
 * fail_every fail jobs with -EIO; stall_next makes jobs hang until their
 * timeout (-ETIMEDOUT); stall_ms adds run time to every job.
 */
#include <linux/dma-buf.h>
#include <linux/dma-fence.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/spinlock.h>
#include <linux/workqueue.h>
#include <trace/events/dma_fence.h>

#include "axl_drv.h"
#include "axl_trace.h"

static unsigned int latency_us = 2000;
module_param(latency_us, uint, 0644);
MODULE_PARM_DESC(latency_us, "Engine run time per job in microseconds (default: 2000)");

static unsigned int timeout_ms = 1000;
module_param(timeout_ms, uint, 0644);
MODULE_PARM_DESC(timeout_ms, "Job timeout when a submit asks for the default (default: 1000)");

static unsigned int fail_every;
module_param(fail_every, uint, 0644);
MODULE_PARM_DESC(fail_every, "Fail every Nth job with -EIO (0: never)");

static unsigned int fail_next;
module_param(fail_next, uint, 0644);
MODULE_PARM_DESC(fail_next, "Fail the next N jobs with -EIO");

static unsigned int stall_next;
module_param(stall_next, uint, 0644);
MODULE_PARM_DESC(stall_next, "Let the next N jobs hang until they time out");

static unsigned int stall_ms;
module_param(stall_ms, uint, 0644);
MODULE_PARM_DESC(stall_ms, "Extra run time of every job in milliseconds (0: none)");

/**
 * struct axl_engine - metis-sim state
 * @lock:       protects @queue, @seqno, @started, @stopping, the fields of
 *              queued jobs, and consumption of the fault counters.
 * @fence_lock: the dma_fence lock of every fence on the timeline.
 * @queue:      jobs in submission order; the head one is running.
 * @context:    the fence context of "metis-0".
 * @seqno:      last seqno handed out.
 * @started:    jobs started since load (for fail_every).
 * @stopping:   the module is unloading: arm nothing any more.
 * @wq:         runs @work.
 * @work:       completes the head job when it is due.
 * @timer:      queues @work when the head job is due or times out.
 */
static struct axl_engine {
	spinlock_t lock;	/* the queue and its jobs */
	spinlock_t fence_lock;	/* every fence on the timeline */
	struct list_head queue;
	u64 context;
	u64 seqno;
	u64 started;
	bool stopping;
	struct workqueue_struct *wq;
	struct work_struct work;
	struct hrtimer timer;
} engine;

static const char *axl_fence_driver_name(struct dma_fence *fence)
{
	return AXL_DRIVER_NAME;
}

static const char *axl_fence_timeline_name(struct dma_fence *fence)
{
	return AXL_TIMELINE_NAME;
}

static void axl_fence_release(struct dma_fence *fence)
{
	atomic64_dec(&axl_stats.fences);
	dma_fence_free(fence);
	/*
	 * Taken in axl_engine_push(): these ops must outlive the fence.
	 * Only the return from this function runs after the put, the same
	 * narrow window every module_put() at the end of a callback has.
	 */
	module_put(THIS_MODULE);
}

static const struct dma_fence_ops axl_fence_ops = {
	.get_driver_name = axl_fence_driver_name,
	.get_timeline_name = axl_fence_timeline_name,
	.release = axl_fence_release,
};

/**
 * axl_engine_default_timeout_ns() - timeout of a job submitted with 0
 *
 * Return: the timeout_ms parameter in ns, capped at AXL_SUBMIT_MAX_TIMEOUT_US.
 */
u64 axl_engine_default_timeout_ns(void)
{
	u64 ms = READ_ONCE(timeout_ms);

	return min_t(u64, ms * NSEC_PER_MSEC,
		     (u64)AXL_SUBMIT_MAX_TIMEOUT_US * NSEC_PER_USEC);
}

/* Consume a fault counter parameter; false when it is zero. */
static bool axl_take(unsigned int *counter)
{
	unsigned int n = READ_ONCE(*counter);

	if (!n)
		return false;
	WRITE_ONCE(*counter, n - 1);
	return true;
}

/* The job reached the head of the queue: start its clock. */
static void axl_engine_start(struct axl_job *job, ktime_t now)
{
	u64 run_ns = (u64)READ_ONCE(latency_us) * NSEC_PER_USEC +
		     (u64)READ_ONCE(stall_ms) * NSEC_PER_MSEC;
	unsigned int every = READ_ONCE(fail_every);

	lockdep_assert_held(&engine.lock);
	job->started = true;
	job->start = now;
	job->due = ktime_add_ns(now, run_ns);
	job->deadline = ktime_add_ns(now, job->timeout_ns);
	engine.started++;
	job->stalled = axl_take(&stall_next);
	job->fail = axl_take(&fail_next) ||
		    (every && engine.started % every == 0);
}

/*
 * What happens to the head job now: its final status, or -EINPROGRESS with
 * @wake set to when to look again.
 */
static int axl_engine_verdict(struct axl_job *job, ktime_t now, ktime_t *wake)
{
	if (job->cancel)
		return job->cancel;
	if (!job->started)
		axl_engine_start(job, now);

	if (job->stalled || ktime_after(job->due, job->deadline)) {
		if (!ktime_before(now, job->deadline))
			return -ETIMEDOUT;
		*wake = job->deadline;
		return -EINPROGRESS;
	}
	if (ktime_before(now, job->due)) {
		*wake = job->due;
		return -EINPROGRESS;
	}
	return job->fail ? -EIO : 0;
}

/* Take the head job off the queue if it is done waiting; else arm the timer. */
static struct axl_job *axl_engine_next(int *status)
{
	struct axl_job *job;
	ktime_t wake;

	spin_lock(&engine.lock);
	job = list_first_entry_or_null(&engine.queue, struct axl_job, node);
	if (!job || engine.stopping)
		goto out_none;

	*status = axl_engine_verdict(job, ktime_get(), &wake);
	if (*status == -EINPROGRESS) {
		hrtimer_start(&engine.timer, wake, HRTIMER_MODE_ABS);
		goto out_none;
	}
	list_del_init(&job->node);
	spin_unlock(&engine.lock);
	return job;

out_none:
	spin_unlock(&engine.lock);
	return NULL;
}

static void axl_engine_work(struct work_struct *work)
{
	struct axl_job *job;
	int status;

	while ((job = axl_engine_next(&status))) {
		if (!status)
			status = axl_engine_run(job);
		axl_job_complete(job, status);
		cond_resched();
	}
}

static enum hrtimer_restart axl_engine_timer(struct hrtimer *timer)
{
	queue_work(engine.wq, &engine.work);
	return HRTIMER_NORESTART;
}

/**
 * axl_engine_run() - run a job on metis-sim
 * @job: the job; its input is mapped at job->in_map.
 *
 * Reads the frame through the kernel mapping, between begin and end of CPU
 * access, and leaves the statistics in job->res. The kernel-side read
 * stands in for the NPU's PCIe DMA; no copy of the frame is made.
 *
 * Return: 0 or what begin/end of CPU access returned.
 */
int axl_engine_run(struct axl_job *job)
{
	struct axl_import *imp = job->import;
	int ret;

	ret = dma_buf_begin_cpu_access(imp->dmabuf, DMA_FROM_DEVICE);
	if (ret)
		return ret;
	axl_frame_compute(&imp->frame, job->in_map.vaddr, &job->res);
	return dma_buf_end_cpu_access(imp->dmabuf, DMA_FROM_DEVICE);
}

/**
 * axl_engine_push() - publish a job's fence and queue the job
 * @job:       fully prepared; job->fence allocated but not initialised.
 * @submit_ns: receives the CLOCK_MONOTONIC time the job was queued.
 *
 * The seqno is taken and the job queued under one lock, so queue order is
 * seqno order. Each fence holds a module reference: its ops are called
 * (SYNC_IOC_FILE_INFO, the dma_fence_destroy event) as long as it lives,
 * so the module cannot be unloaded while user space holds a fence fd.
 * From here on the job may complete at any time; only the returned
 * reference keeps the fence valid for the caller.
 *
 * Return: the job's fence, with a reference for the caller.
 */
struct dma_fence *axl_engine_push(struct axl_job *job, u64 *submit_ns)
{
	struct dma_fence *fence = job->fence;
	u64 seqno;

	__module_get(THIS_MODULE);
	atomic64_inc(&axl_stats.fences);
	atomic64_inc(&axl_stats.jobs);
	atomic64_inc(&axl_stats.submitted);

	spin_lock(&engine.lock);
	seqno = ++engine.seqno;
	job->submit_ns = ktime_get_ns();
	*submit_ns = job->submit_ns;
	dma_fence_init(fence, &axl_fence_ops, &engine.fence_lock,
		       engine.context, seqno);
	dma_fence_get(fence);
	list_add_tail(&job->node, &engine.queue);
	trace_dma_fence_emit(fence);
	trace_axl_job_submit(fence->context, seqno, job->import->handle,
			     job->import->inode, job->model_id, 0);
	spin_unlock(&engine.lock);

	queue_work(engine.wq, &engine.work);
	return fence;
}

/**
 * axl_engine_cancel_fence() - cancel the queued job of a fence
 * @fence: a fence from axl_engine_push() the caller holds a reference to.
 * @error: negative errno the fence is signalled with.
 *
 * A job already running or done is left alone. Cancelled jobs still
 * complete in queue order.
 */
void axl_engine_cancel_fence(struct dma_fence *fence, int error)
{
	struct axl_job *job;

	spin_lock(&engine.lock);
	list_for_each_entry(job, &engine.queue, node) {
		if (job->fence == fence) {
			if (!job->cancel)
				job->cancel = error;
			break;
		}
	}
	spin_unlock(&engine.lock);
	queue_work(engine.wq, &engine.work);
}

/**
 * axl_engine_cancel_file() - cancel every queued job of a closing file
 * @file:  the file.
 * @error: negative errno the fences are signalled with.
 */
void axl_engine_cancel_file(struct axl_file *file, int error)
{
	struct axl_job *job;

	spin_lock(&engine.lock);
	list_for_each_entry(job, &engine.queue, node) {
		if (job->file == file && !job->cancel)
			job->cancel = error;
	}
	spin_unlock(&engine.lock);
	queue_work(engine.wq, &engine.work);
}

/**
 * axl_engine_init() - start metis-sim
 *
 * Return: 0 or -ENOMEM.
 */
int axl_engine_init(void)
{
	spin_lock_init(&engine.lock);
	spin_lock_init(&engine.fence_lock);
	INIT_LIST_HEAD(&engine.queue);
	INIT_WORK(&engine.work, axl_engine_work);
	axl_hrtimer_setup(&engine.timer, axl_engine_timer, CLOCK_MONOTONIC,
			  HRTIMER_MODE_ABS);
	engine.context = dma_fence_context_alloc(1);
	engine.seqno = 0;
	engine.started = 0;
	engine.stopping = false;

	/* fences signal from here: keep it usable under memory pressure */
	engine.wq = alloc_ordered_workqueue("axl-metis-sim", WQ_MEM_RECLAIM);
	return engine.wq ? 0 : -ENOMEM;
}

/**
 * axl_engine_fini() - stop metis-sim, signalling whatever is still queued
 *
 * Jobs hold fences and fences hold module references, so normally nothing
 * is queued here. A forced unload (rmmod -f) gets here with jobs queued:
 * their fences are signalled with -ENODEV so no waiter hangs.
 */
void axl_engine_fini(void)
{
	struct axl_job *job, *tmp;
	LIST_HEAD(dead);

	spin_lock(&engine.lock);
	engine.stopping = true;
	list_splice_init(&engine.queue, &dead);
	spin_unlock(&engine.lock);

	hrtimer_cancel(&engine.timer);
	cancel_work_sync(&engine.work);
	hrtimer_cancel(&engine.timer);

	if (!list_empty(&dead))
		pr_warn("axl: unloading with jobs queued; failing them with -ENODEV\n");
	list_for_each_entry_safe(job, tmp, &dead, node) {
		list_del_init(&job->node);
		axl_job_complete(job, -ENODEV);
	}
	destroy_workqueue(engine.wq);
}
