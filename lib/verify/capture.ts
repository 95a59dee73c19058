/**
 * Capturing a run: a private tracefs instance, the bufinfo sampler, map-ref and sysfs scans
 * and perf around a workload, until it ends. The raw evidence goes to an artifacts directory
 * (`trace.txt`, `per_cpu_stats.txt`, `bufinfo_samples.txt`, `perf.script`, `capture.json`);
 * what the judge needs besides the raw files comes back as a {@linkcode Capture}. tracefs is
 * restored on every path; what a killed run left behind is put back before anything is set
 * up (`tracefs_restore.ts`).
 *
 * @module
 */
import { join } from "node:path";
import { BufinfoSampler } from "../trace/capture/bufinfo_sampler.ts";
import type { BufinfoSummary } from "../trace/parse/bufinfo_summary.ts";
import { scanProcess } from "../trace/capture/dmabuf_refs.ts";
import type { DmaBufMapRef } from "../trace/parse/dmabuf_maps.ts";
import { type BufferLoss, parsePerCpuStats, summarizeLoss } from "../trace/parse/per_cpu_stats.ts";
import {
  findTracefs,
  sizeBufferKb,
  TraceSession,
  VERIFY_EVENTS,
} from "../trace/capture/tracefs.ts";
import {
  readSysfsBuffer,
  type SysfsBuffer,
  sysfsStatsPresent,
} from "../trace/capture/sysfs_stats.ts";
import type { Environment, TraceSetup, WorkloadFdRef, WorkloadRecord } from "./judge.ts";
import type { RunningWorkload, WorkloadOutcome, WorkloadSpec } from "./workload.ts";
import { PerfCapture, type PerfRateRecord, type PerfScriptMode } from "./_perf_capture.ts";
import { type DrainSummary, TraceDrain } from "../trace/capture/trace_drain.ts";
import { stopOnSignal } from "./_interrupt.ts";
import { type V4l2DeviceRef, v4l2DevicesOf } from "./v4l2_devices.ts";
import type { EvidenceMode, ImporterRecord } from "./evidence/source.ts";
import {
  installDmabufProbes,
  probeKernel,
  removeDmabufProbes,
} from "../trace/capture/kprobe_events.ts";
import { installProcessProbes, type ProcessProbes } from "../trace/capture/process_probes.ts";
import { type ProcessRefCounts, ProcessRefFold } from "./evidence/process_refs.ts";
import { parseFtraceLine } from "../trace/parse/ftrace.ts";
import type { ProbeSetup } from "./judge.ts";
import { formatRestore, restoreAbandonedRuns } from "../trace/capture/tracefs_restore.ts";
import { StageClock } from "./timings.ts";
import type { PerfSummary } from "../trace/parse/perf_script.ts";
import type { Integrity } from "./integrity.ts";

export type { PerfScriptMode };

/** Options of {@linkcode captureRun}. */
export interface CaptureOptions {
  /** Artifacts directory (created). */
  artifacts: string;
  workload: WorkloadSpec;
  /** First line of the output and of result.json. */
  headline: string;
  /**
   * Per-CPU trace buffer in KiB. Default {@linkcode STREAMING_BUFFER_KB} while the trace is
   * drained during the run, else sized from the expected frames.
   */
  bufferSizeKb?: number;
  /**
   * Drain the trace to `trace.txt` while the run records (default true), so that the ring
   * buffer only absorbs bursts; `false` reads the buffer once at the end, as before.
   */
  stream?: boolean;
  /** function_graph on the dma-buf functions (default true). */
  graph?: boolean;
  /** Record perf (default true) with this binary (default `perf`). */
  perf?: boolean;
  perfBinary?: string;
  /**
   * perf samples per second; default chosen from the workload's kind and frames so that I4
   * gets its samples and not many more (`perf_rate.ts`, docs/verify.md#perfs-rate).
   */
  perfFrequency?: number;
  /**
   * Run perf script on the samples as perf records them (`perf record -o -` into
   * `perf script -i -`), so that only its tail is left when the workload ends (default true).
   * perf script reads a JIT's perf map (`/tmp/perf-PID.map`) when it first meets it, so the
   * frames in such a map are named again from its final contents before `perf.script` is
   * saved and folded (`lib/trace/parse/perf_script_jit.ts`). The builtin runs in verify's own
   * process, which perf samples: for it `tee` and perf script do that I/O in child processes and
   * verify reads perf script's text once perf has stopped. False: perf script on the data file
   * after perf stops, as before.
   */
  perfLive?: boolean;
  /**
   * bufinfo sampling interval, ms. Default {@linkcode BUFINFO_CROSS_CHECK_MS} when the attach
   * probe events name each buffer's inode and exporter (they then say which devices shared a
   * buffer) and the workload is not `--pid`'s, else 20.
   */
  bufinfoIntervalMs?: number;
  /** tracefs mount point override. */
  tracefs?: string;
  /** Device facts for the report. */
  device?: { name: string; simulated: boolean };
  /** The importing device whose imports count (`--importer`); recorded for the judge. */
  importer?: ImporterRecord;
  /** The judge's evidence mode (`--evidence`): with `generic` the kprobes count I3. */
  evidence?: EvidenceMode;
  /** kprobe events on the dma-buf functions (default true; see `kprobe_events.ts`). */
  probes?: boolean;
  /**
   * The process probes (`process_probes.ts`; default true, with `probes`): false leaves the
   * workload's fds and mappings to the /proc scans alone, every 200 ms.
   */
  processProbes?: boolean;
  /** Progress messages (the command prints them on a TTY). */
  onProgress?: (message: string) => void;
  /** Where `perf record` writes (default: a temporary directory, removed afterwards). */
  perfData?: string;
  /** Times the workload and the stages after it (default: a clock of its own). */
  clock?: StageClock;
}

