// SPDX-License-Identifier: GPL-2.0
/*
 * axl_import_v2: AXL_IOCTL_IMPORT_FD2 (per-plane offset and pitch, format
 * modifier) against the real driver, kselftest-style.
 *
 * Layouts as producers make them: an NvBufSurface-shaped NV12 1920x1080
 * (pitch 2048, chroma at 2048 * 1088), a V4L2 multi-planar-like NV12 (a
 * data offset, the chroma plane page-aligned), YUYV at an offset. The
 * engine's CRC and statistics must match what this program computes from
 * the same layout. Then the exact-size rule shared with AXL_IOCTL_IMPORT_FD
 * (a buffer may end with the last line's payload), and every invalid field
 * with its errno.
 *
 * Needs root. Skips (exit 4) when /dev/axl is absent or the driver does not
 * advertise AXL_CAP_IMPORT_PLANES.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "axl_util.h"

#define PAGE 4096u
#define WAIT_MS 10000

/* A frame described plane by plane, in a buffer of @len bytes. */
struct pframe {
	uint32_t pixfmt, width, height, nplanes, line_bytes;
	uint64_t offset[AXL_MAX_PLANES];
	uint32_t pitch[AXL_MAX_PLANES];
	uint32_t lines[AXL_MAX_PLANES];
	size_t len;
	int fd;
	uint8_t *map;
};

static size_t page_align(size_t n)
{
	return (n + PAGE - 1) & ~(size_t)(PAGE - 1);
}

/* Lines and line bytes from the uapi header's description of the formats. */
static void pframe_format(struct pframe *f, uint32_t pixfmt, uint32_t w, uint32_t h)
{
	memset(f, 0, sizeof(*f));
	f->fd = -1;
	f->pixfmt = pixfmt;
	f->width = w;
	f->height = h;
	f->nplanes = pixfmt == AXL_PIXFMT_NV12 ? 2 : 1;
	f->line_bytes = pixfmt == AXL_PIXFMT_YUYV ? 2 * w : w;
	f->lines[0] = h;
	f->lines[1] = pixfmt == AXL_PIXFMT_NV12 ? h / 2 : 0;
}

/* Where the frame ends: the last byte of the last plane's last line, plus one. */
static size_t pframe_end(const struct pframe *f)
{
	uint32_t p = f->nplanes - 1;

	return f->offset[p] + (size_t)f->pitch[p] * (f->lines[p] - 1) + f->line_bytes;
}

/* Random bytes everywhere (padding and gaps too), luma squeezed into a range. */
static int pframe_alloc(struct pframe *f, size_t len, uint64_t seed)
{
	uint64_t st = seed;
	unsigned int lo = 10 + seed % 30, hi = 220 + seed % 30;
	uint32_t step = f->pixfmt == AXL_PIXFMT_YUYV ? 2 : 1;

	f->len = len;
	f->fd = heap_alloc(len);
	if (f->fd < 0)
		return f->fd;
	f->map = buf_map(f->fd, len);
	if (!f->map)
		return -errno;
	buf_sync(f->fd, true, true);
	for (size_t i = 0; i < len; i += 8) {
		uint64_t r = prng_next(&st);

		for (size_t k = 0; k < 8 && i + k < len; k++)
			f->map[i + k] = (uint8_t)(r >> (8 * k));
	}
	for (uint32_t l = 0; l < f->lines[0]; l++) {
		uint8_t *line = f->map + f->offset[0] + (size_t)l * f->pitch[0];

		for (uint32_t x = 0; x < f->line_bytes; x += step)
			line[x] = (uint8_t)(lo + line[x] % (hi - lo + 1));
	}
	return buf_sync(f->fd, false, true);
}

static void pframe_free(struct pframe *f)
{
	buf_unmap_close(&f->map, f->len, &f->fd);
}

/* What metis-sim computes, from the plane layout alone. */
static void pframe_reference(const struct pframe *f, struct axl_result *ref)
{
	memset(ref, 0, sizeof(*ref));
	planes_reference(f->pixfmt, f->line_bytes, f->nplanes, f->offset, f->pitch, f->lines,
			 f->map, ref);
}

static struct axl_import_fd2 pframe_req(const struct pframe *f)
{
	struct axl_import_fd2 req = {
		.fd = f->fd,
		.flags = AXL_IMPORT_TO_DEVICE,
		.width = f->width,
		.height = f->height,
		.pixfmt = f->pixfmt,
		.nplanes = f->nplanes,
		.modifier = AXL_FORMAT_MOD_LINEAR,
	};

