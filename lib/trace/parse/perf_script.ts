/**
 * Parsing `perf script` output (samples recorded with `-g`) and reducing it to self shares:
 * which symbols the sampled CPUs were executing, and how much of that was copying.
 *
 * @module
 */
import { copyRoutine, normalizeSymbol } from "./copy_routines.ts";
import { type LineSource, readLines } from "./lines.ts";
import { ParseError } from "./parse_error.ts";
import { runtimeThread } from "./perf_script_threads.ts";

/** One stack frame of a sample. */
export interface PerfFrame {
  /** Instruction address as printed (hex). */
  addr: string;
  /** Symbol without offset; `[unknown]` when perf could not resolve it. */
  symbol: string;
  /** DSO as printed inside the parentheses. */
  dso: string;
}

/** One sample. */
export interface PerfSample {
  /** 1-based line of the sample header. */
  line: number;
  /** Command name of the sampled thread. */
  comm: string;
  /** Process id. */
  pid: number;
  /** Thread id (the pid when perf printed only one number). */
  tid: number;
  /** CPU the sample was taken on, when printed. */
  cpu?: number;
  /** Seconds as printed, converted to ns. */
  time: number;
  /** Sample period (weight); 1 when perf did not print it. */
  period: number;
  /** The sampling event, e.g. `cycles` or `cpu-clock`. */
  event: string;
  /** Leaf first. */
  frames: PerfFrame[];
}

// comm pid[/tid] [cpu] time: [period] event:
const HEAD_RE =
  /^(\S.*?)\s+(\d+)(?:\/(\d+))?\s+(?:\[(\d+)\]\s+)?(\d+\.\d+):\s+(?:(\d+)\s+)?(\S+):\s*(.*)$/;
const FRAME_RE = /^\s+([0-9a-fA-F]+)\s+(.*?)\s+\((.*)\)\s*$/;

/**
 * Yields the samples of `perf script` output.
 *
 * @example
 * ```ts
 * import { parsePerfScript } from "./perf_script.ts";
 * const text = "churn   332    37.214841:     250000 cpu-clock: \n" +
 *   "\t    7f73fd9e4ad7 __memmove_avx_unaligned_erms+0x220 (/usr/lib/libc.so.6)\n" +
 *   "\t    55d0 main+0x12 (/usr/bin/churn)\n\n";
 * for await (const s of parsePerfScript([text])) {
 *   console.log(s.frames[0]?.symbol); // "__memmove_avx_unaligned_erms"
 * }
 * ```
 */
export async function* parsePerfScript(
  source: LineSource,
  name = "perf script",
): AsyncGenerator<PerfSample> {
  let cur: PerfSample | undefined;
  for await (const { text, line } of readLines(source)) {
    if (text.trim() === "") {
      if (cur) yield cur;
      cur = undefined;
      continue;
    }
    if (/^\s/.test(text)) {
      if (!cur) throw new ParseError("stack frame outside a sample", { source: name, line, text });
      const f = FRAME_RE.exec(text);
      if (!f) {
        throw new ParseError("stack frame is not 'addr sym (dso)'", { source: name, line, text });
      }
      cur.frames.push({ addr: f[1]!, symbol: normalizeSymbol(f[2]!), dso: f[3]! });
      continue;
    }
    if (cur) yield cur;
    const m = HEAD_RE.exec(text);
    if (!m) throw new ParseError("not a perf script sample header", { source: name, line, text });
    const [sec, frac = ""] = m[5]!.split(".");
    cur = {
      line,
      comm: m[1]!,
      pid: Number(m[2]),
      tid: Number(m[3] ?? m[2]),
      time: Number(sec) * 1e9 + Number(frac.padEnd(9, "0").slice(0, 9)),
      period: m[6] === undefined ? 1 : Number(m[6]),
      event: m[7]!,
      frames: [],
    };
    if (m[4] !== undefined) cur.cpu = Number(m[4]);
    // Without -g perf prints the sampled ip on the header line.
    const inline = /^([0-9a-fA-F]+)\s+(.*?)\s+\((.*)\)\s*$/.exec(m[8]!);
    if (inline) {
      cur.frames.push({ addr: inline[1]!, symbol: normalizeSymbol(inline[2]!), dso: inline[3]! });
    }
  }
  if (cur) yield cur;
}

/** One symbol's self share. */
export interface SymbolShare {
  /** The symbol without its `+0x` offset and `@` suffix. */
  symbol: string;
  /** The object it lives in, e.g. `[kernel.kallsyms]` or `libc.so.6`. */
  dso: string;
  /** Sum of sample periods with this symbol as the leaf. */
  period: number;
  /** Samples with this symbol as the leaf. */
  samples: number;
  /** period / total period, in percent. */
  selfPercent: number;
  /** Id of the copy-routine pattern it matches, if any. */
  copyRoutine?: string;
  /**
   * Set on a copy routine's samples taken in a runtime's own threads (V8's platform workers:
   * `v8-platform-worker`, see `perf_script_threads.ts`): an entry of its own beside the same
   * routine's samples in the workload's threads, counted in the totals, not as a frame copy.
   */
  runtimeThread?: string;
  /** Most common caller (second frame) of the samples, when known. */
  topCaller?: string;
}

