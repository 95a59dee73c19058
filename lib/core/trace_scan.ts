/**
 * The shim's trace scanner (`ffi/src/trace_scan.c`): reads whole chunks of ftrace text in C,
 * counts function_graph calls per function there, and hands back only the lines a fold needs
 * as records (see {@linkcode TraceChunkScanner}). The parsing that uses it is
 * `lib/trace/parse/chunk_scan.ts`.
 *
 * @module
 */
import { loadTraceScanShim, ShimLoadError } from "../../ffi/loader.ts";

/** Record kinds (`AXL_TRACE_SCAN_*` of `axl_shim.h`). */
export const SCAN_OTHER = 1, SCAN_CALL = 2, SCAN_EVENT = 3, SCAN_FOLDED = 4;

/** Events {@linkcode TraceChunkScanner.joinAdd} takes (`AXL_TRACE_JOIN_*` of `axl_shim.h`). */
export const JOIN_IMPORT = 1,
  JOIN_RELEASE = 2,
  JOIN_SUBMIT = 3,
  JOIN_COMPLETE = 4,
  JOIN_SIGNALED = 5,
  JOIN_DESTROYED = 6;

// What axl_trace_join_read() reads (AXL_TRACE_JOIN_READ_*).
const READ_SEQNO = 1,
  READ_LATENCY = 2,
  READ_SOURCE = 3,
  READ_LIST = 4,
  READ_INODES = 5,
  READ_EXPORTER_OF = 6,
  READ_EXPORTERS = 7,
  READ_UNRELEASED = 8,
  READ_EVENT_COUNTS = 9;
const SUMMARY_WORDS = 16;
const ENOMEM = 12;

/** A frame's fields as C numbers them (`trace_join.h`), named as `TracedFrame`'s. */
const FRAME_FIELDS = [
  "index",
  "context",
  "seqno",
  "handle",
  "inode",
  "exporter",
  "pid",
  "importTs",
  "submitTs",
  "signalTs",
  "completeTs",
  "releaseTs",
  "status",
  "latencyNs",
  "latencySource",
] as const;
const FIELD_EXPORTER = 5, FIELD_LATENCY_SOURCE = 14;

/** A frame of the C join: its fields in the order they were first set. */
export type JoinedFrameFields = Record<string, number | string>;

/** What the C frame join found (see {@linkcode TraceChunkScanner.joinResult}). */
export interface CFrameJoinResult {
  /** `axl_dmabuf_import` events. */
  imports: number;
  /** `axl_dmabuf_release` events. */
  releases: number;
  /** `axl_job_submit` events. */
  submits: number;
  /** `axl_job_complete` events. */
  completes: number;
  /** Jobs submitted on a buffer with no import of it in flight. */
  unimportedSubmits: number;
  /** Frames (jobs, or imports when no job ran). */
  count: number;
  /** Earliest import or submit time of any frame; Infinity without. */
  t0: number;
  /** Frames still open when the join ended. */
  inFlight: number;
  /** Per frame: sequence number, latency (NaN: none), latency source (0 none, 1 trace). */
  seqno: Float64Array;
  latency: Float64Array;
  source: Uint8Array;
  /** The first frames, whole (fields as `TracedFrame`'s, in the order they were set). */
  list: JoinedFrameFields[];
  /** Inodes, exporter per inode, exporters: each in insertion order. */
  inodes: number[];
  exporterOf: [number, string][];
  exporters: string[];
  /** Handles imported more often than released, in the order of their first import. */
  unreleased: number[];
  /** dma_fence_wait_start + dma_fence_wait_end events folded in C. */
  fenceWaitLines: number;
  /** Earliest and latest time of the events folded in C (NaN: none). */
  firstTs: number;
  lastTs: number;
  /** Events folded in C per event name number (the number of the scanner's records). */
  eventCounts: Map<number, number>;
}

/** Longest record in words: an event with the most fields C reads. */
const RECORD_MAX = 8 + 4 * 16;
/** Records held per call: a 1 MiB chunk of events rarely fills it, and a full one only means another call. */
const OUT_WORDS = 256 * 1024;
// The call table's layout in the state buffer (checked by _Static_assert in trace_scan.c).
const FUNCS = 256, USED_OFFSET = 8, ENTRIES_OFFSET = 16, ENTRY_BYTES = 72, COUNT_OFFSET = 64;

