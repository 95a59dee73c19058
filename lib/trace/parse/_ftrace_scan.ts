/**
 * A hand-written scanner for the line shapes that make up nearly all of a trace: event lines
 * (`task-pid [cpu] flags ts: name: body`) and function_graph lines (optional abstime, CPU,
 * optional task column, duration, call or `/* event *\/` comment, context-switch markers).
 *
 * It exists for speed: the regular expressions of `ftrace.ts` cost microseconds per line,
 * this costs a fraction of that. It answers only when it is sure: for every line it accepts
 * it returns exactly the record the regular expressions would (a test compares the two on
 * every captured line and on mutations of them); for anything else — markers, headers,
 * non-ASCII or control characters, unusual spacing, malformed lines — it says so
 * ({@linkcode NOT_READ}, {@linkcode NOT_SCANNED}) and the regular expressions decide.
 *
 * A line is scanned into a reusable {@linkcode LineView} (numbers, interned strings and spans:
 * nothing allocated per line), from which {@linkcode viewRecord} makes the parser's record; a
 * fold that only needs a few fields of a few events reads them from the view instead.
 *
 * Lines are given as a span of a larger string (`s`, from `a` to `b`), so that a chunk of a
 * file can be scanned without cutting it into line strings first, together with that string's
 * bytes `u` at the same indices (ASCII text: `u[i] === s.charCodeAt(i)`). The scanner reads
 * the bytes — a typed-array read costs a third of a `charCodeAt` — and slices the string.
 *
 * @module
 */
import type { FtraceEvent, FtraceGraphCall, FtraceRecord, FtraceSwitch } from "./ftrace_record.ts";
import { fieldInt, type ScannedEvent } from "./scanned_event.ts";

/** Returned for lines the scanner leaves to the regular-expression parser. */
export const NOT_SCANNED = null;

const SPACE = 32, DASH = 45, BAR = 124, COLON = 58, DOT = 46, QUOTE = 34, BACKSLASH = 92;
const OPEN_PAREN = 40, CLOSE_PAREN = 41, OPEN_BRACKET = 91, CLOSE_BRACKET = 93;
const HASH = 35, EQUALS = 61, SLASH = 47, STAR = 42, SEMICOLON = 59;
const OPEN_BRACE = 123, CLOSE_BRACE = 125;

// Character classes, one table read per character. PRINTABLE is printable ASCII without the
// space: everything else (tabs, CR, U+2028, non-breaking spaces) is whitespace or a line
// terminator to the regular expressions in ways not worth copying.
// KEY_START and KEY: [A-Za-z_] and [\w.] of field keys; FUNC: [\w.$] of function names.
const PRINTABLE = 1, DIGIT = 2, KEY_START = 4, KEY = 8, FUNC = 16;
const CLASS = new Uint8Array(256);
for (let c = 33; c <= 126; c++) CLASS[c] = PRINTABLE;
for (let c = 48; c <= 57; c++) CLASS[c]! |= DIGIT | KEY | FUNC;
for (const [lo, hi] of [[65, 90], [97, 122], [95, 95]]) {
  for (let c = lo!; c <= hi!; c++) CLASS[c]! |= KEY_START | KEY | FUNC;
}
CLASS[DOT]! |= KEY | FUNC;
CLASS[36]! |= FUNC; // $

const printable = (c: number): boolean => (CLASS[c]! & PRINTABLE) !== 0;
// A character a regular expression might take for whitespace: the scanner gives up on those.
const odd = (c: number): boolean => c !== SPACE && (CLASS[c]! & PRINTABLE) === 0;
const digit = (c: number): boolean => (CLASS[c]! & DIGIT) !== 0;
// [\w.$] of function names.
const funcChar = (c: number): boolean => (CLASS[c]! & FUNC) !== 0;
// The duration column's markers ("!", "#", "+", ...).
const durationMark = (c: number): boolean =>
  c === 33 || c === HASH || c === STAR || c === 64 || c === 36 || c === 43;

function skipSpaces(u: Uint8Array, i: number, b: number): number {
  while (i < b && u[i]! === SPACE) i++;
  return i;
}

function skipDigits(u: Uint8Array, i: number, b: number): number {
  while (i < b && digit(u[i]!)) i++;
  return i;
}

/** Digits `s[a..b)` as a number; -1 when too long to be exact in a double. */
function digitsValue(u: Uint8Array, a: number, b: number): number {
  if (b - a > 15) return -1;
  let v = 0;
  for (let i = a; i < b; i++) v = v * 10 + (u[i]! - 48);
  return v;
}

/**
 * `seconds.fraction` as ns, as `timestampNs()` computes it (fraction cut to 9 digits); -1 when
 * not exact. `dot` is the index of the dot or `end` when there is none.
 */
function timestampValue(u: Uint8Array, a: number, dot: number, end: number): number {
  const sec = digitsValue(u, a, dot);
  if (sec < 0) return -1;
  if (dot === end) return sec;
  const last = Math.min(end, dot + 10);
  let frac = 0;
  for (let i = dot + 1; i < last; i++) frac = frac * 10 + (u[i]! - 48);
  for (let i = last - dot - 1; i < 9; i++) frac *= 10;
  return sec * 1e9 + frac;
}

