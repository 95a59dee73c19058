/**
 * A streaming parser for ftrace's text output (`trace`, `trace_pipe`, `per_cpu/cpuN/trace`):
 * normal event lines (any flag columns, so PREEMPT_RT and older kernels parse too),
 * function_graph lines (with or without `funcgraph-abstime` / `funcgraph-proc`, including
 * trace events printed as `/* name: body *\/` comments), lost-event markers and headers.
 *
 * Each line goes first through a hand-written scanner of the common shapes
 * (`_ftrace_scan.ts`), then, when the scanner is not sure, through the regular expressions
 * here, which define the format; both give the same record for every line the scanner takes.
 *
 * @module
 */
import { ParseError } from "./parse_error.ts";
import {
  forEachLine,
  type LineSource,
  LineSplitter,
  type LineVisitor,
  readChunks,
} from "./lines.ts";
import {
  BLANK,
  CALL_EXIT,
  CALL_KINDS,
  callColumn,
  type CallKind,
  EVENT_LINE,
  GRAPH_EVENT,
  Interned,
  LineView,
  NOT_A_CALL,
  NOT_SCANNED,
  READ,
  scanFields,
  scanInto,
  scanLine,
  viewRecord,
} from "./_ftrace_scan.ts";

export type { CallKind } from "./_ftrace_scan.ts";
import type { ScannedEvent } from "./scanned_event.ts";
import type {
  FtraceEvent,
  FtraceGraphCall,
  FtraceHeader,
  FtraceRecord,
  FtraceUnparsed,
} from "./ftrace_record.ts";

export type {
  FtraceBufferStarted,
  FtraceEvent,
  FtraceGraphCall,
  FtraceHeader,
  FtraceLost,
  FtraceRecord,
  FtraceSwitch,
  FtraceUnparsed,
} from "./ftrace_record.ts";

/** Options of {@linkcode parseFtrace} and {@linkcode parseFtraceLine}. */
export interface FtraceParseOptions {
  /** Name used in errors (a file path); default `"trace"`. */
  source?: string;
  /** Throw a {@linkcode ParseError} on a line of unknown shape (default) or yield `unparsed`. */
  strict?: boolean;
}

// task-pid, optional (tgid), [cpu], flag columns of any shape, timestamp, event name.
const EVENT_RE =
  /^\s*(.+?)-(\d+)\s+(?:\(\s*(\d+|-+)\)\s+)?\[(\d+)\]\s+(.*?)\s*(\d+(?:\.\d+)?):\s+([^\s:]+):(?:\s(.*))?$/;
// The start of another event line inside an event's body: `task-pid [cpu] … ts:`.
const LOST_NEWLINE_RE =
  /(?:^|\s)\S+-\d+\s+(?:\(\s*[\d-]+\)\s+)?\[\d{3,}\]\s+(?:\S+\s+)?\d+\.\d+:\s/;