	for (uint32_t p = 0; p < f->nplanes; p++) {
		req.planes[p].offset = f->offset[p];
		req.planes[p].pitch = f->pitch[p];
	}
	return req;
}

static int import2(int dev, struct axl_import_fd2 *req)
{
	return axl_ioctl(dev, AXL_IOCTL_IMPORT_FD2, req);
}

/* Import @f with IMPORT_FD2, run it through the engine, compare with the reference. */
static int run_and_check(const struct pframe *f)
{
	struct axl_import_fd2 req = pframe_req(f);
	struct axl_result ref, r;
	struct axl_submit sub;
	int dev = axl_open_dev(), res = heap_alloc(PAGE), ret;

	FAIL_IF(dev < 0 || res < 0, "open %d, result buffer %d", dev, res);
	EXPECT_RET(import2(dev, &req), 0);
	FAIL_IF(!req.handle, "no handle");
	FAIL_IF(req.size != f->len, "size %llu, buffer %zu", (unsigned long long)req.size, f->len);
	FAIL_IF(req.inode != (uint64_t)fd_inode(f->fd), "inode %llu", (unsigned long long)req.inode);
	FAIL_IF(!req.nents, "no scatterlist entries");
	EXPECT_RET(axl_submit(dev, req.handle, res, 0, &sub), 0);
	ret = fence_wait(sub.fence_fd, WAIT_MS);
	EXPECT_RET(ret, 0);
	EXPECT_RET(result_read(res, &r), 0);
	pframe_reference(f, &ref);
	FAIL_IF(r.magic != AXL_RESULT_MAGIC || r.status, "magic 0x%08x status %d", r.magic, r.status);
	FAIL_IF(r.pixfmt != f->pixfmt || r.width != f->width || r.height != f->height,
		"geometry %08x %ux%u", r.pixfmt, r.width, r.height);
	FAIL_IF(r.crc32 != ref.crc32, "crc32 0x%08x, reference 0x%08x", r.crc32, ref.crc32);
	FAIL_IF(r.luma_min != ref.luma_min || r.luma_max != ref.luma_max ||
		r.luma_sum != ref.luma_sum, "luma %u/%u/%llu, reference %u/%u/%llu",
		r.luma_min, r.luma_max, (unsigned long long)r.luma_sum, ref.luma_min,
		ref.luma_max, (unsigned long long)ref.luma_sum);
	FAIL_IF(memcmp(r.histogram, ref.histogram, sizeof(r.histogram)), "histogram differs");
	close(sub.fence_fd);
	EXPECT_RET(axl_release(dev, req.handle), 0);
	close(res);
	close(dev);
	return KSFT_PASS;
}

static int case_caps(void)
{
	struct axl_info info;
	int dev = axl_open_dev();

	FAIL_IF(dev < 0, "open: %s", axl_errname(dev));
	EXPECT_RET(axl_info(dev, &info), 0);
	FAIL_IF(!(info.caps & AXL_CAP_IMPORT_PLANES), "caps 0x%x lack AXL_CAP_IMPORT_PLANES",
		info.caps);
	FAIL_IF(info.abi_version != AXL_ABI_VERSION, "abi %u", info.abi_version);
	close(dev);
	return KSFT_PASS;
}

/* NvBufSurface NV12 1080p: pitch 2048, luma padded to 1088 lines. */
static int case_nvbufsurface(void)
{
	struct pframe f;
	int ret;

	pframe_format(&f, AXL_PIXFMT_NV12, 1920, 1080);
	f.pitch[0] = f.pitch[1] = 2048;
	f.offset[1] = 2048ull * 1088;
	EXPECT_RET(pframe_alloc(&f, page_align(2048ull * 1088 * 3 / 2), 11), 0);
	ret = run_and_check(&f);
	pframe_free(&f);
	return ret;
}

/* V4L2 multi-planar-like: a data offset, the chroma plane on its own page, other pitches. */
static int case_v4l2_mplane(void)
{
	struct pframe f;
	int ret;

	pframe_format(&f, AXL_PIXFMT_NV12, 640, 480);
	f.offset[0] = 256;
	f.pitch[0] = 640;
	f.offset[1] = page_align(256 + 640 * 480);
	f.pitch[1] = 768;
	EXPECT_RET(pframe_alloc(&f, page_align(pframe_end(&f)), 12), 0);
	ret = run_and_check(&f);
	pframe_free(&f);
	return ret;
}

