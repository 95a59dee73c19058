/**
 * Runs inside the VM rig (`--vivid`): verify's observer effect. The same workload
 * (`bench/observer_workload.ts`: the builtin frame loop on vivid's capture) runs alone and
 * under verify (`-- COMMAND`, with function_graph, the dma-buf kprobes and perf, as
 * `axl verify` runs it), interleaved, `--rounds` times each, and as many times under verify
 * without perf; each run reports its delivered fps, process CPU per frame, fence latency,
 * and the CPU the bench's own process tree took while it ran (`observerCpu`: under verify,
 * verify's own processes).
 * `--split` adds one run of each part alone ({@linkcode SPLIT_CONFIGS}): the floor (the
 * tracefs events only), the floor with one part (function_graph, the kprobes, the bufinfo
 * sampler, the drain, perf at its default rate), and the map scans alone (the workload alone,
 * scanned as verify scans it, with no verify); `--split-configs` picks some.
 * `--gst-frames N` adds the same for a GStreamer pipeline from vivid's capture to fakesink
 * (`bench/observer_gst.ts`), measured by GStreamer's latency and rusage tracers: the frames'
 * rate at the sink, the process CPU between the first and last counted frame, and the
 * src-to-sink latency.
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
import { runVerify, type VerifyRunOptions } from "../lib/verify/run.ts";
import { commandWorkload } from "../lib/verify/workload.ts";
import { scanProcess } from "../lib/trace/capture/dmabuf_refs.ts";
import { v4l2DevicesOf } from "../lib/verify/v4l2_devices.ts";
import type { ObserverSample } from "./observer_workload.ts";
import {
  type ObserverConfig,
  type ObserverOnSample,
  type ObserverResults,
  type ObserverRuns,
  SPLIT_CONFIGS,
  verifyOptions,
} from "./observer_configs.ts";
import { treeDelta, type TreeSample, treeSample } from "./_procstat.ts";
import {
  gstObserverCommand,
  gstObserverEnv,
  gstObserverSample,
  videoNodeNamed,
} from "./observer_gst.ts";

/** How long the map scans sleep between two passes (`watchWorkload()` in lib/verify/capture.ts). */
const SCAN_PERIOD_MS = 200;

/**
 * Scans `pid` as verify's map scans do (its fds and maps, its V4L2 devices) every
 * {@linkcode SCAN_PERIOD_MS} until `done` settles.
 */
async function scanWhile(pid: number, done: Promise<unknown>): Promise<void> {
  let running = true;
  done.finally(() => running = false).catch(() => {});
  while (running) {
    await scanProcess(pid);
    v4l2DevicesOf(pid);
    await Promise.race([done.catch(() => {}), new Promise((r) => setTimeout(r, SCAN_PERIOD_MS))]);
  }
}

/**
 * Runs `argv` alone (no verify), or under the bench's map scans, with this process tree's CPU
 * read around it; `read` turns what it wrote into a sample.
 */
async function runAlone(
  argv: string[],
  scans: boolean,
  read: () => Promise<ObserverSample>,
): Promise<ObserverSample> {
  const a = treeSample();
  const child = new Deno.Command(argv[0]!, {
    args: argv.slice(1),
    stdin: "null",
    stdout: "null",
    stderr: "piped",
  }).spawn();
  const output = child.output();
  if (scans) await scanWhile(child.pid, output);
  const st = await output;
  const b = treeSample();
  if (!st.success) {
    throw new Error(
      `${argv.slice(0, 5).join(" ")} … alone exited ${st.code}: ` +
        new TextDecoder().decode(st.stderr),
    );
  }
  return { ...await read(), observerCpu: treeDelta(a, b) };
}

/**
 * runVerify() around a workload with this process tree's CPU read when the workload starts and
 * when it is done (verify's progress messages).
 */
