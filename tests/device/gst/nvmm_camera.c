// SPDX-License-Identifier: MIT
/*
 * The rig's NVMM-shaped camera, feeding an importer on the Metis node: a GStreamer pipeline
 * shaped like a Jetson camera source into an inference element, with no Jetson.
 *
 *   nvmm_camera HEAP FRAMES CAMERA METIS_NODE queue|cpuconvert
 *
 * runs  nvmmcamsrc num-buffers=FRAMES ! MIDDLE ! appsink name=importer  where
 *
 * - nvmmcamsrc (an element registered by this program) pushes caps
 *   video/x-raw(memory:NVMM),format=NV12: each GstBuffer is plain GstMemory holding an
 *   NvBufSurface (memType NVBUF_MEM_SURFACE_ARRAY, one filled surface) whose
 *   surfaceList[0].bufferDesc is a dma-buf fd allocated from /dev/dma_heap/HEAP: a Jetson
 *   camera source's shape (the buffer wraps the struct, the struct names the dma-buf). The
 *   pixels are written by a capture device, as a Jetson's VI writes into the nvmap surfaces
 *   the camera stack allocated: the POOL surfaces are queued to the V4L2 capture node CAMERA
 *   (vivid in the rig) as imported dma-bufs (V4L2_MEMORY_DMABUF), each frame is dequeued into
 *   a GstBuffer, and queued back to the device once downstream has released it.
 * - MIDDLE is `queue` (passes the camera's buffers on), or `nvmmcpuconvert` (an element
 *   registered here too): per frame it reads the camera's surface through a CPU mapping (one
 *   per surface, made when first seen) and writes a contrast-stretched copy into a surface of
 *   its own pool, a per-pixel loop, and pushes that: what a converter that writes new NVMM
 *   surfaces does.
 * - the importer, for each buffer, reads bufferDesc from its NvBufSurface and attaches that
 *   dma-buf to the Metis node, copies the frame to card memory, detaches (DMA_ATTACH, DMA_XFER,
 *   DMA_DETACH of linux/axl_metis.h).
 *
 * The structs are written at the offsets of ffi/src/gst/nvbufsurface_layout.h. Prints one
 * line `camera inode N` per camera surface, and `frames N imported M` at the end.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <linux/dma-buf.h>
#include <linux/dma-heap.h>
#include <linux/videodev2.h>
#include <linux/axl_metis.h>

#include <gst/app/gstappsink.h>
#include <gst/base/gstbasetransform.h>
#include <gst/base/gstpushsrc.h>
#include <gst/gst.h>

#include "nvbufsurface_layout.h"

#define POOL 4
/* one of vivid's webcam sizes; NV12 with no padding */
#define WIDTH 320
#define HEIGHT 180
#define FRAME_BYTES (WIDTH * HEIGHT * 3 / 2)
#define NVMM_CAPS "video/x-raw(memory:NVMM),format=NV12,width=320,height=180,framerate=30/1"

static const char *heap_name, *camera_path;

static void die(const char *what)
{
	fprintf(stderr, "nvmm_camera: %s: %s\n", what, strerror(errno));
	exit(2);
}

/* A pool of NVMM surfaces: each an NvBufSurface naming one heap dma-buf, mapped once. */
struct surface_pool {
	uint8_t surface[POOL][NVBUF_SURFACE_SIZE];
	uint8_t params[POOL][NVBUF_PARAMS_SIZE];
	int fd[POOL];
	uint8_t *map[POOL];
	int busy[POOL];
	int next;
	pthread_mutex_t lock;
	pthread_cond_t freed;
	/* the capture node the surfaces are queued to (nvmmcamsrc), else -1 */
	int camera;
};

struct pool_slot {
	struct surface_pool *pool;
	int i;
};

static void put_u32(uint8_t *p, size_t off, uint32_t v)
{
	memcpy(p + off, &v, sizeof(v));
}

