// SPDX-License-Identifier: GPL-2.0
/*
 * axl_basic: the axl ioctl ABI against the real driver, kselftest-style.
 *
 * Frames come from /dev/dma_heap/system, are written from user space, go
 * through the engine, and the result is compared with what this program
 * computes itself. Then: invalid fds, flags and reserved fields, unknown
 * ioctls, handle lifetime, isolation between open files, limits, fault
 * injection (-EIO, -ETIMEDOUT), cancellation on close and on SIGKILL, and
 * that nothing is left attached or alive afterwards.
 *
 * Needs root (module parameters, debugfs, tracefs). Skips (exit 4) when
 * /dev/axl is absent.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include <linux/dma-buf.h>

#include "axl_util.h"

#define PAGE 4096u
#define WAIT_MS 10000

static int kmsg_at_start = -1;

/* A frame buffer: allocated, mapped, filled from user space. */
struct frame {
	int fd;
	uint8_t *map;
	size_t len;
	struct frame_geom g;
};

static size_t page_align(size_t n)
{
	return (n + PAGE - 1) & ~(size_t)(PAGE - 1);
}

static int frame_make(struct frame *f, uint32_t pixfmt, uint32_t w, uint32_t h,
		      uint32_t stride, uint64_t seed)
{
	int ret = frame_geom(&f->g, pixfmt, w, h, stride);

	if (ret)
		return ret;
	f->len = page_align(f->g.size);
	f->fd = heap_alloc(f->len);
	if (f->fd < 0)
		return f->fd;
	f->map = buf_map(f->fd, f->len);
	if (!f->map)
		return -errno;
	ret = buf_sync(f->fd, true, true);
	if (ret)
		return ret;
	frame_fill(&f->g, f->map, seed);
	return buf_sync(f->fd, false, true);
}

static void frame_free(struct frame *f)
{
	buf_unmap_close(&f->map, f->len, &f->fd);
}

/* Write a recognisable pattern so a result that was never written shows. */
static int result_poison(int buf)
{
	void *p = buf_map(buf, PAGE);

	if (!p)
		return -errno;
	buf_sync(buf, true, true);
	memset(p, 0x5a, PAGE);
	buf_sync(buf, false, true);
	munmap(p, PAGE);
	return 0;
}

static int result_check(int buf, const struct axl_result *ref, uint64_t seqno)
{
	struct axl_result r;

	EXPECT_RET(result_read(buf, &r), 0);
	FAIL_IF(r.magic != AXL_RESULT_MAGIC || r.version != AXL_RESULT_VERSION,
		"magic 0x%08x version %u", r.magic, r.version);
	FAIL_IF(r.seqno != seqno, "result seqno %llu, fence seqno %llu",
		(unsigned long long)r.seqno, (unsigned long long)seqno);
	FAIL_IF(r.model_id != 7, "model_id %u", r.model_id);
	FAIL_IF(r.status != 0, "status %d", r.status);
	FAIL_IF(r.pixfmt != ref->pixfmt || r.width != ref->width || r.height != ref->height,
		"geometry %08x %ux%u, expected %08x %ux%u", r.pixfmt, r.width,
		r.height, ref->pixfmt, ref->width, ref->height);
	FAIL_IF(r.crc32 != ref->crc32, "crc32 0x%08x, reference 0x%08x", r.crc32, ref->crc32);
	FAIL_IF(r.luma_min != ref->luma_min || r.luma_max != ref->luma_max,
		"luma min/max %u/%u, reference %u/%u", r.luma_min, r.luma_max,
		ref->luma_min, ref->luma_max);
	FAIL_IF(r.luma_sum != ref->luma_sum, "luma_sum %llu, reference %llu",
		(unsigned long long)r.luma_sum, (unsigned long long)ref->luma_sum);
	FAIL_IF(memcmp(r.histogram, ref->histogram, sizeof(r.histogram)),
		"histogram differs from the reference");
	return KSFT_PASS;
}

static int result_status(int buf, int *status, uint64_t *seqno)
{
	struct axl_result r;
	int ret = result_read(buf, &r);

	if (ret)
		return ret;
	if (r.magic != AXL_RESULT_MAGIC)
		return -EBADMSG;
	*status = r.status;
	*seqno = r.seqno;
	return 0;
}

/* Wait for a fence and return its status (1, or the error it carries). */
static int fence_finish(int fence, struct fence_state *st)
{
	int ret = fence_wait(fence, WAIT_MS);

	if (ret)
		return ret;
	ret = fence_state(fence, st);
	return ret ? ret : st->status;
}

static int open_dev_info(struct axl_info *info)
{
	int dev = axl_open_dev();

	if (dev >= 0 && axl_info(dev, info)) {
		close(dev);
		return -EIO;
	}
	return dev;
}

/* ------------------------------------------------------------------ */

static int case_reference_crc(void)
{
	static const uint8_t check[] = "123456789";

	/* the standard CRC-32 check value, and zlib-style chaining */
	FAIL_IF(ref_crc32(0, check, 9) != 0xcbf43926u, "crc32 check value wrong");
	FAIL_IF(ref_crc32(ref_crc32(0, check, 4), check + 4, 5) != 0xcbf43926u,
		"chained crc32 differs");
	return KSFT_PASS;
}

static int case_info(void)
{
	struct axl_info info;
	char path[128];
	int dev = axl_open_dev();

	FAIL_IF(dev < 0, "open %s: %s", AXL_DEV_PATH, axl_errname(dev));
	EXPECT_RET(axl_info(dev, &info), 0);
	FAIL_IF(info.abi_version != AXL_ABI_VERSION, "abi %u", info.abi_version);
	FAIL_IF(strcmp(info.driver, "axl") || strcmp(info.engine, "metis-sim") ||
		strcmp(info.timeline, "metis-0"), "names %s/%s/%s", info.driver,
		info.engine, info.timeline);
	FAIL_IF(!(info.caps & AXL_CAP_SIMULATED) || !(info.caps & AXL_CAP_FENCE_STAMP),
		"caps 0x%x", info.caps);
	FAIL_IF(!info.max_imports || !info.max_jobs, "limits %u/%u", info.max_imports,
		info.max_jobs);
	FAIL_IF(info.file_imports || info.file_jobs, "fresh file has %u/%u",
		info.file_imports, info.file_jobs);
	FAIL_IF(info.reserved[0] || info.reserved[1] || info.reserved[2] || info.reserved[3],
		"reserved not zeroed");

	/* AXL_CAP_PCI names a real PCI function; AXL_CAP_IOMMU means it has a group */
	snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s", info.device);
	FAIL_IF(!!(info.caps & AXL_CAP_PCI) != !access(path, F_OK),
		"caps 0x%x vs %s", info.caps, path);
	if (info.caps & AXL_CAP_PCI) {
		snprintf(path, sizeof(path), "/sys/bus/pci/devices/%s/iommu_group", info.device);
		FAIL_IF(!!(info.caps & AXL_CAP_IOMMU) != !access(path, F_OK),
			"caps 0x%x vs %s", info.caps, path);
	}
	tap_diag("engine %s on %s, caps 0x%x, max_imports %u, max_jobs %u",
		 info.engine, info.device, info.caps, info.max_imports, info.max_jobs);
	close(dev);
	return KSFT_PASS;
}

