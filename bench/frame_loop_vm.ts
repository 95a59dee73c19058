/**
 * Runs inside the VM rig (real kernel, axl.ko): the C frame loop (`build/bench/frame_loop`)
 * and the Deno loops of `frame_loops.ts` over the same device, interleaved round by round so
 * that drift and noise hit both alike, plus the per-call cost of AXL_IOCTL_GET_INFO from C
 * and from Deno. Writes one JSON document.
 *
 * Two windows: the steady state (each run measures `--frames` frames after `--warmup`
 * frames, by when V8 has compiled the per-frame functions with its top tier), and, with
 * `--cold-runs N`, the cold start: N times, each loop of `--cold-loops` and the C loop run
 * `--cold-frames` frames in a fresh process with no warm-up (what a user's short script
 * feels; `runWorkload()`'s window then includes its set-up). `--one LOOP` is that fresh
 * process: it runs LOOP once and prints its {@linkcode LoopRun} as JSON on stdout.
 *
 * Each steady-state run of a Deno loop is also a fresh process (`--one LOOP` with the
 * warm-up), as each run of the C loop is, so that no loop runs with the heap and compiled
 * code the loops before it left behind. `--in-process` runs them in this process instead,
 * one after another, as this bench did before.
 *
 * ```sh
 * scripts/vm/run.sh --module-param latency_us=1000 -- \
 *   deno run --no-check --allow-all bench/frame_loop_vm.ts --out results/frame_loop.json
 * ```
 *
 * Exit status: 0 measured, 3 cannot run (no device, a loop failed).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { DENO_LOOPS, type DenoLoop, LoopRig, type LoopRun, runDenoLoop } from "./frame_loops.ts";
import { type CallResult, measureCall } from "./ffi_calls.ts";
import { threadIds, type TracedUserTime, UserTimeTracer } from "./_utrace.ts";

const here = new URL(".", import.meta.url);
const binary = (name: string): string =>
  decodeURIComponent(new URL(`../build/bench/${name}`, here).pathname);

/** Everything one VM run measured. */
export interface FrameLoopVmResults {
  kernel: string;
  cpus: number;
  affinity: string;
  params: Record<string, string>;
  rounds: number;
  tracedRounds: number;
  frames: number;
  warmup: number;
  width: number;
  height: number;
  /** Events of the user-time trace. */
  traceEvents: string[];
  /** Every measured loop, in the order they ran; `traced` ones carry the traced user time. */
  runs: MeasuredRun[];
  /** Frames of each cold run (fresh process, no warm-up); 0 when none ran. */
  coldFrames: number;
  /** The cold runs, C's and Deno's, each in a fresh process (`round`: which repetition). */
  cold: MeasuredRun[];
  /** Per-call cost of the driver's GET_INFO ioctl. */
  calls: CallResult[];
  /**
   * Traced user ns per system call of a C loop that does nothing but system calls
   * (`ioctl_null`): kernel entry/exit work and tracepoint work land between sys_exit and
   * sys_enter, so every system call adds this much to traced user time.
   */
  syscallBoundaryNs?: number;
  /** The calibration run behind {@linkcode FrameLoopVmResults.syscallBoundaryNs}. */
  calibration?: TracedUserTime & { overrun: number; calls: number };
  wallS: number;
}

/** One measured loop of one round. */
export type MeasuredRun = LoopRun & {
  round: number;
  /** User time from the trace (traced rounds only). */
  traced?: TracedUserTime & { overrun: number };
};

interface Shape {
  frames: number;
  warmup: number;
  width: number;
  height: number;
}

