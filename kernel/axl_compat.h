/* SPDX-License-Identifier: GPL-2.0 */
/*
 * axl: kernel API differences between the kernels the driver is built for.
 *
 * Built against Debian's 6.1 and 6.12 kernels and the arm64 5.15 kernel the
 * Jetson's L4T R36 is based on. L4T and distributions backport API changes,
 * so the differences are found by testing for the feature, not by comparing
 * LINUX_VERSION_CODE:
 *  - a header that exists: __has_include() right here;
 *  - a function that exists, or a macro's shape: a probe compiled by Kbuild
 *    (kernel/conftest/, run from kernel/Kbuild), which defines AXL_HAVE_*;
 * A version check is left only where nothing can be probed, with a comment.
 *
 * What differs:
 *  - struct iosys_map (<linux/iosys-map.h>, 5.18) was struct dma_buf_map
 *    (<linux/dma-buf-map.h>), whose memcpy_to helper has no offset;
 *  - dma_buf_map_attachment_unlocked() and friends (6.1): before them the
 *    plain calls take the reservation lock themselves;
 *  - dma_buf_vmap() expects the caller to hold the reservation lock from 6.2
 *    on (dma_buf_vmap_unlocked() for importers that do not);
 *  - __assign_str() lost its source argument in 6.10 (see axl_trace.h);
 *  - the DMA_BUF symbol namespace (5.16), and MODULE_IMPORT_NS() taking a
 *    string from 6.13 (see the end of axl_main.c);
 *  - one list of fences with a usage each (5.19: dma_resv_reserve_fences(),
 *    dma_resv_add_fence()) was an exclusive fence beside a list of shared
 *    ones (dma_resv_add_excl_fence(), dma_resv_reserve_shared() and
 *    dma_resv_add_shared_fence());
 *  - hrtimer_setup() (6.13) replaces hrtimer_init() plus setting ->function,
 *    and hrtimer_init() is gone from 6.15 on.
 */
#ifndef _AXL_COMPAT_H
#define _AXL_COMPAT_H

#include <linux/dma-buf.h>
#include <linux/dma-resv.h>
#include <linux/slab.h>
#include <linux/hrtimer.h>
#include <linux/version.h>
#include "axl_fault.h"

#if __has_include(<linux/iosys-map.h>)
#include <linux/iosys-map.h>
#else
#include <linux/dma-buf-map.h>
/* The same structure under its old name: map it back for the whole driver. */
#define iosys_map dma_buf_map

static inline void axl_map_memcpy_to(struct dma_buf_map *dst, size_t offset,
				     const void *src, size_t len)
{
	struct dma_buf_map at = *dst;

	dma_buf_map_incr(&at, offset);
	dma_buf_map_memcpy_to(&at, src, len);
}
#define iosys_map_memcpy_to axl_map_memcpy_to
#endif

#ifndef AXL_HAVE_DMA_BUF_MAP_ATTACHMENT_UNLOCKED
/* Before the _unlocked variants the plain calls took the lock themselves. */
#define dma_buf_map_attachment_unlocked dma_buf_map_attachment
#define dma_buf_unmap_attachment_unlocked dma_buf_unmap_attachment
#endif

/*
 * Whether dma_buf_vmap() wants the reservation lock held is a change of
 * convention with no change of declaration (6.2), so nothing can probe it:
 * the one version check. dma_buf_vmap_unlocked() appeared in 6.1 while
 * exporters still took the lock inside their vmap, so 6.1 must not use it.
 */
#if defined(AXL_HAVE_DMA_BUF_VMAP_UNLOCKED) && \
	LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
#define AXL_VMAP_UNLOCKED 1
#endif

static inline int axl_dma_buf_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
#ifdef AXL_VMAP_UNLOCKED
	return dma_buf_vmap_unlocked(dmabuf, map);
#else
	return dma_buf_vmap(dmabuf, map);
#endif
}

static inline void axl_dma_buf_vunmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
#ifdef AXL_VMAP_UNLOCKED
	dma_buf_vunmap_unlocked(dmabuf, map);
#else
	dma_buf_vunmap(dmabuf, map);
#endif
}

static inline void axl_hrtimer_setup(struct hrtimer *timer,
				     enum hrtimer_restart (*fn)(struct hrtimer *),
				     clockid_t clock, enum hrtimer_mode mode)
{
#ifdef AXL_HAVE_HRTIMER_SETUP
	hrtimer_setup(timer, fn, clock, mode);
#else
	hrtimer_init(timer, clock, mode);
	timer->function = fn;
#endif
}