static int run_frame(int dev, const struct axl_info *info, uint32_t pixfmt,
		     uint32_t w, uint32_t h, uint32_t stride, uint32_t dir,
		     uint64_t seed)
{
	struct frame f = { .fd = -1 };
	struct axl_import_fd imp;
	struct axl_submit sub;
	struct axl_result ref;
	struct fence_state st;
	int res, ret;

	EXPECT_RET(frame_make(&f, pixfmt, w, h, stride, seed), 0);
	frame_reference(&f.g, f.map, &ref);
	res = heap_alloc(PAGE);
	FAIL_IF(res < 0, "result alloc: %s", axl_errname(res));
	EXPECT_RET(result_poison(res), 0);

	EXPECT_RET(axl_import(dev, f.fd, w, h, pixfmt, stride, dir, &imp), 0);
	FAIL_IF(imp.handle == 0, "handle 0");
	FAIL_IF(imp.size != f.len, "size %llu, buffer %zu", (unsigned long long)imp.size, f.len);
	FAIL_IF(imp.inode != fd_inode(f.fd), "inode %llu, fstat %lu",
		(unsigned long long)imp.inode, (unsigned long)fd_inode(f.fd));
	FAIL_IF(imp.nents == 0 || imp.iova_base == 0, "nents %u iova 0x%llx",
		imp.nents, (unsigned long long)imp.iova_base);
	FAIL_IF(imp.nents == 1 && !(imp.out_flags & AXL_IMPORT_OUT_CONTIGUOUS),
		"one segment but not contiguous");
	/* an IOMMU maps a whole sg list into one IOVA range */
	FAIL_IF((info->caps & AXL_CAP_IOMMU) && !(imp.out_flags & AXL_IMPORT_OUT_CONTIGUOUS),
		"behind an IOMMU but not contiguous (nents %u)", imp.nents);

	EXPECT_RET(axl_submit(dev, imp.handle, res, 0, &sub), 0);
	FAIL_IF(sub.fence_fd < 0, "fence fd %d", sub.fence_fd);
	FAIL_IF(!(fcntl(sub.fence_fd, F_GETFD) & FD_CLOEXEC), "fence fd without O_CLOEXEC");
	ret = fence_finish(sub.fence_fd, &st);
	FAIL_IF(ret != 1, "fence status %d (%s)", ret, axl_errname(ret));
	FAIL_IF(strcmp(st.driver, "axl") || strcmp(st.timeline, "metis-0"),
		"fence names %s/%s", st.driver, st.timeline);
	FAIL_IF(st.timestamp_ns < sub.submit_ns, "signalled %llu before submit %llu",
		(unsigned long long)st.timestamp_ns, (unsigned long long)sub.submit_ns);

	ret = result_check(res, &ref, sub.seqno);
	if (ret != KSFT_PASS)
		return ret;
	/* the job is over once the fence signals: release must succeed now */
	EXPECT_RET(axl_release(dev, imp.handle), 0);
	tap_diag("%.4s %ux%u stride %u: nents %u iova 0x%llx, crc 0x%08x, latency %.2f ms",
		 pixfmt ? (const char *)&pixfmt : "RAW", w, h, f.g.stride, imp.nents,
		 (unsigned long long)imp.iova_base, ref.crc32,
		 (st.timestamp_ns - sub.submit_ns) / 1e6);
	close(sub.fence_fd);
	close(res);
	frame_free(&f);
	return KSFT_PASS;
}

static int case_frames(void)
{
	struct axl_info info;
	int dev = open_dev_info(&info), ret;

	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	ret = run_frame(dev, &info, AXL_PIXFMT_NV12, 640, 480, 0, AXL_IMPORT_BIDIRECTIONAL, 1);
	if (ret == KSFT_PASS)
		ret = run_frame(dev, &info, AXL_PIXFMT_NV12, 1920, 1080, 2048, AXL_IMPORT_TO_DEVICE, 2);
	if (ret == KSFT_PASS)
		ret = run_frame(dev, &info, AXL_PIXFMT_GREY, 320, 240, 352, AXL_IMPORT_TO_DEVICE, 3);
	if (ret == KSFT_PASS)
		ret = run_frame(dev, &info, AXL_PIXFMT_YUYV, 640, 480, 0, AXL_IMPORT_BIDIRECTIONAL, 4);
	if (ret == KSFT_PASS)
		ret = run_frame(dev, &info, AXL_PIXFMT_RAW, 4001, 3, 0, AXL_IMPORT_TO_DEVICE, 5);
	/* lines longer than the engine's 64 KiB processing chunk */
	if (ret == KSFT_PASS)
		ret = run_frame(dev, &info, AXL_PIXFMT_RAW, (1u << 20) + 3, 1, 0,
				AXL_IMPORT_TO_DEVICE, 6);
	if (ret == KSFT_PASS)
		ret = run_frame(dev, &info, AXL_PIXFMT_YUYV, 40000, 2, 80004, AXL_IMPORT_TO_DEVICE, 7);
	close(dev);
	return ret;
}

/* Some line of @text contains both @a and @b. */
static bool trace_has(const char *text, const char *a, const char *b)
{
	for (const char *line = text; line && *line;) {
		const char *end = strchr(line, '\n');
		size_t len = end ? (size_t)(end - line) : strlen(line);
		char *copy = strndup(line, len);
		bool hit = copy && strstr(copy, a) && (!b || strstr(copy, b));

		free(copy);
		if (hit)
			return true;
		line = end ? end + 1 : NULL;
	}
	return false;
}

/*
 * The engine begins its CPU access by what it does: it reads the frame
 * DMA_FROM_DEVICE (on a system that is not DMA-coherent, what invalidates
 * lines a camera wrote behind the CPU; videobuf2 leaves that to the buffer's
 * CPU users) and writes the result DMA_TO_DEVICE (kernel/axl_drv.h). Seen
 * by a kprobe on dma_buf_begin_cpu_access() around one job.
 */
static int case_cpu_access_directions(void)
{
	struct frame f = { .fd = -1 };
	struct axl_import_fd imp;
	struct axl_submit sub;
	struct fence_state st;
	struct axl_result ref;
	struct axl_info info;
	int dev, res, ret, n[3];
	char inst[64];

	dev = open_dev_info(&info);
	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	EXPECT_RET(frame_make(&f, AXL_PIXFMT_NV12, 640, 480, 0, 21), 0);
	frame_reference(&f.g, f.map, &ref);
	res = heap_alloc(PAGE);
	FAIL_IF(res < 0, "result alloc: %s", axl_errname(res));
	EXPECT_RET(result_poison(res), 0);
	EXPECT_RET(axl_import(dev, f.fd, 640, 480, AXL_PIXFMT_NV12, 0, AXL_IMPORT_TO_DEVICE,
			      &imp), 0);

	/* only the job: the test's own DMA_BUF_IOCTL_SYNCs are outside */
	snprintf(inst, sizeof(inst), "axl_basic_cpu_%d", getpid());
	ret = begin_cpu_record(inst);
	FAIL_IF(ret, "kprobe on dma_buf_begin_cpu_access: %s", axl_errname(ret));
	ret = axl_submit(dev, imp.handle, res, 0, &sub);
	if (!ret)
		ret = fence_finish(sub.fence_fd, &st) == 1 ? 0 : -EIO;
	FAIL_IF(begin_cpu_stop(inst, n), "cannot read the trace");
	FAIL_IF(ret, "the job: %s", axl_errname(ret));
	EXPECT_RET(result_check(res, &ref, sub.seqno), 0);
	tap_diag("one job began CPU access %d time(s) FROM_DEVICE, %d TO_DEVICE, %d BIDIRECTIONAL",
		 n[2], n[1], n[0]);
	FAIL_IF(n[2] != 1, "the frame's read began FROM_DEVICE %d time(s), not once", n[2]);
	FAIL_IF(n[1] != 1, "the result's write began TO_DEVICE %d time(s), not once", n[1]);
	FAIL_IF(n[0], "%d access(es) began BIDIRECTIONAL", n[0]);
	EXPECT_RET(axl_release(dev, imp.handle), 0);
	close(sub.fence_fd);
	close(res);
	frame_free(&f);
	close(dev);
	return KSFT_PASS;
}

