/**
 * The invariant judge: a pure function from everything a run observed (parsed trace,
 * bufinfo samples, perf shares, workload stats) to the verdict and `result.json`. Each
 * invariant has its own module; this one handles lost events and composes the result:
 *
 * - I1 some frame buffer was shared by two devices in a bufinfo sample taken during the run
 *   (`attachments.ts`);
 * - I2 the exporter of those inodes is in the accepted set (`exporter.ts`);
 * - I3 every frame submitted reached the importer (an import per frame, extra imports of the
 *   same buffers being a note), and releases balance imports, counted from the best
 *   evidence of the importing device's imports (`evidence/source.ts`: our tracepoints in
 *   `accounting.ts`, else `evidence/importer_accounting.ts`, where an importer that held
 *   one mapping of every buffer of its frames' exporter also passes: `held_mappings.ts`);
 * - I4 no copy routine at or above the self-share threshold (1%) in the workload's
 *   processes (`copies.ts`).
 *
 * Lost trace events make every trace-derived verdict INCONCLUSIVE, never PASS. A missing
 * capability is SKIP. The run passes only when all four pass.
 *
 * @module
 */
import type { TraceSessionInfo } from "../trace/capture/tracefs.ts";
import type { BufinfoSummary } from "../trace/parse/bufinfo_summary.ts";
import type { BufferLoss } from "../trace/parse/per_cpu_stats.ts";
import type { DmaBufMapRef } from "../trace/parse/dmabuf_maps.ts";
import { judgeAccounting } from "./accounting.ts";
import { analyzeChain } from "./chain.ts";
import type { Chain } from "./chain_schema.ts";
import { type AttachmentsVerdict, judgeAttachments } from "./attachments.ts";
import { type CopiesVerdict, judgeCopies, type PerfEvidence } from "./copies.ts";
import { diagnosis } from "./diagnosis.ts";
import { judgeExporter } from "./exporter.ts";
import { FrameJoin, type JoinedFrames, type TracedFrame, type WorkloadFrame } from "./frames.ts";
import { histogram, type LatencyStats, latencyStats } from "./latency.ts";
import {
  type Diagnosis,
  type Invariant,
  RESULT_SCHEMA_VERSION,
  type Status,
  type VerifyResult,
} from "./schema.ts";
import type { TraceFacts } from "./trace_facts.ts";
import { round } from "./_invariant.ts";
import type { V4l2DeviceRef } from "./v4l2_devices.ts";
import { judgeImporterAccounting } from "./evidence/importer_accounting.ts";
import { withAttachEvents } from "./evidence/attach_events.ts";
import { refsDoubt, withWorkloadFds } from "./evidence/held_mappings.ts";
import type { NvmapFacts } from "./evidence/nvmap_events.ts";
import type { NvmapEvidence } from "./schema.ts";
import {
  type EvidenceMode,
  type FrameEvidence,
  type ImporterRecord,
  selectEvidence,
} from "./evidence/source.ts";

/** The exporters accepted by default (docs/design.md#exporter-names). */
export const DEFAULT_ACCEPTED_EXPORTERS: readonly string[] = [
  "nvmap",
  "nvmap_dmabuf",
  "tegra-buf",
  "system",
  "linux,cma",
];

/** How the trace was captured: the capture session's info without its paths and notes. */
export type TraceSetup = Omit<TraceSessionInfo, "tracefs" | "dir" | "notes">;

/** A dma-buf a process of the workload held by an fd while it ran. */
export interface WorkloadFdRef {
  /** The process. */
  pid: number;
  /** The fd it was first seen under. */
  fd: number;
  /** The buffer's inode (fdinfo's `ino:`). */
  inode: number;
  /** The buffer's exporter (fdinfo's `exp_name:`). */
  exporter: string;
}

