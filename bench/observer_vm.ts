/**
 * Runs inside the VM rig (`--vivid`): verify's observer effect. The same workload
 * (`bench/observer_workload.ts`: the builtin frame loop on vivid's capture) runs alone and
 * under verify (`-- COMMAND`, with function_graph, the dma-buf kprobes and perf, as
 * `axl verify` runs it), interleaved, `--rounds` times each; each run reports its delivered
 * fps, process CPU per frame and fence latency. `--split` adds one run under verify without
 * function_graph, one without the dma-buf kprobes and one without perf (`--split-probes`
 * picks which), and one with perf at `--split-perf-frequency` Hz (99; 0: none).
 * `--gst-frames N` adds the same for a GStreamer pipeline from vivid's capture to fakesink
 * (`bench/observer_gst.ts`), measured by GStreamer's latency and rusage tracers: the frames'
 * rate at the sink, the process CPU between the first and last counted frame, and the
 * src-to-sink latency; with `--split`, runs without perf and at the lower perf rate.
 *
 * ```sh
 * scripts/vm/run.sh --vivid -- deno run --no-check --allow-all bench/observer_vm.ts \
 *   --frames 120 --rounds 1 --split --gst-frames 120
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { runVerify } from "../lib/verify/run.ts";
import { commandWorkload } from "../lib/verify/workload.ts";
import type { ObserverSample } from "./observer_workload.ts";
import {
  gstObserverCommand,
  gstObserverEnv,
  gstObserverSample,
  videoNodeNamed,
} from "./observer_gst.ts";

/**
 * What verify leaves out or changes in a run under it (`verify`: nothing, as `axl verify`
 * runs; `--perf-frequency=N`: perf samples N times a second instead of its default).
 */
export type ObserverConfig =
  | "verify"
  | "--no-graph"
  | "--no-probes"
  | "--no-perf"
  | `--perf-frequency=${number}`;

/** One workload's runs: alone and under verify. */
export interface ObserverRuns {
  frames: number;
  off: ObserverSample[];
  on: (ObserverSample & {
    status: string;
    /**
     * I4's status: SKIP when perf did not record (it may not start in time on a loaded
     * host), so that run measured verify without perf. Absent in older results.
     */
    perf?: string;
    config?: ObserverConfig;
  })[];
}

/**
 * The observer-effect runs: the builtin frame loop (top level, as before) and, when the guest
 * has GStreamer, a gst-launch pipeline from vivid's capture to fakesink (`gst`).
 */
export interface ObserverResults extends ObserverRuns {
  gst?: ObserverRuns & { pipeline: string };
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    frames: { type: "string", default: "300" },
    rounds: { type: "string", default: "2" },
    // One more run under verify without each of its probes, to tell which costs what.
    split: { type: "boolean", default: false },
    // The perf rate of one more run under verify (with --split; 0: none).
    "split-perf-frequency": { type: "string", default: "99" },
    // Which of the runs without one probe --split makes (default all three).
    "split-probes": { type: "string", default: "--no-graph,--no-probes,--no-perf" },
    // Frames of the GStreamer row (0: no GStreamer row).
    "gst-frames": { type: "string", default: "0" },
    out: { type: "string" },
  },
});
const frames = Number(values.frames);
const results = Deno.env.get("AXL_RESULTS") ?? ".";
const tmp = await Deno.makeTempDir({ prefix: "axl-bench-observer-" });
const script = new URL("./observer_workload.ts", import.meta.url).pathname;
const argv = (out: string) => [
  Deno.execPath(),
  "run",
  "--no-check",
  "--allow-all",
  script,
  "--frames",
  String(frames),
  "--out",
  out,
];

async function alone(i: number): Promise<ObserverSample> {
  const out = join(tmp, `off-${i}.json`);
  const st = await new Deno.Command(argv(out)[0]!, { args: argv(out).slice(1) }).output();
  if (!st.success) {
    throw new Error(`workload alone exited ${st.code}: ${new TextDecoder().decode(st.stderr)}`);
  }
  return JSON.parse(await Deno.readTextFile(out));
}

function perfOf(result: { axl: { invariants: { I4: { status: string } } } }): string {
  return result.axl.invariants.I4.status;
}

function perfFrequency(config: ObserverConfig): { perfFrequency?: number } {
  const m = /^--perf-frequency=(\d+)$/.exec(config);
  return m ? { perfFrequency: Number(m[1]) } : {};
}