/* The "done when" of the driver: bufinfo and the import tracepoint while imported. */
static int case_attach_and_trace(void)
{
	static const char *const events[] = {
		"axl/axl_dmabuf_import", "axl/axl_dmabuf_release", "axl/axl_job_submit",
		"axl/axl_job_complete", "dma_fence/dma_fence_init", "dma_fence/dma_fence_emit",
		"dma_fence/dma_fence_signaled", NULL,
	};
	static struct bufinfo_entry e[256];
	const struct bufinfo_entry *be;
	struct frame f = { .fd = -1 };
	struct axl_import_fd imp;
	struct axl_submit sub;
	struct fence_state st;
	struct axl_info info;
	char inst[64], want[256], want2[128], *text;
	int dev, res, n, ret, attached = 0;

	dev = open_dev_info(&info);
	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	snprintf(inst, sizeof(inst), "axl_basic_%d", getpid());
	ret = trace_instance_create(inst, events);
	FAIL_IF(ret, "tracefs instance %s: %s", inst, axl_errname(ret));

	EXPECT_RET(frame_make(&f, AXL_PIXFMT_NV12, 640, 480, 0, 11), 0);
	res = heap_alloc(PAGE);
	FAIL_IF(res < 0, "result alloc: %s", axl_errname(res));
	EXPECT_RET(axl_import(dev, f.fd, 640, 480, AXL_PIXFMT_NV12, 0,
			      AXL_IMPORT_BIDIRECTIONAL, &imp), 0);

	n = bufinfo_read(e, 256);
	FAIL_IF(n < 0, "bufinfo: %s", axl_errname(n));
	be = bufinfo_find(e, n < 256 ? n : 256, (unsigned long)imp.inode);
	FAIL_IF(!be, "inode %llu not in bufinfo", (unsigned long long)imp.inode);
	FAIL_IF(strcmp(be->exporter, "system"), "exporter %s", be->exporter);
	for (int d = 0; d < be->ndevices; d++)
		attached += !strcmp(be->devices[d], info.device);
	FAIL_IF(attached != 1, "%s attached %d times to inode %lu", info.device,
		attached, be->inode);

	EXPECT_RET(axl_submit(dev, imp.handle, res, 0, &sub), 0);
	ret = fence_finish(sub.fence_fd, &st);
	FAIL_IF(ret != 1, "fence status %d", ret);
	EXPECT_RET(axl_release(dev, imp.handle), 0);

	n = bufinfo_read(e, 256);
	be = bufinfo_find(e, n < 256 ? n : 256, (unsigned long)imp.inode);
	FAIL_IF(!be, "inode vanished while the fd is open");
	for (int d = 0; d < be->ndevices; d++)
		FAIL_IF(!strcmp(be->devices[d], info.device), "still attached after release");

	text = trace_instance_read(inst);
	trace_instance_remove(inst);
	FAIL_IF(!text, "cannot read the trace");
	snprintf(want, sizeof(want),
		 "axl_dmabuf_import: handle=%u inode=%llu exporter=system iova=0x%llx size=%llu",
		 imp.handle, (unsigned long long)imp.inode,
		 (unsigned long long)imp.iova_base, (unsigned long long)imp.size);
	FAIL_IF(!trace_has(text, want, NULL), "no line '%s' in:\n%s", want, text);
	snprintf(want, sizeof(want), "axl_dmabuf_release: handle=%u inode=%llu exporter=system",
		 imp.handle, (unsigned long long)imp.inode);
	FAIL_IF(!trace_has(text, want, NULL), "no line '%s'", want);
	snprintf(want2, sizeof(want2), " seqno=%llu", (unsigned long long)sub.seqno);
	FAIL_IF(!trace_has(text, "dma_fence_init: driver=axl timeline=metis-0", want2),
		"no dma_fence_init for seqno %llu", (unsigned long long)sub.seqno);
	FAIL_IF(!trace_has(text, "dma_fence_emit: driver=axl timeline=metis-0", want2),
		"no dma_fence_emit");
	FAIL_IF(!trace_has(text, "dma_fence_signaled: driver=axl timeline=metis-0", want2),
		"no dma_fence_signaled");
	snprintf(want, sizeof(want), "seqno=%llu handle=%u inode=%llu model=7 status=0",
		 (unsigned long long)sub.seqno, imp.handle, (unsigned long long)imp.inode);
	FAIL_IF(!trace_has(text, "axl_job_submit:", want), "no axl_job_submit '%s'", want);
	FAIL_IF(!trace_has(text, "axl_job_complete:", want), "no axl_job_complete '%s'", want);
	free(text);
	close(sub.fence_fd);
	close(res);
	frame_free(&f);
	close(dev);
	return KSFT_PASS;
}

static int case_bad_fds(void)
{
	struct frame f = { .fd = -1 };
	struct axl_import_fd imp;
	struct axl_submit sub;
	int dev = axl_open_dev(), closed, null, res;

	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	EXPECT_RET(frame_make(&f, AXL_PIXFMT_GREY, 64, 64, 0, 1), 0);
	null = open("/dev/null", O_RDWR | O_CLOEXEC);
	closed = heap_alloc(PAGE);
	FAIL_IF(null < 0 || closed < 0, "setup");
	close(closed);

	EXPECT_RET(axl_import(dev, -1, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, NULL), -EBADF);
	EXPECT_RET(axl_import(dev, closed, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, NULL), -EBADF);
	EXPECT_RET(axl_import(dev, 1 << 20, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, NULL), -EBADF);
	EXPECT_RET(axl_import(dev, null, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, NULL), -EINVAL);
	EXPECT_RET(axl_import(dev, dev, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, NULL), -EINVAL);

	EXPECT_RET(axl_import(dev, f.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp), 0);
	EXPECT_RET(axl_submit(dev, imp.handle, -1, 0, NULL), -EBADF);
	EXPECT_RET(axl_submit(dev, imp.handle, closed, 0, NULL), -EBADF);
	EXPECT_RET(axl_submit(dev, imp.handle, null, 0, NULL), -EINVAL);
	/* the engine must not write into the frame it reads */
	EXPECT_RET(axl_submit(dev, imp.handle, f.fd, 0, NULL), -EINVAL);
	/* a failed submit leaves the import idle */
	EXPECT_RET(axl_release(dev, imp.handle), 0);

	/* a fence fd is a file but not a dma-buf */
	EXPECT_RET(axl_import(dev, f.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp), 0);
	res = heap_alloc(PAGE);
	EXPECT_RET(axl_submit(dev, imp.handle, res, 0, &sub), 0);
	EXPECT_RET(axl_import(dev, sub.fence_fd, 64, 64, AXL_PIXFMT_GREY, 0,
			      AXL_IMPORT_TO_DEVICE, NULL), -EINVAL);
	EXPECT_RET(axl_submit(dev, imp.handle, sub.fence_fd, 0, NULL), -EINVAL);
	FAIL_IF(fence_wait(sub.fence_fd, WAIT_MS), "fence did not signal");
	close(sub.fence_fd);
	close(res);
	close(null);
	frame_free(&f);
	close(dev);
	return KSFT_PASS;
}

