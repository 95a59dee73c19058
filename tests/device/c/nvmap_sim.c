// SPDX-License-Identifier: GPL-2.0
/*
 * The rig's nvmap stand-in (tests/rig/nvmap_sim): /dev/dma_heap/nvmap-sim
 * allocates through the dma-heap uapi, its buffers export as nvmap_dmabuf,
 * two attachments of one device share one IOMMU mapping that lives until the
 * buffer's release (nvmap's stash), and its tracepoints print nvmap's text.
 * The importers are real: axl.ko's device (behind the IOMMU) and vgem.
 */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <unistd.h>
#include <linux/dma-heap.h>

#include "axl_util.h"

#define NVMAP_DEBUGFS "/sys/kernel/debug/nvmap_sim"
#define W 256
#define H 256
#define LEN (W * H)

/* The DRM PRIME and GEM definitions needed (no libdrm headers required). */
struct t_drm_prime_handle {
	uint32_t handle, flags;
	int32_t fd;
};
struct t_drm_gem_close {
	uint32_t handle, pad;
};
#define T_DRM_IOCTL_GEM_CLOSE _IOW('d', 0x09, struct t_drm_gem_close)
#define T_DRM_IOCTL_PRIME_FD_TO_HANDLE _IOWR('d', 0x2e, struct t_drm_prime_handle)

static int nvmap_alloc(uint64_t len, uint32_t fd_flags, uint64_t heap_flags)
{
	struct dma_heap_allocation_data data = {
		.len = len, .fd_flags = fd_flags, .heap_flags = heap_flags,
	};
	int heap, ret;

	heap = open(NVMAP_HEAP, O_RDONLY | O_CLOEXEC);
	if (heap < 0)
		return -errno;
	ret = axl_ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &data);
	close(heap);
	return ret < 0 ? ret : (int)data.fd;
}

/* A counter of debugfs nvmap_sim/, or -1. */
static long long nvmap_stat(const char *name)
{
	char path[128], buf[32] = "";
	FILE *f;

	snprintf(path, sizeof(path), NVMAP_DEBUGFS "/%s", name);
	f = fopen(path, "r");
	if (!f)
		return -1;
	if (!fgets(buf, sizeof(buf), f))
		buf[0] = 0;
	fclose(f);
	return buf[0] ? atoll(buf) : -1;
}

/* The exp_name line of @fd's fdinfo into @out. */
static int fd_exp_name(int fd, char *out, size_t len)
{
	char path[64], line[256], name[64];
	FILE *f;
	int ret = -ENOENT;

	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "r");
	if (!f)
		return -errno;
	while (fgets(line, sizeof(line), f))
		if (sscanf(line, "exp_name: %63s", name) == 1) {
			snprintf(out, len, "%s", name);
			ret = 0;
			break;
		}
	fclose(f);
	return ret;
}

/* How many lines of @text contain both @a and @b (NULL: any). */
static int count_lines(const char *text, const char *a, const char *b)
{
	const char *line = text, *end;
	int n = 0;
	char buf[512];

	for (; line && *line; line = end ? end + 1 : NULL) {
		size_t len;

		end = strchr(line, '\n');
		len = end ? (size_t)(end - line) : strlen(line);
		if (len >= sizeof(buf))
			len = sizeof(buf) - 1;
		memcpy(buf, line, len);
		buf[len] = 0;
		if (strstr(buf, a) && (!b || strstr(buf, b)))
			n++;
	}
	return n;
}

