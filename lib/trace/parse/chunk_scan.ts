/**
 * The fast way through a big trace: ftrace text read a chunk at a time into one buffer and
 * scanned in C by the shim (`lib/core/trace_scan.ts`), which counts function_graph calls
 * itself and hands TypeScript only the events a fold reads and the lines it must parse.
 * TypeScript never decodes or splits the call lines that make up most of a trace.
 *
 * It answers exactly as {@linkcode scanFtrace} with `onCall` and `onEvent` does (a test
 * holds the two against each other on every captured trace); calls come as counts per
 * function instead of one by one.
 *
 * @module
 */
import { SCAN_CALL, SCAN_EVENT, SCAN_FOLDED, TraceChunkScanner } from "../../core/trace_scan.ts";
import { ftraceLineVisitor, type FtraceParseOptions, type FtraceRecord } from "./ftrace.ts";
import { type ByteReader, type LineSource, readChunks } from "./lines.ts";
import { Interned } from "./_ftrace_scan.ts";
import { fieldInt, type ScannedEvent } from "./scanned_event.ts";

/** Options of {@linkcode scanFtraceChunks}. */
export interface ChunkScanOptions extends FtraceParseOptions {
  /** function_graph entries and leaves of `func`, `count` at a time (exits are not told). */
  onCalls: (func: string, count: number) => void;
  /**
   * Every event the scanners read, valid during the call only; return true when it was
   * taken, false to have a record made for it instead.
   */
  onEvent: (event: ScannedEvent) => boolean;
  /** Size of the record buffer in words (default: room for a chunk of events). */
  recordWords?: number;
  /**
   * false: context-switch lines of function_graph (` 0)  a-1  =>  b-2`) make no `switch`
   * record and are not parsed (default true). A fold that ignores them saves parsing one
   * line in fifty of a trace, a tenth of its time.
   */
  switches?: boolean;
  /**
   * The scanner to use (default: a fresh one), e.g. one whose frame join was started
   * ({@linkcode TraceChunkScanner.startJoin}); its state carries over between scans.
   */
  scanner?: TraceChunkScanner;
  /**
   * The first event of each name that the scanner's C frame join folded (the others are
   * counted there, by `number`), in line order with everything else.
   */
  onFolded?: (name: string, number: number) => void;
  /**
   * With the scanner's C join running: asked once per event name, after its first event went
   * to `onEvent`; true has C only count the later ones (by `number`, as `onFolded`'s).
   */
  countOnly?: (name: string, number: number) => boolean;
}

/** Bytes scanned per call into C. */
export const SCAN_CHUNK_BYTES = 1 << 20;

const NL = 10, SPACE = 32, CLOSE_PAREN = 41, EQUALS = 61, GREATER = 62, BAR = 124;
const decoder = new TextDecoder();

/**
 * Whether `u[a..b)` is a function_graph context switch without a timestamp: spaces, the CPU,
 * `)`, then `from => to` in printable ASCII with no `|`. The parser reads such a line as a
 * `switch` record and nothing else; lines of any other shape go to the parser.
 */
function isSwitchLine(u: Uint8Array, a: number, b: number): boolean {
  let i = a;
  while (i < b && u[i] === SPACE) i++;
  const digits = i;
  while (i < b && u[i]! >= 48 && u[i]! <= 57) i++;
  if (i === digits || u[i] !== CLOSE_PAREN) return false;
  let arrow = -1;
  for (let k = i + 1; k < b; k++) {
    const c = u[k]!;
    if (c < SPACE || c > 126 || c === BAR) return false;
    if (arrow === -1 && c === EQUALS && u[k + 1] === GREATER && u[k - 1] === SPACE) arrow = k;
  }
  if (arrow === -1 || u[arrow + 2] !== SPACE) return false;
  let from = arrow - 1, to = arrow + 2;
  while (from > i && u[from] === SPACE) from--;
  while (to < b && u[to] === SPACE) to++;
  return from > i && to < b;
}

/**
 * An event of a {@linkcode TraceChunkScanner} record, read in place from the chunk's bytes.
 * One object, pointed at each event in turn.
 */