/* A GREY 64x64 import of a 4096-byte buffer, with some fields changed. */
#define REQ(...) { .width = 64, .height = 64, .pixfmt = AXL_PIXFMT_GREY, \
		   .flags = AXL_IMPORT_TO_DEVICE, __VA_ARGS__ }

static const struct {
	const char *what;
	struct axl_import_fd req;
} bad_imports[] = {
	{ "no direction", REQ(.flags = 0) },
	{ "two directions", REQ(.flags = AXL_IMPORT_TO_DEVICE | AXL_IMPORT_FROM_DEVICE) },
	{ "all directions", REQ(.flags = AXL_IMPORT_VALID_FLAGS) },
	{ "unknown flag", REQ(.flags = 8) },
	{ "unknown flag with a direction", REQ(.flags = AXL_IMPORT_TO_DEVICE | 0x10) },
	{ "top flag bit", REQ(.flags = 1u << 31) },
	{ "every flag bit", REQ(.flags = 0xffffffff) },
	{ "pad", REQ(.pad = 1) },
	{ "reserved[0]", REQ(.reserved = { 1, 0 }) },
	{ "reserved[1]", REQ(.reserved = { 0, 1ull << 63 }) },
	{ "unknown pixfmt", REQ(.pixfmt = 0x12345678) },
	{ "zero width", REQ(.width = 0) },
	{ "zero height", REQ(.height = 0) },
	{ "stride below the line", REQ(.stride = 63) },
	{ "width*height over the limit", REQ(.width = 1u << 16, .height = 1u << 16) },
	{ "everything at the maximum", REQ(.width = ~0u, .height = ~0u, .stride = ~0u) },
	{ "odd YUYV width", REQ(.pixfmt = AXL_PIXFMT_YUYV, .width = 31, .height = 2) },
	{ "odd NV12 width", REQ(.pixfmt = AXL_PIXFMT_NV12, .width = 63, .height = 2) },
	{ "odd NV12 height", REQ(.pixfmt = AXL_PIXFMT_NV12, .width = 64, .height = 3) },
	{ "one line more than the buffer", REQ(.height = 65) },
	{ "one byte of stride more than the buffer", REQ(.stride = 65) },
	{ "one pixel wider than the buffer", REQ(.width = 65) },
};

static int case_bad_args(void)
{
	struct frame f = { .fd = -1 }, nv = { .fd = -1 };
	struct axl_import_fd req, imp;
	struct axl_submit sub;
	struct axl_release rel;
	int dev = axl_open_dev(), res;
	long long imports0 = axl_stat("imported");

	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	EXPECT_RET(frame_make(&f, AXL_PIXFMT_GREY, 64, 64, 0, 1), 0);
	/* NV12 640x480 packed: 460800 bytes in a 462848-byte (113-page) buffer */
	EXPECT_RET(frame_make(&nv, AXL_PIXFMT_NV12, 640, 480, 0, 2), 0);
	res = heap_alloc(PAGE);
	FAIL_IF(res < 0, "alloc");

	for (size_t i = 0; i < ARRAY_SIZE(bad_imports); i++) {
		req = bad_imports[i].req;
		req.fd = f.fd;
		FAIL_IF(axl_ioctl(dev, AXL_IOCTL_IMPORT_FD, &req) != -EINVAL,
			"import with %s did not fail with EINVAL", bad_imports[i].what);
	}
	/* the exact fit is fine */
	req = (struct axl_import_fd)REQ(.fd = f.fd);
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_IMPORT_FD, &req), 0);
	EXPECT_RET(axl_release(dev, req.handle), 0);
	/* NV12 counts both planes: 640x480 fits its 113 pages, 640x484 does not */
	EXPECT_RET(axl_import(dev, nv.fd, 640, 484, AXL_PIXFMT_NV12, 0, AXL_IMPORT_TO_DEVICE, NULL), -EINVAL);
	EXPECT_RET(axl_import(dev, nv.fd, 640, 480, AXL_PIXFMT_NV12, 656, AXL_IMPORT_TO_DEVICE, NULL), -EINVAL);
	EXPECT_RET(axl_import(dev, nv.fd, 640, 480, AXL_PIXFMT_NV12, 0, AXL_IMPORT_TO_DEVICE, &imp), 0);

	/* submit */
	memset(&sub, 0, sizeof(sub)); sub.input_handle = imp.handle; sub.result_fd = res;
	sub.flags = 1;
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_SUBMIT, &sub), -EINVAL);
	sub.flags = 1u << 31;
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_SUBMIT, &sub), -EINVAL);
	sub.flags = 0; sub.reserved[0] = 1;
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_SUBMIT, &sub), -EINVAL);
	sub.reserved[0] = 0; sub.reserved[1] = 1;
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_SUBMIT, &sub), -EINVAL);
	sub.reserved[1] = 0; sub.timeout_us = AXL_SUBMIT_MAX_TIMEOUT_US + 1;
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_SUBMIT, &sub), -EINVAL);
	sub.timeout_us = AXL_SUBMIT_MAX_TIMEOUT_US;
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_SUBMIT, &sub), 0);
	FAIL_IF(fence_wait(sub.fence_fd, WAIT_MS), "fence did not signal");
	close(sub.fence_fd);

	/* release */
	rel.handle = imp.handle; rel.reserved = 1;
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_RELEASE_IMPORT, &rel), -EINVAL);
	rel.reserved = 0;
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_RELEASE_IMPORT, &rel), 0);

	/* only the two good imports happened */
	FAIL_IF(axl_stat("imported") - imports0 != 2, "imported %lld, expected 2",
		axl_stat("imported") - imports0);
	close(res);
	frame_free(&f);
	frame_free(&nv);
	close(dev);
	return KSFT_PASS;
}

