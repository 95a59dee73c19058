/**
 * Folding a parsed ftrace stream into the facts the invariants need: axl imports, releases
 * and jobs joined into frames as they stream past, function_graph call counts, and every sign
 * of lost events. Memory does not grow with the trace's events: the fold keeps counts and the
 * frame join's bounded state ({@linkcode FrameJoin}), not the events.
 *
 * @module
 */
import {
  type FtraceEvent,
  type FtraceParseOptions,
  type FtraceRecord,
  scanFtrace,
} from "../trace/parse/ftrace.ts";
import { fieldInt, type ScannedEvent } from "../trace/parse/scanned_event.ts";
import type { LineSource } from "../trace/parse/lines.ts";
import { scanFtraceChunks } from "../trace/parse/chunk_scan.ts";
import {
  JOIN_COMPLETE,
  JOIN_DESTROYED,
  JOIN_IMPORT,
  JOIN_RELEASE,
  JOIN_SIGNALED,
  JOIN_SUBMIT,
  TraceChunkScanner,
} from "../core/trace_scan.ts";
import { FRAME_LIST_LIMIT, FRAME_WINDOW, FrameJoin, type FrameJoinOptions } from "./frames.ts";
import type { AxlBufferEvent, AxlJobEvent, FenceLife } from "./trace_events.ts";
import { DmabufProbeFacts, probeInode } from "./evidence/dmabuf_probes.ts";
import { notePointerInode, NvmapFacts } from "./evidence/nvmap_events.ts";

export type { AxlBufferEvent, AxlJobEvent, FenceLife } from "./trace_events.ts";

/** Everything a trace says. */
export interface TraceFacts {
  /** The tracer named by the `# tracer:` header, when the trace has one. */
  tracer?: string;
  /**
   * The axl and dma_fence events joined into frames, with the axl event counts, exporters
   * and unreleased handles. {@linkcode addRecord} creates and feeds it. Facts made by hand
   * (tests, other tools) leave it out and fill the event lists below instead; the judge then
   * joins those.
   */
  join?: FrameJoin;
  /** Imports of facts made by hand; the fold does not keep events (see `join`). */
  imports: AxlBufferEvent[];
  /** Releases of facts made by hand. */
  releases: AxlBufferEvent[];
  /** Job submissions of facts made by hand. */
  submits: AxlJobEvent[];
  /** Job completions of facts made by hand. */
  completes: AxlJobEvent[];
  /** Fences of facts made by hand, by `context:seqno`. */
  fences: Map<string, FenceLife>;
  /** The dma-buf kprobe events per importing device, when the trace has any. */
  dmabuf?: DmabufProbeFacts;
  /**
   * nvmap's dma-buf events (a Jetson's nvmap or the rig's nvmap-sim), when the trace has any;
   * pointers joined to inodes through the probe events' `buf=`/`ino=` pairs.
   */
  nvmap?: NvmapFacts;
  /** dma_fence_wait_start + dma_fence_wait_end lines (the original design's fence_wait_lines). */
  fenceWaitLines: number;
  /** function_graph calls (entries and leaves) per function. */
  graphCalls: Record<string, number>;
  /** Events per name. */
  eventCounts: Record<string, number>;
  /** `[LOST N EVENTS]` total; `lostUnknown` counts `[LOST EVENTS]` markers without a number. */
  lostEvents: number;
  /** `[LOST EVENTS]` markers that did not say how many were lost. */
  lostUnknown: number;
  /** `##### CPU N buffer started ####` markers. */
  bufferStarted: number;
  /** From the header, when printed (nop tracer): X < Y means events were overwritten. */
  entries?: { inBuffer: number; written: number };
  /** Lines the parser did not understand (non-strict parsing). */
  unparsed: number;
  /** The first five of them, as `line N: reason`. */
  firstUnparsed: string[];
  /**
   * Earliest and latest timestamp of the records folded (ns); {@linkcode readTraceFacts}
   * does not read the time column of function_graph call lines.
   */
  firstTs?: number;
  /** Latest timestamp of the records folded (ns), as `firstTs`. */
  lastTs?: number;
}