/** True when every character of `s[a..b)` is printable ASCII or a space. */
function plain(u: Uint8Array, a: number, b: number): boolean {
  for (let i = a; i < b; i++) {
    const c = u[i]!;
    if (c !== SPACE && !printable(c)) return false;
  }
  return true;
}

/** A hash of a few bytes of `u[a..b)`: names differ early, late or in length. */
function hashOf(u: Uint8Array, a: number, b: number): number {
  const len = b - a;
  const h = Math.imul(len, 0x9e3779b1) ^ (u[a]! << 16) ^ (u[b - 1]! << 8) ^
    u[a + (len >> 1)]! ^ (u[a + (len >> 2)]! << 4) ^ (u[a + ((3 * len) >> 2)]! << 12);
  return h ^ (h >>> 13);
}

/**
 * Strings made from bytes once and handed out again for the same bytes (function names,
 * field keys), as internalized strings, which are the cheapest keys for objects and Maps. At
 * most `limit` are kept; past that, strings are made afresh each time.
 *
 * @example
 * ```ts
 * import { Interned } from "./_ftrace_scan.ts";
 * const t = "a=1 a=2";
 * const u = new TextEncoder().encode(t);
 * const k = new Interned();
 * console.log(k.get(t, u, 0, 1) === k.get(t, u, 4, 5)); // true
 * ```
 */
export class Interned {
  /** The string of the last {@linkcode callColumn} entry or leaf. */
  last = "";
  readonly #limit: number;
  readonly #strings: string[] = [];
  /** The bytes of every string, one after the other, and where each starts and ends. */
  #pool = new Uint8Array(4096);
  #used = 0;
  readonly #start: number[] = [];
  readonly #end: number[] = [];
  /** Open addressing by hash: entry index + 1, 0 for free. */
  #slots = new Int32Array(1024);

  /** Keeps at most `limit` strings (default 4096). */
  constructor(limit = 4096) {
    this.#limit = limit;
  }

