/**
 * `run`: the builtin workload — N frames of import → submit → wait → read result →
 * release — in zero-copy mode or the copy-every-frame negative control, with latency
 * from fence timestamps.
 *
 * @module
 */
import type { PixelFormat } from "../core/device.ts";
import { HeapProducer } from "../frames/producers/heap_producer.ts";
import type { Producer } from "../frames/producers/producer.ts";
import { V4l2Producer } from "../frames/producers/v4l2_producer.ts";
import type { FrameStat, WorkloadOptions, WorkloadReport } from "../frames/workload.ts";
import { ExitCode } from "./exit_code.ts";
import { DEVICE_OPTION, framesOption, intOption, modeOption, modeSpec } from "./options.ts";
import { type CommandSpec, type ParsedArgs, stringOption, UsageError } from "./spec.ts";

/** The declaration of `run`. */
export const runSpec: CommandSpec = {
  name: "run",
  summary: "run the builtin workload (N frames import/submit/wait/release); value: the report",
  positionals: [],
  options: {
    frames: framesOption("frames", "30"),
    mode: modeSpec(
      "zero-copy, or copy: CPU-copy every frame into a staging\n" +
        "buffer first (the negative control for verify's I4)",
    ),
    producer: {
      type: "string",
      kind: "producer",
      arg: "PRODUCER",
      description: "heap (default: test pattern from a DMA heap) or v4l2, or in\n" +
        "the shell a producer from 'produce'",
    },
    camera: {
      type: "string",
      kind: "path",
      arg: "PATH",
      description: "V4L2 device for --producer v4l2 (default: first capture device)",
      only: "cli",
    },
    heap: {
      type: "string",
      kind: "heap",
      arg: "HEAP",
      description: "DMA heap for frames and results (default system,\n" +
        "or the shell's --heap)",
    },
    format: {
      type: "string",
      arg: "F",
      description: "NV12, GREY or YUYV (heap producer)",
      default: "NV12",
      only: "cli",
    },
    size: {
      type: "string",
      arg: "WxH",
      description: "frame size",
      default: "640x480",
      only: "cli",
    },
    device: DEVICE_OPTION,
    "timeout-ms": {
      type: "string",
      kind: "number",
      arg: "N",
      description: "per-job timeout",
      default: "2000",
      only: "cli",
    },
    timeout: {
      type: "string",
      kind: "number",
      arg: "MS",
      description: "per-job timeout",
      default: "2000",
      only: "shell",
    },
    model: {
      type: "string",
      kind: "number",
      arg: "ID",
      description: "model id",
      default: "0",
      only: "shell",
    },
    json: { type: "boolean", description: "print the whole report as JSON", only: "cli" },
    quiet: { type: "boolean", description: "no per-frame lines", only: "cli" },
  },
  details: "Uses the session's device. Exit status 1 when a frame's result differed from\n" +
    "the reference or imports and releases do not balance.",
  cli: {
    summary: "run the builtin frame workload against the NPU and report latency",
    details: `Runs N frames through the NPU: take a frame from the producer, import it
(AXL_IOCTL_IMPORT_FD), submit it, wait for its fence, read the result, release.
Latency is the fence's signal time minus the driver's submit time.
Ctrl-C stops after the current frame and still releases everything.`,
    exits: [
      [ExitCode.Ok, "every frame completed with a correct result"],
      [ExitCode.Fail, "a frame failed or a result did not match"],
      [ExitCode.CannotRun, "could not run (no device, no heap: the message says what to do)"],
    ],
  },
};

/** The checked frames, mode and timeout of a run. */
export type RunPlan = Required<Pick<WorkloadOptions, "frames" | "mode" | "timeoutMs">>;

