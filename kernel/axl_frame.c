// SPDX-License-Identifier: GPL-2.0
/*
 * axl: frame geometry and the computation metis-sim runs on a frame.
 *
 * The result is deterministic and cheap to recompute in user space, so a
 * test can check that the engine saw exactly the bytes that were written.
 */
#include <linux/crc32.h>
#include <linux/errno.h>
#include <linux/ktime.h>
#include <linux/minmax.h>
#include <linux/overflow.h>
#include <linux/sched.h>
#include <linux/string.h>

#include "axl_drv.h"

/* Bytes the engine handles between scheduling points; even, so YUYV luma stays aligned. */
#define AXL_CHUNK (64U * 1024)

/*
 * The format's rules: an even width (and height for NV12), the payload bytes
 * of a line, the plane count and each plane's lines. Fills everything in
 * @frame but the offsets and pitches.
 */
static int axl_frame_format(struct axl_frame *frame, u32 pixfmt, u32 width,
			    u32 height)
{
	u32 line;

	memset(frame, 0, sizeof(*frame));
	if (!width || !height || (u64)width * height > AXL_IMPORT_MAX_SAMPLES)
		return -EINVAL;

	frame->nplanes = 1;
	switch (pixfmt) {
	case AXL_PIXFMT_RAW:
	case AXL_PIXFMT_GREY:
		line = width;
		break;
	case AXL_PIXFMT_NV12:
		if ((width | height) & 1)
			return -EINVAL;
		line = width;
		frame->nplanes = 2;
		break;
	case AXL_PIXFMT_YUYV:
		if (width & 1)
			return -EINVAL;
		line = width * 2; /* width <= AXL_IMPORT_MAX_SAMPLES: no overflow */
		break;
	default:
		return -EINVAL;
	}

	frame->pixfmt = pixfmt;
	frame->width = width;
	frame->height = height;
	frame->line_bytes = line;
	frame->lines[0] = height;
	if (frame->nplanes == 2)
		frame->lines[1] = height / 2;
	return 0;
}

/*
 * End of plane @p: the last byte of its last line's payload, plus one. The
 * padding after that line is not part of the frame, so a buffer that ends
 * there is large enough. -EINVAL when a pitch is below the line's bytes or
 * the end does not fit in 64 bits.
 */
static int axl_plane_end(const struct axl_frame *frame, u32 p, u64 *end)
{
	u64 span;

	if (frame->pitch[p] < frame->line_bytes)
		return -EINVAL;
	/* (2^32 - 1)^2 + 2^32 - 1 < 2^64: only the offset can overflow */
	span = (u64)frame->pitch[p] * (frame->lines[p] - 1) + frame->line_bytes;
	if (check_add_overflow(frame->offset[p], span, end))
		return -EINVAL;
	return 0;
}

/**
 * axl_frame_init() - validate an AXL_IOCTL_IMPORT_FD frame and lay out its planes
 * @frame:  filled in on success.
 * @pixfmt: AXL_PIXFMT_*.
 * @width:  pixels per line (bytes per line for RAW), > 0.
 * @height: lines, > 0.
 * @stride: bytes per line of every plane, or 0 for packed lines.
 *
 * NV12 needs an even width and height (its chroma plane is subsampled
 * 2x2), YUYV an even width (two pixels share one macropixel). The chroma
 * plane of NV12 follows the luma plane directly and has the same stride.
 *
 * Return: 0, or -EINVAL when the description is invalid.
 */
int axl_frame_init(struct axl_frame *frame, u32 pixfmt, u32 width,
		   u32 height, u32 stride)
{
	u32 p;
	int ret;

	ret = axl_frame_format(frame, pixfmt, width, height);
	if (ret)
		return ret;
	if (!stride)
		stride = frame->line_bytes;
	else if (stride < frame->line_bytes)
		return -EINVAL;

	for (p = 0; p < frame->nplanes; p++) {
		frame->pitch[p] = stride;
		if (p)
			frame->offset[p] = frame->offset[p - 1] +
					   (u64)stride * frame->lines[p - 1];
	}
	return axl_plane_end(frame, frame->nplanes - 1, &frame->size);
}

static bool axl_plane_is_zero(const struct axl_plane *plane)
{
	return !plane->offset && !plane->pitch && !plane->reserved;
}

