/**
 * The bench's observer-effect section (`deno task bench --only observer`): one VM run of
 * `bench/observer_vm.ts` with vivid, each workload (the builtin frame loop, and a
 * gst-launch-1.0 pipeline from vivid's capture to fakesink) alone and under verify, as table
 * lines and targets per workload (verify on costs the workload ≤ 3 % of its fps and ≤ 10 %
 * of its CPU per frame). Under a loaded TCG host one run takes 20 to 40 minutes.
 *
 * @module
 */
import type { Target } from "./_results.ts";
import { runGuestJson } from "./_vm_guest.ts";
import type { ObserverResults, ObserverRuns } from "./observer_vm.ts";
import type { ObserverSample } from "./observer_workload.ts";

/** What the section keeps in `results.json`. */
export type ObserverBenchResults = ObserverResults & { vmWallS: number };

/** Runs observer_vm.ts in the VM rig with vivid; `out` receives the rig's results. */
export async function runObserverVm(
  root: string,
  out: string,
  frames: number,
): Promise<ObserverBenchResults> {
  const { value, vmWallS } = await runGuestJson<ObserverResults>({
    root,
    out,
    guest: `deno run --no-check --allow-all bench/observer_vm.ts --frames ${frames} --split ` +
      `--gst-frames ${frames} || exit 3`,
    json: "observer.json",
    timeoutS: 3000,
    rigArgs: ["--vivid"],
  });
  return { ...value, vmWallS };
}

type Metric = Exclude<keyof ObserverSample, "frames">;

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
  const split = [...new Set(r.on.map((s) => s.config ?? "verify"))].filter((c) => c !== "verify");
  if (split.length) {
    lines.push(`  verify changed (one run each; fps, CPU per frame µs; on/off of each):`);
    for (const c of split) {
      const fps = observerRatio(r, "fps", c), cpu = observerRatio(r, "cpuUsPerFrame", c);
      const i4 = r.on.filter((s) => s.config === c && s.perf).map((s) => `I4 ${s.perf}`);
      lines.push(
        `  ${`  verify ${c}`.padEnd(32)} ${fps.on.toFixed(1).padEnd(12)} ${
          cpu.on.toFixed(0).padEnd(12)
        } ${fps.ratio.toFixed(3)}, ${cpu.ratio.toFixed(3)}${
          i4.length ? ` (${i4.join(", ")})` : ""
        }`,
      );
    }
  }
  return lines;
}

/**
 * The section's targets.
 *
 * @example
 * ```ts
 * import { observerTargets } from "./observer_bench.ts";
 * const s = (fps: number, cpu: number) => ({ frames: 300, fps, cpuUsPerFrame: cpu,
 *   latencyP50Us: 100, latencyP99Us: 200 });
 * const t = observerTargets({ frames: 300, off: [s(60, 500)], on: [{ ...s(59, 600), status: "PASS" }] });
 * if (t[0]?.met !== true || t[1]?.met !== false) throw new Error(JSON.stringify(t));
 * ```
 */
export function observerTargets(r: ObserverResults): Target[] {
  return [
    ...workloadTargets(r, "builtin"),
    ...(r.gst ? workloadTargets(r.gst, "GStreamer") : []),
  ];
}

function workloadTargets(r: ObserverRuns, workload: string): Target[] {
  const fps = observerRatio(r, "fps");
  const cpu = observerRatio(r, "cpuUsPerFrame");
  const pct = (x: number) => `${((x - 1) * 100).toFixed(1)} %`;
  return [
    {
      name: `verify on (${workload}): the workload's delivered fps, change against verify off`,
      target: "≥ -3 %",
      value: `${pct(fps.ratio)} (${fps.off.toFixed(1)} → ${fps.on.toFixed(1)} fps)`,
      met: fps.ratio >= 0.97,
    },
    {
      name: `verify on (${workload}): the workload's process CPU per frame, change against ` +
        `verify off`,
      target: "≤ +10 %",
      value: `+${pct(cpu.ratio)} (${cpu.off.toFixed(0)} → ${cpu.on.toFixed(0)} µs)`.replace(
        "+-",
        "-",
      ),
      met: cpu.ratio <= 1.1,
    },
  ];
}