static int case_yuyv_offset(void)
{
	struct pframe f;
	int ret;

	pframe_format(&f, AXL_PIXFMT_YUYV, 320, 240);
	f.offset[0] = 4096 + 64;
	f.pitch[0] = 704;
	EXPECT_RET(pframe_alloc(&f, page_align(pframe_end(&f)), 13), 0);
	ret = run_and_check(&f);
	pframe_free(&f);
	return ret;
}

/*
 * A buffer that ends with the last line's payload is large enough, for both
 * import ioctls; one byte more is not. GREY 1024x5, pitch 1792:
 * 4 * 1792 + 1024 = 8192 bytes, two pages.
 */
static int case_exact_size(void)
{
	struct pframe f, nv;
	struct axl_import_fd v1;
	struct axl_import_fd2 req;
	int dev = axl_open_dev(), ret;

	FAIL_IF(dev < 0, "open");
	pframe_format(&f, AXL_PIXFMT_GREY, 1024, 5);
	f.pitch[0] = 1792;
	FAIL_IF(pframe_end(&f) != 2 * PAGE, "end %zu", pframe_end(&f));
	EXPECT_RET(pframe_alloc(&f, 2 * PAGE, 14), 0);

	EXPECT_RET(axl_import(dev, f.fd, 1024, 5, AXL_PIXFMT_GREY, 1792, AXL_IMPORT_TO_DEVICE, &v1), 0);
	EXPECT_RET(axl_release(dev, v1.handle), 0);
	EXPECT_RET(axl_import(dev, f.fd, 1024, 6, AXL_PIXFMT_GREY, 1792, AXL_IMPORT_TO_DEVICE, NULL),
		   -EINVAL);
	EXPECT_RET(axl_import(dev, f.fd, 1025, 5, AXL_PIXFMT_GREY, 1792, AXL_IMPORT_TO_DEVICE, NULL),
		   -EINVAL);
	req = pframe_req(&f);
	EXPECT_RET(import2(dev, &req), 0);
	EXPECT_RET(axl_release(dev, req.handle), 0);
	req = pframe_req(&f);
	req.planes[0].offset = 1;
	EXPECT_RET(import2(dev, &req), -EINVAL);
	ret = run_and_check(&f);
	pframe_free(&f);
	if (ret != KSFT_PASS)
		return ret;

	/* NV12 1024x4 pitch 1280, chroma placed to end exactly at 8192 */
	pframe_format(&nv, AXL_PIXFMT_NV12, 1024, 4);
	nv.pitch[0] = nv.pitch[1] = 1280;
	nv.offset[1] = 2 * PAGE - (1280 + 1024);
	EXPECT_RET(pframe_alloc(&nv, 2 * PAGE, 15), 0);
	req = pframe_req(&nv);
	req.planes[1].offset += 1;
	EXPECT_RET(import2(dev, &req), -EINVAL);
	ret = run_and_check(&nv);
	pframe_free(&nv);
	close(dev);
	return ret;
}

/* A valid NV12 640x480 request (pitch 640, chroma right after luma), then one field changed. */
#define NV12_REQ(...) { .flags = AXL_IMPORT_TO_DEVICE, .width = 640, .height = 480, \
			.pixfmt = AXL_PIXFMT_NV12, .nplanes = 2,                    \
			.planes = { { 0, 640, 0 }, { 640 * 480, 640, 0 } }, __VA_ARGS__ }