/** The reduction of a perf recording. */
export interface PerfSummary {
  /** Samples counted (after the pid filter). */
  samples: number;
  /** Sum of their periods. */
  totalPeriod: number;
  /** Event name(s) seen. */
  events: string[];
  /** Symbols by self share, largest first (all of them). */
  symbols: SymbolShare[];
  /** Copy routines only, largest first: the frames' candidates (no runtime thread's). */
  copyRoutines: SymbolShare[];
  /** Sum of the copy routines' self percent. */
  copyPercent: number;
  /**
   * Copy routines in a runtime's own threads ({@linkcode SymbolShare.runtimeThread}), largest
   * first ({@linkcode summarizePerf} always sets it; a summary built by hand may leave it out).
   */
  runtimeCopies?: SymbolShare[];
  /** Sum of the runtime copies' self percent. */
  runtimeCopyPercent?: number;
  /** Samples whose leaf symbol was unresolved. */
  unknownSamples: number;
}

/** Options of {@linkcode summarizePerf}. */
export interface PerfSummaryOptions {
  /** Only samples of these process ids (thread-group ids) count; default all. */
  pids?: Iterable<number>;
}

/**
 * Computes self shares (leaf frames, period-weighted) and picks out the copy routines. A copy
 * routine's samples in V8's platform worker threads (`comm` `V8 DefaultWorke`: its garbage
 * collector and compilers, never user JavaScript) stay in the totals under an entry of their
 * own, in `runtimeCopies`, not in `copyRoutines`.
 *
 * @example
 * ```ts
 * import { summarizePerf } from "./perf_script.ts";
 * const summary = await summarizePerf([{ line: 1, comm: "a", pid: 1, tid: 1, time: 0,
 *   period: 1, event: "cpu-clock", frames: [{ addr: "0", symbol: "memcpy", dso: "libc" }] }]);
 * console.log(summary.copyRoutines[0]?.selfPercent); // 100
 * ```
 */
export async function summarizePerf(
  samples: AsyncIterable<PerfSample> | Iterable<PerfSample>,
  options: PerfSummaryOptions = {},
): Promise<PerfSummary> {
  const pids = options.pids ? new Set(options.pids) : undefined;
  const bySym = new Map<string, SymbolShare & { callers: Map<string, number> }>();
  const events = new Set<string>();
  let n = 0, total = 0, unknown = 0;
  for await (const s of samples) {
    if (pids && !pids.has(s.pid)) continue;
    n++;
    total += s.period;
    events.add(s.event);
    const leaf = s.frames[0] ?? { addr: "0", symbol: "[unknown]", dso: "[unknown]" };
    if (leaf.symbol === "[unknown]") unknown++;
    const c = copyRoutine(leaf.symbol);
    const runtime = c ? runtimeThread(s.comm) : undefined;
    const key = `${leaf.symbol}\u0000${leaf.dso}${runtime ? `\u0000${runtime.id}` : ""}`;
    let e = bySym.get(key);
    if (!e) {
      e = {
        symbol: leaf.symbol,
        dso: leaf.dso,
        period: 0,
        samples: 0,
        selfPercent: 0,
        callers: new Map(),
      };
      if (c) e.copyRoutine = c.id;
      if (runtime) e.runtimeThread = runtime.id;
      bySym.set(key, e);
    }
    e.period += s.period;
    e.samples++;
    const caller = s.frames[1]?.symbol;
    if (caller) e.callers.set(caller, (e.callers.get(caller) ?? 0) + 1);
  }
  const symbols: SymbolShare[] = [...bySym.values()].map(({ callers, ...rest }) => {
    const out: SymbolShare = { ...rest, selfPercent: total > 0 ? (rest.period / total) * 100 : 0 };
    const top = [...callers].sort((a, b) => b[1] - a[1])[0];
    if (top) out.topCaller = top[0];
    return out;
  }).sort((a, b) => b.period - a.period || a.symbol.localeCompare(b.symbol));
  const copyRoutines = symbols.filter((s) => s.copyRoutine !== undefined && !s.runtimeThread);
  const runtimeCopies = symbols.filter((s) => s.runtimeThread !== undefined);
  return {
    samples: n,
    totalPeriod: total,
    events: [...events],
    symbols,
    copyRoutines,
    copyPercent: copyRoutines.reduce((a, s) => a + s.selfPercent, 0),
    runtimeCopies,
    runtimeCopyPercent: runtimeCopies.reduce((a, s) => a + s.selfPercent, 0),
    unknownSamples: unknown,
  };
}