/** The non-raw inputs of the judge, saved as `capture.json` so a run can be judged again. */
export interface CaptureRecord {
  headline: string;
  setup: TraceSetup;
  workload: WorkloadRecord;
  environment: Environment;
  notes: string[];
  bufinfoUnavailable: string | null;
  /**
   * How often bufinfo was read, ms (absent: unavailable, or a capture made before it was
   * recorded, which read it every 20 ms unless its notes say otherwise).
   */
  bufinfoIntervalMs?: number;
  /** perf's event, and the rate it was asked for (absent in captures made before it was recorded). */
  perf: { unavailable: string } | {
    event: string;
    reason: string;
    rate?: PerfRateRecord;
    /** How perf script met the samples (absent in captures made before it was recorded). */
    script?: PerfScriptMode;
  };
  /** The importing device (absent in captures made before it was recorded). */
  importer?: ImporterRecord;
  /** The dma-buf probe events, or why there were none (absent: not tried). */
  probes?: ProbeSetup;
  /** How the trace was drained while recording (absent: read once at the end). */
  drain?: DrainSummary;
  /**
   * How many times a process of the workload was scanned while it ran (its dma-buf fds with
   * fdinfo, its `/proc/PID/maps` and its open V4L2 nodes: one per process per pass, a pass
   * every 200 ms, or every 1000 ms where the process probes record the fds and mappings:
   * `refEvents`); absent in captures made before it was counted.
   */
  procScans?: number;
  /**
   * The process probes (`process_probes.ts`): which parts were placed, what their events
   * said of the workload's fds and mappings (`refs_trace.txt`), and why a part was not
   * placed; absent when none could be (no probe events) and in captures made before them.
   */
  refEvents?: RefEvents;
  /**
   * What the capture wrote, for replays to check (`integrity.ts`); absent in captures made
   * before it was recorded, and until `runVerify()` has judged the run.
   */
  integrity?: Integrity;
}

/** What the process probes saw of the workload's processes (`CaptureRecord.refEvents`). */
export interface RefEvents {
  /** The parts placed (`fd`, `recvfd`, `mmap`). */
  parts: string[];
  /** Why each part not placed is not. */
  unavailable: Record<string, string>;
  /**
   * The lines written to kprobe_events for the parts placed (fields by BTF name or by measured
   * offsets); absent in captures made before they were recorded.
   */
  definitions?: string[];
  /** What the fold read. */
  counts: ProcessRefCounts;
  /** Events the refs instance's ring buffer lost (overrun), or why its stats were not read. */
  lost: number | string;
  /** The workload's fd refs from the events (the scans' shape). */
  fdRefs: WorkloadFdRef[];
  /** The workload's map refs from the events (the scans' shape). */
  mapRefs: Array<{ pid: number } & DmaBufMapRef>;
}

/** The per-CPU buffer (KiB) of the process probes' instance: a few events per buffer. */
export const REFS_BUFFER_KB = 1024;

