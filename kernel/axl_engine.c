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
 * A job also waits for its dependencies: the fences it collected at submit
 * from its buffers' reservation objects. The wait is a fence callback that
 * kicks the worker, bounded by the job's deadline like the engine's own
 * run time; the worker itself never blocks on a fence or takes a
 * reservation lock. Inside its signalling section (between
 * dma_fence_begin_signalling() and dma_fence_end_signalling()) it only
 * reads and writes through mappings made at submit and signals; unmapping
 * and freeing happen afterwards on a separate workqueue.
 *
 * Fault injection (module parameters, writable at run time): fail_next and
 * fail_every fail jobs with -EIO; stall_next makes jobs hang until their
 * timeout (-ETIMEDOUT); stall_ms adds run time to every job.
 */
#include <linux/dma-buf.h>
#include <linux/dma-fence.h>
#include <linux/dma-mapping.h>
#include <linux/hrtimer.h>
#include <linux/module.h>
#include <linux/mutex.h>
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
 * @submit_lock: held from taking a seqno to queueing its job, so seqno order
 *              is queue order and a submit that fails before queueing gives
 *              its seqno back. Never held across a user copy.
 * @lock:       protects @queue, @seqno, @started, @stopping, the fields of
 *              queued jobs, and consumption of the fault counters.
 * @fence_lock: the dma_fence lock of every fence on the timeline.
 * @queue:      jobs in submission order; the head one is running.
 * @context:    the fence context of "metis-0".
 * @seqno:      last seqno handed out.
 * @started:    jobs started since load (for fail_every).
 * @stopping:   the module is unloading: arm nothing any more.
 * @wq:         runs @work: the fence signalling worker.
 * @cleanup_wq: unmaps and frees jobs after their fences signalled.
 * @work:       completes the head job when it is due.
 * @timer:      queues @work when the head job is due or times out.
 */
