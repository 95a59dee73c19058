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
import { treeDelta, type TreeSample, treeSample } from "./_procstat.ts";
import {
  gstObserverCommand,
  gstObserverEnv,
  gstObserverSample,
  videoNodeNamed,
} from "./observer_gst.ts";

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

/** How long the map scans sleep between two passes (`watchWorkload()` in lib/verify/capture.ts). */
const SCAN_PERIOD_MS = 200;

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