class ChunkEvent implements ScannedEvent {
  name = "";
  /** Short field values (exporters, names) come from here rather than decoded per event. */
  readonly #values = new Interned();
  ts = NaN;
  pid = NaN;
  #u: Uint8Array = new Uint8Array(0);
  /** Where the spans of `out` start in `u`. */
  #base = 0;
  #out: Float64Array = new Float64Array(0);
  /** Index in `out` of the first field span, and the field count. */
  #at = 0;
  #fields = 0;

  point(u: Uint8Array, base: number, out: Float64Array, at: number, name: string): void {
    this.#u = u;
    this.#base = base;
    this.#out = out;
    this.name = name;
    this.ts = out[at + 4]!;
    this.pid = out[at + 5]!;
    this.#fields = out[at + 6]!;
    this.#at = at + 8;
  }

  has(key: string): boolean {
    return this.#find(key) >= 0;
  }

  field(key: string): string | undefined {
    const i = this.#find(key);
    if (i < 0) return undefined;
    const a = this.#base + this.#out[i + 2]!, b = this.#base + this.#out[i + 3]!;
    if (b > a && b - a <= 64) return this.#values.get(undefined, this.#u, a, b);
    return decoder.decode(this.#u.subarray(a, b));
  }

  int(key: string): number {
    const i = this.#find(key);
    if (i < 0) return NaN;
    const u = this.#u, a = this.#base + this.#out[i + 2]!, b = this.#base + this.#out[i + 3]!;
    if (b > a && b - a <= 15) {
      let v = 0, k = a;
      for (; k < b; k++) {
        const c = u[k]!;
        if (c < 48 || c > 57) break;
        v = v * 10 + (c - 48);
      }
      if (k === b) return v;
    }
    return fieldInt(decoder.decode(u.subarray(a, b)));
  }

  /** Index in `out` of the last field named `key` (later keys win), or -1. */
  #find(key: string): number {
    const len = key.length, u = this.#u, out = this.#out, first = key.charCodeAt(0);
    for (let i = this.#at + 4 * (this.#fields - 1); i >= this.#at; i -= 4) {
      const a = this.#base + out[i]!;
      if (out[i + 1]! - out[i]! !== len || u[a] !== first) continue;
      let k = 1;
      while (k < len && u[a + k] === key.charCodeAt(k)) k++;
      if (k === len) return i;
    }
    return -1;
  }
}

function isRegularFile(source: LineSource): source is ByteReader & Required<ByteReader> {
  const r = source as Partial<ByteReader>;
  return typeof r.readSync === "function" && r.statSync?.().isFile === true;
}

/**
 * Parses ftrace text through the shim's C scanner and calls `onRecord` for every record the
 * fold needs, `onCalls` with call counts and `onEvent` for events; resolves to the number of
 * lines read. A regular file (an open `Deno.FsFile`) is read straight into the scan buffer.
 * Throws `ShimLoadError` when the shim cannot be loaded.
 *
 * @example
 * ```ts
 * import { scanFtraceChunks } from "./chunk_scan.ts";
 * const text = [
 *   "  x-1 [000] ..... 1.000000: axl_job_submit: context=1 seqno=1",
 *   "   1.000001 |   0)   x-1    |   0.500 us    |  dma_buf_attach();",
 *   "CPU:0 [LOST 3 EVENTS]",
 * ].join("\n");
 * const kinds: string[] = [], calls: string[] = [];
 * await scanFtraceChunks([text], (r) => kinds.push(r.kind), {
 *   onCalls: (f, n) => calls.push(`${f}×${n}`),
 *   onEvent: (e) => e.name === "axl_job_submit",
 * });
 * console.log(kinds.join()); // "lost"
 * console.log(calls.join()); // "dma_buf_attach×1"
 * ```
 */