const LOST_RE = /^CPU:(\d+) \[LOST (?:(\d+) )?EVENTS\]$/;
const STARTED_RE = /^#{3,}\s*CPU (\d+) buffer started\s*#*$/;
const GRAPH_HEAD_RE = /^\s*(?:(\d+(?:\.\d+)?)\s+\|\s+)?(\d+)\)(.*)$/;
const GRAPH_PROC_RE = /^\s+(.+?)-(\d+)\s+\|(.*)$/;
const DURATION_RE = /^\s*[!#*@$+ ]?\s*(\d+(?:\.\d+)?)\s*us\s*$/;
const FIELD_RE = /([A-Za-z_][\w.]*)=("(?:[^"\\]|\\.)*"|\S*)/g;
const ENTRIES_RE = /entries-in-buffer\/entries-written:\s*(\d+)\/(\d+)(?:\s+#P:(\d+))?/;

/** Options of {@linkcode scanFtrace}. */
export interface FtraceScanOptions extends FtraceParseOptions {
  /**
   * When given, function_graph call lines (`f() {`, `f();`, `}`, `} /* f *\/`) are recognised
   * from their call column alone and reported here instead of being parsed: their other
   * columns (time, CPU, task, duration) are neither read nor checked, so a damaged line that
   * still ends in a well-formed call counts as that call. For folds that only count calls.
   * `func` is undefined for exits; the same function always comes as the same string.
   */
  onCall?: (func: string | undefined, call: CallKind) => void;
  /**
   * When given, called for every event (event lines and function_graph `/* event *\/`
   * comments) the scanner read, as a {@linkcode ScannedEvent} that is valid during the call only;
   * when it returns true, no record is made for that line. Lets a fold read a few fields of a
   * few events without the parser making a record, a fields object and a string per value.
   * Events the scanner leaves to the regular expressions still come as records.
   */
  onEvent?: (event: ScannedEvent) => boolean;
}

/**
 * Parses ftrace text and calls `onRecord` for every record, synchronously, awaiting only
 * between chunks of input; resolves to the number of lines read. The fast way through a big
 * trace: an `await` per record, as {@linkcode parseFtrace} needs, costs more than the parse.
 * A `ByteReader` source (an open `Deno.FsFile`) is read into one reused buffer.
 *
 * @example
 * ```ts
 * import { scanFtrace } from "./ftrace.ts";
 * const text = [
 *   "  x-1 [000] ..... 1.000000: axl_job_submit: context=1 seqno=1",
 *   "   1.000001 |   0)   x-1    |   0.500 us    |  dma_buf_attach();",
 * ].join("\n");
 * const names: string[] = [];
 * let calls = 0;
 * await scanFtrace([text], (r) => names.push(r.kind), { onCall: () => calls++ });
 * console.log(names.join()); // "event"
 * console.log(calls); // 1
 * ```
 */
export async function scanFtrace(
  source: LineSource,
  onRecord: (record: FtraceRecord) => void,
  options: FtraceScanOptions = {},
): Promise<number> {
  return await forEachLine(source, ftraceLineVisitor(onRecord, options));
}

/**
 * What {@linkcode scanFtrace} does with each line, as a {@linkcode LineVisitor}: call lines to
 * `onCall`, events the scanner reads to `onEvent`, everything else parsed into a record. A
 * line is read the same way whatever its neighbours: a line that is all ASCII is scanned
 * even when the text around it is not.
 *
 * @example
 * ```ts
 * import { ftraceLineVisitor } from "./ftrace.ts";
 * const kinds: string[] = [];
 * const visit = ftraceLineVisitor((r) => kinds.push(r.kind));
 * visit("CPU:0 [LOST 2 EVENTS]", 0, 21, 1, undefined);
 * console.log(kinds.join()); // "lost"
 * ```
 */
export function ftraceLineVisitor(
  onRecord: (record: FtraceRecord) => void,
  options: FtraceScanOptions = {},
): LineVisitor {
  const { onCall, onEvent } = options;
  const names = new Interned();
  const view = new LineView();
  return (text, start, end, line, bytes) => {
    if (bytes === undefined) {
      // Text around the line that is not all ASCII: the line itself may still be.
      text = start === 0 && end === text.length ? text : text.slice(start, end);
      start = 0;
      end = text.length;
      bytes = asciiBytes(text);
      if (bytes === undefined) {
        const rec = parseLineGeneral(text, line, options);
        if (rec !== undefined) onRecord(rec);
        return;
      }
    }
    if (onCall !== undefined) {
      const call = callColumn(text, bytes, start, end, names);
      if (call === CALL_EXIT) return onCall(undefined, "exit");
      if (call !== NOT_A_CALL) return onCall(names.last, CALL_KINDS[call]!);
    }
    const found = scanInto(view, text, bytes, start, end, line);
    if (found === BLANK) return;
    if (found === READ) {
      const event = view.kind === EVENT_LINE || view.kind === GRAPH_EVENT;
      if (!(event && onEvent !== undefined && onEvent(view))) onRecord(viewRecord(view));
      return;
    }
    const rec = parseLineGeneral(text.slice(start, end), line, options);
    if (rec !== undefined) onRecord(rec);
  };
}

/**
 * Parses ftrace text line by line. Never buffers the whole input.
 *
 * @example
 * ```ts
 * import { parseFtrace } from "./ftrace.ts";
 * const text = [
 *   "# tracer: nop",
 *   "  gst-launch-1.0-3142  [003] d..2.  123.456789: axl_dmabuf_import: handle=17 inode=41023",
 *   "CPU:1 [LOST 12 EVENTS]",
 * ].join("\n");
 * const kinds: string[] = [];
 * for await (const r of parseFtrace([text])) kinds.push(r.kind);
 * console.log(kinds.join()); // "header,event,lost"
 * ```
 */
export async function* parseFtrace(
  source: LineSource,
  options: FtraceParseOptions = {},
): AsyncGenerator<FtraceRecord> {
  // Lines are found a chunk at a time but parsed one by one as they are asked for: a record
  // then lives only as long as its consumer keeps it. (A chunk's records made at once outlive
  // V8's young collections and end up as old-generation garbage: hundreds of MB at 1 GB.)
  const splitter = new LineSplitter();
  const texts: string[] = [], bytes: (Uint8Array | undefined)[] = [], spans: number[] = [];
  const keep: LineVisitor = (text, start, end, line, b) => {
    texts.push(text);
    bytes.push(b);
    spans.push(start, end, line);
  };
  const parseAt = (i: number): FtraceRecord | undefined =>
    parseSpan(texts[i]!, spans[3 * i]!, spans[3 * i + 1]!, spans[3 * i + 2]!, bytes[i], options);
  for await (const chunk of readChunks(source)) {
    splitter.push(chunk, keep);
    for (let i = 0; i < texts.length; i++) {
      const rec = parseAt(i);
      if (rec !== undefined) yield rec;
    }
    texts.length = bytes.length = spans.length = 0;
  }
  splitter.end(keep);
  for (let i = 0; i < texts.length; i++) {
    const rec = parseAt(i);
    if (rec !== undefined) yield rec;
  }
}

/**
 * Parses one line; `undefined` for blank lines and function_graph separator rules.
 *
 * @example
 * ```ts
 * import { parseFtraceLine } from "./ftrace.ts";
 * const r = parseFtraceLine(" 1) + 24.815 us   |  }", 9);
 * console.log(r?.kind); // "graph"
 * if (r?.kind === "graph") console.log(r.call, r.duration); // "exit" 24815
 * ```
 */
export function parseFtraceLine(
  text: string,
  line: number,
  options: FtraceParseOptions = {},
): FtraceRecord | undefined {
  if (typeof text !== "string") throw new TypeError("parseFtraceLine(): text must be a string");
  if (!Number.isInteger(line) || line < 1) {
    throw new RangeError(`parseFtraceLine(): line must be a positive integer, got ${line}`);
  }
  return parseSpan(text, 0, text.length, line, undefined, options);
}

/** The char codes of an all-ASCII string (and a newline after them), in a reused buffer. */
let ascii = new Uint8Array(256);
function asciiBytes(text: string): Uint8Array | undefined {
  if (text.length >= ascii.length) ascii = new Uint8Array(text.length * 2);
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c > 127) return undefined;
    ascii[i] = c;
  }
  ascii[text.length] = 10;
  return ascii;
}