/**
 * The bufinfo interval (ms) when the attach and detach probe events carry the inode and the
 * exporter: bufinfo is then read at the start (the attachments made before the trace), at
 * the end, and once a second as a cross-check (docs/verify.md, "bufinfo: events first").
 */
export const BUFINFO_CROSS_CHECK_MS = 1000;

/** The default per-CPU buffer of a streamed capture: it only has to absorb bursts. */
export const STREAMING_BUFFER_KB = 1024;

/** Files a capture writes (`perfScript` only when perf recorded). */
export interface CaptureFiles {
  dir: string;
  trace: string;
  stats: string;
  bufinfo: string;
  perfScript?: string;
  /** How the run was set up (trace session, workload outcome, environment): for replays. */
  capture: string;
}

/**
 * A captured run, as the judge takes it (`judgeArtifacts()`): the artifacts directory with
 * the raw trace (and perf script), the record, and what the capture already read. A capture
 * read back from its directory has the same parts (`readCapture()`).
 */
export interface Capture {
  /** The artifacts directory. */
  dir: string;
  record: CaptureRecord;
  /** bufinfo as sampled; a live sampler also keeps the read errors the saved samples lack. */
  bufinfo: BufinfoSummary | { unavailable: string };
  /** Ring-buffer loss from per_cpu stats; absent when they could not be read. */
  loss?: BufferLoss;
  /**
   * The perf samples folded while `perf script` prints them, still running when the capture
   * returns so that the judge reads the trace meanwhile; absent, or resolving to undefined,
   * when the judge has to fold `perf.script` itself (a capture read back, or output that did
   * not parse). It rejects when `perf.script` could not be written.
   */
  perfSummary?: Promise<PerfSummary | undefined>;
  /**
   * Read back from its directory (`readCapture()`): the judge then checks its counts against
   * the integrity record, or the bounds of a capture without one.
   */
  readBack?: boolean;
}

/**
 * Environment facts of this machine.
 *
 * @example
 * ```ts ignore
 * import { probeEnvironment } from "./capture.ts";
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
 * Runs the workload under capture and writes the raw artifacts and `capture.json`. Throws
 * only when it cannot capture at all (no tracefs, not root); what is missing otherwise is in
 * the record (`bufinfoUnavailable`, `perf.unavailable`, notes).
 *
 * @example
 * ```ts ignore
 * import { captureRun } from "./capture.ts";
 * import { judgeArtifacts } from "./replay.ts";
 * const { capture } = await captureRun({ artifacts: "artifacts/verify", workload, headline: "..." });
 * console.log((await judgeArtifacts(capture)).axl.status);
 * ```
 */
