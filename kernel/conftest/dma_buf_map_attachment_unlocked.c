// SPDX-License-Identifier: GPL-2.0
/* AXL_HAVE_DMA_BUF_MAP_ATTACHMENT_UNLOCKED: the _unlocked attachment calls exist. */
#include <linux/dma-buf.h>

static inline void axl_conftest(struct dma_buf_attachment *a)
{
	struct sg_table *sgt = dma_buf_map_attachment_unlocked(a, DMA_TO_DEVICE);

	dma_buf_unmap_attachment_unlocked(a, sgt, DMA_TO_DEVICE);
}