export async function scanFtraceChunks(
  source: LineSource,
  onRecord: (record: FtraceRecord) => void,
  options: ChunkScanOptions,
): Promise<number> {
  const { onCalls, onEvent } = options;
  const switches = options.switches ?? true;
  const scanner = options.scanner ?? new TraceChunkScanner(options.recordWords);
  const { onFolded, countOnly } = options;
  const visit = ftraceLineVisitor(onRecord, {
    ...options,
    onCall: (func, call) => {
      if (func !== undefined && call !== "exit") onCalls(func, 1);
    },
  });
  const names = new Interned();
  // Event names by the number C gives them.
  const eventNames: string[] = [];
  const event = new ChunkEvent();
  let buf = new Uint8Array(SCAN_CHUNK_BYTES + 1);
  let filled = 0, lines = 0, started = false;

  // The text of line `[a, b)` of `buf`, handed to the TypeScript parser.
  const parseLine = (a: number, b: number, line: number): void => {
    const text = decoder.decode(buf.subarray(a, b));
    visit(text, 0, text.length, line, text.length === b - a ? buf.subarray(a, b + 1) : undefined);
  };
  const dispatch = (base: number): void => {
    const out = scanner.out, words = out[0]!;
    for (let at = 2; at < words;) {
      const kind = out[at]!, line = lines + out[at + 1]! + 1;
      const a = base + out[at + 2]!, b = base + out[at + 3]!;
      if (kind === SCAN_CALL) {
        onCalls(names.get(undefined, buf, a, b), 1);
        at += 4;
      } else if (kind === SCAN_EVENT) {
        const fields = out[at + 6]!, number = out[at + 7]!;
        let name = eventNames[number];
        const first = name === undefined;
        if (name === undefined) {
          name = names.get(undefined, buf, a, b);
          if (number >= 0) eventNames[number] = name;
        }
        event.point(buf, base, out, at, name);
        if (!onEvent(event)) parseEventLine(base, at, line);
        if (first && number >= 0 && countOnly?.(name, number)) scanner.joinCountOnly(number);
        at += 8 + 4 * fields;
      } else if (kind === SCAN_FOLDED) {
        const number = out[at + 4]!;
        const name = eventNames[number] ?? names.get(undefined, buf, a, b);
        eventNames[number] = name;
        onFolded?.(name, number);
        at += 5;
      } else {
        if (switches || !isSwitchLine(buf, a, b)) parseLine(a, b, line);
        at += 4;
      }
    }
  };
  // An event nobody took: the whole line, from the newline before its name to the one after.
  const parseEventLine = (base: number, at: number, line: number): void => {
    const name = base + scanner.out[at + 2]!;
    const a = buf.lastIndexOf(NL, name) + 1;
    let b = buf.indexOf(NL, name);
    if (b > a && buf[b - 1] === 13) b--;
    parseLine(a, b, line);
  };
  // Scans every complete line of buf[0..filled) and moves the rest to the front.
  const drain = (): void => {
    let pos = 0;
    for (;;) {
      const n = scanner.scan(buf.subarray(pos), filled - pos);
      dispatch(pos);
      lines += scanner.out[1]!;
      pos += n;
      if (n === 0 || pos === filled) break;
    }
    buf.copyWithin(0, pos, filled);
    filled -= pos;
  };
  const dropByteOrderMark = (): void => {
    started = true;
    if (filled >= 3 && buf[0] === 0xef && buf[1] === 0xbb && buf[2] === 0xbf) {
      buf.copyWithin(0, 3, filled);
      filled -= 3;
    }
  };
  const reserve = (size: number): void => {
    if (size <= buf.length) return;
    const grown = new Uint8Array(Math.max(size, buf.length * 2));
    grown.set(buf.subarray(0, filled));
    buf = grown;
  };

  if (isRegularFile(source)) {
    for (;;) {
      // A line longer than the buffer: grow it.
      if (filled >= buf.length - 1) reserve(buf.length * 2);
      const n = source.readSync(buf.subarray(filled, buf.length - 1));
      if (n === null) break;
      filled += n;
      if (!started && filled >= 3) dropByteOrderMark();
      drain();
    }
  } else {
    const encoder = new TextEncoder();
    for await (const piece of readChunks(source)) {
      // A byte-order mark is dropped from bytes only, as the line splitter does.
      if (typeof piece === "string") started = true;
      const chunk = typeof piece === "string" ? encoder.encode(piece) : piece;
      reserve(filled + chunk.length + 1);
      buf.set(chunk, filled);
      filled += chunk.length;
      if (!started && (filled >= 3 || chunk.includes(NL))) dropByteOrderMark();
      drain();
    }
  }
  if (!started) dropByteOrderMark();
  if (filled > 0) {
    // The last line had no newline: give it one, as the line splitter does.
    reserve(filled + 1);
    buf[filled++] = NL;
    drain();
  }
  for (const [func, count] of scanner.counted()) onCalls(func, count);
  return lines;
}