/* POOL surfaces from the heap; `mapped`: also a CPU mapping of each, for an element that writes. */
static void pool_init(struct surface_pool *p, const char *who, int mapped)
{
	char path[256];
	int heap, i;

	memset(p, 0, sizeof(*p));
	p->camera = -1;
	pthread_mutex_init(&p->lock, NULL);
	pthread_cond_init(&p->freed, NULL);
	snprintf(path, sizeof(path), "/dev/dma_heap/%s", heap_name);
	heap = open(path, O_RDONLY | O_CLOEXEC);
	if (heap < 0)
		die(path);
	for (i = 0; i < POOL; i++) {
		/* whole pages: the heaps allocate pages, and vb2 wants the length it was given */
		struct dma_heap_allocation_data data = { .len = (FRAME_BYTES + 4095) & ~4095,
							 .fd_flags = O_RDWR | O_CLOEXEC };
		uint64_t desc;
		const uint8_t *list = p->params[i];
		struct stat st;

		if (ioctl(heap, DMA_HEAP_IOCTL_ALLOC, &data) < 0)
			die("DMA_HEAP_IOCTL_ALLOC");
		p->fd[i] = (int)data.fd;
		p->map[i] = mapped ? mmap(NULL, FRAME_BYTES, PROT_READ | PROT_WRITE, MAP_SHARED,
					  p->fd[i], 0)
				   : NULL;
		if (p->map[i] == MAP_FAILED)
			die("mmap of a heap dma-buf");
		fstat(p->fd[i], &st);
		printf("%s inode %lu\n", who, (unsigned long)st.st_ino);
		desc = (uint64_t)p->fd[i];
		put_u32(p->params[i], NVBUF_PARAMS_WIDTH, WIDTH);
		put_u32(p->params[i], NVBUF_PARAMS_HEIGHT, HEIGHT);
		put_u32(p->params[i], NVBUF_PARAMS_PITCH, WIDTH);
		put_u32(p->params[i], NVBUF_PARAMS_DATA_SIZE, FRAME_BYTES);
		memcpy(p->params[i] + NVBUF_PARAMS_BUFFER_DESC, &desc, sizeof(desc));
		put_u32(p->surface[i], NVBUF_SURFACE_BATCH_SIZE, 1);
		put_u32(p->surface[i], NVBUF_SURFACE_NUM_FILLED, 1);
		put_u32(p->surface[i], NVBUF_SURFACE_MEM_TYPE, NVBUF_MEM_SURFACE_ARRAY);
		memcpy(p->surface[i] + NVBUF_SURFACE_SURFACE_LIST, &list, sizeof(list));
	}
	close(heap);
	fflush(stdout);
}

static void queue_to_camera(struct surface_pool *p, int i);

static void pool_release(gpointer data)
{
	struct pool_slot *s = data;

	if (s->pool->camera >= 0) {
		queue_to_camera(s->pool, s->i);
		g_free(s);
		return;
	}
	pthread_mutex_lock(&s->pool->lock);
	s->pool->busy[s->i] = 0;
	pthread_cond_signal(&s->pool->freed);
	pthread_mutex_unlock(&s->pool->lock);
	g_free(s);
}

/* Surface i wrapped in a new GstBuffer that gives it back to the pool when it is freed. */
static GstBuffer *pool_wrap(struct surface_pool *p, int i)
{
	struct pool_slot *s = g_new0(struct pool_slot, 1);

	s->pool = p;
	s->i = i;
	return gst_buffer_new_wrapped_full(GST_MEMORY_FLAG_READONLY, p->surface[i],
					   NVBUF_SURFACE_SIZE, 0, NVBUF_SURFACE_SIZE, s,
					   pool_release);
}

/* The next surface once downstream has released it, wrapped in a new GstBuffer; its index. */
static GstBuffer *pool_acquire(struct surface_pool *p, int *index)
{
	int i;

	pthread_mutex_lock(&p->lock);
	while (p->busy[p->next])
		pthread_cond_wait(&p->freed, &p->lock);
	i = p->next;
	p->busy[i] = 1;
	p->next = (i + 1) % POOL;
	pthread_mutex_unlock(&p->lock);
	*index = i;
	return pool_wrap(p, i);
}

static void sync_dmabuf(int fd, uint64_t flags)
{
	struct dma_buf_sync sync = { .flags = flags };

	if (ioctl(fd, DMA_BUF_IOCTL_SYNC, &sync) < 0)
		die("DMA_BUF_IOCTL_SYNC");
}

/* The dma-buf fd of an NVMM buffer: surfaceList[0].bufferDesc of the NvBufSurface it holds. */
static int surface_fd(GstBuffer *buf)
{
	GstMapInfo m;
	const uint8_t *list;
	uint64_t desc;

	if (!gst_buffer_map(buf, &m, GST_MAP_READ) || m.size < NVBUF_SURFACE_SIZE) {
		fprintf(stderr, "nvmm_camera: an NVMM buffer without an NvBufSurface\n");
		exit(1);
	}
	memcpy(&list, m.data + NVBUF_SURFACE_SURFACE_LIST, sizeof(list));
	memcpy(&desc, list + NVBUF_PARAMS_BUFFER_DESC, sizeof(desc));
	gst_buffer_unmap(buf, &m);
	return (int)desc;
}

