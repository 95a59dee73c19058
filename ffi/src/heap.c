// SPDX-License-Identifier: MIT
/* DMA-heap allocation and dma-buf ioctls (linux/dma-heap.h, linux/dma-buf.h). */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>

#include "axl_shim.h"
#include "shim_private.h"

/* Allocates @len bytes from /dev/dma_heap/@heap; returns the dma-buf fd. */
int32_t axl_shim_heap_alloc(const char *heap, uint64_t len, uint32_t fd_flags, uint64_t heap_flags)
{
	struct dma_heap_allocation_data data = {
		.len = len,
		.fd_flags = fd_flags,
		.heap_flags = heap_flags,
	};
	char path[128];
	int heap_fd, ret;

	if (!heap || !*heap || strchr(heap, '/') || strlen(heap) > 64)
		return -EINVAL;
	snprintf(path, sizeof(path), "/dev/dma_heap/%s", heap);
	heap_fd = open(path, O_RDONLY | O_CLOEXEC);
	if (heap_fd < 0)
		return -errno;
	ret = axl_xioctl(heap_fd, DMA_HEAP_IOCTL_ALLOC, &data);
	close(heap_fd);
	return ret < 0 ? ret : (int32_t)data.fd;
}

/* DMA_BUF_IOCTL_SYNC with DMA_BUF_SYNC_{START,END} | {READ,WRITE}. */
int32_t axl_shim_dmabuf_sync(int32_t fd, uint64_t flags)
{
	struct dma_buf_sync sync = { .flags = flags };

	return axl_xioctl(fd, DMA_BUF_IOCTL_SYNC, &sync);
}

int32_t axl_shim_dmabuf_set_name(int32_t fd, const char *name)
{
	if (!name)
		return -EINVAL;
	return axl_xioctl(fd, DMA_BUF_SET_NAME_B, (void *)name);
}