async function verified(
  i: number,
  config: ObserverConfig = "verify",
): Promise<ObserverResults["on"][number]> {
  const out = join(tmp, `on-${i}-${config}.json`);
  const { result } = await runVerify({
    artifacts: join(tmp, `verify-${i}-${config}`),
    workload: commandWorkload(argv(out), { frames: frames + 30 }),
    headline: "bench: observer effect",
    ...(config === "--no-graph" ? { graph: false } : {}),
    ...(config === "--no-probes" ? { probes: false } : {}),
    ...(config === "--no-perf" ? { perf: false } : {}),
    ...perfFrequency(config),
  });
  return {
    ...JSON.parse(await Deno.readTextFile(out)),
    status: result.axl.status,
    perf: perfOf(result),
    config,
  };
}

const value: ObserverResults = { frames, off: [], on: [] };
for (let i = 0; i < Number(values.rounds); i++) {
  value.off.push(await alone(i));
  console.error(`observer_vm.ts: off ${JSON.stringify(value.off.at(-1))}`);
  value.on.push(await verified(i));
  console.error(`observer_vm.ts: on ${JSON.stringify(value.on.at(-1))}`);
}
const splitHz = Number(values["split-perf-frequency"]);
const splits: ObserverConfig[] = [
  ...values["split-probes"].split(",").filter((c) =>
    c === "--no-graph" || c === "--no-probes" || c === "--no-perf"
  ),
  ...(splitHz > 0 ? [`--perf-frequency=${splitHz}` as const] : []),
];
if (values.split) {
  for (const config of splits) {
    value.on.push(await verified(0, config));
    console.error(`observer_vm.ts: on ${JSON.stringify(value.on.at(-1))}`);
  }
}

const gstFrames = Number(values["gst-frames"]);
if (gstFrames > 0) value.gst = await gstRuns(gstFrames);

/** The GStreamer row: the same interleaving, the pipeline as the workload. */
async function gstRuns(n: number): Promise<NonNullable<ObserverResults["gst"]>> {
  const env = await gstObserverEnv();
  for (const [k, v] of Object.entries(env)) Deno.env.set(k, v);
  const cap = videoNodeNamed("vivid-000-vid-cap");
  const warmup = 30;
  const command = (log: string) => gstObserverCommand(cap, n + warmup, log);
  const runs: NonNullable<ObserverResults["gst"]> = {
    frames: n,
    pipeline: command("LOG").slice(4).join(" "),
    off: [],
    on: [],
  };
  const sample = async (log: string) => gstObserverSample(await Deno.readTextFile(log), warmup);
  const run = async (i: number, config: ObserverConfig) => {
    const log = join(tmp, `gst-on-${i}-${config}.log`);
    const { result } = await runVerify({
      artifacts: join(tmp, `gst-verify-${i}-${config}`),
      workload: commandWorkload(command(log), { frames: n + warmup }),
      headline: "bench: observer effect, GStreamer",
      ...(config === "--no-perf" ? { perf: false } : {}),
      ...perfFrequency(config),
    });
    runs.on.push({ ...await sample(log), status: result.axl.status, perf: perfOf(result), config });
    console.error(`observer_vm.ts: gst on ${JSON.stringify(runs.on.at(-1))}`);
  };
  for (let i = 0; i < Number(values.rounds); i++) {
    const log = join(tmp, `gst-off-${i}.log`);
    const argv = command(log);
    const st = await new Deno.Command(argv[0]!, { args: argv.slice(1), stdin: "null" }).output();
    if (!st.success) {
      throw new Error(`gst-launch alone exited ${st.code}: ${new TextDecoder().decode(st.stderr)}`);
    }
    runs.off.push(await sample(log));
    console.error(`observer_vm.ts: gst off ${JSON.stringify(runs.off.at(-1))}`);
    await run(i, "verify");
  }
  if (values.split) {
    for (const config of ["--no-perf", ...splits.filter((c) => c.startsWith("--perf"))]) {
      await run(0, config as ObserverConfig);
    }
  }
  return runs;
}
await Deno.writeTextFile(
  values.out ?? `${results}/observer.json`,
  JSON.stringify(value, null, 1) + "\n",
);
await Deno.remove(tmp, { recursive: true });
