// SPDX-License-Identifier: MIT
/*
 * axlpads: a GStreamer tracer that records, for every buffer a pad pushes, the memory it
 * travels in: a dma-buf (GstDmaBufMemory, or fd memory whose fd is a dma-buf) with its inode,
 * an NVMM surface (caps "memory:NVMM": the buffer's plain memory holds an NvBufSurface whose
 * surfaceList[i].bufferDesc is a dma-buf fd), or system memory (anything else, named by its
 * allocator's memory type).
 *
 *   GST_PLUGIN_PATH=<directory of this library> GST_TRACERS=axlpads \
 *   AXL_GST_PADS=<file> gst-launch-1.0 ...
 *
 * Lines are appended to $AXL_GST_PADS (O_APPEND: GStreamer's plugin scanner, a second process,
 * writes its header too), one event a line, words of key=value:
 *
 *   axlpads version=1 pid=P
 *   pad pid=P pad=ELEMENT:PAD element=ELEMENT factory=FACTORY peer=ELEMENT:PAD
 *   caps pid=P pad=ELEMENT:PAD caps=CAPS...           (the rest of the line; on every change)
 *   dmabuf pid=P ino=N exp=EXPORTER size=BYTES        (the first time an inode is seen)
 *   buf pid=P pad=ELEMENT:PAD n=SEQ t=MONOTONIC_NS m=KIND:DETAIL [m=...]
 *
 * where KIND:DETAIL is dmabuf:INODE, nvmm:INODE, nvmm-nofd:MEMTYPE (an NVMM batch whose
 * memType carries no dma-buf: CUDA or malloc memory), nvmm-bad:REASON (the NvBufSurface
 * could not be read) or sys:MEMTYPE (e.g. sys:SystemMemory). An NVMM buffer is never sys.
 *
 * Without AXL_GST_PADS the tracer records nothing and says so once on stderr.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* GST_PLUGIN_DEFINE names the source module PACKAGE. */
#define PACKAGE "axl"

#include <gst/allocators/allocators.h>
#include <gst/gst.h>

#include "nvbufsurface_layout.h"

#define AXL_PADS_VERSION 1
/* Buffers of one pad written one line each; after that, only buffers in new memory. */
#define AXL_PADS_MAX_LINES_PER_PAD 20000
/* Surfaces of one NVMM batch read at most (a batch is 1 for a camera, a few for a muxer). */
#define AXL_PADS_MAX_SURFACES 16

#define AXL_TYPE_PADS_TRACER (axl_pads_tracer_get_type())
G_DECLARE_FINAL_TYPE(AxlPadsTracer, axl_pads_tracer, AXL, PADS_TRACER, GstTracer)

/* What the tracer remembers of one pad. */
struct pad_state {
	gchar *name;	   /* "element:pad" */
	GstCaps *caps;	   /* the caps last written */
	guint64 buffers;   /* buffers pushed */
	GHashTable *kinds; /* "m=" tokens seen on this pad, for lines past the cap */
};

struct _AxlPadsTracer {
	GstTracer parent;
	/* lock protects out, pads and inodes: pads push from their own streaming threads. */
	GMutex lock;
	FILE *out;
	GHashTable *pads;   /* GstPad * (a reference: no other pad reuses the address) -> state */
	GHashTable *inodes; /* inode -> present: dma-bufs already described */
};

G_DEFINE_TYPE(AxlPadsTracer, axl_pads_tracer, GST_TYPE_TRACER)

static guint64 monotonic_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (guint64)ts.tv_sec * 1000000000u + (guint64)ts.tv_nsec;
}

