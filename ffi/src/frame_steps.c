// SPDX-License-Identifier: MIT
/*
 * Two steps of the frame loop in one call each. Every call from Deno through
 * FFI costs far more than a C function call (argument conversion, the
 * trampoline), so where a frame always makes two or three shim calls in a row
 * the shim makes them in one: waiting for a fence and reading its state, and
 * reading a result inside its DMA_BUF_SYNC bracket.
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
