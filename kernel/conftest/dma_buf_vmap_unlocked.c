// SPDX-License-Identifier: GPL-2.0
/* AXL_HAVE_DMA_BUF_VMAP_UNLOCKED: dma_buf_vmap_unlocked() exists. */
#include <linux/dma-buf.h>

static inline void axl_conftest(struct dma_buf *b, void *map)
{
	dma_buf_vunmap_unlocked(b, map);
	(void)dma_buf_vmap_unlocked(b, map);
}