/* Bad user pointers, including a struct that can be read but not written back. */
static int case_efault(void)
{
	struct frame f = { .fd = -1 };
	struct axl_import_fd *ro_imp;
	struct axl_submit *ro_sub;
	struct axl_import_fd imp;
	struct axl_info info;
	long long cancelled0, submitted0;
	int dev = open_dev_info(&info), res, fds0;
	void *ro;

	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_GET_INFO, NULL), -EFAULT);
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_IMPORT_FD, NULL), -EFAULT);
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_SUBMIT, NULL), -EFAULT);
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_RELEASE_IMPORT, NULL), -EFAULT);
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_IMPORT_FD, (void *)1), -EFAULT);

	EXPECT_RET(frame_make(&f, AXL_PIXFMT_GREY, 64, 64, 0, 1), 0);
	res = heap_alloc(PAGE);
	ro = mmap(NULL, PAGE, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	FAIL_IF(res < 0 || ro == MAP_FAILED, "setup");
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_GET_INFO, ro), 0);
	mprotect(ro, PAGE, PROT_READ);
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_GET_INFO, ro), -EFAULT);

	/* import whose answer cannot be written back: nothing may stay behind */
	mprotect(ro, PAGE, PROT_READ | PROT_WRITE);
	ro_imp = ro;
	memset(ro_imp, 0, sizeof(*ro_imp));
	ro_imp->fd = f.fd; ro_imp->width = 64; ro_imp->height = 64;
	ro_imp->pixfmt = AXL_PIXFMT_GREY; ro_imp->flags = AXL_IMPORT_TO_DEVICE;
	mprotect(ro, PAGE, PROT_READ);
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_IMPORT_FD, ro_imp), -EFAULT);
	EXPECT_RET(axl_info(dev, &info), 0);
	FAIL_IF(info.file_imports != 0, "file_imports %u after a failed import", info.file_imports);
	FAIL_IF(bufinfo_attached_to(info.device) != 0, "attachment left behind");

	/*
	 * submit whose answer cannot be written back: the answer is copied
	 * once the job is queued and no lock is held, so the job runs (as a
	 * DRM driver's would), but no fd is leaked and nothing stays behind
	 */
	EXPECT_RET(axl_import(dev, f.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp), 0);
	mprotect(ro, PAGE, PROT_READ | PROT_WRITE);
	ro_sub = ro;
	memset(ro_sub, 0, sizeof(*ro_sub));
	ro_sub->input_handle = imp.handle; ro_sub->result_fd = res;
	mprotect(ro, PAGE, PROT_READ);
	cancelled0 = axl_stat("cancelled");
	submitted0 = axl_stat("submitted");
	fds0 = open_fd_count();
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_SUBMIT, ro_sub), -EFAULT);
	FAIL_IF(open_fd_count() != fds0, "fd leaked by a failed submit");
	/* the job's fence stays in its result buffer while that lives */
	FAIL_IF(!axl_stats_settle(1, 1, 0, 1, 5000), "job or fence left behind");
	FAIL_IF(axl_stat("cancelled") != cancelled0 || axl_stat("submitted") != submitted0 + 1,
		"cancelled %lld (was %lld), submitted %lld (was %lld): expected the job to run",
		axl_stat("cancelled"), cancelled0, axl_stat("submitted"), submitted0);
	EXPECT_RET(axl_release(dev, imp.handle), 0);
	munmap(ro, PAGE);
	close(res);
	frame_free(&f);
	close(dev);
	return KSFT_PASS;
}

static int case_unknown_ioctl(void)
{
	uint8_t buf[4096] = { 0 };
	int dev = axl_open_dev();

	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	for (unsigned int nr = 4; nr < 0x20; nr++) {
		EXPECT_RET(axl_ioctl(dev, _IOWR(AXL_IOCTL_MAGIC, nr, struct axl_import_fd), buf), -ENOTTY);
		EXPECT_RET(axl_ioctl(dev, _IO(AXL_IOCTL_MAGIC, nr), buf), -ENOTTY);
	}
	/* the right number with another size or direction is another command */
	EXPECT_RET(axl_ioctl(dev, _IOR(AXL_IOCTL_MAGIC, 0, uint32_t), buf), -ENOTTY);
	EXPECT_RET(axl_ioctl(dev, _IOWR(AXL_IOCTL_MAGIC, 0, struct axl_info), buf), -ENOTTY);
	EXPECT_RET(axl_ioctl(dev, _IOWR(AXL_IOCTL_MAGIC, 1, uint64_t[7]), buf), -ENOTTY);
	EXPECT_RET(axl_ioctl(dev, _IOW(AXL_IOCTL_MAGIC, 1, struct axl_import_fd), buf), -ENOTTY);
	EXPECT_RET(axl_ioctl(dev, _IOWR(AXL_IOCTL_MAGIC, 2, uint64_t[6]), buf), -ENOTTY);
	EXPECT_RET(axl_ioctl(dev, _IOW(AXL_IOCTL_MAGIC, 3, uint64_t[2]), buf), -ENOTTY);
	EXPECT_RET(axl_ioctl(dev, _IOR(AXL_IOCTL_MAGIC + 1, 0, struct axl_info), buf), -ENOTTY);
	EXPECT_RET(axl_ioctl(dev, DMA_BUF_IOCTL_SYNC, buf), -ENOTTY);
	EXPECT_RET(axl_ioctl(dev, 0, buf), -ENOTTY);
	EXPECT_RET(axl_ioctl(dev, 0xffffffff, buf), -ENOTTY);
	close(dev);
	return KSFT_PASS;
}

static int case_handles(void)
{
	struct frame f = { .fd = -1 };
	struct axl_import_fd a, b, c;
	struct axl_submit sub;
	struct fence_state st;
	int dev = axl_open_dev(), res;

	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	EXPECT_RET(frame_make(&f, AXL_PIXFMT_GREY, 64, 64, 0, 1), 0);
	res = heap_alloc(PAGE);
	EXPECT_RET(axl_release(dev, 0), -ENOENT);
	EXPECT_RET(axl_release(dev, 12345), -ENOENT);
	EXPECT_RET(axl_release(dev, 0xffffffff), -ENOENT);
	EXPECT_RET(axl_submit(dev, 0, res, 0, NULL), -ENOENT);
	EXPECT_RET(axl_submit(dev, 777, res, 0, NULL), -ENOENT);

	/* the same buffer imported twice: two handles, two attachments */
	EXPECT_RET(axl_import(dev, f.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &a), 0);
	EXPECT_RET(axl_import(dev, f.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &b), 0);
	FAIL_IF(a.handle == b.handle, "duplicate handle %u", a.handle);
	FAIL_IF(a.inode != b.inode, "inode changed");
	EXPECT_RET(axl_release(dev, a.handle), 0);
	EXPECT_RET(axl_release(dev, a.handle), -ENOENT);
	EXPECT_RET(axl_submit(dev, a.handle, res, 0, NULL), -ENOENT);
	/* a released handle is not handed out again right away */
	EXPECT_RET(axl_import(dev, f.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &c), 0);
	FAIL_IF(c.handle == a.handle || c.handle == b.handle, "handle %u reused", c.handle);
	EXPECT_RET(axl_release(dev, b.handle), 0);
	EXPECT_RET(axl_release(dev, c.handle), 0);
	EXPECT_RET(axl_release(dev, b.handle), -ENOENT);
	/* the import holds its own reference: closing the fd changes nothing */
	EXPECT_RET(axl_import(dev, f.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &a), 0);
	frame_free(&f);
	EXPECT_RET(axl_submit(dev, a.handle, res, 0, &sub), 0);
	FAIL_IF(fence_finish(sub.fence_fd, &st) != 1, "fence status %d", st.status);
	EXPECT_RET(axl_release(dev, a.handle), 0);
	close(sub.fence_fd);
	close(res);
	close(dev);
	return KSFT_PASS;
}