export async function captureRun(
  o: CaptureOptions,
): Promise<{ capture: Capture; files: CaptureFiles }> {
  const say = o.onProgress ?? (() => {});
  const files = await artifactFiles(o.artifacts);
  const graph = o.graph ?? true;
  const stream = o.stream ?? true;
  const bufferSizeKb = o.bufferSizeKb ??
    (stream ? STREAMING_BUFFER_KB : sizeBufferKb({ frames: o.workload.expectedFrames, graph }));
  say(
    `setting up tracefs (buffer ${bufferSizeKb} KiB per CPU${graph ? ", function_graph" : ""}${
      stream ? ", drained while recording" : ""
    })`,
  );
  const tracefs = o.tracefs ?? findTracefs();
  const leftover = restoreLeftovers();
  const kernel = o.probes === false ? undefined : probeKernel(tracefs);
  const probes: ProbeSetup = kernel === undefined
    ? { unavailable: "not requested (--no-probes)" }
    : installDmabufProbes(tracefs, `axl_kp_${Deno.pid}`, kernel);
  const procProbes =
    o.processProbes !== false && kernel && !("unavailable" in kernel) && "events" in probes
      ? installProcessProbes(tracefs, `axl_kp_${Deno.pid}`, kernel)
      : undefined;
  const session = openSession(tracefs, bufferSizeKb, graph, probes);
  const notes: string[] = [...leftover, ...session.info.notes];
  if (o.processProbes === false && kernel) {
    notes.push(
      "process probes not requested (--no-process-probes): the scans every 200 ms stand in",
    );
  }
  if ("unavailable" in probes) notes.push(`no dma-buf kprobe events: ${probes.unavailable}`);
  let refs: TraceSession | undefined;
  const tmp = await Deno.makeTempDir({ prefix: "axl-verify-" });
  let drain: TraceDrain | undefined;
  let running: RunningWorkload | undefined;
  let script: Promise<{ path: string; summary?: PerfSummary } | undefined> | undefined;
  let perfStopped: Promise<void> | undefined;
  let stopRequested = false;
  const interrupt = stopOnSignal(
    () => {
      stopRequested = true;
      running?.stop();
    },
    notes,
    () => drain?.kill(),
  );
  try {
    const env = await probeEnvironment(session.info.tracefs);
    const bufinfoMs = bufinfoInterval(o, probes, notes);
    const { sampler, bufinfoUnavailable } = await openSampler(bufinfoMs, files.bufinfo);
    const perf = await PerfCapture.probe({
      enabled: o.perf !== false,
      data: o.perfData ?? join(tmp, "perf.data"),
      ...(o.perfLive !== false ? { live: o.artifacts } : {}),
      kind: o.workload.kind,
      ...(o.workload.kind.startsWith("builtin") || o.workload.framesKnown
        ? { frames: o.workload.expectedFrames }
        : {}),
      say,
      notes,
      ...(o.perfBinary ? { binary: o.perfBinary } : {}),
      ...(o.perfFrequency ? { frequency: o.perfFrequency } : {}),
    });

    refs = openRefsSession(tracefs, procProbes, notes);
    if (stream) drain = TraceDrain.start({ dir: session.info.dir, output: files.trace });
    refs?.start();
    session.start();
    // The first sample is the attach events' starting state (`evidence/attach_events.ts`):
    // taken before the workload starts, so that nothing it attaches is in both.
    if (!bufinfoUnavailable) await sampler.start();
    if (o.workload.pidsBeforeStart) await perf.attach(o.workload.pidsBeforeStart);
    say(`running workload: ${o.workload.description}`);
    const clock = o.clock ?? new StageClock();
    clock.workloadStarted();
    running = o.workload.start({ artifacts: o.artifacts, notes });
    if (stopRequested) running.stop();
    if (!o.workload.pidsBeforeStart) await perf.attach(running.pids);
    running.release?.();
    const watch = watchWorkload(
      running,
      bufinfoUnavailable ? undefined : sampler,
      notes,
      refsCover(refs, procProbes) ? EVENTS_SCAN_MS : SCAN_MS,
    );
    const outcome = await running.done;
    clock.workloadEnded();
    say("workload done; collecting");
    // perf writes its data file while the samplers stop and the trace drains: the trace
    // records until the samplers' last reads, as before, but no longer waits for perf.
    const unsampled: BufinfoSummary | { unavailable: string } | undefined = bufinfoUnavailable
      ? { unavailable: bufinfoUnavailable }
      : undefined;
    perfStopped = perf.stop(o.artifacts);
    perfStopped.then(() => clock.mark("perf record exited"), () => {}); // awaited below
    perf.livePrinted?.then(() => clock.mark("perf script printed its last line"), () => {});
    const [seen, bufinfo] = await Promise.all([watch.stop(), unsampled ?? sampler.stop()]);
    clock.lap("stop samplers");
    session.stop();
    refs?.stop();
    const drained = await collectTrace(drain, session, files.trace, say);
    drain = undefined;
    clock.lap("drain");
    // perf script and its fold start once perf has stopped, and run while tracefs is
    // restored and the judge reads the trace (it awaits `perfSummary`).
    const pids = running.pids;
    script = perfStopped.then(() => perf.writeScript(o.artifacts, pids));
    script.catch(() => {}); // the judge awaits it; not an unhandled rejection meanwhile
    const loss = await saveStats(session, files.stats, notes);
    const setup = session.info;
    await session.close();
    const refEvents = refs
      ? await foldRefEvents(
        refs,
        procProbes!,
        running.pids,
        join(o.artifacts, "refs_trace.txt"),
        knownBuffers(seen, bufinfo),
      )
      : undefined;
    await refs?.close();
    if (refEvents) mergeRefEvents(seen, refEvents, notes);
    say("tracefs restored");
    clock.lap("restore tracefs");
    await perfStopped;
    clock.lap("stop perf");
    if (perf.scripting) files.perfScript = join(o.artifacts, "perf.script");

    const record: CaptureRecord = {
      headline: o.headline,
      setup,
      workload: workloadRecord(o.workload, running.pids, outcome, seen),
      environment: {
        ...env,
        device: o.device?.name ?? "",
        simulated: o.device?.simulated ?? false,
        pmu: perf.event?.event === "cycles",
      },
      notes,
      bufinfoUnavailable: bufinfoUnavailable ?? null,
      ...(bufinfoUnavailable ? {} : { bufinfoIntervalMs: bufinfoMs }),
      perf: perf.record(),
      ...(o.importer ? { importer: o.importer } : {}),
      probes,
      ...(drained ? { drain: drained } : {}),
      procScans: seen.procScans,
      ...(refEvents ? { refEvents } : {}),
    };
    await Deno.writeTextFile(files.capture, JSON.stringify(record, null, 2) + "\n");
    const perfSummary = perf.scripting ? script.then((s) => s?.summary) : undefined;
    // The judge awaits it after reading the trace: a failed perf script must reach it as its
    // error, not end the process first as an unhandled rejection.
    perfSummary?.catch(() => {});
    return {
      capture: {
        dir: o.artifacts,
        record,
        bufinfo,
        ...(loss ? { loss } : {}),
        ...(perfSummary ? { perfSummary } : {}),
      },
      files,
    };
  } finally {
    interrupt[Symbol.dispose]();
    try {
      // A drain that failed left perf stopping: it writes into tmp, removed below.
      await perfStopped?.catch(() => {});
      await drain?.abort();
      await session.close();
      await refs?.close();
    } finally {
      // The session disabled the probe events: now they can go.
      if ("events" in probes) removeDmabufProbes(tracefs, `axl_kp_${Deno.pid}`);
      // perf script reads perf.data in tmp until it ends.
      const removeTmp = () => Deno.remove(tmp, { recursive: true }).catch(() => {});
      if (script) script.finally(removeTmp).catch(() => {});
      else await removeTmp();
    }
  }
}

