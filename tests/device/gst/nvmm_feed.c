// SPDX-License-Identifier: MIT
/*
 * Pushes NVMM-shaped buffers through a GStreamer pipeline, as a Jetson camera source does
 * (caps video/x-raw(memory:NVMM); each GstBuffer's plain memory holds an NvBufSurface whose
 * surfaceList[0].bufferDesc is a dma-buf fd), with real dma-bufs from /dev/dma_heap/system.
 * The structs are written at the offsets of ffi/src/gst/nvbufsurface_layout.h, the header
 * the axlpads tracer reads them with.
 *
 *   nvmm_feed MEMTYPE BUFFERS    e.g. nvmm_feed 4 9 (NVBUF_MEM_SURFACE_ARRAY)
 *
 * Prints "inode N" for each dma-buf, then runs appsrc ! identity ! fakesink to EOS.
 */
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/dma-heap.h>

#include <gst/app/gstappsrc.h>
#include <gst/gst.h>

#include "nvbufsurface_layout.h"

#define SURFACES 3
#define WIDTH 64
#define HEIGHT 48

static uint8_t surfaces[SURFACES][NVBUF_SURFACE_SIZE];
static uint8_t params[SURFACES][NVBUF_PARAMS_SIZE];

static int heap_alloc(size_t len)
{
	struct dma_heap_allocation_data data = { .len = len, .fd_flags = O_RDWR | O_CLOEXEC };
	int heap = open("/dev/dma_heap/system", O_RDONLY | O_CLOEXEC);

	if (heap < 0) {
		perror("nvmm_feed: open /dev/dma_heap/system");
		exit(2);
	}
	if (ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &data) < 0) {
		perror("nvmm_feed: DMA_HEAP_IOCTL_ALLOC");
		exit(2);
	}
	close(heap);
	return (int)data.fd;
}

static void put_u32(uint8_t *p, size_t off, uint32_t v)
{
	memcpy(p + off, &v, sizeof(v));
}

/* Surface i: one filled NvBufSurfaceParams of memory type mem_type, bufferDesc = fd. */
static void make_surface(int i, uint32_t mem_type, int fd)
{
	uint64_t desc = (uint64_t)fd;
	const uint8_t *list = params[i];

	put_u32(params[i], NVBUF_PARAMS_WIDTH, WIDTH);
	put_u32(params[i], NVBUF_PARAMS_HEIGHT, HEIGHT);
	put_u32(params[i], NVBUF_PARAMS_PITCH, WIDTH);
	put_u32(params[i], NVBUF_PARAMS_DATA_SIZE, WIDTH * HEIGHT * 3 / 2);
	memcpy(params[i] + NVBUF_PARAMS_BUFFER_DESC, &desc, sizeof(desc));
	put_u32(surfaces[i], NVBUF_SURFACE_BATCH_SIZE, 1);
	put_u32(surfaces[i], NVBUF_SURFACE_NUM_FILLED, 1);
	put_u32(surfaces[i], NVBUF_SURFACE_MEM_TYPE, mem_type);
	memcpy(surfaces[i] + NVBUF_SURFACE_SURFACE_LIST, &list, sizeof(list));
}

int main(int argc, char **argv)
{
	GstElement *pipeline, *src;
	GstMessage *msg;
	uint32_t mem_type;
	int i, n, fd;

	if (argc != 3) {
		fprintf(stderr, "usage: nvmm_feed MEMTYPE BUFFERS\n");
		return 2;
	}
	mem_type = (uint32_t)atoi(argv[1]);
	n = atoi(argv[2]);
	gst_init(&argc, &argv);
	for (i = 0; i < SURFACES; i++) {
		struct stat st;

		fd = heap_alloc(4096);
		fstat(fd, &st);
		printf("inode %lu\n", (unsigned long)st.st_ino);
		make_surface(i, mem_type, fd);
	}
	fflush(stdout);
	pipeline = gst_parse_launch("appsrc name=src format=time caps=\"video/x-raw(memory:NVMM),"
				    "format=NV12,width=64,height=48,framerate=30/1\" ! identity ! "
				    "fakesink", NULL);
	if (!pipeline) {
		fprintf(stderr, "nvmm_feed: the pipeline did not parse (plugins app, coreelements?)\n");
		return 2;
	}
	src = gst_bin_get_by_name(GST_BIN(pipeline), "src");
	gst_element_set_state(pipeline, GST_STATE_PLAYING);
	for (i = 0; i < n; i++) {
		GstBuffer *buf = gst_buffer_new_wrapped_full(GST_MEMORY_FLAG_READONLY,
							     surfaces[i % SURFACES],
							     NVBUF_SURFACE_SIZE, 0,
							     NVBUF_SURFACE_SIZE, NULL, NULL);

		GST_BUFFER_PTS(buf) = gst_util_uint64_scale(i, GST_SECOND, 30);
		gst_app_src_push_buffer(GST_APP_SRC(src), buf);
	}
	gst_app_src_end_of_stream(GST_APP_SRC(src));
	msg = gst_bus_timed_pop_filtered(GST_ELEMENT_BUS(pipeline), 30 * GST_SECOND,
					 GST_MESSAGE_EOS | GST_MESSAGE_ERROR);
	if (!msg || GST_MESSAGE_TYPE(msg) != GST_MESSAGE_EOS) {
		fprintf(stderr, "nvmm_feed: no EOS within 30 s\n");
		return 1;
	}
	gst_message_unref(msg);
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(src);
	gst_object_unref(pipeline);
	return 0;
}
