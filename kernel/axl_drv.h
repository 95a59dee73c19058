/* SPDX-License-Identifier: GPL-2.0 */
/*
 * axl: dma-buf import and job submission for the Axelera Metis NPU, with a
 * simulated engine (metis-sim). Internal declarations.
 */
#ifndef _AXL_DRV_H
#define _AXL_DRV_H

#include <linux/atomic.h>
#include <linux/dma-buf.h>
#include <linux/dma-direction.h>
#include <linux/dma-fence.h>
#include <linux/fs.h>
#include <linux/kref.h>
#include <linux/list.h>
#include <linux/mutex.h>
#include <linux/refcount.h>
#include <linux/types.h>
#include <linux/workqueue.h>
#include <linux/xarray.h>
#include <linux/axl.h>

#include "axl_compat.h" /* struct iosys_map on every kernel */
#include "axl_fault.h"

struct dma_buf;
struct dma_buf_attachment;
struct device;
struct sg_table;

#define AXL_DRIVER_NAME   "axl"
#define AXL_ENGINE_NAME   "metis-sim"
#define AXL_TIMELINE_NAME "metis-0"

/*
 * AXL_IMPORT_MAX_SAMPLES (width * height) keeps every histogram bin within a
 * u32 and the engine's time per job bounded.
 */

/**
 * struct axl_frame - validated geometry of an imported frame
 * @pixfmt:     AXL_PIXFMT_*.
 * @width:      pixels per line (bytes per line for RAW).
 * @height:     lines of the first plane.
 * @line_bytes: payload bytes per line of every plane.
 * @nplanes:    1, or 2 for NV12.
 * @offset:     byte offset of each plane.
 * @pitch:      bytes from one line to the next, per plane.
 * @lines:      lines of each plane.
 * @size:       bytes the frame needs: the end of its last line's payload.
 */
struct axl_frame {
	u32 pixfmt;
	u32 width;
	u32 height;
	u32 line_bytes;
	u32 nplanes;
	u64 offset[AXL_MAX_PLANES];
	u32 pitch[AXL_MAX_PLANES];
	u32 lines[AXL_MAX_PLANES];
	u64 size;
};

/**
 * struct axl_file - state of one open file of /dev/axl
 * @ref:        held by the open file and by each of its jobs.
 * @lock:       protects @imports and @nr_imports, and orders release against
 *              submit; never held across user copies or engine waits.
 * @imports:    handle -> struct axl_import (NULL while a handle is reserved).
 * @next_handle: cursor of the cyclic handle allocator.
 * @nr_imports: handles allocated or reserved.
 * @nr_jobs:    jobs submitted and not yet completed.
 * @queued_ns:  sum of their timeouts (axl_share.c).
 * @node:       link in the list of open files (under axl_files_lock), so
 *              removing the device can revoke every file's imports.
 * @pins_lock:  protects @pins; taken with no other lock of the file held.
 * @pins:       the dma-bufs the file's imports and jobs pin, each counted
 *              once (struct axl_pin, axl_pin.c).
 */
struct axl_file {
	struct kref ref;
	struct list_head node;
	struct mutex lock;	/* handle table; see above */
	struct mutex pins_lock;	/* @pins */
	struct list_head pins;
	struct xarray imports;
	u32 next_handle;
	u32 nr_imports;
	atomic_t nr_jobs;
	atomic64_t queued_ns;
};

/**
 * struct axl_import - one imported dma-buf, mapped for the engine's device
 * @ref:        held by the handle table and by each job that reads it;
 *              RELEASE_IMPORT waits (wait_var_event) until only the table's
 *              reference is left, so the unmap happens in its context.
 * @busy:       jobs in flight that read this import; RELEASE_IMPORT fails
 *              with -EBUSY while it is non-zero.
 * @handle:     the handle user space knows it by.
 * @file:       the importing file, which its bytes are counted against;
 *              outlives the import (jobs that hold the import hold it).
 * @dmabuf:     reference from dma_buf_get().
 * @dev:        the device @attach belongs to.
 * @attach:     attachment to the engine's device; NULL once revoked (the
 *              device went away). Changes only with the device lock held
 *              for writing, so holders of it for reading see it stable.
 * @sgt:        the attachment's mapping, in axl_map_dir(@dir).
 * @dir:        the direction user space imported the buffer for.
 * @iova:       device address of the first mapped byte.
 * @inode:      inode of the dma-buf's file, as debugfs bufinfo shows it.
 * @contiguous: the mapping is one contiguous device address range.
 * @frame:      the frame the import describes.
 */
struct axl_import {
	struct kref ref;
	atomic_t busy;
	u32 handle;
	struct axl_file *file;
	struct dma_buf *dmabuf;
	struct device *dev;
	struct dma_buf_attachment *attach;
	struct sg_table *sgt;
	enum dma_data_direction dir;
	dma_addr_t iova;
	unsigned long inode;
	bool contiguous;
	struct axl_frame frame;
};