/**
 * Puts back what killed runs left in tracefs, says so on stderr, and returns notes for the
 * report. A run that cannot be restored is reported, and this run goes on: its own changes
 * are recorded and undone like any other.
 */
function restoreLeftovers(): string[] {
  const outcome = restoreAbandonedRuns();
  const lines = formatRestore({ ...outcome, live: [] });
  for (const l of lines) console.error(`axl: ${l}`);
  return outcome.restored.map((r) =>
    `tracefs left by pid ${r.pid} (${r.why}) was restored before this run: ` +
    `${r.restored.length} change(s) put back` +
    (r.errors.length ? `, ${r.errors.length} failed: ${r.errors.join("; ")}` : "")
  );
}

/**
 * How often bufinfo is read: the option when given; a slow cross-check when the attach and
 * detach events say which devices shared each buffer (inode and exporter in the events) and
 * the workload starts under the trace (not `--pid`: what its process attaches between the
 * trace's start and bufinfo's first read would count twice); else every 20 ms. Whoever
 * imports: with the axl device our tracepoints count I3; with another importer (or
 * `--evidence generic`) the probes count it, and the held shape's pool is the frames'
 * exporter's buffers the workload held, which its fd scans name with their exporter
 * (`held_mappings.ts`), so the samples need not list each of them.
 */
export function bufinfoInterval(o: CaptureOptions, probes: ProbeSetup, notes: string[]): number {
  if (o.bufinfoIntervalMs !== undefined) return o.bufinfoIntervalMs;
  const events = "events" in probes && probes.inode && probes.exporter === true;
  if (!events || o.workload.kind === "pid") return 20;
  const axlCounts = o.importer?.axl === true && o.evidence !== "generic";
  notes.push(
    `bufinfo read at the start, at the end and every ${BUFINFO_CROSS_CHECK_MS} ms as a ` +
      "cross-check: the attach and detach probe events name each buffer's inode and exporter" +
      (axlCounts ? "" : ", and the workload's fd scans name the buffers it held"),
  );
  return BUFINFO_CROSS_CHECK_MS;
}

/** The bufinfo sampler, or why debugfs' bufinfo cannot be sampled here. */
async function openSampler(
  intervalMs: number,
  rawOutput: string,
): Promise<{ sampler: BufinfoSampler; bufinfoUnavailable?: string }> {
  const sampler = new BufinfoSampler({ intervalMs, rawOutput });
  try {
    await sampler.probe();
    return { sampler };
  } catch (e) {
    return { sampler, bufinfoUnavailable: (e as Error).message };
  }
}

