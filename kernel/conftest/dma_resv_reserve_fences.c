// SPDX-License-Identifier: GPL-2.0
/*
 * AXL_HAVE_DMA_RESV_RESERVE_FENCES: one list of fences, each with a usage
 * (5.19): slots reserved with dma_resv_reserve_fences(), fences added with
 * dma_resv_add_fence(). Before it, dma_resv_reserve_shared() reserved the
 * shared slots and the exclusive fence had a slot of its own.
 */
#include <linux/dma-resv.h>

static inline int axl_conftest(struct dma_resv *obj, struct dma_fence *fence)
{
	int ret = dma_resv_reserve_fences(obj, 1);

	if (!ret)
		dma_resv_add_fence(obj, fence, DMA_RESV_USAGE_WRITE);
	return ret;
}
