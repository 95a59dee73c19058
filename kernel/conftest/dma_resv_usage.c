// SPDX-License-Identifier: GPL-2.0
/* AXL_HAVE_DMA_RESV_USAGE: fences are gathered by enum dma_resv_usage (5.19). */
#include <linux/dma-resv.h>

static inline int axl_conftest(struct dma_resv *obj, unsigned int *n,
			       struct dma_fence ***fences)
{
	return dma_resv_get_fences(obj, DMA_RESV_USAGE_WRITE, n, fences);
}