static int case_busy_release(void)
{
	struct frame f = { .fd = -1 };
	struct axl_import_fd imp;
	struct axl_submit sub;
	struct fence_state st;
	struct axl_info info;
	int dev = axl_open_dev(), res;

	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	EXPECT_RET(frame_make(&f, AXL_PIXFMT_GREY, 64, 64, 0, 1), 0);
	res = heap_alloc(PAGE);
	EXPECT_RET(param_set("latency_us", 300000), 0);
	EXPECT_RET(axl_import(dev, f.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp), 0);
	EXPECT_RET(axl_submit(dev, imp.handle, res, 0, &sub), 0);
	EXPECT_RET(axl_info(dev, &info), 0);
	FAIL_IF(info.file_jobs != 1 || info.file_imports != 1, "file_jobs %u file_imports %u",
		info.file_jobs, info.file_imports);
	EXPECT_RET(fence_state(sub.fence_fd, &st), 0);
	FAIL_IF(st.status != 0, "fence status %d while the job runs", st.status);
	EXPECT_RET(axl_release(dev, imp.handle), -EBUSY);
	FAIL_IF(fence_finish(sub.fence_fd, &st) != 1, "fence status %d", st.status);
	FAIL_IF(st.timestamp_ns - sub.submit_ns < 300000000ull, "signalled after %llu ns",
		(unsigned long long)(st.timestamp_ns - sub.submit_ns));
	/* idle before the fence signalled: no window where release says busy */
	EXPECT_RET(axl_release(dev, imp.handle), 0);
	EXPECT_RET(axl_info(dev, &info), 0);
	FAIL_IF(info.file_jobs || info.file_imports, "file_jobs %u file_imports %u",
		info.file_jobs, info.file_imports);
	close(sub.fence_fd);
	close(res);
	frame_free(&f);
	close(dev);
	return KSFT_PASS;
}

static int case_limits(void)
{
	struct frame f = { .fd = -1 };
	struct axl_import_fd imp, first;
	struct axl_submit sub;
	struct axl_info info;
	int dev = open_dev_info(&info), dev2, *res, *fences, *bufs;

	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	EXPECT_RET(frame_make(&f, AXL_PIXFMT_GREY, 64, 64, 0, 1), 0);
	/*
	 * A buffer of its own per import and per job: DMA_API_DEBUG warns
	 * when one device maps the same memory more than 7 times at once.
	 */
	bufs = calloc(info.max_imports, sizeof(*bufs));
	res = calloc(info.max_jobs, sizeof(*res));
	FAIL_IF(!bufs || !res, "calloc");
	for (uint32_t i = 0; i < info.max_jobs; i++)
		FAIL_IF((res[i] = heap_alloc(PAGE)) < 0, "result buffer %u", i);
	for (uint32_t i = 1; i < info.max_imports; i++) {
		FAIL_IF((bufs[i] = heap_alloc(PAGE)) < 0, "buffer %u", i);
		EXPECT_RET(axl_import(dev, bufs[i], 64, 64, AXL_PIXFMT_GREY, 0,
				      AXL_IMPORT_TO_DEVICE, &imp), 0);
	}
	EXPECT_RET(axl_import(dev, f.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE,
			      &first), 0);
	EXPECT_RET(axl_import(dev, f.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, NULL), -ENOSPC);
	EXPECT_RET(axl_info(dev, &info), 0);
	FAIL_IF(info.file_imports != info.max_imports, "file_imports %u", info.file_imports);
	/* another open file has its own budget */
	dev2 = axl_open_dev();
	FAIL_IF(dev2 < 0, "open: %s", axl_errname(dev2));
	EXPECT_RET(axl_import(dev2, f.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, NULL), 0);
	close(dev2);
	EXPECT_RET(axl_release(dev, first.handle), 0);
	EXPECT_RET(axl_import(dev, f.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &first), 0);

	/*
	 * The head job hangs (for its 10 s timeout), so all max_jobs stay in
	 * flight however slowly they are submitted (a 500 ms latency did not
	 * hold them on the arm64 debug kernel under load).
	 */
	EXPECT_RET(param_set("stall_next", 1), 0);
	fences = calloc(info.max_jobs, sizeof(*fences));
	for (uint32_t i = 0; i < info.max_jobs; i++) {
		EXPECT_RET(axl_submit(dev, first.handle, res[i], AXL_SUBMIT_MAX_TIMEOUT_US, &sub),
			   0);
		fences[i] = sub.fence_fd;
	}
	EXPECT_RET(axl_submit(dev, first.handle, res[0], 0, NULL), -EBUSY);
	EXPECT_RET(axl_info(dev, &info), 0);
	FAIL_IF(info.file_jobs != info.max_jobs, "file_jobs %u", info.file_jobs);
	/* closing the file cancels the queue; every fence still signals */
	close(dev);
	for (uint32_t i = 0; i < info.max_jobs; i++) {
		struct fence_state st;
		int ret = fence_finish(fences[i], &st);

		FAIL_IF(ret != 1 && ret != -ECANCELED, "job %u: fence status %d", i, ret);
		close(fences[i]);
	}
	free(fences);
	/*
	 * the jobs' fences stay in their result buffers until these are
	 * freed, and the last one in the frame they read (a reader's)
	 */
	for (uint32_t i = 0; i < info.max_jobs; i++)
		close(res[i]);
	frame_free(&f);
	FAIL_IF(!axl_stats_settle(0, 0, 0, 0, 5000), "not back to zero");
	for (uint32_t i = 1; i < info.max_imports; i++)
		close(bufs[i]);
	free(res);
	free(bufs);
	return KSFT_PASS;
}

static int isolation_probe(int dev2, uint32_t handle, int res)
{
	struct axl_info info;

	EXPECT_RET(axl_release(dev2, handle), -ENOENT);
	EXPECT_RET(axl_submit(dev2, handle, res, 0, NULL), -ENOENT);
	EXPECT_RET(axl_info(dev2, &info), 0);
	FAIL_IF(info.file_imports != 0, "file_imports %u", info.file_imports);
	return KSFT_PASS;
}

static int case_isolation(void)
{
	struct frame f = { .fd = -1 };
	struct axl_import_fd imp;
	struct axl_submit sub;
	struct fence_state st;
	int dev = axl_open_dev(), dev2, res, status, ret;
	pid_t pid;

	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	EXPECT_RET(frame_make(&f, AXL_PIXFMT_GREY, 64, 64, 0, 1), 0);
	res = heap_alloc(PAGE);
	EXPECT_RET(axl_import(dev, f.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp), 0);

	/* another open file in this process */
	dev2 = axl_open_dev();
	ret = isolation_probe(dev2, imp.handle, res);
	if (ret != KSFT_PASS)
		return ret;
	close(dev2);

	/* another process with its own open file */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		int d = axl_open_dev();

		_exit(d < 0 ? KSFT_FAIL : isolation_probe(d, imp.handle, res));
	}
	FAIL_IF(waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		WEXITSTATUS(status) != KSFT_PASS, "child probe failed (status 0x%x)", status);

	/* handles belong to the open file: a child sharing it may use them */
	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct axl_submit s;
		struct fence_state fs;

		_exit(axl_submit(dev, imp.handle, res, 0, &s) ||
		      fence_finish(s.fence_fd, &fs) != 1 ? KSFT_FAIL : KSFT_PASS);
	}
	FAIL_IF(waitpid(pid, &status, 0) != pid || !WIFEXITED(status) ||
		WEXITSTATUS(status) != KSFT_PASS, "shared-file child failed (status 0x%x)", status);

	/* the owner still has its import */
	EXPECT_RET(axl_submit(dev, imp.handle, res, 0, &sub), 0);
	FAIL_IF(fence_finish(sub.fence_fd, &st) != 1, "fence status %d", st.status);
	EXPECT_RET(axl_release(dev, imp.handle), 0);
	close(sub.fence_fd);
	close(res);
	frame_free(&f);
	close(dev);
	return KSFT_PASS;
}

#define ORDER_JOBS 8

