/**
 * Per-frame records (import → submit → signal → release) joined from the trace as it streams
 * past, and completed with the workload's own fence timestamps where the trace lacks them.
 *
 * The join keeps only what frames still in flight need: the last import per buffer handle
 * until its release, and the last {@linkcode FrameJoinOptions.window} frames open to late
 * events (fence signal, completion, release). Older frames are closed into columns of a few
 * numbers each (sequence number, latency), which is what the latency statistics and the
 * workload's timestamps need; only the first {@linkcode FrameJoinOptions.listLimit} frames
 * are kept whole, for the report's frame list. A trace of a long run therefore costs a few
 * bytes per frame, not the events' text.
 *
 * @module
 */
import type { TracedEvents } from "./trace_events.ts";
import type { CFrameJoinResult } from "../core/trace_scan.ts";

/** One frame's path through the driver; times are ns of the trace clock. */
export interface TracedFrame {
  /** 0-based position of the frame in the run, in order of submission (or of import when no job ran). */
  index: number;
  /** The job's dma_fence context, when the frame is a job. */
  context?: number;
  /** The job's dma_fence sequence number, when the frame is a job. */
  seqno?: number;
  /** Handle of the import the frame used. */
  handle?: number;
  /** Inode of the frame's dma-buf. */
  inode?: number;
  /** Exporter of the frame's dma-buf, from its import. */
  exporter?: string;
  /** Thread that submitted (or imported) the frame. */
  pid?: number;
  /** `axl_dmabuf_import` of its buffer. */
  importTs?: number;
  /** `axl_job_submit`. */
  submitTs?: number;
  /** The job's fence signalled: `dma_fence_signaled`, else the workload's sync_file time. */
  signalTs?: number;
  /** `axl_job_complete`. */
  completeTs?: number;
  /** `axl_dmabuf_release` of its buffer. */
  releaseTs?: number;
  /** Job status from `axl_job_complete` (0 or -errno). */
  status?: number;
  /** signal − submit, ns. */
  latencyNs?: number;
  /** Where latencyNs came from. */
  latencySource?: "trace" | "workload";
}

/** What a workload reports about one frame (from SYNC_IOC_FILE_INFO etc.). */
export interface WorkloadFrame {
  /** The job's fence sequence number, the key that joins it to a traced frame. */
  seqno?: number;
  /** Inode of the frame's dma-buf, when the workload knows it. */
  inode?: number;
  /** CLOCK_MONOTONIC ns when the job was queued (axl_submit.submit_ns). */
  submitNs?: number;
  /** CLOCK_MONOTONIC ns the fence signalled (sync_file timestamp). */
  signalNs?: number;
}

/** Frames kept whole by default: every frame of any ordinary verification run. */
export const FRAME_LIST_LIMIT = 10_000;

/** Frames open to late events by default: far deeper than any camera or NPU queue. */
export const FRAME_WINDOW = 4096;

/** Options of {@linkcode FrameJoin}. */
export interface FrameJoinOptions {
  /** Frames kept whole for the frame list: the first N (default {@linkcode FRAME_LIST_LIMIT}). */
  listLimit?: number;
  /**
   * Frames still joined with later events, counted in frames submitted since (default
   * {@linkcode FRAME_WINDOW}); a fence signal, completion or release arriving later than that
   * is not joined to its frame. `Infinity` keeps every frame open until the end.
   */
  window?: number;
}

/** The frames of a finished join. */
export interface JoinedFrames {
  /** Frames: jobs traced, else imports traced, else frames the workload reported. */
  count: number;
  /** The first frames (at most the list limit), with workload latencies filled in. */
  list: TracedFrame[];
  /** Latency in ns of every frame that has one, in frame order. */
  latencyNs: Float64Array;
  /** Where those latencies came from. */
  sources: Set<"trace" | "workload">;
  /** Inodes of imports and of frames. */
  inodes: Set<number>;
  /** Earliest import or submit time of any frame (for relative times); Infinity without. */
  t0: number;
}

/** A frame still open to late events. */
interface OpenFrame {
  frame: TracedFrame;
  /** `context:seqno` of a job frame. */
  key: FenceKey | undefined;
  fenceSignal: number | undefined;
  completed: boolean;
  released: boolean;
  /** Other open frames of the same fence, or awaiting a release of the same handle. */
  sameKey: OpenFrame | undefined;
  sameHandle: OpenFrame | undefined;
}

