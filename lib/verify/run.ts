/**
 * One verification run end to end: trace session, bufinfo sampler, map-ref scans and perf
 * around a workload; then parsing, judging and writing the artifacts directory
 * (`trace.txt`, `per_cpu_stats.txt`, `bufinfo_samples.txt`, `perf.script`, `result.json`,
 * `trace.json` for Perfetto, `report.html`). tracefs is restored on every path.
 *
 * @module
 */
import { join } from "node:path";
import { BufinfoSampler, type BufinfoSummary } from "../trace/bufinfo_sampler.ts";
import { type DmaBufMapRef, scanProcess } from "../trace/dmabuf_refs.ts";
import { parseFtrace } from "../trace/ftrace.ts";
import { type BufferLoss, parsePerCpuStats, summarizeLoss } from "../trace/per_cpu_stats.ts";
import { PerfRecording, perfScript, probePerfEvent } from "../trace/perf_record.ts";
import { parsePerfScript, type PerfSummary, summarizePerf } from "../trace/perf_script.ts";
import { sizeBufferKb, TraceSession } from "../trace/tracefs.ts";
import { readSysfsBuffer, type SysfsBuffer, sysfsStatsPresent } from "../trace/sysfs_stats.ts";
import { perfettoTrace } from "../report/perfetto.ts";
import { renderHtmlReport } from "../report/html.ts";
import type { WorkloadFrame } from "./frames.ts";
import {
  type Environment,
  judge,
  type JudgeOptions,
  type TraceSetup,
  type WorkloadReport,
} from "./judge.ts";
import type { VerifyResult } from "./schema.ts";
import { collectTraceFacts } from "./trace_facts.ts";

/** What a finished workload reports. */
export interface WorkloadOutcome {
  exitCode: number | null;
  framesSubmitted: number | null;
  frames?: WorkloadFrame[];
  stderrTail?: string;
}

/** A started workload. */
export interface RunningWorkload {
  /** Processes to record and scan (known once started). */
  pids: number[];
  /** Settles when the workload ends. */
  done: Promise<WorkloadOutcome>;
  /** Asks it to stop early (SIGTERM for commands, abort for the builtin). */
  stop(): void;
}

/** A workload to verify. */
export interface WorkloadSpec {
  /** `builtin-zero-copy`, `builtin-copy`, `command`, `pid`. */
  kind: string;
  description: string;
  /** Frames expected, for sizing the trace buffer. */
  expectedFrames: number;
  /** Pids known before start (the builtin runs in this process): perf attaches first. */
  pidsBeforeStart?: number[];
  start(): RunningWorkload;
}

/** Options of {@linkcode runVerify}. */
export interface VerifyRunOptions {
  /** Artifacts directory (created). */
  artifacts: string;
  workload: WorkloadSpec;
  /** First line of the output and of result.json. */
  headline: string;
  /** Per-CPU trace buffer in KiB; default sized from the expected frames. */
  bufferSizeKb?: number;
  /** function_graph on the dma-buf functions (default true). */
  graph?: boolean;
  /** Record perf (default true) with this binary (default `perf`). */
  perf?: boolean;
  perfBinary?: string;
  /** bufinfo sampling interval, ms (default 20). */
  bufinfoIntervalMs?: number;
  /** tracefs mount point override. */
  tracefs?: string;
  /** Device facts for the report. */
  device?: { name: string; simulated: boolean };
  judge?: JudgeOptions;
  /** Progress messages (the command prints them on a TTY). */
  onProgress?: (message: string) => void;
}

/** Paths written by {@linkcode runVerify}. */
export interface VerifyArtifacts {
  dir: string;
  trace: string;
  stats: string;
  bufinfo: string;
  perfScript?: string;
  result: string;
  perfetto: string;
  html: string;
  /** How the run was set up (trace session, workload outcome, environment): for replays. */
  capture: string;
}

/** The non-raw inputs of the judge, saved as `capture.json` so a run can be judged again. */
export interface CaptureRecord {
  headline: string;
  setup: TraceSetup;
  workload: WorkloadReport;
  environment: Environment;
  notes: string[];
  bufinfoUnavailable: string | null;
  perf: { unavailable: string } | { event: string; reason: string };
}

