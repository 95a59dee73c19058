/**
 * `verify`: proves the zero-copy frame path (invariants I1–I4) around a workload —
 * private trace instance, bufinfo samples, map-ref scans and perf — and writes an
 * artifacts directory. What the CLI and the shell share: the declaration, the checked
 * options, the headline, the verdict lines and the exit codes (what a builtin run opens
 * is in `verify_builtin.ts`).
 *
 * @module
 */
import { type DeviceInfo, MAX_SUBMIT_TIMEOUT_MS } from "../core/device.ts";
import { systemAt } from "../doctor/system.ts";
import { chooseImporter, importerNameProblem } from "../verify/evidence/importer.ts";
import {
  EVIDENCE_MODES,
  type EvidenceMode,
  type ImporterRecord,
} from "../verify/evidence/source.ts";
import { DEFAULT_ACCEPTED_EXPORTERS } from "../verify/judge.ts";
import { pipelineLines } from "../verify/pipeline.ts";
import { DEVICE_EXPORTERS } from "../verify/attachments.ts";
import type { VerifyRunOptions } from "../verify/run.ts";
import type { Status, VerifyResult } from "../verify/schema.ts";
import type { WorkloadMode } from "../frames/workload.ts";
import { ExitCode } from "./exit_code.ts";
import type { VerifyOutputs } from "./verify_outputs.ts";
import {
  DEVICE_OPTION,
  type FrameSize,
  framesOption,
  intOption,
  modeOption,
  modeSpec,
  sizeOption,
} from "./options.ts";
import { basename, dirname, isAbsolute, join, relative, resolve } from "node:path";
import { type CommandSpec, listOption, type ParsedArgs, stringOption, UsageError } from "./spec.ts";

const CLI_DETAILS = `Captures a private tracefs instance (dma_fence:*, axl:*, function_graph on the
dma-buf functions), samples debugfs dma_buf/bufinfo, scans the workload's
/dmabuf: map refs and records perf call graphs while a workload runs, then
judges four invariants:
  I1 a frame buffer was shared by two devices during the run
  I2 its exporter is in the accepted set
  I3 imports equal frames submitted and releases balance (counted from the
     axl tracepoints, else kprobes on the dma-buf functions, else bufinfo)
     or, from the kprobes, the importer held one mapping of every buffer of
     its frames' exporter (each mapped and unmapped once; kmssink does this)
  I4 no CPU copy routine at or above the threshold (default 1% self)
tracefs is restored afterwards, also on errors and Ctrl-C. Needs root.

Workload (one of):
  (default)      the builtin workload on the NPU device; where the device is
                 simulated (metis-sim) this is said on the first line. On a
                 Metis node (--device /dev/metis-*, /dev/axl-metis-*; without
                 /dev/axl the first one) each frame is attached, copied to
                 card memory and detached
  -- COMMAND...  run a command, e.g. a GStreamer pipeline; Ctrl-C stops it
                 (SIGTERM) and the run is judged on what was captured
  --config FILE  the same from JSON {"command": [argv...], "frames": N,
                 "acceptExporters": [...]}
  --pid PID      a process already running, until it exits, for --duration
                 seconds, or until Ctrl-C (it is never signalled)
A command or --pid counts its frames only when --frames N says so (give the
number the workload submits, e.g. its num-buffers); otherwise the verdict says
the count is unknown and I3 cannot pass. --mode, --producer, --camera and
--device are the builtin's. Without our axl tracepoints (another driver, or
--evidence generic), name the importing device with --importer.

A GStreamer command runs with the axlpads tracer loaded (GST_TRACERS): per pad,
the memory each buffer travelled in. The pipeline section names the first
element whose output is no longer the camera's dma-buf (e.g. "videoconvert0:src
pushed system memory"), and a break there FAILs the run (docs/gstreamer.md).

--replay DIR judges a saved artifacts directory again (e.g. one copied from a
Jetson) with the judge's options (--threshold, --accept-exporter, --importer,
--evidence): no root, no device, nothing captured. DIR is only read; the new
result.json, trace.json and report.html go to DIR-replay beside it, or to
--artifacts (never DIR itself or a directory inside it: refused, exit 3).`;

