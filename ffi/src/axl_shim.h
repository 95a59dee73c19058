/* SPDX-License-Identifier: MIT */
/*
 * libaxl_shim: the thin C layer Deno calls through Deno.dlopen.
 *
 * Every function takes scalars, C strings or pointers to plain arrays (the
 * per-frame import and submit: one packed block, struct axl_shim_frame_args)
 * and returns a value >= 0 on success or -errno on failure: errno itself
 * cannot be read reliably from Deno. Struct layouts of the kernel ABI stay on
 * this side; results are passed back in documented slots of a __u64/__s64
 * array.
 */
#ifndef AXL_SHIM_H
#define AXL_SHIM_H

#include <stddef.h>
#include <stdint.h>

/* Version of the contract between this library and ffi/symbols.ts. */
#define AXL_SHIM_API_VERSION 7

/* Versions and constants. */
int32_t axl_shim_api_version(void);
int32_t axl_shim_abi_version(void);
int64_t axl_shim_const(const char *name);
const char *axl_shim_errno_name(int32_t err);

/* File descriptors. */
int32_t axl_shim_open(const char *path, int32_t flags);
int32_t axl_shim_close(int32_t fd);
int32_t axl_shim_dup(int32_t fd);
int32_t axl_shim_fstat(int32_t fd, uint64_t *out);
int64_t axl_shim_ioctl(int32_t fd, uint64_t request, void *arg);
int64_t axl_shim_clock_ns(int32_t clock_id);

/* Memory mappings. */
int32_t axl_shim_mmap(int32_t fd, uint64_t len, int32_t prot, uint64_t offset, uint64_t *addr_out);
int32_t axl_shim_munmap(uint64_t addr, uint64_t len);
int32_t axl_shim_memcpy(uint64_t dst, uint64_t src, uint64_t len);

/* DMA heaps and dma-bufs. */
int32_t axl_shim_heap_alloc(const char *heap, uint64_t len, uint32_t fd_flags, uint64_t heap_flags);
int32_t axl_shim_dmabuf_sync(int32_t fd, uint64_t flags);
int32_t axl_shim_dmabuf_set_name(int32_t fd, const char *name);

/* sync_file fences. */
int32_t axl_shim_poll_in(int32_t fd, int32_t timeout_ms);
int32_t axl_shim_fence_info(int32_t fd, int64_t *out, char *name, uint64_t name_len);

/* The axl NPU device (kernel/include/uapi/linux/axl.h). */
int32_t axl_shim_dev_info(int32_t dev, uint64_t *nums, char *strings, uint64_t strings_len);
int32_t axl_shim_dev_import(int32_t dev, int32_t buf_fd, uint32_t width, uint32_t height,
			    uint32_t pixfmt, uint32_t stride, uint32_t flags, uint64_t *out);
int32_t axl_shim_dev_import2(int32_t dev, int32_t buf_fd, uint32_t width, uint32_t height,
			     uint32_t pixfmt, uint32_t flags, uint64_t modifier, uint32_t nplanes,
			     const uint64_t *planes, uint64_t *out);
/*
 * Submit flag of the shim (never passed to the kernel): after SUBMIT,
 * publish the job's fence for implicit sync with
 * DMA_BUF_IOCTL_IMPORT_SYNC_FILE, as a writer of the result (unless the
 * driver did, AXL_CAP_IMPLICIT_SYNC) and a reader of the input (unless the
 * driver did, AXL_CAP_IMPLICIT_SYNC_INPUT); the caps are learnt once per
 * process with GET_INFO, and a driver with both costs no ioctl. The
 * submit's out-slots [3] and [4] say how
 * that went: [3] 1 published, 0 not asked, -ENOTTY the kernel lacks the
 * ioctl (Linux < 6.0; learnt once per process), another
 * -errno: publishing failed, [4] telling where (1 the result, 2 the input).
 * The job runs and its fence fd is returned in every case.
 */
#define AXL_SHIM_SUBMIT_IMPLICIT_SYNC (1U << 31)
int32_t axl_shim_dev_submit(int32_t dev, uint32_t handle, int32_t input_fd, int32_t result_fd,
			    uint32_t model_id, uint32_t timeout_us, uint32_t flags, uint64_t *out);
int32_t axl_shim_dev_release(int32_t dev, uint32_t handle);
int32_t axl_shim_result_decode(uint64_t addr, uint64_t len, int64_t *nums, uint32_t *histogram);

/* implicit_sync.c: whether the kernel takes DMA_BUF_IOCTL_IMPORT_SYNC_FILE. */
int32_t axl_shim_implicit_sync(void);
int32_t axl_shim_implicit_sync_probe(int32_t buf_fd);