/** A fence or buffer identity as one Map key: a number when exact, else a string. */
type FenceKey = number | string;

/** Fence events seen before the job that owns them. */
interface EarlyFence {
  signaled?: number;
  completed?: { ts: number | undefined; status: number };
}

const NONE = 0, FROM_TRACE = 1, FROM_WORKLOAD = 2;

/**
 * `a:b` as a Map key: one exact number while both are small non-negative integers (no string
 * per event), else the string the unjoined trace would have used.
 */
function pairKey(a: number, b: number): FenceKey {
  return Number.isInteger(a) && Number.isInteger(b) && a >= 0 && b >= 0 && a < 2 ** 20 &&
      b < 2 ** 32
    ? a * 2 ** 32 + b
    : `${a}:${b}`;
}

/**
 * A Map for entries that come and go with every frame (at most a few live at once), kept
 * young. A Map that lives long ends up in V8's old generation, and so does every table it
 * rehashes into — every few insertions when entries churn — which only a full collection
 * frees: about 30 bytes per insertion, 80 MB of garbage over a 1 GB trace. A fresh copy every
 * few hundred changes, while it is small, keeps its tables in the young generation.
 */
class ChurningMap<K, V> {
  #map = new Map<K, V>();
  #changes = 0;

  get size(): number {
    return this.#map.size;
  }

  get(key: K): V | undefined {
    return this.#map.get(key);
  }

  set(key: K, value: V): void {
    this.#map.set(key, value);
    if (++this.#changes >= 256 && this.#map.size <= 64) {
      this.#map = new Map(this.#map);
      this.#changes = 0;
    }
  }

  delete(key: K): void {
    this.#map.delete(key);
  }

  /** The oldest key. */
  first(): K | undefined {
    return this.#map.keys().next().value;
  }

  entries(): MapIterator<[K, V]> {
    return this.#map.entries();
  }
}

/**
 * Per-frame numbers of closed frames, in frame order, in blocks of 32768 frames: growing
 * never copies, and a frame costs 17 bytes.
 */
class FrameColumns {
  readonly #seqno: Float64Array[] = [];
  readonly #latency: Float64Array[] = [];
  readonly #source: Uint8Array[] = [];

  set(index: number, f: TracedFrame): void {
    const block = index >>> 15, i = index & 32767;
    while (block >= this.#seqno.length) {
      this.#seqno.push(new Float64Array(32768));
      this.#latency.push(new Float64Array(32768));
      this.#source.push(new Uint8Array(32768));
    }
    this.#seqno[block]![i] = f.seqno ?? NaN;
    this.#latency[block]![i] = f.latencyNs ?? NaN;
    this.#source[block]![i] = f.latencySource === "trace"
      ? FROM_TRACE
      : f.latencySource === "workload"
      ? FROM_WORKLOAD
      : NONE;
  }

  seqno(index: number): number {
    return this.#seqno[index >>> 15]![index & 32767]!;
  }

  latency(index: number): number {
    return this.#latency[index >>> 15]![index & 32767]!;
  }

  source(index: number): number {
    return this.#source[index >>> 15]![index & 32767]!;
  }

  /** Sets frames 0..seqno.length from whole columns. */
  fill(seqno: Float64Array, latency: Float64Array, source: Uint8Array): void {
    for (let at = 0, block = 0; at < seqno.length; at += 32768, block++) {
      const end = Math.min(at + 32768, seqno.length);
      this.#seqno[block] = new Float64Array(32768);
      this.#latency[block] = new Float64Array(32768);
      this.#source[block] = new Uint8Array(32768);
      this.#seqno[block]!.set(seqno.subarray(at, end));
      this.#latency[block]!.set(latency.subarray(at, end));
      this.#source[block]!.set(source.subarray(at, end));
    }
  }
}

/** Frames of one kind (jobs, or imports while no job has been seen). */
class FrameTable {
  count = 0;
  t0 = Infinity;
  readonly list: TracedFrame[] = [];
  readonly columns = new FrameColumns();
  /**
   * Frames by index from `base` on, oldest first; closed ones are cleared at once, so that a
   * finished frame is garbage while it is young (cheap to collect).
   */
  open: (OpenFrame | undefined)[] = [];
  base = 0;
  head = 0;
  /** Frames open now. */
  live = 0;
  /** Open frames awaiting a release, by buffer handle. */
  readonly awaitingRelease = new ChurningMap<number, OpenFrame>();