  /**
   * The string of `s[a..b)`, whose bytes are `u[a..b)` (not empty); without `s`, the bytes
   * are decoded when the string is new.
   */
  get(s: string | undefined, u: Uint8Array, a: number, b: number): string {
    const len = b - a, h = hashOf(u, a, b);
    const mask = this.#slots.length - 1, pool = this.#pool;
    let slot = h & mask;
    for (let k = this.#slots[slot]!; k !== 0; k = this.#slots[slot = (slot + 1) & mask]!) {
      const start = this.#start[k - 1]!;
      if (this.#end[k - 1]! - start !== len) continue;
      let i = 0;
      while (i < len && pool[start + i] === u[a + i]) i++;
      if (i === len) return this.#strings[k - 1]!;
    }
    // A property key is internalized: the string no longer points into the chunk it came from.
    const raw = s === undefined ? utf8.decode(u.subarray(a, b)) : s.slice(a, b);
    const text = Object.keys({ [raw]: 0 })[0]!;
    if (this.#strings.length < this.#limit) this.#add(text, u, a, b, slot);
    return text;
  }

  #add(text: string, u: Uint8Array, a: number, b: number, slot: number): void {
    if (this.#used + (b - a) > this.#pool.length) {
      const pool = new Uint8Array(Math.max(this.#pool.length * 2, this.#used + (b - a)));
      pool.set(this.#pool);
      this.#pool = pool;
    }
    this.#pool.set(u.subarray(a, b), this.#used);
    this.#start.push(this.#used);
    this.#used += b - a;
    this.#end.push(this.#used);
    this.#strings.push(text);
    this.#slots[slot] = this.#strings.length;
    // At most half full, so that probes stay short: grow and place every entry again.
    if (this.#strings.length * 2 > this.#slots.length) {
      const slots = new Int32Array(this.#slots.length * 2);
      const mask = slots.length - 1;
      for (let k = 0; k < this.#strings.length; k++) {
        let at = hashOf(this.#pool, this.#start[k]!, this.#end[k]!) & mask;
        while (slots[at] !== 0) at = (at + 1) & mask;
        slots[at] = k + 1;
      }
      this.#slots = slots;
    }
  }
}

const utf8 = new TextDecoder();

/** What {@linkcode scanInto} found: a line it leaves to the regular expressions, a line it read, a blank line. */
export const NOT_READ = 0, READ = 1, BLANK = 2;

/** The kinds of line a {@linkcode LineView} holds. */
export const EVENT_LINE = 1, GRAPH_EVENT = 2, GRAPH_CALL = 3, GRAPH_SWITCH = 4;

/**
 * One scanned line, held in place: numbers, interned strings (names, tasks, flags, keys) and
 * spans of the line's text, so that reading a line allocates nothing. One view is filled again
 * for every line; {@linkcode viewRecord} makes the record the parser returns.
 *
 * @example
 * ```ts
 * import { GRAPH_EVENT, LineView, READ, scanInto } from "./_ftrace_scan.ts";
 * const line = " 41.7 |   0)  deno-186  |   |  /* axl_dmabuf_import: handle=4 exporter=system *\/";
 * const v = new LineView();
 * console.log(scanInto(v, line, new TextEncoder().encode(line), 0, line.length, 1) === READ); // true
 * console.log(v.kind === GRAPH_EVENT); // true
 * console.log(v.pid); // 186
 * console.log(v.int("handle")); // 4
 * console.log(v.field("exporter")); // "system"
 * console.log(v.task); // "deno"
 * ```
 */
export class LineView implements ScannedEvent {
  /** The text and bytes the spans index, and the line number. */
  s = "";
  u: Uint8Array = new Uint8Array(0);
  line = 0;
  /** {@linkcode EVENT_LINE}, {@linkcode GRAPH_EVENT}, {@linkcode GRAPH_CALL} or {@linkcode GRAPH_SWITCH}. */
  kind = 0;
  cpu = 0;
  /** ns; NaN when the line has no time column. */
  ts = NaN;
  /** Pid when printed (NaN otherwise); tgid when `record-tgid` printed it. */
  pid = NaN;
  tgid = NaN;
  /** Spans of the task (task0 -1: not printed) and, on event lines, of the flag columns. */
  task0 = -1;
  task1 = -1;
  flags0 = 0;
  flags1 = 0;
  /** Events: name, body span. */
  name = "";
  body0 = 0;
  body1 = 0;
  /**
   * Fields: spans of keys and of values (quotes removed), two numbers each, in order; later
   * keys win. Keys become strings only when asked for: a fold that reads a few fields by name
   * compares bytes instead.
   */
  fields = 0;
  readonly keys: number[] = [];
  readonly values: number[] = [];
  /** function_graph calls: kind, depth, duration in ns (NaN when none), function. */
  call: CallKind = "leaf";
  depth = 0;
  duration = NaN;
  func: string | undefined = undefined;
  /** Context switches: from and to. */
  from = "";
  to = "";

  /** The task, when printed. */
  get task(): string | undefined {
    return this.task0 < 0 ? undefined : tasks.get(this.s, this.u, this.task0, this.task1);
  }

  /** The flag columns of an event line (`""` when absent). */
  get flags(): string {
    return this.flags1 > this.flags0 ? flagTexts.get(this.s, this.u, this.flags0, this.flags1) : "";
  }

  /** The key of field `i`. */
  key(i: number): string {
    return keyTexts.get(this.s, this.u, this.keys[2 * i]!, this.keys[2 * i + 1]!);
  }

  /** The value of field `key` as the parser's `fields` object holds it, or undefined. */
  field(key: string): string | undefined {
    const i = this.#find(key);
    return i < 0 ? undefined : this.s.slice(this.values[2 * i]!, this.values[2 * i + 1]!);
  }

  /** Whether field `key` is present. */
  has(key: string): boolean {
    return this.#find(key) >= 0;
  }

  /**
   * Field `key` as an integer as verify reads them (`0x…` hex, else `Number()`), NaN when
   * absent; plain decimal values are read from the bytes without making a string.
   */
  int(key: string): number {
    const i = this.#find(key);
    if (i < 0) return NaN;
    const a = this.values[2 * i]!, b = this.values[2 * i + 1]!;
    if (b > a && b - a <= 15) {
      let v = 0, k = a;
      for (; k < b; k++) {
        const c = this.u[k]!;
        if (c < 48 || c > 57) break;
        v = v * 10 + (c - 48);
      }
      if (k === b) return v;
    }
    return fieldInt(this.s.slice(a, b));
  }

  #find(key: string): number {
    const len = key.length, u = this.u, first = key.charCodeAt(0);
    for (let i = this.fields - 1; i >= 0; i--) {
      const a = this.keys[2 * i]!;
      if (this.keys[2 * i + 1]! - a !== len || u[a] !== first) continue;
      let k = 1;
      while (k < len && u[a + k] === key.charCodeAt(k)) k++;
      if (k === len) return i;
    }
    return -1;
  }
}

// Names, tasks, flags, keys and functions are few: each is made into a string once.
const names = new Interned();
const tasks = new Interned();
const flagTexts = new Interned();
const keyTexts = new Interned();
const funcs = new Interned();

/**
 * Scans one line into `v`: {@linkcode READ} when it is one of the shapes the scanner knows,
 * {@linkcode BLANK} for blank lines and separator rules (which the parser skips), else
 * {@linkcode NOT_READ}, and the regular expressions must decide.
 *
 * @example
 * ```ts
 * import { LineView, READ, scanInto } from "./_ftrace_scan.ts";
 * const line = "  x-1 [000] ..... 1.000000: axl_job_submit: context=2 seqno=9";
 * const v = new LineView();
 * console.log(scanInto(v, line, new TextEncoder().encode(line), 0, line.length, 1) === READ); // true
 * console.log(v.name); // "axl_job_submit"
 * console.log(v.int("seqno")); // 9
 * ```
 */
export function scanInto(
  v: LineView,
  s: string,
  u: Uint8Array,
  a: number,
  b: number,
  line: number,
): number {
  const i = skipSpaces(u, a, b);
  if (i === b) return BLANK;
  let j = b;
  while (u[j - 1]! === SPACE) j--;
  const first = u[i]!;
  if (!printable(first) || !printable(u[j - 1]!)) return NOT_READ;
  if (first === DASH) return j - i >= 4 && dashesOnly(u, i, j) ? BLANK : NOT_READ;
  if (first === HASH || (first === 67 && u[i + 1] === 80 && u[i + 2] === 85)) return NOT_READ;
  v.s = s;
  v.u = u;
  v.line = line;
  v.ts = NaN;
  v.task0 = v.task1 = -1;
  v.flags0 = v.flags1 = 0;
  v.pid = NaN;
  v.tgid = NaN;
  v.fields = 0;
  v.func = undefined;
  v.duration = NaN;
  const ok = digit(first) ? scanGraph(v, s, u, i, b, j) : scanEvent(v, s, u, i, b, j);
  return ok ? READ : NOT_READ;
}

/**
 * The record the parser returns for a line scanned into `v`.
 *
 * @example
 * ```ts
 * import { LineView, scanInto, viewRecord } from "./_ftrace_scan.ts";
 * const line = " 1) + 24.815 us   |  }";
 * const v = new LineView();
 * scanInto(v, line, new TextEncoder().encode(line), 0, line.length, 9);
 * const r = viewRecord(v);
 * console.log(r.kind); // "graph"
 * if (r.kind === "graph") console.log(r.call, r.duration); // "exit" 24815
 * ```
 */
export function viewRecord(v: LineView): FtraceRecord {
  // Keys in the order the regular-expression parser adds them: records compare equal as JSON.
  switch (v.kind) {
    case EVENT_LINE: {
      const e: FtraceEvent = {
        kind: "event",
        line: v.line,
        task: v.task!,
        pid: v.pid,
        cpu: v.cpu,
        flags: v.flags,
        ts: v.ts,
        name: v.name,
        body: v.s.slice(v.body0, v.body1),
        fields: fieldsObject(v),
      };
      if (!Number.isNaN(v.tgid)) e.tgid = v.tgid;
      return e;
    }
    case GRAPH_EVENT: {
      const e = { kind: "event", line: v.line, cpu: v.cpu } as FtraceEvent;
      if (!Number.isNaN(v.ts)) e.ts = v.ts;
      if (v.task0 >= 0) {
        e.task = v.task!;
        e.pid = v.pid;
      }
      e.flags = "";
      e.name = v.name;
      e.body = v.s.slice(v.body0, v.body1);
      e.fields = fieldsObject(v);
      return e;
    }
    case GRAPH_CALL: {
      const g = { kind: "graph", line: v.line, cpu: v.cpu } as FtraceGraphCall;
      if (!Number.isNaN(v.ts)) g.ts = v.ts;
      if (v.task0 >= 0) {
        g.task = v.task!;
        g.pid = v.pid;
      }
      g.call = v.call;
      g.depth = v.depth;
      if (!Number.isNaN(v.duration)) g.duration = v.duration;
      if (v.func !== undefined) g.func = v.func;
      return g;
    }
    default:
      return { kind: "switch", line: v.line, cpu: v.cpu, from: v.from, to: v.to } as FtraceSwitch;
  }
}

function fieldsObject(v: LineView): Record<string, string> {
  const out: Record<string, string> = {};
  for (let i = 0; i < v.fields; i++) {
    out[v.key(i)] = v.s.slice(v.values[2 * i]!, v.values[2 * i + 1]!);
  }
  return out;
}

/**
 * Scans one line; `undefined` for blank lines and separator rules (as the parser), the record,
 * or {@linkcode NOT_SCANNED}.
 *
 * @example
 * ```ts
 * import { NOT_SCANNED, scanLine } from "./_ftrace_scan.ts";
 * const line = "  x-1 [000] ..... 1.000000: axl_job_submit: context=2 seqno=9";
 * const r = scanLine(line, new TextEncoder().encode(line), 0, line.length, 1);
 * console.log(r?.kind); // "event"
 * if (r?.kind === "event") console.log(r.fields.seqno); // "9"
 * const h = "# tracer: nop";
 * console.log(scanLine(h, new TextEncoder().encode(h), 0, h.length, 2) === NOT_SCANNED); // true
 * ```
 */
export function scanLine(
  s: string,
  u: Uint8Array,
  a: number,
  b: number,
  line: number,
): FtraceRecord | undefined | typeof NOT_SCANNED {
  const found = scanInto(view, s, u, a, b, line);
  return found === READ ? viewRecord(view) : found === BLANK ? undefined : NOT_SCANNED;
}

const view = new LineView();

function dashesOnly(u: Uint8Array, i: number, j: number): boolean {
  for (; i < j; i++) if (u[i]! !== DASH) return false;
  return true;
}

// ---------------------------------------------------------------------------------------------
// function_graph lines

function scanGraph(
  v: LineView,
  s: string,
  u: Uint8Array,
  i: number,
  b: number,
  j: number,
): boolean {
  // `[abstime |] cpu)` — the first digits are the CPU when a ')' follows them.
  const q = skipDigits(u, i, b);
  let cpuStart = i, cpuEnd = q;
  if (u[q]! !== CLOSE_PAREN) {
    let tsEnd = q;
    if (u[q]! === DOT) {
      tsEnd = skipDigits(u, q + 1, b);
      if (tsEnd === q + 1) return false;
    }
    let k = tsEnd;
    if (u[k]! !== SPACE) return false;
    k = skipSpaces(u, k, b);
    if (u[k]! !== BAR || u[k + 1]! !== SPACE) return false;
    cpuStart = skipSpaces(u, k + 1, b);
    cpuEnd = skipDigits(u, cpuStart, b);
    if (cpuEnd === cpuStart || u[cpuEnd]! !== CLOSE_PAREN) return false;
    v.ts = timestampValue(u, i, q, tsEnd);
    if (v.ts < 0) return false;
  }
  v.cpu = digitsValue(u, cpuStart, cpuEnd);
  if (v.cpu < 0) return false;
  const rest = cpuEnd + 1;
  const bar = s.indexOf("|", rest);
  if (bar === -1 || bar >= b) return scanSwitch(v, s, u, rest, j);

  // The funcgraph-proc column: `  task-pid  |`, the task as short as possible.
  let from = rest;
  if (u[rest]! === SPACE) {
    const t0 = skipSpaces(u, rest, b);
    if (u[t0]! === DASH) return false;
    for (let d = s.indexOf("-", t0 + 1); d !== -1 && d < b; d = s.indexOf("-", d + 1)) {
      const e = skipDigits(u, d + 1, b);
      if (e === d + 1) continue;
      if (u[e]! !== SPACE) {
        if (odd(u[e]!)) return false;
        continue;
      }
      const f = skipSpaces(u, e, b);
      if (u[f]! !== BAR) {
        if (odd(u[f]!)) return false;
        continue;
      }
      if (!plain(u, t0, d)) return false;
      v.task0 = t0;
      v.task1 = d;
      v.pid = digitsValue(u, d + 1, e);
      if (v.pid < 0) return false;
      from = f + 1;
      break;
    }
  }
  if (v.task0 < 0 && !durationCellThenBar(u, rest, b)) return false;

  // Duration column, then the call column.
  const bar2 = s.indexOf("|", from);
  if (bar2 === -1 || bar2 >= b) return false;
  const d0 = skipSpaces(u, from, bar2);
  if (d0 < bar2) {
    v.duration = durationValue(s, u, d0, bar2);
    if (v.duration < 0) return false;
  }
  const c0 = skipSpaces(u, bar2 + 1, b);
  if (c0 >= j) return false;
  const head = u[c0]!;
  if (head === SLASH) return graphComment(v, s, u, c0, j);
  v.kind = GRAPH_CALL;
  v.depth = Math.max(0, Math.floor((c0 - bar2 - 3) / 2));
  if (head === CLOSE_BRACE) {
    const func = exitName(s, u, c0, j);
    if (func === NOT_SCANNED) return false;
    v.call = "exit";
    v.func = func;
    return true;
  }
  let n = c0;
  while (n < j && funcChar(u[n]!)) n++;
  if (n === c0 || u[n]! !== OPEN_PAREN || u[n + 1]! !== CLOSE_PAREN) return false;
  const k = skipSpaces(u, n + 2, j);
  const tail = u[k]!;
  if (k !== j - 1 || (tail !== SEMICOLON && tail !== OPEN_BRACE)) return false;
  v.call = tail === SEMICOLON ? "leaf" : "entry";
  v.func = funcs.get(s, u, c0, n);
  return true;
}

/** `^\s*(?:[!#*@$+ ]?\s*\d+(?:\.\d+)?\s*us\s*)?\|` on `s[i..)`. */
function durationCellThenBar(u: Uint8Array, i: number, b: number): boolean {
  let k = skipSpaces(u, i, b);
  if (u[k]! === BAR) return true;
  if (durationMark(u[k]!)) k = skipSpaces(u, k + 1, b);
  const e = skipDigits(u, k, b);
  if (e === k) return false;
  k = e;
  if (u[k]! === DOT) {
    k = skipDigits(u, k + 1, b);
    if (k === e + 1) return false;
  }
  k = skipSpaces(u, k, b);
  if (u[k] !== 117 || u[k + 1] !== 115) return false;
  return u[skipSpaces(u, k + 2, b)]! === BAR;
}

/** `[mark] N[.N] us` filling `s[a..bar)` (a is not a space) as ns; -1 when it is not that. */
function durationValue(
  s: string,
  u: Uint8Array,
  a: number,
  bar: number,
): number {
  let k = a;
  if (durationMark(u[k]!)) k = skipSpaces(u, k + 1, bar);
  const intStart = k, intEnd = skipDigits(u, k, bar);
  if (intEnd === intStart) return -1;
  let fracEnd = intEnd;
  if (u[intEnd]! === DOT) {
    fracEnd = skipDigits(u, intEnd + 1, bar);
    if (fracEnd === intEnd + 1) return -1;
  }
  k = skipSpaces(u, fracEnd, bar);
  if (u[k] !== 117 || u[k + 1] !== 115 || skipSpaces(u, k + 2, bar) !== bar) return -1;
  const fracLen = fracEnd === intEnd ? 0 : fracEnd - intEnd - 1;
  if (intEnd - intStart > 9 || fracLen > 3) {
    return Math.round(Number(s.slice(intStart, fracEnd)) * 1000);
  }
  // Exact for these sizes: what Math.round(Number(text) * 1000) gives, without the string.
  let v = digitsValue(u, intStart, intEnd) * 1000;
  let scale = 100;
  for (let i = intEnd + 1; i < fracEnd; i++, scale /= 10) v += (u[i]! - 48) * scale;
  return v;
}

/** `/* name: body *\/` on `s[c0..j)`. */
function graphComment(v: LineView, s: string, u: Uint8Array, c0: number, j: number): boolean {
  if (j - c0 < 4 || u[c0 + 1]! !== STAR) return false;
  if (u[j - 2]! !== STAR || u[j - 1]! !== SLASH) return false;
  const n0 = skipSpaces(u, c0 + 2, j);
  let n = n0;
  while (n < j && printable(u[n]!) && u[n]! !== COLON) n++;
  if (n === n0 || u[n]! !== COLON || n >= j - 2) return false;
  let k = n + 1;
  if (u[k]! === SPACE && k < j - 2) k++;
  let e = j - 2;
  while (e > k && u[e - 1]! === SPACE) e--;
  if (!scanFieldsInto(v, u, k, e)) return false;
  v.kind = GRAPH_EVENT;
  v.name = names.get(s, u, n0, n);
  v.body0 = k;
  v.body1 = e;
  return true;
}

/** The function of `}` / `} /* name *\/` (undefined without a name), or NOT_SCANNED. */
function exitName(
  s: string,
  u: Uint8Array,
  c0: number,
  j: number,
): string | undefined | typeof NOT_SCANNED {
  if (c0 + 1 === j) return undefined;
  let k = skipSpaces(u, c0 + 1, j);
  if (u[k]! !== SLASH || u[k + 1]! !== STAR) return NOT_SCANNED;
  const n0 = skipSpaces(u, k + 2, j);
  k = n0;
  while (k < j && funcChar(u[k]!)) k++;
  if (k === n0) return NOT_SCANNED;
  const n1 = k;
  k = skipSpaces(u, k, j);
  if (k !== j - 2 || u[k]! !== STAR || u[k + 1]! !== SLASH) return NOT_SCANNED;
  return funcs.get(s, u, n0, n1);
}

/** `  a-1  =>  b-2  ` after the CPU column of a line without `|`. */
function scanSwitch(v: LineView, s: string, u: Uint8Array, rest: number, j: number): boolean {
  const a = skipSpaces(u, rest, j);
  if (a >= j || !plain(u, a, j)) return false;
  for (let q = s.indexOf("=>", a + 1); q !== -1 && q < j; q = s.indexOf("=>", q + 1)) {
    let fromEnd = q;
    while (fromEnd > a && u[fromEnd - 1]! === SPACE) fromEnd--;
    if (fromEnd === q || fromEnd === a || u[q + 2]! !== SPACE) continue;
    const t = skipSpaces(u, q + 2, j);
    if (t >= j) continue;
    v.kind = GRAPH_SWITCH;
    v.from = s.slice(a, fromEnd);
    v.to = s.slice(t, j);
    return true;
  }
  return false;
}

// ---------------------------------------------------------------------------------------------
// event lines

function scanEvent(
  v: LineView,
  s: string,
  u: Uint8Array,
  t0: number,
  b: number,
  j: number,
): boolean {
  // The task is as short as possible: the first "-pid  [cpu] " (or "-pid (tgid) [cpu] ").
  for (let d = s.indexOf("-", t0 + 1); d !== -1 && d < b; d = s.indexOf("-", d + 1)) {
    const e = skipDigits(u, d + 1, b);
    if (e === d + 1) continue;
    // Where \s+ would take a tab or the like, the scanner cannot tell: it gives up.
    if (u[e]! !== SPACE) {
      if (odd(u[e]!)) return false;
      continue;
    }
    let k = skipSpaces(u, e, b);
    let tgid = NaN;
    if (u[k]! === OPEN_PAREN) {
      const g = skipSpaces(u, k + 1, b);
      let h = skipDigits(u, g, b);
      const digits = h > g;
      if (!digits) { while (h < b && u[h]! === DASH) h++; }
      if (odd(u[g]!) || odd(u[h + 1]!)) return false;
      if (h === g || u[h]! !== CLOSE_PAREN || u[h + 1]! !== SPACE) continue;
      if (digits) {
        tgid = digitsValue(u, g, h);
        if (tgid < 0) return false;
      }
      k = skipSpaces(u, h + 1, b);
    }
    if (odd(u[k]!)) return false;
    if (u[k]! !== OPEN_BRACKET) continue;
    const c0 = k + 1, c1 = skipDigits(u, c0, b);
    if (odd(u[c1 + 1]!)) return false;
    if (c1 === c0 || u[c1]! !== CLOSE_BRACKET || u[c1 + 1]! !== SPACE) continue;
    // From here on the regular expression could still pick a later "-pid": leave it to it.
    let t1 = d;
    while (u[t1 - 1]! === SPACE) t1--;
    if (!plain(u, t0, t1)) return false;
    v.pid = digitsValue(u, d + 1, e);
    v.cpu = digitsValue(u, c0, c1);
    if (v.pid < 0 || v.cpu < 0) return false;
    v.tgid = tgid;
    v.task0 = t0;
    v.task1 = t1;
    return eventTail(v, s, u, skipSpaces(u, c1 + 1, b), b, j);
  }
  return false;
}

function eventTail(
  v: LineView,
  s: string,
  u: Uint8Array,
  f: number,
  b: number,
  j: number,
): boolean {
  // Flags are as short as possible: none when a timestamp starts right here.
  let t = f;
  let tsEnd = timestampEnd(u, t, b);
  if (tsEnd < 0) {
    let g = f;
    while (g < b && u[g]! !== SPACE) {
      const c = u[g]!;
      if (!printable(c) || c === COLON) return false;
      g++;
    }
    v.flags0 = f;
    v.flags1 = g;
    t = skipSpaces(u, g, b);
    tsEnd = timestampEnd(u, t, b);
    if (tsEnd < 0) return false;
  }
  let dot = t;
  while (dot < tsEnd && u[dot]! !== DOT) dot++;
  v.ts = timestampValue(u, t, dot, tsEnd);
  if (v.ts < 0) return false;
  // ": name:" then nothing, or one space and the body.
  if (u[tsEnd + 1]! !== SPACE) return false;
  const n0 = skipSpaces(u, tsEnd + 1, b);
  let n = n0;
  while (n < b && printable(u[n]!) && u[n]! !== COLON) n++;
  if (n === n0 || u[n]! !== COLON) return false;
  v.body0 = v.body1 = 0;
  if (n + 1 < b) {
    if (u[n + 1]! !== SPACE) return false;
    const b0 = skipSpaces(u, n + 2, b);
    if (b0 < j) {
      if (!scanFieldsInto(v, u, b0, j)) return false;
      v.body0 = b0;
      v.body1 = j;
    }
  }
  v.kind = EVENT_LINE;
  v.name = names.get(s, u, n0, n);
  return true;
}

/** End of `\d+(\.\d+)?` at `t` when a ':' follows it (the index of the ':'), else -1. */
function timestampEnd(u: Uint8Array, t: number, b: number): number {
  const e = skipDigits(u, t, b);
  if (e === t) return -1;
  if (u[e]! === COLON) return e;
  if (u[e]! !== DOT) return -1;
  const f = skipDigits(u, e + 1, b);
  return f > e + 1 && u[f]! === COLON ? f : -1;
}

// ---------------------------------------------------------------------------------------------
// key=value fields

/**
 * Reads the `key=value` pairs of `s[a..b)` into `v` as `parseFields()` finds them (keys are
 * the leftmost `[A-Za-z_][\w.]*` before an `=`; values are a quoted string, unquoted, or the
 * run up to the next space); false when the span holds anything but printable ASCII and
 * spaces.
 */
function scanFieldsInto(v: LineView, u: Uint8Array, a: number, b: number): boolean {
  let n = 0;
  let i = a;
  // Where the current run of [\w.] characters may start a key (-1: no letter seen in it yet).
  let keyAt = -1;
  while (i < b) {
    const c = u[i]!, cls = CLASS[c]!;
    if ((cls & KEY) !== 0) {
      if (keyAt === -1 && (cls & KEY_START) !== 0) keyAt = i;
      i++;
      continue;
    }
    if (c === EQUALS && keyAt !== -1) {
      const v0 = i + 1;
      let v1 = quotedEnd(u, v0, b);
      if (v1 === -2) return false;
      if (v1 === -1) {
        v1 = v0;
        while (v1 < b && (CLASS[u[v1]!]! & PRINTABLE) !== 0) v1++;
        if (v1 < b && u[v1]! !== SPACE) return false;
      }
      const quoted = v1 - v0 >= 2 && u[v0]! === QUOTE && u[v1 - 1]! === QUOTE;
      v.keys[2 * n] = keyAt;
      v.keys[2 * n + 1] = i;
      v.values[2 * n] = quoted ? v0 + 1 : v0;
      v.values[2 * n + 1] = quoted ? v1 - 1 : v1;
      n++;
      i = v1;
      keyAt = -1;
      continue;
    }
    if (c !== SPACE && (cls & PRINTABLE) === 0) return false;
    // `[001]` outside a value: maybe the CPU column of a second line whose newline was lost;
    // the regular expressions decide.
    if (c === OPEN_BRACKET && cpuColumnAt(u, i, b)) return false;
    keyAt = -1;
    i++;
  }
  v.fields = n;
  return true;
}

/** Whether `u[i..b)` starts with `[ddd]` (three or more digits). */
function cpuColumnAt(u: Uint8Array, i: number, b: number): boolean {
  let k = i + 1;
  while (k < b && digit(u[k]!)) k++;
  return k - i - 1 >= 3 && k < b && u[k]! === CLOSE_BRACKET;
}

/**
 * The `key=value` pairs of `s[a..b)` as `parseFields()` finds them, or NOT_SCANNED when the
 * span holds anything but printable ASCII and spaces.
 *
 * @example
 * ```ts
 * import { scanFields } from "./_ftrace_scan.ts";
 * const body = 'driver=axl seqno=7 name="a b"';
 * const f = scanFields(body, new TextEncoder().encode(body), 0, body.length);
 * console.log(f?.seqno); // "7"
 * console.log(f?.name); // "a b"
 * ```
 */
export function scanFields(
  s: string,
  u: Uint8Array,
  a: number,
  b: number,
): Record<string, string> | typeof NOT_SCANNED {
  fieldView.s = s;
  fieldView.u = u;
  return scanFieldsInto(fieldView, u, a, b) ? fieldsObject(fieldView) : NOT_SCANNED;
}

const fieldView = new LineView();

/** End (exclusive) of a `"..."` value with `\x` escapes at `v0`; -1 if none; -2 if unsure. */
function quotedEnd(u: Uint8Array, v0: number, b: number): number {
  if (u[v0]! !== QUOTE) return -1;
  for (let k = v0 + 1; k < b; k++) {
    const c = u[k]!;
    if (c === QUOTE) return k + 1;
    if (c === BACKSLASH) {
      if (k + 1 >= b) return -1;
      k++;
      if (u[k]! !== SPACE && !printable(u[k]!)) return -2;
    } else if (c !== SPACE && !printable(c)) return -2;
  }
  return -1;
}

// ---------------------------------------------------------------------------------------------
// function_graph call lines, recognised by their call column only

/** What {@linkcode callColumn} recognised: not a call line, or an entry, leaf or exit. */
export const NOT_A_CALL = 0, CALL_ENTRY = 1, CALL_LEAF = 2, CALL_EXIT = 3;

/** The kinds of function_graph call lines. */
export type CallKind = "entry" | "leaf" | "exit";

/** {@linkcode CALL_ENTRY}, {@linkcode CALL_LEAF}, {@linkcode CALL_EXIT} as names. */
export const CALL_KINDS: readonly CallKind[] = ["entry", "entry", "leaf", "exit"];

/**
 * Recognises a function_graph call line (`f() {`, `f();`, `}`, `} /* f *\/`) from its call
 * column alone — the columns before the last `|` are not read — for folds that only count
 * calls per function. Returns {@linkcode NOT_A_CALL} when the line is not one of these (parse
 * it properly then), else the kind; the function of an entry or leaf is then `names.last`,
 * always the same string for the same function. Nothing is allocated per line.
 *
 * @example
 * ```ts
 * import { CALL_LEAF, callColumn, Interned } from "./_ftrace_scan.ts";
 * const l = " 1.000 |   0)  a-1  | + 3.2 us   |    dma_buf_attach();";
 * const names = new Interned();
 * const kind = callColumn(l, new TextEncoder().encode(l), 0, l.length, names);
 * console.log(kind === CALL_LEAF); // true
 * console.log(names.last); // "dma_buf_attach"
 * ```
 */
export function callColumn(
  s: string,
  u: Uint8Array,
  a: number,
  b: number,
  names: Interned,
): number {
  if (b - a < 6 || !digit(u[skipSpaces(u, a, b)]!)) return NOT_A_CALL;
  const last = u[b - 1]!;
  let end: number, kind: number;
  if (last === OPEN_BRACE) {
    if (u[b - 2]! !== SPACE || u[b - 3]! !== CLOSE_PAREN || u[b - 4]! !== OPEN_PAREN) {
      return NOT_A_CALL;
    }
    end = b - 4;
    kind = CALL_ENTRY;
  } else if (last === SEMICOLON) {
    if (u[b - 2]! !== CLOSE_PAREN || u[b - 3]! !== OPEN_PAREN) return NOT_A_CALL;
    end = b - 3;
    kind = CALL_LEAF;
  } else if (last === CLOSE_BRACE) {
    return barBefore(u, a, b - 2) ? CALL_EXIT : NOT_A_CALL;
  } else if (last === SLASH) {
    // Backwards through `} /* name */`; an event's `/* name: body */` fails within a few bytes.
    if (u[b - 2]! !== STAR) return NOT_A_CALL;
    let k = b - 3;
    while (k > a && u[k]! === SPACE) k--;
    const n1 = k;
    while (k > a && funcChar(u[k]!)) k--;
    if (k === n1) return NOT_A_CALL;
    while (k > a && u[k]! === SPACE) k--;
    if (u[k]! !== STAR || u[k - 1]! !== SLASH) return NOT_A_CALL;
    k -= 2;
    while (k > a && u[k]! === SPACE) k--;
    return u[k]! === CLOSE_BRACE && barBefore(u, a, k - 1) ? CALL_EXIT : NOT_A_CALL;
  } else {
    return NOT_A_CALL;
  }
  // Backwards: the name, at least one space, then the '|' before the call column.
  let n0 = end;
  while (n0 > a && funcChar(u[n0 - 1]!)) n0--;
  if (n0 === end) return NOT_A_CALL;
  if (!barBefore(u, a, n0 - 1)) return NOT_A_CALL;
  names.last = names.get(s, u, n0, end);
  return kind;
}

/** At least one space from `k` back, then the `|` that ends the duration column. */
function barBefore(u: Uint8Array, a: number, k: number): boolean {
  if (u[k]! !== SPACE) return false;
  while (k > a && u[k]! === SPACE) k--;
  return k > a && u[k]! === BAR;
}