/**
 * Frames, mode and timeout of a run, checked; UsageError says which is wrong.
 *
 * @example
 * ```ts
 * import { runPlan } from "./run.ts";
 * const p = runPlan({ values: { frames: "5", timeout: "100" }, positionals: [] });
 * console.log(p.frames); // 5
 * console.log(p.timeoutMs); // 100
 * console.log(p.mode); // "zero-copy"
 * ```
 */
export function runPlan(args: ParsedArgs): RunPlan {
  if (args.positionals.length) throw new UsageError(`run: unexpected '${args.positionals[0]}'`);
  const timeout = stringOption(args, "timeout-ms") !== undefined ? "timeout-ms" : "timeout";
  return {
    frames: intOption("run", "frames", stringOption(args, "frames") ?? "30", 1),
    mode: modeOption("run", args),
    timeoutMs: intOption("run", timeout, stringOption(args, timeout) ?? "2000", 1),
  };
}

/**
 * Opens the `heap` or `v4l2` producer the options name.
 *
 * @example
 * ```ts ignore
 * using producer = openRunProducer({ values: { producer: "heap" }, positionals: [] }, "system");
 * ```
 */
export function openRunProducer(args: ParsedArgs, heap: string): Producer {
  const kind = stringOption(args, "producer") ?? "heap";
  const format = stringOption(args, "format") ?? "NV12";
  const sizeText = stringOption(args, "size") ?? "640x480";
  const size = /^(\d+)x(\d+)$/.exec(sizeText);
  if (!size) throw new UsageError(`run: --size must look like 640x480, got '${sizeText}'`);
  const [width, height] = [Number(size[1]), Number(size[2])];
  if (!["NV12", "GREY", "YUYV"].includes(format)) {
    throw new UsageError(`run: --format must be NV12, GREY or YUYV, got '${format}'`);
  }
  if (kind === "heap") {
    return HeapProducer.open({ heap, format: format as PixelFormat, width, height });
  }
  if (kind === "v4l2") {
    return V4l2Producer.open({ device: stringOption(args, "camera"), heap, width, height });
  }
  throw new UsageError(`run: --producer must be heap or v4l2, got '${kind}'`);
}

/**
 * Ok when every frame came back right and imports balance releases; Interrupted when
 * Ctrl-C stopped it (`aborted`: the code to use then); else Fail.
 *
 * @example
 * ```ts ignore
 * return runExit(report);
 * ```
 */
export function runExit(r: WorkloadReport, aborted: number = ExitCode.Interrupted): number {
  if (r.aborted) return aborted;
  const ok = r.mismatches === 0 && r.imports === r.releases && r.completed === r.framesRequested;
  return ok ? ExitCode.Ok : ExitCode.Fail;
}

const ms = (ns: number): string => (ns / 1e6).toFixed(2);

/**
 * One frame's line, as `axl run` prints it.
 *
 * @example
 * ```ts ignore
 * onFrame: (f) => console.log(frameLine(f));
 * ```
 */
export function frameLine(f: FrameStat): string {
  return `frame ${f.index} seq ${f.seqno} inode ${f.inode} latency ${ms(Number(f.latencyNs))} ms ` +
    `cpu ${ms(f.cpuNs)} ms crc32 ${f.crc32.toString(16).padStart(8, "0")}` +
    (f.resultOk === false ? " MISMATCH" : "");
}

/**
 * The one-line summary `axl run` ends with.
 *
 * @example
 * ```ts ignore
 * console.log(summaryLine(report));
 * ```
 */
export function summaryLine(r: WorkloadReport): string {
  const l = r.latencyNs;
  return `${r.completed}/${r.framesRequested} frames (${r.mode}, ${r.producer}) on ` +
    `${r.device.engine} ${r.device.device}: latency p50 ${ms(l.p50)} ms, p99 ${ms(l.p99)} ms; ` +
    `cpu ${ms(r.cpuNsPerFrame.p50)} ms/frame; imports ${r.imports}, releases ` +
    `${r.releases}, mismatches ${r.mismatches}${r.aborted ? " (interrupted)" : ""}`;
}