/**
 * Environment facts of this machine.
 *
 * @example
 * ```ts ignore
 * import { probeEnvironment } from "./run.ts";
 * console.log(await probeEnvironment("/sys/kernel/tracing"));
 * ```
 */
export async function probeEnvironment(
  tracefs?: string,
): Promise<Omit<Environment, "device" | "simulated" | "pmu">> {
  const kernel = Deno.osRelease();
  let version = "";
  try {
    version = await Deno.readTextFile("/proc/sys/kernel/version");
  } catch { /* not Linux */ }
  let rt = /PREEMPT_RT/.test(version);
  try {
    rt ||= (await Deno.readTextFile("/sys/kernel/realtime")).trim() === "1";
  } catch { /* non-RT kernels have no such file */ }
  let tracers: string[] = [];
  try {
    if (tracefs) {
      tracers = (await Deno.readTextFile(`${tracefs}/available_tracers`)).trim().split(/\s+/);
    }
  } catch { /* reported elsewhere */ }
  return { kernel, preemptRt: rt, machine: Deno.build.arch, tracers };
}

/**
 * Runs a verification and writes the artifacts. Throws only when it cannot run at all
 * (no tracefs, not root); everything else ends up in the result.
 *
 * @example
 * ```ts ignore
 * import { runVerify } from "./run.ts";
 * const { result } = await runVerify({ artifacts: "artifacts/verify", workload, headline: "..." });
 * console.log(result.axl.status);
 * ```
 */
