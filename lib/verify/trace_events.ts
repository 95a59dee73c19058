/**
 * The axl and dma_fence events a trace holds, one record per event, for facts made by hand
 * (tests, other tools): what `FrameJoin.fromEvents()` joins into frames. The streaming
 * fold in `trace_facts.ts` joins as it reads and keeps none of them.
 *
 * @module
 */
/** An `axl_dmabuf_import` or `axl_dmabuf_release` event. */
export interface AxlBufferEvent {
  /** Timestamp in ns of the trace clock, when printed. */
  ts?: number;
  /** Thread id of the task that caused the event, when printed. */
  pid?: number;
  /** Task name (`comm`), when printed. */
  task?: string;
  /** The import's handle in the axl device (`handle=`). */
  handle: number;
  /** The dma-buf's inode (`inode=`), the key that ties events to bufinfo. */
  inode: number;
  /** Name of the heap or driver that exported the dma-buf (`exporter=`). */
  exporter: string;
  /** 1-based line of the event in the trace text. */
  line: number;
}

/** An `axl_job_submit` or `axl_job_complete` event. */
export interface AxlJobEvent {
  /** Timestamp in ns of the trace clock, when printed. */
  ts?: number;
  /** Thread id of the task that caused the event, when printed. */
  pid?: number;
  /** The job's dma_fence context (`context=`). */
  context: number;
  /** The job's dma_fence sequence number (`seqno=`). */
  seqno: number;
  /** Handle of the import the job read (`handle=`). */
  handle: number;
  /** Inode of that import's dma-buf (`inode=`). */
  inode: number;
  /** The job's status (`status=`): 0 on success, a negative errno on failure. */
  status: number;
  /** 1-based line of the event in the trace text. */
  line: number;
}

/** The dma_fence events of one fence (`context:seqno`), as timestamps in ns. */
export interface FenceLife {
  /** The fence's driver name (`driver=`). */
  driver: string;
  /** The fence's timeline name (`timeline=`). */
  timeline: string;
  /** The fence's context. */
  context: number;
  /** The fence's sequence number within its context. */
  seqno: number;
  /** Time of its `dma_fence_init` event. */
  init?: number;
  /** Time of its `dma_fence_emit` event. */
  emit?: number;
  /** Time of its `dma_fence_signaled` event. */
  signaled?: number;
  /** Time of its `dma_fence_wait_start` event. */
  waitStart?: number;
  /** Time of its `dma_fence_wait_end` event. */
  waitEnd?: number;
  /** Time of its `dma_fence_destroy` event. */
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