static struct axl_engine {
	struct mutex submit_lock; /* seqno to queue; see above */
	spinlock_t lock;	/* the queue and its jobs */
	spinlock_t fence_lock;	/* every fence on the timeline */
	struct list_head queue;
	u64 context;
	u64 seqno;
	u64 started;
	bool stopping;
	struct workqueue_struct *wq;
	struct workqueue_struct *cleanup_wq;
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
	 * Taken in axl_engine_fence_init(): these ops must outlive the fence.
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

/* A dependency signalled: look at the head job again. */
static void axl_engine_dep_cb(struct dma_fence *dep, struct dma_fence_cb *cb)
{
	queue_work(engine.wq, &engine.work);
}

/*
 * Whether every dependency of @job has signalled. Otherwise a callback is
 * armed on the first one that has not, and false returned. One callback
 * at a time: it is removed under the dependency's lock before being moved
 * on, so it never sits on two lists.
 */
static bool axl_engine_deps_done(struct axl_job *job)
{
	struct dma_fence *dep;

	lockdep_assert_held(&engine.lock);
	while (job->dep_next < job->nr_deps) {
		dep = job->deps[job->dep_next];
		if (job->dep_armed) {
			if (!dma_fence_is_signaled(dep))
				return false;
			dma_fence_remove_callback(dep, &job->dep_cb);
			job->dep_armed = false;
		} else if (!dma_fence_add_callback(dep, &job->dep_cb,
						   axl_engine_dep_cb)) {
			job->dep_armed = true;
			return false;
		}
		job->dep_next++;
	}
	return true;
}

/*
 * A job leaving the queue stops listening to its dependency: the callback
 * kicks the engine's worker, which must not be kicked (or exist) for a job
 * that is gone, nor after a forced unload freed the worker and this code.
 */
static void axl_engine_disarm(struct axl_job *job)
{
	if (!job->dep_armed)
		return;
	dma_fence_remove_callback(job->deps[job->dep_next], &job->dep_cb);
	job->dep_armed = false;
}

/*
 * What happens to the head job now: its final status, or -EINPROGRESS with
 * @wake set to when to look again. Waiting for dependencies counts against
 * the job's deadline.
 */
static int axl_engine_verdict(struct axl_job *job, ktime_t now, ktime_t *wake)
{
	if (job->cancel)
		return job->cancel;
	if (!job->started)
		axl_engine_start(job, now);

	if (job->stalled || ktime_after(job->due, job->deadline) ||
	    !axl_engine_deps_done(job)) {
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
	axl_engine_disarm(job);
	spin_unlock(&engine.lock);
	return job;

out_none:
	spin_unlock(&engine.lock);
	return NULL;
}

/*
 * The signalling worker. Between taking a job off the queue and signalling
 * its fence it allocates nothing, waits on no fence and takes no
 * reservation lock (lockdep checks this through the signalling
 * annotation); the job's mappings are undone by axl_job_cleanup() on
 * cleanup_wq afterwards.
 */
static void axl_engine_work(struct work_struct *work)
{
	struct axl_job *job;
	bool cookie;
	int status;

	while ((job = axl_engine_next(&status))) {
		cookie = dma_fence_begin_signalling();
		if (!status)
			status = axl_engine_run(job);
		axl_job_signal(job, status);
		dma_fence_end_signalling(cookie);
		axl_engine_defer(job);
		cond_resched();
	}
}

/**
 * axl_engine_defer() - clean a signalled job up in process context
 * @job: a job whose fence has signalled; freed by axl_job_cleanup().
 */
void axl_engine_defer(struct axl_job *job)
{
	INIT_WORK(&job->cleanup, axl_job_cleanup);
	queue_work(engine.cleanup_wq, &job->cleanup);
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
 * Reads the frame through the kernel mapping and leaves the statistics in
 * job->res. The read is a CPU access inside the one SUBMIT began with
 * dma_buf_begin_cpu_access() (see axl_job.c): the exporter made the
 * frame visible to the CPU then, after the input's writers finished, and
 * the cleanup ends the access after the fence signalled. Nothing here
 * takes the reservation lock, waits for a fence or syncs the import's own
 * mapping, which the dma-buf rules leave to the exporter. No copy of the
 * frame is made.
 *
 * Return: 0, or -ETIMEDOUT when the job's deadline passed while reading.
 */
int axl_engine_run(struct axl_job *job)
{
	return axl_frame_compute(&job->import->frame, job->in_map.vaddr,
				 &job->res, job->deadline);
}

/**
 * axl_engine_submit_lock() - start a submit: nothing else takes a seqno
 */
void axl_engine_submit_lock(void)
{
	mutex_lock(&engine.submit_lock);
}

/**
 * axl_engine_submit_unlock() - end a submit
 */
void axl_engine_submit_unlock(void)
{
	mutex_unlock(&engine.submit_lock);
}

/**
 * axl_engine_fence_init() - initialise a job's fence without publishing it
 * @job: prepared; job->fence allocated but not initialised.
 *
 * Caller holds the submit lock. The fence gets the next seqno, which is
 * only consumed by axl_engine_push(); a submit that fails before that
 * signals the fence with an error and drops it, and the next submit
 * reuses the seqno. Each fence holds a module reference: its ops are
 * called (SYNC_IOC_FILE_INFO, the dma_fence_destroy event) as long as it
 * lives, so the module cannot be unloaded while user space holds a fence
 * fd, or while a buffer's reservation object holds the fence: SUBMIT
 * publishes it there, and a reservation object drops a fence, signalled or
 * not, only when a later fence replaces it or the buffer is freed.
 */
void axl_engine_fence_init(struct axl_job *job)
{
	lockdep_assert_held(&engine.submit_lock);
	__module_get(THIS_MODULE);
	atomic64_inc(&axl_stats.fences);
	job->submit_ns = ktime_get_ns();
	dma_fence_init(job->fence, &axl_fence_ops, &engine.fence_lock,
		       engine.context, READ_ONCE(engine.seqno) + 1);
}

/*
 * A dependency on this timeline that is not earlier than the job itself
 * could never signal first. Dependencies are collected before the seqno is
 * taken, so this does not happen; the check keeps it an error, not a hang.
 */
static bool axl_engine_self_dep(const struct axl_job *job)
{
	unsigned int i;

	for (i = 0; i < job->nr_deps; i++) {
		if (job->deps[i]->context == engine.context &&
		    job->deps[i]->seqno >= job->fence->seqno)
			return true;
	}
	return false;
}

/**
 * axl_engine_push() - queue a job whose fence axl_engine_fence_init() made
 * @job: the job; caller holds the submit lock.
 *
 * From here on the job may complete at any time; the caller's reference
 * to the fence keeps it valid for the caller.
 */
void axl_engine_push(struct axl_job *job)
{
	struct dma_fence *fence = job->fence;

	lockdep_assert_held(&engine.submit_lock);
	atomic64_inc(&axl_stats.jobs);
	atomic64_inc(&axl_stats.submitted);

	spin_lock(&engine.lock);
	engine.seqno = fence->seqno;
	if (axl_engine_self_dep(job))
		job->cancel = -EDEADLK;
	list_add_tail(&job->node, &engine.queue);
	trace_dma_fence_emit(fence);
	trace_axl_job_submit(fence->context, fence->seqno, job->import->handle,
			     job->import->inode, job->model_id, 0);
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
 * axl_engine_drain() - end every queued job and wait until all are cleaned up
 * @error: negative errno queued jobs are cancelled with.
 *
 * For the engine's device going away: the caller holds the device lock for
 * writing, so no job can be queued meanwhile. A job already running ends
 * normally. On return no job holds a mapping or attachment any more.
 */
void axl_engine_drain(int error)
{
	struct axl_job *job;
	bool stopped;

	spin_lock(&engine.lock);
	/* at module exit axl_engine_fini() ended every job already */
	stopped = engine.stopping;
	list_for_each_entry(job, &engine.queue, node) {
		if (!job->cancel)
			job->cancel = error;
	}
	spin_unlock(&engine.lock);
	if (stopped)
		return;
	queue_work(engine.wq, &engine.work);
	flush_workqueue(engine.wq);
	/* every job signalled has its cleanup queued by now */
	axl_engine_flush_cleanup();
}

/**
 * axl_engine_flush_cleanup() - wait for the cleanup of every job that ended
 *
 * Cleanups unmap and put; none waits for a fence, so this is bounded. Not
 * for the signalling worker, which must never wait for a cleanup.
 */
void axl_engine_flush_cleanup(void)
{
	flush_workqueue(engine.cleanup_wq);
}

/**
 * axl_engine_init() - start metis-sim
 *
 * Return: 0 or -ENOMEM.
 */
int axl_engine_init(void)
{
	mutex_init(&engine.submit_lock);
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
	if (!engine.wq)
		return -ENOMEM;
	engine.cleanup_wq = alloc_workqueue("axl-cleanup", 0, 0);
	if (!engine.cleanup_wq) {
		destroy_workqueue(engine.wq);
		return -ENOMEM;
	}
	return 0;
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
		/* a foreign fence may outlive this module: no callback into it */
		axl_engine_disarm(job);
		axl_job_complete(job, -ENODEV);
	}
	destroy_workqueue(engine.wq);
	/* waits for the cleanup of every job, the last fence put included */
	destroy_workqueue(engine.cleanup_wq);
}