export async function runVerify(
  o: VerifyRunOptions,
): Promise<{ result: VerifyResult; artifacts: VerifyArtifacts }> {
  const say = o.onProgress ?? (() => {});
  await Deno.mkdir(o.artifacts, { recursive: true });
  const art: VerifyArtifacts = {
    dir: o.artifacts,
    trace: join(o.artifacts, "trace.txt"),
    stats: join(o.artifacts, "per_cpu_stats.txt"),
    bufinfo: join(o.artifacts, "bufinfo_samples.txt"),
    result: join(o.artifacts, "result.json"),
    perfetto: join(o.artifacts, "trace.json"),
    html: join(o.artifacts, "report.html"),
    capture: join(o.artifacts, "capture.json"),
  };
  await Deno.writeTextFile(art.bufinfo, "");
  const graph = o.graph ?? true;
  const bufferSizeKb = o.bufferSizeKb ?? sizeBufferKb({ frames: o.workload.expectedFrames, graph });
  say(`setting up tracefs (buffer ${bufferSizeKb} KiB per CPU${graph ? ", function_graph" : ""})`);
  const session = TraceSession.open({
    bufferSizeKb,
    graphFunctions: graph ? undefined : false,
    ...(o.tracefs ? { tracefs: o.tracefs } : {}),
  });
  const notes: string[] = [...session.info.notes];
  const tmp = await Deno.makeTempDir({ prefix: "axl-verify-" });
  try {
    const env = await probeEnvironment(session.info.tracefs);
    // bufinfo
    const sampler = new BufinfoSampler({
      intervalMs: o.bufinfoIntervalMs ?? 20,
      rawOutput: art.bufinfo,
    });
    let bufinfoUnavailable: string | undefined;
    try {
      await sampler.probe();
    } catch (e) {
      bufinfoUnavailable = (e as Error).message;
    }
    // perf
    let perfEvent: { event: "cycles" | "cpu-clock"; reason: string } | undefined;
    let perfUnavailable: string | undefined = o.perf === false ? "disabled (--no-perf)" : undefined;
    if (!perfUnavailable) {
      try {
        perfEvent = await probePerfEvent(o.perfBinary);
        if (perfEvent.event === "cpu-clock") notes.push(`perf: ${perfEvent.reason}`);
      } catch (e) {
        perfUnavailable = (e as Error).message;
      }
    }
    const perfData = join(tmp, "perf.data");
    let recording: PerfRecording | undefined;
    const startPerf = async (pids: number[]) => {
      if (!perfEvent || perfUnavailable || pids.length === 0) return;
      try {
        say(`attaching perf (${perfEvent.event}) to ${pids.join(",")}`);
        recording = await PerfRecording.start({
          output: perfData,
          event: perfEvent.event,
          pids,
          ...(o.perfBinary ? { perf: o.perfBinary } : {}),
        });
      } catch (e) {
        perfUnavailable = (e as Error).message;
      }
    };

    session.start();
    if (!bufinfoUnavailable) sampler.start();
    if (o.workload.pidsBeforeStart) await startPerf(o.workload.pidsBeforeStart);
    say(`running workload: ${o.workload.description}`);
    const running = o.workload.start();
    if (!o.workload.pidsBeforeStart) await startPerf(running.pids);
    const mapRefs = new Map<string, { pid: number } & DmaBufMapRef>();
    const sysfsPresent = sysfsStatsPresent();
    const sysfs = new Map<number, SysfsBuffer>();
    if (!sysfsPresent) {
      notes.push(
        "no /sys/kernel/dmabuf/buffers (CONFIG_DMABUF_SYSFS_STATS off): sysfs stats not read",
      );
    }
    let scanning = true;
    const scanner = (async () => {
      while (scanning) {
        if (sysfsPresent && !bufinfoUnavailable) {
          for (const ino of sampler.summary.inodes.keys()) {
            if (ino < 0 || sysfs.has(ino)) continue;
            const b = readSysfsBuffer(ino);
            if (b) sysfs.set(ino, b);
          }
        }
        for (const pid of running.pids) {
          const refs = await scanProcess(pid);
          for (const m of refs.maps) mapRefs.set(`${pid}:${m.inode}:${m.start}`, { pid, ...m });
        }
        await new Promise((r) => setTimeout(r, 200));
      }
    })();
    const outcome = await running.done;
    scanning = false;
    await scanner;
    say("workload done; collecting");
    const bufinfo: BufinfoSummary | { unavailable: string } = bufinfoUnavailable
      ? { unavailable: bufinfoUnavailable }
      : await sampler.stop();
    if (recording) {
      try {
        await recording.stop();
      } catch (e) {
        perfUnavailable = (e as Error).message;
      }
      await Deno.writeTextFile(
        join(o.artifacts, "perf-record.log"),
        `${recording.argv.join(" ")}\n${recording.stderr}`,
      );
      try {
        const size = (await Deno.stat(perfData)).size;
        if (size === 0) perfUnavailable = "perf record wrote an empty file";
      } catch {
        perfUnavailable = `perf record wrote no data file (see perf-record.log)`;
      }
    }
    session.stop();
    const [toFile, toParse] = (await session.readTrace()).tee();
    const [, facts] = await Promise.all([
      Deno.writeFile(art.trace, toFile),
      collectTraceFacts(parseFtrace(toParse, { source: art.trace, strict: false })),
    ]);
    let loss: BufferLoss | undefined;
    try {
      const raw = session.rawStats();
      await Deno.writeTextFile(art.stats, [...raw].map(([c, t]) => `### cpu${c}\n${t}`).join(""));
      loss = summarizeLoss(
        new Map([...raw].map(([c, t]) => [c, parsePerCpuStats(t, `per_cpu/cpu${c}/stats`)])),
      );
    } catch (e) {
      notes.push(`per_cpu stats: ${(e as Error).message}`);
    }
    const setup = session.info;
    await session.close();
    say("tracefs restored");

    let perf: { summary: PerfSummary; event: string; reason: string } | { unavailable: string } = {
      unavailable: perfUnavailable ?? "not recorded",
    };
    if (recording && !perfUnavailable && perfEvent) {
      art.perfScript = join(o.artifacts, "perf.script");
      const [a, b] = perfScript(perfData, o.perfBinary, join(o.artifacts, "perf-script.err")).tee();
      const [, summary] = await Promise.all([
        Deno.writeFile(art.perfScript, a),
        summarizePerf(parsePerfScript(b, art.perfScript), { pids: running.pids }),
      ]);
      perf = { summary, event: perfEvent.event, reason: perfEvent.reason };
    }
    const workload: WorkloadReport = {
      kind: o.workload.kind,
      description: o.workload.description,
      pids: running.pids,
      framesSubmitted: outcome.framesSubmitted,
      exitCode: outcome.exitCode,
      mapRefs: [...mapRefs.values()],
      sysfs: { present: sysfsPresent, buffers: [...sysfs.values()].slice(0, 100) },
      ...(outcome.frames ? { frames: outcome.frames } : {}),
      ...(outcome.stderrTail ? { stderrTail: outcome.stderrTail } : {}),
    };
    const environment: Environment = {
      ...env,
      device: o.device?.name ?? "",
      simulated: o.device?.simulated ?? false,
      pmu: perfEvent?.event === "cycles",
    };
    const capture: CaptureRecord = {
      headline: o.headline,
      setup,
      workload,
      environment,
      notes,
      bufinfoUnavailable: bufinfoUnavailable ?? null,
      perf: "unavailable" in perf
        ? { unavailable: perf.unavailable }
        : { event: perf.event, reason: perf.reason },
    };
    await Deno.writeTextFile(art.capture, JSON.stringify(capture, null, 2) + "\n");
    const result = judge({
      headline: o.headline,
      trace: facts,
      setup,
      ...(loss ? { loss } : {}),
      bufinfo,
      perf,
      workload,
      environment,
      notes,
      ...(o.judge ? { options: o.judge } : {}),
    });
    await Deno.writeTextFile(art.result, JSON.stringify(result, null, 2) + "\n");
    await Deno.writeTextFile(art.perfetto, JSON.stringify(perfettoTrace(result)) + "\n");
    await Deno.writeTextFile(art.html, renderHtmlReport(result));
    return { result, artifacts: art };
  } finally {
    await session.close();
    await Deno.remove(tmp, { recursive: true }).catch(() => {});
  }
}