/** The declaration of `verify`. */
export const verifySpec: CommandSpec = {
  name: "verify",
  summary: "prove the zero-copy path (I1–I4) on the builtin workload; value: result.json",
  positionals: [],
  rest: { name: "COMMAND", kind: "command", variadic: true },
  options: {
    frames: framesOption(
      "frames: the builtin's count (default 60), or what a command or\n" +
        "--pid workload submits (default unknown)",
    ),
    mode: modeSpec("zero-copy, or copy (negative control: fails I4)"),
    producer: {
      type: "string",
      kind: "producer",
      arg: "P",
      description: "auto (v4l2 when a capture device exists, else heap; in\n" +
        "copy mode heap), v4l2, heap, or in the shell a producer variable",
      default: "auto",
    },
    camera: {
      type: "string",
      kind: "path",
      arg: "PATH",
      description: "V4L2 capture device for the v4l2 producer",
    },
    size: {
      type: "string",
      arg: "WxH",
      description: "frame size of the builtin producer (default 640x480; in\n" +
        "copy mode 3840x2160 from a heap, so the copy stands out in perf)",
    },
    "job-timeout": {
      type: "string",
      kind: "number",
      arg: "MS",
      description: "how long one job of the builtin workload may take (default 1 s\n" +
        "per started MiB of frame, at least 10000; axl's engine takes at\n" +
        `most ${MAX_SUBMIT_TIMEOUT_MS})`,
    },
    device: DEVICE_OPTION,
    config: {
      type: "string",
      kind: "path",
      arg: "FILE",
      description: "a command workload from a JSON file (see above)",
    },
    pid: {
      type: "string",
      kind: "number",
      arg: "PID",
      description: "observe a process already running (until it exits)",
    },
    replay: {
      type: "string",
      kind: "path",
      arg: "DIR",
      description: "re-judge a saved artifacts directory (see above)",
      only: "cli",
    },
    duration: {
      type: "string",
      arg: "S",
      description: "observe --pid for at most S seconds",
    },
    artifacts: {
      type: "string",
      kind: "path",
      arg: "DIR",
      // No declared default: a replay's default is beside the directory it reads.
      description: "output directory (default artifacts/verify)",
    },
    "accept-exporter": {
      type: "string",
      arg: "E",
      description: "add accepted exporters (repeatable, or E1,E2; default\n" +
        `${DEFAULT_ACCEPTED_EXPORTERS.join(", ")}); a V4L2 device that exports\n` +
        `its own buffers shows vb2's: ${DEVICE_EXPORTERS.join(", ")}`,
      multiple: true,
    },
    threshold: {
      type: "string",
      arg: "PCT",
      description: "I4 copy-routine threshold in percent self",
      default: "1",
    },
    "buffer-kb": {
      type: "string",
      kind: "number",
      arg: "KIB",
      description: "trace buffer per CPU in KiB (default 1024 while the trace is\n" +
        "drained to disk during the run; sized for the run with --no-stream)",
    },
    "bufinfo-interval": {
      type: "string",
      kind: "number",
      arg: "MS",
      // No declared default: it depends on what the kprobe events carry (capture.ts).
      description: "bufinfo sampling interval (default 20; 1000, a cross-check, when the\n" +
        "dma-buf attach events name inode and exporter, except with --pid)",
    },
    importer: {
      type: "string",
      arg: "DEV",
      description: "the importing device as bufinfo names it (a PCI address such\n" +
        "as 0000:01:00.0, vivid.0, vgem); default the axl device, else\n" +
        "the Metis bound to Axelera's metis.ko",
    },
    evidence: {
      type: "string",
      arg: "E",
      description: "where imports are counted from: auto (the best source: axl\n" +
        "tracepoints, kprobes on the dma-buf functions, bufinfo), axl,\n" +
        "or generic (never our tracepoints)",
      default: "auto",
    },
    "no-probes": { type: "boolean", description: "no kprobe events on the dma-buf functions" },
    "no-process-probes": {
      type: "boolean",
      description: "no kprobe events for the workload's dma-buf fds and mappings:\n" +
        "the /proc scans every 200 ms instead of once a second",
    },
    "no-graph": { type: "boolean", description: "no function_graph (faster to set up)" },
    "no-stream": {
      type: "boolean",
      description: "read the trace buffer once at the end instead of draining it\n" +
        "to disk while the run records",
    },
    "no-perf": { type: "boolean", description: "no perf (I4 is then SKIP)" },
    json: { type: "boolean", description: "print result.json instead of the summary", only: "cli" },
    junit: {
      type: "string",
      kind: "path",
      arg: "FILE",
      description: "also write the verdict as JUnit XML, one test case per\n" +
        "invariant (GitLab, Jenkins, GitHub test reporters)",
    },
    metrics: {
      type: "string",
      kind: "path",
      arg: "FILE",
      description: "also write Prometheus metrics (text format) for\n" +
        "node_exporter's textfile collector, e.g. DIR/axl_verify.prom",
    },
  },
  details: "The same run as 'axl verify' (see its --help), on the session's device, or on\n" +
    "a command ('verify [options] -- COMMAND...', --config FILE) or a running process\n" +
    "(--pid PID, --duration S). Needs root, tracefs and debugfs. Exit status 0 PASS,\n" +
    "1 FAIL, 2 SKIP or INCONCLUSIVE, 3 could not run. Ctrl-C stops the frames; the run is\n" +
    "judged on what was captured and tracefs is restored.",
  cli: {
    summary: "prove the zero-copy frame path (I1–I4) with ftrace, bufinfo and perf",
    details: CLI_DETAILS,
    epilogue: "Artifacts: trace.txt, per_cpu_stats.txt, bufinfo_samples.txt, perf.script,\n" +
      "perf.data, capture.json, result.json, trace.json (open in ui.perfetto.dev),\n" +
      "report.html, timings.json (the stages from the workload's end to the verdict);\n" +
      "--junit and --metrics (also with --replay) write the verdict for CI and fleets.",
    exits: [
      [ExitCode.Ok, "PASS (all four invariants)"],
      [ExitCode.Fail, "FAIL (an invariant failed; the diagnosis says why and what to do)"],
      [
        ExitCode.Inconclusive,
        "INCONCLUSIVE or SKIP (lost trace events, too few samples, a\n" +
        "missing capability)",
      ],
      [
        ExitCode.CannotRun,
        "could not run (not root, no tracefs, no device, bad options: the\n" +
        "message says what to do)",
      ],
    ],
  },
};