/** What the workload did. */
export interface WorkloadRecord {
  /** `builtin-zero-copy`, `builtin-copy`, `command`, `pid`. */
  kind: string;
  /** What ran, for people (e.g. the command line). */
  description: string;
  /** Processes perf and the map-ref scan followed. */
  pids: number[];
  /** Frames the workload submitted, when it knows (the builtin does); else null. */
  framesSubmitted: number | null;
  /** Per-frame timings the workload measured itself (the builtin does). */
  frames?: WorkloadFrame[];
  /** Its exit code; null when it was not waited for (an attached pid). */
  exitCode: number | null;
  /** The signal that ended a command, e.g. `SIGTERM`. */
  exitSignal?: string;
  /** It was stopped on request (Ctrl-C): a non-zero exit is then no failure of its own. */
  stopped?: boolean;
  /** Last lines of its stderr, for failure-mode matching. */
  stderrTail?: string;
  /** sysfs buffer stats read during the run (undefined: not looked at). */
  sysfs?: { present: boolean; buffers: Array<{ inode: number; exporter: string; size: number }> };
  /** /dmabuf: map refs seen while it ran. */
  mapRefs?: Array<{ pid: number } & DmaBufMapRef>;
  /**
   * The dma-buf fds its processes held while it ran, one per buffer and process (absent: a
   * capture made before they were recorded).
   */
  fdRefs?: WorkloadFdRef[];
  /** The V4L2 nodes its processes had open (absent: not looked at). */
  v4l2Devices?: V4l2DeviceRef[];
}

/** The machine, for the report. */
export interface Environment {
  /** Kernel release (`uname -r`). */
  kernel: string;
  /** Whether the kernel is PREEMPT_RT. */
  preemptRt: boolean;
  /** CPU architecture (`Deno.build.arch`). */
  machine: string;
  /** The device imports attach to (axl_info.device), or `""`. */
  device: string;
  /** Whether the NPU is axl.ko's simulated engine rather than hardware. */
  simulated: boolean;
  /** The tracers tracefs offers (`available_tracers`). */
  tracers: string[];
  /** Whether perf sampled a hardware counter (`cycles`) rather than `cpu-clock`. */
  pmu: boolean;
}

/** Thresholds and sets. */
export interface JudgeOptions {
  /** Exporters a frame's dma-buf may come from for I2 (default {@linkcode DEFAULT_ACCEPTED_EXPORTERS}). */
  acceptedExporters?: readonly string[];
  /** I4 threshold in percent self (default 1). */
  copyThresholdPercent?: number;
  /** Fewer perf samples than this make I4 INCONCLUSIVE (default 100). */
  minPerfSamples?: number;
  /** Fence latency above this (ms, p99) adds the slow-fence diagnosis (default 50). */
  slowFenceMs?: number;
  /** Which evidence of imports to use (default `auto`: the best; see `evidence/source.ts`). */
  evidence?: EvidenceMode;
  /** The importing device as bufinfo names it; default the one the capture recorded. */
  importer?: string;
}

/** The dma-buf probe events of a capture, or why it has none (`kprobe_events.ts`). */
export type ProbeSetup = {
  events: string[];
  inode: boolean;
  inodeUnavailable?: string;
  /** The attach event names the exporter (`exp=`): absent in captures made before it did. */
  exporter?: boolean;
} | {
  unavailable: string;
};

