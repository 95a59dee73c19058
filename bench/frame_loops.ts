/**
 * The frame loops driven from Deno that `bench/frame_loop_vm.ts` compares with the C loop of
 * `bench/frame_loop.c`, over the same shim and device:
 *
 * - `lean-core` / `lean-full`: direct shim calls, step for step what the C loop does (`core`:
 *   import and submit (one call, its arguments in one packed block) → wait and fence info (one call) → close fence and release
 *   (one call); `full` adds
 *   reading the result: DMA_BUF_SYNC start, decode, end in one call). The gap to C is the raw
 *   FFI cost.
 * - `lib`: the typed API (Device.import/submit, Job.waitSync/readResult/close,
 *   Import.release) per frame, with fresh option objects every frame as a user's loop makes
 *   them: what option checks, objects and error paths add.
 * - `lib-fused`: the same with Device.importAndSubmit and Job.closeAndRelease (two shim
 *   calls fewer per frame).
 * - `workload`: the builtin loop, `runWorkload()` (zero-copy, blocking waits), measured
 *   between frames so its set-up is left out.
 * - `workload-async`: the same with `syncWait: false` (the poll runs on a worker thread).
 *
 * @module
 */
import { Device } from "../lib/core/device.ts";
import type { DmaBuf } from "../lib/core/dmabuf.ts";
import { HeapProducer } from "../lib/frames/producers/heap_producer.ts";
import { Heap } from "../lib/core/heap.ts";
import { runWorkload } from "../lib/frames/workload.ts";
import { loadShim } from "../ffi/loader.ts";
import { FRAME_ARGS_OFFSETS, FrameArgs, SUBMIT_OUT_SLOTS } from "../ffi/frame_args.ts";
import { cpuDelta, type CpuSample, cpuSample } from "./_stats.ts";

/** The Deno loop variants. */
export const DENO_LOOPS = [
  "lean-core",
  "lean-full",
  "lib",
  "lib-fused",
  "workload",
  "workload-async",
] as const;
/** One of {@linkcode DENO_LOOPS}. */
export type DenoLoop = typeof DENO_LOOPS[number];

/** What a loop measured over `frames` frames (after `warmup`). */
export interface LoopRun extends CpuSample {
  /** `deno` or `c`. */
  impl: "deno" | "c";
  /** Loop variant (`core` / `full` for C). */
  mode: string;
  /** Frames measured. */
  frames: number;
  /** Frames run before measuring. */
  warmup: number;
  /** Process id that ran the loop. */
  pid: number;
  /** Its thread ids at the window's end (a traced run in a fresh process: `--one`). */
  tids?: number[];
}

/** Resources the loops share: the device, a frame ring and a result buffer. */
export class LoopRig implements Disposable {
  readonly device: Device;
  readonly producer: HeapProducer;
  readonly frames: DmaBuf[];
  readonly result: DmaBuf;
  readonly width: number;
  readonly height: number;
  readonly timeoutMs = 2000;

  private constructor(
    device: Device,
    producer: HeapProducer,
    frames: DmaBuf[],
    result: DmaBuf,
    size: [number, number],
  ) {
    this.device = device;
    this.producer = producer;
    this.frames = frames;
    this.result = result;
    [this.width, this.height] = size;
  }

  /** Opens the device and allocates a ring of NV12 frames (default 640×480) from `heap`. */
  static async open(
    options: { device?: string; heap?: string; ring?: number; width?: number; height?: number } =
      {},
  ): Promise<LoopRig> {
    const width = options.width ?? 640, height = options.height ?? 480;
    const stack = new DisposableStack();
    try {
      const device = stack.use(Device.open(options.device));
      const heapName = options.heap ?? "system";
      const producer = stack.use(
        HeapProducer.open({ heap: heapName, buffers: options.ring ?? 3, width, height }),
      );
      const frames: DmaBuf[] = [];
      for (let i = 0; i < (options.ring ?? 3); i++) {
        const f = await producer.next();
        frames.push(f.buffer);
        producer.recycle(f);
      }
      const s = loadShim();
      const result = stack.use(
        Heap.open(heapName).allocate(s.constant("sizeof_axl_result"), { name: "bench-result" }),
      );
      result.mappedAddress();
      const rig = new LoopRig(device, producer, frames, result, [width, height]);
      stack.move();
      return rig;
    } catch (err) {
      stack.dispose();
      throw err;
    }
  }

  /** Frees everything. */
  close(): void {
    this.result.close();
    this.producer.close();
    this.device.close();
  }

