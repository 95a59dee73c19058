/**
 * The builtin workload: N frames of producer → import → submit → wait → read result →
 * release, in zero-copy mode or in copy mode (every frame CPU-copied into a staging
 * buffer first: the negative control for verify's I4). Reports per-frame latency from
 * fence timestamps and the CPU time the loop cost.
 *
 * @module
 */
import {
  Device,
  type DeviceInfo,
  type Direction,
  type Import,
  type ImportOptions,
  type Job,
  type JobDone,
} from "../core/device.ts";
import type { DmaBuf } from "../core/dmabuf.ts";
import type { Frame } from "./frame.ts";
import { importGeometryFor } from "../core/import_layout.ts";
import { Heap } from "../core/heap.ts";
import { HeapProducer } from "./producers/heap_producer.ts";
import type { Producer } from "./producers/producer.ts";
import type { ReferenceResult } from "./reference.ts";
import { processCpuTimeNs, resultBytes } from "../core/shim.ts";

/** Zero-copy, or the copy-every-frame negative control. */
export type WorkloadMode = "zero-copy" | "copy";

/** Options of {@linkcode runWorkload}. */
export interface WorkloadOptions {
  /** Frames to run (default 30). */
  frames?: number;
  /** Mode (default zero-copy). */
  mode?: WorkloadMode;
  /** Frame source (default: a HeapProducer with NV12 640×480 from `heap`). */
  producer?: Producer;
  /** Heap for default frames, result and staging buffers (default `system`). */
  heap?: string;
  /** Device node or an open Device (default `/dev/axl`). */
  device?: string | Device;
  /** Per-job timeout in ms, also the fence wait bound (default 2000). */
  timeoutMs?: number;
  /** Import direction (default to-device). */
  direction?: Direction;
  /** Model id passed to submit (default 0). */
  model?: number;
  /** Wait with the blocking call (hot loops) instead of a worker thread (default true). */
  syncWait?: boolean;
  /** Compare each result with the producer's expected result when it has one (default true). */
  checkResults?: boolean;
  /**
   * Per-frame records kept in the report's `perFrame`: the first `keepFrames` (default: all).
   * Counts, percentiles and totals still cover every frame; a long run sets it to keep its
   * memory flat (a record with its bigints is about 200 bytes).
   */
  keepFrames?: number;
  /** Called after every frame. */
  onFrame?: (stat: FrameStat) => void;
  /** Stops the loop between frames. */
  signal?: AbortSignal;
}

/** One frame's record. */
export interface FrameStat {
  /** Frame index in this run. */
  index: number;
  /** Fence sequence number. */
  seqno: bigint;
  /** Inode of the buffer the NPU imported (the staging buffer in copy mode). */
  inode: number;
  /** Inode of the producer's frame buffer. */
  frameInode: number;
  /** Kernel submit time, CLOCK_MONOTONIC ns. */
  submitNs: bigint;
  /** Fence signal time, CLOCK_MONOTONIC ns. */
  signalNs: bigint;
  /** signalNs - submitNs. */
  latencyNs: bigint;
  /**
   * Process CPU time this frame cost, ns: from the end of the previous frame's record (the
   * loop's start for the first) to this record, so the frames' times add up to the loop's.
   */
  cpuNs: number;
  /** CRC-32 the engine reported. */
  crc32: number;
  /** Whether the result matched the producer's expectation (undefined: not checked). */
  resultOk?: boolean;
}

/** Latency percentiles in ns. */
export interface Percentiles {
  /** Smallest. */
  min: number;
  /** Median. */
  p50: number;
  /** 90th percentile. */
  p90: number;
  /** 99th percentile. */
  p99: number;
  /** Largest. */
  max: number;
  /** Mean. */
  mean: number;
}

/** What {@linkcode runWorkload} returns. */
export interface WorkloadReport {
  /** Mode that ran. */
  mode: WorkloadMode;
  /** Producer description. */
  producer: string;
  /** Driver info. */
  device: DeviceInfo;
  /** Frames requested. */
  framesRequested: number;
  /** Frames submitted. */
  submitted: number;
  /** Frames whose fence signalled without error. */
  completed: number;
  /** Successful imports. */
  imports: number;
  /** Successful releases. */
  releases: number;
  /** Results that did not match the expectation. */
  mismatches: number;
  /** Per-frame records: every frame's, or the first `keepFrames`. */
  perFrame: FrameStat[];
  /** Fence latency percentiles (ns), over completed frames. */
  latencyNs: Percentiles;
  /** Process CPU time per frame (ns). */
  cpuNsPerFrame: Percentiles;
  /** Total process CPU time of the loop, ns. */
  cpuNsTotal: number;
  /** Wall time of the loop, ns. */
  wallNs: number;
  /** Exporters of the imported buffers. */
  exporters: string[];
  /** Inodes of the imported buffers. */
  inodes: number[];
  /** True when the loop was stopped by the signal. */
  aborted: boolean;
}