/* 1 and the inode when fd is a dma-buf ("/dmabuf:NAME" or "anon_inode:dmabuf"), else 0. */
static int dmabuf_inode(int fd, guint64 *ino)
{
	char link[64], target[256];
	struct stat st;
	ssize_t n;

	if (fd < 0)
		return 0;
	snprintf(link, sizeof(link), "/proc/self/fd/%d", fd);
	n = readlink(link, target, sizeof(target) - 1);
	if (n <= 0)
		return 0;
	target[n] = '\0';
	if (strncmp(target, "/dmabuf:", 8) != 0 && strcmp(target, "anon_inode:dmabuf") != 0)
		return 0;
	if (fstat(fd, &st) != 0)
		return 0;
	*ino = (guint64)st.st_ino;
	return 1;
}

/* One "dmabuf" line the first time an inode is seen: its exporter and size from fdinfo. */
static void describe_dmabuf(AxlPadsTracer *self, int fd, guint64 ino)
{
	char path[64], line[256], exp[128] = "?";
	unsigned long long size = 0;
	FILE *f;

	if (g_hash_table_contains(self->inodes, GUINT_TO_POINTER(ino)))
		return;
	g_hash_table_add(self->inodes, GUINT_TO_POINTER(ino));
	snprintf(path, sizeof(path), "/proc/self/fdinfo/%d", fd);
	f = fopen(path, "re");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (sscanf(line, "exp_name: %127s", exp) == 1)
				continue;
			sscanf(line, "size: %llu", &size);
		}
		fclose(f);
	}
	fprintf(self->out, "dmabuf pid=%d ino=%" G_GUINT64_FORMAT " exp=%s size=%llu\n",
		(int)getpid(), ino, exp, size);
}

static guint32 read_u32(const guint8 *p, gsize off)
{
	guint32 v;

	memcpy(&v, p + off, sizeof(v));
	return v;
}

/*
 * The "m=" tokens of an NVMM buffer: one per filled surface, read from the NvBufSurface in
 * the memory's bytes at the offsets of nvbufsurface_layout.h.
 */
static void nvmm_tokens(AxlPadsTracer *self, GstMemory *mem, GString *out)
{
	const guint8 *surf, *list;
	guint32 mem_type, filled, i;
	GstMapInfo map;

	if (!gst_memory_map(mem, &map, GST_MAP_READ)) {
		g_string_append(out, " m=nvmm-bad:unmappable");
		return;
	}
	surf = map.data;
	if (map.size < NVBUF_SURFACE_SIZE) {
		g_string_append_printf(out, " m=nvmm-bad:size-%" G_GSIZE_FORMAT, map.size);
		goto unmap;
	}
	mem_type = read_u32(surf, NVBUF_SURFACE_MEM_TYPE);
	filled = read_u32(surf, NVBUF_SURFACE_NUM_FILLED);
	memcpy(&list, surf + NVBUF_SURFACE_SURFACE_LIST, sizeof(list));
	if (mem_type != NVBUF_MEM_SURFACE_ARRAY && mem_type != NVBUF_MEM_HANDLE &&
	    mem_type != NVBUF_MEM_DEFAULT) {
		g_string_append_printf(out, " m=nvmm-nofd:%u", mem_type);
		goto unmap;
	}
	if (!list || filled == 0 || filled > AXL_PADS_MAX_SURFACES) {
		g_string_append_printf(out, " m=nvmm-bad:%s", !list ? "no-surface-list" :
				       filled == 0 ? "none-filled" : "batch-too-large");
		goto unmap;
	}
	for (i = 0; i < filled; i++) {
		guint64 desc, ino;

		memcpy(&desc, list + (gsize)i * NVBUF_PARAMS_SIZE + NVBUF_PARAMS_BUFFER_DESC,
		       sizeof(desc));
		if (desc > G_MAXINT || !dmabuf_inode((int)desc, &ino)) {
			g_string_append(out, " m=nvmm-bad:bufferDesc-not-a-dmabuf");
			continue;
		}
		describe_dmabuf(self, (int)desc, ino);
		g_string_append_printf(out, " m=nvmm:%" G_GUINT64_FORMAT, ino);
	}
unmap:
	gst_memory_unmap(mem, &map);
}

