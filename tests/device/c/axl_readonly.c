// SPDX-License-Identifier: GPL-2.0
/*
 * axl_readonly: a dma-buf whose file is read-only is never written by the
 * driver.
 *
 * A DMA heap hands out a read-only dma-buf when asked for one (fd_flags
 * O_RDONLY): its file has no FMODE_WRITE, and mmap(PROT_WRITE) of it fails.
 * The driver writes into a SUBMIT's result buffer (the header), into an
 * import made for device writes (FROM_DEVICE, BIDIRECTIONAL) and into a
 * Metis attachment (a READ transfer stores the card's bytes there). Each of
 * those refuses a read-only buffer with EACCES and leaves it unchanged;
 * reading one (a TO_DEVICE import as a job's input) is allowed. About a
 * second of guest time in all.
 *
 * Needs root (the Metis node, debugfs). Skips (exit 4) without the device
 * node or the system heap; the Metis case skips without the node.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glob.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/dma-heap.h>
#include <linux/axl_metis.h>

#include "axl_util.h"

#define PAGE 4096u
#define WAIT_MS 10000

/* A dma-buf of @len bytes from the system heap, with @fd_flags (O_RDONLY or O_RDWR). */
static int heap_alloc_flags(size_t len, unsigned int fd_flags)
{
	struct dma_heap_allocation_data a = { .len = len, .fd_flags = fd_flags | O_CLOEXEC };
	int heap = open(AXL_HEAP_PATH, O_RDONLY | O_CLOEXEC), ret;

	if (heap < 0)
		return -errno;
	ret = ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &a) ? -errno : (int)a.fd;
	close(heap);
	return ret;
}

/*
 * A read-only page whose bytes are all @fill: written through a writable
 * buffer's mapping first is not possible (different memory), so the page
 * is read as the heap gave it (zeroes) and @fill is 0.
 */
static int ro_page(void)
{
	int fd = heap_alloc_flags(PAGE, O_RDONLY);
	void *w;

	if (fd < 0)
		return fd;
	/* the file really is read-only: a writable shared mapping is refused */
	w = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0);
	if (w != MAP_FAILED) {
		munmap(w, PAGE);
		close(fd);
		return -EPROTO;
	}
	return fd;
}

/* Whether the read-only page @fd still reads as zeroes. */
static bool still_zero(int fd)
{
	uint8_t *p = mmap(NULL, PAGE, PROT_READ, MAP_SHARED, fd, 0);
	bool zero = true;

	if (p == MAP_FAILED)
		return false;
	buf_sync(fd, true, false);
	for (size_t i = 0; i < PAGE; i++)
		zero &= !p[i];
	buf_sync(fd, false, false);
	munmap(p, PAGE);
	return zero;
}

/* A 64x64 GREY frame, writable, filled with a pattern. */
static int frame_page(void)
{
	struct frame_geom g;
	int fd = heap_alloc(PAGE);
	uint8_t *p;

	if (fd < 0 || frame_geom(&g, AXL_PIXFMT_GREY, 64, 64, 0))
		return fd < 0 ? fd : -EINVAL;
	p = buf_map(fd, PAGE);
	if (!p)
		return -ENOMEM;
	frame_fill(&g, p, 7);
	munmap(p, PAGE);
	return fd;
}

/* SUBMIT with a read-only result buffer: EACCES, no job, the buffer unchanged. */
static int case_ro_result(void)
{
	int dev = axl_open_dev(), in = frame_page(), ro = ro_page(), ret;
	long long submitted0 = axl_stat("submitted");
	struct axl_import_fd imp;
	struct axl_submit sub;

	FAIL_IF(dev < 0 || in < 0, "setup");
	FAIL_IF(ro < 0, "read-only heap buffer: %s", axl_errname(ro));
	EXPECT_RET(axl_import(dev, in, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp), 0);
	ret = axl_submit(dev, imp.handle, ro, 0, &sub);
	if (!ret)
		fence_wait(sub.fence_fd, WAIT_MS);
	tap_diag("SUBMIT with a read-only result: %s; the buffer %s", axl_errname(ret),
		 still_zero(ro) ? "unchanged" : "WRITTEN");
	EXPECT_RET(ret, -EACCES);
	FAIL_IF(axl_stat("submitted") != submitted0, "a job was queued");
	FAIL_IF(!still_zero(ro), "the read-only buffer was written");
	close(ro);
	close(in);
	close(dev);
	return KSFT_PASS;
}