static int case_order(void)
{
	struct frame f = { .fd = -1 };
	struct axl_submit sub[ORDER_JOBS];
	struct fence_state st[ORDER_JOBS];
	struct axl_import_fd imp;
	struct axl_result ref;
	int dev = axl_open_dev(), res[ORDER_JOBS], ret;

	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	EXPECT_RET(frame_make(&f, AXL_PIXFMT_NV12, 320, 240, 0, 21), 0);
	frame_reference(&f.g, f.map, &ref);
	EXPECT_RET(axl_import(dev, f.fd, 320, 240, AXL_PIXFMT_NV12, 0, AXL_IMPORT_TO_DEVICE, &imp), 0);
	for (int i = 0; i < ORDER_JOBS; i++) {
		res[i] = heap_alloc(PAGE);
		EXPECT_RET(axl_submit(dev, imp.handle, res[i], 0, &sub[i]), 0);
		FAIL_IF(i && sub[i].seqno <= sub[i - 1].seqno, "seqno %llu after %llu",
			(unsigned long long)sub[i].seqno, (unsigned long long)sub[i - 1].seqno);
	}
	for (int i = 0; i < ORDER_JOBS; i++) {
		ret = fence_finish(sub[i].fence_fd, &st[i]);
		FAIL_IF(ret != 1, "job %d: fence status %d", i, ret);
		FAIL_IF(i && st[i].timestamp_ns < st[i - 1].timestamp_ns,
			"job %d signalled before job %d", i, i - 1);
		ret = result_check(res[i], &ref, sub[i].seqno);
		if (ret != KSFT_PASS)
			return ret;
		close(sub[i].fence_fd);
		close(res[i]);
	}
	EXPECT_RET(axl_release(dev, imp.handle), 0);
	frame_free(&f);
	close(dev);
	return KSFT_PASS;
}

/* Submit one job and return its fence status; fills the result's status and the elapsed time. */
static int one_job(int dev, uint32_t handle, uint32_t timeout_us, int *res_status,
		   uint64_t *elapsed_ns)
{
	struct axl_submit sub;
	struct fence_state st;
	uint64_t seqno = 0;
	int res = heap_alloc(PAGE), ret;

	if (res < 0)
		return res;
	ret = axl_submit(dev, handle, res, timeout_us, &sub);
	if (ret) {
		close(res);
		return ret;
	}
	ret = fence_finish(sub.fence_fd, &st);
	*elapsed_ns = st.timestamp_ns - sub.submit_ns;
	if (result_status(res, res_status, &seqno) || seqno != sub.seqno)
		*res_status = 12345; /* no (or a stale) result */
	close(sub.fence_fd);
	close(res);
	return ret;
}

static int case_fault_eio(void)
{
	struct frame f = { .fd = -1 };
	struct axl_import_fd imp;
	uint64_t el;
	int dev = axl_open_dev(), rs, failed = 0;
	long long failed0 = axl_stat("failed");

	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	EXPECT_RET(frame_make(&f, AXL_PIXFMT_GREY, 64, 64, 0, 1), 0);
	EXPECT_RET(axl_import(dev, f.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp), 0);
	EXPECT_RET(param_set("fail_next", 1), 0);
	EXPECT_RET(one_job(dev, imp.handle, 0, &rs, &el), -EIO);
	FAIL_IF(rs != -EIO, "result status %d", rs);
	EXPECT_RET(one_job(dev, imp.handle, 0, &rs, &el), 1);
	FAIL_IF(rs != 0, "result status %d", rs);
	FAIL_IF(param_get("fail_next") != 0, "fail_next not consumed");

	EXPECT_RET(param_set("fail_every", 3), 0);
	for (int i = 0; i < 6; i++) {
		int ret = one_job(dev, imp.handle, 0, &rs, &el);

		FAIL_IF(ret != 1 && ret != -EIO, "fence status %d", ret);
		FAIL_IF(ret != (rs ? rs : 1), "fence %d but result %d", ret, rs);
		failed += ret == -EIO;
	}
	FAIL_IF(failed != 2, "fail_every=3 failed %d of 6 jobs", failed);
	FAIL_IF(axl_stat("failed") - failed0 != 3, "failed counter +%lld",
		axl_stat("failed") - failed0);
	EXPECT_RET(param_set("fail_every", 0), 0);
	EXPECT_RET(axl_release(dev, imp.handle), 0);
	frame_free(&f);
	close(dev);
	return KSFT_PASS;
}

static int case_timeout(void)
{
	struct frame f = { .fd = -1 };
	struct axl_import_fd imp;
	struct axl_submit a, b;
	struct fence_state sa, sb;
	uint64_t el;
	int dev = axl_open_dev(), rs, ra, rb, ret;

	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	EXPECT_RET(frame_make(&f, AXL_PIXFMT_GREY, 64, 64, 0, 1), 0);
	EXPECT_RET(axl_import(dev, f.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp), 0);

	/* a hung job: signalled by the driver's timeout, with -ETIMEDOUT */
	EXPECT_RET(param_set("stall_next", 1), 0);
	EXPECT_RET(one_job(dev, imp.handle, 50000, &rs, &el), -ETIMEDOUT);
	FAIL_IF(rs != -ETIMEDOUT, "result status %d", rs);
	FAIL_IF(el < 50000000ull || el > 5000000000ull, "timed out after %llu ns",
		(unsigned long long)el);
	tap_diag("stalled job timed out after %.1f ms (timeout 50 ms)", el / 1e6);

	/* a job slower than its timeout */
	EXPECT_RET(param_set("latency_us", 300000), 0);
	EXPECT_RET(one_job(dev, imp.handle, 30000, &rs, &el), -ETIMEDOUT);
	FAIL_IF(el < 30000000ull || el >= 300000000ull, "timed out after %llu ns",
		(unsigned long long)el);
	EXPECT_RET(param_set("latency_us", 2000), 0);

	/* the default timeout comes from timeout_ms */
	EXPECT_RET(param_set("timeout_ms", 80), 0);
	EXPECT_RET(param_set("stall_next", 1), 0);
	EXPECT_RET(one_job(dev, imp.handle, 0, &rs, &el), -ETIMEDOUT);
	FAIL_IF(el < 80000000ull, "default timeout after %llu ns", (unsigned long long)el);

	/*
	 * A job queued behind a hung one runs after it, in order. Only the hung
	 * one has a short timeout: the second's clock starts when it reaches the
	 * engine, and 50 ms of it ran out on a debug kernel with the host busy.
	 */
	EXPECT_RET(param_set("stall_next", 1), 0);
	ra = heap_alloc(PAGE);
	rb = heap_alloc(PAGE);
	EXPECT_RET(axl_submit(dev, imp.handle, ra, 50000, &a), 0);
	EXPECT_RET(axl_submit(dev, imp.handle, rb, 5000000, &b), 0);
	ret = fence_finish(b.fence_fd, &sb);
	FAIL_IF(ret != 1, "second job: fence status %d", ret);
	EXPECT_RET(fence_state(a.fence_fd, &sa), 0);
	FAIL_IF(sa.status != -ETIMEDOUT, "first job: fence status %d", sa.status);
	FAIL_IF(sb.timestamp_ns < sa.timestamp_ns, "out of order");

	close(a.fence_fd);
	close(b.fence_fd);
	close(ra);
	close(rb);
	EXPECT_RET(axl_release(dev, imp.handle), 0);
	frame_free(&f);
	close(dev);
	return KSFT_PASS;
}