function parseSpan(
  text: string,
  start: number,
  end: number,
  line: number,
  bytes: Uint8Array | undefined,
  options: FtraceParseOptions,
): FtraceRecord | undefined {
  if (bytes === undefined) {
    // Text that is not all ASCII (or came without its bytes): scan the line if it is ASCII.
    text = start === 0 && end === text.length ? text : text.slice(start, end);
    start = 0;
    end = text.length;
    bytes = asciiBytes(text);
  }
  const rec = bytes === undefined ? NOT_SCANNED : scanLine(text, bytes, start, end, line);
  if (rec !== NOT_SCANNED) return rec;
  return parseLineGeneral(
    start === 0 && end === text.length ? text : text.slice(start, end),
    line,
    options,
  );
}

/**
 * The regular-expression parser: the definition of every line shape, and the parser of the
 * lines the scanner leaves (headers, markers, unusual spacing or characters, malformed
 * lines). {@linkcode parseFtraceLine} gives the same result for every line; this is exported
 * so that a test can hold the two against each other.
 *
 * @example
 * ```ts
 * import { parseLineGeneral } from "./ftrace.ts";
 * const r = parseLineGeneral("CPU:1 [LOST 12 EVENTS]", 3);
 * console.log(r?.kind); // "lost"
 * if (r?.kind === "lost") console.log(r.count); // 12
 * ```
 */