/** Runs one of the C bench programs; what it printed, parsed as JSON. */
async function runJson<T>(program: string, args: string[], what: string): Promise<T> {
  const out = await new Deno.Command(binary(program), {
    args,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`${what} exited ${out.code}`);
  return JSON.parse(new TextDecoder().decode(out.stdout)) as T;
}

/** The loops a cold run measures by default: the four with a steady-state bound. */
const COLD_LOOPS: DenoLoop[] = ["lean-full", "lib", "lib-fused", "workload"];

/** One Deno loop in a fresh process (`--one`), no warm-up: its first frames, cold. */
function runDenoCold(loop: DenoLoop, shape: Shape): Promise<LoopRun> {
  return runDenoFresh(loop, { ...shape, warmup: 0 });
}

/**
 * One Deno loop in a fresh process (`--one`): `shape.warmup` frames, then the measured
 * `shape.frames`; with `tracingOn`, tracing is on for the measured frames only.
 */
async function runDenoFresh(loop: DenoLoop, shape: Shape, tracingOn?: string): Promise<LoopRun> {
  const args = [
    "run",
    "--no-check",
    "--allow-all",
    new URL(import.meta.url).pathname,
    "--one",
    loop,
    "--frames",
    String(shape.frames),
    "--warmup",
    String(shape.warmup),
    "--width",
    String(shape.width),
    "--height",
    String(shape.height),
  ];
  if (tracingOn) args.push("--tracing-on", tracingOn);
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    stdout: "piped",
    stderr: "inherit",
  }).output();
  if (!out.success) throw new Error(`${loop} (--one) exited ${out.code}`);
  return JSON.parse(new TextDecoder().decode(out.stdout)) as LoopRun;
}

async function runC(mode: "core" | "full", shape: Shape, tracingOn?: string): Promise<LoopRun> {
  const args = ["--mode", mode, "--frames", String(shape.frames), "--warmup", String(shape.warmup)];
  args.push("--width", String(shape.width), "--height", String(shape.height));
  if (tracingOn) args.push("--tracing-on", tracingOn);
  return await runJson<LoopRun>("frame_loop", args, `frame_loop --mode ${mode}`);
}

async function runCCalls(
  calls: number,
  batches: number,
  call = "dev_info",
  tracingOn?: string,
): Promise<CallResult & { pid: number }> {
  const args = ["--calls", String(calls), "--batches", String(batches), call];
  if (tracingOn) args.push("--tracing-on", tracingOn);
  return await runJson<CallResult & { pid: number }>("ffi_calls", args, `ffi_calls ${call}`);
}

function moduleParams(): Record<string, string> {
  const out: Record<string, string> = {};
  try {
    for (const e of Deno.readDirSync("/sys/module/axl/parameters")) {
      out[e.name] = Deno.readTextFileSync(`/sys/module/axl/parameters/${e.name}`).trim();
    }
  } catch { /* reported as empty */ }
  return out;
}

