/* SPDX-License-Identifier: GPL-2.0 WITH Linux-syscall-note */
/*
 * axl: dma-buf import and job submission for the Axelera Metis NPU
 * (and its simulated engine, metis-sim).
 *
 * This header is the single source of truth for the ioctl ABI. The kernel
 * module, the user-space shim and the ABI layout check all include it; no
 * other file may hard-code a number, size or offset defined here.
 *
 * Rules, as in the kernel's own dma-buf uapi:
 *  - fixed-width types only, explicit padding, 64-bit alignment of __u64;
 *  - every reserved field and every unknown flag bit must be zero (-EINVAL);
 *  - unknown commands fail with -ENOTTY;
 *  - an ioctl number is never reused: a changed struct gets a new number.
 *
 * Ioctl magic 0xD1, sequence numbers 0x00-0x1F: unassigned in
 * Documentation/userspace-api/ioctl/ioctl-number.rst at the time of writing.
 */
#ifndef _UAPI_LINUX_AXL_H
#define _UAPI_LINUX_AXL_H

#include <linux/ioctl.h>
#include <linux/types.h>

/* Bumped on any incompatible change; the shim refuses a driver that differs. */
#define AXL_ABI_VERSION 1

#define AXL_DEVICE_NAME "axl"

/* Pixel formats: the DRM fourcc codes of <drm/drm_fourcc.h>. */
#define axl_fourcc_code(a, b, c, d) \
	((__u32)(a) | ((__u32)(b) << 8) | ((__u32)(c) << 16) | ((__u32)(d) << 24))

/* Opaque tensor: width is the byte count per line, height the line count. */
#define AXL_PIXFMT_RAW  0
#define AXL_PIXFMT_NV12 axl_fourcc_code('N', 'V', '1', '2')
#define AXL_PIXFMT_GREY axl_fourcc_code('R', '8', ' ', ' ')
#define AXL_PIXFMT_YUYV axl_fourcc_code('Y', 'U', 'Y', 'V')

/* Capability flags reported by AXL_IOCTL_GET_INFO. */
#define AXL_CAP_SIMULATED   (1U << 0) /* the engine is metis-sim, not silicon */
#define AXL_CAP_IOMMU       (1U << 1) /* imports are mapped through an IOMMU */
#define AXL_CAP_PCI         (1U << 2) /* the engine is a PCI function */
#define AXL_CAP_FENCE_STAMP (1U << 3) /* fences carry a signal timestamp */
#define AXL_CAP_IMPORT_PLANES (1U << 4) /* AXL_IOCTL_IMPORT_FD2 is supported */
#define AXL_CAP_IMPLICIT_SYNC (1U << 5) /* SUBMIT adds the job's fence to its result (writer) */
#define AXL_CAP_IMPLICIT_SYNC_INPUT (1U << 6) /* and to its input (reader) */

/**
 * struct axl_info - AXL_IOCTL_GET_INFO output
 * @abi_version:  AXL_ABI_VERSION the driver was built with.
 * @caps:         AXL_CAP_* flags.
 * @max_imports:  imports one open file may hold at once.
 * @max_jobs:     jobs one open file may have in flight at once.
 * @file_imports: imports this open file holds now.
 * @file_jobs:    jobs this open file has in flight now.
 * @driver:       NUL-terminated driver name ("axl").
 * @engine:       NUL-terminated engine name ("metis" or "metis-sim").
 * @device:       NUL-terminated name of the device imports attach to
 *                (a PCI address such as "0000:00:03.0", or a platform name).
 * @timeline:     NUL-terminated fence timeline name ("metis-0").
 * @reserved:     zeroed by the driver.
 */
struct axl_info {
	__u32 abi_version;
	__u32 caps;
	__u32 max_imports;
	__u32 max_jobs;
	__u32 file_imports;
	__u32 file_jobs;
	char driver[16];
	char engine[16];
	char device[32];
	char timeline[16];
	__u64 reserved[4];
};

/* Direction flags of struct axl_import_fd; exactly one must be set. */
#define AXL_IMPORT_TO_DEVICE     (1U << 0) /* DMA_TO_DEVICE: frames */
#define AXL_IMPORT_FROM_DEVICE   (1U << 1) /* DMA_FROM_DEVICE */
#define AXL_IMPORT_BIDIRECTIONAL (1U << 2) /* DMA_BIDIRECTIONAL */
#define AXL_IMPORT_VALID_FLAGS \
	(AXL_IMPORT_TO_DEVICE | AXL_IMPORT_FROM_DEVICE | AXL_IMPORT_BIDIRECTIONAL)

/* Largest width * height AXL_IOCTL_IMPORT_FD accepts. */
#define AXL_IMPORT_MAX_SAMPLES (1U << 28)

