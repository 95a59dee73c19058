// SPDX-License-Identifier: GPL-2.0
/*
 * axl: one open file's, and one user's, share of the engine.
 *
 * metis-sim runs jobs one at a time in submission order on one timeline, so
 * a job waits for every job queued before it, each for at most its timeout
 * (a job's deadline bounds its wait for dependencies and its run alike).
 * The sum of the timeouts of the jobs in flight is therefore the longest a
 * new job can wait to start. A submit is admitted against four bounds:
 *  - max_jobs jobs in flight per open file;
 *  - max_file_queued_ms: the sum of the timeouts of one file's jobs in
 *    flight;
 *  - max_user_queued_ms: that sum over all the files of one user (real uid,
 *    as for pinned bytes: struct axl_user), so opening more files gains
 *    nothing;
 *  - max_queued_ms: that sum over everyone, so a job once admitted waits
 *    at most that long for the jobs before it.
 * The defaults let one file hold a quarter of the queue and one user half
 * of it: others keep room. A submit past a bound fails with -EBUSY and
 * queues nothing: the caller waits for one of its fences and submits
 * again. A job is admitted past a time bound when nothing else is counted
 * against it, so a timeout longer than a bound (at most
 * AXL_SUBMIT_MAX_TIMEOUT_US) still runs, alone.
 *
 * The counts are taken at submit and given back in axl_job_signal(), before
 * the fence signals: atomics only, as the signalling section allows. The
 * job's reference to the user's account goes with the job's cleanup.
 */
#include <linux/atomic.h>
#include <linux/ktime.h>
#include <linux/module.h>

#include "axl_drv.h"

static unsigned int max_file_queued_ms = 4000;
module_param(max_file_queued_ms, uint, 0644);
MODULE_PARM_DESC(max_file_queued_ms, "Sum of the timeouts of one open file's jobs in flight, in ms; 0: no bound (default: 4000)");

static unsigned int max_user_queued_ms = 8000;
module_param(max_user_queued_ms, uint, 0644);
MODULE_PARM_DESC(max_user_queued_ms, "Sum of the timeouts of one user's jobs in flight, in ms; 0: no bound (default: 8000)");

static unsigned int max_queued_ms = 16000;
module_param(max_queued_ms, uint, 0644);
MODULE_PARM_DESC(max_queued_ms, "Sum of the timeouts of all jobs in flight, in ms; 0: no bound (default: 16000)");

/* Sum of the timeouts of all jobs in flight, in ns. */
static atomic64_t axl_queued_ns;

/*
 * Add @ns to @counter unless that takes it past @cap_ms (0: no bound) while
 * something else was counted already.
 */
static bool axl_share_charge(atomic64_t *counter, u64 ns, unsigned int cap_ms)
{
	s64 now = atomic64_add_return(ns, counter);

	if (!cap_ms || now == ns || now <= (s64)cap_ms * NSEC_PER_MSEC)
		return true;
	atomic64_sub(ns, counter);
	return false;
}

/**
 * axl_share_admit() - count a job about to be submitted on @file
 * @file:       the submitting file.
 * @timeout_ns: the job's timeout.
 * @user:       set to the caller's account, with a reference for the job;
 *              the caller drops it with axl_user_put() when the job is gone.
 *
 * Return: 0, the job counted until axl_share_release(); -EBUSY when the
 * file has max_jobs jobs in flight, or the job's timeout would take the
 * file's jobs past max_file_queued_ms, the user's past max_user_queued_ms
 * or everyone's past max_queued_ms; -ENOMEM.
 */
int axl_share_admit(struct axl_file *file, u64 timeout_ns,
		    struct axl_user **user)
{
	*user = axl_user_get();
	if (!*user)
		return -ENOMEM;
	if (atomic_inc_return(&file->nr_jobs) > axl_max_jobs())
		goto err_jobs;
	if (!axl_share_charge(&file->queued_ns, timeout_ns,
			      READ_ONCE(max_file_queued_ms)))
		goto err_jobs;
	if (!axl_share_charge(&(*user)->queued_ns, timeout_ns,
			      READ_ONCE(max_user_queued_ms)))
		goto err_file;
	if (!axl_share_charge(&axl_queued_ns, timeout_ns,
			      READ_ONCE(max_queued_ms)))
		goto err_user;
	return 0;

err_user:
	atomic64_sub(timeout_ns, &(*user)->queued_ns);
err_file:
	atomic64_sub(timeout_ns, &file->queued_ns);
err_jobs:
	atomic_dec(&file->nr_jobs);
	axl_user_put(*user);
	*user = NULL;
	return -EBUSY;
}

/**
 * axl_share_release() - give back what axl_share_admit() counted
 * @file:       as given to axl_share_admit().
 * @user:       as axl_share_admit() set it; the reference stays.
 * @timeout_ns: as given to axl_share_admit().
 *
 * For a job that ended or never ran. Atomics only: called in the engine's
 * signalling section.
 */
void axl_share_release(struct axl_file *file, struct axl_user *user,
		       u64 timeout_ns)
{
	atomic64_sub(timeout_ns, &axl_queued_ns);
	atomic64_sub(timeout_ns, &user->queued_ns);
	atomic64_sub(timeout_ns, &file->queued_ns);
	atomic_dec(&file->nr_jobs);
}