/** The trace into `output`: the rest of the drain, or the whole buffer read once at the end. */
async function collectTrace(
  drain: TraceDrain | undefined,
  session: TraceSession,
  output: string,
  say: (message: string) => void,
): Promise<DrainSummary | undefined> {
  if (!drain) {
    await Deno.writeFile(output, await session.readTrace());
    return undefined;
  }
  const drained = await drain.finish();
  say(`trace drained: ${drained.bytes} bytes in ${drained.ms} ms`);
  return drained;
}

/** The artifacts directory, created, with an empty bufinfo file for the sampler to append to. */
async function artifactFiles(dir: string): Promise<CaptureFiles> {
  await Deno.mkdir(dir, { recursive: true });
  const files: CaptureFiles = {
    dir,
    trace: join(dir, "trace.txt"),
    stats: join(dir, "per_cpu_stats.txt"),
    bufinfo: join(dir, "bufinfo_samples.txt"),
    capture: join(dir, "capture.json"),
  };
  await Deno.writeTextFile(files.bufinfo, "");
  return files;
}

/** The trace session of a capture; the probe events go again when it cannot open. */
function openSession(
  tracefs: string,
  bufferSizeKb: number,
  graph: boolean,
  probes: ProbeSetup,
): TraceSession {
  try {
    return TraceSession.open({
      bufferSizeKb,
      graphFunctions: graph ? undefined : false,
      tracefs,
      // Ctrl-C stops the workload and the run is judged (captureRun's stopOnSignal).
      handleSignals: false,
      // The attach/map events by name: the process probes of the same group go to their own
      // instance (openRefsSession()).
      ...("events" in probes ? { events: [...VERIFY_EVENTS, ...probes.events] } : {}),
    });
  } catch (e) {
    if ("events" in probes) removeDmabufProbes(tracefs, `axl_kp_${Deno.pid}`);
    throw e;
  }
}

/**
 * The trace instance of the process probes (`record-tgid` on, so that each event names its
 * process), or undefined when no part was placed; a note says which parts were not.
 */
function openRefsSession(
  tracefs: string,
  p: ProcessProbes | undefined,
  notes: string[],
): TraceSession | undefined {
  if (!p) return undefined;
  const missing = Object.entries(p.unavailable);
  if (missing.length > 0) {
    notes.push(
      "process probes not placed (the scans every 200 ms stand in): " +
        missing.map(([part, why]) => `${part}: ${why}`).join("; "),
    );
  }
  if (p.parts.length === 0) return undefined;
  try {
    Deno.statSync(`${tracefs}/instances`);
  } catch {
    // The session would fall back to the top-level buffer, which the main trace may use.
    notes.push(
      "process probes not enabled: this kernel has no tracefs instances for their own trace " +
        "(the scans every 200 ms stand in)",
    );
    return undefined;
  }
  try {
    return TraceSession.open({
      tracefs,
      bufferSizeKb: REFS_BUFFER_KB,
      graphFunctions: false,
      events: p.events,
      optionalEvents: [],
      instanceName: `axl-refs-${Deno.pid}`,
      handleSignals: false,
      recordTgid: true,
      filters: p.filters,
    });
  } catch (e) {
    notes.push(`process probes' trace instance: ${(e as Error).message}`);
    return undefined;
  }
}

/** The /proc scans' period (ms) where no process probe stands in for them. */
export const SCAN_MS = 200;

/**
 * The /proc scans' period (ms) where the process probes record every dma-buf fd and mapping:
 * a cross-check, and the workload's open V4L2 nodes and the sysfs stats, which no event gives.
 */
export const EVENTS_SCAN_MS = 1000;

/** Whether the process probes record both the workload's fds and its mappings. */
function refsCover(refs: TraceSession | undefined, p: ProcessProbes | undefined): boolean {
  return refs !== undefined && p !== undefined && p.parts.includes("fd") &&
    p.parts.includes("mmap");
}

/** What names a buffer the events do not: the scans' fdinfo and maps, then bufinfo. */
function knownBuffers(
  seen: Watched,
  bufinfo: BufinfoSummary | { unavailable: string },
): (inode: number) => { exporter?: string; name?: string } | undefined {
  const exporters = new Map(seen.fdRefs.map((f) => [f.inode, f.exporter]));
  const names = new Map(seen.mapRefs.map((m) => [m.inode, m.name]));
  return (inode) => {
    const b = "inodes" in bufinfo ? bufinfo.inodes.get(inode) : undefined;
    const exporter = exporters.get(inode) || b?.exporter;
    const name = names.get(inode) ?? b?.name;
    return exporter === undefined && name === undefined ? undefined : {
      ...(exporter !== undefined ? { exporter } : {}),
      ...(name !== undefined ? { name } : {}),
    };
  };
}

