/**
 * The bench's observer-effect section (`deno task bench --only observer`): one VM run of
 * `bench/observer_vm.ts` with vivid, each workload (the builtin frame loop, and a
 * gst-launch-1.0 pipeline from vivid's capture to fakesink) alone and under verify, as table
 * lines, the split (each part of verify alone: {@linkcode observerSplit}) and the targets of
 * what verify may cost per workload, in rows named so that a program can find them: "verify on without
 * perf (builtin)" (fps ≥ 0.90× verify off, process CPU per frame ≤ 1.2×), "verify on
 * (builtin)" (≥ 0.75×, ≤ 1.6×), "verify's own processes (builtin)" (≤ 5 % of one CPU), the
 * same with "(GStreamer)".
 *
 * @module
 */
import type { Target } from "./_results.ts";
import { runGuestJson } from "./_vm_guest.ts";
import type { ObserverConfig, ObserverResults, ObserverRuns } from "./observer_configs.ts";
import type { ObserverSample } from "./observer_workload.ts";

/** One line of the split: a config's medians and their ratios to verify off. */
export interface SplitRow {
  config: ObserverConfig | "off";
  /** What ran, as the table prints it. */
  label: string;
  /** Runs the medians are of. */
  runs: number;
  fps: number;
  cpuUsPerFrame: number;
  /** fps and process CPU per frame, ÷ verify off's medians. */
  fpsRatio: number;
  cpuRatio: number;
  /**
   * CPU the bench's process and the processes it started (the workload aside) took while the
   * workload ran, less their share with verify off: verify's own processes, as a share of one
   * CPU (0.05: 5 %) and in µs per frame at the run's frame rate (median of runs). Absent when
   * not measured.
   */
  ownCpuShare?: number;
  ownCpuUsPerFrame?: number;
  /** Each run's verdict (and I4's when perf ran), or "no verify". */
  statuses: string[];
}

/** What the section keeps in `results.json`: the runs, the split made of them, the VM's time. */
export type ObserverBenchResults = ObserverResults & {
  vmWallS: number;
  split?: { builtin: SplitRow[]; gst?: SplitRow[] };
};

/** Runs observer_vm.ts in the VM rig with vivid; `out` receives the rig's results. */
export async function runObserverVm(
  root: string,
  out: string,
  frames: number,
  rounds = 2,
): Promise<ObserverBenchResults> {
  const { value, vmWallS } = await runGuestJson<ObserverResults>({
    root,
    out,
    guest: `deno run --no-check --allow-all bench/observer_vm.ts --frames ${frames} ` +
      `--rounds ${rounds} --split --gst-frames ${frames} || exit 3`,
    json: "observer.json",
    timeoutS: 3000,
    rigArgs: ["--vivid"],
  });
  return {
    ...value,
    vmWallS,
    split: {
      builtin: observerSplit(value),
      ...(value.gst ? { gst: observerSplit(value.gst) } : {}),
    },
  };
}

type Metric = Exclude<keyof ObserverSample, "frames" | "observerCpu">;

function median(xs: number[]): number {
  const s = [...xs].sort((a, b) => a - b);
  const m = s.length >> 1;
  return s.length % 2 ? s[m]! : (s[m - 1]! + s[m]!) / 2;
}

/** Median of a metric with verify off and on (`config`, default all of verify), on ÷ off. */
export function observerRatio(
  r: ObserverRuns,
  metric: Metric,
  config = "verify",
): { off: number; on: number; ratio: number } {
  const off = median(r.off.map((s) => s[metric]));
  const on = median(r.on.filter((s) => (s.config ?? "verify") === config).map((s) => s[metric]));
  return { off, on, ratio: on / off };
}

const ROWS: [Metric, string, number][] = [
  ["fps", "delivered fps", 1],
  ["cpuUsPerFrame", "process CPU per frame (µs)", 0],
  ["latencyP50Us", "latency p50 (µs)", 0],
  ["latencyP99Us", "latency p99 (µs)", 0],
];

/**
 * The section's table lines.
 *
 * @example
 * ```ts
 * import { observerLines } from "./observer_bench.ts";
 * const s = (fps: number, cpu: number) => ({ frames: 300, fps, cpuUsPerFrame: cpu,
 *   latencyP50Us: 100, latencyP99Us: 200 });
 * const lines = observerLines({ frames: 300, vmWallS: 100, off: [s(60, 500)],
 *   on: [{ ...s(59, 550), status: "PASS" }] });
 * if (!lines.some((l) => l.includes("delivered fps") && l.includes("0.983"))) throw new Error();
 * ```
 */