/** Everything the judge looks at. */
export interface JudgeInput {
  /** The report's first line: what was verified and how. */
  headline: string;
  /** The folded trace. */
  trace: TraceFacts;
  /** How the trace was captured. */
  setup: TraceSetup;
  /** Loss from per_cpu stats; absent when the stats could not be read. */
  loss?: BufferLoss;
  /** The bufinfo samples, or why there are none. */
  bufinfo: BufinfoSummary | { unavailable: string };
  /** The perf call-graph summary, or why there is none. */
  perf: PerfEvidence;
  /** What the workload did. */
  workload: WorkloadRecord;
  /** The machine it ran on. */
  environment: Environment;
  /** Thresholds; defaults when absent. */
  options?: JudgeOptions;
  /** Notes of the capture, carried into the result. */
  notes?: string[];
  /** The importing device the capture chose; absent in captures made before it was recorded. */
  importer?: ImporterRecord;
  /** The probe events of the capture; absent: none were defined. */
  probes?: ProbeSetup;
  /**
   * How often bufinfo was read, ms (capture.json's `bufinfoIntervalMs`); absent: every 20 ms
   * or not recorded. Slower than {@linkcode BUFINFO_POLL_MS}, a held pool only bufinfo could
   * list is not trusted (`evidence/held_mappings.ts`).
   */
  bufinfoIntervalMs?: number;
  /**
   * The process probes' parts and loss (capture.json's `refEvents`); absent: none placed, or a
   * capture made before them. Lost events (or events the fold could not read) while the scans
   * ran once a second leave a held pool narrowed to the workload's refs INCONCLUSIVE
   * (`refsDoubt()`, `evidence/held_mappings.ts`).
   */
  refEvents?: {
    parts: string[];
    lost: number | string;
    counts?: { damaged: number; unpaired: number };
  };
}

/** bufinfo's polling interval where no events stand in for it, ms. */
export const BUFINFO_POLL_MS = 20;

/**
 * Judges a run. The result validates against `VerifyResultSchema` (the tests check it).
 *
 * @example
 * ```ts
 * import { judge } from "./judge.ts";
 * import { emptyTraceFacts } from "./trace_facts.ts";
 * const r = judge({
 *   headline: "test",
 *   trace: emptyTraceFacts(),
 *   setup: { instance: "x", tracer: "nop", graphFunctions: [], events: [], missingEvents: ["axl:*"],
 *     clock: "mono", bufferSizeKb: 1024 },
 *   bufinfo: { unavailable: "no debugfs" },
 *   perf: { unavailable: "no perf" },
 *   workload: { kind: "pid", description: "", pids: [1], framesSubmitted: null, exitCode: null },
 *   environment: { kernel: "6.12", preemptRt: false, machine: "x86_64", device: "", simulated: true,
 *     tracers: [], pmu: false },
 * });
 * // No axl tracepoints, no probes, no importer: no evidence of imports, which is not a FAIL.
 * console.log(r.pass); // false
 * console.log(r.axl.invariants.I3.status); // "SKIP"
 * console.log(r.axl.evidence?.source); // "none"
 * ```
 */