/* ---- nvmmcamsrc: the camera ---- */

typedef struct {
	GstPushSrc parent;
	struct surface_pool pool;
	guint64 n;
} NvmmCamSrc;
typedef struct {
	GstPushSrcClass parent_class;
} NvmmCamSrcClass;

G_DEFINE_TYPE(NvmmCamSrc, nvmm_cam_src, GST_TYPE_PUSH_SRC)

static GstStaticPadTemplate cam_src_template =
	GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(NVMM_CAPS));

static void queue_to_camera(struct surface_pool *p, int i)
{
	struct v4l2_buffer b = { .index = (__u32)i, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
				 .memory = V4L2_MEMORY_DMABUF };

	b.m.fd = p->fd[i];
	b.length = (FRAME_BYTES + 4095) & ~4095;
	if (ioctl(p->camera, VIDIOC_QBUF, &b) < 0)
		die("VIDIOC_QBUF of a camera surface");
}

/* The capture node set to NV12 WIDTHxHEIGHT, the pool's surfaces queued to it, streaming. */
static void camera_start(struct surface_pool *p)
{
	struct v4l2_format f = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE };
	struct v4l2_requestbuffers req = { .count = POOL, .type = V4L2_BUF_TYPE_VIDEO_CAPTURE,
					   .memory = V4L2_MEMORY_DMABUF };
	int type = V4L2_BUF_TYPE_VIDEO_CAPTURE, i;

	p->camera = open(camera_path, O_RDWR | O_CLOEXEC);
	if (p->camera < 0)
		die(camera_path);
	f.fmt.pix.width = WIDTH;
	f.fmt.pix.height = HEIGHT;
	f.fmt.pix.pixelformat = V4L2_PIX_FMT_NV12;
	f.fmt.pix.field = V4L2_FIELD_NONE;
	if (ioctl(p->camera, VIDIOC_S_FMT, &f) < 0)
		die("VIDIOC_S_FMT NV12");
	if (f.fmt.pix.width != WIDTH || f.fmt.pix.height != HEIGHT ||
	    f.fmt.pix.pixelformat != V4L2_PIX_FMT_NV12 || f.fmt.pix.sizeimage > FRAME_BYTES) {
		fprintf(stderr, "nvmm_camera: %s gives %ux%u %.4s (%u bytes), not NV12 %dx%d\n",
			camera_path, f.fmt.pix.width, f.fmt.pix.height,
			(const char *)&f.fmt.pix.pixelformat, f.fmt.pix.sizeimage, WIDTH, HEIGHT);
		exit(2);
	}
	if (ioctl(p->camera, VIDIOC_REQBUFS, &req) < 0 || req.count != POOL)
		die("VIDIOC_REQBUFS V4L2_MEMORY_DMABUF");
	for (i = 0; i < POOL; i++)
		queue_to_camera(p, i);
	if (ioctl(p->camera, VIDIOC_STREAMON, &type) < 0)
		die("VIDIOC_STREAMON");
}

static GstFlowReturn nvmm_cam_src_create(GstPushSrc *psrc, GstBuffer **out)
{
	NvmmCamSrc *self = (NvmmCamSrc *)psrc;
	struct v4l2_buffer b = { .type = V4L2_BUF_TYPE_VIDEO_CAPTURE, .memory = V4L2_MEMORY_DMABUF };
	GstBuffer *buf;

	if (self->pool.camera < 0)
		camera_start(&self->pool);
	if (ioctl(self->pool.camera, VIDIOC_DQBUF, &b) < 0)
		die("VIDIOC_DQBUF");
	buf = pool_wrap(&self->pool, (int)b.index);
	GST_BUFFER_PTS(buf) = gst_util_uint64_scale(self->n, GST_SECOND, 30);
	GST_BUFFER_DURATION(buf) = gst_util_uint64_scale(1, GST_SECOND, 30);
	self->n++;
	*out = buf;
	return GST_FLOW_OK;
}