/**
 * axl_resv_get_fences() - references to the fences a job must wait for
 * @obj:     a buffer's reservation object.
 * @writers: only the fences of writers (the buffer is read), or every
 *           fence (the buffer is written).
 * @count:   receives the number of fences.
 * @fences:  receives a kmalloc()ed array the caller frees, each fence with a
 *           reference the caller drops; NULL when @count is 0.
 *
 * Before enum dma_resv_usage (5.19) a writer's fence is the exclusive one
 * and readers' are shared.
 *
 * Return: 0 or -ENOMEM.
 */
static inline int axl_resv_get_fences(struct dma_resv *obj, bool writers,
				      unsigned int *count,
				      struct dma_fence ***fences)
{
#ifdef AXL_HAVE_DMA_RESV_USAGE
	return dma_resv_get_fences(obj, writers ? DMA_RESV_USAGE_WRITE :
						  DMA_RESV_USAGE_READ,
				   count, fences);
#else
	struct dma_fence *excl;
	int ret;

	if (!writers) /* a NULL exclusive slot puts it in the array too */
		return dma_resv_get_fences(obj, NULL, count, fences);

	ret = dma_resv_get_fences(obj, &excl, count, fences);
	if (ret)
		return ret;
	while (*count)
		dma_fence_put((*fences)[--*count]);
	if (!excl)
		return 0;
	if (!*fences) {
		*fences = AXL_FAULT_NULL("submit.get_fences_excl",
					 kmalloc(sizeof(**fences), GFP_KERNEL));
		if (!*fences) {
			dma_fence_put(excl);
			return -ENOMEM;
		}
	}
	**fences = excl; /* an array that held fences has room for one */
	*count = 1;
	return 0;
#endif
}

/**
 * axl_resv_wait() - wait, interruptibly and bounded, for a buffer's fences
 * @obj:     a buffer's reservation object.
 * @writers: only for the fences of writers (the buffer is read), or for
 *           every fence (the buffer is written); as axl_resv_get_fences().
 * @timeout: the most jiffies to wait.
 *
 * Return: the jiffies left (at least 1) when they all signalled, 0 when
 * the time ran out, -ERESTARTSYS when a signal arrived.
 */
static inline long axl_resv_wait(struct dma_resv *obj, bool writers,
				 long timeout)
{
#ifdef AXL_HAVE_DMA_RESV_USAGE
	return dma_resv_wait_timeout(obj, writers ? DMA_RESV_USAGE_WRITE :
						    DMA_RESV_USAGE_READ,
				     true, timeout);
#else
	return dma_resv_wait_timeout(obj, !writers, true, timeout);
#endif
}

/**
 * axl_resv_reserve() - room for the fences about to be added to a buffer
 * @obj:     a buffer's reservation object, locked.
 * @writers: fences to be added by axl_resv_add() as a writer's (0 or 1).
 * @readers: fences to be added as a reader's.
 *
 * From 5.19 every fence takes a slot of the one list. Before it, the
 * exclusive fence (a writer's) has its own slot, which needs no
 * reservation, and only the shared ones do.
 *
 * Return: 0 or -ENOMEM.
 */
static inline int axl_resv_reserve(struct dma_resv *obj, unsigned int writers,
				   unsigned int readers)
{
#ifdef AXL_HAVE_DMA_RESV_RESERVE_FENCES
	return dma_resv_reserve_fences(obj, writers + readers);
#else
	return readers ? dma_resv_reserve_shared(obj, readers) : 0;
#endif
}

/**
 * axl_resv_add() - publish a fence in a buffer's reservation object
 * @obj:    the reservation object, locked, with a slot axl_resv_reserve()
 *          reserved.
 * @fence:  the fence; the object takes its own reference.
 * @writer: the fence is a writer's (implicit-sync readers and writers wait
 *          for it) or a reader's (only writers wait for it).
 *
 * Before 5.19 a writer's fence is the exclusive one, which replaces the
 * shared fences too: add a writer's fence before a reader's to one object.
 */
static inline void axl_resv_add(struct dma_resv *obj, struct dma_fence *fence,
				bool writer)
{
#ifdef AXL_HAVE_DMA_RESV_RESERVE_FENCES
	dma_resv_add_fence(obj, fence, writer ? DMA_RESV_USAGE_WRITE :
						DMA_RESV_USAGE_READ);
#else
	if (writer)
		dma_resv_add_excl_fence(obj, fence);
	else
		dma_resv_add_shared_fence(obj, fence);
#endif
}

#endif /* _AXL_COMPAT_H */