/** Exit code of each verdict. */
export const VERIFY_EXIT: Readonly<Record<Status, number>> = {
  PASS: ExitCode.Ok,
  FAIL: ExitCode.Fail,
  INCONCLUSIVE: ExitCode.Inconclusive,
  SKIP: ExitCode.Inconclusive,
};

/** Builtin frames by default: small, so a run is quick even under emulation. */
const ZERO_COPY_SIZE: FrameSize = { width: 640, height: 480 };

/**
 * Copy-mode frames by default: 4K frames from a heap, so that the copy, not the per-frame
 * overhead of an emulated CPU, is what perf samples. Measured in the arm64 guest (TCG):
 * heap frames, memcpy 1.3–3.2 % of samples at 1080p, 2.4–6.3 % at 4K; vivid frames, 0.8 %
 * at 640x480 and 0.2–0.5 % at 1080p and 4K, the rest page-table work (tlb_flush,
 * ptep_set_access_flags) that emulation makes expensive.
 */
const COPY_MODE_SIZE: FrameSize = { width: 3840, height: 2160 };

/** The checked options of a verify run. */
export interface VerifyPlan {
  /** Builtin frames. */
  frames: number;
  /** `--frames` when given: what a command or `--pid` workload submits. */
  framesGiven?: number;
  /** zero-copy, or the copy negative control. */
  mode: WorkloadMode;
  /** Frame size of the builtin producer. */
  size: FrameSize;
  /** `--job-timeout`: one builtin job's bound in ms (else it follows the frame size). */
  jobTimeoutMs?: number;
  /** `--importer`, when given (else the importer is chosen from the machine). */
  importer?: string;
  /** The capture and judge options runVerify takes (without the workload and importer). */
  run: Omit<VerifyRunOptions, "workload" | "headline" | "importer">;
  /** `--junit` and `--metrics`: where the verdict also goes. */
  outputs: VerifyOutputs;
}

/**
 * Reads and checks verify's options; UsageError names the one that is wrong.
 *
 * @example
 * ```ts
 * import { verifyPlan } from "./verify.ts";
 * const p = verifyPlan({ values: { "accept-exporter": ["a,b", "c"] }, positionals: [] });
 * console.log(p.run.judge?.acceptedExporters?.includes("b")); // true
 * console.log(p.frames); // 60
 * ```
 */