export function judge(given: JudgeInput): VerifyResult {
  const input = withAttachmentEvents(given);
  const o = input.options ?? {};
  const t = input.trace;
  const notes = [...(input.notes ?? [])];
  if (input !== given) notes.push(attachmentNote(given));
  const loss = traceLoss(t, input.loss, input.setup.bufferSizeKb);
  const diag: Diagnosis[] = loss.diagnosis ? [loss.diagnosis] : [];
  if (!input.loss) {
    notes.push("per_cpu stats could not be read: overruns are detected from the trace text only");
  }
  if (input.setup.graphUnavailable) {
    diag.push(diagnosis("no-function-graph", input.setup.graphUnavailable));
  }
  if (t.unparsed > 0) {
    notes.push(`${t.unparsed} trace lines were not understood (${t.firstUnparsed.join("; ")})`);
  }
  const w = input.workload;
  const workloadFailed = w.exitCode !== null && w.exitCode !== 0 && !w.stopped;
  if (workloadFailed) {
    const tail = w.stderrTail?.split("\n").at(-1);
    diag.push(diagnosis(
      "workload-failed",
      `exit code ${w.exitCode}${w.exitSignal ? ` (${w.exitSignal})` : ""}` +
        (tail ? `; last stderr line: ${tail}` : ""),
    ));
  }
  if (w.stopped) notes.push(`the workload was stopped on request (Ctrl-C) before it ended`);
  const stderr = input.workload.stderrTail;
  if (stderr && /import-mode/.test(stderr) && /propert/i.test(stderr)) {
    diag.push(diagnosis("gst-import-mode"));
  }

  const ev = evidenceOf(input);
  const axl = ev.source === "axl-tracepoints";
  // Facts folded from a trace carry their frame join; facts made by hand are joined here.
  // Without our tracepoints as the source, frames are the workload's alone.
  const join = axl ? t.join ?? FrameJoin.fromEvents(t) : new FrameJoin();
  const frames = join.frames(input.workload.frames ?? []);
  if (frames.list.length < frames.count) {
    notes.push(
      `the frame list holds the first ${frames.list.length} of ${frames.count} frames; counts ` +
        "and latency statistics cover all of them",
    );
  }

  const frameInodes = axl ? frames.inodes : ev.frameInodes;
  const i1 = judgeAttachments(
    input.bufinfo,
    frameInodes,
    input.workload.mapRefs ?? [],
    ev.frameInodesFrom,
    [...new Set((input.workload.v4l2Devices ?? []).map((d) => d.device))],
  );
  const i2 = judgeExporter({
    exporterOf: join.exporterOf,
    frameInodes,
    sampled: i1.sampled,
    multi: i1.multi,
    accepted: o.acceptedExporters ?? DEFAULT_ACCEPTED_EXPORTERS,
    attachments: i1.invariant.status,
  });
  const generic = axl ? undefined : judgeImporterAccounting(
    ev,
    t.dmabuf,
    input.workload.framesSubmitted,
    loss.lossy,
    withWorkloadFds(input.bufinfo, input.workload.fdRefs ?? []),
    workloadInodes(input.workload),
    t.nvmap,
    workloadBuffers(input.workload),
    sparseBufinfo(input),
    refsDoubt(input.refEvents),
  );
  const i3 = generic ??
    judgeAccounting(join, input.workload.framesSubmitted, input.setup.missingEvents, loss.lossy);
  notes.push(...(i3.notes ?? []));
  const counts = generic ?? { imports: join.imports, releases: join.releases };
  const i4 = judgeCopies(input.perf, o.copyThresholdPercent ?? 1, o.minPerfSamples ?? 100);
  for (const v of [i1, i2, i3, i4]) diag.push(...v.diagnoses);
  i1.invariant.source = "bufinfo";
  i2.invariant.source = axl && join.exporterOf.size > 0 ? "axl-tracepoints" : "bufinfo";
  i3.invariant.source = ev.source;
  i4.invariant.source = "perf";

  const latency = latencyOf(frames);
  const slowMs = o.slowFenceMs ?? 50;
  if (latency.stats && latency.stats.p99 > slowMs * 1000) {
    diag.push(diagnosis("fence-wait-slow", `p99 ${round(latency.stats.p99 / 1000)} ms`));
  }

  if (loss.lossy) {
    // Frame inodes and counts come from the trace: with lost events a FAIL cannot be trusted.
    for (const { invariant: i } of [i1, i2, i3]) {
      if (i.status === "FAIL") {
        i.status = "INCONCLUSIVE";
        i.summary = `${i.summary} (the trace lost events, so this is not a verdict)`;
      }
    }
  }
  const invariants = { I1: i1.invariant, I2: i2.invariant, I3: i3.invariant, I4: i4.invariant };
  const statuses = Object.values(invariants).map((x) => x.status);
  let status: Status = statuses.includes("FAIL")
    ? "FAIL"
    : statuses.every((s) => s === "PASS")
    ? "PASS"
    : "INCONCLUSIVE";
  if (status === "PASS" && (loss.lossy || workloadFailed)) status = "INCONCLUSIVE";
  const chain = chainSection(input, ev);
  if (status === "PASS" && (chain.status === "broken" || chain.status === "partial")) {
    notes.push(`the invariants passed, but the chain is ${chain.status}: ${chain.summary}`);
  }
  // Typed, not parsed: compose() builds what VerifyResult says, and the tests hold every judged
  // result against VerifyResultSchema. Parsing here cost 25–60 ms a run (zod compiling the
  // schema, then walking up to 10,000 frames), a sixth of judging a 100 MB trace.
  return compose({
    input,
    status,
    invariants,
    i1,
    i4,
    join,
    frames,
    counts,
    evidence: ev,
    chain,
    submitted: i3.submitted,
    latency,
    overrun: loss.overrun,
    diagnosis: diag,
    notes,
  });
}