/* The "m=" token of one memory of a buffer that is not NVMM. */
static void memory_token(AxlPadsTracer *self, GstMemory *mem, GString *out)
{
	const gchar *type = mem->allocator ? mem->allocator->mem_type : NULL;
	guint64 ino;
	int fd = -1;

	if (gst_is_dmabuf_memory(mem))
		fd = gst_dmabuf_memory_get_fd(mem);
	else if (gst_is_fd_memory(mem))
		fd = gst_fd_memory_get_fd(mem);
	if (fd >= 0 && dmabuf_inode(fd, &ino)) {
		describe_dmabuf(self, fd, ino);
		g_string_append_printf(out, " m=dmabuf:%" G_GUINT64_FORMAT, ino);
		return;
	}
	g_string_append_printf(out, " m=sys:%s", type && *type ? type : "unknown");
}

static gboolean caps_are_nvmm(GstCaps *caps)
{
	GstCapsFeatures *f;

	if (!caps || gst_caps_get_size(caps) == 0)
		return FALSE;
	f = gst_caps_get_features(caps, 0);
	return f && gst_caps_features_contains(f, "memory:NVMM");
}

static void pad_state_free(gpointer p)
{
	struct pad_state *s = p;

	g_free(s->name);
	gst_clear_caps(&s->caps);
	g_hash_table_unref(s->kinds);
	g_free(s);
}

/* The state of pad, made (and its "pad" line written) on its first buffer. */
static struct pad_state *pad_state_of(AxlPadsTracer *self, GstPad *pad)
{
	struct pad_state *s = g_hash_table_lookup(self->pads, pad);
	GstElement *parent, *peer_parent = NULL;
	GstElementFactory *factory = NULL;
	GstPad *peer;

	if (s)
		return s;
	parent = gst_pad_get_parent_element(pad);
	if (parent)
		factory = gst_element_get_factory(parent);
	peer = gst_pad_get_peer(pad);
	if (peer)
		peer_parent = gst_pad_get_parent_element(peer);
	s = g_new0(struct pad_state, 1);
	s->name = g_strdup_printf("%s:%s", parent ? GST_OBJECT_NAME(parent) : "?",
				  GST_OBJECT_NAME(pad));
	s->kinds = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
	g_hash_table_insert(self->pads, gst_object_ref(pad), s);
	fprintf(self->out, "pad pid=%d pad=%s element=%s factory=%s peer=%s:%s\n", (int)getpid(),
		s->name, parent ? GST_OBJECT_NAME(parent) : "?",
		factory ? GST_OBJECT_NAME(factory) : "?",
		peer_parent ? GST_OBJECT_NAME(peer_parent) : "?",
		peer ? GST_OBJECT_NAME(peer) : "?");
	if (peer_parent)
		gst_object_unref(peer_parent);
	if (peer)
		gst_object_unref(peer);
	if (parent)
		gst_object_unref(parent);
	return s;
}

/* A "caps" line when the pad's caps are new or changed; the caps, referenced, or NULL. */
static GstCaps *note_caps(AxlPadsTracer *self, GstPad *pad, struct pad_state *s)
{
	GstCaps *caps = gst_pad_get_current_caps(pad);
	gchar *text;

	if (!caps || (s->caps && gst_caps_is_equal(caps, s->caps)))
		return caps;
	gst_caps_replace(&s->caps, caps);
	text = gst_caps_to_string(caps);
	fprintf(self->out, "caps pid=%d pad=%s caps=%s\n", (int)getpid(), s->name, text);
	g_free(text);
	return caps;
}