/*
 * Directions of the CPU accesses the driver begins. metis-sim's engine and
 * the Metis node's eDMA are CPUs standing in for devices; they begin each
 * access by the dma-buf rules, in the direction of what the CPU does:
 *  - AXL_CPU_READ to read what a device may have written (a camera frame):
 *    on a system that is not DMA-coherent this is what invalidates the CPU's
 *    stale lines of the buffer (arm64 invalidates for any direction but
 *    DMA_TO_DEVICE). Nothing else does it for a camera frame: videobuf2's
 *    cache hints skip its own syncs for a DMABUF queue.
 *  - AXL_CPU_WRITE to store the result header, which only the engine
 *    writes: the end cleans the lines for the devices that read it.
 *  - AXL_CPU_READ_WRITE to store into part of a buffer that devices write
 *    too (a Metis READ transfer): a range that ends inside a cache line
 *    needs the line's other bytes fresh before the end cleans the line.
 * The heaps sync every mapped attachment of the buffer in the one direction
 * given, so DMA_API_DEBUG reports the attachments mapped another way (our
 * readers' TO_DEVICE mappings, a camera's FROM_DEVICE one); the cache work
 * is still what the access needs, and the device suites name those reports
 * benign (tests/device/kernel_splats.sh). The driver's own mappings are
 * TO_DEVICE (readers, any number) or BIDIRECTIONAL (the one writer): two
 * mappings a device may write, DMA_API_DEBUG's other complaint, are what
 * axl_writer_claim() rules out.
 */
#define AXL_CPU_READ DMA_FROM_DEVICE
#define AXL_CPU_WRITE DMA_TO_DEVICE
#define AXL_CPU_READ_WRITE DMA_BIDIRECTIONAL

static inline enum dma_data_direction axl_map_dir(enum dma_data_direction dir)
{
	return dir == DMA_TO_DEVICE ? DMA_TO_DEVICE : DMA_BIDIRECTIONAL;
}

/*
 * Whether the driver may write into @dmabuf: its file was opened for
 * writing (a DMA heap hands out a read-only one for fd_flags O_RDONLY, and
 * every fd of a dma-buf shares its one file). A SUBMIT result, an import
 * for device writes and a Metis attachment are written into, and refuse a
 * read-only buffer with -EACCES.
 */
static inline bool axl_dma_buf_writable(const struct dma_buf *dmabuf)
{
	return dmabuf->file->f_mode & FMODE_WRITE;
}

/**
 * struct axl_job - one submitted frame
 * @node:        link in the engine queue (under the engine lock).
 * @cleanup:     unmaps and frees the job after its fence signalled, in
 *               process context outside the engine's signalling worker.
 * @fence:       signalled when the job ends; the job holds one reference.
 * @deps:        fences the job waits for (references), collected at submit
 *               from the input's and the result's reservation objects.
 * @nr_deps:     entries of @deps.
 * @dep_next:    first entry of @deps not known to be signalled.
 * @dep_cb:      callback on @deps[@dep_next] that kicks the engine.
 * @dep_armed:   @dep_cb is installed.
 * @dev:         the device the result attachment belongs to.
 * @file:        the submitting file (reference).
 * @import:      the input (reference, counted in its @busy).
 * @result:      the result dma-buf (reference).
 * @result_attach: the result buffer's attachment to the engine's device.
 * @result_sgt:  its mapping for device writes.
 * @pin_file:    the file the result buffer is counted against.
 * @user:        the submitter's account its timeout counts against (reference).
 * @in_map:      kernel mapping of the input, made at submit.
 * @out_map:     kernel mapping of the result buffer, made at submit.
 * @model_id:    from the submit.
 * @timeout_ns:  run-time budget on the engine.
 * @submit_ns:   CLOCK_MONOTONIC time of the submit.
 * @start:       when the job reached the head of the queue.
 * @due:         when the engine finishes it (start + latency).
 * @deadline:    when it times out (start + timeout).
 * @started:     @start, @due, @deadline and the fault flags are set.
 * @stalled:     fault injection: the engine never finishes this job.
 * @fail:        fault injection: the job fails with -EIO.
 * @cancel:      0, or the error the job is cancelled with.
 * @res:         the result being assembled.
 */
struct axl_job {
	struct list_head node;
	struct work_struct cleanup;
	struct dma_fence *fence;
	struct dma_fence **deps;
	unsigned int nr_deps;
	unsigned int dep_next;
	struct dma_fence_cb dep_cb;
	bool dep_armed;
	struct device *dev;
	struct axl_file *file;
	struct axl_import *import;
	struct dma_buf *result;
	struct dma_buf_attachment *result_attach;
	struct sg_table *result_sgt;
	struct axl_file *pin_file;
	struct axl_user *user;
	struct iosys_map in_map;
	struct iosys_map out_map;
	u32 model_id;
	u64 timeout_ns;
	u64 submit_ns;
	ktime_t start;
	ktime_t due;
	ktime_t deadline;
	bool started;
	bool stalled;
	bool fail;
	int cancel;
	struct axl_result res;
};