/**
 * The input with the probe events' attachments merged into its bufinfo summary
 * (`evidence/attach_events.ts`), when its attach events name the exporter (or were defined
 * to): then bufinfo was
 * read at the start, at the end and as a slow cross-check, and the events say what it did not
 * see. Otherwise (older captures, kernels whose probes cannot read `exp_name`) the input
 * itself, judged from bufinfo's samples alone as before.
 */
function withAttachmentEvents(input: JudgeInput): JudgeInput {
  const fold = input.trace.dmabuf?.attachments;
  if (!fold || fold.attaches === 0 || "unavailable" in input.bufinfo) return input;
  // A capture whose probes were defined to name the exporter read bufinfo slowly: its events
  // are merged even where the kernel could not read a name (`(fault)`; bufinfo's then counts).
  const probes = input.probes && "events" in input.probes ? input.probes : undefined;
  if (fold.withExporter === 0 && probes?.exporter !== true) return input;
  return { ...input, bufinfo: withAttachEvents(input.bufinfo, fold) };
}

/** What {@linkcode withAttachmentEvents} merged, for the notes. */
function attachmentNote(input: JudgeInput): string {
  const fold = input.trace.dmabuf!.attachments;
  const samples = "unavailable" in input.bufinfo ? 0 : input.bufinfo.samples;
  const bad = input.trace.dmabuf!.badInodes;
  return `attachments (I1) from ${fold.attaches} attach and ${fold.detaches} detach probe ` +
    `events merged with ${samples} bufinfo samples` +
    (bad > 0 ? `; ${bad} probe events carried an ino that is not an inode, left out` : "");
}

/** The importer and the evidence source of a run (`evidence/source.ts`). */
function evidenceOf(input: JudgeInput): FrameEvidence {
  const o = input.options ?? {};
  const recorded = input.importer ?? {
    name: null,
    axl: true,
    reason: "not recorded (a capture made before verify named importers)",
  };
  const importer: ImporterRecord = o.importer !== undefined && o.importer !== recorded.name
    ? { name: o.importer, axl: false, reason: "--importer" }
    : recorded;
  return selectEvidence({
    mode: o.evidence ?? "auto",
    importer,
    axlEvents: input.setup.events.some((e) => e.startsWith("axl:")),
    probes: input.probes,
    dmabuf: input.trace.dmabuf,
    bufinfo: input.bufinfo,
    workloadInodes: workloadInodes(input.workload),
  });
}

/**
 * Inodes of every dma-buf the workload's processes held while it ran: its fds, its mappings and
 * the frames it reported; undefined for a capture that did not record its fds.
 */
function workloadBuffers(w: WorkloadRecord): Set<number> | undefined {
  if (!w.fdRefs) return undefined;
  return new Set([
    ...w.fdRefs.map((f) => f.inode),
    ...(w.mapRefs ?? []).map((m) => m.inode),
    ...workloadInodes(w),
  ].filter((i) => i > 0));
}

/** bufinfo's interval where it was read more slowly than it polls, else undefined. */
function sparseBufinfo(input: JudgeInput): number | undefined {
  const ms = input.bufinfoIntervalMs;
  return ms !== undefined && ms > BUFINFO_POLL_MS ? ms : undefined;
}