static const struct {
	const char *what;
	struct axl_import_fd2 req;
	int err;
} bad_imports[] = {
	{ "no direction", NV12_REQ(.flags = 0), -EINVAL },
	{ "two directions", NV12_REQ(.flags = 3), -EINVAL },
	{ "unknown flag", NV12_REQ(.flags = AXL_IMPORT_TO_DEVICE | 8), -EINVAL },
	{ "pad", NV12_REQ(.pad = 1), -EINVAL },
	{ "reserved[0]", NV12_REQ(.reserved = { 1 }), -EINVAL },
	{ "reserved[3]", NV12_REQ(.reserved = { 0, 0, 0, 1ull << 63 }), -EINVAL },
	{ "unknown pixfmt", NV12_REQ(.pixfmt = 0x12345678), -EINVAL },
	{ "zero width", NV12_REQ(.width = 0), -EINVAL },
	{ "zero height", NV12_REQ(.height = 0), -EINVAL },
	{ "odd NV12 width", NV12_REQ(.width = 639), -EINVAL },
	{ "odd NV12 height", NV12_REQ(.height = 479), -EINVAL },
	{ "width*height over the limit", NV12_REQ(.width = 1u << 16, .height = 1u << 16), -EINVAL },
	{ "no planes", NV12_REQ(.nplanes = 0), -EINVAL },
	{ "one plane for NV12", NV12_REQ(.nplanes = 1, .planes = { { 0, 640, 0 } }), -EINVAL },
	{ "three planes for NV12", NV12_REQ(.nplanes = 3, .planes = { { 0, 640, 0 },
		{ 640 * 480, 640, 0 }, { 640 * 720, 640, 0 } }), -EINVAL },
	{ "nplanes over AXL_MAX_PLANES", NV12_REQ(.nplanes = AXL_MAX_PLANES + 1), -EINVAL },
	{ "two planes for GREY", NV12_REQ(.pixfmt = AXL_PIXFMT_GREY), -EINVAL },
	{ "unused plane offset", NV12_REQ(.planes = { { 0, 640, 0 }, { 640 * 480, 640, 0 },
		{ 1, 0, 0 } }), -EINVAL },
	{ "unused plane pitch", NV12_REQ(.planes = { { 0, 640, 0 }, { 640 * 480, 640, 0 },
		{ 0, 0, 0 }, { 0, 640, 0 } }), -EINVAL },
	{ "unused plane reserved", NV12_REQ(.planes = { { 0, 640, 0 }, { 640 * 480, 640, 0 },
		{ 0, 0, 1 } }), -EINVAL },
	{ "plane reserved", NV12_REQ(.planes = { { 0, 640, 1 }, { 640 * 480, 640, 0 } }), -EINVAL },
	{ "zero pitch", NV12_REQ(.planes = { { 0, 0, 0 }, { 640 * 480, 640, 0 } }), -EINVAL },
	{ "pitch below the line", NV12_REQ(.planes = { { 0, 639, 0 }, { 640 * 480, 640, 0 } }),
	  -EINVAL },
	{ "chroma pitch below the line", NV12_REQ(.planes = { { 0, 640, 0 },
		{ 640 * 480, 639, 0 } }), -EINVAL },
	{ "chroma overlapping luma", NV12_REQ(.planes = { { 0, 640, 0 },
		{ 640 * 480 - 1, 640, 0 } }), -EINVAL },
	{ "planes in descending order", NV12_REQ(.planes = { { 640 * 240, 640, 0 },
		{ 0, 640, 0 } }), -EINVAL },
	{ "chroma past the buffer", NV12_REQ(.planes = { { 0, 640, 0 },
		{ 640 * 480 * 2, 640, 0 } }), -EINVAL },
	{ "luma past the buffer", NV12_REQ(.planes = { { 0, 4096, 0 }, { 4096 * 480, 640, 0 } }),
	  -EINVAL },
	{ "offset that overflows", NV12_REQ(.planes = { { 0, 640, 0 },
		{ ~0ull - 1000, 640, 0 } }), -EINVAL },
	{ "luma offset that overflows", NV12_REQ(.planes = { { ~0ull - 100, 640, 0 },
		{ ~0ull - 10, 640, 0 } }), -EINVAL },
	{ "maximum pitch", NV12_REQ(.planes = { { 0, ~0u, 0 }, { ~0ull >> 1, ~0u, 0 } }), -EINVAL },
	{ "block-linear modifier", NV12_REQ(.modifier = 0x0300000000000014ull), -EOPNOTSUPP },
	{ "DRM_FORMAT_MOD_INVALID", NV12_REQ(.modifier = 0x00ffffffffffffffull), -EOPNOTSUPP },
	{ "modifier top bit", NV12_REQ(.modifier = 1ull << 63), -EOPNOTSUPP },
	{ "modifier with a bad plane count", NV12_REQ(.modifier = 1, .nplanes = 1,
		.planes = { { 0, 640, 0 } }), -EINVAL },
};

