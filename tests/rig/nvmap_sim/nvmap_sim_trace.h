/* SPDX-License-Identifier: GPL-2.0 */
/*
 * The nvmap-sim stand-in's tracepoints: events/nvmap/ in tracefs, with the
 * system, names, fields and print formats of NVIDIA's nvmap dma-buf events,
 * so that a tool reading them here reads a Jetson's the same way. Each names
 * the buffer by its struct dma_buf pointer, never by inode (%p prints hashed
 * while tracefs options/hash-ptr is set).
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM nvmap

#if !defined(_NVMAP_SIM_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _NVMAP_SIM_TRACE_H

#include <linux/device.h>
#include <linux/dma-buf.h>
#include <linux/tracepoint.h>
#include <linux/version.h>

struct nvmap_handle;

/* 6.10 dropped __assign_str()'s source argument. */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define nvmap_sim_assign_str(dst, src) __assign_str(dst)
#else
#define nvmap_sim_assign_str(dst, src) __assign_str(dst, src)
#endif

/* A buffer and the device that attaches or maps it. */
DECLARE_EVENT_CLASS(nvmap_dmabuf_2,
	TP_PROTO(struct dma_buf *dbuf, struct device *dev),
	TP_ARGS(dbuf, dev),
	TP_STRUCT__entry(
		__field(struct dma_buf *, dbuf)
		__string(name, dev_name(dev))
	),
	TP_fast_assign(
		__entry->dbuf = dbuf;
		nvmap_sim_assign_str(name, dev_name(dev));
	),
	TP_printk("dmabuf=%p, device=%s", __entry->dbuf, __get_str(name))
);

DEFINE_EVENT(nvmap_dmabuf_2, nvmap_dmabuf_attach,
	TP_PROTO(struct dma_buf *dbuf, struct device *dev),
	TP_ARGS(dbuf, dev));
DEFINE_EVENT(nvmap_dmabuf_2, nvmap_dmabuf_detach,
	TP_PROTO(struct dma_buf *dbuf, struct device *dev),
	TP_ARGS(dbuf, dev));
DEFINE_EVENT(nvmap_dmabuf_2, nvmap_dmabuf_map_dma_buf,
	TP_PROTO(struct dma_buf *dbuf, struct device *dev),
	TP_ARGS(dbuf, dev));
DEFINE_EVENT(nvmap_dmabuf_2, nvmap_dmabuf_unmap_dma_buf,
	TP_PROTO(struct dma_buf *dbuf, struct device *dev),
	TP_ARGS(dbuf, dev));

/* A CPU mapping of a buffer. */
DECLARE_EVENT_CLASS(nvmap_dmabuf_1,
	TP_PROTO(struct dma_buf *dbuf),
	TP_ARGS(dbuf),
	TP_STRUCT__entry(
		__field(struct dma_buf *, dbuf)
	),
	TP_fast_assign(
		__entry->dbuf = dbuf;
	),
	TP_printk("dmabuf=%p", __entry->dbuf)
);

DEFINE_EVENT(nvmap_dmabuf_1, nvmap_dmabuf_mmap,
	TP_PROTO(struct dma_buf *dbuf), TP_ARGS(dbuf));
DEFINE_EVENT(nvmap_dmabuf_1, nvmap_dmabuf_vmap,
	TP_PROTO(struct dma_buf *dbuf), TP_ARGS(dbuf));
DEFINE_EVENT(nvmap_dmabuf_1, nvmap_dmabuf_vunmap,
	TP_PROTO(struct dma_buf *dbuf), TP_ARGS(dbuf));

/* CPU access to a byte range of a buffer (the whole buffer here, as nvmap). */
DECLARE_EVENT_CLASS(nvmap_dmabuf_cpu_access,
	TP_PROTO(struct dma_buf *dbuf, size_t start, size_t len),
	TP_ARGS(dbuf, start, len),
	TP_STRUCT__entry(
		__field(struct dma_buf *, dbuf)
		__field(size_t, start)
		__field(size_t, len)
	),
	TP_fast_assign(
		__entry->dbuf = dbuf;
		__entry->start = start;
		__entry->len = len;
	),
	TP_printk("dmabuf=%p, start=%zd len=%zd",
		  __entry->dbuf, __entry->start, __entry->len)
);

DEFINE_EVENT(nvmap_dmabuf_cpu_access, nvmap_dmabuf_begin_cpu_access,
	TP_PROTO(struct dma_buf *dbuf, size_t start, size_t len),
	TP_ARGS(dbuf, start, len));
DEFINE_EVENT(nvmap_dmabuf_cpu_access, nvmap_dmabuf_end_cpu_access,
	TP_PROTO(struct dma_buf *dbuf, size_t start, size_t len),
	TP_ARGS(dbuf, start, len));

/*
 * A buffer's export and release. @cli must outlive the trace buffer: the
 * stand-in passes a string of its own read-only data (the module is never
 * unloaded), which the %s check of tracefs accepts.
 */
DECLARE_EVENT_CLASS(nvmap_dmabuf_make_release,
	TP_PROTO(const char *cli, struct nvmap_handle *h, struct dma_buf *dbuf),
	TP_ARGS(cli, h, dbuf),
	TP_STRUCT__entry(
		__field(const char *, cli)
		__field(struct nvmap_handle *, h)
		__field(struct dma_buf *, dbuf)
	),
	TP_fast_assign(
		__entry->cli = cli;
		__entry->h = h;
		__entry->dbuf = dbuf;
	),
	TP_printk("cli=%s handle=%p dmabuf=%p",
		  __entry->cli, __entry->h, __entry->dbuf)
);

DEFINE_EVENT(nvmap_dmabuf_make_release, nvmap_make_dmabuf,
	TP_PROTO(const char *cli, struct nvmap_handle *h, struct dma_buf *dbuf),
	TP_ARGS(cli, h, dbuf));
DEFINE_EVENT(nvmap_dmabuf_make_release, nvmap_dmabuf_release,
	TP_PROTO(const char *cli, struct nvmap_handle *h, struct dma_buf *dbuf),
	TP_ARGS(cli, h, dbuf));

#endif /* _NVMAP_SIM_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE nvmap_sim_trace
#include <trace/define_trace.h>
