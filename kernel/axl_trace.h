/* SPDX-License-Identifier: GPL-2.0 */
/*
 * axl tracepoints: events/axl/ in tracefs.
 *
 * axl_dmabuf_import / axl_dmabuf_release record which buffer (inode as in
 * debugfs bufinfo, exporter name) the engine's device mapped and where;
 * the verifier matches imports to releases per frame. axl_job_submit /
 * axl_job_complete bracket a job; its fence is context:seqno, the keys the
 * dma_fence:* events use. The Metis-compatible node reports its attachments
 * as axl_dmabuf_import/release too (handle: a number per attachment) and
 * each transfer as axl_metis_xfer. All output is key=value.
 */
#undef TRACE_SYSTEM
#define TRACE_SYSTEM axl

#if !defined(_AXL_TRACE_H) || defined(TRACE_HEADER_MULTI_READ)
#define _AXL_TRACE_H

#include <linux/dma-buf.h>
#include <linux/fs.h>
#include <linux/tracepoint.h>

/*
 * 6.10 dropped __assign_str()'s source argument; kernel/Kbuild reads the
 * macro's definition and defines AXL_HAVE_ASSIGN_STR_ONE_ARG (see axl_compat.h).
 */
#ifdef AXL_HAVE_ASSIGN_STR_ONE_ARG
#define axl_assign_str(dst, src) __assign_str(dst)
#else
#define axl_assign_str(dst, src) __assign_str(dst, src)
#endif

DECLARE_EVENT_CLASS(axl_dmabuf,
	TP_PROTO(u32 handle, struct dma_buf *dmabuf, u64 iova, size_t size),
	TP_ARGS(handle, dmabuf, iova, size),
	TP_STRUCT__entry(
		__field(u32, handle)
		__field(unsigned long, inode)
		__field(u64, iova)
		__field(size_t, size)
		__string(exporter, dmabuf->exp_name)
	),
	TP_fast_assign(
		__entry->handle = handle;
		__entry->inode = file_inode(dmabuf->file)->i_ino;
		__entry->iova = iova;
		__entry->size = size;
		axl_assign_str(exporter, dmabuf->exp_name);
	),
	TP_printk("handle=%u inode=%lu exporter=%s iova=0x%llx size=%zu",
		  __entry->handle, __entry->inode, __get_str(exporter),
		  __entry->iova, __entry->size)
);

DEFINE_EVENT(axl_dmabuf, axl_dmabuf_import,
	TP_PROTO(u32 handle, struct dma_buf *dmabuf, u64 iova, size_t size),
	TP_ARGS(handle, dmabuf, iova, size)
);

DEFINE_EVENT(axl_dmabuf, axl_dmabuf_release,
	TP_PROTO(u32 handle, struct dma_buf *dmabuf, u64 iova, size_t size),
	TP_ARGS(handle, dmabuf, iova, size)
);

DECLARE_EVENT_CLASS(axl_job,
	TP_PROTO(u64 ctx, u64 seqno, u32 handle, unsigned long inode, u32 model,
		 int status),
	TP_ARGS(ctx, seqno, handle, inode, model, status),
	TP_STRUCT__entry(
		__field(u64, ctx)
		__field(u64, seqno)
		__field(u32, handle)
		__field(unsigned long, inode)
		__field(u32, model)
		__field(int, status)
	),
	TP_fast_assign(
		__entry->ctx = ctx;
		__entry->seqno = seqno;
		__entry->handle = handle;
		__entry->inode = inode;
		__entry->model = model;
		__entry->status = status;
	),
	TP_printk("context=%llu seqno=%llu handle=%u inode=%lu model=%u status=%d",
		  __entry->ctx, __entry->seqno, __entry->handle, __entry->inode,
		  __entry->model, __entry->status)
);

DEFINE_EVENT(axl_job, axl_job_submit,
	TP_PROTO(u64 ctx, u64 seqno, u32 handle, unsigned long inode, u32 model,
		 int status),
	TP_ARGS(ctx, seqno, handle, inode, model, status)
);

DEFINE_EVENT(axl_job, axl_job_complete,
	TP_PROTO(u64 ctx, u64 seqno, u32 handle, unsigned long inode, u32 model,
		 int status),
	TP_ARGS(ctx, seqno, handle, inode, model, status)
);

/*
 * A transfer of the Metis-compatible node ended. @moved is what the eDMA
 * copied: less than @size when the range reached past the first
 * scatterlist entry, the only one metis.ko keeps.
 */
TRACE_EVENT(axl_metis_xfer,
	TP_PROTO(u32 handle, unsigned long inode, u64 phy, u32 offset, u64 size,
		 u64 moved, int flags, int status),
	TP_ARGS(handle, inode, phy, offset, size, moved, flags, status),
	TP_STRUCT__entry(
		__field(u32, handle)
		__field(unsigned long, inode)
		__field(u64, phy)
		__field(u32, offset)
		__field(u64, size)
		__field(u64, moved)
		__field(int, flags)
		__field(int, status)
	),
	TP_fast_assign(
		__entry->handle = handle;
		__entry->inode = inode;
		__entry->phy = phy;
		__entry->offset = offset;
		__entry->size = size;
		__entry->moved = moved;
		__entry->flags = flags;
		__entry->status = status;
	),
	TP_printk("handle=%u inode=%lu dir=%s phy=0x%llx offset=%u size=%llu moved=%llu status=%d",
		  __entry->handle, __entry->inode,
		  __entry->flags & 0x1 ? "read" : "write", __entry->phy,
		  __entry->offset, __entry->size, __entry->moved, __entry->status)
);

#endif /* _AXL_TRACE_H */

#undef TRACE_INCLUDE_PATH
#define TRACE_INCLUDE_PATH .
#undef TRACE_INCLUDE_FILE
#define TRACE_INCLUDE_FILE axl_trace
#include <trace/define_trace.h>