export function verifyPlan(args: ParsedArgs): VerifyPlan {
  if (args.positionals.length) {
    throw new UsageError(
      `verify: unexpected '${args.positionals[0]}' (a command to verify goes after '--')`,
    );
  }
  const framesText = stringOption(args, "frames");
  const framesGiven = framesText === undefined
    ? undefined
    : intOption("verify", "frames", framesText, 1);
  const mode = modeOption("verify", args);
  const sizeText = stringOption(args, "size");
  const size = sizeText !== undefined
    ? sizeOption("verify", sizeText)
    : mode === "copy"
    ? COPY_MODE_SIZE
    : ZERO_COPY_SIZE;
  const jobTimeout = stringOption(args, "job-timeout");
  const jobTimeoutMs = jobTimeout === undefined
    ? undefined
    : intOption("verify", "job-timeout", jobTimeout, 1);
  const thresholdText = stringOption(args, "threshold") ?? "1";
  const threshold = thresholdText.trim() === "" ? NaN : Number(thresholdText);
  if (!(threshold > 0 && threshold <= 100)) {
    throw new UsageError(
      `verify: --threshold must be a percentage in (0, 100], got '${thresholdText}'`,
    );
  }
  const accepted = listOption(args, "accept-exporter").flatMap((e) => e.split(",")).filter(Boolean);
  const evidence = (stringOption(args, "evidence") ?? "auto") as EvidenceMode;
  if (!EVIDENCE_MODES.includes(evidence)) {
    throw new UsageError(
      `verify: --evidence must be ${EVIDENCE_MODES.join(", ")}, got '${evidence}'`,
    );
  }
  const importer = stringOption(args, "importer");
  const importerProblem = importer === undefined ? undefined : importerNameProblem(importer);
  if (importerProblem) throw new UsageError(`verify: ${importerProblem}`);
  const interval = stringOption(args, "bufinfo-interval");
  const bufferKb = stringOption(args, "buffer-kb");
  const junit = stringOption(args, "junit");
  const metrics = stringOption(args, "metrics");
  return {
    outputs: {
      ...(junit !== undefined ? { junit } : {}),
      ...(metrics !== undefined ? { metrics } : {}),
    },
    frames: framesGiven ?? 60,
    ...(framesGiven !== undefined ? { framesGiven } : {}),
    mode,
    size,
    ...(jobTimeoutMs !== undefined ? { jobTimeoutMs } : {}),
    ...(importer !== undefined ? { importer } : {}),
    run: {
      artifacts: stringOption(args, "artifacts") ?? "artifacts/verify",
      graph: args.values["no-graph"] !== true,
      perf: args.values["no-perf"] !== true,
      probes: args.values["no-probes"] !== true,
      ...(args.values["no-process-probes"] === true ? { processProbes: false } : {}),
      ...(args.values["no-stream"] === true ? { stream: false } : {}),
      ...(interval !== undefined
        ? { bufinfoIntervalMs: intOption("verify", "bufinfo-interval", interval, 0) }
        : {}),
      ...(bufferKb !== undefined
        ? { bufferSizeKb: intOption("verify", "buffer-kb", bufferKb, 1) }
        : {}),
      judge: {
        acceptedExporters: [...DEFAULT_ACCEPTED_EXPORTERS, ...accepted],
        copyThresholdPercent: threshold,
        evidence,
      },
    },
  };
}

/** `path` made absolute with its symbolic links resolved, also where it does not exist yet. */
function realPath(path: string): string {
  const abs = resolve(path);
  try {
    return Deno.realPathSync(abs);
  } catch {
    const parent = dirname(abs);
    return parent === abs ? abs : join(realPath(parent), basename(abs));
  }
}

/**
 * Where `verify --replay dir` writes its verdict: `artifacts` when given, else `dir-replay`
 * beside `dir`. A replay only reads `dir`, so `artifacts` equal to `dir` or inside it (also
 * through symbolic links) is a UsageError that names a directory to use instead.
 *
 * @example
 * ```ts
 * import { replayArtifacts } from "./verify.ts";
 * console.log(replayArtifacts("runs/jetson")); // runs/jetson-replay
 * console.log(replayArtifacts("runs/jetson", "rejudged")); // rejudged
 * ```
 */
export function replayArtifacts(dir: string, artifacts?: string): string {
  const abs = resolve(dir);
  const target = join(dirname(abs), `${basename(abs)}-replay`);
  // As the user wrote DIR: relative to here (`.` gives ../NAME-replay), or absolute.
  const beside = isAbsolute(dir) ? target : relative(Deno.cwd(), target);
  if (artifacts === undefined) return beside;
  const inside = relative(realPath(dir), realPath(artifacts));
  if (inside === "" || !(inside.startsWith("..") || inside.startsWith("/"))) {
    throw new UsageError(
      `verify: --artifacts ${artifacts} is ${inside === "" ? "" : "inside "}the directory ` +
        `--replay reads (${dir}), which a replay never writes: give another, e.g. ` +
        `--artifacts ${beside}`,
    );
  }
  return artifacts;
}