export function parseLineGeneral(
  text: string,
  line: number,
  options: FtraceParseOptions = {},
): FtraceRecord | undefined {
  const trimmed = text.trim();
  if (trimmed === "" || /^-{4,}$/.test(trimmed)) return undefined;
  let m = LOST_RE.exec(trimmed);
  if (m) return { kind: "lost", line, cpu: Number(m[1]), count: m[2] ? Number(m[2]) : null };
  m = STARTED_RE.exec(trimmed);
  if (m) return { kind: "buffer-started", line, cpu: Number(m[1]) };
  if (trimmed.startsWith("#")) return header(trimmed, line);
  const graph = GRAPH_HEAD_RE.exec(text);
  if (graph) {
    const rec = graphLine(graph, line);
    if (typeof rec !== "string") return rec;
    return fail(rec, text, line, options);
  }
  m = EVENT_RE.exec(text);
  if (m) {
    const event: FtraceEvent = {
      kind: "event",
      line,
      task: m[1]!.trim(),
      pid: Number(m[2]),
      cpu: Number(m[4]),
      flags: m[5]!.trim(),
      ts: timestampNs(m[6]!),
      name: m[7]!,
      body: (m[8] ?? "").trim(),
      fields: {},
    };
    if (m[3] !== undefined && /^\d+$/.test(m[3])) event.tgid = Number(m[3]);
    if (LOST_NEWLINE_RE.test(event.body)) {
      return fail("two trace lines on one line (a newline was lost)", text, line, options);
    }
    event.fields = fieldsGeneral(event.body);
    return event;
  }
  return fail("not an event, function_graph or marker line", text, line, options);
}

/**
 * The `key=value` pairs of an event body; quoted values are unquoted.
 *
 * @example
 * ```ts
 * import { parseFields } from "./ftrace.ts";
 * const f = parseFields('driver=axl timeline=metis-0 context=2 seqno=17 name="a b"');
 * console.log(f.seqno); // "17"
 * console.log(f.name); // "a b"
 * ```
 */
export function parseFields(body: string): Record<string, string> {
  const bytes = asciiBytes(body);
  const fast = bytes !== undefined ? scanFields(body, bytes, 0, body.length) : NOT_SCANNED;
  return fast !== NOT_SCANNED ? fast : fieldsGeneral(body);
}

// The regular-expression reading of fields, which scanFields() reproduces for plain ASCII.
function fieldsGeneral(body: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const m of body.matchAll(FIELD_RE)) {
    const v = m[2]!;
    out[m[1]!] = v.length >= 2 && v.startsWith('"') && v.endsWith('"') ? v.slice(1, -1) : v;
  }
  return out;
}

/**
 * Converts an ftrace timestamp (`seconds.micro[nano]` or a raw counter) to ns.
 *
 * @example
 * ```ts
 * import { timestampNs } from "./ftrace.ts";
 * console.log(timestampNs("123.456789")); // 123456789000
 * ```
 */
export function timestampNs(text: string): number {
  const dot = text.indexOf(".");
  if (dot === -1) return Number(text);
  const frac = text.slice(dot + 1, dot + 10).padEnd(9, "0");
  return Number(text.slice(0, dot)) * 1e9 + Number(frac);
}

function header(text: string, line: number): FtraceHeader {
  const rec: FtraceHeader = { kind: "header", line, text };
  const tracer = /^#\s*tracer:\s*(\S+)/.exec(text);
  if (tracer) rec.tracer = tracer[1]!;
  const e = ENTRIES_RE.exec(text);
  if (e) {
    rec.entries = { inBuffer: Number(e[1]), written: Number(e[2]) };
    if (e[3] !== undefined) rec.entries.cpus = Number(e[3]);
  }
  return rec;
}

