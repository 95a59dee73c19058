/**
 * The builtin workload on a Metis node (metis.ko's ABI, {@linkcode MetisDevice}): N frames of
 * producer → attach → ASYNC transfer to card memory → detach, in zero-copy mode or in copy
 * mode (each frame CPU-copied into a staging buffer first: the negative control for verify's
 * I4). One attach, so one DMA map of the frame by the card, per frame, and no other: metis.ko
 * attaches any dma-buf, contiguous or scattered, so nothing is checked or probed first.
 *
 * @module
 */
import type { DmaBuf } from "../core/dmabuf.ts";
import { Heap } from "../core/heap.ts";
import type { MetisDevice } from "../core/metis/device.ts";
import { monotonicNs, processCpuTimeNs } from "../core/shim.ts";
import type { Frame } from "./frame.ts";
import type { Producer } from "./producers/producer.ts";
import { copyFrame, type Percentiles, percentiles, type WorkloadMode } from "./workload.ts";

/** Options of {@linkcode prepareMetisWorkload}. */
export interface MetisWorkloadOptions {
  /** The open Metis node the frames go to (not closed by the workload). */
  card: MetisDevice;
  /** Frame source (not closed by the workload). */
  producer: Producer;
  /** Frames to run (default 30). */
  frames?: number;
  /** Mode (default zero-copy). */
  mode?: WorkloadMode;
  /** Heap of the staging buffer in copy mode (default `system`). */
  heap?: string;
  /** Card memory address each frame is copied to (default 0). */
  cardAddress?: bigint;
  /** How long one transfer may take, in ms (default 2000). */
  timeoutMs?: number;
}

/** One frame's record. */
export interface MetisFrameStat {
  /** Frame index in this run. */
  index: number;
  /** Inode of the buffer the card attached (the staging buffer in copy mode). */
  inode: number;
  /** Inode of the producer's frame buffer. */
  frameInode: number;
  /** CLOCK_MONOTONIC ns just before the transfer was queued. */
  startNs: number;
  /** CLOCK_MONOTONIC ns once its completion was read. */
  endNs: number;
  /** Bytes copied to the card. */
  bytes: number;
  /** Process CPU time this frame cost, ns. */
  cpuNs: number;
}

/** What {@linkcode MetisWorkload.run} returns. */
export interface MetisWorkloadReport {
  /** Mode that ran. */
  mode: WorkloadMode;
  /** Producer description. */
  producer: string;
  /** The Metis node. */
  node: string;
  /** Frames requested. */
  framesRequested: number;
  /** Frames attached to the card. */
  attaches: number;
  /** Frames detached again. */
  detaches: number;
  /** Transfers that completed. */
  transfers: number;
  /** Per-frame records. */
  perFrame: MetisFrameStat[];
  /** Transfer time (start to completion) percentiles, ns. */
  transferNs: Percentiles;
  /** True when the loop was stopped by the signal. */
  aborted: boolean;
}

/** A prepared Metis workload: its buffers checked, its staging buffer allocated. */
export interface MetisWorkload extends Disposable {
  /** Runs the frames; stops between frames when `signal` aborts. */
  run(signal?: AbortSignal): Promise<MetisWorkloadReport>;
}

/**
 * Checks the options and allocates the staging buffer (copy mode). Dispose the result to free
 * the staging buffer.
 *
 * @example
 * ```ts ignore
 * using card = MetisDevice.open();
 * using cam = V4l2Producer.open();
 * using work = prepareMetisWorkload({ card, producer: cam, frames: 60 });
 * const report = await work.run();
 * console.log(report.transfers, report.transferNs.p50);
 * ```
 */
export function prepareMetisWorkload(options: MetisWorkloadOptions): MetisWorkload {
  const frames = options.frames ?? 30;
  if (!Number.isInteger(frames) || frames < 1) {
    throw new RangeError(`frames must be >= 1, got ${frames}`);
  }
  const mode = options.mode ?? "zero-copy";
  if (mode !== "zero-copy" && mode !== "copy") throw new TypeError(`unknown mode '${mode}'`);
  const { producer } = options;
  const listed = producer.buffers?.() ?? [];
  const stack = new DisposableStack();
  try {
    let staging: DmaBuf | undefined;
    if (mode === "copy" && listed.length > 0) {
      const bytes = Math.max(...listed.map((b) => b.size));
      staging = stack.use(
        Heap.open(options.heap ?? "system").allocate(bytes, {
          name: "axl-staging",
        }),
      );
    }
    const moved = stack.move();
    const loop = { ...options, frames, mode, staging };
    return {
      run: (signal) => runFrames(loop, signal),
      [Symbol.dispose]: () => moved.dispose(),
    };
  } catch (err) {
    stack.dispose();
    throw err;
  }
}

type Loop = MetisWorkloadOptions & { frames: number; mode: WorkloadMode; staging?: DmaBuf };

/** The frames: attach, transfer, detach, recycle. */
async function runFrames(o: Loop, signal?: AbortSignal): Promise<MetisWorkloadReport> {
  const { card, producer } = o;
  const report: MetisWorkloadReport = {
    mode: o.mode,
    producer: producer.name,
    node: card.path,
    framesRequested: o.frames,
    attaches: 0,
    detaches: 0,
    transfers: 0,
    perFrame: [],
    transferNs: percentiles([]),
    aborted: false,
  };
  const stack = new DisposableStack();
  try {
    let staging = o.staging;
    for (let index = 0; index < o.frames; index++) {
      if (signal?.aborted) {
        report.aborted = true;
        break;
      }
      const cpu0 = processCpuTimeNs();
      const frame: Frame = await producer.next();
      try {
        let input = frame.buffer;
        if (o.mode === "copy") {
          staging ??= stack.use(
            Heap.open(o.heap ?? "system").allocate(frame.buffer.size, {
              name: "axl-staging",
            }),
          );
          copyFrame(frame.buffer, staging);
          input = staging;
        }
        const stat = await transferFrame(o, report, input, frame, index);
        stat.cpuNs = processCpuTimeNs() - cpu0;
        report.perFrame.push(stat);
      } finally {
        producer.recycle(frame);
      }
    }
    report.transferNs = percentiles(report.perFrame.map((f) => f.endNs - f.startNs));
    return report;
  } finally {
    stack.dispose();
  }
}

/** Attaches `input`, copies the frame's bytes to the card (ASYNC, poll()), detaches. */
async function transferFrame(
  o: Loop,
  report: MetisWorkloadReport,
  input: DmaBuf,
  frame: Frame,
  index: number,
): Promise<MetisFrameStat> {
  const { card } = o;
  card.attach(input);
  report.attaches++;
  let stat: MetisFrameStat;
  try {
    const bytes = Math.min(frame.size, input.size);
    const startNs = monotonicNs();
    await card.transfer({
      direction: "to-card",
      card: o.cardAddress ?? 0n,
      size: bytes,
      timeoutMs: o.timeoutMs ?? 2000,
    });
    const endNs = monotonicNs();
    report.transfers++;
    stat = {
      index,
      inode: input.inode,
      frameInode: frame.buffer.inode,
      startNs,
      endNs,
      bytes,
      cpuNs: 0,
    };
  } catch (err) {
    // A failed transfer may still be in flight, so detach can fail (EBUSY): the transfer's
    // error is the one to see, and closing the card ends both.
    try {
      card.detach();
      report.detaches++;
    } catch { /* see above */ }
    throw err;
  }
  card.detach();
  report.detaches++;
  return stat;
}