static int test_uapi(void)
{
	struct dma_heap_allocation_data data = { .len = LEN };
	char exp[64];
	uint8_t *p;
	int buf, heap;

	buf = nvmap_alloc(LEN, O_RDWR | O_CLOEXEC, 0);
	FAIL_IF(buf < 0, "alloc: %s", axl_errname(buf));
	EXPECT_RET(fd_exp_name(buf, exp, sizeof(exp)), 0);
	FAIL_IF(strcmp(exp, "nvmap_dmabuf"), "exp_name %s", exp);
	FAIL_IF(!(fcntl(buf, F_GETFD) & FD_CLOEXEC), "no O_CLOEXEC");
	p = buf_map(buf, LEN);
	FAIL_IF(!p, "mmap: %s", strerror(errno));
	EXPECT_RET(buf_sync(buf, true, true), 0);
	for (size_t i = 0; i < LEN; i++)
		FAIL_IF(p[i], "byte %zu of a new buffer is %u", i, p[i]);
	memset(p, 0x5a, LEN);
	EXPECT_RET(buf_sync(buf, false, true), 0);
	munmap(p, LEN);
	close(buf);

	EXPECT_RET(nvmap_alloc(LEN, O_RDWR | O_APPEND, 0), -EINVAL);
	EXPECT_RET(nvmap_alloc(LEN, O_RDWR, 1), -EINVAL);
	EXPECT_RET(nvmap_alloc(0, O_RDWR, 0), -EINVAL);
	heap = open(NVMAP_HEAP, O_RDONLY | O_CLOEXEC);
	FAIL_IF(heap < 0, "open: %s", strerror(errno));
	data.fd = 7;
	EXPECT_RET(axl_ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &data), -EINVAL);
	EXPECT_RET(axl_ioctl(heap, _IOWR('H', 0x7, struct dma_heap_allocation_data), &data),
		   -ENOTTY);
	close(heap);
	return KSFT_PASS;
}

/* Poll until iommu_unmaps reaches @want (releases may finish after close). */
static bool unmaps_reach(long long want, int timeout_ms)
{
	for (int t = 0; t < timeout_ms; t += 20) {
		if (nvmap_stat("iommu_unmaps") >= want)
			return true;
		usleep(20000);
	}
	return nvmap_stat("iommu_unmaps") >= want;
}

/*
 * axl's device imports one buffer twice (two attachments, two maps) and vgem
 * once: the first map per device is the real one, the second axl map returns
 * the same IOVA, no unmap happens before the buffer's release, and the
 * release unmaps once per device.
 */
static int test_stash(void)
{
	struct axl_import_fd a, b;
	struct t_drm_prime_handle prime = { 0 };
	struct t_drm_gem_close gc = { 0 };
	long long maps0, unmaps0, maps, unmaps;
	int dev, buf, vgem, devices = 1;

	dev = axl_open_dev();
	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	buf = nvmap_alloc(LEN, O_RDWR | O_CLOEXEC, 0);
	FAIL_IF(buf < 0, "alloc: %s", axl_errname(buf));
	maps0 = nvmap_stat("iommu_maps");
	unmaps0 = nvmap_stat("iommu_unmaps");
	FAIL_IF(maps0 < 0 || unmaps0 < 0, "no " NVMAP_DEBUGFS " counters");

	EXPECT_RET(axl_import(dev, buf, W, H, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &a), 0);
	EXPECT_RET(axl_import(dev, buf, W, H, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &b), 0);
	FAIL_IF(a.handle == b.handle, "one handle for two imports");
	FAIL_IF(a.iova_base != b.iova_base, "two IOVAs 0x%llx and 0x%llx: mapped twice",
		(unsigned long long)a.iova_base, (unsigned long long)b.iova_base);
	vgem = axl_vgem_open();
	if (vgem >= 0) {
		prime.fd = buf;
		EXPECT_RET(axl_ioctl(vgem, T_DRM_IOCTL_PRIME_FD_TO_HANDLE, &prime), 0);
		devices++;
	} else {
		tap_diag("no vgem (%s): one device only", axl_errname(vgem));
	}
	maps = nvmap_stat("iommu_maps") - maps0;
	tap_diag("%d device(s), %d maps: %lld dma_map_sgtable() call(s), IOVA 0x%llx",
		 devices, devices + 1, maps, (unsigned long long)a.iova_base);
	FAIL_IF(maps != devices, "%lld real maps for %d devices", maps, devices);

	EXPECT_RET(axl_release(dev, a.handle), 0);
	EXPECT_RET(axl_release(dev, b.handle), 0);
	if (vgem >= 0) {
		gc.handle = prime.handle;
		EXPECT_RET(axl_ioctl(vgem, T_DRM_IOCTL_GEM_CLOSE, &gc), 0);
		close(vgem);
	}
	unmaps = nvmap_stat("iommu_unmaps") - unmaps0;
	FAIL_IF(unmaps, "%lld unmap(s) after detach, before the release", unmaps);
	close(buf);
	FAIL_IF(!unmaps_reach(unmaps0 + devices, 2000), "release unmapped %lld time(s), not %d",
		nvmap_stat("iommu_unmaps") - unmaps0, devices);
	close(dev);
	return KSFT_PASS;
}

