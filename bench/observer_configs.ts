/**
 * The observer bench's configurations (what verify runs in each run under it) and the shape of
 * its results, shared by `observer_vm.ts` (in the guest) and `observer_bench.ts` (the table).
 *
 * @module
 */
import type { VerifyRunOptions } from "../lib/verify/run.ts";
import type { ObserverSample } from "./observer_workload.ts";

/**
 * What verify runs in a run under it. `verify`: everything, as `axl verify` runs; `--no-perf`:
 * everything but perf. The split's parts alone: `events` is the floor (the trace's tracepoint
 * events only: no function_graph, no kprobes, no perf, the trace read once at the end, bufinfo
 * read only at the start and the end; the map scans still run, as no option stops them), and
 * `events+PART` the floor with one part as verify runs it; `scans` is no verify at all, the
 * workload scanned every 200 ms as verify's map scans do. Older results hold `--no-graph`,
 * `--no-probes` and `--perf-frequency=N` (everything but one part, or perf at N Hz).
 */
export type ObserverConfig =
  | "verify"
  | "--no-perf"
  | "events"
  | "events+graph"
  | "events+probes"
  | "events+bufinfo"
  | "events+drain"
  | "events+perf"
  | "scans"
  | "--no-graph"
  | "--no-probes"
  | `--perf-frequency=${number}`;

/** The runs `--split` adds, one each, in this order. */
export const SPLIT_CONFIGS = [
  "events",
  "events+graph",
  "events+probes",
  "events+bufinfo",
  "events+drain",
  "events+perf",
  "scans",
] as const satisfies readonly ObserverConfig[];

/** bufinfo's interval in the floor: longer than any run, so it is read at the start and end only. */
const BUFINFO_ENDS_ONLY_MS = 3_600_000;

/** The floor: the capture with every optional part off. */
const FLOOR: Partial<VerifyRunOptions> = {
  graph: false,
  probes: false,
  perf: false,
  stream: false,
  bufinfoIntervalMs: BUFINFO_ENDS_ONLY_MS,
};

/** runVerify()'s options for a config (`scans` never reaches verify). */
export function verifyOptions(config: ObserverConfig): Partial<VerifyRunOptions> {
  switch (config) {
    case "verify":
      return {};
    case "--no-perf":
      return { perf: false };
    case "--no-graph":
      return { graph: false };
    case "--no-probes":
      return { probes: false };
    case "events":
      return FLOOR;
    case "events+graph":
      return { ...FLOOR, graph: true };
    case "events+probes":
      return { ...FLOOR, probes: true };
    case "events+bufinfo": {
      // verify's own choice of interval: without the probes' inode events, every 20 ms.
      const { bufinfoIntervalMs: _, ...rest } = FLOOR;
      return rest;
    }
    case "events+drain":
      return { ...FLOOR, stream: true };
    case "events+perf":
      return { ...FLOOR, perf: true };
    case "scans":
      throw new Error("verifyOptions(): the map scans alone run without verify");
  }
  const m = /^--perf-frequency=(\d+)$/.exec(config);
  if (!m) throw new Error(`verifyOptions(): unknown config ${config}`);
  return { perfFrequency: Number(m[1]) };
}

/** One run under verify (or, for `scans`, under the bench's map scans). */
export type ObserverOnSample = ObserverSample & {
  status: string;
  /**
   * I4's status: SKIP when perf did not record (it may not start in time on a loaded
   * host), so that run measured verify without perf. Absent in older results.
   */
  perf?: string;
  config?: ObserverConfig;
};

/** One workload's runs: alone and under verify. */
export interface ObserverRuns {
  frames: number;
  off: ObserverSample[];
  on: ObserverOnSample[];
}

/**
 * The observer-effect runs: the builtin frame loop (top level, as before) and, when the guest
 * has GStreamer, a gst-launch pipeline from vivid's capture to fakesink (`gst`).
 */
export interface ObserverResults extends ObserverRuns {
  gst?: ObserverRuns & { pipeline: string };
}