/**
 * One scan of a trace: the C scanner's state (the call table) and the record buffer it
 * fills. Records, from `out[2]` on (`out[0]` words written, `out[1]` lines read), each start
 * with kind and the line's index among the lines of that call:
 *
 * - {@linkcode SCAN_OTHER}: start, end (the line is `text[start..end)`, for the parser);
 * - {@linkcode SCAN_CALL}: start, end of the function name of an entry or leaf call that C
 *   did not count (its first, or no room in the table);
 * - {@linkcode SCAN_EVENT}: name start, name end, ts (ns, NaN when none), pid (NaN when
 *   none), field count, the name's number (the same for the same name during a scan; -1 when
 *   C has no room for it), then key start, key end, value start, value end per field.
 *
 * @example
 * ```ts
 * import { SCAN_EVENT, TraceChunkScanner } from "./trace_scan.ts";
 * const s = new TraceChunkScanner();
 * const text = new TextEncoder().encode("  x-1 [000] ..... 1.000000: axl_job_submit: seqno=9\n");
 * console.log(s.scan(text, text.length) === text.length); // true
 * console.log(s.out[2] === SCAN_EVENT); // true
 * ```
 */
export class TraceChunkScanner {
  /** Records of the last {@linkcode scan}. */
  readonly out: Float64Array<ArrayBuffer>;
  readonly #state: Uint8Array<ArrayBuffer>;
  readonly #scan;
  readonly #symbols;
  readonly #args = new Float64Array(8);
  readonly #encoder = new TextEncoder();
  readonly #decoder = new TextDecoder();

  /**
   * A scanner with an empty call table (ShimLoadError when the shim cannot load); `outWords`
   * sizes the record buffer (a small one makes C stop early and be called again).
   */
  constructor(outWords = OUT_WORDS) {
    const symbols = loadTraceScanShim().symbols;
    this.out = new Float64Array(outWords);
    this.#state = new Uint8Array(symbols.axl_trace_scan_state_bytes());
    this.#scan = symbols.axl_trace_scan;
    this.#symbols = symbols;
    if (!(outWords >= 2 + RECORD_MAX)) {
      throw new RangeError(`TraceChunkScanner: outWords must be >= ${2 + RECORD_MAX}: ${outWords}`);
    }
  }

  /**
   * Scans the lines of `text[0..len)` that end in a newline, until the record buffer is
   * full; returns the bytes read (0 when no newline was found).
   */
  scan(text: Uint8Array<ArrayBuffer>, len: number): number {
    // C trusts the length: it must not reach past the buffer.
    if (!Number.isInteger(len) || len < 0 || len > text.length) {
      throw new RangeError(
        `TraceChunkScanner.scan(): length ${len} is not within 0..${text.length}`,
      );
    }
    const n = this.#scan(this.#state, text, len, this.out, this.out.length);
    if (n < 0) throw new RangeError(`axl_trace_scan: invalid arguments (${n})`);
    return n;
  }

  /**
   * Starts the frame join in C (`FrameJoin` with these options): from now on the scanner
   * folds the axl and dma_fence events it reads, reports only the first of each name (a
   * {@linkcode SCAN_FOLDED} record), skips context switches, and stops after each record
   * the caller may fold itself (an event it could not read, a line for the parser), which
   * the caller then hands over with {@linkcode joinAdd}. Free it with {@linkcode stopJoin}.
   */
  startJoin(listLimit: number, window: number): void {
    const r = this.#symbols.axl_trace_join_start(this.#state, listLimit, window);
    if (r === -ENOMEM) throw new Error("axl_trace_join_start: out of memory");
    if (r < 0) {
      throw new RangeError(
        `axl_trace_join_start: invalid options (listLimit ${listLimit}, window ${window}) ` +
          `or a join already running`,
      );
    }
  }

  /**
   * An event for the C join that TypeScript read ({@linkcode JOIN_IMPORT}...; NaN for what
   * is absent), in line order with the scanner's.
   */
  joinAdd(kind: number, args: readonly number[], text = ""): void {
    for (let i = 0; i < args.length; i++) this.#args[i] = args[i]!;
    const bytes = this.#encoder.encode(text);
    const r = this.#symbols.axl_trace_join_add(this.#state, kind, this.#args, bytes, bytes.length);
    if (r < 0) throw new Error(`axl_trace_join_add(${kind}): error ${r}`);
  }