/*
 * A read-only buffer imported for device writes (FROM_DEVICE,
 * BIDIRECTIONAL): EACCES. Imported TO_DEVICE it is a job's input as usual.
 */
static int case_ro_import(void)
{
	int dev = axl_open_dev(), ro = ro_page(), res = heap_alloc(PAGE), from, bidi;
	struct axl_import_fd imp;
	struct axl_submit sub;

	FAIL_IF(dev < 0 || res < 0, "setup");
	FAIL_IF(ro < 0, "read-only heap buffer: %s", axl_errname(ro));
	from = axl_import(dev, ro, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_FROM_DEVICE, &imp);
	if (!from)
		axl_release(dev, imp.handle);
	bidi = axl_import(dev, ro, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_BIDIRECTIONAL, &imp);
	if (!bidi)
		axl_release(dev, imp.handle);
	tap_diag("read-only buffer imported FROM_DEVICE: %s, BIDIRECTIONAL: %s",
		 axl_errname(from), axl_errname(bidi));
	EXPECT_RET(from, -EACCES);
	EXPECT_RET(bidi, -EACCES);
	EXPECT_RET(axl_import(dev, ro, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp), 0);
	EXPECT_RET(axl_submit(dev, imp.handle, res, 0, &sub), 0);
	EXPECT_RET(fence_wait(sub.fence_fd, WAIT_MS), 0);
	close(sub.fence_fd);
	EXPECT_RET(axl_release(dev, imp.handle), 0);
	close(res);
	close(ro);
	close(dev);
	return KSFT_PASS;
}

/* The Metis node: a read-only buffer is not attached (READ transfers write into it). */
static int case_ro_metis_attach(void)
{
	glob_t g;
	int node, ro, ret;

	if (glob("/dev/" AXL_METIS_NODE_PREFIX "*", 0, NULL, &g) || g.gl_pathc != 1) {
		tap_diag("no single /dev/%s* node (axl.ko with metis_node=1)", AXL_METIS_NODE_PREFIX);
		return KSFT_SKIP;
	}
	node = open(g.gl_pathv[0], O_RDWR | O_CLOEXEC);
	globfree(&g);
	ro = ro_page();
	FAIL_IF(node < 0, "open the Metis node: %s", strerror(errno));
	FAIL_IF(ro < 0, "read-only heap buffer: %s", axl_errname(ro));
	ret = axl_ioctl(node, AXL_METIS_IOCTL_DMA_ATTACH, &ro);
	if (!ret) {
		struct axl_metis_xfer x = { .phy = 0, .size = PAGE, .channel = -1,
					    .flags = AXL_METIS_XFER_READ | AXL_METIS_XFER_SYNC };
		int unused = 0;

		/* what the attachment allows: the card's bytes into the read-only page */
		tap_diag("READ transfer into it: %s",
			 axl_errname(axl_ioctl(node, AXL_METIS_IOCTL_DMA_XFER, &x)));
		axl_ioctl(node, AXL_METIS_IOCTL_DMA_DETACH, &unused);
	}
	tap_diag("Metis ATTACH of a read-only buffer: %s", axl_errname(ret));
	EXPECT_RET(ret, -EACCES);
	close(ro);
	close(node);
	return KSFT_PASS;
}

static const struct axl_case cases[] = {
	{ "a read-only result buffer: SUBMIT fails with EACCES", case_ro_result },
	{ "a read-only buffer imported for device writes: EACCES; for reading: a job's input",
	  case_ro_import },
	{ "a read-only buffer attached to the Metis node: EACCES", case_ro_metis_attach },
};

int main(void)
{
	int skip = tap_skip_unless_importable("debugfs counters, the Metis node");

	if (skip)
		return skip;
	return tap_run(cases, ARRAY_SIZE(cases));
}
