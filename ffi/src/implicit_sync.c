// SPDX-License-Identifier: MIT
/*
 * Implicit sync for the engine's jobs, where the driver does not do it. An
 * axl driver that reports AXL_CAP_IMPLICIT_SYNC puts each job's fence into
 * its result buffer's reservation object itself (as a writer's), on every
 * kernel, and one that also reports AXL_CAP_IMPLICIT_SYNC_INPUT puts it
 * into the input's too (as a reader's). An older driver does less: without
 * the first, right after SUBMIT poll(), DMA_BUF_IOCTL_SYNC and
 * DMA_BUF_IOCTL_EXPORT_SYNC_FILE on the result would see nothing to wait
 * for; without the second, the next capture into the input would not wait
 * for the engine reading it. The shim adds what the driver did not with
 * DMA_BUF_IOCTL_IMPORT_SYNC_FILE (Linux 6.0): the fence as a writer of the
 * result and as a reader of the input. With a driver that does both it
 * makes no call. Older kernels answer -ENOTTY; that is learnt once per
 * process and not asked again.
 */
#include <errno.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/ioctl.h>

#include <linux/axl.h>
#include <linux/dma-buf.h>

#include "axl_shim.h"
#include "shim_private.h"

#ifndef DMA_BUF_IOCTL_IMPORT_SYNC_FILE
/* Headers older than Linux 6.0; the ABI is the kernel's, not ours. */
struct dma_buf_import_sync_file {
	__u32 flags;
	__s32 fd;
};
#define DMA_BUF_IOCTL_IMPORT_SYNC_FILE _IOW(DMA_BUF_BASE, 3, struct dma_buf_import_sync_file)
#endif

/*
 * Whether the kernel takes DMA_BUF_IOCTL_IMPORT_SYNC_FILE: 0 not known yet,
 * 1 yes, -ENOTTY no. Set by whichever call learns it first (any value it
 * learns is the same one); relaxed atomics, as Deno may call the shim from
 * worker threads too.
 */
static int implicit_sync_kernel;

static void learn(int state)
{
	__atomic_store_n(&implicit_sync_kernel, state, __ATOMIC_RELAXED);
}

/*
 * Which fences the axl driver publishes itself: 0 not known yet, else
 * AXL_SHIM_DRIVER_KNOWN with the driver's AXL_CAP_IMPLICIT_SYNC and
 * AXL_CAP_IMPLICIT_SYNC_INPUT bits. Learnt from GET_INFO on the first
 * device a submit asks for it; every /dev/axl of a process is one driver.
 */
#define AXL_SHIM_DRIVER_KNOWN (1U << 31)
static uint32_t implicit_sync_driver;

static uint32_t driver_publishes(int32_t dev)
{
	uint32_t state = __atomic_load_n(&implicit_sync_driver, __ATOMIC_RELAXED);
	struct axl_info info = { 0 };

	if (state)
		return state;
	if (axl_xioctl(dev, AXL_IOCTL_GET_INFO, &info) < 0)
		return 0; /* ask again next time; fall back meanwhile */
	state = AXL_SHIM_DRIVER_KNOWN |
		(info.caps & (AXL_CAP_IMPLICIT_SYNC | AXL_CAP_IMPLICIT_SYNC_INPUT));
	__atomic_store_n(&implicit_sync_driver, state, __ATOMIC_RELAXED);
	return state;
}

/* Adds the fence of the sync_file @fence_fd to @buf_fd's reservation. */
static int import_fence(int32_t buf_fd, int32_t fence_fd, uint32_t access)
{
	struct dma_buf_import_sync_file req = { .flags = access, .fd = fence_fd };
	int ret = axl_xioctl(buf_fd, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &req);

	if (ret == -ENOTTY)
		learn(-ENOTTY);
	else if (!ret)
		learn(1);
	return ret;
}

/*
 * Publishes a job submitted on @dev, whose fence is @fence_fd: as a writer
 * of @result_fd, unless the driver did that (AXL_CAP_IMPLICIT_SYNC), then
 * as a reader of @input_fd (skipped when negative), unless the driver did
 * that (AXL_CAP_IMPLICIT_SYNC_INPUT); the caps are learnt with one
 * GET_INFO per process. Both buffers are dma-bufs the driver has accepted,
 * so -ENOTTY means the kernel lacks the ioctl. Returns 1 when published
 * (by the driver and the shim together; with a driver that publishes both
 * without an ioctl), -ENOTTY when the kernel cannot take the imports
 * (without an ioctl once known; with a publishing driver its fences are
 * there all the same), or the failed import's -errno with *@step set to 1
 * (result) or 2 (input). The job and @fence_fd are not touched either way.
 */
int axl_publish_job_fence(int32_t dev, int32_t fence_fd, int32_t input_fd, int32_t result_fd,
			  int32_t *step)
{
	uint32_t driver = driver_publishes(dev);
	bool result = !(driver & AXL_CAP_IMPLICIT_SYNC);
	bool input = input_fd >= 0 && !(driver & AXL_CAP_IMPLICIT_SYNC_INPUT);
	int ret;

	*step = 0;
	if (!result && !input)
		return 1;
	if (__atomic_load_n(&implicit_sync_kernel, __ATOMIC_RELAXED) == -ENOTTY)
		return -ENOTTY;
	if (result) {
		*step = 1;
		ret = import_fence(result_fd, fence_fd, DMA_BUF_SYNC_WRITE);
		if (ret < 0)
			goto failed;
	}
	if (input) {
		*step = 2;
		ret = import_fence(input_fd, fence_fd, DMA_BUF_SYNC_READ);
		if (ret < 0)
			goto failed;
	}
	*step = 0;
	return 1;

failed:
	if (ret == -ENOTTY)
		*step = 0;
	return ret;
}

/*
 * What this process knows of the kernel: 1 it takes
 * DMA_BUF_IOCTL_IMPORT_SYNC_FILE, -ENOTTY it does not, 0 not known yet (no
 * job published and no axl_shim_implicit_sync_probe()). Whether the driver
 * publishes result fences itself is in its caps (AXL_CAP_IMPLICIT_SYNC).
 */
int32_t axl_shim_implicit_sync(void)
{
	return __atomic_load_n(&implicit_sync_kernel, __ATOMIC_RELAXED);
}

/*
 * Learns whether the kernel takes DMA_BUF_IOCTL_IMPORT_SYNC_FILE, using the
 * dma-buf @buf_fd and changing nothing: with no access flags the kernel
 * refuses it (-EINVAL) before looking at any fence; a kernel without the
 * ioctl answers -ENOTTY. Returns 1 or -ENOTTY as axl_shim_implicit_sync(),
 * -EBADF when @buf_fd is not a dma-buf (DMA_BUF_IOCTL_SYNC with invalid
 * flags is not refused with -EINVAL), or another -errno (-EPROTO: the
 * kernel took a probe it must refuse).
 */
int32_t axl_shim_implicit_sync_probe(int32_t buf_fd)
{
	struct dma_buf_sync sync = { .flags = ~(__u64)0 };
	struct dma_buf_import_sync_file req = { .flags = 0, .fd = -1 };
	int ret;

	if (axl_xioctl(buf_fd, DMA_BUF_IOCTL_SYNC, &sync) != -EINVAL)
		return -EBADF;
	ret = axl_xioctl(buf_fd, DMA_BUF_IOCTL_IMPORT_SYNC_FILE, &req);
	if (ret == -ENOTTY) {
		learn(-ENOTTY);
		return -ENOTTY;
	}
	if (ret != -EINVAL)
		return ret < 0 ? ret : -EPROTO;
	learn(1);
	return 1;
}