/**
 * A workload that runs a command (e.g. the GStreamer pipeline of a config file).
 *
 * @example
 * ```ts
 * import { commandWorkload } from "./run.ts";
 * const w = commandWorkload(["true"]);
 * if (w.kind !== "command") throw new Error();
 * ```
 */
export function commandWorkload(argv: string[], expectedFrames = 300): WorkloadSpec {
  if (argv.length === 0) throw new RangeError("commandWorkload(): empty command");
  return {
    kind: "command",
    description: argv.join(" "),
    expectedFrames,
    start() {
      const child = new Deno.Command(argv[0]!, {
        args: argv.slice(1),
        stdin: "null",
        stdout: "inherit",
        stderr: "piped",
      })
        .spawn();
      const stderr = new Response(child.stderr).text();
      return {
        pids: [child.pid],
        done: (async () => {
          const status = await child.status;
          const err = await stderr;
          return {
            exitCode: status.code,
            framesSubmitted: null,
            stderrTail: err.split("\n").slice(-40).join("\n"),
          };
        })(),
        stop: () => {
          try {
            child.kill("SIGTERM");
          } catch { /* already gone */ }
        },
      };
    },
  };
}

/**
 * A workload that is an existing process, observed for `durationMs`.
 *
 * @example
 * ```ts
 * import { pidWorkload } from "./run.ts";
 * if (pidWorkload(1, 1000).kind !== "pid") throw new Error();
 * ```
 */
export function pidWorkload(pid: number, durationMs: number, expectedFrames = 300): WorkloadSpec {
  if (!Number.isInteger(pid) || pid <= 0) throw new RangeError(`pidWorkload(): bad pid ${pid}`);
  if (!(durationMs > 0)) {
    throw new RangeError(`pidWorkload(): duration must be > 0 ms, got ${durationMs}`);
  }
  return {
    kind: "pid",
    description: `pid ${pid} for ${durationMs} ms`,
    expectedFrames,
    pidsBeforeStart: [pid],
    start() {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let wake: () => void = () => {};
      const done = new Promise<WorkloadOutcome>((resolve) => {
        wake = () => resolve({ exitCode: null, framesSubmitted: null });
        timer = setTimeout(wake, durationMs);
      });
      return {
        pids: [pid],
        done,
        stop: () => {
          clearTimeout(timer);
          wake();
        },
      };
    },
  };
}