  constructor(readonly listLimit: number, readonly window: number) {}

  add(frame: TracedFrame, key: FenceKey | undefined): OpenFrame {
    const o: OpenFrame = {
      frame,
      key,
      fenceSignal: undefined,
      completed: false,
      released: false,
      sameKey: undefined,
      sameHandle: undefined,
    };
    if (frame.importTs !== undefined && frame.importTs < this.t0) this.t0 = frame.importTs;
    if (frame.submitTs !== undefined && frame.submitTs < this.t0) this.t0 = frame.submitTs;
    // A handle that did not parse (NaN) matches no release, as NaN equals nothing.
    if (frame.handle !== undefined && !Number.isNaN(frame.handle)) {
      o.sameHandle = this.awaitingRelease.get(frame.handle);
      this.awaitingRelease.set(frame.handle, o);
    }
    this.open.push(o);
    this.live++;
    return o;
  }

  /** Closes the frames more than `window` frames old. */
  trim(close: (o: OpenFrame) => void): void {
    while (this.open.length - this.head > this.window) {
      const o = this.open[this.head++];
      if (o !== undefined) close(o);
    }
    while (this.head < this.open.length && this.open[this.head] === undefined) this.head++;
    // Drop cleared slots now and then instead of shifting the array per frame.
    if (this.head > 1024 && this.head * 2 > this.open.length) {
      this.open = this.open.slice(this.head);
      this.base += this.head;
      this.head = 0;
    }
  }

  /** Forgets a closed frame. */
  clear(o: OpenFrame): void {
    const slot = o.frame.index - this.base;
    if (this.open[slot] === o) this.open[slot] = undefined;
  }
}

/**
 * Joins axl and dma_fence events into frames as they stream past, in trace order. With
 * `axl_job_submit` events a frame is a job (matched with the last import of its buffer, its
 * fence's first signal, its completion and the next release of its buffer); without them,
 * each import is a frame. Also counts the events and keeps what the invariants need about
 * buffers: exporters per inode and handles imported but not released.
 *
 * @example
 * ```ts
 * import { FrameJoin } from "./frames.ts";
 * const j = new FrameJoin();
 * j.addImport(1, 9, "system", 10, 42);
 * j.addSubmit(5, 1, 1, 9, 20, 42);
 * j.addFenceSignaled(5, 1, 70);
 * j.addRelease(1, 9, 90);
 * const { list: [frame] } = j.frames();
 * console.log(frame?.latencyNs); // 50
 * console.log(frame?.releaseTs); // 90
 * ```
 */
export class FrameJoin {
  /** `axl_dmabuf_import` events. */
  imports = 0;
  /** `axl_dmabuf_release` events. */
  releases = 0;
  /** `axl_job_submit` events. */
  submits = 0;
  /** `axl_job_complete` events. */
  completes = 0;
  /** Jobs submitted on a buffer (handle and inode) with no import of it in flight. */
  unimportedSubmits = 0;
  /** Inodes of imported buffers and of submitted jobs (finite ones). */
  readonly inodes = new Set<number>();
  /** Exporter per imported inode: the last import that named one. */
  readonly exporterOf = new Map<number, string>();
  /** Every exporter an import named. */
  readonly exporters = new Set<string>();

  readonly #listLimit: number;
  readonly #window: number;
  /** Imports minus releases per handle, where not zero. */
  readonly #balance = new ChurningMap<number, number>();
  /** The last import of each buffer (handle and inode) not yet released. */
  readonly #lastImport = new ChurningMap<FenceKey, { exporter: string; ts: number | undefined }>();
  /** Fence signals and completions seen before their job, by `context:seqno`. */
  readonly #early = new ChurningMap<FenceKey, EarlyFence>();
  /** Open job frames by `context:seqno`. */
  readonly #byKey = new ChurningMap<FenceKey, OpenFrame>();
  /** Strings kept by frames: fresh copies, not slices of the text they were read from. */
  readonly #strings = new Map<string, string>();
  #jobs: FrameTable;
  /** Frames made from imports while no job has been seen. */
  #importFrames: FrameTable | undefined;
  #ended = false;