/** Inodes of the frames the workload reported (the builtin does); empty when unknown. */
function workloadInodes(w: WorkloadRecord): Set<number> {
  return new Set((w.frames ?? []).flatMap((f) => f.inode === undefined ? [] : [f.inode]));
}

function evidenceSection(
  input: JudgeInput,
  ev: FrameEvidence,
): NonNullable<VerifyResult["axl"]["evidence"]> {
  const p = input.probes;
  return {
    mode: input.options?.evidence ?? "auto",
    source: ev.source,
    importer: ev.importer.name,
    importer_reason: ev.importer.reason,
    passed_over: ev.passedOver,
    probes: !p
      ? { available: false, reason: "not defined in this capture", inode: false, events: 0 }
      : "unavailable" in p
      ? { available: false, reason: p.unavailable, inode: false, events: 0 }
      : {
        available: true,
        ...(p.inodeUnavailable ? { reason: p.inodeUnavailable } : {}),
        inode: p.inode,
        events: input.trace.dmabuf?.events ?? 0,
      },
    ...(input.trace.nvmap ? { nvmap: nvmapEvidence(input.trace.nvmap) } : {}),
  };
}

/** What nvmap's events said: per device, and how many of their buffers joined an inode. */
function nvmapEvidence(n: NvmapFacts): NvmapEvidence {
  return {
    events: n.events,
    pointers: n.hashed ? "hashed" : "raw",
    devices: Object.fromEntries(
      [...n.devices.values()].map((u) => [u.device, {
        attaches: u.attaches,
        maps: u.maps,
        buffers: u.buffers.size,
        inodes: [...n.inodesOf(u.device)].sort((a, b) => a - b),
      }]),
    ),
    ...n.joined(),
  };
}

/** Where the camera → card chain held or broke (`chain.ts`). */
function chainSection(input: JudgeInput, ev: FrameEvidence): Chain {
  const w = input.workload;
  return analyzeChain({
    importer: ev.importer.name,
    bufinfo: input.bufinfo,
    ...(input.trace.dmabuf ? { probes: input.trace.dmabuf } : {}),
    ...(input.trace.nvmap ? { nvmap: input.trace.nvmap } : {}),
    mapRefs: w.mapRefs ?? [],
    cameraDevices: (w.v4l2Devices ?? []).map((d) => d.device),
    workload: { kind: w.kind, description: w.description, pids: w.pids },
    ...("summary" in input.perf ? { perf: input.perf.summary } : {}),
    hotThresholdPercent: input.options?.copyThresholdPercent ?? 1,
  });
}

/** Every sign of lost trace events, and its diagnosis. */
function traceLoss(
  t: TraceFacts,
  loss: BufferLoss | undefined,
  bufferSizeKb: number,
): { lossy: boolean; overrun: number; diagnosis?: Diagnosis } {
  const overrun = loss?.lost ?? 0;
  const entriesLost = t.entries ? t.entries.written - t.entries.inBuffer : 0;
  const lossy = overrun > 0 || t.lostEvents > 0 || t.lostUnknown > 0 || t.bufferStarted > 0 ||
    entriesLost > 0;
  if (!lossy) return { lossy, overrun };
  const detail = [
    overrun
      ? `${overrun} overwritten/dropped (per_cpu stats${
        loss!.lossyCpus.length ? `, CPU ${loss!.lossyCpus.join(",")}` : ""
      })`
      : "",
    t.lostEvents ? `${t.lostEvents} lost (markers)` : "",
    t.lostUnknown ? `${t.lostUnknown} lost-event markers without a count` : "",
    entriesLost > 0
      ? `entries-in-buffer/entries-written ${t.entries!.inBuffer}/${t.entries!.written}`
      : "",
    t.bufferStarted ? `${t.bufferStarted} 'buffer started' markers` : "",
  ].filter(Boolean).join(", ");
  return {
    lossy,
    overrun,
    diagnosis: diagnosis("trace-lost-events", `${detail} with buffer_size_kb=${bufferSizeKb}`),
  };
}