static void nvmm_cam_src_init(NvmmCamSrc *self)
{
	pool_init(&self->pool, "camera", 0);
	gst_base_src_set_format(GST_BASE_SRC(self), GST_FORMAT_TIME);
	gst_base_src_set_live(GST_BASE_SRC(self), FALSE);
}

static void nvmm_cam_src_class_init(NvmmCamSrcClass *klass)
{
	GstElementClass *e = GST_ELEMENT_CLASS(klass);

	gst_element_class_add_static_pad_template(e, &cam_src_template);
	gst_element_class_set_static_metadata(e, "NVMM-shaped camera", "Source/Video",
					      "NvBufSurface buffers over heap dma-bufs", "axl");
	GST_PUSH_SRC_CLASS(klass)->create = nvmm_cam_src_create;
}

/* ---- nvmmcpuconvert: a CPU transform into surfaces of its own ---- */

typedef struct {
	GstBaseTransform parent;
	struct surface_pool pool;
	int out;
	/* the camera's surfaces, each mapped once when first seen (fd, mapping) */
	int seen;
	int seen_fd[2 * POOL];
	uint8_t *seen_map[2 * POOL];
} NvmmCpuConvert;
typedef struct {
	GstBaseTransformClass parent_class;
} NvmmCpuConvertClass;

G_DEFINE_TYPE(NvmmCpuConvert, nvmm_cpu_convert, GST_TYPE_BASE_TRANSFORM)

static GstStaticPadTemplate conv_sink_template =
	GST_STATIC_PAD_TEMPLATE("sink", GST_PAD_SINK, GST_PAD_ALWAYS, GST_STATIC_CAPS(NVMM_CAPS));
static GstStaticPadTemplate conv_src_template =
	GST_STATIC_PAD_TEMPLATE("src", GST_PAD_SRC, GST_PAD_ALWAYS, GST_STATIC_CAPS(NVMM_CAPS));

static GstFlowReturn nvmm_cpu_convert_prepare(GstBaseTransform *t, GstBuffer *in, GstBuffer **out)
{
	NvmmCpuConvert *self = (NvmmCpuConvert *)t;

	*out = pool_acquire(&self->pool, &self->out);
	gst_buffer_copy_into(*out, in, GST_BUFFER_COPY_METADATA, 0, -1);
	return GST_FLOW_OK;
}

static GstFlowReturn nvmm_cpu_convert_transform(GstBaseTransform *t, GstBuffer *in, GstBuffer *out)
{
	NvmmCpuConvert *self = (NvmmCpuConvert *)t;
	int src_fd = surface_fd(in), dst_fd = self->pool.fd[self->out], i;
	uint8_t *dst = self->pool.map[self->out], *src = NULL;

	for (i = 0; i < self->seen && !src; i++)
		if (self->seen_fd[i] == src_fd)
			src = self->seen_map[i];
	if (!src) {
		if (self->seen == 2 * POOL) {
			fprintf(stderr, "nvmm_camera: more camera surfaces than expected\n");
			exit(1);
		}
		src = mmap(NULL, FRAME_BYTES, PROT_READ, MAP_SHARED, src_fd, 0);
		if (src == MAP_FAILED)
			die("mmap of the camera's dma-buf");
		self->seen_fd[self->seen] = src_fd;
		self->seen_map[self->seen++] = src;
	}
	sync_dmabuf(src_fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_READ);
	sync_dmabuf(dst_fd, DMA_BUF_SYNC_START | DMA_BUF_SYNC_WRITE);
	/* luma stretched from [16, 235] to [0, 255], chroma as it is: one pixel at a time */
	for (i = 0; i < WIDTH * HEIGHT; i++) {
		int v = (src[i] - 16) * 255 / 219;

		dst[i] = (uint8_t)(v < 0 ? 0 : v > 255 ? 255 : v);
	}
	for (; i < FRAME_BYTES; i++)
		dst[i] = src[i];
	sync_dmabuf(dst_fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_WRITE);
	sync_dmabuf(src_fd, DMA_BUF_SYNC_END | DMA_BUF_SYNC_READ);
	return GST_FLOW_OK;
}

static void nvmm_cpu_convert_init(NvmmCpuConvert *self)
{
	pool_init(&self->pool, "convert", 1);
}