  /** A join; see {@linkcode FrameJoinOptions}. */
  constructor(options: FrameJoinOptions = {}) {
    const listLimit = options.listLimit ?? FRAME_LIST_LIMIT;
    const window = options.window ?? FRAME_WINDOW;
    if (!(listLimit >= 0)) throw new RangeError(`FrameJoin: listLimit must be >= 0: ${listLimit}`);
    if (!(window >= 1)) throw new RangeError(`FrameJoin: window must be >= 1: ${window}`);
    this.#listLimit = listLimit;
    this.#window = window;
    this.#jobs = new FrameTable(listLimit, window);
    this.#importFrames = new FrameTable(listLimit, window);
  }

  /**
   * The join of hand-made event lists (`imports`, `releases`, `submits`, `completes` and
   * `fences` of a `TraceFacts`), taken in line order, every frame open to the end.
   *
   * @example
   * ```ts
   * import { FrameJoin } from "./frames.ts";
   * import { emptyTraceFacts } from "./trace_facts.ts";
   * const f = emptyTraceFacts();
   * f.imports.push({ line: 1, handle: 1, inode: 5, exporter: "system" });
   * console.log(FrameJoin.fromEvents(f).frames().count); // 1
   * ```
   */
  static fromEvents(facts: TracedEvents, options: FrameJoinOptions = {}): FrameJoin {
    const join = new FrameJoin({ window: Infinity, ...options });
    // The event lists carry no fence lines: their signals count wherever they happened.
    for (const life of facts.fences.values()) {
      if (life.signaled !== undefined) {
        join.addFenceSignaled(life.context, life.seqno, life.signaled);
      }
    }
    const events = [
      ...facts.imports.map((e) => ({
        e,
        add: () => join.addImport(e.handle, e.inode, e.exporter, e.ts, e.pid),
      })),
      ...facts.releases.map((e) => ({ e, add: () => join.addRelease(e.handle, e.inode, e.ts) })),
      ...facts.submits.map((e) => ({
        e,
        add: () => join.addSubmit(e.context, e.seqno, e.handle, e.inode, e.ts, e.pid),
      })),
      ...facts.completes.map((e) => ({
        e,
        add: () => join.addComplete(e.context, e.seqno, e.status, e.ts),
      })),
    ].sort((a, b) => a.e.line - b.e.line);
    for (const { add } of events) add();
    return join;
  }

  /**
   * The join the shim's C frame join made (`TraceChunkScanner.joinResult()`), ended: its
   * frames, counts, buffers and handles as this class would have them after the same events.
   *
   * @example
   * ```ts
   * import { FrameJoin } from "./frames.ts";
   * import { TraceChunkScanner } from "../core/trace_scan.ts";
   * const scanner = new TraceChunkScanner();
   * scanner.startJoin(10_000, 4096);
   * const text = new TextEncoder().encode(
   *   "  x-1 [000] ..... 1.000000: axl_job_submit: context=1 seqno=9 handle=1 inode=2\n",
   * );
   * scanner.scan(text, text.length);
   * const join = FrameJoin.fromC(scanner.joinResult());
   * scanner.stopJoin();
   * console.log(join.frames().list[0]?.seqno); // 9
   * ```
   */
  static fromC(r: CFrameJoinResult, options: FrameJoinOptions = {}): FrameJoin {
    const join = new FrameJoin(options);
    join.imports = r.imports;
    join.releases = r.releases;
    join.submits = r.submits;
    join.completes = r.completes;
    join.unimportedSubmits = r.unimportedSubmits;
    for (const inode of r.inodes) join.inodes.add(inode);
    for (const [inode, exporter] of r.exporterOf) join.exporterOf.set(inode, exporter);
    for (const exporter of r.exporters) join.exporters.add(exporter);
    for (const handle of r.unreleased) join.#balance.set(handle, 1);
    if (r.submits > 0) join.#importFrames = undefined;
    const table = join.#importFrames ?? join.#jobs;
    table.count = r.count;
    table.t0 = r.t0;
    table.live = r.inFlight;
    table.columns.fill(r.seqno, r.latency, r.source);
    for (const f of r.list) table.list.push(f as unknown as TracedFrame);
    join.#ended = true;
    return join;
  }

