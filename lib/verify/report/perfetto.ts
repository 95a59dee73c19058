/**
 * A Chrome trace-event JSON file (opens in Perfetto and chrome://tracing) of a run's frames:
 * per process, one track of frame slices (import → submit → signal → release) and, per fence
 * timeline, one track of job slices.
 *
 * @module
 */
import type { VerifyResult } from "../schema.ts";

/** One Chrome trace event (the subset written here). */
export interface TraceEvent {
  /** Slice or metadata name. */
  name: string;
  /** Phase: `X` a complete slice, `M` metadata, `i` an instant. */
  ph: "X" | "M" | "i";
  /** Track group: one per process. */
  pid: number;
  /** Track within the group. */
  tid: number;
  /** Microseconds. */
  ts: number;
  /** Duration of an `X` slice in microseconds. */
  dur?: number;
  /** Category: `frame` or `stage`. */
  cat?: string;
  /** Scope of an instant: thread, process or global. */
  s?: "t" | "p" | "g";
  /** Extra values shown with the slice. */
  args?: Record<string, unknown>;
}

const STAGES = [
  ["import", "import_ns", "submit_ns"],
  ["queued", "submit_ns", "signal_ns"],
  ["signalled", "signal_ns", "release_ns"],
] as const;

/**
 * The trace-event document for a result's frames.
 *
 * @example
 * ```ts
 * import { perfettoTrace } from "./perfetto.ts";
 * const doc = perfettoTrace({ axl: { frames: { list: [
 *   { index: 0, pid: 7, seqno: 1, import_ns: 0, submit_ns: 1000, signal_ns: 9000, release_ns: 9500 },
 * ] } } } as never);
 * console.log(doc.traceEvents.some((e) => e.name === "frame 0")); // true
 * ```
 */
export function perfettoTrace(
  result: VerifyResult,
): { traceEvents: TraceEvent[]; displayTimeUnit: "ms" } {
  const events: TraceEvent[] = [];
  const pids = new Set<number>();
  for (const f of result.axl.frames.list) {
    const pid = f.pid ?? 0;
    if (!pids.has(pid)) {
      pids.add(pid);
      events.push({
        name: "process_name",
        ph: "M",
        pid,
        tid: 0,
        ts: 0,
        args: { name: pid ? `workload ${pid}` : "frames" },
      });
      events.push({ name: "thread_name", ph: "M", pid, tid: 1, ts: 0, args: { name: "frames" } });
      events.push({ name: "thread_name", ph: "M", pid, tid: 2, ts: 0, args: { name: "stages" } });
    }
    const times = [f.import_ns, f.submit_ns, f.signal_ns, f.release_ns].filter((x): x is number =>
      x !== undefined
    );
    if (times.length === 0) continue;
    const start = Math.min(...times), end = Math.max(...times);
    const args = {
      seqno: f.seqno,
      inode: f.inode,
      handle: f.handle,
      exporter: f.exporter,
      latency_us: f.latency_us,
    };
    events.push({
      name: `frame ${f.index}`,
      cat: "frame",
      ph: "X",
      pid,
      tid: 1,
      ts: start / 1000,
      dur: Math.max(0.001, (end - start) / 1000),
      args,
    });
    for (const [name, from, to] of STAGES) {
      const a = f[from], b = f[to];
      if (a === undefined || b === undefined || b < a) continue;
      events.push({
        name,
        cat: "stage",
        ph: "X",
        pid,
        tid: 2,
        ts: a / 1000,
        dur: Math.max(0.001, (b - a) / 1000),
        args: { frame: f.index },
      });
    }
  }
  return { traceEvents: events, displayTimeUnit: "ms" };
}
