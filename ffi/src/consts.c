// SPDX-License-Identifier: MIT
/*
 * Named constants for ffi/symbols.ts, so that TypeScript never repeats a
 * number from the uapi headers: it asks for each value by name at load time.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/mman.h>
#include <linux/axl.h>
#include <linux/axl_metis.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/videodev2.h>

#include "axl_shim.h"

struct named_const {
	const char *name;
	int64_t value;
};

#define C(x) { #x, (int64_t)(x) }

static const struct named_const consts[] = {
	C(AXL_ABI_VERSION),
	C(AXL_PIXFMT_RAW),
	C(AXL_PIXFMT_NV12),
	C(AXL_PIXFMT_GREY),
	C(AXL_PIXFMT_YUYV),
	C(AXL_CAP_SIMULATED),
	C(AXL_CAP_IOMMU),
	C(AXL_CAP_PCI),
	C(AXL_CAP_FENCE_STAMP),
	C(AXL_CAP_IMPORT_PLANES),
	C(AXL_CAP_IMPLICIT_SYNC),
	C(AXL_CAP_IMPLICIT_SYNC_INPUT),
	C(AXL_MAX_PLANES),
	C(AXL_FORMAT_MOD_LINEAR),
	C(AXL_IMPORT_TO_DEVICE),
	C(AXL_IMPORT_FROM_DEVICE),
	C(AXL_IMPORT_BIDIRECTIONAL),
	C(AXL_IMPORT_VALID_FLAGS),
	C(AXL_IMPORT_OUT_CONTIGUOUS),
	C(AXL_IMPORT_MAX_SAMPLES),
	C(AXL_SUBMIT_VALID_FLAGS),
	C(AXL_SUBMIT_MAX_TIMEOUT_US),
	C(AXL_RESULT_MAGIC),
	C(AXL_RESULT_VERSION),
	C(AXL_IOCTL_GET_INFO),
	C(AXL_IOCTL_IMPORT_FD),
	C(AXL_IOCTL_SUBMIT),
	C(AXL_IOCTL_RELEASE_IMPORT),
	C(AXL_IOCTL_IMPORT_FD2),
	{ "sizeof_axl_result", (int64_t)sizeof(struct axl_result) },
	{ "sizeof_axl_shim_frame_args", (int64_t)sizeof(struct axl_shim_frame_args) },
	C(AXL_METIS_XFER_READ),
	C(AXL_METIS_XFER_WRITE),
	C(AXL_METIS_XFER_SYNC),
	C(AXL_METIS_XFER_ASYNC),
	C(AXL_METIS_XFER_DONE),
	C(AXL_METIS_XFER_FAIL),
	C(AXL_METIS_XFER_TIMEOUT),
	C(AXL_METIS_XFER_PENDING),
	C(AXL_METIS_PROP_HW_GEN),
	C(AXL_METIS_PROP_AICORE_COUNT),
	C(AXL_METIS_PROP_PVE_CORE_COUNT),
	C(AXL_METIS_PROP_PES_GROUP),
	C(AXL_METIS_DMA_CHANNELS),
	C(AXL_SHIM_METIS_STATS_SLOTS),
	C(AXL_SHIM_SUBMIT_IMPLICIT_SYNC),
	C(DMA_BUF_SYNC_READ),
	C(DMA_BUF_SYNC_WRITE),
	C(DMA_BUF_SYNC_RW),
	C(DMA_BUF_SYNC_START),
	C(DMA_BUF_SYNC_END),
	C(DMA_BUF_NAME_LEN),
	C(DMA_HEAP_VALID_FD_FLAGS),
	C(O_RDONLY),
	C(O_RDWR),
	C(O_CLOEXEC),
	C(O_NONBLOCK),
	C(PROT_READ),
	C(PROT_WRITE),
	C(V4L2_PIX_FMT_NV12),
	C(V4L2_PIX_FMT_YUYV),
	C(V4L2_PIX_FMT_GREY),
	C(V4L2_CAP_VIDEO_CAPTURE),
	C(V4L2_CAP_STREAMING),
	C(V4L2_CAP_DEVICE_CAPS),
	C(AXL_ARGUS_RING_SLOTS),
	C(AXL_ARGUS_OUT_WORDS),
	C(AXL_ARGUS_MAX_TIMEOUT_MS),
};

/* Returns the constant called @name, or -ENOENT when there is none. */
int64_t axl_shim_const(const char *name)
{
	size_t i;

	if (!name)
		return -EINVAL;
	for (i = 0; i < sizeof(consts) / sizeof(consts[0]); i++)
		if (!strcmp(consts[i].name, name))
			return consts[i].value;
	return -ENOENT;
}

int32_t axl_shim_api_version(void)
{
	return AXL_SHIM_API_VERSION;
}

int32_t axl_shim_abi_version(void)
{
	return AXL_ABI_VERSION;
}

/* "ENOENT" for 2; NULL for a number glibc has no name for. */
const char *axl_shim_errno_name(int32_t err)
{
	return strerrorname_np(err < 0 ? -err : err);
}
