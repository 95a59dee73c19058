/**
 * The invariant judge: a pure function from everything a run observed (parsed trace,
 * bufinfo samples, perf shares, workload stats) to the verdict and `result.json`.
 *
 * - I1 some frame inode had ≥ 2 attached devices in a bufinfo sample taken during the run;
 * - I2 the exporter of those inodes is in the accepted set;
 * - I3 imports equal frames submitted, and releases balance imports;
 * - I4 no copy routine above the self-share threshold (1%) in the workload's processes.
 *
 * Lost trace events make every trace-derived verdict INCONCLUSIVE, never PASS. A missing
 * capability is SKIP. The run passes only when all four pass.
 *
 * @module
 */
import type { TraceSessionInfo } from "../trace/tracefs.ts";
import type { BufinfoSummary, InodeObservation } from "../trace/bufinfo_sampler.ts";
import type { BufferLoss } from "../trace/per_cpu_stats.ts";
import type { PerfSummary } from "../trace/perf_script.ts";
import type { DmaBufMapRef } from "../trace/dmabuf_refs.ts";
import { diagnosis } from "./diagnosis.ts";
import { type Frame, FrameJoin, type WorkloadFrame } from "./frames.ts";
import { histogram, latencyStats } from "./latency.ts";
import {
  type Diagnosis,
  type Invariant,
  RESULT_SCHEMA_VERSION,
  type Status,
  type VerifyResult,
  VerifyResultSchema,
} from "./schema.ts";
import type { TraceFacts } from "./trace_facts.ts";

/** The exporters accepted by default (DESIGN Corrections 3). */
export const DEFAULT_ACCEPTED_EXPORTERS: readonly string[] = [
  "nvmap",
  "nvmap_dmabuf",
  "tegra-buf",
  "system",
  "linux,cma",
];

/** How the trace was captured: the capture session's info without its paths and notes. */
export type TraceSetup = Omit<TraceSessionInfo, "tracefs" | "dir" | "notes">;

/** What the workload did. */
export interface WorkloadReport {
  /** `builtin-zero-copy`, `builtin-copy`, `command`, `pid`. */
  kind: string;
  description: string;
  pids: number[];
  /** Frames the workload submitted, when it knows (the builtin does); else null. */
  framesSubmitted: number | null;
  frames?: WorkloadFrame[];
  exitCode: number | null;
  /** Last lines of its stderr, for failure-mode matching. */
  stderrTail?: string;
  /** sysfs buffer stats read during the run (undefined: not looked at). */
  sysfs?: { present: boolean; buffers: Array<{ inode: number; exporter: string; size: number }> };
  /** /dmabuf: map refs seen while it ran. */
  mapRefs?: Array<{ pid: number } & DmaBufMapRef>;
}

/** The machine, for the report. */
export interface Environment {
  kernel: string;
  preemptRt: boolean;
  machine: string;
  /** The device imports attach to (axl_info.device), or `""`. */
  device: string;
  simulated: boolean;
  tracers: string[];
  pmu: boolean;
}

/** Thresholds and sets. */
export interface JudgeOptions {
  acceptedExporters?: readonly string[];
  /** I4 threshold in percent self (default 1). */
  copyThresholdPercent?: number;
  /** Fewer perf samples than this make I4 INCONCLUSIVE (default 100). */
  minPerfSamples?: number;
  /** Fence latency above this (ms, p99) adds the slow-fence diagnosis (default 50). */
  slowFenceMs?: number;
}

/** Everything the judge looks at. */
export interface JudgeInput {
  headline: string;
  trace: TraceFacts;
  setup: TraceSetup;
  /** Loss from per_cpu stats; absent when the stats could not be read. */
  loss?: BufferLoss;
  bufinfo: BufinfoSummary | { unavailable: string };
  perf: { summary: PerfSummary; event: string; reason: string } | { unavailable: string };
  workload: WorkloadReport;
  environment: Environment;
  options?: JudgeOptions;
  notes?: string[];
}

const TITLES = {
  I1: "a frame buffer had ≥ 2 attached devices during the run",
  I2: "its exporter is in the accepted set",
  I3: "imports equal frames submitted and releases balance",
  I4: "no CPU copy routine above the threshold",
} as const;

