// SPDX-License-Identifier: MIT
/*
 * Steps of the frame loop in one call each. Every call from Deno through
 * FFI costs far more than a C function call (argument conversion, the
 * trampoline), so where a frame always makes two or three shim calls in a row
 * the shim makes them in one: importing a frame and submitting it, waiting for
 * a fence and reading its state, reading a result inside its DMA_BUF_SYNC
 * bracket, and closing a fence and releasing the import it guarded.
 */
#include <errno.h>
#include <stdint.h>

#include <linux/dma-buf.h>

#include "axl_shim.h"

/*
 * axl_shim_poll_in() then, once @fd is ready, axl_shim_fence_info() into
 * @out and @name. Returns 1 when ready (and @out filled), 0 when the wait
 * timed out, -errno when either step failed.
 */
int32_t axl_shim_fence_wait_info(int32_t fd, int32_t timeout_ms, int64_t *out, char *name,
				 uint64_t name_len)
{
	int32_t ret = axl_shim_poll_in(fd, timeout_ms);

	if (ret <= 0)
		return ret;
	ret = axl_shim_fence_info(fd, out, name, name_len);
	return ret < 0 ? ret : 1;
}

/*
 * DMA_BUF_SYNC_START (read) on @buf_fd, axl_shim_result_decode() of the
 * mapping at @addr (@len bytes), then DMA_BUF_SYNC_END (read), which runs
 * whenever the start succeeded. Returns 0 or the first step's -errno
 * (-EBADMSG: not a result).
 */
int32_t axl_shim_result_read(int32_t buf_fd, uint64_t addr, uint64_t len, int64_t *nums,
			     uint32_t *histogram)
{
	int32_t ret, end;

	ret = axl_shim_dmabuf_sync(buf_fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
	if (ret < 0)
		return ret;
	ret = axl_shim_result_decode(addr, len, nums, histogram);
	end = axl_shim_dmabuf_sync(buf_fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);
	return ret < 0 ? ret : end < 0 ? end : 0;
}

/*
 * axl_shim_dev_import() of @a's frame into @a->imp_out. Returns 0 or -errno
 * (-EINVAL without @a); @a->step is 1 on failure, 0 otherwise.
 */
int32_t axl_shim_frame_import(struct axl_shim_frame_args *a)
{
	int32_t ret;

	if (!a)
		return -EINVAL;
	ret = axl_shim_dev_import(a->dev, a->buf_fd, a->width, a->height, a->pixfmt, a->stride,
				  a->flags, a->imp_out);
	a->step = ret < 0 ? 1 : 0;
	return ret;
}

/*
 * axl_shim_dev_submit() of @a->handle (input @a->buf_fd) into @a->sub_out.
 * Returns 0 or -errno (-EINVAL without @a); @a->step is 2 on failure, 0
 * otherwise.
 */
int32_t axl_shim_frame_submit(struct axl_shim_frame_args *a)
{
	int32_t ret;

	if (!a)
		return -EINVAL;
	ret = axl_shim_dev_submit(a->dev, a->handle, a->buf_fd, a->result_fd, a->model_id,
				  a->timeout_us, a->submit_flags, a->sub_out);
	a->step = ret < 0 ? 2 : 0;
	return ret;
}

/*
 * axl_shim_frame_import() of @a, then axl_shim_frame_submit() of the new
 * handle (AXL_SHIM_SUBMIT_IMPLICIT_SYNC in @a->submit_flags publishes the
 * job's fence into the input and the result, where the driver does not
 * itself). A failed submit releases the import again, so a failure leaves
 * nothing held. Returns 0, or the failed step's -errno with @a->step set to
 * 1 (import) or 2 (submit).
 */
int32_t axl_shim_dev_import_submit(struct axl_shim_frame_args *a)
{
	int32_t ret;

	ret = axl_shim_frame_import(a);
	if (ret < 0)
		return ret;
	a->handle = (uint32_t)a->imp_out[0];
	ret = axl_shim_frame_submit(a);
	if (ret < 0)
		goto release_import;
	return 0;

release_import:
	axl_shim_dev_release(a->dev, a->handle);
	return ret;
}

/*
 * Closes the fence @fence_fd, then RELEASE_IMPORT of @handle on @dev. The
 * close's result is not looked at (a fence fd closes or was not open); the
 * release runs either way. Returns the release's 0 or -errno.
 */
int32_t axl_shim_fence_close_release(int32_t fence_fd, int32_t dev, uint32_t handle)
{
	axl_shim_close(fence_fd);
	return axl_shim_dev_release(dev, handle);
}