/* Every nvmap event a job's life fires, in nvmap's format. */
static int test_events(void)
{
	static const char *const events[] = { "nvmap", NULL };
	struct axl_import_fd imp;
	struct axl_submit sub;
	struct axl_info info;
	char inst[64], dev_eq[80];
	int dev, buf, res, ret;
	uint8_t *p;
	char *text;

	dev = axl_open_dev();
	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	EXPECT_RET(axl_info(dev, &info), 0);
	snprintf(inst, sizeof(inst), "nvmap_sim_%d", getpid());
	ret = trace_instance_create(inst, events);
	FAIL_IF(ret, "tracefs instance with events/nvmap: %s", axl_errname(ret));

	buf = nvmap_alloc(LEN, O_RDWR | O_CLOEXEC, 0);
	FAIL_IF(buf < 0, "alloc: %s", axl_errname(buf));
	p = buf_map(buf, LEN);
	FAIL_IF(!p, "mmap: %s", strerror(errno));
	EXPECT_RET(buf_sync(buf, true, true), 0);
	memset(p, 7, LEN);
	EXPECT_RET(buf_sync(buf, false, true), 0);
	res = heap_alloc(4096);
	FAIL_IF(res < 0, "result alloc: %s", axl_errname(res));
	EXPECT_RET(axl_import(dev, buf, W, H, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &imp), 0);
	EXPECT_RET(axl_submit(dev, imp.handle, res, 0, &sub), 0);
	FAIL_IF(fence_wait(sub.fence_fd, 10000), "the job did not finish in 10 s");
	close(sub.fence_fd);
	EXPECT_RET(axl_release(dev, imp.handle), 0);
	munmap(p, LEN);
	close(buf);
	close(res);
	close(dev);
	usleep(100000);

	text = trace_instance_read(inst);
	trace_instance_remove(inst);
	FAIL_IF(!text, "cannot read the instance's trace");
	snprintf(dev_eq, sizeof(dev_eq), ", device=%s", info.device);
	{
		const struct {
			const char *event, *text;
			int min;
		} want[] = {
			{ "nvmap_make_dmabuf: ", "cli=nvmap-sim handle=", 1 },
			{ "nvmap_dmabuf_mmap: ", "dmabuf=", 1 },
			{ "nvmap_dmabuf_begin_cpu_access: ", ", start=0 len=65536", 2 },
			{ "nvmap_dmabuf_end_cpu_access: ", ", start=0 len=65536", 2 },
			{ "nvmap_dmabuf_attach: ", dev_eq, 1 },
			{ "nvmap_dmabuf_map_dma_buf: ", dev_eq, 1 },
			{ "nvmap_dmabuf_vmap: ", "dmabuf=", 1 },
			{ "nvmap_dmabuf_vunmap: ", "dmabuf=", 1 },
			{ "nvmap_dmabuf_unmap_dma_buf: ", dev_eq, 1 },
			{ "nvmap_dmabuf_detach: ", dev_eq, 1 },
			{ "nvmap_dmabuf_release: ", "cli=nvmap-sim handle=", 1 },
		};

		for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
			int n = count_lines(text, want[i].event, want[i].text);

			if (n < want[i].min) {
				tap_diag("trace:\n%s", text);
				free(text);
			}
			FAIL_IF(n < want[i].min, "%d line(s) '%s...%s', want %d", n,
				want[i].event, want[i].text, want[i].min);
		}
	}
	free(text);
	return KSFT_PASS;
}