  /** Same as {@linkcode LoopRig.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}

function check(ret: number, what: string): number {
  if (ret < 0) throw new Error(`${what} failed: errno ${-ret}`);
  return ret;
}

/** The lean loop: `frames` frames of direct shim calls. */
function leanLoop(rig: LoopRig, frames: number, start: number, full: boolean): void {
  const s = loadShim();
  const sym = s.symbols;
  const dev = rig.device.fd;
  const fds = rig.frames.map((f) => f.fd);
  const resultFd = rig.result.fd;
  const resultAddr = rig.result.mappedAddress();
  const resultLen = BigInt(s.constant("sizeof_axl_result"));
  const nv12 = s.constant("AXL_PIXFMT_NV12");
  const toDevice = s.constant("AXL_IMPORT_TO_DEVICE");
  const timeoutUs = rig.timeoutMs * 1000;
  // One packed argument block; its out-slots are read through 32-bit views (little-endian
  // low halves): no BigInt per read. Only the frame's fd changes from frame to frame.
  const args = new FrameArgs();
  const block = args.bytes, imp = args.impOut32;
  const sub = new Uint32Array(block.buffer, FRAME_ARGS_OFFSETS.sub_out, 2 * SUBMIT_OUT_SLOTS);
  args.setImport(dev, fds[0]!, rig.width, rig.height, nv12, 0, toDevice);
  // The typed API's default: the shim publishes each job's fence into its buffers.
  args.setSubmit(0, resultFd, 0, timeoutUs, s.constant("AXL_SHIM_SUBMIT_IMPLICIT_SYNC"));
  const info = new Int32Array(8);
  const name = new Uint8Array(96);
  const nameLen = BigInt(name.length);
  const nums = new Uint32Array(24);
  const histogram = new Uint32Array(256);
  for (let i = start; i < start + frames; i++) {
    args.setBufFd(fds[i % fds.length]!);
    const ret = sym.axl_shim_dev_import_submit(block);
    check(ret, args.step === 1 ? "import" : "submit");
    const handle = imp[0]!;
    const fence = sub[0]!;
    const waited = sym.axl_shim_fence_wait_info(fence, rig.timeoutMs + 1000, info, name, nameLen);
    if (check(waited, "fence wait") === 0) throw new Error("fence wait timed out");
    if (info[0] !== 1) throw new Error(`fence status ${info[0]}`);
    if (full) {
      check(sym.axl_shim_result_read(resultFd, resultAddr, resultLen, nums, histogram), "result");
      if (nums[4] !== sub[2] || nums[5] !== sub[3]) throw new Error("result of another job");
    }
    check(sym.axl_shim_fence_close_release(fence, dev, handle), "release");
  }
}

/** The typed-API loop. */
function libLoop(rig: LoopRig, frames: number, start: number): void {
  const dev = rig.device;
  for (let i = start; i < start + frames; i++) {
    const buf = rig.frames[i % rig.frames.length]!;
    const imp = dev.import(buf, { width: rig.width, height: rig.height, format: "NV12" });
    try {
      const job = dev.submit(imp, { result: rig.result, timeoutMs: rig.timeoutMs });
      try {
        job.waitSync(rig.timeoutMs + 1000);
        const r = job.readResult();
        if (r.seqno !== BigInt.asIntN(64, job.seqno)) throw new Error("result of another job");
      } finally {
        job.close();
      }
    } finally {
      imp.release();
    }
  }
}

/** The typed-API loop with the fused calls. */
function libFusedLoop(rig: LoopRig, frames: number, start: number): void {
  const dev = rig.device;
  for (let i = start; i < start + frames; i++) {
    const buf = rig.frames[i % rig.frames.length]!;
    const job = dev.importAndSubmit(
      buf,
      { width: rig.width, height: rig.height, format: "NV12" },
      { result: rig.result, timeoutMs: rig.timeoutMs },
    );
    try {
      job.waitSync(rig.timeoutMs + 1000);
      const r = job.readResult();
      if (r.seqno !== BigInt.asIntN(64, job.seqno)) throw new Error("result of another job");
    } catch (err) {
      job.close();
      job.input.release();
      throw err;
    }
    job.closeAndRelease();
  }
}

/** Called right before the first and right after the last measured frame. */
export interface WindowHooks {
  /** Before the first measured frame (e.g. switch tracing on). */
  open?: () => void;
  /** After the last measured frame. */
  close?: () => void;
}

/**
 * Runs `warmup` then `frames` frames of `loop` and returns what the measured part cost.
 *
 * @example
 * ```ts ignore
 * import { LoopRig, runDenoLoop } from "./frame_loops.ts";
 * using rig = await LoopRig.open({ width: 320, height: 240 });
 * const run = await runDenoLoop(rig, "workload", 200, 20);
 * console.log(run.cpuNs / run.frames, "ns of CPU per frame");
 * ```
 */
export async function runDenoLoop(
  rig: LoopRig,
  loop: DenoLoop,
  frames: number,
  warmup: number,
  hooks: WindowHooks = {},
): Promise<LoopRun> {
  let a: CpuSample, b: CpuSample;
  const begin = (): CpuSample => {
    hooks.open?.();
    return cpuSample();
  };
  const end = (): CpuSample => {
    const s = cpuSample();
    hooks.close?.();
    return s;
  };
  switch (loop) {
    case "lean-core":
    case "lean-full": {
      const full = loop === "lean-full";
      leanLoop(rig, warmup, 0, full);
      a = begin();
      leanLoop(rig, frames, warmup, full);
      b = end();
      break;
    }
    case "lib":
    case "lib-fused": {
      const run = loop === "lib" ? libLoop : libFusedLoop;
      run(rig, warmup, 0);
      a = begin();
      run(rig, frames, warmup);
      b = end();
      break;
    }
    case "workload":
    case "workload-async": {
      // The window opens after the last warm-up frame and closes after the last frame; with
      // no warm-up (a cold run) it opens before runWorkload() is called, set-up included.
      let start: CpuSample | undefined = warmup === 0 ? begin() : undefined;
      let stop: CpuSample | undefined;
      const report = await runWorkload({
        frames: warmup + frames,
        device: rig.device,
        producer: rig.producer,
        timeoutMs: rig.timeoutMs,
        syncWait: loop === "workload",
        onFrame: (stat) => {
          if (stat.index === warmup - 1) start = begin();
          if (stat.index === warmup + frames - 1) stop = end();
        },
      });
      if (report.completed !== warmup + frames || report.mismatches !== 0) {
        throw new Error(
          `runWorkload: ${report.completed}/${warmup + frames} frames, ` +
            `${report.mismatches} mismatched results`,
        );
      }
      if (!start || !stop) throw new Error("runWorkload: frame window not seen");
      a = start;
      b = stop;
      break;
    }
    default:
      throw new TypeError(`unknown loop '${loop}'`);
  }
  return { impl: "deno", mode: loop, frames, warmup, pid: Deno.pid, ...cpuDelta(a, b) };
}