/* AXL_IMPORT_FD output flags. */
#define AXL_IMPORT_OUT_CONTIGUOUS (1U << 0) /* one contiguous IOVA range */

/**
 * struct axl_import_fd - AXL_IOCTL_IMPORT_FD argument
 * @fd:        in: dma-buf file descriptor of the frame.
 * @width:     in: frame width in pixels (bytes per line for RAW), > 0.
 * @height:    in: frame height in lines, > 0.
 * @pixfmt:    in: AXL_PIXFMT_*.
 * @stride:    in: bytes per line of the first plane; 0 means packed.
 * @flags:     in: exactly one AXL_IMPORT_* direction flag.
 * @handle:    out: import handle, valid for the importing open file only.
 * @out_flags: out: AXL_IMPORT_OUT_* flags.
 * @iova_base: out: device address of the first mapped byte, or 0 when the
 *             caller lacks CAP_SYS_ADMIN: without an IOMMU it is a physical
 *             address, hidden for the reason /proc/<pid>/pagemap hides PFNs.
 * @size:      out: size of the dma-buf in bytes.
 * @inode:     out: inode number of the dma-buf (as in debugfs bufinfo).
 * @nents:     out: mapped scatterlist entries.
 * @pad:       must be zero.
 * @reserved:  must be zero.
 *
 * The frame described by width, height, pixfmt and stride must fit in the
 * buffer, or the import fails with -EINVAL. Layout: every plane has
 * @stride bytes per line (2 * width when packed for YUYV, width otherwise);
 * NV12's interleaved chroma plane follows the luma plane at offset
 * stride * height and has height / 2 lines. The frame ends with the payload
 * of its last line: the padding after it (stride minus the line's bytes) is
 * never read, so the buffer need not hold it. NV12 needs an even width and
 * height, YUYV an even width, and width * height may not exceed
 * AXL_IMPORT_MAX_SAMPLES. AXL_IOCTL_IMPORT_FD2 describes other layouts.
 *
 * Fails with -ENOSPC when the file holds its maximum of imports or when the
 * buffer would take the bytes the caller's user pins (imports, result
 * buffers of jobs in flight, Metis attachments) past max_user_pinned_mb or
 * everyone's past max_pinned_mb (module parameters; a buffer counts once
 * per open file), and with -ENODEV once the engine's
 * device is gone. An import made AXL_IMPORT_FROM_DEVICE is mapped for
 * device writes only and cannot be a job's input. One mapping for device
 * writes per buffer: an import FROM_DEVICE or BIDIRECTIONAL fails with
 * -EBUSY while another such import, or a job in flight, writes the buffer,
 * and with -EACCES when the buffer is read-only (its dma-buf file was not
 * opened for writing, e.g. a DMA heap allocation with fd_flags O_RDONLY).
 */
struct axl_import_fd {
	__s32 fd;
	__u32 width;
	__u32 height;
	__u32 pixfmt;
	__u32 stride;
	__u32 flags;
	__u32 handle;
	__u32 out_flags;
	__u64 iova_base;
	__u64 size;
	__u64 inode;
	__u32 nents;
	__u32 pad;
	__u64 reserved[2];
};

/* Planes one struct axl_import_fd2 can describe. */
#define AXL_MAX_PLANES 4

/* DRM_FORMAT_MOD_LINEAR of <drm/drm_fourcc.h>: lines in memory order. */
#define AXL_FORMAT_MOD_LINEAR 0ULL

/**
 * struct axl_plane - one plane of struct axl_import_fd2
 * @offset:   byte offset of the plane's first line in the dma-buf.
 * @pitch:    bytes from one line of the plane to the next, at least the
 *            plane's line bytes (never 0).
 * @reserved: must be zero.
 */
struct axl_plane {
	__u64 offset;
	__u32 pitch;
	__u32 reserved;
};