/* Each event's fields and print format, as nvmap's header declares them. */
static int test_formats(void)
{
	static const struct {
		const char *event, *fields[3], *fmt;
	} want[] = {
#define DEV_EVENT(e) { e, { "field:struct dma_buf * dbuf;", "field:__data_loc char[] name;" }, \
		       "print fmt: \"dmabuf=%p, device=%s\", REC->dbuf, __get_str(name)" }
#define BUF_EVENT(e) { e, { "field:struct dma_buf * dbuf;" }, "print fmt: \"dmabuf=%p\", REC->dbuf" }
#define CPU_EVENT(e) { e, { "field:struct dma_buf * dbuf;", "field:size_t start;", \
			    "field:size_t len;" }, \
		       "print fmt: \"dmabuf=%p, start=%zd len=%zd\", REC->dbuf, REC->start, REC->len" }
#define MAKE_EVENT(e) { e, { "field:const char * cli;", "field:struct nvmap_handle * h;", \
			     "field:struct dma_buf * dbuf;" }, \
			"print fmt: \"cli=%s handle=%p dmabuf=%p\", REC->cli, REC->h, REC->dbuf" }
		DEV_EVENT("nvmap_dmabuf_attach"), DEV_EVENT("nvmap_dmabuf_detach"),
		DEV_EVENT("nvmap_dmabuf_map_dma_buf"), DEV_EVENT("nvmap_dmabuf_unmap_dma_buf"),
		BUF_EVENT("nvmap_dmabuf_mmap"), BUF_EVENT("nvmap_dmabuf_vmap"),
		BUF_EVENT("nvmap_dmabuf_vunmap"),
		CPU_EVENT("nvmap_dmabuf_begin_cpu_access"), CPU_EVENT("nvmap_dmabuf_end_cpu_access"),
		MAKE_EVENT("nvmap_make_dmabuf"), MAKE_EVENT("nvmap_dmabuf_release"),
	};
	char path[256], buf[4096];

	for (size_t i = 0; i < ARRAY_SIZE(want); i++) {
		ssize_t n;
		int fd;

		snprintf(path, sizeof(path), "/sys/kernel/tracing/events/nvmap/%s/format",
			 want[i].event);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		FAIL_IF(fd < 0, "%s: %s", path, strerror(errno));
		n = read(fd, buf, sizeof(buf) - 1);
		close(fd);
		FAIL_IF(n <= 0, "%s: empty", path);
		buf[n] = 0;
		for (size_t f = 0; f < ARRAY_SIZE(want[i].fields) && want[i].fields[f]; f++)
			FAIL_IF(!strstr(buf, want[i].fields[f]), "%s lacks '%s':\n%s",
				want[i].event, want[i].fields[f], buf);
		FAIL_IF(!strstr(buf, want[i].fmt), "%s lacks '%s':\n%s", want[i].event,
			want[i].fmt, buf);
	}
	return KSFT_PASS;
}

int main(void)
{
	static const struct axl_case cases[] = {
		{ "nvmap-sim allocates through the dma-heap uapi and exports nvmap_dmabuf", test_uapi },
		{ "two maps by one device are one IOMMU map, unmapped at release", test_stash },
		{ "nvmap events fire with nvmap's text", test_events },
		{ "nvmap events have nvmap's fields and print formats", test_formats },
	};
	int ret;

	if (access(NVMAP_HEAP, F_OK)) {
		if (getenv("AXL_EXPECT_NVMAP_SIM")) {
			printf("TAP version 13\n1..1\nnot ok 1 %s absent, but the rig loads nvmap_sim.ko\n",
			       NVMAP_HEAP);
			return KSFT_FAIL;
		}
		printf("TAP version 13\n1..0 # SKIP %s absent (load tests/rig/nvmap_sim)\n",
		       NVMAP_HEAP);
		return KSFT_SKIP;
	}
	ret = tap_skip_unless_importable("debugfs and tracefs");
	if (ret)
		return ret;
	return tap_run(cases, ARRAY_SIZE(cases));
}