  /** Ends the C join (open frames are closed) and reads what it found. */
  joinResult(): CFrameJoinResult {
    const sym = this.#symbols;
    const summary = new Float64Array(SUMMARY_WORDS);
    const r = sym.axl_trace_join_summary(this.#state, summary, SUMMARY_WORDS);
    if (r === -ENOMEM) throw new Error("axl_trace_join: out of memory while joining frames");
    if (r < 0) throw new Error(`axl_trace_join_summary: error ${r} (no join running)`);
    const read = (what: number): Float64Array<ArrayBuffer> => {
      const n = sym.axl_trace_join_read(this.#state, what, null, 0);
      if (n < 0) throw new Error(`axl_trace_join_read(${what}): error ${n}`);
      const out = new Float64Array(n);
      // n is the room needed: the words written may be fewer.
      const got = n > 0 ? sym.axl_trace_join_read(this.#state, what, out, n) : 0;
      if (got < 0 || got > n) throw new Error(`axl_trace_join_read(${what}): error ${got}`);
      return out.subarray(0, got);
    };
    const strings: string[] = [];
    for (let id = 0; id < summary[11]!; id++) {
      const len = sym.axl_trace_join_string(this.#state, id, null, 0);
      const bytes = new Uint8Array(Math.max(len, 0));
      if (len < 0 || sym.axl_trace_join_string(this.#state, id, bytes, len) !== len) {
        throw new Error(`axl_trace_join_string(${id}): error ${len}`);
      }
      strings.push(this.#decoder.decode(bytes));
    }
    const list: JoinedFrameFields[] = [];
    const words = read(READ_LIST);
    for (let i = 0; i < words.length;) {
      const frame: JoinedFrameFields = {};
      const n = words[i++]!;
      for (let k = 0; k < n; k++, i += 2) {
        const field = words[i]!, value = words[i + 1]!;
        frame[FRAME_FIELDS[field]!] = field === FIELD_EXPORTER
          ? strings[value]!
          : field === FIELD_LATENCY_SOURCE
          ? "trace"
          : value;
      }
      list.push(frame);
    }
    const pairs = read(READ_EXPORTER_OF), exporterOf: [number, string][] = [];
    for (let i = 0; i < pairs.length; i += 2) exporterOf.push([pairs[i]!, strings[pairs[i + 1]!]!]);
    const counts = read(READ_EVENT_COUNTS), eventCounts = new Map<number, number>();
    for (let i = 0; i < counts.length; i += 2) eventCounts.set(counts[i]!, counts[i + 1]!);
    return {
      imports: summary[0]!,
      releases: summary[1]!,
      submits: summary[2]!,
      completes: summary[3]!,
      unimportedSubmits: summary[4]!,
      count: summary[5]!,
      t0: summary[6]!,
      inFlight: summary[7]!,
      fenceWaitLines: summary[8]!,
      firstTs: summary[9]!,
      lastTs: summary[10]!,
      seqno: read(READ_SEQNO),
      latency: read(READ_LATENCY),
      source: Uint8Array.from(read(READ_SOURCE)),
      list,
      inodes: [...read(READ_INODES)],
      exporterOf,
      exporters: [...read(READ_EXPORTERS)].map((id) => strings[id]!),
      unreleased: [...read(READ_UNRELEASED)],
      eventCounts,
    };
  }

  /**
   * With the join running: events of name number `number` (a {@linkcode SCAN_EVENT}
   * record's) are only counted from now on, in {@linkcode joinResult}'s `eventCounts`.
   */
  joinCountOnly(number: number): void {
    const r = this.#symbols.axl_trace_join_count_only(this.#state, number);
    if (r < 0) throw new RangeError(`axl_trace_join_count_only(${number}): error ${r}`);
  }

  /** Frees the C join (nothing when none runs). */
  stopJoin(): void {
    this.#symbols.axl_trace_join_stop(this.#state);
  }

  /** The calls C counted, per function (beyond the first, which came as a record). */
  counted(): Map<string, number> {
    const view = new DataView(this.#state.buffer);
    const used = view.getUint32(USED_OFFSET, true);
    const out = new Map<string, number>();
    const decoder = new TextDecoder();
    for (let i = 0; i < Math.min(used, FUNCS); i++) {
      const at = ENTRIES_OFFSET + i * ENTRY_BYTES;
      const count = view.getFloat64(at + COUNT_OFFSET, true);
      const len = this.#state[at]!;
      if (count > 0) out.set(decoder.decode(this.#state.subarray(at + 1, at + 1 + len)), count);
    }
    return out;
  }
}

/**
 * Why the C scanner cannot run in this process (the shim does not load: not built, built
 * for another API, or `dlopen` refused, e.g. `deno run` without `--allow-ffi`), or undefined
 * when it can. Each path the loader tried, with its reason, in one line.
 *
 * @example
 * ```ts
 * import { traceScanUnavailable } from "./trace_scan.ts";
 * const why = traceScanUnavailable();
 * console.log(why === undefined ? "the C scanner loads" : `TypeScript only: ${why}`);
 * ```
 */
export function traceScanUnavailable(): string | undefined {
  try {
    loadTraceScanShim();
    return undefined;
  } catch (e) {
    if (!(e instanceof ShimLoadError)) throw e;
    return e.attempts.map((a) => `${a.path}: ${a.reason}`).join("; ");
  }
}