/**
 * Adds the refs the events saw and the scans did not to what the scans saw (one fd ref per
 * process and buffer, one map ref per process, buffer and start), with a note of how many and
 * of what made the events incomplete (lost, unpaired, without their process, damaged).
 *
 * @example
 * ```ts
 * import { mergeRefEvents } from "./capture.ts";
 * const seen = { fdRefs: [{ pid: 1, fd: 5, inode: 7, exporter: "system" }], mapRefs: [] };
 * const notes: string[] = [];
 * mergeRefEvents(seen, {
 *   parts: ["fd", "mmap"], unavailable: {}, lost: 0, mapRefs: [],
 *   counts: { events: 2, paired: 0, unpaired: 0, failed: 0, notDmabuf: 0, noProcess: 0, damaged: 0 },
 *   fdRefs: [{ pid: 1, fd: 5, inode: 7, exporter: "system" }, { pid: 1, fd: 6, inode: 8, exporter: "" }],
 * }, notes);
 * console.log(seen.fdRefs.length); // 2
 * ```
 */
export function mergeRefEvents(
  seen: Pick<Watched, "fdRefs" | "mapRefs">,
  ev: RefEvents,
  notes: string[],
): void {
  const fds = new Set(seen.fdRefs.map((f) => `${f.pid}:${f.inode}`));
  const maps = new Set(seen.mapRefs.map((m) => `${m.pid}:${m.inode}:${m.start}`));
  const newFds = ev.fdRefs.filter((f) => !fds.has(`${f.pid}:${f.inode}`));
  const newMaps = ev.mapRefs.filter((m) => !maps.has(`${m.pid}:${m.inode}:${m.start}`));
  seen.fdRefs.push(...newFds);
  seen.mapRefs.push(...newMaps);
  const c = ev.counts;
  const incomplete = [
    typeof ev.lost === "string"
      ? `its loss unknown (${ev.lost})`
      : ev.lost
      ? `${ev.lost} lost`
      : "",
    c.noProcess ? `${c.noProcess} without their process` : "",
    c.unpaired ? `${c.unpaired} mmap entries or returns unpaired` : "",
    c.damaged ? `${c.damaged} damaged` : "",
  ].filter(Boolean);
  notes.push(
    `the workload's dma-buf fds and mappings from ${c.events} process probe events ` +
      `(${ev.parts.join(", ")}): ${ev.fdRefs.length} fd refs and ${ev.mapRefs.length} map ` +
      `refs, ${newFds.length} and ${newMaps.length} of them not in the /proc scans` +
      (incomplete.length
        ? `; events ${incomplete.join(", ")}: a buffer the workload held or mapped only ` +
          "between two scans may be missing from the refs"
        : ""),
  );
}

/** Saves the process probes' trace to `path` and folds it for the workload's `pids`. */
async function foldRefEvents(
  refs: TraceSession,
  p: ProcessProbes,
  pids: number[],
  path: string,
  known: (inode: number) => { exporter?: string; name?: string } | undefined,
): Promise<RefEvents> {
  const stream = await refs.readTrace();
  await Deno.writeFile(path, stream);
  const text = await Deno.readTextFile(path);
  const fold = new ProcessRefFold();
  let n = 0;
  for (const l of text.split("\n")) {
    n++;
    const e = parseFtraceLine(l, n);
    if (e?.kind === "event") fold.add(e);
  }
  let lost: number | string;
  try {
    lost = 0;
    for (const st of refs.stats().values()) lost += st.overrun;
  } catch (e) {
    lost = (e as Error).message;
  }
  const r = fold.refs(pids, known);
  return {
    parts: p.parts,
    unavailable: p.unavailable,
    definitions: p.definitions,
    counts: fold.counts,
    lost,
    fdRefs: r.fdRefs,
    mapRefs: r.mapRefs,
  };
}

