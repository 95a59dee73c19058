/**
 * What a builtin `verify` run opens: the producer `--producer` names, the workload on
 * the NPU with its headline, and the one rule for errors that stop a run before it starts.
 *
 * @module
 */
import type { Device } from "../core/device.ts";
import { HeapProducer } from "../frames/producers/heap_producer.ts";
import type { Producer } from "../frames/producers/producer.ts";
import { listCaptureDevices, V4l2Producer } from "../frames/producers/v4l2_producer.ts";
import { devicePaths, MAX_SUBMIT_TIMEOUT_MS } from "../core/device.ts";
import type { MetisDevice } from "../core/metis/device.ts";
import { metisNodes, parseNodeName } from "../core/metis/node.ts";
import { pathExists } from "../core/path_exists.ts";
import { prepareMetisWorkload } from "../frames/metis_workload.ts";
import { builtinWorkload } from "../verify/builtin_workload.ts";
import { metisBuiltinWorkload } from "../verify/metis_builtin_workload.ts";
import type { VerifyRunOptions } from "../verify/run.ts";
import type { WorkloadSpec } from "../verify/workload.ts";
import type { FrameSize } from "./options.ts";
import { CannotRunError, UsageError } from "./spec.ts";
import { errorKind } from "./exit_code.ts";
import { verifyHeadline, type VerifyPlan } from "./verify.ts";

/**
 * The producer `--producer` names: `heap`, `v4l2`, or `auto`: v4l2 when a capture device
 * exists or `--camera` is given, else heap; in copy mode (`copy`) a heap unless `--camera`
 * is given, as the negative control measures the copy, not the camera.
 *
 * @example
 * ```ts ignore
 * using producer = openVerifyProducer("auto", undefined);
 * ```
 */
export function openVerifyProducer(
  kind: string,
  camera: string | undefined,
  heap?: string,
  size?: FrameSize,
  copy = false,
): Producer {
  const onHeap = { ...(heap !== undefined ? { heap } : {}), ...size };
  if (kind === "heap" || (kind === "auto" && copy && !camera)) return HeapProducer.open(onHeap);
  if (kind === "v4l2") return V4l2Producer.open({ ...onHeap, device: camera });
  if (kind !== "auto") {
    throw new UsageError(`verify: --producer must be auto, v4l2 or heap, got '${kind}'`);
  }
  let cams: ReturnType<typeof listCaptureDevices> = [];
  try {
    cams = listCaptureDevices();
  } catch { /* no V4L2 here */ }
  return cams.length > 0 || camera
    ? V4l2Producer.open({ ...onHeap, device: camera ?? cams[0]!.path })
    : HeapProducer.open(onHeap);
}

/**
 * How long one job of a verify run may take: 1 s per started MiB of NV12 frame, at least
 * 10 s, at most `max` (the device's own bound: {@linkcode MAX_SUBMIT_TIMEOUT_MS} for axl's
 * engine, which therefore gets 10 s for every frame size). Verify traces every dma-buf function
 * with function_graph while the jobs run, and the engine's CRC pass scales with the frame: a 4K
 * frame (12 MiB) took over 2 s on the x86_64 guest under load, and a 640x480 one 1.8–2.1 s on
 * the arm64 lockdep/KASAN kernel under QEMU. A job that times out fails the run, so the bound
 * only has to catch a stalled engine.
 *
 * @example
 * ```ts
 * import { verifyJobTimeoutMs } from "./verify_builtin.ts";
 * import { MAX_SUBMIT_TIMEOUT_MS } from "../core/device.ts";
 * console.log(verifyJobTimeoutMs({ width: 640, height: 480 })); // 10_000
 * console.log(verifyJobTimeoutMs({ width: 3840, height: 2160 })); // 12_000
 * const fourK = verifyJobTimeoutMs({ width: 3840, height: 2160 }, MAX_SUBMIT_TIMEOUT_MS);
 * console.log(fourK); // 10_000
 * ```
 */
export function verifyJobTimeoutMs(size: FrameSize, max = Infinity): number {
  const scaled = Math.ceil((size.width * size.height * 1.5) / 2 ** 20) * 1000;
  return Math.min(max, Math.max(10_000, scaled));
}

/**
 * One builtin job's bound: `--job-timeout` when given, else {@linkcode verifyJobTimeoutMs}.
 * A given bound above the device's `max` is a UsageError, not a run whose every submit fails.
 *
 * @example
 * ```ts
 * import { builtinJobTimeoutMs } from "./verify_builtin.ts";
 * const size = { width: 640, height: 480 };
 * console.log(builtinJobTimeoutMs({ size, jobTimeoutMs: 2500 }, 10_000)); // 2500
 * console.log(builtinJobTimeoutMs({ size }, 10_000)); // 10_000
 * ```
 */
export function builtinJobTimeoutMs(
  plan: Pick<VerifyPlan, "size" | "jobTimeoutMs">,
  max = Infinity,
): number {
  if (plan.jobTimeoutMs === undefined) return verifyJobTimeoutMs(plan.size, max);
  if (plan.jobTimeoutMs > max) {
    throw new UsageError(
      `verify: --job-timeout ${plan.jobTimeoutMs} is more than axl's engine allows ` +
        `(${max} ms); give at most that`,
    );
  }
  return plan.jobTimeoutMs;
}