/** Fence latencies in µs, converted in place (the join made the array for this call). */
function latencyOf(
  frames: JoinedFrames,
): { us: Float64Array; stats: LatencyStats | undefined; sources: Set<"trace" | "workload"> } {
  const us = frames.latencyNs;
  for (let i = 0; i < us.length; i++) us[i] = us[i]! / 1000;
  return { us, stats: latencyStats(us), sources: frames.sources };
}

/** The parts {@linkcode compose} puts together. */
interface Parts {
  input: JudgeInput;
  status: Status;
  invariants: Record<"I1" | "I2" | "I3" | "I4", Invariant>;
  i1: AttachmentsVerdict;
  i4: CopiesVerdict;
  join: FrameJoin;
  frames: JoinedFrames;
  counts: { imports: number; releases: number };
  evidence: FrameEvidence;
  chain: Chain;
  submitted: number | null;
  latency: ReturnType<typeof latencyOf>;
  overrun: number;
  diagnosis: Diagnosis[];
  notes: string[];
}

/** result.json: the original design's keys, then the versioned extension. */
function compose(p: Parts): VerifyResult {
  const { input, invariants, join } = p;
  const t0 = p.frames.t0;
  return {
    I1_attach_count_ge2: invariants.I1.status === "PASS",
    I2_known_exporter: invariants.I2.status === "PASS",
    I3_axl_imports: invariants.I3.status === "PASS",
    I4_no_memcpy_hot: invariants.I4.status === "PASS",
    detail: {
      imports: p.counts.imports,
      releases: p.counts.releases,
      fence_wait_lines: input.trace.fenceWaitLines,
      multi_attach_inodes: p.i1.multi.map((x) => String(x.inode)),
      exporters: [...new Set([...join.exporters, ...p.i1.sampled.map((x) => x.exporter)])].sort(),
      memcpy_hot: p.i4.hot,
    },
    pass: p.status === "PASS",
    axl: {
      schema: RESULT_SCHEMA_VERSION,
      status: p.status,
      headline: input.headline,
      invariants,
      frames: {
        submitted: p.submitted,
        // Said where the builtin did not count its own frames (older results lack it).
        ...(input.workload.framesSubmitted === null || !input.workload.kind.startsWith("builtin")
          ? { submitted_from: submittedFrom(input.workload, p.submitted) }
          : {}),
        traced: p.frames.count,
        list: p.frames.list.map((f) => frameOut(f, Number.isFinite(t0) ? t0 : 0)),
      },
      latency: latencySection(p.latency),
      trace: traceSection(input, p.overrun),
      bufinfo: bufinfoSection(input),
      perf: p.i4.perf,
      environment: {
        kernel: input.environment.kernel,
        preempt_rt: input.environment.preemptRt,
        machine: input.environment.machine,
        device: input.environment.device,
        simulated: input.environment.simulated,
        tracers: input.environment.tracers,
        pmu: input.environment.pmu,
      },
      workload: workloadSection(input.workload),
      evidence: evidenceSection(input, p.evidence),
      chain: p.chain,
      diagnosis: p.diagnosis,
      notes: p.notes,
    },
  };
}

function latencySection(l: ReturnType<typeof latencyOf>): VerifyResult["axl"]["latency"] {
  const { stats, sources } = l;
  return {
    source: sources.size === 0
      ? "none"
      : sources.size > 1
      ? "mixed"
      : [...sources][0] as "trace" | "workload",
    unit: "us",
    count: stats?.count ?? 0,
    ...(stats
      ? {
        min: round(stats.min),
        max: round(stats.max),
        mean: round(stats.mean),
        p50: round(stats.p50),
        p90: round(stats.p90),
        p99: round(stats.p99),
      }
      : {}),
    histogram: histogram(l.us, 20).map((b) => ({
      lo: round(b.lo),
      hi: round(b.hi),
      count: b.count,
    })),
  };
}