/**
 * axl_frame_init_planes() - validate an AXL_IOCTL_IMPORT_FD2 frame
 * @frame: filled in on success.
 * @args:  the request; only its geometry fields are read.
 *
 * The format rules are those of axl_frame_init(). Then: @args->nplanes is
 * the format's plane count, unused plane entries and every plane's reserved
 * field are zero, each pitch covers a line, and the planes are ascending
 * and disjoint (each starts at or after the end of the previous plane's last
 * line payload). Whether the frame fits in the buffer is checked against
 * @frame->size when the buffer is known.
 *
 * Return: 0; -EINVAL for a bad format, plane count or non-zero unused or
 * reserved plane fields; then -EOPNOTSUPP for a modifier other than
 * AXL_FORMAT_MOD_LINEAR (the offset and pitch rules are those of a linear
 * layout, so they are checked only for one); then -EINVAL for a bad pitch,
 * offset order or overlap.
 */
int axl_frame_init_planes(struct axl_frame *frame,
			  const struct axl_import_fd2 *args)
{
	u64 end = 0;
	u32 p;
	int ret;

	ret = axl_frame_format(frame, args->pixfmt, args->width, args->height);
	if (ret)
		return ret;
	if (args->nplanes != frame->nplanes)
		return -EINVAL;
	for (p = 0; p < AXL_MAX_PLANES; p++) {
		const struct axl_plane *plane = &args->planes[p];

		if (p >= frame->nplanes ? !axl_plane_is_zero(plane) :
					  plane->reserved != 0)
			return -EINVAL;
	}
	/* the offset/pitch rules below are those of a linear layout */
	if (args->modifier != AXL_FORMAT_MOD_LINEAR)
		return -EOPNOTSUPP;

	for (p = 0; p < frame->nplanes; p++) {
		if (args->planes[p].offset < end)
			return -EINVAL; /* out of order, or overlapping */
		frame->offset[p] = args->planes[p].offset;
		frame->pitch[p] = args->planes[p].pitch;
		ret = axl_plane_end(frame, p, &end);
		if (ret)
			return ret;
	}
	frame->size = end;
	return 0;
}

/*
 * Sum, minimum and maximum stay in locals for the line: through @res every
 * sample cost a load and a store of each (the kernel builds without strict
 * aliasing, so the histogram's stores may alias them), and on a KASAN kernel
 * a shadow check for each.
 */
static void axl_luma_line(const u8 *line, u32 len, u32 step,
			  struct axl_result *res)
{
	u32 *histogram = res->histogram;
	u32 lo = res->luma_min, hi = res->luma_max;
	u64 sum = 0;
	u32 i;

	for (i = 0; i < len; i += step) {
		u8 v = line[i];

		histogram[v]++;
		sum += v;
		lo = min_t(u32, lo, v);
		hi = max_t(u32, hi, v);
	}
	res->luma_sum += sum;
	res->luma_min = lo;
	res->luma_max = hi;
}

/**
 * axl_frame_compute() - the engine's "inference": statistics of a frame
 * @frame: validated geometry; @base must cover @frame->size bytes.
 * @base:  kernel mapping of the frame.
 * @res:   receives luma min/max/sum, the histogram and the CRC-32;
 *         the other fields are left alone.
 * @deadline: CLOCK_MONOTONIC time the job times out at.
 *
 * The CRC is zlib's crc32() over the payload of every plane in order, line
 * by line, without pitch padding; each plane is read at its own offset and
 * pitch. Luma is the first plane; for YUYV it is every even byte. The clock
 * is read after every chunk, so the work one job costs the engine is bounded
 * by its timeout (plus one chunk).
 *
 * Return: 0, or -ETIMEDOUT when @deadline passed before the end; @res is
 * then incomplete.
 */
int axl_frame_compute(const struct axl_frame *frame, const u8 *base,
		      struct axl_result *res, ktime_t deadline)
{
	u32 step = frame->pixfmt == AXL_PIXFMT_YUYV ? 2 : 1;
	u32 crc = ~0U;
	u32 p, l;

	memset(res->histogram, 0, sizeof(res->histogram));
	res->luma_sum = 0;
	res->luma_min = 255;
	res->luma_max = 0;

	for (p = 0; p < frame->nplanes; p++) {
		for (l = 0; l < frame->lines[p]; l++) {
			const u8 *line = base + frame->offset[p] +
					 (u64)l * frame->pitch[p];
			u32 off, len;

			/* in chunks: one RAW line may be the whole buffer */
			for (off = 0; off < frame->line_bytes; off += len) {
				len = min(frame->line_bytes - off, AXL_CHUNK);
				crc = crc32_le(crc, line + off, len);
				if (p == 0)
					axl_luma_line(line + off, len, step, res);
				if (!ktime_before(ktime_get(), deadline))
					return -ETIMEDOUT;
				cond_resched();
			}
		}
	}
	res->crc32 = ~crc;
	return 0;
}
