/* SPDX-License-Identifier: MIT */
/* The frame join of trace_join.c, fed by trace_scan.c; not part of the shim's API. */
#ifndef AXL_TRACE_JOIN_H
#define AXL_TRACE_JOIN_H

#include <stdint.h>

#include "axl_shim.h"

/* A frame's fields (TracedFrame of lib/verify/frames.ts), numbered as AXL_TRACE_JOIN_F_*. */
enum {
	JF_INDEX = AXL_TRACE_JOIN_F_INDEX,
	JF_CONTEXT,
	JF_SEQNO,
	JF_HANDLE,
	JF_INODE,
	JF_EXPORTER, /* a string's number */
	JF_PID,
	JF_IMPORT_TS,
	JF_SUBMIT_TS,
	JF_SIGNAL_TS,
	JF_COMPLETE_TS,
	JF_RELEASE_TS,
	JF_STATUS,
	JF_LATENCY,
	JF_LATENCY_SOURCE,
	JF_FIELDS
};

#define JF_FROM_TRACE 1

struct join_frame {
	uint16_t present; /* bit per field */
	uint8_t n;	  /* fields set, in the order of order[] */
	uint8_t order[JF_FIELDS];
	double v[JF_FIELDS];
};

struct join_string {
	uint8_t *bytes;
	uint32_t len;
};

struct omap_entry {
	double a, b;
	double v0, v1, v2;
	int32_t i0;
	int32_t chain;	       /* next entry of the same bucket, -1 */
	int32_t older, newer; /* insertion order, -1 at the ends */
};

struct omap {
	struct omap_entry *e;
	int32_t *buckets; /* first entry per hash, -1 */
	int32_t cap, nbuckets, used, size, free_list, oldest, newest;
};

struct open_frame {
	struct join_frame f;
	double key_a, key_b, fence_signal;
	uint8_t has_key, has_signal, completed, released, present;
	int32_t same_key, same_handle; /* frame indexes, -1 */
};

struct table {
	int32_t count, live;
	double t0;
	/* closed frames' columns, by frame index */
	double *seqno, *latency;
	uint8_t *source;
	int32_t columns_cap;
	/* the first list_limit frames, whole */
	struct join_frame *list;
	int32_t list_len, list_cap;
	/* frames from index base on; closed ones not present */
	struct open_frame *open;
	int32_t base, head, len, open_cap;
	struct omap awaiting_release; /* handle -> newest open frame of that handle */
};

/* The join's state (FrameJoin): what frames still in flight need, and the closed frames. */
struct trace_join {
	double list_limit, window;
	double imports, releases, submits, completes, unimported_submits;
	struct omap inodes;	 /* ordered set of inodes */
	struct omap exporter_of; /* inode -> string (i0) */
	struct omap exporters;	 /* ordered set of strings */
	struct omap balance;	 /* handle -> imports - releases (v0), where not zero */
	struct omap last_import; /* (handle, inode) -> exporter (i0), ts (v0) */
	struct omap early;	 /* (context, seqno) -> signal ts (v0), completed (i0), ts (v1), status (v2) */
	struct omap by_key;	 /* (context, seqno) -> newest open job frame (i0) */
	struct table jobs, import_frames;
	int import_frames_on, ended, failed;
	int32_t live_at_end;
	struct join_string *strings;
	int32_t nstrings, strings_cap;
	/* What the scanner folds beside the join. */
	double fence_wait_lines, first_ts, last_ts;
};

int trace_join_init(struct trace_join *j, double list_limit, double window);
void trace_join_free(struct trace_join *j);
/* The number of string @s (an exporter), kept by the join; < 0 without memory. */
int32_t trace_join_keep(struct trace_join *j, const uint8_t *s, uint32_t len);
void trace_join_import(struct trace_join *j, double handle, double inode, int32_t exporter,
		       double ts, double pid);
void trace_join_release(struct trace_join *j, double handle, double inode, double ts);
void trace_join_submit(struct trace_join *j, double context, double seqno, double handle,
		       double inode, double ts, double pid);
void trace_join_complete(struct trace_join *j, double context, double seqno, double status,
			 double ts);
void trace_join_signaled(struct trace_join *j, double context, double seqno, double ts);
void trace_join_destroyed(struct trace_join *j, double context, double seqno);
/* Closes the open frames (once) and returns the table the frames come from. */
struct table *trace_join_end(struct trace_join *j);
int64_t trace_join_read(struct trace_join *j, int32_t what, double *out, uint32_t out_len);

#endif /* AXL_TRACE_JOIN_H */