async function main(): Promise<number> {
  const { values } = parseArgs({
    args: Deno.args,
    options: {
      out: { type: "string" },
      rounds: { type: "string", default: "3" },
      "traced-rounds": { type: "string", default: "2" },
      frames: { type: "string", default: "400" },
      warmup: { type: "string", default: "50" },
      "cold-runs": { type: "string", default: "0" },
      "cold-frames": { type: "string", default: "60" },
      "cold-loops": { type: "string", default: COLD_LOOPS.join(",") },
      one: { type: "string" },
      width: { type: "string", default: "320" },
      height: { type: "string", default: "240" },
      loops: { type: "string", default: DENO_LOOPS.join(",") },
      "call-batches": { type: "string", default: "15" },
      calls: { type: "string", default: "2000" },
      "keep-traces": { type: "string" },
      "in-process": { type: "boolean", default: false },
      "tracing-on": { type: "string" },
    },
  });
  if (values.one !== undefined) return await runOne(values.one, values);
  if (values["tracing-on"] !== undefined) {
    console.error("frame_loop_vm.ts: --tracing-on goes with --one");
    return 3;
  }
  const rounds = Number(values.rounds), tracedRounds = Number(values["traced-rounds"]);
  const coldRuns = Number(values["cold-runs"]), coldFrames = Number(values["cold-frames"]);
  const shape: Shape = {
    frames: Number(values.frames),
    warmup: Number(values.warmup),
    width: Number(values.width),
    height: Number(values.height),
  };
  if (
    ![shape.frames, shape.warmup, shape.width, shape.height, coldFrames].every((n) =>
      Number.isInteger(n) && n >= 1
    ) || ![rounds, tracedRounds, coldRuns].every((n) => Number.isInteger(n) && n >= 0) ||
    rounds + tracedRounds < 1
  ) {
    console.error(
      "frame_loop_vm.ts: --frames, --warmup, --width, --height, --cold-frames want integers " +
        ">= 1, --rounds, --traced-rounds and --cold-runs integers >= 0 (rounds and traced " +
        "rounds not both 0)",
    );
    return 3;
  }
  const loops = values.loops.split(",") as DenoLoop[];
  const coldLoops = values["cold-loops"].split(",") as DenoLoop[];
  const unknown = [...loops, ...coldLoops].filter((l) =>
    !(DENO_LOOPS as readonly string[]).includes(l)
  );
  if (unknown.length) {
    console.error(`frame_loop_vm.ts: unknown loops ${unknown} (known: ${DENO_LOOPS})`);
    return 3;
  }
  const out = values.out ?? `${Deno.env.get("AXL_RESULTS") ?? "."}/frame_loop.json`;
  const t0 = performance.now();
  const results: FrameLoopVmResults = {
    kernel: Deno.osRelease(),
    cpus: navigator.hardwareConcurrency,
    affinity: (/^Cpus_allowed_list:\s*(.*)$/m.exec(Deno.readTextFileSync("/proc/self/status"))
      ?.[1] ?? "").trim(),
    params: moduleParams(),
    rounds,
    tracedRounds,
    ...shape,
    traceEvents: [],
    runs: [],
    coldFrames: coldRuns > 0 ? coldFrames : 0,
    cold: [],
    calls: [],
    wallS: 0,
  };
  using rig = await LoopRig.open({ width: shape.width, height: shape.height });
  await using tracer = tracedRounds > 0 ? UserTimeTracer.open() : undefined;
  results.traceEvents = tracer?.events ?? [];
  let tracingFile: Deno.FsFile | undefined;
  const one = new TextEncoder().encode("1"), zero = new TextEncoder().encode("0");
  const hooks = {
    open: () => tracingFile?.writeSync(one),
    close: () => tracingFile?.writeSync(zero),
  };
  // Untraced rounds measure CPU time undisturbed; traced rounds (last) measure user time.
  for (let round = 1; round <= rounds + tracedRounds; round++) {
    const traced = round > rounds;
    const on = traced ? tracer!.tracingOnPath : undefined;
    tracingFile = on ? Deno.openSync(on, { write: true }) : undefined;
    const deno = (l: DenoLoop) => () =>
      values["in-process"]
        ? runDenoLoop(rig, l, shape.frames, shape.warmup, hooks)
        : runDenoFresh(l, shape, on);
    // C and Deno alternate; the order inside a round rotates so none always goes first.
    const steps: Array<() => Promise<LoopRun>> = [
      () => runC("core", shape, on),
      ...loops.filter((l) => l === "lean-core").map(deno),
      () => runC("full", shape, on),
      ...loops.filter((l) => l !== "lean-core").map(deno),
    ];
    const shift = (round - 1) % steps.length;
    for (const step of [...steps.slice(shift), ...steps.slice(0, shift)]) {
      const run: MeasuredRun = { ...await step(), round };
      if (traced) {
        const tids = run.impl === "c"
          ? new Set([run.pid])
          : new Set(run.tids ?? threadIds(run.pid));
        const keep = values["keep-traces"];
        if (keep) await Deno.mkdir(keep, { recursive: true });
        run.traced = await tracer!.collect(
          tids,
          keep ? `${keep}/${round}-${run.impl}-${run.mode}.trace` : undefined,
        );
        (run.traced as { tids?: number[] }).tids = [...tids];
      }
      results.runs.push(run);
      const us = (ns: number) => (ns / run.frames / 1e3).toFixed(2);
      console.error(
        `round ${round}: ${run.impl} ${run.mode}: cpu ${us(run.cpuNs)} µs/frame, ` +
          (run.traced
            ? `traced user ${us(run.traced.userNs)} µs/frame (${run.traced.events} events)`
            : `rusage user ${us(run.utimeNs)} µs/frame`),
      );
    }
    tracingFile?.close();
  }
  if (tracer) {
    const cal = await runCCalls(2000, 5, "ioctl_null", tracer.tracingOnPath);
    const t = await tracer.collect(new Set([cal.pid]));
    results.calibration = { ...t, calls: 2000 * 5 };
    results.syscallBoundaryNs = t.syscalls ? t.userNs / t.syscalls : undefined;
    console.error(
      `calibration: ${(results.syscallBoundaryNs ?? NaN).toFixed(0)} ns traced user per syscall`,
    );
  }
  // Cold runs: fresh processes, C and Deno alternating, the order rotating per repetition.
  const coldShape: Shape = { ...shape, frames: coldFrames, warmup: 0 };
  for (let round = 1; round <= coldRuns; round++) {
    const steps: Array<() => Promise<LoopRun>> = [
      () => runC("full", coldShape),
      ...coldLoops.map((l) => () => runDenoCold(l, coldShape)),
    ];
    const shift = (round - 1) % steps.length;
    for (const step of [...steps.slice(shift), ...steps.slice(0, shift)]) {
      const run: MeasuredRun = { ...await step(), round };
      results.cold.push(run);
      console.error(
        `cold ${round}: ${run.impl} ${run.mode}: cpu ${
          (run.cpuNs / run.frames / 1e3).toFixed(2)
        } µs/frame over its first ${run.frames} frames`,
      );
    }
  }
  const batches = Number(values["call-batches"]), calls = Number(values.calls);
  results.calls.push(await runCCalls(calls, batches));
  results.calls.push(measureCall("dev_info", { batches, calls }));
  results.wallS = (performance.now() - t0) / 1e3;
  await Deno.writeTextFile(out, JSON.stringify(results, null, 1) + "\n");
  console.error(`frame_loop_vm.ts: wrote ${out} (${results.wallS.toFixed(1)} s)`);
  return 0;
}