/*
 * frame_steps.c: several frame-loop steps per call.
 *
 * The per-frame import and submit take their arguments in one packed block
 * rather than a dozen scalars: an FFI call that V8 does not make through its
 * fast path converts every argument on each call, so one pointer costs less
 * than fourteen. The caller fills the "in" members, the shim fills the "out"
 * ones; imp_out and sub_out hold what axl_shim_dev_import() and
 * axl_shim_dev_submit() write into their out-arrays. lib/core/_frame_args.ts
 * reads this layout by offset; tests/host/ffi/frame_args.test.ts compares
 * its offsets with this struct's on x86_64 and aarch64.
 */
#define AXL_SHIM_IMPORT_OUT_SLOTS 6
#define AXL_SHIM_SUBMIT_OUT_SLOTS 5
struct axl_shim_frame_args {
	/* in: the import (dev and buf_fd are the submit's too) */
	int32_t dev;
	int32_t buf_fd;
	uint32_t width;
	uint32_t height;
	uint32_t pixfmt;
	uint32_t stride;
	uint32_t flags;
	/* in: the submit (handle only for axl_shim_frame_submit()) */
	uint32_t handle;
	int32_t result_fd;
	uint32_t model_id;
	uint32_t timeout_us;
	uint32_t submit_flags;
	/* out: the step that failed (1 import, 2 submit), 0 when none did */
	int32_t step;
	uint32_t pad;
	uint64_t imp_out[AXL_SHIM_IMPORT_OUT_SLOTS];
	uint64_t sub_out[AXL_SHIM_SUBMIT_OUT_SLOTS];
};
int32_t axl_shim_frame_import(struct axl_shim_frame_args *a);
int32_t axl_shim_frame_submit(struct axl_shim_frame_args *a);
int32_t axl_shim_dev_import_submit(struct axl_shim_frame_args *a);
int32_t axl_shim_fence_close_release(int32_t fence_fd, int32_t dev, uint32_t handle);
int32_t axl_shim_fence_wait_info(int32_t fd, int32_t timeout_ms, int64_t *out, char *name,
				 uint64_t name_len);
int32_t axl_shim_result_read(int32_t buf_fd, uint64_t addr, uint64_t len, int64_t *nums,
			     uint32_t *histogram);

/* The Metis driver's dma-buf ABI (kernel/include/uapi/linux/axl_metis.h). */
#define AXL_SHIM_METIS_STATS_SLOTS 9
int32_t axl_shim_metis_attach(int32_t dev, int32_t buf_fd);
int32_t axl_shim_metis_detach(int32_t dev);
int32_t axl_shim_metis_xfer(int32_t dev, uint64_t phy, uint64_t size, uint32_t offset,
			    int32_t flags, int32_t channel);
int32_t axl_shim_metis_xfer_status(int32_t dev);
int32_t axl_shim_metis_clear_event(int32_t dev);
int32_t axl_shim_metis_property(int32_t dev, uint64_t id, uint64_t *out);
int32_t axl_shim_metis_resources(int32_t dev, uint64_t *out);
int32_t axl_shim_metis_dma_stats(int32_t dev, uint64_t *out);

/* V4L2 single-planar capture with DMABUF memory. */
int32_t axl_shim_v4l2_querycap(int32_t fd, uint32_t *caps, char *strings, uint64_t strings_len);
int32_t axl_shim_v4l2_set_format(int32_t fd, uint32_t width, uint32_t height, uint32_t fourcc,
				 uint32_t *out);
int32_t axl_shim_v4l2_set_interval(int32_t fd, uint32_t num, uint32_t den, uint32_t *out);
int32_t axl_shim_v4l2_reqbufs(int32_t fd, uint32_t count);
int32_t axl_shim_v4l2_qbuf(int32_t fd, uint32_t index, int32_t dmabuf_fd, uint32_t length);
int32_t axl_shim_v4l2_dqbuf(int32_t fd, uint64_t *out);
int32_t axl_shim_v4l2_stream(int32_t fd, int32_t on);

/*
 * Argus (Jetson Multimedia API); -ENOSYS unless built with it. A session's
 * frames come in a ring of AXL_ARGUS_RING_SLOTS NvBuffers: acquire fills a
 * free slot and returns its dma-buf fd, which stays the session's (never
 * close it); release gives the slot back. acquire_fd writes
 * AXL_ARGUS_OUT_WORDS words and waits at most AXL_ARGUS_MAX_TIMEOUT_MS.
 */