/** Percentiles of `values` (nearest-rank). */
export function percentiles(values: readonly number[]): Percentiles {
  if (!values.length) return { min: 0, p50: 0, p90: 0, p99: 0, max: 0, mean: 0 };
  const v = [...values].sort((a, b) => a - b);
  const at = (q: number): number => v[Math.min(v.length - 1, Math.ceil(q * v.length) - 1)]!;
  return {
    min: v[0]!,
    p50: at(0.5),
    p90: at(0.9),
    p99: at(0.99),
    max: v[v.length - 1]!,
    mean: v.reduce((a, b) => a + b, 0) / v.length,
  };
}

function sameResult(
  got: { crc32: number; lumaMin: number; lumaMax: number; lumaSum: bigint },
  want: ReferenceResult,
): boolean {
  return got.crc32 === want.crc32 && got.lumaMin === want.lumaMin &&
    got.lumaMax === want.lumaMax && got.lumaSum === want.lumaSum;
}

/** A report with nothing run yet. */
function emptyReport(
  mode: WorkloadMode,
  producer: Producer,
  device: Device,
  frames: number,
): WorkloadReport {
  return {
    mode,
    producer: producer.name,
    device: device.info(),
    framesRequested: frames,
    submitted: 0,
    completed: 0,
    imports: 0,
    releases: 0,
    mismatches: 0,
    perFrame: [],
    latencyNs: percentiles([]),
    cpuNsPerFrame: percentiles([]),
    cpuNsTotal: 0,
    wallNs: 0,
    exporters: [],
    inodes: [],
    aborted: false,
  };
}

/** What an import's options depend on: a frame's format, size and planes. */
interface LayoutKey {
  format: string;
  width: number;
  height: number;
  planes: { offset: number; stride: number }[];
}

function sameLayout(frame: Frame, key: LayoutKey): boolean {
  if (frame.format !== key.format || frame.width !== key.width || frame.height !== key.height) {
    return false;
  }
  const planes = frame.planes;
  if (planes.length !== key.planes.length) return false;
  for (let i = 0; i < planes.length; i++) {
    const p = planes[i]!, k = key.planes[i]!;
    if (p.offset !== k.offset || p.stride !== k.stride) return false;
  }
  return true;
}

/**
 * One import options object per frame layout, so each import validates it once. The layout
 * is compared field by field: a key string made per frame cost more than the comparison.
 */
function importOptionsFor(direction: Direction): (frame: Frame) => ImportOptions {
  let options: ImportOptions | undefined;
  let key: LayoutKey | undefined;
  return (frame) => {
    if (options === undefined || !sameLayout(frame, key!)) {
      key = {
        format: frame.format,
        width: frame.width,
        height: frame.height,
        planes: frame.planes.map((p) => ({ offset: p.offset, stride: p.stride })),
      };
      options = { ...importGeometryFor(frame), direction };
    }
    return options;
  };
}

/** What one job of the loop needs besides its frame. */
interface JobContext {
  dev: Device;
  producer: Producer;
  options: WorkloadOptions;
  /** Submit options: one object, validated once. */
  submit: { result: DmaBuf; model: number; timeoutMs: number };
  report: WorkloadReport;
}

/** Submits the imported frame (the job's fence is the caller's to close). */
function submitJob(c: JobContext, imp: Import): Job {
  const job = c.dev.submit(imp, c.submit);
  c.report.submitted++;
  return job;
}

/**
 * The frame's record without its CPU time, once its job is done: the result read and checked
 * against the reference when the producer knows it.
 */
function finishJob(
  c: JobContext,
  job: Job,
  done: JobDone,
  imp: Import,
  frame: Frame,
  index: number,
): FrameStat {
  c.report.completed++;
  const r = job.readResult({ histogram: false });
  const stat: FrameStat = {
    index,
    seqno: job.seqno,
    inode: imp.inode,
    frameInode: frame.buffer.inode,
    submitNs: done.submitNs,
    signalNs: done.signalNs,
    latencyNs: done.latencyNs,
    cpuNs: 0,
    crc32: r.crc32,
  };
  const expected = c.options.checkResults !== false && c.producer instanceof HeapProducer
    ? c.producer.expected(frame)
    : undefined;
  if (expected) {
    stat.resultOk = sameResult(r, expected);
    if (!stat.resultOk) c.report.mismatches++;
  }
  return stat;
}

/**
 * Imports and submits the frame (one shim call), waits for its fence with the blocking call,
 * reads the result, then closes the fence and releases the import (one shim call).
 * Synchronous: the hot loop awaits nothing per job.
 */
function runFrameSync(
  c: JobContext,
  input: DmaBuf,
  importOptions: ImportOptions,
  frame: Frame,
  index: number,
): FrameStat {
  const job = c.dev.importAndSubmit(input, importOptions, c.submit);
  const imp = job.input;
  c.report.imports++;
  c.report.submitted++;
  let stat: FrameStat;
  try {
    stat = finishJob(c, job, job.waitSync(c.submit.timeoutMs + 1000), imp, frame, index);
  } catch (err) {
    job.close();
    imp.release();
    c.report.releases++;
    throw err;
  }
  job.closeAndRelease();
  c.report.releases++;
  return stat;
}