/** What capture.json says of the workload: what it was, how it ended, what it held. */
function workloadRecord(
  spec: WorkloadSpec,
  pids: number[],
  outcome: WorkloadOutcome,
  seen: Watched,
): CaptureRecord["workload"] {
  return {
    kind: spec.kind,
    description: spec.description,
    pids,
    framesSubmitted: outcome.framesSubmitted,
    exitCode: outcome.exitCode,
    mapRefs: seen.mapRefs,
    fdRefs: seen.fdRefs,
    ...(seen.v4l2.length ? { v4l2Devices: seen.v4l2 } : {}),
    sysfs: seen.sysfs,
    ...(outcome.frames ? { frames: outcome.frames } : {}),
    ...(outcome.stderrTail ? { stderrTail: outcome.stderrTail } : {}),
    ...(outcome.exitSignal ? { exitSignal: outcome.exitSignal } : {}),
    ...(outcome.stopped ? { stopped: true } : {}),
  };
}

/** What {@linkcode watchWorkload} saw of the workload's processes. */
interface Watched {
  mapRefs: Array<{ pid: number } & DmaBufMapRef>;
  fdRefs: WorkloadFdRef[];
  v4l2: V4l2DeviceRef[];
  sysfs: NonNullable<WorkloadRecord["sysfs"]>;
  /** Processes scanned, summed over the passes. */
  procScans: number;
}

/**
 * Scans the workload's `/dmabuf:` map refs, dma-buf fds and open V4L2 nodes, and the sysfs
 * stats of the buffers bufinfo has seen, every `periodMs` until stopped ({@linkcode SCAN_MS},
 * or {@linkcode EVENTS_SCAN_MS} where the process probes record the fds and mappings).
 */
function watchWorkload(
  running: RunningWorkload,
  sampler: BufinfoSampler | undefined,
  notes: string[],
  periodMs: number,
): { stop(): Promise<Watched> } {
  const mapRefs = new Map<string, { pid: number } & DmaBufMapRef>();
  const fdRefs = new Map<string, WorkloadFdRef>();
  const present = sysfsStatsPresent();
  const sysfs = new Map<number, SysfsBuffer>();
  const v4l2 = new Map<string, V4l2DeviceRef>();
  if (!present) {
    notes.push(
      "no /sys/kernel/dmabuf/buffers (CONFIG_DMABUF_SYSFS_STATS off): sysfs stats not read",
    );
  }
  let scanning = true;
  let procScans = 0;
  // stop() wakes the scanner from its wait at once, so the verdict does not wait out the
  // period; as before, no scan follows stop() (the workload has ended).
  let wake = () => {};
  const scanner = (async () => {
    while (scanning) {
      if (present && sampler) {
        for (const ino of sampler.summary.inodes.keys()) {
          if (ino < 0 || sysfs.has(ino)) continue;
          const b = readSysfsBuffer(ino);
          if (b) sysfs.set(ino, b);
        }
      }
      for (const pid of running.pids) {
        const refs = await scanProcess(pid);
        procScans++;
        for (const m of refs.maps) mapRefs.set(`${pid}:${m.inode}:${m.start}`, { pid, ...m });
        for (const f of refs.fds) {
          // One entry per buffer and process: the fd number it was first seen under.
          if (f.inode > 0 && !fdRefs.has(`${pid}:${f.inode}`)) {
            fdRefs.set(`${pid}:${f.inode}`, {
              pid,
              fd: f.fd,
              inode: f.inode,
              exporter: f.exporter,
            });
          }
        }
        for (const d of v4l2DevicesOf(pid)) v4l2.set(d.node, d);
      }
      if (!scanning) break;
      await new Promise<void>((r) => {
        const t = setTimeout(r, periodMs);
        wake = () => {
          clearTimeout(t);
          r();
        };
      });
    }
  })();
  return {
    async stop() {
      scanning = false;
      wake();
      await scanner;
      return {
        mapRefs: [...mapRefs.values()],
        fdRefs: [...fdRefs.values()],
        v4l2: [...v4l2.values()],
        sysfs: { present, buffers: [...sysfs.values()].slice(0, 100) },
        procScans,
      };
    },
  };
}

/** Saves the per_cpu stats of the stopped session and adds up their loss (a note if not). */
async function saveStats(
  session: TraceSession,
  path: string,
  notes: string[],
): Promise<BufferLoss | undefined> {
  try {
    const raw = session.rawStats();
    await Deno.writeTextFile(path, [...raw].map(([c, t]) => `### cpu${c}\n${t}`).join(""));
    return summarizeLoss(
      new Map([...raw].map(([c, t]) => [c, parsePerCpuStats(t, `per_cpu/cpu${c}/stats`)])),
    );
  } catch (e) {
    notes.push(`per_cpu stats: ${(e as Error).message}`);
    return undefined;
  }
}
