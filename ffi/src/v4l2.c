// SPDX-License-Identifier: MIT
/*
 * V4L2 single-planar video capture with V4L2_MEMORY_DMABUF: the camera
 * writes straight into dma-bufs the caller allocated from a DMA heap.
 */
#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/ioctl.h>
#include <linux/videodev2.h>

#include "axl_shim.h"
#include "shim_private.h"

/* caps[0] = device_caps (or capabilities), strings: "driver\0card\0bus_info\0". */
int32_t axl_shim_v4l2_querycap(int32_t fd, uint32_t *caps, char *strings, uint64_t strings_len)
{
	struct v4l2_capability cap;
	int ret;

	if (!caps)
		return -EINVAL;
	memset(&cap, 0, sizeof(cap));
	ret = axl_xioctl(fd, VIDIOC_QUERYCAP, &cap);
	if (ret < 0)
		return ret;
	caps[0] = cap.capabilities & V4L2_CAP_DEVICE_CAPS ? cap.device_caps : cap.capabilities;
	if (strings && strings_len)
		snprintf(strings, strings_len, "%.*s%c%.*s%c%.*s",
			 (int)sizeof(cap.driver), (const char *)cap.driver, 0,
			 (int)sizeof(cap.card), (const char *)cap.card, 0,
			 (int)sizeof(cap.bus_info), (const char *)cap.bus_info);
	return 0;
}

/*
 * VIDIOC_S_FMT for capture. The driver may adjust the request:
 * out: [0] width [1] height [2] pixelformat [3] bytesperline [4] sizeimage.
 */
int32_t axl_shim_v4l2_set_format(int32_t fd, uint32_t width, uint32_t height, uint32_t fourcc,
				 uint32_t *out)
{
	struct v4l2_format fmt;
	int ret;

	if (!out)
		return -EINVAL;
	memset(&fmt, 0, sizeof(fmt));
	fmt.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	fmt.fmt.pix.width = width;
	fmt.fmt.pix.height = height;
	fmt.fmt.pix.pixelformat = fourcc;
	fmt.fmt.pix.field = V4L2_FIELD_NONE;
	ret = axl_xioctl(fd, VIDIOC_S_FMT, &fmt);
	if (ret < 0)
		return ret;
	out[0] = fmt.fmt.pix.width;
	out[1] = fmt.fmt.pix.height;
	out[2] = fmt.fmt.pix.pixelformat;
	out[3] = fmt.fmt.pix.bytesperline;
	out[4] = fmt.fmt.pix.sizeimage;
	return 0;
}

/*
 * VIDIOC_S_PARM for capture: asks for num/den seconds per frame; the driver
 * settles on the nearest interval it has (vivid's webcam input: 1/60 s at most).
 * out: [0] numerator [1] denominator granted, [2] 1 when the driver honours
 * timeperframe (V4L2_CAP_TIMEPERFRAME), 0 when it kept its own pace.
 */
int32_t axl_shim_v4l2_set_interval(int32_t fd, uint32_t num, uint32_t den, uint32_t *out)
{
	struct v4l2_streamparm parm;
	int ret;

	if (!out || !num || !den)
		return -EINVAL;
	memset(&parm, 0, sizeof(parm));
	parm.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	parm.parm.capture.timeperframe.numerator = num;
	parm.parm.capture.timeperframe.denominator = den;
	ret = axl_xioctl(fd, VIDIOC_S_PARM, &parm);
	if (ret < 0)
		return ret;
	out[0] = parm.parm.capture.timeperframe.numerator;
	out[1] = parm.parm.capture.timeperframe.denominator;
	out[2] = !!(parm.parm.capture.capability & V4L2_CAP_TIMEPERFRAME);
	return 0;
}

/* VIDIOC_REQBUFS with DMABUF memory; returns the count granted (0 frees). */
int32_t axl_shim_v4l2_reqbufs(int32_t fd, uint32_t count)
{
	struct v4l2_requestbuffers req = {
		.count = count,
		.type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
		.memory = V4L2_MEMORY_DMABUF,
	};
	int ret = axl_xioctl(fd, VIDIOC_REQBUFS, &req);

	return ret < 0 ? ret : (int32_t)req.count;
}

int32_t axl_shim_v4l2_qbuf(int32_t fd, uint32_t index, int32_t dmabuf_fd, uint32_t length)
{
	struct v4l2_buffer buf;

	memset(&buf, 0, sizeof(buf));
	buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	buf.memory = V4L2_MEMORY_DMABUF;
	buf.index = index;
	buf.m.fd = dmabuf_fd;
	buf.length = length;
	return axl_xioctl(fd, VIDIOC_QBUF, &buf);
}

/*
 * out: [0] index [1] bytesused [2] sequence [3] timestamp in ns [4] flags.
 * -EAGAIN when the fd is non-blocking and no frame is ready.
 */
int32_t axl_shim_v4l2_dqbuf(int32_t fd, uint64_t *out)
{
	struct v4l2_buffer buf;
	int ret;

	if (!out)
		return -EINVAL;
	memset(&buf, 0, sizeof(buf));
	buf.type = V4L2_BUF_TYPE_VIDEO_CAPTURE;
	buf.memory = V4L2_MEMORY_DMABUF;
	ret = axl_xioctl(fd, VIDIOC_DQBUF, &buf);
	if (ret < 0)
		return ret;
	out[0] = buf.index;
	out[1] = buf.bytesused;
	out[2] = buf.sequence;
	out[3] = (uint64_t)buf.timestamp.tv_sec * 1000000000ULL + (uint64_t)buf.timestamp.tv_usec * 1000ULL;
	out[4] = buf.flags;
	return 0;
}

int32_t axl_shim_v4l2_stream(int32_t fd, int32_t on)
{
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE;

	return axl_xioctl(fd, on ? VIDIOC_STREAMON : VIDIOC_STREAMOFF, &type);
}