  /** An `axl_dmabuf_import`. */
  addImport(
    handle: number,
    inode: number,
    exporter: string,
    ts: number | undefined,
    pid: number | undefined,
  ): void {
    this.imports++;
    exporter = this.#keep(exporter);
    if (Number.isFinite(inode)) this.inodes.add(inode);
    if (exporter) {
      this.exporterOf.set(inode, exporter);
      this.exporters.add(exporter);
    }
    this.#balance.set(handle, (this.#balance.get(handle) ?? 0) + 1);
    if (!Number.isNaN(handle) && !Number.isNaN(inode)) {
      const key = pairKey(handle, inode);
      // Re-inserted so that the Map's order is the order of the last imports.
      this.#lastImport.delete(key);
      this.#lastImport.set(key, { exporter, ts });
      if (this.#lastImport.size > this.#window) {
        this.#lastImport.delete(this.#lastImport.first()!);
      }
    }
    const table = this.#importFrames;
    if (table === undefined) return;
    const frame: TracedFrame = { index: table.count++, handle, inode, exporter };
    if (pid !== undefined) frame.pid = pid;
    if (ts !== undefined) frame.importTs = ts;
    table.add(frame, undefined);
    table.trim((o) => this.#close(table, o));
  }

  /** An `axl_dmabuf_release`. */
  addRelease(handle: number, inode: number, ts: number | undefined): void {
    this.releases++;
    const n = (this.#balance.get(handle) ?? 0) - 1;
    if (n === 0) this.#balance.delete(handle);
    else this.#balance.set(handle, n);
    this.#lastImport.delete(pairKey(handle, inode));
    this.#release(this.#jobs, handle, ts);
    if (this.#importFrames) this.#release(this.#importFrames, handle, ts);
  }

  #release(table: FrameTable, handle: number, ts: number | undefined): void {
    const first = table.awaitingRelease.get(handle);
    table.awaitingRelease.delete(handle);
    for (let o = first; o !== undefined; o = o.sameHandle) {
      o.released = true;
      if (ts !== undefined) o.frame.releaseTs = ts;
      this.#settle(table, o);
    }
  }

  /** Closes a frame nothing more can happen to: released, and a job completed and signalled. */
  #settle(table: FrameTable, o: OpenFrame): void {
    if (!o.released || (o.key !== undefined && (!o.completed || o.fenceSignal === undefined))) {
      return;
    }
    this.#close(table, o);
    table.clear(o);
  }

  /** An `axl_job_submit`: a frame. */
  addSubmit(
    context: number,
    seqno: number,
    handle: number,
    inode: number,
    ts: number | undefined,
    pid: number | undefined,
  ): void {
    this.submits++;
    // The first job decides: frames are jobs, the frames made from imports go.
    this.#importFrames = undefined;
    if (Number.isFinite(inode)) this.inodes.add(inode);
    const table = this.#jobs;
    const frame: TracedFrame = { index: table.count++, context, seqno, handle, inode };
    if (pid !== undefined) frame.pid = pid;
    if (ts !== undefined) frame.submitTs = ts;
    const imp = this.#lastImport.get(pairKey(handle, inode));
    if (imp) {
      frame.exporter = imp.exporter;
      if (imp.ts !== undefined) frame.importTs = imp.ts;
    } else if (!Number.isNaN(handle) && !Number.isNaN(inode)) {
      this.unimportedSubmits++;
    }
    const key = pairKey(context, seqno);
    const o = table.add(frame, key);
    o.sameKey = this.#byKey.get(key);
    this.#byKey.set(key, o);
    const early = this.#early.get(key);
    if (early?.signaled !== undefined) o.fenceSignal = early.signaled;
    if (early?.completed) this.#complete(o, early.completed.status, early.completed.ts);
    table.trim((old) => this.#close(table, old));
  }

  /** An `axl_job_complete`. */
  addComplete(context: number, seqno: number, status: number, ts: number | undefined): void {
    this.completes++;
    const key = pairKey(context, seqno);
    const o = this.#byKey.get(key);
    if (o === undefined) {
      this.#remember(key).completed = { ts, status };
      return;
    }
    for (let x: OpenFrame | undefined = o; x !== undefined; x = x.sameKey) {
      this.#complete(x, status, ts);
      this.#settle(this.#jobs, x);
    }
  }

  /** A `dma_fence_signaled`: the first one of a fence counts. */
  addFenceSignaled(context: number, seqno: number, ts: number | undefined): void {
    if (ts === undefined) return;
    const key = pairKey(context, seqno);
    const o = this.#byKey.get(key);
    if (o === undefined) {
      const early = this.#remember(key);
      early.signaled ??= ts;
      return;
    }
    for (let x: OpenFrame | undefined = o; x !== undefined; x = x.sameKey) {
      x.fenceSignal ??= ts;
      this.#settle(this.#jobs, x);
    }
  }

  /** A `dma_fence_destroy`: nothing more will happen to that fence. */
  addFenceDestroyed(context: number, seqno: number): void {
    this.#early.delete(pairKey(context, seqno));
  }

  /** Frames still open to late events: a few in a healthy run, never more than the window. */
  get inFlight(): number {
    return (this.#importFrames ?? this.#jobs).live;
  }

  /** Handles imported more often than released, in the order of their last import. */
  unreleasedHandles(): number[] {
    return [...this.#balance.entries()].filter(([, n]) => n > 0).map(([h]) => h);
  }

  /**
   * Ends the join (open frames are closed: later events are counted but join no frame) and
   * returns the frames, with `workload`'s own fence timestamps filling frames the trace could
   * not time (matched by sequence number, else by position). Without traced frames, the
   * workload's frames are the frames.
   */
  frames(workload: readonly WorkloadFrame[] = []): JoinedFrames {
    const table = this.#end();
    if (table.count === 0) return this.#workloadFrames(workload);
    const count = table.count, columns = table.columns;
    const list = table.list.map((f) => ({ ...f }));
    // The first frame of each sequence number the workload names.
    const bySeq = new Map(workload.filter((w) => w.seqno !== undefined).map((w) => [w.seqno!, w]));
    const firstOf = new Map<number, number>();
    if (bySeq.size > 0) {
      for (let i = 0; i < count; i++) {
        const s = columns.seqno(i);
        if (bySeq.has(s) && !firstOf.has(s) && !Number.isNaN(s)) firstOf.set(s, i);
      }
    }
    // Latencies the workload fills in, by frame (the columns stay as the trace left them).
    const filled = new Map<number, number>();
    workload.forEach((w, i) => {
      const at = (w.seqno !== undefined ? firstOf.get(w.seqno) : undefined) ?? i;
      if (at >= count || !Number.isNaN(columns.latency(at)) || filled.has(at)) return;
      const src = w.seqno !== undefined ? bySeq.get(w.seqno) ?? w : w;
      if (
        src.submitNs !== undefined && src.signalNs !== undefined && src.signalNs >= src.submitNs
      ) {
        filled.set(at, src.signalNs - src.submitNs);
        if (at < list.length) {
          list[at]!.latencyNs = src.signalNs - src.submitNs;
          list[at]!.latencySource = "workload";
        }
      }
    });
    const sources = new Set<"trace" | "workload">();
    if (filled.size > 0) sources.add("workload");
    const latency = new Float64Array(count);
    let n = 0;
    for (let i = 0; i < count; i++) {
      if (columns.source(i) === FROM_TRACE) sources.add("trace");
      const ns = filled.size > 0 ? filled.get(i) ?? columns.latency(i) : columns.latency(i);
      if (!Number.isNaN(ns)) latency[n++] = ns;
    }
    return {
      count,
      list,
      latencyNs: latency.subarray(0, n),
      sources,
      inodes: new Set(this.inodes),
      t0: table.t0,
    };
  }

  #workloadFrames(workload: readonly WorkloadFrame[]): JoinedFrames {
    const list: TracedFrame[] = [];
    const latency: number[] = [];
    const inodes = new Set(this.inodes);
    let t0 = Infinity;
    workload.forEach((w, index) => {
      const f: TracedFrame = { index };
      if (w.seqno !== undefined) f.seqno = w.seqno;
      if (w.inode !== undefined) f.inode = w.inode;
      if (w.submitNs !== undefined) f.submitTs = w.submitNs;
      if (w.signalNs !== undefined) f.signalTs = w.signalNs;
      if (w.submitNs !== undefined && w.signalNs !== undefined && w.signalNs >= w.submitNs) {
        f.latencyNs = w.signalNs - w.submitNs;
        f.latencySource = "workload";
        latency.push(f.latencyNs);
      }
      if (f.inode !== undefined && Number.isFinite(f.inode)) inodes.add(f.inode);
      if (f.submitTs !== undefined && f.submitTs < t0) t0 = f.submitTs;
      if (index < this.#listLimit) list.push(f);
    });
    return {
      count: workload.length,
      list,
      latencyNs: Float64Array.from(latency),
      sources: new Set(latency.length > 0 ? ["workload"] : []),
      inodes,
      t0,
    };
  }

  /** Closes every open frame (once) and returns the table the frames come from. */
  #end(): FrameTable {
    const table = this.#importFrames ?? this.#jobs;
    if (!this.#ended) {
      this.#ended = true;
      for (let i = table.head; i < table.open.length; i++) {
        const o = table.open[i];
        if (o !== undefined) this.#close(table, o);
      }
      table.open = [];
      table.head = 0;
    }
    return table;
  }

  #complete(o: OpenFrame, status: number, ts: number | undefined): void {
    o.completed = true;
    o.frame.status = status;
    if (ts !== undefined) o.frame.completeTs = ts;
    else delete o.frame.completeTs;
  }

  #close(table: FrameTable, o: OpenFrame): void {
    const f = o.frame;
    table.live--;
    if (o.fenceSignal !== undefined) f.signalTs = o.fenceSignal;
    else if (o.completed && f.completeTs !== undefined) f.signalTs = f.completeTs;
    if (f.submitTs !== undefined && f.signalTs !== undefined && f.signalTs >= f.submitTs) {
      f.latencyNs = f.signalTs - f.submitTs;
      f.latencySource = "trace";
    }
    table.columns.set(f.index, f);
    // A copy: the open frame dies young, as V8 expects of what this code allocates per frame
    // (kept frames made here would teach it to allocate every frame in the old generation).
    if (f.index < table.listLimit) table.list[f.index] = { ...f };
    if (o.key !== undefined) this.#unlink(this.#byKey, o.key, o, "sameKey");
    if (!o.released && f.handle !== undefined) {
      this.#unlink(table.awaitingRelease, f.handle, o, "sameHandle");
    }
  }

  #unlink<K>(
    map: ChurningMap<K, OpenFrame>,
    key: K,
    o: OpenFrame,
    link: "sameKey" | "sameHandle",
  ): void {
    let prev: OpenFrame | undefined;
    for (let x = map.get(key); x !== undefined; prev = x, x = x[link]) {
      if (x !== o) continue;
      if (prev) prev[link] = x[link];
      else if (x[link]) map.set(key, x[link]!);
      else map.delete(key);
      return;
    }
  }