/**
 * struct axl_import_fd2 - AXL_IOCTL_IMPORT_FD2 argument
 * @fd:        in: dma-buf file descriptor of the frame.
 * @flags:     in: exactly one AXL_IMPORT_* direction flag.
 * @width:     in: frame width in pixels (bytes per line for RAW), > 0.
 * @height:    in: frame height in lines, > 0.
 * @pixfmt:    in: AXL_PIXFMT_*.
 * @nplanes:   in: planes used in @planes; must be the format's plane count
 *             (2 for NV12, 1 for GREY, RAW and YUYV).
 * @modifier:  in: DRM format modifier of the layout. metis-sim reads
 *             AXL_FORMAT_MOD_LINEAR only and fails any other value (a tiled
 *             or block-linear layout) with -EOPNOTSUPP, after checking the
 *             format, @nplanes and the zero fields, before the offsets and
 *             pitches (their rules below are those of a linear layout).
 * @planes:    in: offset and pitch of each plane; the entries from
 *             @nplanes on must be all zero.
 * @handle:    out: import handle, valid for the importing open file only.
 * @out_flags: out: AXL_IMPORT_OUT_* flags.
 * @iova_base: out: device address of the first mapped byte.
 * @size:      out: size of the dma-buf in bytes.
 * @inode:     out: inode number of the dma-buf (as in debugfs bufinfo).
 * @nents:     out: mapped scatterlist entries.
 * @pad:       must be zero.
 * @reserved:  must be zero.
 *
 * The import of AXL_IOCTL_IMPORT_FD for frames whose planes have their own
 * offset and pitch, such as an NvBufSurface (lines padded to an aligned
 * pitch, the chroma plane at an aligned offset) or a V4L2 multi-planar
 * buffer. Handles are the same kind as AXL_IOCTL_IMPORT_FD's.
 *
 * A plane has the format's lines (NV12: height, then height / 2 for the
 * chroma plane) of line bytes each (2 * width for YUYV, width otherwise),
 * line n at offset + n * pitch; it ends with its last line's payload, at
 * offset + (lines - 1) * pitch + line bytes. Planes must be in ascending
 * order and must not overlap: each plane starts at or after the end of the
 * one before it. The last plane must end within the dma-buf. Any violation
 * (and the geometry rules of struct axl_import_fd) fails with -EINVAL.
 */
struct axl_import_fd2 {
	__s32 fd;
	__u32 flags;
	__u32 width;
	__u32 height;
	__u32 pixfmt;
	__u32 nplanes;
	__u64 modifier;
	struct axl_plane planes[AXL_MAX_PLANES];
	__u32 handle;
	__u32 out_flags;
	__u64 iova_base;
	__u64 size;
	__u64 inode;
	__u32 nents;
	__u32 pad;
	__u64 reserved[4];
};

/* No submit flags are defined yet. */
#define AXL_SUBMIT_VALID_FLAGS 0U

/* Upper bound of struct axl_submit.timeout_us; 0 selects the driver default. */
#define AXL_SUBMIT_MAX_TIMEOUT_US 10000000U

/**
 * struct axl_submit - AXL_IOCTL_SUBMIT argument
 * @input_handle: in: handle returned by AXL_IOCTL_IMPORT_FD(2).
 * @result_fd:    in: dma-buf the engine writes a struct axl_result into;
 *                at least sizeof(struct axl_result) bytes, writable
 *                (-EACCES for a read-only dma-buf). One job in flight at
 *                a time may write a buffer (-EBUSY otherwise, at once,
 *                although that job's fence is in the buffer).
 * @model_id:     in: model to run (metis-sim accepts any value).
 * @timeout_us:   in: job timeout, 0 = driver default,
 *                at most AXL_SUBMIT_MAX_TIMEOUT_US.
 * @flags:        in: AXL_SUBMIT_* flags (none defined, must be zero).
 * @fence_fd:     out: sync_file fd signalled when the job ends; the fence
 *                carries -EIO, -ETIMEDOUT, -ECANCELED or -ENODEV when the
 *                job failed.
 * @seqno:        out: fence sequence number on the engine's timeline.
 * @submit_ns:    out: CLOCK_MONOTONIC time the job was queued, in ns.
 * @reserved:     must be zero.
 *
 * Fails with -EBUSY when the file has max_jobs jobs in flight, or when
 * this job's timeout would take the sum of the file's jobs' timeouts past
 * max_file_queued_ms, the user's (real uid, all its files; in a user
 * namespace, the user who owns it) past
 * max_user_queued_ms or everyone's past max_queued_ms (module parameters;
 * a job is admitted past those when nothing else counts against them):
 * the engine runs jobs one at a time in submission order, so that sum is
 * the longest a job waits to start. Wait for one of the file's fences and
 * submit again. Fails with -EINVAL for an input imported
 * AXL_IMPORT_FROM_DEVICE, and with -ENODEV once the engine's device is gone (also for imports made before:
 * the removal revoked them; release them as usual). When the ioctl fails,
 * no job was queued and no seqno consumed, except for -EFAULT: the answer
 * is copied out after the job is queued, so on -EFAULT the job runs and
 * writes its result, but no @fence_fd was installed.
 *
 * SUBMIT resolves @result_fd once, when it begins: a dup2() over that fd
 * while SUBMIT runs does not change the buffer the job writes.
 *
 * SUBMIT WAITS for the fences the buffers' reservation objects hold (on
 * the input its writers', as DMA_BUF_IOCTL_SYNC with DMA_BUF_SYNC_READ
 * would; on the result all of them, as DMA_BUF_SYNC_WRITE would): the
 * engine is a CPU, and its access begins here, in the caller's context. The wait is interruptible (-EINTR, no
 * job) and lasts at most the job's timeout (-ETIMEDOUT, no job). A fence
 * added while SUBMIT runs is waited for by the job on the engine instead,
 * against its timeout. A result buffer that a job in flight writes is not
 * waited for: SUBMIT fails with -EBUSY first.
 *
 * IMPLICIT SYNC: the driver adds the job's fence to the result buffer's
 * reservation object as a writer's (on Linux before 5.19: its exclusive
 * fence) and to the input's as a reader's (before 5.19: a shared fence)
 * before SUBMIT returns. So right after SUBMIT, poll() on the result,
 * DMA_BUF_IOCTL_SYNC on it, DMA_BUF_IOCTL_EXPORT_SYNC_FILE (Linux 6.0 on)
 * and any other driver that honours implicit sync wait for the job before
 * they read or write the result, and a writer of the input (the next
 * capture into it, DMA_BUF_IOCTL_SYNC with DMA_BUF_SYNC_WRITE, poll() for
 * POLLOUT) waits for the job before it writes the input; a reader of the
 * input does not wait (AXL_CAP_IMPLICIT_SYNC in struct axl_info says the
 * driver publishes on the result, AXL_CAP_IMPLICIT_SYNC_INPUT on the
 * input; a driver with the first and not the second leaves the input to
 * user space: DMA_BUF_IOCTL_IMPORT_SYNC_FILE with DMA_BUF_SYNC_READ, Linux
 * 6.0 on). The job itself waits only for what the buffers held before it,
 * and a second job reading the same input does not wait for the first: the
 * engine's access to its input is a read, which waits only for writers.
 * Both reservation objects are locked together (one ww_acquire_ctx):
 * SUBMIT may fail with -EINTR while it waits for either.
 *
 * The fence holds a reference to the module while it lives, and a buffer
 * keeps the last fence it was given until a later fence replaces it or
 * the buffer is freed: the module cannot be unloaded while any input or
 * result buffer holding an axl fence is alive, even with every axl file and fence
 * fd closed.
 */
