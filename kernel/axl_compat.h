/* SPDX-License-Identifier: GPL-2.0 */
/*
 * axl: kernel API differences between the kernels the driver is built for.
 *
 * Built and tested against Debian's 6.1 and 6.12 kernels. What changed in
 * that range:
 *  - 6.2 moved dma_buf_vmap() to the "caller holds the reservation lock"
 *    convention; importers that do not hold it call dma_buf_vmap_unlocked().
 *    (dma_buf_map_attachment_unlocked() already exists in 6.1.)
 *  - 6.10 dropped the source argument of __assign_str() (see axl_trace.h).
 *
 * The Jetson's L4T R36 kernel is 5.15. A port needs, at least:
 *  - struct dma_buf_map (<linux/dma-buf-map.h>) instead of struct iosys_map
 *    (renamed in 5.18), and dma_buf_map_memcpy_to() without an offset;
 *  - dma_buf_map_attachment()/dma_buf_unmap_attachment(), which take the
 *    reservation lock themselves there (no _unlocked variants);
 *  - no MODULE_IMPORT_NS(DMA_BUF): the namespace appeared in 5.16;
 *  - the two-argument __assign_str().
 * None of that is built here, so older kernels fail loudly instead of
 * compiling untested guesses.
 */
#ifndef _AXL_COMPAT_H
#define _AXL_COMPAT_H

#include <linux/dma-buf.h>
#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "axl needs Linux 6.1 or newer; axl_compat.h lists what a 5.15 port needs"
#endif

static inline int axl_dma_buf_vmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	return dma_buf_vmap_unlocked(dmabuf, map);
#else
	return dma_buf_vmap(dmabuf, map);
#endif
}

static inline void axl_dma_buf_vunmap(struct dma_buf *dmabuf, struct iosys_map *map)
{
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 2, 0)
	dma_buf_vunmap_unlocked(dmabuf, map);
#else
	dma_buf_vunmap(dmabuf, map);
#endif
}

#endif /* _AXL_COMPAT_H */