/**
 * An empty {@linkcode TraceFacts}.
 *
 * @example
 * ```ts
 * import { emptyTraceFacts } from "./trace_facts.ts";
 * console.log(emptyTraceFacts().imports.length); // 0
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

/**
 * Folds one record into `facts` (mutates it).
 *
 * @example
 * ```ts
 * import { addRecord, emptyTraceFacts } from "./trace_facts.ts";
 * import { parseFtraceLine } from "../trace/parse/ftrace.ts";
 * const facts = emptyTraceFacts();
 * addRecord(facts, parseFtraceLine(
 *   "  x-1 [000] ..... 1.000000: axl_dmabuf_import: handle=1 inode=9 exporter=system iova=0x0 size=4",
 *   1,
 * )!);
 * console.log(facts.join?.imports); // 1
 * console.log(facts.join?.inodes.has(9)); // true
 * ```
 */
export function addRecord(facts: TraceFacts, r: FtraceRecord): TraceFacts {
  return addRecordTo(facts, r, undefined);
}

/** What the fold hands the frame join: a {@linkcode FrameJoin}, or the C join's feed. */
type JoinSink = Pick<
  FrameJoin,
  | "addImport"
  | "addRelease"
  | "addSubmit"
  | "addComplete"
  | "addFenceSignaled"
  | "addFenceDestroyed"
>;