function inv(
  id: keyof typeof TITLES,
  status: Status,
  summary: string,
  evidence: Record<string, unknown>,
): Invariant {
  return { id, title: TITLES[id], status, summary, evidence };
}

/**
 * Judges a run. The result validates against `VerifyResultSchema` (checked here).
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
 * if (r.pass || r.axl.invariants.I3.status !== "FAIL") throw new Error();
 * ```
 */
export function judge(input: JudgeInput): VerifyResult {
  const o = input.options ?? {};
  const accepted = o.acceptedExporters ?? DEFAULT_ACCEPTED_EXPORTERS;
  const threshold = o.copyThresholdPercent ?? 1;
  const minSamples = o.minPerfSamples ?? 100;
  const slowMs = o.slowFenceMs ?? 50;
  const t = input.trace;
  const diag: Diagnosis[] = [];
  const notes = [...(input.notes ?? [])];

  const overrun = input.loss?.lost ?? 0;
  const entriesLost = t.entries ? t.entries.written - t.entries.inBuffer : 0;
  const lossy = overrun > 0 || t.lostEvents > 0 || t.lostUnknown > 0 || t.bufferStarted > 0 ||
    entriesLost > 0;
  if (lossy) {
    diag.push(diagnosis(
      "trace-lost-events",
      [
        overrun
          ? `${overrun} overwritten/dropped (per_cpu stats${
            input.loss!.lossyCpus.length ? `, CPU ${input.loss!.lossyCpus.join(",")}` : ""
          })`
          : "",
        t.lostEvents ? `${t.lostEvents} lost (markers)` : "",
        t.lostUnknown ? `${t.lostUnknown} lost-event markers without a count` : "",
        entriesLost > 0
          ? `entries-in-buffer/entries-written ${t.entries!.inBuffer}/${t.entries!.written}`
          : "",
        t.bufferStarted ? `${t.bufferStarted} 'buffer started' markers` : "",
      ].filter(Boolean).join(", ") + ` with buffer_size_kb=${input.setup.bufferSizeKb}`,
    ));
  }
  if (!input.loss) {
    notes.push("per_cpu stats could not be read: overruns are detected from the trace text only");
  }
  if (input.setup.graphUnavailable) {
    diag.push(diagnosis("no-function-graph", input.setup.graphUnavailable));
  }
  if (t.unparsed > 0) {
    notes.push(`${t.unparsed} trace lines were not understood (${t.firstUnparsed.join("; ")})`);
  }
  const workloadFailed = input.workload.exitCode !== null && input.workload.exitCode !== 0;
  if (workloadFailed) {
    diag.push(diagnosis("workload-failed", `exit code ${input.workload.exitCode}`));
  }
  if (
    input.workload.stderrTail && /import-mode/.test(input.workload.stderrTail) &&
    /propert/i.test(input.workload.stderrTail)
  ) {
    diag.push(diagnosis("gst-import-mode"));
  }

  // Facts folded from a trace carry their frame join; facts made by hand are joined here.
  const join = t.join ?? FrameJoin.fromEvents(t);
  const frames = join.frames(input.workload.frames ?? []);
  const frameInodes = frames.inodes;
  if (frames.list.length < frames.count) {
    notes.push(
      `the frame list holds the first ${frames.list.length} of ${frames.count} frames; counts ` +
        "and latency statistics cover all of them",
    );
  }

  // I1 — attachments, from bufinfo samples taken during the run.
  let i1: Invariant;
  let multi: InodeObservation[] = [];
  let seenFrames: InodeObservation[] = [];
  if ("unavailable" in input.bufinfo) {
    i1 = inv("I1", "SKIP", `bufinfo not sampled: ${input.bufinfo.unavailable}`, {});
    diag.push(diagnosis("bufinfo-unavailable", input.bufinfo.unavailable));
  } else {
    const b = input.bufinfo;
    seenFrames = [...b.inodes.values()].filter((x) => frameInodes.has(x.inode));
    multi = seenFrames.filter((x) => x.maxDevices >= 2);
    const evidence = {
      samples: b.samples,
      frame_inodes: frameInodes.size,
      frame_inodes_sampled: seenFrames.length,
      multi_attach: multi.slice(0, 20).map((x) => ({
        inode: x.inode,
        exporter: x.exporter,
        devices: x.devicesAtMax,
        multi_attach_samples: x.multiAttachSamples,
      })),
      max_devices: Math.max(0, ...seenFrames.map((x) => x.maxDevices)),
      sample_errors: b.errors.length,
    };
    if (frameInodes.size === 0) {
      i1 = inv(
        "I1",
        "INCONCLUSIVE",
        "no frame inode is known (no axl import in the trace)",
        evidence,
      );
    } else if (multi.length > 0) {
      i1 = inv(
        "I1",
        "PASS",
        `${multi.length} of ${frameInodes.size} frame inodes had ≥ 2 devices attached (e.g. inode ${
          multi[0]!.inode
        }: ${multi[0]!.devicesAtMax.join(", ")})`,
        evidence,
      );
    } else if (seenFrames.length === 0) {
      i1 = inv(
        "I1",
        "INCONCLUSIVE",
        `none of ${frameInodes.size} frame inodes appeared in ${b.samples} bufinfo samples`,
        evidence,
      );
      diag.push(diagnosis("attach-not-sampled", `${b.samples} samples`));
    } else {
      i1 = inv(
        "I1",
        "FAIL",
        `${seenFrames.length} frame inodes sampled, at most ${evidence.max_devices} device attached`,
        evidence,
      );
      const refs = input.workload.mapRefs ?? [];
      diag.push(diagnosis(
        "attach-count-one",
        refs.length
          ? `${refs.length} /dmabuf: map refs in the workload (e.g. pid ${refs[0]!.pid} inode ${
            refs[0]!.inode
          })`
          : "no /dmabuf: map refs seen",
      ));
    }
  }

  // I2 — exporters of the multi-attached frame inodes (or of all frames when none).
  const exporterOf = new Map(join.exporterOf);
  for (const x of seenFrames) if (!exporterOf.has(x.inode)) exporterOf.set(x.inode, x.exporter);
  const basis = multi.length > 0 ? multi.map((x) => x.inode) : [...frameInodes];
  const exporters = [
    ...new Set(basis.map((i) => exporterOf.get(i)).filter((e): e is string => !!e)),
  ].sort();
  const rejected = exporters.filter((e) => !accepted.includes(e));
  let i2: Invariant;
  const i2ev = {
    exporters,
    accepted: [...accepted],
    basis: multi.length > 0 ? "multi-attached frames" : "all frames",
  };
  if (exporters.length === 0) {
    i2 = inv(
      "I2",
      i1.status === "SKIP" ? "SKIP" : "INCONCLUSIVE",
      "no exporter known for any frame",
      i2ev,
    );
  } else if (rejected.length > 0) {
    i2 = inv("I2", "FAIL", `exporter ${rejected.join(", ")} is not accepted`, i2ev);
    diag.push(
      diagnosis("exporter-unknown", `${rejected.join(", ")} (accepted: ${accepted.join(", ")})`),
    );
  } else if (multi.length === 0) {
    i2 = inv(
      "I2",
      "INCONCLUSIVE",
      `frame exporters ${exporters.join(", ")} are accepted, but no frame was multi-attached (I1)`,
      i2ev,
    );
  } else {
    i2 = inv("I2", "PASS", `exporter ${exporters.join(", ")} is accepted`, i2ev);
  }

  // I3 — per-frame import and release accounting.
  const imports = join.imports, releases = join.releases;
  const submitted = input.workload.framesSubmitted ?? (join.submits > 0 ? join.submits : null);
  const openHandles = join.unreleasedHandles();
  const i3ev = {
    imports,
    releases,
    frames_submitted: submitted,
    submitted_source: input.workload.framesSubmitted !== null
      ? "workload"
      : join.submits > 0
      ? "axl_job_submit"
      : "unknown",
    job_submits: join.submits,
    job_completes: join.completes,
    unreleased_handles: openHandles.slice(0, 20),
    axl_events_missing: input.setup.missingEvents.filter((e) => e.startsWith("axl:")),
  };
  let i3: Invariant;
  if (i3ev.axl_events_missing.length > 0) {
    i3 = inv("I3", "FAIL", "the axl tracepoints are not in tracefs", i3ev);
    diag.push(diagnosis("axl-events-missing"));
  } else if (imports === 0 && !lossy) {
    i3 = inv("I3", "FAIL", "axl_dmabuf_import never fired", i3ev);
    diag.push(diagnosis("axl-import-never-fires"));
  } else if (lossy) {
    i3 = inv(
      "I3",
      "INCONCLUSIVE",
      `trace lost events: ${imports} imports / ${releases} releases cannot be trusted`,
      i3ev,
    );
  } else if (submitted === null) {
    i3 = inv(
      "I3",
      "INCONCLUSIVE",
      `${imports} imports, ${releases} releases, but the number of frames submitted is unknown`,
      i3ev,
    );
  } else if (imports !== submitted) {
    i3 = inv("I3", "FAIL", `${imports} imports for ${submitted} frames submitted`, i3ev);
    diag.push(diagnosis("imports-ne-frames", `${imports} imports, ${submitted} frames`));
  } else if (releases !== imports || openHandles.length > 0) {
    i3 = inv("I3", "FAIL", `${releases} releases for ${imports} imports`, i3ev);
    diag.push(
      diagnosis(
        "releases-unbalanced",
        `${releases}/${imports}, unreleased handles ${openHandles.slice(0, 5).join(",")}`,
      ),
    );
  } else {
    i3 = inv(
      "I3",
      "PASS",
      `${imports} imports = ${submitted} frames submitted; ${releases} releases`,
      i3ev,
    );
  }

  // I4 — copy routines in the workload's processes.
  let i4: Invariant;
  let hot: string[] = [];
  let perfOut: VerifyResult["axl"]["perf"];
  if ("unavailable" in input.perf) {
    i4 = inv("I4", "SKIP", `perf unavailable: ${input.perf.unavailable}`, {});
    diag.push(diagnosis("perf-unavailable", input.perf.unavailable));
    perfOut = {
      available: false,
      reason: input.perf.unavailable,
      samples: 0,
      copy_percent: 0,
      top: [],
    };
  } else {
    const s = input.perf.summary;
    const over = s.copyRoutines.filter((c) => c.selfPercent > threshold);
    hot = over.map((c) => c.symbol);
    const ev = {
      event: input.perf.event,
      samples: s.samples,
      threshold_percent: threshold,
      copy_percent: round(s.copyPercent),
      over_threshold: over.map((c) => ({
        symbol: c.symbol,
        dso: c.dso,
        self_percent: round(c.selfPercent),
        caller: c.topCaller ?? null,
      })),
      copy_routines: s.copyRoutines.slice(0, 10).map((c) => ({
        symbol: c.symbol,
        self_percent: round(c.selfPercent),
      })),
    };
    if (over.length > 0) {
      const top = over[0]!;
      i4 = inv(
        "I4",
        "FAIL",
        `${top.symbol} at ${round(top.selfPercent)}% self (threshold ${threshold}%)`,
        ev,
      );
      diag.push(diagnosis(
        "memcpy-hot",
        over.map((c) =>
          `${c.symbol} ${round(c.selfPercent)}% self${
            c.topCaller ? ` (called from ${c.topCaller})` : ""
          }`
        ).join(", "),
      ));
    } else if (s.samples < minSamples) {
      i4 = inv("I4", "INCONCLUSIVE", `only ${s.samples} samples (need ${minSamples})`, ev);
      diag.push(diagnosis("perf-few-samples", `${s.samples} < ${minSamples}`));
    } else {
      i4 = inv(
        "I4",
        "PASS",
        `no copy routine above ${threshold}% (all copies: ${
          round(s.copyPercent)
        }%, ${s.samples} samples)`,
        ev,
      );
    }
    perfOut = {
      available: true,
      reason: input.perf.reason,
      event: input.perf.event,
      samples: s.samples,
      copy_percent: round(s.copyPercent),
      top: s.symbols.slice(0, 15).map((x) => {
        const row: VerifyResult["axl"]["perf"]["top"][number] = {
          symbol: x.symbol,
          dso: x.dso,
          self_percent: round(x.selfPercent),
          samples: x.samples,
        };
        if (x.copyRoutine) row.copy_routine = x.copyRoutine;
        if (x.topCaller) row.top_caller = x.topCaller;
        return row;
      }),
    };
  }

  // Latency from fence timestamps.
  // In µs, in place: the join made this array for this call.
  const lat = frames.latencyNs;
  for (let i = 0; i < lat.length; i++) lat[i] = lat[i]! / 1000;
  const stats = latencyStats(lat);
  const sources = frames.sources;
  if (stats && stats.p99 > slowMs * 1000) {
    diag.push(diagnosis("fence-wait-slow", `p99 ${round(stats.p99 / 1000)} ms`));
  }

  if (lossy) {
    // Frame inodes and counts come from the trace: with lost events a FAIL cannot be trusted.
    for (const i of [i1, i2, i3]) {
      if (i.status === "FAIL") {
        i.status = "INCONCLUSIVE";
        i.summary = `${i.summary} (the trace lost events, so this is not a verdict)`;
      }
    }
  }
  const invariants = { I1: i1, I2: i2, I3: i3, I4: i4 };
  const statuses = Object.values(invariants).map((x) => x.status);
  let status: Status = statuses.includes("FAIL")
    ? "FAIL"
    : statuses.every((s) => s === "PASS")
    ? "PASS"
    : "INCONCLUSIVE";
  if (status === "PASS" && (lossy || workloadFailed)) status = "INCONCLUSIVE";
  const multiInodes = multi.map((x) => String(x.inode));
  const t0 = frames.t0;

  const result: VerifyResult = {
    I1_attach_count_ge2: i1.status === "PASS",
    I2_known_exporter: i2.status === "PASS",
    I3_axl_imports: i3.status === "PASS",
    I4_no_memcpy_hot: i4.status === "PASS",
    detail: {
      imports,
      releases,
      fence_wait_lines: t.fenceWaitLines,
      multi_attach_inodes: multiInodes,
      exporters: [
        ...new Set([...join.exporters, ...seenFrames.map((x) => x.exporter)]),
      ].sort(),
      memcpy_hot: hot,
    },
    pass: status === "PASS",
    axl: {
      schema: RESULT_SCHEMA_VERSION,
      status,
      headline: input.headline,
      invariants,
      frames: {
        submitted,
        traced: frames.count,
        list: frames.list.map((f) => frameOut(f, Number.isFinite(t0) ? t0 : 0)),
      },
      latency: {
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
        histogram: histogram(lat, 20).map((b) => ({
          lo: round(b.lo),
          hi: round(b.hi),
          count: b.count,
        })),
      },
      trace: {
        instance: input.setup.instance,
        ...(input.setup.topLevelReason ? { top_level_reason: input.setup.topLevelReason } : {}),
        tracer: input.setup.tracer,
        graph_functions: input.setup.graphFunctions,
        ...(input.setup.graphUnavailable
          ? { graph_unavailable: input.setup.graphUnavailable }
          : {}),
        events: input.setup.events,
        missing_events: input.setup.missingEvents,
        clock: input.setup.clock,
        buffer_size_kb: input.setup.bufferSizeKb,
        lost_events: t.lostEvents,
        lost_unknown: t.lostUnknown,
        overrun,
        ...(t.entries
          ? { entries: { in_buffer: t.entries.inBuffer, written: t.entries.written } }
          : {}),
        unparsed_lines: t.unparsed,
        graph_calls: t.graphCalls,
      },
      bufinfo: "unavailable" in input.bufinfo
        ? {
          available: false,
          reason: input.bufinfo.unavailable,
          samples: 0,
          inodes_seen: 0,
          errors: [],
        }
        : {
          available: true,
          samples: input.bufinfo.samples,
          inodes_seen: input.bufinfo.inodes.size,
          errors: input.bufinfo.errors.slice(0, 20),
          ...(input.workload.sysfs ? { sysfs: input.workload.sysfs } : {}),
        },
      perf: perfOut,
      environment: {
        kernel: input.environment.kernel,
        preempt_rt: input.environment.preemptRt,
        machine: input.environment.machine,
        device: input.environment.device,
        simulated: input.environment.simulated,
        tracers: input.environment.tracers,
        pmu: input.environment.pmu,
      },
      workload: {
        kind: input.workload.kind,
        description: input.workload.description,
        pids: input.workload.pids,
        exit_code: input.workload.exitCode,
        map_refs: (input.workload.mapRefs ?? []).slice(0, 50).map((m) => ({
          pid: m.pid,
          inode: m.inode,
          name: m.name,
          bytes: m.bytes,
        })),
      },
      diagnosis: diag,
      notes,
    },
  };
  return VerifyResultSchema.parse(result);
}

function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}

function frameOut(f: Frame, t0: number): VerifyResult["axl"]["frames"]["list"][number] {
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