#define AXL_ARGUS_RING_SLOTS 4
#define AXL_ARGUS_OUT_WORDS 8
#define AXL_ARGUS_MAX_TIMEOUT_MS 60000
int32_t axl_shim_argus_available(void);
int32_t axl_shim_argus_open(uint32_t sensor, uint32_t width, uint32_t height);
int32_t axl_shim_argus_acquire_fd(int32_t session, int32_t timeout_ms, uint64_t *out);
int32_t axl_shim_argus_release(int32_t session, uint32_t slot);
int32_t axl_shim_argus_close(int32_t session);

/* Trace scanning (trace_scan.c); the record and state layouts are read by
 * lib/core/trace_scan.ts. */
#define AXL_TRACE_SCAN_OTHER 1 /* kind, line, start, end: a line for the TypeScript parser */
#define AXL_TRACE_SCAN_CALL 2 /* kind, line, name start, name end: a call counted by the caller */
#define AXL_TRACE_SCAN_EVENT 3 /* kind, line, name start, end, ts, pid, fields, name number,
				    * then 4 spans per field */
#define AXL_TRACE_SCAN_MAX_FIELDS 16
#define AXL_TRACE_SCAN_RECORD_MAX (8 + 4 * AXL_TRACE_SCAN_MAX_FIELDS)
#define AXL_TRACE_SCAN_FUNCS 256
#define AXL_TRACE_SCAN_NAME_MAX 63
#define AXL_TRACE_SCAN_ENTRIES_OFFSET 16
#define AXL_TRACE_SCAN_ENTRY_BYTES 72
#define AXL_TRACE_SCAN_COUNT_OFFSET 64
int32_t axl_trace_scan_state_bytes(void);
int32_t axl_trace_scan(uint8_t *state, const uint8_t *text, uint32_t len, double *out,
		       uint32_t out_len);

/* The frame join in C (trace_join.c), run by the scanner once started: events it folds are
 * not reported, but the first of each name is, as a FOLDED record. */
#define AXL_TRACE_SCAN_FOLDED 4 /* kind, line, name start, name end, name number */
/* Events axl_trace_join_add() takes, with their arguments (NaN: absent). */
#define AXL_TRACE_JOIN_IMPORT 1	   /* handle, inode, ts, pid; text: the exporter */
#define AXL_TRACE_JOIN_RELEASE 2   /* handle, inode, ts */
#define AXL_TRACE_JOIN_SUBMIT 3	   /* context, seqno, handle, inode, ts, pid */
#define AXL_TRACE_JOIN_COMPLETE 4  /* context, seqno, status, ts */
#define AXL_TRACE_JOIN_SIGNALED 5  /* context, seqno, ts */
#define AXL_TRACE_JOIN_DESTROYED 6 /* context, seqno */
/* What axl_trace_join_read() reads. */
#define AXL_TRACE_JOIN_READ_SEQNO 1	  /* per frame */
#define AXL_TRACE_JOIN_READ_LATENCY 2	  /* per frame */
#define AXL_TRACE_JOIN_READ_SOURCE 3	  /* per frame: 0 none, 1 trace */
#define AXL_TRACE_JOIN_READ_LIST 4	  /* per listed frame: n, then n (field, value) pairs */
#define AXL_TRACE_JOIN_READ_INODES 5	  /* in insertion order */
#define AXL_TRACE_JOIN_READ_EXPORTER_OF 6 /* (inode, string number) pairs */
#define AXL_TRACE_JOIN_READ_EXPORTERS 7	  /* string numbers */
#define AXL_TRACE_JOIN_READ_UNRELEASED 8  /* handles imported more often than released */
#define AXL_TRACE_JOIN_READ_EVENT_COUNTS 9 /* (name number, events folded) pairs */
#define AXL_TRACE_JOIN_F_INDEX 0 /* fields of a listed frame: see trace_join.h */
#define AXL_TRACE_JOIN_SUMMARY_WORDS 16
int32_t axl_trace_join_start(uint8_t *state, double list_limit, double window);
int32_t axl_trace_join_add(uint8_t *state, int32_t kind, const double *args,
			   const uint8_t *text, uint32_t len);
int32_t axl_trace_join_summary(uint8_t *state, double *out, uint32_t out_len);
int32_t axl_trace_join_read(uint8_t *state, int32_t what, double *out, uint32_t out_len);
int32_t axl_trace_join_string(uint8_t *state, int32_t id, uint8_t *out, uint32_t out_len);
int32_t axl_trace_join_count_only(uint8_t *state, int32_t num);
void axl_trace_join_stop(uint8_t *state);

#endif /* AXL_SHIM_H */