/** A builtin workload ready for runVerify, with its headline and device. */
export interface BuiltinRun {
  /** The workload. */
  workload: WorkloadSpec;
  /** Its first line. */
  headline: string;
  /** The NPU it runs on, for result.json. */
  device: NonNullable<VerifyRunOptions["device"]>;
  /** The axl device as bufinfo names it (the default importer); undefined: look it up. */
  axlDevice: string | undefined;
}

/**
 * The builtin workload of `plan` on `device`, frames from `producer`.
 *
 * @example
 * ```ts ignore
 * const { workload, headline } = builtinRun(plan, dev, producer);
 * ```
 */
export function builtinRun(
  plan: VerifyPlan,
  device: Device,
  producer: Producer,
  heap?: string,
): BuiltinRun {
  const info = device.info();
  const { frames, mode } = plan;
  const timeoutMs = builtinJobTimeoutMs(plan, MAX_SUBMIT_TIMEOUT_MS);
  return {
    workload: builtinWorkload(
      {
        frames,
        mode,
        producer,
        device,
        timeoutMs,
        ...(heap !== undefined ? { heap } : {}),
      },
      `builtin workload, ${frames} frames, ${mode}, producer ${producer.name}`,
    ),
    headline: verifyHeadline(info),
    device: { name: `${info.engine} ${info.device}`, simulated: info.caps.includes("simulated") },
    axlDevice: info.device,
  };
}

/**
 * The Metis node a builtin run goes to, or undefined for axl.ko's device: `device` (from
 * `--device`, else `$AXL_DEVICE`) when it is a Metis node's path; with neither given and no
 * `/dev/axl`, the first Metis node present (a board with Axelera's metis.ko only).
 *
 * @example
 * ```ts
 * import { verifyMetisNode } from "./verify_builtin.ts";
 * console.log(verifyMetisNode("/dev/axl-metis-0-0-2")); // "/dev/axl-metis-0-0-2"
 * console.log(verifyMetisNode("/dev/axl")); // undefined
 * ```
 */
export function verifyMetisNode(device: string | undefined): string | undefined {
  const target = device ?? devicePaths()[0];
  if (target !== undefined && parseNodeName(target)) return target;
  if (device !== undefined || devicePaths().some(pathExists)) return undefined;
  return metisNodes()[0];
}

/**
 * The builtin workload of `plan` on a Metis node (`--device /dev/metis-*` or
 * `/dev/axl-metis-*`): each frame attached, copied to card memory and detached. Every buffer
 * the producer lists is attached once here, before any capture, so that the layout check
 * (which on the simulator maps the buffer through `/dev/axl`) stays out of the run's trace.
 * Dispose it to free what it allocated; `card` and `producer` stay the caller's.
 *
 * @example
 * ```ts ignore
 * using run = metisRun(plan, MetisDevice.open("/dev/axl-metis-0-0-2"), producer);
 * ```
 */
export function metisRun(
  plan: VerifyPlan,
  card: MetisDevice,
  producer: Producer,
  heap?: string,
): BuiltinRun & Disposable {
  const { frames, mode } = plan;
  const work = prepareMetisWorkload({
    card,
    producer,
    frames,
    mode,
    timeoutMs: builtinJobTimeoutMs(plan),
    ...(heap !== undefined ? { heap } : {}),
  });
  const simulated = card.node.driver === "axl-metis";
  const name = `${simulated ? "metis-sim" : "Metis"} ${card.path}`;
  return {
    workload: metisBuiltinWorkload(work, {
      frames,
      mode,
      label: `builtin Metis workload, ${frames} frames, ${mode}, producer ${producer.name}`,
      node: card.path,
    }),
    headline: simulated
      ? `axl verify: no NPU here: builtin workload against the SIMULATED device (${name}, ${Deno.osRelease()})`
      : `axl verify: builtin workload on ${name}`,
    device: { name, simulated },
    // the default importer: the function axl.ko (simulator) or metis.ko is bound to
    axlDevice: undefined,
    [Symbol.dispose]: () => work[Symbol.dispose](),
  };
}

/**
 * Rethrows what already stands for "could not run" (bad usage, a missing device, tool or
 * permission: exit 3 by `exitCodeOf()`) or an interruption; any other error that stops a
 * run before it starts (tracefs trouble, a failed allocation) becomes a CannotRunError,
 * so that verify's exit status 1 only ever means an invariant failed.
 *
 * @example
 * ```ts
 * import { CannotRunError } from "./spec.ts";
 * import { couldNotRun } from "./verify_builtin.ts";
 * try { couldNotRun(new Error("no tracefs")); } catch (e) {
 *   if (!(e instanceof CannotRunError)) throw e;
 * }
 * ```
 */
export function couldNotRun(err: unknown): never {
  if (errorKind(err) !== "failed") throw err;
  throw new CannotRunError(`verify: could not run: ${(err as Error)?.message ?? err}`, {
    cause: err,
  });
}
