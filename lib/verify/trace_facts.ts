/**
 * Folding a parsed ftrace stream into the facts the invariants need: axl imports, releases
 * and jobs, dma_fence lifecycles, function_graph call counts, and every sign of lost events.
 *
 * @module
 */
import type { FtraceEvent, FtraceRecord } from "../trace/ftrace.ts";

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

/** Everything a trace says. */
export interface TraceFacts {
  tracer?: string;
  imports: AxlBufferEvent[];
  releases: AxlBufferEvent[];
  submits: AxlJobEvent[];
  completes: AxlJobEvent[];
  /** Fences by `context:seqno`. */
  fences: Map<string, FenceLife>;
  /** dma_fence_wait_start + dma_fence_wait_end lines (the seed's fence_wait_lines). */
  fenceWaitLines: number;
  /** function_graph calls (entries and leaves) per function. */
  graphCalls: Record<string, number>;
  /** Events per name. */
  eventCounts: Record<string, number>;
  /** `[LOST N EVENTS]` total; `lostUnknown` counts `[LOST EVENTS]` markers without a number. */
  lostEvents: number;
  lostUnknown: number;
  /** `##### CPU N buffer started ####` markers. */
  bufferStarted: number;
  /** From the header, when printed (nop tracer): X < Y means events were overwritten. */
  entries?: { inBuffer: number; written: number };
  /** Lines the parser did not understand (non-strict parsing). */
  unparsed: number;
  firstUnparsed: string[];
  /** Earliest and latest timestamp seen (ns). */
  firstTs?: number;
  lastTs?: number;
}

/**
 * An empty {@linkcode TraceFacts}.
 *
 * @example
 * ```ts
 * import { emptyTraceFacts } from "./trace_facts.ts";
 * if (emptyTraceFacts().imports.length !== 0) throw new Error();
 * ```
 */
export function emptyTraceFacts(): TraceFacts {
  return {
    imports: [],
    releases: [],
    submits: [],
    completes: [],
    fences: new Map(),
    fenceWaitLines: 0,
    graphCalls: {},
    eventCounts: {},
    lostEvents: 0,
    lostUnknown: 0,
    bufferStarted: 0,
    unparsed: 0,
    firstUnparsed: [],
  };
}

const int = (v: string | undefined): number => {
  if (v === undefined) return NaN;
  return /^0x/i.test(v) ? parseInt(v, 16) : Number(v);
};

/**
 * Folds one record into `facts` (mutates it).
 *
 * @example
 * ```ts
 * import { addRecord, emptyTraceFacts } from "./trace_facts.ts";
 * import { parseFtraceLine } from "../trace/ftrace.ts";
 * const facts = emptyTraceFacts();
 * addRecord(facts, parseFtraceLine(
 *   "  x-1 [000] ..... 1.000000: axl_dmabuf_import: handle=1 inode=9 exporter=system iova=0x0 size=4",
 *   1,
 * )!);
 * if (facts.imports[0]?.inode !== 9) throw new Error();
 * ```
 */
export function addRecord(facts: TraceFacts, r: FtraceRecord): TraceFacts {
  switch (r.kind) {
    case "header":
      if (r.tracer) facts.tracer = r.tracer;
      if (r.entries) facts.entries = { inBuffer: r.entries.inBuffer, written: r.entries.written };
      break;
    case "lost":
      if (r.count === null) facts.lostUnknown++;
      else facts.lostEvents += r.count;
      break;
    case "buffer-started":
      facts.bufferStarted++;
      break;
    case "unparsed":
      facts.unparsed++;
      if (facts.firstUnparsed.length < 5) facts.firstUnparsed.push(`line ${r.line}: ${r.reason}`);
      break;
    case "graph":
      if (r.func && r.call !== "exit") {
        facts.graphCalls[r.func] = (facts.graphCalls[r.func] ?? 0) + 1;
      }
      stamp(facts, r.ts);
      break;
    case "event":
      addEvent(facts, r);
      break;
    case "switch":
      break;
  }
  return facts;
}

function stamp(facts: TraceFacts, ts: number | undefined): void {
  if (ts === undefined) return;
  if (facts.firstTs === undefined || ts < facts.firstTs) facts.firstTs = ts;
  if (facts.lastTs === undefined || ts > facts.lastTs) facts.lastTs = ts;
}

function addEvent(facts: TraceFacts, e: FtraceEvent): void {
  facts.eventCounts[e.name] = (facts.eventCounts[e.name] ?? 0) + 1;
  stamp(facts, e.ts);
  const f = e.fields;
  const base = { line: e.line } as { line: number; ts?: number; pid?: number; task?: string };
  if (e.ts !== undefined) base.ts = e.ts;
  if (e.pid !== undefined) base.pid = e.pid;
  if (e.task !== undefined) base.task = e.task;
  switch (e.name) {
    case "axl_dmabuf_import":
    case "axl_dmabuf_release": {
      const ev: AxlBufferEvent = {
        ...base,
        handle: int(f.handle),
        inode: int(f.inode),
        exporter: f.exporter ?? "",
      };
      (e.name === "axl_dmabuf_import" ? facts.imports : facts.releases).push(ev);
      return;
    }
    case "axl_job_submit":
    case "axl_job_complete": {
      const ev: AxlJobEvent = {
        ...base,
        context: int(f.context ?? f.ctx),
        seqno: int(f.seqno),
        handle: int(f.handle),
        inode: int(f.inode),
        status: int(f.status ?? "0"),
      };
      (e.name === "axl_job_submit" ? facts.submits : facts.completes).push(ev);
      return;
    }
  }
  if (e.name.startsWith("dma_fence_")) {
    const context = int(f.context), seqno = int(f.seqno);
    const key = `${context}:${seqno}`;
    let life = facts.fences.get(key);
    if (!life) {
      life = { driver: f.driver ?? "", timeline: f.timeline ?? "", context, seqno };
      facts.fences.set(key, life);
    }
    const phase = ({
      dma_fence_init: "init",
      dma_fence_emit: "emit",
      dma_fence_signaled: "signaled",
      dma_fence_wait_start: "waitStart",
      dma_fence_wait_end: "waitEnd",
      dma_fence_destroy: "destroy",
    } as const)[e.name as "dma_fence_init"];
    if (phase && e.ts !== undefined && life[phase] === undefined) life[phase] = e.ts;
    if (e.name === "dma_fence_wait_start" || e.name === "dma_fence_wait_end") {
      facts.fenceWaitLines++;
    }
  }
}

/**
 * Folds a whole record stream.
 *
 * @example
 * ```ts
 * import { collectTraceFacts } from "./trace_facts.ts";
 * import { parseFtrace } from "../trace/ftrace.ts";
 * const facts = await collectTraceFacts(parseFtrace(["CPU:0 [LOST 3 EVENTS]\n"]));
 * if (facts.lostEvents !== 3) throw new Error();
 * ```
 */
export async function collectTraceFacts(
  records: AsyncIterable<FtraceRecord> | Iterable<FtraceRecord>,
): Promise<TraceFacts> {
  const facts = emptyTraceFacts();
  for await (const r of records) addRecord(facts, r);
  return facts;
}
