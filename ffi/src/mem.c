// SPDX-License-Identifier: MIT
/* CPU mappings of dma-bufs (and any mappable fd). */
#include <errno.h>
#include <string.h>
#include <sys/mman.h>

#include "axl_shim.h"

/* Maps @len bytes of @fd shared; the address is stored in *@addr_out. */
int32_t axl_shim_mmap(int32_t fd, uint64_t len, int32_t prot, uint64_t offset, uint64_t *addr_out)
{
	void *p;

	if (!addr_out || !len)
		return -EINVAL;
	p = mmap(NULL, len, prot, MAP_SHARED, fd, (off_t)offset);
	if (p == MAP_FAILED)
		return -errno;
	*addr_out = (uint64_t)(uintptr_t)p;
	return 0;
}

int32_t axl_shim_munmap(uint64_t addr, uint64_t len)
{
	return munmap((void *)(uintptr_t)addr, len) ? -errno : 0;
}

/*
 * A plain libc memcpy between two mappings. The workload's copy mode uses it
 * on purpose, so that perf sees the same copy routine a real pipeline would.
 */
int32_t axl_shim_memcpy(uint64_t dst, uint64_t src, uint64_t len)
{
	if (!dst || !src)
		return -EINVAL;
	memcpy((void *)(uintptr_t)dst, (const void *)(uintptr_t)src, len);
	return 0;
}