export function observerLines(r: ObserverBenchResults): string[] {
  const lines = [
    `Observer effect (VM with vivid, each workload as its own process, alone and under verify, ` +
    `${r.off.length} rounds each, medians; VM wall ${Math.round(r.vmWallS)} s)`,
    ...workloadLines(r, `builtin frame loop, ${r.frames} frames (latency: fence)`),
  ];
  if (r.gst) {
    lines.push(
      ...workloadLines(
        r.gst,
        `${r.gst.frames} frames of ${r.gst.pipeline} (latency: v4l2src to fakesink)`,
      ),
    );
  }
  return lines;
}

function workloadLines(r: ObserverRuns, title: string): string[] {
  const lines = [
    `  ${title}; verify: ${
      r.on.filter((s) => (s.config ?? "verify") === "verify")
        .map((s) => `${s.status}${s.perf ? ` (I4 ${s.perf})` : ""}`).join(", ")
    }`,
    `  ${"".padEnd(32)} ${"verify off".padEnd(12)} ${"verify on".padEnd(12)} on/off`,
  ];
  for (const [m, name, digits] of ROWS) {
    const { off, on, ratio } = observerRatio(r, m);
    lines.push(
      `  ${name.padEnd(32)} ${off.toFixed(digits).padEnd(12)} ${on.toFixed(digits).padEnd(12)} ${
        ratio.toFixed(3)
      }`,
    );
  }
  const split = observerSplit(r);
  if (split.length > 2) lines.push(...splitLines(split));
  return lines;
}

/**
 * The section's targets: per workload, "verify on without perf (W)", "verify on (W)" and
 * "verify's own processes (W)", W being builtin or GStreamer.
 *
 * @example
 * ```ts
 * import { observerTargets } from "./observer_bench.ts";
 * const s = (fps: number, cpu: number) => ({ frames: 300, fps, cpuUsPerFrame: cpu,
 *   latencyP50Us: 100, latencyP99Us: 200 });
 * const t = observerTargets({ frames: 300, off: [s(60, 500)], on: [{ ...s(59, 600), status: "PASS" }] });
 * // No run without perf; verify on keeps 0.98× the fps at 1.2× the CPU; no `observerCpu` measured.
 * if (t[0]?.met !== null || t[1]?.name !== "verify on (builtin)" || t[1].met !== true ||
 *   t[2]?.met !== null) throw new Error(JSON.stringify(t));
 * ```
 */
export function observerTargets(r: ObserverResults): Target[] {
  return [
    ...workloadTargets(r, "builtin"),
    ...(r.gst ? workloadTargets(r.gst, "GStreamer") : []),
  ];
}

function workloadTargets(r: ObserverRuns, workload: string): Target[] {
  const rows = observerSplit(r);
  const row = (c: ObserverConfig | "off") => rows.find((x) => x.config === c);
  const off = row("off");
  const out: Target[] = [];
  for (const [config, name, fpsMin, cpuMax] of TARGETS) {
    const on = row(config);
    const bound = `fps ≥ ${fpsMin.toFixed(2)}× verify off, process CPU per frame ≤ ${cpuMax}×`;
    if (!on || !off) {
      out.push({ name: `${name} (${workload})`, target: bound, value: "not measured", met: null });
      continue;
    }
    out.push({
      name: `${name} (${workload})`,
      target: bound,
      value: `fps ${on.fpsRatio.toFixed(2)}× (${off.fps.toFixed(1)} → ${on.fps.toFixed(1)}), ` +
        `CPU per frame ${on.cpuRatio.toFixed(2)}× (${off.cpuUsPerFrame.toFixed(0)} → ` +
        `${on.cpuUsPerFrame.toFixed(0)} µs); median of ${on.runs}`,
      met: on.fpsRatio >= fpsMin && on.cpuRatio <= cpuMax,
      ratios: { fps: on.fpsRatio, cpu: on.cpuRatio },
    });
  }
  const all = row("verify");
  const share = all?.ownCpuShare;
  out.push({
    name: `verify's own processes (${workload})`,
    target: `≤ ${OWN_CPU_MAX * 100} % of one CPU at the workload's frame rate`,
    value: share === undefined || !all
      ? "not measured"
      : `${(share * 100).toFixed(1)} % of one CPU (${all.ownCpuUsPerFrame!.toFixed(0)} µs per ` +
        `frame at ${all.fps.toFixed(1)} fps); median of ${all.runs}`,
    met: share === undefined ? null : share <= OWN_CPU_MAX,
    ...(share === undefined ? {} : { ratios: { share } }),
  });
  return out;
}

/** What verify may cost: config, row name, fps at least, process CPU per frame at most (× off). */
const TARGETS: [ObserverConfig, string, number, number][] = [
  ["--no-perf", "verify on without perf", 0.9, 1.2],
  ["verify", "verify on", 0.75, 1.6],
];

/** Verify's own processes: at most this share of one CPU. */
const OWN_CPU_MAX = 0.05;