static void record_buffer(AxlPadsTracer *self, GstPad *pad, GstBuffer *buf)
{
	struct pad_state *s = pad_state_of(self, pad);
	GstCaps *caps = note_caps(self, pad, s);
	gboolean nvmm = caps_are_nvmm(caps);
	GString *tokens = g_string_new(NULL);
	guint i, n = gst_buffer_n_memory(buf);
	gboolean fresh;

	for (i = 0; i < n; i++) {
		GstMemory *mem = gst_buffer_peek_memory(buf, i);

		if (nvmm)
			nvmm_tokens(self, mem, tokens);
		else
			memory_token(self, mem, tokens);
	}
	if (n == 0)
		g_string_append(tokens, " m=none");
	s->buffers++;
	fresh = !g_hash_table_contains(s->kinds, tokens->str);
	if (fresh)
		g_hash_table_add(s->kinds, g_strdup(tokens->str));
	if (s->buffers <= AXL_PADS_MAX_LINES_PER_PAD || fresh)
		fprintf(self->out, "buf pid=%d pad=%s n=%" G_GUINT64_FORMAT " t=%" G_GUINT64_FORMAT
			"%s\n", (int)getpid(), s->name, s->buffers, monotonic_ns(), tokens->str);
	g_string_free(tokens, TRUE);
	gst_clear_caps(&caps);
}

static void on_push(GObject *obj, GstClockTime ts, GstPad *pad, GstBuffer *buf)
{
	AxlPadsTracer *self = AXL_PADS_TRACER(obj);

	if (!self->out || !buf)
		return;
	g_mutex_lock(&self->lock);
	record_buffer(self, pad, buf);
	fflush(self->out);
	g_mutex_unlock(&self->lock);
}

static void on_push_list(GObject *obj, GstClockTime ts, GstPad *pad, GstBufferList *list)
{
	AxlPadsTracer *self = AXL_PADS_TRACER(obj);
	guint i;

	if (!self->out || !list)
		return;
	g_mutex_lock(&self->lock);
	for (i = 0; i < gst_buffer_list_length(list); i++)
		record_buffer(self, pad, gst_buffer_list_get(list, i));
	fflush(self->out);
	g_mutex_unlock(&self->lock);
}

static void axl_pads_tracer_finalize(GObject *obj)
{
	AxlPadsTracer *self = AXL_PADS_TRACER(obj);

	if (self->out)
		fclose(self->out);
	g_hash_table_unref(self->pads);
	g_hash_table_unref(self->inodes);
	g_mutex_clear(&self->lock);
	G_OBJECT_CLASS(axl_pads_tracer_parent_class)->finalize(obj);
}

static void axl_pads_tracer_class_init(AxlPadsTracerClass *klass)
{
	G_OBJECT_CLASS(klass)->finalize = axl_pads_tracer_finalize;
}

static void axl_pads_tracer_init(AxlPadsTracer *self)
{
	const char *path = g_getenv("AXL_GST_PADS");
	int fd;

	g_mutex_init(&self->lock);
	self->pads = g_hash_table_new_full(g_direct_hash, g_direct_equal, gst_object_unref,
					   pad_state_free);
	self->inodes = g_hash_table_new(g_direct_hash, g_direct_equal);
	if (!path || !*path) {
		g_printerr("axlpads: AXL_GST_PADS is not set: recording nothing (set it to the file "
			   "the tracer appends to)\n");
		return;
	}
	fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
	if (fd < 0 || !(self->out = fdopen(fd, "a"))) {
		g_printerr("axlpads: cannot open AXL_GST_PADS=%s: %s: recording nothing\n", path,
			   g_strerror(errno));
		if (fd >= 0)
			close(fd);
		return;
	}
	fprintf(self->out, "axlpads version=%d pid=%d\n", AXL_PADS_VERSION, (int)getpid());
	fflush(self->out);
	gst_tracing_register_hook(GST_TRACER(self), "pad-push-pre", G_CALLBACK(on_push));
	gst_tracing_register_hook(GST_TRACER(self), "pad-push-list-pre", G_CALLBACK(on_push_list));
}

static gboolean plugin_init(GstPlugin *plugin)
{
	return gst_tracer_register(plugin, "axlpads", AXL_TYPE_PADS_TRACER);
}

GST_PLUGIN_DEFINE(GST_VERSION_MAJOR, GST_VERSION_MINOR, axltrace,
		  "axl: the memory each buffer travels in, per pad", plugin_init, "1", "MIT/X11",
		  "axl", "axl")
