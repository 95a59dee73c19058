/**
 * The axl and dma_fence events a trace holds, one record per event, for facts made by hand
 * (tests, other tools): what `FrameJoin.fromEvents()` joins into frames. The streaming
 * fold in `trace_facts.ts` joins as it reads and keeps none of them.
 *
 * @module
 */
/** An `axl_dmabuf_import` or `axl_dmabuf_release` event. */
export interface AxlBufferEvent {
  ts?: number;
  pid?: number;
  task?: string;
  handle: number;
  inode: number;
  exporter: string;
  line: number;
}

/** An `axl_job_submit` or `axl_job_complete` event. */
export interface AxlJobEvent {
  ts?: number;
  pid?: number;
  context: number;
  seqno: number;
  handle: number;
  inode: number;
  status: number;
  line: number;
}

/** The dma_fence events of one fence (`context:seqno`), as timestamps in ns. */
export interface FenceLife {
  driver: string;
  timeline: string;
  context: number;
  seqno: number;
  init?: number;
  emit?: number;
  signaled?: number;
  waitStart?: number;
  waitEnd?: number;
  destroy?: number;
}

/** The event lists of a trace, as `FrameJoin.fromEvents()` reads them. */
export interface TracedEvents {
  /** `axl_dmabuf_import` events. */
  imports: AxlBufferEvent[];
  /** `axl_dmabuf_release` events. */
  releases: AxlBufferEvent[];
  /** `axl_job_submit` events. */
  submits: AxlJobEvent[];
  /** `axl_job_complete` events. */
  completes: AxlJobEvent[];
  /** Fences by `context:seqno`. */
  fences: Map<string, FenceLife>;
}