/** What each config is, as the split prints it. */
const LABELS: Record<ObserverConfig | "off", string> = {
  off: "verify off",
  verify: "verify on",
  "--no-perf": "verify on without perf",
  events: "tracefs events (floor; map scans in)",
  "events+graph": "  + function_graph",
  "events+probes": "  + kprobes",
  "events+bufinfo": "  + bufinfo sampler (20 ms)",
  "events+drain": "  + drain",
  "events+perf": "  + perf at its rate",
  scans: "map scans alone (no verify)",
  "--no-graph": "verify on without function_graph",
  "--no-probes": "verify on without kprobes",
};

/**
 * The split: for verify off and each config that ran, the medians of fps and process CPU per
 * frame, their ratios to verify off, and verify's own processes' CPU (from each run's
 * `observerCpu`: the CPU the bench's process tree took while the workload ran, verify's own
 * processes under verify, less verify off's share of one CPU).
 *
 * @example
 * ```ts
 * import { observerSplit } from "./observer_bench.ts";
 * const s = (fps: number, cpu: number, own: number) => ({ frames: 300, fps, cpuUsPerFrame: cpu,
 *   latencyP50Us: 1, latencyP99Us: 2, observerCpu: { cpuNs: own, wallNs: 1e9 } });
 * const rows = observerSplit({ frames: 300, off: [s(60, 500, 1e8)],
 *   on: [{ ...s(30, 1000, 3e8), status: "PASS", config: "verify" }] });
 * const on = rows.find((r) => r.config === "verify")!;
 * if (on.fpsRatio !== 0.5 || on.cpuRatio !== 2 || Math.abs(on.ownCpuShare! - 0.2) > 1e-9) {
 *   throw new Error(JSON.stringify(on));
 * }
 * ```
 */
export function observerSplit(r: ObserverRuns): SplitRow[] {
  if (!r.off.length) return [];
  const rate = (x: ObserverSample) =>
    x.observerCpu ? x.observerCpu.cpuNs / x.observerCpu.wallNs : undefined;
  const offRates = r.off.map(rate).filter((x) => x !== undefined);
  const offRate = offRates.length === r.off.length ? median(offRates) : undefined;
  const fps0 = median(r.off.map((x) => x.fps));
  const cpu0 = median(r.off.map((x) => x.cpuUsPerFrame));
  const row = (
    config: ObserverConfig | "off",
    xs: ObserverSample[],
    statuses: string[],
  ): SplitRow => {
    const fps = median(xs.map((x) => x.fps)), cpu = median(xs.map((x) => x.cpuUsPerFrame));
    const rates = xs.map(rate);
    const own = config !== "off" && offRate !== undefined && rates.every((x) => x !== undefined)
      ? median(rates.map((x) => x! - offRate))
      : undefined;
    return {
      config,
      label: LABELS[config] ?? `verify ${config}`,
      runs: xs.length,
      fps,
      cpuUsPerFrame: cpu,
      fpsRatio: fps / fps0,
      cpuRatio: cpu / cpu0,
      ...(own === undefined ? {} : { ownCpuShare: own, ownCpuUsPerFrame: own * 1e6 / fps }),
      statuses,
    };
  };
  const rows = [row("off", r.off, r.off.map(() => "no verify"))];
  for (const c of [...new Set(r.on.map((s) => s.config ?? "verify"))]) {
    const xs = r.on.filter((s) => (s.config ?? "verify") === c);
    rows.push(row(c, xs, xs.map((s) => `${s.status}${s.perf ? ` (I4 ${s.perf})` : ""}`)));
  }
  return rows;
}

/** The split as table lines. */
function splitLines(rows: SplitRow[]): string[] {
  const lines = [
    `  ${"the split (medians)".padEnd(38)} ${"runs".padEnd(5)}${"fps".padEnd(8)}` +
    `${"CPU/frame µs".padEnd(13)}${"fps ×off".padEnd(9)}${"CPU ×off".padEnd(9)}` +
    `verify's own: % of one CPU, µs/frame; verdicts`,
  ];
  for (const x of rows) {
    const own = x.ownCpuShare === undefined
      ? "-"
      : `${(x.ownCpuShare * 100).toFixed(1)} %, ${x.ownCpuUsPerFrame!.toFixed(0)}`;
    lines.push(
      `  ${x.label.padEnd(38)} ${String(x.runs).padEnd(5)}${x.fps.toFixed(1).padEnd(8)}` +
        `${x.cpuUsPerFrame.toFixed(0).padEnd(13)}${x.fpsRatio.toFixed(2).padEnd(9)}` +
        `${x.cpuRatio.toFixed(2).padEnd(9)}${own}; ${[...new Set(x.statuses)].join(", ")}`,
    );
  }
  return lines;
}