/** {@linkcode addRecord} with events joined by `sink` (default: `facts.join`). */
function addRecordTo(facts: TraceFacts, r: FtraceRecord, sink: JoinSink | undefined): TraceFacts {
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
      addEvent(facts, r, sink);
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

function addEvent(facts: TraceFacts, e: FtraceEvent, sink: JoinSink | undefined): void {
  facts.eventCounts[e.name] = (facts.eventCounts[e.name] ?? 0) + 1;
  stamp(facts, e.ts);
  foldEvent(facts, e.name, e.ts, e.pid, recordFields.of(e.fields), sink);
}

/** An event read in place by the scanner (see `scanFtrace()`'s `onEvent`). */
function addEventView(facts: TraceFacts, v: ScannedEvent, sink: JoinSink | undefined): void {
  facts.eventCounts[v.name] = (facts.eventCounts[v.name] ?? 0) + 1;
  const ts = Number.isNaN(v.ts) ? undefined : v.ts;
  stamp(facts, ts);
  foldEvent(facts, v.name, ts, Number.isNaN(v.pid) ? undefined : v.pid, v, sink);
}

/** The fields of an event, from a record's `fields` object or from a scanner's view. */
interface EventFields {
  has(key: string): boolean;
  field(key: string): string | undefined;
  int(key: string): number;
}

/** A record's `fields` as {@linkcode EventFields} (one object, reused). */
const recordFields = new class implements EventFields {
  #f: Record<string, string> = {};
  of(fields: Record<string, string>): this {
    this.#f = fields;
    return this;
  }
  has(key: string): boolean {
    return this.#f[key] !== undefined;
  }
  field(key: string): string | undefined {
    return this.#f[key];
  }
  int(key: string): number {
    const v = this.#f[key];
    return v === undefined ? NaN : fieldInt(v);
  }
}();

function foldEvent(
  facts: TraceFacts,
  name: string,
  ts: number | undefined,
  pid: number | undefined,
  f: EventFields,
  sink: JoinSink | undefined,
): void {
  const join = sink ?? (facts.join ??= new FrameJoin());
  switch (name) {
    case "axl_dmabuf_import":
      return join.addImport(f.int("handle"), f.int("inode"), f.field("exporter") ?? "", ts, pid);
    case "axl_dmabuf_release":
      return join.addRelease(f.int("handle"), f.int("inode"), ts);
    case "axl_job_submit":
      return join.addSubmit(context(f), f.int("seqno"), f.int("handle"), f.int("inode"), ts, pid);
    case "axl_job_complete":
      return join.addComplete(context(f), f.int("seqno"), intOr(f, "status", 0), ts);
    case "dma_fence_signaled":
      return join.addFenceSignaled(f.int("context"), f.int("seqno"), ts);
    case "dma_fence_destroy":
      return join.addFenceDestroyed(f.int("context"), f.int("seqno"));
    case "dma_fence_wait_start":
    case "dma_fence_wait_end":
      facts.fenceWaitLines++;
      return;
  }
  if (DmabufProbeFacts.isProbeEvent(name)) {
    (facts.dmabuf ??= new DmabufProbeFacts(ATTACHED_AT_START.get(facts))).add(name, f);
    const buf = f.field("buf");
    const ino = probeInode(f);
    if (buf !== undefined && ino !== undefined && !Number.isNaN(ino)) {
      notePointerInode(pointersOf(facts), buf, ino);
    }
    return;
  }
  if (NvmapFacts.isNvmapEvent(name)) {
    (facts.nvmap ??= new NvmapFacts(pointersOf(facts))).add(name, pid, f);
  }
}

/** `ReadTraceFactsOptions.attachedAtStart` of a fold, for its probe facts when they start. */
const ATTACHED_AT_START = new WeakMap<TraceFacts, ReadonlyMap<number, readonly string[]>>();

/**
 * The probe events' pointer → inode pairs of a fold, kept beside its facts (not in them: a
 * trace without nvmap events has no use for them) for the nvmap events to join through.
 */
const POINTER_INODES = new WeakMap<TraceFacts, Map<string, number>>();

function pointersOf(facts: TraceFacts): Map<string, number> {
  let m = POINTER_INODES.get(facts);
  if (!m) POINTER_INODES.set(facts, m = new Map());
  return m;
}

/**
 * Field `key` as an integer, `absent` when the event has no such field: one lookup when the
 * field is there (NaN from `int()` means absent or not a number).
 */
function intOr(f: EventFields, key: string, absent: number): number {
  const v = f.int(key);
  return Number.isNaN(v) && !f.has(key) ? absent : v;
}

// Jobs name their fence context `context` (older tracepoints: `ctx`).
function context(f: EventFields): number {
  const v = f.int("context");
  return Number.isNaN(v) && !f.has("context") ? f.int("ctx") : v;
}

/**
 * Folds a whole record stream.
 *
 * @example
 * ```ts
 * import { collectTraceFacts } from "./trace_facts.ts";
 * import { parseFtrace } from "../trace/parse/ftrace.ts";
 * const facts = await collectTraceFacts(parseFtrace(["CPU:0 [LOST 3 EVENTS]\n"]));
 * console.log(facts.lostEvents); // 3
 * ```
 */
export async function collectTraceFacts(
  records: AsyncIterable<FtraceRecord> | Iterable<FtraceRecord>,
): Promise<TraceFacts> {
  const facts = emptyTraceFacts();
  for await (const r of records) addRecord(facts, r);
  return facts;
}

/** Options of {@linkcode readTraceFacts}. */
export interface ReadTraceFactsOptions extends FtraceParseOptions, FrameJoinOptions {
  /**
   * `"c"` (default): the shim's chunk scanner (`scanFtraceChunks()`), which needs
   * `libaxl_shim.so`; `"typescript"`: the same reading in TypeScript only (`scanFtrace()`),
   * slower, kept as the reference the C scanner is tested against.
   */
  scanner?: "c" | "typescript";
  /** The C scanner's record buffer in words (tests: a small one takes the refill path). */
  recordWords?: number;
  /**
   * The devices attached to each inode before the trace (bufinfo's first sample,
   * `BufinfoSummary.atStart`): the starting state of the probe events' attachment fold.
   */
  attachedAtStart?: ReadonlyMap<number, readonly string[]>;
}

/**
 * Reads trace text straight into facts: the fast way through a big trace. Chunks are scanned
 * in C by the shim (`scanFtraceChunks()`; ShimLoadError when it cannot be loaded), which
 * counts function_graph call lines per function from their call column and hands over only
 * events and the lines it leaves to the parser. Lines not understood are counted
 * (`unparsed`) unless `strict` is set.
 *
 * @example
 * ```ts
 * import { readTraceFacts } from "./trace_facts.ts";
 * const facts = await readTraceFacts([
 *   "   1.000000 |   0)   x-1    |               |  dma_buf_attach() {\n",
 *   "   1.000001 |   0)   x-1    |               |  /* axl_job_submit: context=1 seqno=7 *\/\n",
 * ]);
 * console.log(facts.graphCalls.dma_buf_attach); // 1
 * console.log(facts.join?.submits); // 1
 * ```
 */
export async function readTraceFacts(
  source: LineSource,
  options: ReadTraceFactsOptions = {},
): Promise<TraceFacts> {
  const facts = emptyTraceFacts();
  if (options.attachedAtStart) ATTACHED_AT_START.set(facts, options.attachedAtStart);
  // Also checks the options, for both scanners.
  facts.join = new FrameJoin(options);
  const calls = facts.graphCalls;
  const parse = {
    ...(options.source !== undefined ? { source: options.source } : {}),
    strict: options.strict ?? false,
  };
  if ((options.scanner ?? "c") === "c") return await readWithCJoin(source, options, facts);
  await scanFtrace(source, (r) => addRecord(facts, r), {
    ...parse,
    onEvent: (view: ScannedEvent) => {
      addEventView(facts, view, undefined);
      return true;
    },
    onCall: (func) => {
      if (func !== undefined) calls[func] = (calls[func] ?? 0) + 1;
    },
  });
  return facts;
}

/**
 * The C path of {@linkcode readTraceFacts}: the shim scans and joins frames; TypeScript
 * folds what C leaves to it (lines it parses, events C could not read) and hands their axl
 * and fence events to the C join, in line order.
 */
async function readWithCJoin(
  source: LineSource,
  options: ReadTraceFactsOptions,
  facts: TraceFacts,
): Promise<TraceFacts> {
  const calls = facts.graphCalls;
  const scanner = new TraceChunkScanner(options.recordWords);
  scanner.startJoin(options.listLimit ?? FRAME_LIST_LIMIT, options.window ?? FRAME_WINDOW);
  try {
    const sink = cJoinSink(scanner);
    // Event names by the scanner's number, for the counts C kept.
    const names = new Map<number, string>();
    await scanFtraceChunks(source, (r) => addRecordTo(facts, r, sink), {
      ...(options.source !== undefined ? { source: options.source } : {}),
      strict: options.strict ?? false,
      scanner,
      // The fold ignores context switches.
      switches: false,
      onEvent: (view: ScannedEvent) => {
        addEventView(facts, view, sink);
        return true;
      },
      onFolded: (name, number) => {
        names.set(number, name);
        facts.eventCounts[name] ??= 0;
      },
      // Events the fold only counts: C counts them after the first.
      countOnly: (name, number) => {
        if (
          JOINED.has(name) || DmabufProbeFacts.isProbeEvent(name) || NvmapFacts.isNvmapEvent(name)
        ) return false;
        names.set(number, name);
        return true;
      },
      onCalls: (func, count) => {
        calls[func] = (calls[func] ?? 0) + count;
      },
    });
    const r = scanner.joinResult();
    for (const [number, count] of r.eventCounts) {
      const name = names.get(number);
      if (name !== undefined) facts.eventCounts[name]! += count;
    }
    facts.fenceWaitLines += r.fenceWaitLines;
    if (!Number.isNaN(r.firstTs)) stamp(facts, r.firstTs);
    if (!Number.isNaN(r.lastTs)) stamp(facts, r.lastTs);
    facts.join = FrameJoin.fromC(r, options);
    return facts;
  } finally {
    scanner.stopJoin();
  }
}

/** Events {@linkcode foldEvent} does more with than count. */
const JOINED = new Set([
  "axl_dmabuf_import",
  "axl_dmabuf_release",
  "axl_job_submit",
  "axl_job_complete",
  "dma_fence_signaled",
  "dma_fence_destroy",
  "dma_fence_wait_start",
  "dma_fence_wait_end",
]);

/** Events TypeScript folds, handed to the C join of `scanner`. */
function cJoinSink(scanner: TraceChunkScanner): JoinSink {
  const t = (ts: number | undefined) => ts ?? NaN;
  return {
    addImport: (handle, inode, exporter, ts, pid) =>
      scanner.joinAdd(JOIN_IMPORT, [handle, inode, t(ts), t(pid)], exporter),
    addRelease: (handle, inode, ts) => scanner.joinAdd(JOIN_RELEASE, [handle, inode, t(ts)]),
    addSubmit: (context, seqno, handle, inode, ts, pid) =>
      scanner.joinAdd(JOIN_SUBMIT, [context, seqno, handle, inode, t(ts), t(pid)]),
    addComplete: (context, seqno, status, ts) =>
      scanner.joinAdd(JOIN_COMPLETE, [context, seqno, status, t(ts)]),
    addFenceSignaled: (context, seqno, ts) =>
      scanner.joinAdd(JOIN_SIGNALED, [context, seqno, t(ts)]),
    addFenceDestroyed: (context, seqno) => scanner.joinAdd(JOIN_DESTROYED, [context, seqno]),
  };
}