struct axl_submit {
	__u32 input_handle;
	__s32 result_fd;
	__u32 model_id;
	__u32 timeout_us;
	__u32 flags;
	__s32 fence_fd;
	__u64 seqno;
	__u64 submit_ns;
	__u64 reserved[2];
};

/**
 * struct axl_release - AXL_IOCTL_RELEASE_IMPORT argument
 * @handle:   in: handle returned by AXL_IOCTL_IMPORT_FD.
 * @reserved: must be zero.
 *
 * Fails with -EBUSY while a job that reads the import is in flight.
 */
struct axl_release {
	__u32 handle;
	__u32 reserved;
};

#define AXL_RESULT_MAGIC   axl_fourcc_code('A', 'X', 'L', 'R')
#define AXL_RESULT_VERSION 1

/**
 * struct axl_result - what the engine writes at offset 0 of the result buffer
 * @magic:      AXL_RESULT_MAGIC.
 * @version:    AXL_RESULT_VERSION.
 * @seqno:      the job's fence sequence number.
 * @model_id:   the job's model id.
 * @pixfmt:     the input's pixel format.
 * @width:      the input's width.
 * @height:     the input's height.
 * @status:     0, or the negative errno the job failed with.
 * @luma_min:   smallest luma (first-plane) sample.
 * @luma_max:   largest luma (first-plane) sample.
 * @luma_sum:   sum of the luma samples; mean = luma_sum / (width * height).
 * @crc32:      CRC-32 (IEEE 802.3, as zlib's crc32()) over the payload bytes
 *              of every plane in order, line by line, stride (pitch) padding
 *              and the bytes between planes excluded.
 * @histogram:  luma histogram, 256 bins.
 *
 * For RAW and GREY the "luma" plane is the whole frame; for YUYV it is every
 * even byte.
 */
struct axl_result {
	__u32 magic;
	__u32 version;
	__u64 seqno;
	__u32 model_id;
	__u32 pixfmt;
	__u32 width;
	__u32 height;
	__s32 status;
	__u32 luma_min;
	__u32 luma_max;
	__u32 crc32;
	__u64 luma_sum;
	__u32 histogram[256];
};

#define AXL_IOCTL_MAGIC 0xD1

#define AXL_IOCTL_GET_INFO       _IOR(AXL_IOCTL_MAGIC, 0x00, struct axl_info)
#define AXL_IOCTL_IMPORT_FD      _IOWR(AXL_IOCTL_MAGIC, 0x01, struct axl_import_fd)
#define AXL_IOCTL_SUBMIT         _IOWR(AXL_IOCTL_MAGIC, 0x02, struct axl_submit)
#define AXL_IOCTL_RELEASE_IMPORT _IOW(AXL_IOCTL_MAGIC, 0x03, struct axl_release)
#define AXL_IOCTL_IMPORT_FD2     _IOWR(AXL_IOCTL_MAGIC, 0x04, struct axl_import_fd2)

#endif /* _UAPI_LINUX_AXL_H */