/**
 * struct axl_stats - counters for debugfs and the tests' leak checks
 * @files:      open files.
 * @imports:    live imports (mapped dma-bufs).
 * @jobs:       jobs queued or running.
 * @fences:     fences not yet freed.
 * @imported:   imports made since load.
 * @released:   imports unmapped since load.
 * @submitted:  jobs queued since load.
 * @completed:  jobs that succeeded.
 * @failed:     jobs that ended with -EIO (or another engine error).
 * @timed_out:  jobs that ended with -ETIMEDOUT.
 * @cancelled:  jobs cancelled (file closed, failed submit, unload).
 * @pins:       live struct axl_pin: buffers charged (axl_pin.c).
 * @users:      live struct axl_user: accounts (axl_user.c).
 * @writers:    buffers with a writer mapping (axl_writers.c).
 */
struct axl_stats {
	atomic64_t files;
	atomic64_t imports;
	atomic64_t jobs;
	atomic64_t fences;
	atomic64_t imported;
	atomic64_t released;
	atomic64_t submitted;
	atomic64_t completed;
	atomic64_t failed;
	atomic64_t timed_out;
	atomic64_t cancelled;
	atomic64_t pins;
	atomic64_t users;
	atomic64_t writers;
};

extern struct axl_stats axl_stats;

/* axl_dev.c: the device imports attach to. */
int axl_dev_init(void);
void axl_dev_fini(void);
struct device *axl_dev(void);
int axl_dev_lock(void);
void axl_dev_hold(void);
void axl_dev_unlock(void);
u32 axl_dev_caps(void);

/* axl_main.c: the open files, for revoking their imports; fail_init=. */
void axl_files_revoke(void);
bool axl_fail_at(const char *step);

/* axl_frame.c: geometry and the engine's computation. */
int axl_frame_init(struct axl_frame *frame, u32 pixfmt, u32 width,
		   u32 height, u32 stride);
int axl_frame_init_planes(struct axl_frame *frame,
			  const struct axl_import_fd2 *args);
int axl_frame_compute(const struct axl_frame *frame, const u8 *base,
		      struct axl_result *res, ktime_t deadline);

/* axl_import.c */
int axl_import_ioctl(struct axl_file *file, void __user *uarg);
int axl_import2_ioctl(struct axl_file *file, void __user *uarg);
int axl_release_ioctl(struct axl_file *file, void __user *uarg);
int axl_import_remove(struct axl_file *file, u32 handle);
struct axl_import *axl_import_get_busy(struct axl_file *file, u32 handle);
void axl_import_idle(struct axl_import *imp);
void axl_import_put(struct axl_import *imp);
void axl_import_release_all(struct axl_file *file);
void axl_import_revoke_all(struct axl_file *file);
u32 axl_max_imports(void);

/* axl_job.c */
int axl_submit_ioctl(struct axl_file *file, void __user *uarg);
void axl_job_complete(struct axl_job *job, int status);
void axl_job_signal(struct axl_job *job, int status);
void axl_job_cleanup(struct work_struct *work);
void axl_engine_flush_cleanup(void);

/**
 * struct axl_user - what one user (real uid) holds through all its files
 * @uid:       the uid in the initial namespace: the index in axl_user.c's table.
 * @ref:       held by each of the user's pinned buffers and jobs in flight.
 * @pinned:    bytes pinned (axl_pin.c); at most max_user_pinned_mb MiB.
 * @queued_ns: sum of the timeouts of its jobs in flight (axl_share.c).
 */
struct axl_user {
	unsigned long uid;
	refcount_t ref;
	atomic64_t pinned;
	atomic64_t queued_ns;
};

/* axl_user.c: the account of the calling user. */
struct axl_user *axl_user_get(void);
void axl_user_put(struct axl_user *user);

/* axl_pin.c: bytes pinned, per user and in all. */
int axl_pin_get(struct axl_file *file, const struct dma_buf *buf);
void axl_pin_put(struct axl_file *file, const struct dma_buf *buf);
struct axl_pin;
struct axl_pin *axl_pin_new(const struct dma_buf *buf);
void axl_pin_free(struct axl_pin *pin);

/* axl_share.c: one file's and one user's share of the engine. */
int axl_share_admit(struct axl_file *file, u64 timeout_ns,
		    struct axl_user **user);
void axl_share_release(struct axl_file *file, struct axl_user *user,
		       u64 timeout_ns);

/* axl_writers.c: one device mapping for writing per buffer. */
int axl_writer_claim(struct dma_buf *buf, void *owner,
		     enum dma_data_direction dir);
void axl_writer_release(struct dma_buf *buf, enum dma_data_direction dir);
bool axl_writer_busy(struct dma_buf *buf);
void axl_file_put(struct axl_file *file);
u32 axl_max_jobs(void);

/* axl_engine.c: metis-sim. */
int axl_engine_init(void);
void axl_engine_fini(void);
void axl_engine_submit_lock(void);
void axl_engine_submit_unlock(void);
void axl_engine_fence_init(struct axl_job *job);
void axl_engine_push(struct axl_job *job);
void axl_engine_cancel_file(struct axl_file *file, int error);
void axl_engine_drain(int error);
void axl_engine_defer(struct axl_job *job);
u64 axl_engine_default_timeout_ns(void);
int axl_engine_run(struct axl_job *job);

#endif /* _AXL_DRV_H */