/** {@linkcode runJobSync} waiting on a worker thread (`syncWait: false`). */
async function runJobAsync(
  c: JobContext,
  imp: Import,
  frame: Frame,
  index: number,
): Promise<FrameStat> {
  const job = submitJob(c, imp);
  try {
    return finishJob(c, job, await job.wait(c.submit.timeoutMs + 1000), imp, frame, index);
  } finally {
    job.close();
  }
}

/**
 * Runs the builtin workload and returns its report. Everything it allocates is freed
 * before it returns or throws.
 *
 * @example
 * ```ts ignore
 * import { runWorkload } from "./workload.ts";
 * const report = await runWorkload({ frames: 30, mode: "zero-copy" });
 * console.log(report.latencyNs.p50, report.imports, report.releases);
 * ```
 */
export async function runWorkload(options: WorkloadOptions = {}): Promise<WorkloadReport> {
  const frames = options.frames ?? 30;
  if (!Number.isInteger(frames) || frames < 1) {
    throw new RangeError(`frames must be >= 1, got ${frames}`);
  }
  const mode = options.mode ?? "zero-copy";
  if (mode !== "zero-copy" && mode !== "copy") throw new TypeError(`unknown mode '${mode}'`);
  const keepFrames = options.keepFrames ?? Infinity;
  if (!(keepFrames >= 0)) throw new RangeError(`keepFrames must be >= 0, got ${keepFrames}`);
  const timeoutMs = options.timeoutMs ?? 2000;
  const heap = Heap.open(options.heap ?? "system");
  const stack = new DisposableStack();
  try {
    const dev = options.device instanceof Device
      ? options.device
      : stack.use(Device.open(options.device));
    const producer = options.producer ?? stack.use(HeapProducer.open({ heap: heap.name }));
    const result = stack.use(heap.allocate(resultBytes(), { name: "axl-result" }));
    let staging: DmaBuf | undefined;
    const report = emptyReport(mode, producer, dev, frames);
    const ctx: JobContext = {
      dev,
      producer,
      options,
      submit: { result, model: options.model ?? 0, timeoutMs },
      report,
    };
    const importOptions = importOptionsFor(options.direction ?? "to-device");
    const exporters = new Set<string>();
    const inodes = new Set<number>();
    // Every frame's latency and CPU time, 16 bytes a frame, for the percentiles.
    const latencies: number[] = [], cpuTimes: number[] = [];
    const cpu0 = processCpuTimeNs();
    const wall0 = performance.now();
    // One clock read per frame (a system call): each frame's end is the next one's start.
    let cpuMark = cpu0;

    for (let index = 0; index < frames; index++) {
      if (options.signal?.aborted) {
        report.aborted = true;
        break;
      }
      const frame: Frame = await producer.next();
      try {
        let input = frame.buffer;
        if (mode === "copy") {
          staging ??= stack.use(heap.allocate(frame.buffer.size, { name: "axl-staging" }));
          copyFrame(frame.buffer, staging);
          input = staging;
        }
        let stat: FrameStat;
        if (options.syncWait === false) {
          const imp = dev.import(input, importOptions(frame));
          report.imports++;
          try {
            stat = await runJobAsync(ctx, imp, frame, index);
          } finally {
            imp.release();
            report.releases++;
          }
        } else {
          stat = runFrameSync(ctx, input, importOptions(frame), frame, index);
        }
        exporters.add(input.exporter);
        inodes.add(stat.inode);
        const now = processCpuTimeNs();
        stat.cpuNs = now - cpuMark;
        cpuMark = now;
        latencies.push(Number(stat.latencyNs));
        cpuTimes.push(stat.cpuNs);
        if (report.perFrame.length < keepFrames) report.perFrame.push(stat);
        options.onFrame?.(stat);
      } finally {
        producer.recycle(frame);
      }
    }

    report.cpuNsTotal = processCpuTimeNs() - cpu0;
    report.wallNs = Math.round((performance.now() - wall0) * 1e6);
    report.latencyNs = percentiles(latencies);
    report.cpuNsPerFrame = percentiles(cpuTimes);
    report.exporters = [...exporters].sort();
    report.inodes = [...inodes].sort((a, b) => a - b);
    return report;
  } finally {
    stack.dispose();
  }
}

/**
 * CPU-copies `src` into `dst` with libc memcpy, inside DMA_BUF_SYNC brackets on both:
 * the copy a pipeline makes when caps fall back to system memory.
 */
export function copyFrame(src: DmaBuf, dst: DmaBuf): void {
  if (dst.size < src.size) throw new RangeError(`staging buffer ${dst.size} < frame ${src.size}`);
  using _from = src.cpuAccess({ read: true });
  using _to = dst.cpuAccess({ write: true });
  dst.copyFrom(src);
}