static int case_close_cancels(void)
{
	struct frame f = { .fd = -1 };
	struct axl_import_fd imp;
	struct axl_submit sub[3];
	struct axl_info info;
	int dev = open_dev_info(&info), res[3];
	uint64_t t0;

	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	EXPECT_RET(frame_make(&f, AXL_PIXFMT_GREY, 64, 64, 0, 1), 0);
	EXPECT_RET(axl_import(dev, f.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp), 0);
	EXPECT_RET(param_set("latency_us", 2000000), 0);
	for (int i = 0; i < 3; i++) {
		res[i] = heap_alloc(PAGE);
		EXPECT_RET(axl_submit(dev, imp.handle, res[i], 0, &sub[i]), 0);
	}
	FAIL_IF(bufinfo_attached_to(info.device) != 4, "attachments %d, expected 4",
		bufinfo_attached_to(info.device));
	t0 = now_ns();
	close(dev);
	for (int i = 0; i < 3; i++) {
		struct fence_state st;
		uint64_t seqno;
		int rs, ret = fence_finish(sub[i].fence_fd, &st);

		FAIL_IF(ret != -ECANCELED, "job %d: fence status %d", i, ret);
		EXPECT_RET(result_status(res[i], &rs, &seqno), 0);
		FAIL_IF(rs != -ECANCELED || seqno != sub[i].seqno, "result status %d", rs);
	}
	FAIL_IF(now_ns() - t0 > 1000000000ull, "cancel took %llu ns",
		(unsigned long long)(now_ns() - t0));
	FAIL_IF(!axl_stats_settle(0, 0, 0, 3, 2000), "state left behind");
	FAIL_IF(bufinfo_attached_to(info.device) != 0, "attachments left behind");
	for (int i = 0; i < 3; i++) {
		close(sub[i].fence_fd);
		close(res[i]);
	}
	/* the frame holds the last job's fence as a reader's */
	frame_free(&f);
	FAIL_IF(!axl_stats_settle(0, 0, 0, 0, 2000), "fences not freed");
	return KSFT_PASS;
}

static int case_sigkill(void)
{
	static struct bufinfo_entry e[256];
	struct axl_info info;
	int dev = open_dev_info(&info), n0, pipefd[2], status;
	long long cancelled0 = axl_stat("cancelled");
	char c;
	pid_t pid;

	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	close(dev);
	FAIL_IF(!axl_stats_settle(0, 0, 0, 0, 2000), "baseline not clean");
	n0 = bufinfo_read(e, 256);
	FAIL_IF(n0 < 0, "bufinfo");
	EXPECT_RET(param_set("latency_us", 5000000), 0);
	FAIL_IF(pipe(pipefd), "pipe");

	fflush(stdout);
	pid = fork();
	if (pid == 0) {
		struct frame f = { .fd = -1 };
		struct axl_import_fd imp;
		struct axl_submit sub;
		int d = axl_open_dev(), res = heap_alloc(PAGE), res2 = heap_alloc(PAGE);

		if (d < 0 || res < 0 || res2 < 0 ||
		    frame_make(&f, AXL_PIXFMT_NV12, 640, 480, 0, 9) ||
		    axl_import(d, f.fd, 640, 480, AXL_PIXFMT_NV12, 0, AXL_IMPORT_TO_DEVICE, &imp) ||
		    axl_submit(d, imp.handle, res, 0, &sub) ||
		    axl_submit(d, imp.handle, res2, 0, &sub))
			_exit(1);
		if (write(pipefd[1], "x", 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(pipefd[1]);
	FAIL_IF(read(pipefd[0], &c, 1) != 1, "child did not get its jobs queued");
	FAIL_IF(axl_stat("jobs") != 2 || axl_stat("imports") != 1, "jobs %lld imports %lld",
		axl_stat("jobs"), axl_stat("imports"));
	FAIL_IF(bufinfo_attached_to(info.device) != 3, "attachments %d, expected 3",
		bufinfo_attached_to(info.device));
	kill(pid, SIGKILL);
	FAIL_IF(waitpid(pid, &status, 0) != pid || !WIFSIGNALED(status), "child did not die");

	FAIL_IF(!axl_stats_settle(0, 0, 0, 0, 3000), "driver state left behind");
	FAIL_IF(bufinfo_attached_to(info.device) != 0, "attachments left behind");
	/* the last dma_buf_put() from a kworker is a deferred fput: poll */
	for (int t = 0; bufinfo_read(e, 256) != n0 && t < 300; t++)
		usleep(10000);
	FAIL_IF(bufinfo_read(e, 256) != n0, "dma-buf count %d, baseline %d",
		bufinfo_read(e, 256), n0);
	FAIL_IF(axl_stat("cancelled") - cancelled0 != 2, "cancelled +%lld",
		axl_stat("cancelled") - cancelled0);
	return KSFT_PASS;
}

static int case_baseline(void)
{
	char first[512];
	struct axl_info info;
	int dev = open_dev_info(&info), splats;

	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	close(dev);
	FAIL_IF(!axl_stats_settle(0, 0, 0, 0, 3000), "driver state left behind");
	FAIL_IF(bufinfo_attached_to(info.device) != 0, "attachments left behind");
	FAIL_IF(kmsg_at_start < 0, "no kernel log mark: %s", axl_errname(kmsg_at_start));
	splats = kmsg_scan_splats(kmsg_at_start, first, sizeof(first));
	FAIL_IF(splats, "%d kernel log splat line(s), first: %s", splats, first);
	tap_diag("totals: imported %lld submitted %lld completed %lld failed %lld "
		 "timed_out %lld cancelled %lld", axl_stat("imported"), axl_stat("submitted"),
		 axl_stat("completed"), axl_stat("failed"), axl_stat("timed_out"),
		 axl_stat("cancelled"));
	return KSFT_PASS;
}

static const struct axl_case cases[] = {
	{ "reference crc32 matches zlib", case_reference_crc },
	{ "GET_INFO reports the engine", case_info },
	{ "frames come back with the independently computed result", case_frames },
	{ "bufinfo lists the device and the tracepoints fire while imported", case_attach_and_trace },
	{ "the engine reads a frame FROM_DEVICE and writes the result TO_DEVICE",
	  case_cpu_access_directions },
	{ "invalid fds are rejected", case_bad_fds },
	{ "bad flags, reserved fields and geometry are rejected", case_bad_args },
	{ "bad user pointers fail with EFAULT and leave nothing behind", case_efault },
	{ "unknown ioctls fail with ENOTTY", case_unknown_ioctl },
	{ "handles: double release, unknown handles, no reuse", case_handles },
	{ "release fails with EBUSY while a job reads the import", case_busy_release },
	{ "per-file import and job limits", case_limits },
	{ "handles are private to the open file", case_isolation },
	{ "fences signal in submission order", case_order },
	{ "fault injection fails jobs with EIO", case_fault_eio },
	{ "timeouts signal with ETIMEDOUT", case_timeout },
	{ "closing the file cancels its jobs", case_close_cancels },
	{ "SIGKILL with jobs outstanding leaves nothing behind", case_sigkill },
	{ "no leaks and a clean kernel log", case_baseline },
};

int main(void)
{
	int skip = tap_skip_unless_importable("module parameters, debugfs");

	if (skip)
		return skip;
	kmsg_at_start = kmsg_mark();
	return tap_run(cases, ARRAY_SIZE(cases));
}