/** `--one LOOP`: runs one Deno loop in this process and prints its LoopRun. */
async function runOne(
  loop: string,
  values: {
    frames: string;
    warmup: string;
    width: string;
    height: string;
    "tracing-on"?: string;
  },
): Promise<number> {
  if (!(DENO_LOOPS as readonly string[]).includes(loop)) {
    console.error(`frame_loop_vm.ts: unknown loop ${loop} (known: ${DENO_LOOPS})`);
    return 3;
  }
  const [frames, warmup, width, height] = [
    values.frames,
    values.warmup,
    values.width,
    values.height,
  ]
    .map(Number) as [number, number, number, number];
  if (
    ![frames, width, height].every((n) => Number.isInteger(n) && n >= 1) ||
    !(Number.isInteger(warmup) && warmup >= 0)
  ) {
    console.error("frame_loop_vm.ts --one: --frames, --width, --height >= 1, --warmup >= 0");
    return 3;
  }
  using rig = await LoopRig.open({ width, height });
  const on = values["tracing-on"];
  using tracing = on ? Deno.openSync(on, { write: true }) : undefined;
  let tids: number[] | undefined;
  const run = await runDenoLoop(rig, loop as DenoLoop, frames, warmup, {
    open: () => tracing?.writeSync(new TextEncoder().encode("1")),
    close: () => {
      tracing?.writeSync(new TextEncoder().encode("0"));
      // The threads the trace is read for: this process's, while they still exist.
      if (tracing) tids = [...threadIds(Deno.pid)];
    },
  });
  console.log(JSON.stringify(tids ? { ...run, tids } : run));
  return 0;
}

if (import.meta.main) {
  try {
    Deno.exit(await main());
  } catch (err) {
    console.error(`frame_loop_vm.ts: cannot run: ${err instanceof Error ? err.stack : err}`);
    Deno.exit(3);
  }
}