static void nvmm_cpu_convert_class_init(NvmmCpuConvertClass *klass)
{
	GstElementClass *e = GST_ELEMENT_CLASS(klass);
	GstBaseTransformClass *t = GST_BASE_TRANSFORM_CLASS(klass);

	gst_element_class_add_static_pad_template(e, &conv_sink_template);
	gst_element_class_add_static_pad_template(e, &conv_src_template);
	gst_element_class_set_static_metadata(e, "NVMM CPU converter", "Filter/Converter/Video",
					      "Writes each frame into a surface of its own", "axl");
	t->prepare_output_buffer = nvmm_cpu_convert_prepare;
	t->transform = nvmm_cpu_convert_transform;
	t->passthrough_on_same_caps = FALSE;
}

static gboolean register_elements(GstPlugin *plugin)
{
	return gst_element_register(plugin, "nvmmcamsrc", GST_RANK_NONE, nvmm_cam_src_get_type()) &&
	       gst_element_register(plugin, "nvmmcpuconvert", GST_RANK_NONE,
				    nvmm_cpu_convert_get_type());
}

/* ---- the importer: each buffer's dma-buf attached to the Metis node ---- */

static void import_frame(int card, int fd)
{
	struct axl_metis_xfer x = { .phy = 0, .size = FRAME_BYTES, .offset = 0,
				    .flags = AXL_METIS_XFER_WRITE | AXL_METIS_XFER_SYNC,
				    .channel = -1 };
	int unused = 0;

	if (ioctl(card, AXL_METIS_IOCTL_DMA_ATTACH, &fd) < 0)
		die("DMA_ATTACH");
	if (ioctl(card, AXL_METIS_IOCTL_DMA_XFER, &x) < 0)
		die("DMA_XFER");
	if (ioctl(card, AXL_METIS_IOCTL_DMA_DETACH, &unused) < 0)
		die("DMA_DETACH");
}

int main(int argc, char **argv)
{
	char desc[512];
	GstElement *pipeline, *sink;
	GstSample *sample;
	int frames, card, imported = 0;

	if (argc != 6 || (strcmp(argv[5], "queue") && strcmp(argv[5], "cpuconvert"))) {
		fprintf(stderr,
			"usage: nvmm_camera HEAP FRAMES CAMERA METIS_NODE queue|cpuconvert\n");
		return 2;
	}
	heap_name = argv[1];
	frames = atoi(argv[2]);
	camera_path = argv[3];
	card = open(argv[4], O_RDWR | O_CLOEXEC);
	if (card < 0)
		die(argv[4]);
	gst_init(&argc, &argv);
	if (!gst_plugin_register_static(GST_VERSION_MAJOR, GST_VERSION_MINOR, "axlnvmm",
					"the rig's NVMM-shaped elements", register_elements, "1.0",
					"MIT", "axl", "axl", "https://example.invalid/axl")) {
		fprintf(stderr, "nvmm_camera: cannot register the elements\n");
		return 2;
	}
	snprintf(desc, sizeof(desc),
		 "nvmmcamsrc num-buffers=%d ! %s ! appsink name=importer sync=false "
		 "max-buffers=1 caps=\"" NVMM_CAPS "\"",
		 frames, strcmp(argv[5], "queue") ? "nvmmcpuconvert" : "queue");
	pipeline = gst_parse_launch(desc, NULL);
	if (!pipeline) {
		fprintf(stderr, "nvmm_camera: '%s' did not parse (coreelements, app plugins?)\n",
			desc);
		return 2;
	}
	sink = gst_bin_get_by_name(GST_BIN(pipeline), "importer");
	gst_element_set_state(pipeline, GST_STATE_PLAYING);
	while ((sample = gst_app_sink_pull_sample(GST_APP_SINK(sink)))) {
		import_frame(card, surface_fd(gst_sample_get_buffer(sample)));
		imported++;
		gst_sample_unref(sample);
	}
	if (!gst_app_sink_is_eos(GST_APP_SINK(sink))) {
		GstMessage *msg = gst_bus_pop_filtered(GST_ELEMENT_BUS(pipeline), GST_MESSAGE_ERROR);
		GError *err = NULL;

		if (msg)
			gst_message_parse_error(msg, &err, NULL);
		fprintf(stderr, "nvmm_camera: the pipeline stopped before EOS after %d frames: %s\n",
			imported, err ? err->message : "no error posted");
		return 1;
	}
	gst_element_set_state(pipeline, GST_STATE_NULL);
	gst_object_unref(sink);
	gst_object_unref(pipeline);
	close(card);
	printf("frames %d imported %d\n", frames, imported);
	return imported == frames ? 0 : 1;
}