  #remember(key: FenceKey): EarlyFence {
    let early = this.#early.get(key);
    if (early === undefined) {
      early = {};
      this.#early.set(key, early);
      if (this.#early.size > this.#window) this.#early.delete(this.#early.first()!);
    }
    return early;
  }

  #keep(text: string): string {
    let kept = this.#strings.get(text);
    if (kept === undefined) {
      // A slice of a big chunk of trace text would keep all of it alive: copy.
      kept = (" " + text).slice(1);
      if (this.#strings.size < 1024) this.#strings.set(kept, kept);
    }
    return kept;
  }
}

/**
 * Joins the trace's axl and dma_fence events into frames (see {@linkcode FrameJoin}): every
 * frame, with workload latencies filled in. Facts folded from a trace carry their join; facts
 * made by hand are joined from their event lists.
 *
 * @example
 * ```ts
 * import { buildFrames } from "./frames.ts";
 * import { emptyTraceFacts } from "./trace_facts.ts";
 * const f = emptyTraceFacts();
 * f.imports.push({ line: 1, ts: 10, handle: 1, inode: 9, exporter: "system" });
 * f.submits.push({ line: 2, ts: 20, context: 5, seqno: 1, handle: 1, inode: 9, status: 0 });
 * f.fences.set("5:1", { driver: "axl", timeline: "metis-0", context: 5, seqno: 1, signaled: 70 });
 * f.releases.push({ line: 4, ts: 90, handle: 1, inode: 9, exporter: "system" });
 * const [frame] = buildFrames(f);
 * console.log(frame?.latencyNs); // 50
 * console.log(frame?.releaseTs); // 90
 * ```
 */
export function buildFrames(
  facts: TracedEvents & { join?: FrameJoin },
  workload: readonly WorkloadFrame[] = [],
): TracedFrame[] {
  const join = facts.join ?? FrameJoin.fromEvents(facts, { listLimit: Infinity });
  return join.frames(workload).list;
}