/**
 * The device whose imports verify counts: `--importer`, else the axl device `axlDevice`
 * (as bufinfo names it), else the Metis function bound to Axelera's metis.ko.
 *
 * @example
 * ```ts ignore
 * const importer = verifyImporter(plan, dev.info().device);
 * ```
 */
export function verifyImporter(plan: VerifyPlan, axlDevice?: string): ImporterRecord {
  return chooseImporter(systemAt("/"), {
    ...(plan.importer !== undefined ? { explicit: plan.importer } : {}),
    ...(axlDevice !== undefined ? { axlDevice } : {}),
  });
}

/**
 * The first line of a builtin run; it says so when the device is simulated.
 *
 * @example
 * ```ts ignore
 * console.log(verifyHeadline(dev.info()));
 * ```
 */
export function verifyHeadline(info: DeviceInfo): string {
  return info.caps.includes("simulated")
    ? `axl verify: no NPU here: builtin workload against the SIMULATED device (${info.engine} on ${info.device}, ${Deno.osRelease()})`
    : `axl verify: builtin workload on ${info.engine} ${info.device}`;
}

/**
 * The verdict as lines: why it has its status, each invariant, the latency, every diagnosis
 * and note.
 *
 * @example
 * ```ts ignore
 * console.log(verdictLines(result).join("\n"));
 * ```
 */
export function verdictLines(result: VerifyResult): string[] {
  const a = result.axl;
  // The verdict's one sentence of why first (absent in results written before it existed).
  const lines = a.reason ? [`${a.status}: ${a.reason}`] : [];
  lines.push(
    ...Object.values(a.invariants).map((i) => `${i.id} ${i.status.padEnd(12)} ${i.summary}`),
  );
  if (a.pipeline) lines.push(...pipelineLines(a.pipeline));
  if (a.evidence) {
    lines.push(
      `evidence: ${a.evidence.source} (importer ${a.evidence.importer ?? "unknown"}: ` +
        `${a.evidence.importer_reason})`,
    );
  }
  if (a.frames.submitted === null) {
    lines.push("frames submitted: unknown (give --frames N when the workload's count is known)");
  } else if (a.frames.submitted_from && a.frames.submitted_from !== "workload") {
    lines.push(`frames submitted: ${a.frames.submitted} (from ${a.frames.submitted_from})`);
  }
  const w = a.workload;
  if (w.kind === "command" || w.kind === "pid") {
    const how = w.exit_code === null
      ? "exit status not known (not our child)"
      : `exit code ${w.exit_code}${w.exit_signal ? ` (${w.exit_signal})` : ""}`;
    lines.push(`workload: ${w.description}: ${how}${w.stopped ? ", stopped on Ctrl-C" : ""}`);
    if (w.stderr_tail && w.exit_code !== 0) {
      lines.push(...w.stderr_tail.split("\n").slice(-5).map((l) => `  stderr: ${l}`));
    }
  }
  if (a.latency.count > 0) {
    lines.push(
      `latency (${a.latency.source}): p50 ${a.latency.p50} µs, p90 ${a.latency.p90} µs, ` +
        `p99 ${a.latency.p99} µs over ${a.latency.count} frames`,
    );
  }
  if (a.chain) lines.push(`chain: ${a.chain.summary}`);
  if (a.perf.available && a.perf.rate) {
    // The rate verify chose for perf (docs/verify.md#perfs-rate), and what capped it.
    const r = a.perf.rate;
    const cap = r.capped_by ? `, capped: ${r.capped_by} ${r.max_sample_rate ?? ""}`.trimEnd() : "";
    const lowered = r.max_sample_rate_after !== undefined
      ? `; the kernel lowered its limit to ${r.max_sample_rate_after} Hz during the run`
      : "";
    lines.push(`perf: ${a.perf.samples} samples at ${r.hz} Hz (${r.rule}${cap})${lowered}`);
  }
  for (const d of a.diagnosis) {
    lines.push(`diagnosis [${d.invariant}] ${d.symptom}\n  cause: ${d.cause}\n  fix:   ${d.fix}`);
  }
  for (const n of a.notes) lines.push(`note: ${n}`);
  return lines;
}
