// SPDX-License-Identifier: MIT
/* The axl NPU device ioctls (linux/axl.h), flattened into scalar slots. */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/axl.h>

#include "axl_shim.h"
#include "shim_private.h"

/*
 * nums: [0] abi_version [1] caps [2] max_imports [3] max_jobs
 *       [4] file_imports [5] file_jobs
 * strings: "driver\0engine\0device\0timeline\0" (truncated to @strings_len).
 */
int32_t axl_shim_dev_info(int32_t dev, uint64_t *nums, char *strings, uint64_t strings_len)
{
	struct axl_info info;
	int ret;

	if (!nums)
		return -EINVAL;
	memset(&info, 0, sizeof(info));
	ret = axl_xioctl(dev, AXL_IOCTL_GET_INFO, &info);
	if (ret < 0)
		return ret;
	nums[0] = info.abi_version;
	nums[1] = info.caps;
	nums[2] = info.max_imports;
	nums[3] = info.max_jobs;
	nums[4] = info.file_imports;
	nums[5] = info.file_jobs;
	/* %.*s: the kernel NUL-terminates, but never trust a length. */
	if (strings && strings_len)
		snprintf(strings, strings_len, "%.*s%c%.*s%c%.*s%c%.*s",
			 (int)sizeof(info.driver), info.driver, 0,
			 (int)sizeof(info.engine), info.engine, 0,
			 (int)sizeof(info.device), info.device, 0,
			 (int)sizeof(info.timeline), info.timeline);
	return 0;
}

/*
 * out: [0] handle [1] iova_base [2] size [3] inode [4] nents [5] out_flags
 */
int32_t axl_shim_dev_import(int32_t dev, int32_t buf_fd, uint32_t width, uint32_t height,
			    uint32_t pixfmt, uint32_t stride, uint32_t flags, uint64_t *out)
{
	struct axl_import_fd req = {
		.fd = buf_fd,
		.width = width,
		.height = height,
		.pixfmt = pixfmt,
		.stride = stride,
		.flags = flags,
	};
	int ret;

	if (!out)
		return -EINVAL;
	ret = axl_xioctl(dev, AXL_IOCTL_IMPORT_FD, &req);
	if (ret < 0)
		return ret;
	out[0] = req.handle;
	out[1] = req.iova_base;
	out[2] = req.size;
	out[3] = req.inode;
	out[4] = req.nents;
	out[5] = req.out_flags;
	return 0;
}

/*
 * AXL_IOCTL_IMPORT_FD2. planes: nplanes pairs [offset, pitch]; the other
 * plane entries stay zero. out: as axl_shim_dev_import().
 */
int32_t axl_shim_dev_import2(int32_t dev, int32_t buf_fd, uint32_t width, uint32_t height,
			     uint32_t pixfmt, uint32_t flags, uint64_t modifier, uint32_t nplanes,
			     const uint64_t *planes, uint64_t *out)
{
	struct axl_import_fd2 req = {
		.fd = buf_fd,
		.flags = flags,
		.width = width,
		.height = height,
		.pixfmt = pixfmt,
		.nplanes = nplanes,
		.modifier = modifier,
	};
	int ret;

	if (!out || (nplanes && !planes) || nplanes > AXL_MAX_PLANES)
		return -EINVAL;
	for (uint32_t i = 0; i < nplanes; i++) {
		if (planes[2 * i + 1] > UINT32_MAX)
			return -EINVAL;
		req.planes[i].offset = planes[2 * i];
		req.planes[i].pitch = (uint32_t)planes[2 * i + 1];
	}
	ret = axl_xioctl(dev, AXL_IOCTL_IMPORT_FD2, &req);
	if (ret < 0)
		return ret;
	out[0] = req.handle;
	out[1] = req.iova_base;
	out[2] = req.size;
	out[3] = req.inode;
	out[4] = req.nents;
	out[5] = req.out_flags;
	return 0;
}

/*
 * out: [0] fence_fd [1] seqno [2] submit_ns [3] implicit sync [4] its step,
 * as axl_shim.h says. With AXL_SHIM_SUBMIT_IMPLICIT_SYNC in @flags (a shim
 * flag, not passed to the kernel) the job's fence is then published into
 * @result_fd (unless the driver did that itself, AXL_CAP_IMPLICIT_SYNC) and
 * @input_fd (the dma-buf of @handle; skipped when negative, or when the
 * driver did it, AXL_CAP_IMPLICIT_SYNC_INPUT).
 * Publishing never fails the call: the job is queued and its fence returned.
 */
int32_t axl_shim_dev_submit(int32_t dev, uint32_t handle, int32_t input_fd, int32_t result_fd,
			    uint32_t model_id, uint32_t timeout_us, uint32_t flags, uint64_t *out)
{
	struct axl_submit req = {
		.input_handle = handle,
		.result_fd = result_fd,
		.model_id = model_id,
		.timeout_us = timeout_us,
		.flags = flags & ~AXL_SHIM_SUBMIT_IMPLICIT_SYNC,
		.fence_fd = -1,
	};
	int32_t step = 0;
	int ret;

	if (!out)
		return -EINVAL;
	ret = axl_xioctl(dev, AXL_IOCTL_SUBMIT, &req);
	if (ret < 0)
		return ret;
	out[0] = (uint64_t)(int64_t)req.fence_fd;
	out[1] = req.seqno;
	out[2] = req.submit_ns;
	ret = 0;
	if (flags & AXL_SHIM_SUBMIT_IMPLICIT_SYNC)
		ret = axl_publish_job_fence(dev, req.fence_fd, input_fd, result_fd, &step);
	out[3] = (uint64_t)(int64_t)ret;
	out[4] = (uint64_t)step;
	return 0;
}

int32_t axl_shim_dev_release(int32_t dev, uint32_t handle)
{
	struct axl_release req = { .handle = handle };

	return axl_xioctl(dev, AXL_IOCTL_RELEASE_IMPORT, &req);
}

/*
 * Decodes the struct axl_result at @addr (a CPU mapping of the result
 * buffer, @len bytes). nums: [0] magic [1] version [2] seqno [3] model_id
 * [4] pixfmt [5] width [6] height [7] status [8] luma_min [9] luma_max
 * [10] crc32 [11] luma_sum. @histogram receives 256 bins (may be NULL).
 * Returns -EBADMSG when the magic or version does not match.
 */
int32_t axl_shim_result_decode(uint64_t addr, uint64_t len, int64_t *nums, uint32_t *histogram)
{
	struct axl_result r;

	if (!addr || !nums)
		return -EINVAL;
	if (len < sizeof(r))
		return -EMSGSIZE;
	memcpy(&r, (const void *)(uintptr_t)addr, sizeof(r));
	nums[0] = r.magic;
	nums[1] = r.version;
	nums[2] = (int64_t)r.seqno;
	nums[3] = r.model_id;
	nums[4] = r.pixfmt;
	nums[5] = r.width;
	nums[6] = r.height;
	nums[7] = r.status;
	nums[8] = r.luma_min;
	nums[9] = r.luma_max;
	nums[10] = r.crc32;
	nums[11] = (int64_t)r.luma_sum;
	if (histogram)
		memcpy(histogram, r.histogram, sizeof(r.histogram));
	if (r.magic != AXL_RESULT_MAGIC || r.version != AXL_RESULT_VERSION)
		return -EBADMSG;
	return 0;
}