async function underVerify(
  o: VerifyRunOptions,
  read: () => Promise<ObserverSample>,
  config: ObserverConfig,
): Promise<ObserverOnSample> {
  // The workload is not running yet at the first message and has been reaped by the second,
  // so the tree sampled at both is the bench's process (verify) and what verify started.
  let a: TreeSample | undefined, b: TreeSample | undefined;
  const { result } = await runVerify({
    ...o,
    onProgress: (m) => {
      if (m.startsWith("running workload")) a = treeSample();
      else if (m.startsWith("workload done")) b = treeSample();
    },
  });
  const s = await read();
  return {
    ...s,
    ...(a && b ? { observerCpu: treeDelta(a, b) } : {}),
    status: result.axl.status,
    perf: result.axl.invariants.I4.status,
    config,
  };
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    frames: { type: "string", default: "300" },
    rounds: { type: "string", default: "2" },
    // One more run of each part alone, to tell which costs what.
    split: { type: "boolean", default: false },
    // Which of the split's runs to make (default all of SPLIT_CONFIGS).
    "split-configs": { type: "string", default: SPLIT_CONFIGS.join(",") },
    // Frames of the GStreamer row (0: no GStreamer row).
    "gst-frames": { type: "string", default: "0" },
    out: { type: "string" },
  },
});
const frames = Number(values.frames);
const rounds = Number(values.rounds);
const splits = values.split ? values["split-configs"].split(",") as ObserverConfig[] : [];
for (const c of splits) {
  if (!(SPLIT_CONFIGS as readonly string[]).includes(c)) {
    console.error(`observer_vm.ts: unknown --split-configs entry ${c} (${SPLIT_CONFIGS})`);
    Deno.exit(2);
  }
}
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

/** The builtin loop alone (`config` "scans": under the bench's map scans) or under verify. */
async function builtin(i: number, config: ObserverConfig | "off"): Promise<ObserverOnSample> {
  const out = join(tmp, `${config}-${i}.json`);
  const read = async () => JSON.parse(await Deno.readTextFile(out)) as ObserverSample;
  if (config === "off" || config === "scans") {
    const s = await runAlone(argv(out), config === "scans", read);
    return { ...s, status: "no verify", config: "scans" };
  }
  return await underVerify(
    {
      artifacts: join(tmp, `verify-${i}-${config}`),
      workload: commandWorkload(argv(out), { frames: frames + 30 }),
      headline: "bench: observer effect",
      ...verifyOptions(config),
    },
    read,
    config,
  );
}

/** Runs each round (alone, under verify, under verify without perf), then the split. */
async function measure(
  runs: ObserverRuns,
  run: (i: number, config: ObserverConfig | "off") => Promise<ObserverOnSample>,
  label: string,
): Promise<void> {
  const say = (what: string, s: unknown) =>
    console.error(`observer_vm.ts: ${label}${what} ${JSON.stringify(s)}`);
  for (let i = 0; i < rounds; i++) {
    const { status: _, config: __, perf: ___, ...off } = await run(i, "off");
    runs.off.push(off);
    say("off", off);
    for (const config of ["verify", "--no-perf"] as const) {
      runs.on.push(await run(i, config));
      say("on", runs.on.at(-1));
    }
  }
  for (const config of splits) {
    runs.on.push(await run(0, config));
    say("on", runs.on.at(-1));
  }
}

const value: ObserverResults = { frames, off: [], on: [] };
await measure(value, builtin, "");

const gstFrames = Number(values["gst-frames"]);
if (gstFrames > 0) value.gst = await gstRuns(gstFrames);

/** The GStreamer row: the same runs, the pipeline as the workload. */
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
  const run = async (i: number, config: ObserverConfig | "off"): Promise<ObserverOnSample> => {
    const log = join(tmp, `gst-${config}-${i}.log`);
    const read = async () => gstObserverSample(await Deno.readTextFile(log), warmup);
    if (config === "off" || config === "scans") {
      const s = await runAlone(command(log), config === "scans", read);
      return { ...s, status: "no verify", config: "scans" };
    }
    return await underVerify(
      {
        artifacts: join(tmp, `gst-verify-${i}-${config}`),
        workload: commandWorkload(command(log), { frames: n + warmup }),
        headline: "bench: observer effect, GStreamer",
        ...verifyOptions(config),
      },
      read,
      config,
    );
  };
  await measure(runs, run, "gst ");
  return runs;
}
await Deno.writeTextFile(
  values.out ?? `${results}/observer.json`,
  JSON.stringify(value, null, 1) + "\n",
);
await Deno.remove(tmp, { recursive: true });