function graphLine(m: RegExpExecArray, line: number): FtraceRecord | string {
  const ts = m[1] === undefined ? undefined : timestampNs(m[1]);
  const cpu = Number(m[2]);
  let rest = m[3]!;
  const base: { cpu: number; ts?: number; task?: string; pid?: number } = { cpu };
  if (ts !== undefined) base.ts = ts;
  const sw = /^\s*(\S.*?)\s+=>\s+(\S.*?)\s*$/.exec(rest);
  if (sw && !rest.includes("|")) {
    return { kind: "switch", line, cpu, from: sw[1]!, to: sw[2]! };
  }
  const proc = GRAPH_PROC_RE.exec(rest);
  if (proc) {
    base.task = proc[1]!;
    base.pid = Number(proc[2]);
    rest = proc[3]!;
  } else if (!/^\s*(?:[!#*@$+ ]?\s*\d+(?:\.\d+)?\s*us\s*)?\|/.test(rest)) {
    // Not a duration column: maybe funcgraph-proc's cell with an unusual task name.
    const bar = rest.indexOf("|");
    if (bar === -1) return "function_graph line without a '|' column";
    const cell = rest.slice(0, bar).trim();
    if (!/^\S.*-\d+$/.test(cell)) return "function_graph line with an unknown column";
    const dash = cell.lastIndexOf("-");
    base.task = cell.slice(0, dash);
    base.pid = Number(cell.slice(dash + 1));
    rest = rest.slice(bar + 1);
  }
  const bar = rest.indexOf("|");
  if (bar === -1) return "function_graph line without a duration column";
  const durText = rest.slice(0, bar);
  let duration: number | undefined;
  if (durText.trim() !== "") {
    const d = DURATION_RE.exec(durText);
    if (!d) return "function_graph duration is not '<n> us'";
    duration = Math.round(Number(d[1]) * 1000);
  }
  const body = rest.slice(bar + 1);
  const indent = body.length - body.trimStart().length;
  const depth = Math.max(0, Math.floor((indent - 2) / 2));
  const call = body.trim();
  const comment = /^\/\*\s*([^\s:]+):\s?(.*?)\s*\*\/$/.exec(call);
  if (comment) {
    const bodyText = comment[2]!;
    return {
      kind: "event",
      line,
      ...base,
      flags: "",
      name: comment[1]!,
      body: bodyText,
      fields: fieldsGeneral(bodyText),
    };
  }
  const rec: FtraceGraphCall = { kind: "graph", line, ...base, call: "leaf", depth };
  if (duration !== undefined) rec.duration = duration;
  let c = /^([\w.$]+)\(\)\s*;(?:\s*\/\*.*\*\/)?$/.exec(call);
  if (c) return { ...rec, func: c[1]!, call: "leaf" };
  c = /^([\w.$]+)\(\)\s*\{$/.exec(call);
  if (c) return { ...rec, func: c[1]!, call: "entry" };
  c = /^\}(?:\s*\/\*\s*([\w.$]+)\s*\*\/)?(?:\s*\/\*.*\*\/)?$/.exec(call);
  if (c) {
    const exit: FtraceGraphCall = { ...rec, call: "exit" };
    if (c[1] !== undefined) exit.func = c[1];
    return exit;
  }
  if (/^(?:=+>|<=+)/.test(call)) return { kind: "header", line, text: call };
  // A comment without `name:` is a trace_marker write or printk text: a comment, not an event.
  if (/^\/\*.*\*\/$/.test(call)) return { kind: "header", line, text: call };
  return "function_graph call column is not 'f() {', 'f();', '}' or a /* comment */";
}

function fail(
  reason: string,
  text: string,
  line: number,
  options: FtraceParseOptions,
): FtraceUnparsed {
  if (options.strict ?? true) {
    throw new ParseError(reason, { source: options.source ?? "trace", line, text });
  }
  return { kind: "unparsed", line, text, reason };
}
