/**
 * Runs inside the VM rig: verify's cost beyond the workload it verifies. The builtin workload
 * alone (as verify runs it: heap producer, zero-copy, waits on a worker thread), then
 * `runVerify()` around the same workload without and with perf, then the workload alone again;
 * each timed in-process (wall and process CPU), with verify's progress messages time-stamped
 * so the overhead splits into set-up, the traced workload and analysis/report. The artifacts
 * of the verify run without perf are kept (`--keep`).
 *
 * ```sh
 * scripts/vm/run.sh -- deno run --no-check --allow-all bench/verify_overhead.ts --frames 60
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { Device } from "../lib/core/device.ts";
import { HeapProducer } from "../lib/frames/producers/heap_producer.ts";
import { runWorkload } from "../lib/frames/workload.ts";
import { builtinWorkload } from "../lib/verify/builtin_workload.ts";
import { runVerify } from "../lib/verify/run.ts";
import { cpuDelta, cpuSample } from "./_stats.ts";

/** One timed run. */
export interface OverheadRun {
  /** `workload`, `verify --no-perf` or `verify`. */
  what: string;
  wallMs: number;
  cpuMs: number;
  /** verify's status, when verify ran. */
  status?: string;
  /** verify's progress messages with ms since the start of the run. */
  phases?: { atMs: number; message: string }[];
  /** Error, when the run failed. */
  error?: string;
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    frames: { type: "string", default: "60" },
    out: { type: "string" },
    keep: { type: "string" },
    "no-perf-only": { type: "boolean", default: false },
  },
});
const frames = Number(values.frames);
const results = Deno.env.get("AXL_RESULTS") ?? ".";
const out = values.out ?? `${results}/verify_overhead.json`;
const keep = values.keep ?? `${results}/verify-artifacts`;

using dev = Device.open();
using producer = HeapProducer.open({});
const runs: OverheadRun[] = [];

async function timed(what: string, fn: (mark: (m: string) => void) => Promise<string | void>) {
  const phases: { atMs: number; message: string }[] = [];
  const a = cpuSample();
  const mark = (message: string) =>
    phases.push({ atMs: Math.round(performance.now() - t0), message });
  const t0 = performance.now();
  const run: OverheadRun = { what, wallMs: 0, cpuMs: 0 };
  try {
    const status = await fn(mark);
    if (status) run.status = status;
  } catch (e) {
    run.error = String((e as Error)?.message ?? e);
  }
  const d = cpuDelta(a, cpuSample());
  run.wallMs = Math.round(d.wallNs / 1e6);
  run.cpuMs = Math.round(d.cpuNs / 1e6);
  if (phases.length) run.phases = phases;
  runs.push(run);
  console.error(
    `verify_overhead.ts: ${what}: ${run.wallMs} ms wall, ${run.cpuMs} ms CPU` +
      (run.status ? ` (${run.status})` : "") + (run.error ? ` ERROR ${run.error}` : ""),
  );
}

const alone = () => async () => {
  const r = await runWorkload({ frames, producer, device: dev, syncWait: false });
  if (r.completed !== frames) throw new Error(`${r.completed}/${frames} frames`);
};
const verify = (perf: boolean, dir: string) => async (mark: (m: string) => void) => {
  const { result } = await runVerify({
    artifacts: dir,
    workload: builtinWorkload({ frames, producer, device: dev }),
    headline: "bench: verify overhead",
    perf,
    onProgress: mark,
  });
  return result.axl.status;
};

await timed("workload", alone());
await timed("verify --no-perf", verify(false, keep));
if (!values["no-perf-only"]) {
  const tmp = await Deno.makeTempDir({ prefix: "axl-bench-verify-" });
  await timed("verify", verify(true, tmp));
  await Deno.remove(tmp, { recursive: true });
}
await timed("workload", alone());
await Deno.writeTextFile(out, JSON.stringify({ frames, runs }, null, 1) + "\n");
Deno.exit(runs.some((r) => r.error) ? 3 : 0);
