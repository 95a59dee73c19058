/**
 * Parsing tracefs `per_cpu/cpuN/stats`, the only reliable place a stopped trace admits that
 * events were lost: reading `trace` after the fact prints no lost-event lines.
 *
 * @module
 */
import { ParseError } from "./parse_error.ts";

/** One CPU's ring-buffer statistics. */
export interface CpuBufferStats {
  /** Events in the buffer now. */
  entries: number;
  /** Events overwritten because the buffer was full (overwrite mode). */
  overrun: number;
  /** Events lost while being committed (nested writers). */
  commitOverrun: number;
  /** Bytes in the buffer now. */
  bytes: number;
  /** Events dropped because the buffer was full (non-overwrite mode). */
  droppedEvents: number;
  /** Events consumed by readers of `trace_pipe`. */
  readEvents: number;
  /** Timestamp of the oldest event, in ns, when printed. */
  oldestEventTs?: number;
  /** Every `key: value` line, as printed. */
  raw: Record<string, string>;
}

const NUMERIC: Record<string, keyof CpuBufferStats> = {
  "entries": "entries",
  "overrun": "overrun",
  "commit overrun": "commitOverrun",
  "bytes": "bytes",
  "dropped events": "droppedEvents",
  "read events": "readEvents",
};

/**
 * Parses one `stats` file. `entries` and `overrun` must be present.
 *
 * @example
 * ```ts
 * import { parsePerCpuStats } from "./per_cpu_stats.ts";
 * const s = parsePerCpuStats("entries: 108\noverrun: 477\ndropped events: 0\n");
 * console.log(s.overrun); // 477
 * console.log(s.entries); // 108
 * ```
 */
export function parsePerCpuStats(text: string, source = "stats"): CpuBufferStats {
  if (typeof text !== "string") throw new TypeError("parsePerCpuStats(): text must be a string");
  const out: CpuBufferStats = {
    entries: 0,
    overrun: 0,
    commitOverrun: 0,
    bytes: 0,
    droppedEvents: 0,
    readEvents: 0,
    raw: {},
  };
  const seen = new Set<string>();
  const lines = text.split("\n");
  lines.forEach((l, i) => {
    if (l.trim() === "") return;
    const m = /^([a-z][a-z ]*):\s*(\S.*?)\s*$/.exec(l);
    if (!m) throw new ParseError("expected 'key: value'", { source, line: i + 1, text: l });
    const key = m[1]!, value = m[2]!;
    out.raw[key] = value;
    seen.add(key);
    const field = NUMERIC[key];
    if (field !== undefined) {
      if (!/^\d+$/.test(value)) {
        throw new ParseError(`'${key}' is not a count`, { source, line: i + 1, text: l });
      }
      (out[field] as number) = Number(value);
    } else if (key === "oldest event ts" && /^\d+(\.\d+)?$/.test(value)) {
      const [s, f = ""] = value.split(".");
      out.oldestEventTs = Number(s) * 1e9 + Number(f.padEnd(9, "0").slice(0, 9));
    }
  });
  for (const need of ["entries", "overrun"]) {
    if (!seen.has(need)) {
      throw new ParseError(`no '${need}:' line`, { source, line: lines.length });
    }
  }
  return out;
}

/** Buffer statistics of every CPU, and what they add up to. */
export interface BufferLoss {
  /** Stats per CPU number. */
  perCpu: Map<number, CpuBufferStats>;
  /** Sum of overrun + commit overrun + dropped events over all CPUs. */
  lost: number;
  /** CPUs that lost events. */
  lossyCpus: number[];
}

/**
 * Adds up the loss counters of several CPUs' stats.
 *
 * @example
 * ```ts
 * import { parsePerCpuStats, summarizeLoss } from "./per_cpu_stats.ts";
 * const loss = summarizeLoss(new Map([[0, parsePerCpuStats("entries: 1\noverrun: 3\n")]]));
 * console.log(loss.lost); // 3
 * console.log(loss.lossyCpus[0]); // 0
 * ```
 */
export function summarizeLoss(perCpu: Map<number, CpuBufferStats>): BufferLoss {
  let lost = 0;
  const lossyCpus: number[] = [];
  for (const [cpu, s] of [...perCpu].sort((a, b) => a[0] - b[0])) {
    const n = s.overrun + s.commitOverrun + s.droppedEvents;
    lost += n;
    if (n > 0) lossyCpus.push(cpu);
  }
  return { perCpu, lost, lossyCpus };
}