function traceSection(input: JudgeInput, overrun: number): VerifyResult["axl"]["trace"] {
  const { setup, trace: t } = input;
  return {
    instance: setup.instance,
    ...(setup.topLevelReason ? { top_level_reason: setup.topLevelReason } : {}),
    tracer: setup.tracer,
    graph_functions: setup.graphFunctions,
    ...(setup.graphUnavailable ? { graph_unavailable: setup.graphUnavailable } : {}),
    events: setup.events,
    missing_events: setup.missingEvents,
    clock: setup.clock,
    buffer_size_kb: setup.bufferSizeKb,
    lost_events: t.lostEvents,
    lost_unknown: t.lostUnknown,
    overrun,
    ...(t.entries
      ? { entries: { in_buffer: t.entries.inBuffer, written: t.entries.written } }
      : {}),
    unparsed_lines: t.unparsed,
    graph_calls: t.graphCalls,
  };
}

function bufinfoSection(input: JudgeInput): VerifyResult["axl"]["bufinfo"] {
  const b = input.bufinfo;
  if ("unavailable" in b) {
    return { available: false, reason: b.unavailable, samples: 0, inodes_seen: 0, errors: [] };
  }
  return {
    available: true,
    samples: b.samples,
    inodes_seen: b.inodes.size,
    errors: b.errors.slice(0, 20),
    ...(input.workload.sysfs ? { sysfs: input.workload.sysfs } : {}),
  };
}

/**
 * Where the number of frames submitted came from: the builtin counts its own, a command or
 * `--pid` has the user's `--frames`; else our tracepoints' job submits, else nothing.
 */
function submittedFrom(w: WorkloadRecord, submitted: number | null): string {
  if (w.framesSubmitted !== null) return w.kind.startsWith("builtin") ? "workload" : "--frames";
  return submitted !== null ? "evidence (axl_job_submit)" : "unknown";
}

function workloadSection(w: WorkloadRecord): VerifyResult["axl"]["workload"] {
  return {
    kind: w.kind,
    description: w.description,
    pids: w.pids,
    exit_code: w.exitCode,
    ...(w.exitSignal ? { exit_signal: w.exitSignal } : {}),
    ...(w.stopped ? { stopped: true } : {}),
    ...(w.stderrTail ? { stderr_tail: w.stderrTail } : {}),
    ...(w.v4l2Devices?.length ? { v4l2_devices: w.v4l2Devices } : {}),
    map_refs: (w.mapRefs ?? []).slice(0, 50).map((m) => ({
      pid: m.pid,
      inode: m.inode,
      name: m.name,
      bytes: m.bytes,
    })),
  };
}

function frameOut(f: TracedFrame, t0: number): VerifyResult["axl"]["frames"]["list"][number] {
  const out: VerifyResult["axl"]["frames"]["list"][number] = { index: f.index };
  const copy = <K extends keyof typeof out>(k: K, v: (typeof out)[K] | undefined) => {
    if (v !== undefined) out[k] = v;
  };
  copy("seqno", f.seqno);
  copy("context", f.context);
  copy("handle", f.handle);
  copy("inode", f.inode);
  copy("exporter", f.exporter);
  copy("pid", f.pid);
  copy("import_ns", f.importTs !== undefined ? f.importTs - t0 : undefined);
  copy("submit_ns", f.submitTs !== undefined ? f.submitTs - t0 : undefined);
  copy("signal_ns", f.signalTs !== undefined ? f.signalTs - t0 : undefined);
  copy("release_ns", f.releaseTs !== undefined ? f.releaseTs - t0 : undefined);
  copy("latency_us", f.latencyNs !== undefined ? round(f.latencyNs / 1000) : undefined);
  copy("status", f.status);
  return out;
}