static int case_bad_args(void)
{
	struct pframe f;
	struct axl_import_fd2 req;
	long long imported0 = axl_stat("imported");
	int dev = axl_open_dev(), null;

	FAIL_IF(dev < 0, "open");
	pframe_format(&f, AXL_PIXFMT_NV12, 640, 480);
	f.pitch[0] = f.pitch[1] = 640;
	f.offset[1] = 640 * 480;
	EXPECT_RET(pframe_alloc(&f, page_align(pframe_end(&f)), 16), 0);

	for (size_t i = 0; i < ARRAY_SIZE(bad_imports); i++) {
		int ret;

		req = bad_imports[i].req;
		req.fd = f.fd;
		ret = import2(dev, &req);
		if (ret != bad_imports[i].err) {
			tap_diag("import with %s: %d (%s), expected %d (%s)", bad_imports[i].what,
				 ret, axl_errname(ret), bad_imports[i].err,
				 axl_errname(bad_imports[i].err));
			return KSFT_FAIL;
		}
	}
	FAIL_IF(axl_stat("imported") != imported0, "a bad import was counted");

	/* fds: not a dma-buf, closed */
	null = open("/dev/null", O_RDONLY);
	req = (struct axl_import_fd2)NV12_REQ(.fd = null);
	EXPECT_RET(import2(dev, &req), -EINVAL);
	close(null);
	req = (struct axl_import_fd2)NV12_REQ(.fd = null);
	EXPECT_RET(import2(dev, &req), -EBADF);
	/* and the base request is good */
	req = (struct axl_import_fd2)NV12_REQ(.fd = f.fd);
	EXPECT_RET(import2(dev, &req), 0);
	EXPECT_RET(axl_release(dev, req.handle), 0);
	/* a bad pointer */
	EXPECT_RET(axl_ioctl(dev, AXL_IOCTL_IMPORT_FD2, (void *)8), -EFAULT);
	pframe_free(&f);
	close(dev);
	FAIL_IF(!axl_stats_settle(0, 0, 0, 0, 3000), "driver state left behind");
	return KSFT_PASS;
}

/* Handles of both ioctls live in one table and are released the same way. */
static int case_mixed_handles(void)
{
	struct pframe f;
	struct axl_import_fd v1;
	struct axl_import_fd2 req;
	int dev = axl_open_dev();

	FAIL_IF(dev < 0, "open");
	pframe_format(&f, AXL_PIXFMT_GREY, 64, 64);
	f.pitch[0] = 64;
	EXPECT_RET(pframe_alloc(&f, PAGE, 17), 0);
	EXPECT_RET(axl_import(dev, f.fd, 64, 64, AXL_PIXFMT_GREY, 0, AXL_IMPORT_TO_DEVICE, &v1), 0);
	req = pframe_req(&f);
	EXPECT_RET(import2(dev, &req), 0);
	FAIL_IF(req.handle == v1.handle, "handle %u twice", req.handle);
	FAIL_IF(req.inode != v1.inode, "inode %llu vs %llu", (unsigned long long)req.inode,
		(unsigned long long)v1.inode);
	FAIL_IF(axl_stat("imports") != 2, "imports %lld", axl_stat("imports"));
	EXPECT_RET(axl_release(dev, req.handle), 0);
	EXPECT_RET(axl_release(dev, req.handle), -ENOENT);
	close(dev); /* v1's handle goes with the file */
	pframe_free(&f);
	FAIL_IF(!axl_stats_settle(0, 0, 0, 0, 3000), "driver state left behind");
	return KSFT_PASS;
}

static const struct axl_case cases[] = {
	{ "GET_INFO advertises AXL_CAP_IMPORT_PLANES", case_caps },
	{ "NvBufSurface NV12 1920x1080 pitch 2048: engine result matches the reference",
	  case_nvbufsurface },
	{ "V4L2 multi-planar-like NV12: engine result matches the reference", case_v4l2_mplane },
	{ "YUYV at an offset with a wide pitch: engine result matches the reference",
	  case_yuyv_offset },
	{ "a buffer ending with the last line's payload is accepted by both imports",
	  case_exact_size },
	{ "invalid fields, planes and modifiers fail with the documented errno", case_bad_args },
	{ "handles of both import ioctls share one table", case_mixed_handles },
};

int main(void)
{
	int skip = tap_skip_unless_importable("debugfs counters");
	struct axl_info info;
	int dev;

	if (skip)
		return skip;
	dev = axl_open_dev();
	if (dev < 0 || axl_info(dev, &info) || !(info.caps & AXL_CAP_IMPORT_PLANES)) {
		printf("TAP version 13\n1..0 # SKIP the driver has no AXL_IOCTL_IMPORT_FD2\n");
		return KSFT_SKIP;
	}
	close(dev);
	return tap_run(cases, ARRAY_SIZE(cases));
}
