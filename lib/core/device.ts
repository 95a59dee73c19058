/**
 * {@linkcode Device}: the axl NPU driver (`/dev/axl`) — info, dma-buf import, job
 * submission with a sync_file fence, and release. Every import and job belongs to the
 * Device that made it; closing the Device releases everything it still holds.
 *
 * @module
 */
import { z } from "../_deps.ts";
import { AxlError, errnoName, unwrap } from "./errors.ts";
import type { DmaBuf } from "./dmabuf.ts";
import { Fence } from "./fence.ts";
import type { FenceInfo } from "./fence.ts";
import { cString, nulStrings, shim } from "./_shim.ts";
import { parseOptions } from "./parse_options.ts";
import { type ImportPlane, importRequest, MAX_PLANES, v1Planes } from "./import_layout.ts";
import { commonImport, commonSubmit, importArgs, submitArgs } from "./_frame_options.ts";
import { PIXEL_FORMATS, type PixelFormat } from "./pixel_format.ts";
import { FRAME_ARGS_BYTES, FrameArgs } from "../../ffi/frame_args.ts";
import { type ImplicitSync, implicitSyncState, publishError } from "./implicit_sync.ts";

export { PIXEL_FORMATS, type PixelFormat } from "./pixel_format.ts";
export { type ImplicitSync, probeImplicitSync } from "./implicit_sync.ts";

/** DMA direction of an import, from the device's point of view. */
export const DIRECTIONS = ["to-device", "from-device", "bidirectional"] as const;
/** One of {@linkcode DIRECTIONS}. */
export type Direction = typeof DIRECTIONS[number];

/** What GET_INFO reports. */
export interface DeviceInfo {
  /** Path of the device node. */
  path: string;
  /** ABI version of the driver. */
  abiVersion: number;
  /** Driver name (`axl`). */
  driver: string;
  /** Engine name (`metis` or `metis-sim`). */
  engine: string;
  /** Device imports attach to, e.g. a PCI address. */
  device: string;
  /** Fence timeline name (`metis-0`). */
  timeline: string;
  /**
   * Capability names: `simulated`, `iommu`, `pci`, `fence-stamp`, `import-planes`,
   * `implicit-sync` (the driver publishes each job's fence into its result buffer),
   * `implicit-sync-input` (and into its input, as a reader's).
   */
  caps: string[];
  /** Imports one open file may hold. */
  maxImports: number;
  /** Jobs one open file may have in flight. */
  maxJobs: number;
  /** Imports this file holds now. */
  fileImports: number;
  /** Jobs this file has in flight now. */
  fileJobs: number;
  /** Whether the shim publishes jobs' fences into their buffers ({@linkcode Device.implicitSync}). */
  implicitSync: ImplicitSync;
}

/** Options of {@linkcode Device.open}. */
export interface DeviceOpenOptions {
  /**
   * Publish each job's fence into its buffers for implicit sync (default true), where the
   * driver does not: after each submit the shim imports the fence with
   * `DMA_BUF_IOCTL_IMPORT_SYNC_FILE` (Linux 6.0+) into the input (as a reader: the next capture
   * into it waits for the job) for a driver without `implicit-sync-input` in its caps, and into
   * the result (as a writer) for a driver without `implicit-sync`, so `poll()`,
   * `DMA_BUF_IOCTL_SYNC` and other drivers wait for the engine. A driver with both caps (this
   * one) publishes both itself whatever this says, and the shim makes no ioctl; an older
   * driver costs one or two per job. Each fence stays in its buffer's reservation until a
   * later fence replaces it or the buffer is freed, which keeps the axl module loaded
   * meanwhile (see docs/implicit-sync.md).
   */
  implicitSync?: boolean;
}

const u32 = z.number().int().min(0).max(0xffff_ffff);

/**
 * Options of {@linkcode Device.import}. `stride` describes the layout of
 * `AXL_IOCTL_IMPORT_FD`; `planes` (an offset and a pitch per plane, e.g. an
 * NvBufSurface's) or a `modifier` other than linear (0n) select `AXL_IOCTL_IMPORT_FD2`
 * (see {@linkcode importRequest}; {@linkcode importGeometryFor} turns a frame layout into
 * these options).
 */
export const ImportOptions = z.object({
  width: u32.min(1),
  height: u32.min(1),
  format: z.enum(PIXEL_FORMATS).default("NV12"),
  stride: u32.default(0),
  planes: z.array(
    z.object({
      offset: z.number().int().min(0).max(Number.MAX_SAFE_INTEGER),
      pitch: u32.min(1),
    }).strict(),
  ).min(1).max(MAX_PLANES).optional(),
  modifier: z.bigint().min(0n).max(0xffff_ffff_ffff_ffffn).optional(),
  direction: z.enum(DIRECTIONS).default("to-device"),
}).strict();
/** Input type of {@linkcode ImportOptions}. */
export type ImportOptions = z.input<typeof ImportOptions>;

/** The longest job timeout the driver takes (`AXL_SUBMIT_MAX_TIMEOUT_US`, 10 s). */
export const MAX_SUBMIT_TIMEOUT_MS = 10_000;

/** Options of {@linkcode Device.submit}. */
export const SubmitOptions = z.object({
  result: z.custom<DmaBuf>((v) => typeof v === "object" && v !== null && "fd" in v, {
    message: "result must be a DmaBuf",
  }),
  model: u32.default(0),
  timeoutMs: z.number().int().min(0).max(MAX_SUBMIT_TIMEOUT_MS).default(0),
}).strict();
/** Input type of {@linkcode SubmitOptions}. */
export type SubmitOptions = z.input<typeof SubmitOptions>;

/** The shim constant of each import direction. */
const IMPORT_FLAG = {
  "to-device": "AXL_IMPORT_TO_DEVICE",
  "from-device": "AXL_IMPORT_FROM_DEVICE",
  "bidirectional": "AXL_IMPORT_BIDIRECTIONAL",
} as const;

/** The shim's constants an import passes, looked up once (a template string per frame shows). */
let importConstants:
  | { pixfmt: Record<PixelFormat, number>; flag: Record<Direction, number>; contiguous: number }
  | undefined;

function constantsOf(): NonNullable<typeof importConstants> {
  if (importConstants === undefined) {
    const s = shim();
    const pixfmt = {} as Record<PixelFormat, number>;
    for (const f of PIXEL_FORMATS) pixfmt[f] = s.constant(`AXL_PIXFMT_${f}`);
    const flag = {} as Record<Direction, number>;
    for (const d of DIRECTIONS) flag[d] = s.constant(IMPORT_FLAG[d]);
    importConstants = { pixfmt, flag, contiguous: s.constant("AXL_IMPORT_OUT_CONTIGUOUS") };
    const size = s.constant("sizeof_axl_shim_frame_args");
    if (size !== FRAME_ARGS_BYTES) {
      importConstants = undefined;
      throw new Error(
        `${s.path}: struct axl_shim_frame_args is ${size} bytes, ffi/frame_args.ts lays out ` +
          `${FRAME_ARGS_BYTES}; run 'bash ffi/build.sh'`,
      );
    }
  }
  return importConstants;
}

// Out-slots for the shim, reused by every call: JS is single-threaded and each call
// copies the slots out before returning, so no call sees another's values. Slots that
// hold numbers are read through 32-bit views (see u64At), not as a BigInt each.
// The per-frame import and submit pass one packed block (ffi/frame_args.ts) whose out-slots
// are these views.
const frameArgs = new FrameArgs();
const importOut = frameArgs.impOut;
const importOut32 = frameArgs.impOut32;
const importPlanes = new BigUint64Array(2 * MAX_PLANES);
const submitOut = frameArgs.subOut;
const submitOut32 = frameArgs.subOut32;
const resultNums = new BigInt64Array(12);
const resultNums32 = new Int32Array(resultNums.buffer);

/** Slot `i` of a u64 out-array as a number, from its 32-bit halves (little-endian). */
function u64At(view: Uint32Array, i: number): number {
  return view[2 * i]! + view[2 * i + 1]! * 0x1_0000_0000;
}

// Fences of jobs a Device still tracks are closed when the Device is collected unclosed
// (the Device holds its jobs, so their fences cannot be collected before it).
const fenceLeaks = new FinalizationRegistry<Set<number>>((fds) => {
  for (const fd of fds) shim().symbols.axl_shim_close(fd);
});
const NO_HISTOGRAM = new Uint32Array(0);

/** Bins of a result's luma histogram. */
const BINS = 256;
/** Histograms per slab: each result's histogram is a view into a shared slab. */
const SLAB_HISTOGRAMS = 64;
let histogramSlab = new ArrayBuffer(0);
let histogramOffset = 0;

/**
 * A fresh, zeroed histogram array of its own: a view into a slab of {@linkcode SLAB_HISTOGRAMS}
 * histograms, so a frame loop allocates one buffer every 64 results, not one per result
 * (each view's range is used once; the slab is freed with its last view).
 */
function newHistogram(): Uint32Array {
  if (histogramOffset === histogramSlab.byteLength) {
    histogramSlab = new ArrayBuffer(SLAB_HISTOGRAMS * BINS * 4);
    histogramOffset = 0;
  }
  const h = new Uint32Array(histogramSlab, histogramOffset, BINS);
  histogramOffset += BINS * 4;
  return h;
}

/** Each result buffer's size as the bigint the decoder takes, made once per buffer. */
const resultLens = new WeakMap<DmaBuf, bigint>();

function resultLenOf(buf: DmaBuf): bigint {
  let len = resultLens.get(buf);
  if (len === undefined) resultLens.set(buf, len = BigInt(buf.size));
  return len;
}

/** Default device node paths, in the order {@linkcode Device.discover} tries them. */
export function devicePaths(): string[] {
  let env: string | undefined;
  try {
    env = Deno.env.get("AXL_DEVICE") || undefined;
  } catch { /* no env permission */ }
  return env ? [env] : ["/dev/axl"];
}

/**
 * An open NPU device.
 *
 * @example Import a frame, submit it and read the result
 * ```ts ignore
 * import { Device, Heap } from "../../mod.ts";
 * using dev = Device.open();
 * const heap = Heap.open("system");
 * using frame = heap.allocate(640 * 480 * 3 / 2);
 * using result = heap.allocate(4096);
 * using imp = dev.import(frame, { width: 640, height: 480, format: "NV12" });
 * using job = dev.submit(imp, { result });
 * const done = await job.wait(1000);
 * console.log(done.latencyNs, job.readResult().crc32);
 * ```
 */
export class Device implements Disposable {
  #fd: number;
  readonly #path: string;
  readonly #imports = new Set<Import>();
  readonly #jobs = new Set<Job>();
  /** Fds of the fences of jobs not closed yet. */
  readonly #fenceFds = new Set<number>();
  /** The submit flags: the shim's AXL_SHIM_SUBMIT_IMPLICIT_SYNC, or 0 when turned off. */
  readonly #submitFlags: number;
  /** The driver publishes each job's fence itself (AXL_CAP_IMPLICIT_SYNC). */
  #driverPublishes = false;

  private constructor(fd: number, path: string, implicitSync: boolean) {
    this.#fd = fd;
    this.#path = path;
    this.#submitFlags = implicitSync ? shim().constant("AXL_SHIM_SUBMIT_IMPLICIT_SYNC") : 0;
    fenceLeaks.register(this, this.#fenceFds, this);
  }

  /**
   * Opens the device node (default: `AXL_DEVICE` or `/dev/axl`) and checks that the
   * driver speaks the ABI the shim was built for. `options.implicitSync: false` turns off
   * the shim's publishing of jobs' fences into their buffers (see
   * {@linkcode DeviceOpenOptions}); a driver with `implicit-sync` publishes the result's
   * whatever it says.
   */
  static open(path?: string, options?: DeviceOpenOptions): Device {
    const implicitSync = options?.implicitSync ?? true;
    if (typeof implicitSync !== "boolean") {
      throw new TypeError(
        `Device.open: implicitSync must be a boolean, got ${typeof implicitSync}`,
      );
    }
    const p = path ?? devicePaths()[0]!;
    const s = shim();
    const fd = unwrap(
      s.symbols.axl_shim_open(cString(p), s.constant("O_RDWR")),
      `device.open(${p})`,
      "device-node",
    );
    const dev = new Device(fd, p, implicitSync);
    try {
      const info = dev.info();
      const want = s.constant("AXL_ABI_VERSION");
      if (info.abiVersion !== want) {
        throw new AxlError(`device.open(${p})`, 71, {
          code: "EPROTO",
          detail: `driver ABI ${info.abiVersion}, shim ABI ${want}`,
          hint: "driver and shim were built from different linux/axl.h; rebuild and reload both",
          exitKind: "cannot-run",
        });
      }
      // The driver publishes every job's fence in its result, and with implicit-sync-input in
      // its input too; the shim adds what it leaves out (see implicit_sync.ts).
      dev.#driverPublishes = info.caps.includes("implicit-sync");
    } catch (err) {
      dev.close();
      throw err;
    }
    return dev;
  }

  /**
   * Whether this Device's jobs publish their fences into their buffers: `on` (always, with a
   * driver that publishes them in the result itself; with `implicit-sync-input` in its caps in
   * the input too, else the shim adds the input's where the kernel takes it), else for an
   * older driver: `off` (the shim's publishing turned off at open), `unavailable` (kernel
   * before Linux 6.0), or `unknown` until the first submit in this process (or
   * {@linkcode probeImplicitSync}) finds out.
   */
  get implicitSync(): ImplicitSync {
    return this.#driverPublishes ? "on" : implicitSyncState(this.#submitFlags !== 0);
  }

  /** The device node path. */
  get path(): string {
    return this.#path;
  }

  /** The fd; throws when closed. */
  get fd(): number {
    if (this.#fd < 0) throw new TypeError(`Device ${this.#path} is closed`);
    return this.#fd;
  }

  /** True once closed. */
  get closed(): boolean {
    return this.#fd < 0;
  }

  /** Imports this Device still holds. */
  get imports(): readonly Import[] {
    return [...this.#imports];
  }

  /** Jobs this Device has not closed. */
  get jobs(): readonly Job[] {
    return [...this.#jobs];
  }

  /** Reads GET_INFO. */
  info(): DeviceInfo {
    const s = shim();
    const nums = new BigUint64Array(6);
    const strings = new Uint8Array(128);
    unwrap(
      s.symbols.axl_shim_dev_info(this.fd, nums, strings, BigInt(strings.length)),
      `device.info(${this.#path})`,
      "device",
    );
    const [driver, engine, device, timeline] = nulStrings(strings, 4);
    const capBits = Number(nums[1]);
    const caps = (
      [
        ["AXL_CAP_SIMULATED", "simulated"],
        ["AXL_CAP_IOMMU", "iommu"],
        ["AXL_CAP_PCI", "pci"],
        ["AXL_CAP_FENCE_STAMP", "fence-stamp"],
        ["AXL_CAP_IMPORT_PLANES", "import-planes"],
        ["AXL_CAP_IMPLICIT_SYNC", "implicit-sync"],
        ["AXL_CAP_IMPLICIT_SYNC_INPUT", "implicit-sync-input"],
      ] as const
    ).filter(([c]) => capBits & s.constant(c)).map(([, n]) => n);
    return {
      path: this.#path,
      abiVersion: Number(nums[0]),
      caps,
      maxImports: Number(nums[2]),
      maxJobs: Number(nums[3]),
      fileImports: Number(nums[4]),
      fileJobs: Number(nums[5]),
      implicitSync: this.implicitSync,
      driver: driver!,
      engine: engine!,
      device: device!,
      timeline: timeline!,
    };
  }

  /** Imports `buf` for the NPU: attach + map through the IOMMU; returns the Import. */
  import(buf: DmaBuf, options: ImportOptions): Import {
    if (!commonImport(options)) return this.#importPlanes(buf, options);
    const { width, height, format, stride, direction } = importArgs;
    const c = constantsOf();
    const a = frameArgs;
    a.setImport(this.fd, buf.fd, width, height, c.pixfmt[format], stride, c.flag[direction]);
    const ret = shim().symbols.axl_shim_frame_import(a.bytes);
    // The label is made only on failure: a template string per frame shows in the frame loop.
    if (ret < 0) {
      unwrap(ret, `device.import(inode ${buf.inode}, ${format} ${width}x${height})`, "device");
    }
    return this.#imported(buf, importArgs, undefined);
  }

  /** Device.import for options of any other shape: the schema checks them. */
  #importPlanes(buf: DmaBuf, options: ImportOptions): Import {
    const o = parseOptions(ImportOptions, options, "Device.import");
    const s = shim();
    const req = importRequest(o);
    const c = constantsOf();
    let ret: number;
    if (req.ioctl === "IMPORT_FD") {
      ret = s.symbols.axl_shim_dev_import(
        this.fd,
        buf.fd,
        o.width,
        o.height,
        c.pixfmt[o.format],
        req.stride,
        c.flag[o.direction],
        importOut,
      );
    } else {
      importPlanes.fill(0n);
      req.planes.forEach((p, i) => {
        importPlanes[2 * i] = BigInt(p.offset);
        importPlanes[2 * i + 1] = BigInt(p.pitch);
      });
      ret = s.symbols.axl_shim_dev_import2(
        this.fd,
        buf.fd,
        o.width,
        o.height,
        c.pixfmt[o.format],
        c.flag[o.direction],
        req.modifier,
        req.planes.length,
        importPlanes,
        importOut,
      );
    }
    if (ret < 0) {
      unwrap(
        ret,
        `device.import(inode ${buf.inode}, ${o.format} ${o.width}x${o.height})`,
        "device",
      );
    }
    return this.#imported(
      buf,
      { ...o, stride: req.ioctl === "IMPORT_FD" ? req.stride : 0 },
      req.ioctl === "IMPORT_FD" ? undefined : req.planes,
    );
  }

  /** The Import the last import call left in the out-slots. */
  #imported(
    buf: DmaBuf,
    g: { width: number; height: number; format: PixelFormat; stride: number; direction: Direction },
    planes: ImportPlane[] | undefined,
  ): Import {
    const out = importOut, out32 = importOut32;
    const imp = new Import(this, buf, {
      handle: out32[0]!,
      iova: out[1]!,
      size: u64At(out32, 2),
      inode: u64At(out32, 3),
      nents: out32[8]!,
      contiguous: (out32[10]! & constantsOf().contiguous) !== 0,
      format: g.format,
      width: g.width,
      height: g.height,
      direction: g.direction,
      stride: g.stride,
      planes,
      ioctl: planes === undefined ? "IMPORT_FD" : "IMPORT_FD2",
    });
    this.#imports.add(imp);
    return imp;
  }

  /** Submits a job reading `imp` and writing a result into `options.result`. */
  submit(imp: Import, options: SubmitOptions): Job {
    const o = commonSubmit(options)
      ? submitArgs
      : parseOptions(SubmitOptions, options, "Device.submit");
    if (imp.device !== this || imp.released) {
      throw new TypeError("Device.submit: the import is released or belongs to another Device");
    }
    const result = o.result, a = frameArgs;
    a.setFds(this.fd, imp.buffer.fd);
    a.setSubmit(imp.handle, result.fd, o.model, o.timeoutMs * 1000, this.#submitFlags);
    const ret = shim().symbols.axl_shim_frame_submit(a.bytes);
    if (ret < 0) unwrap(ret, `device.submit(handle ${imp.handle})`, "device");
    return this.#submitted(imp, result);
  }

  /** The Job the last submit call left in the out-slots. */
  #submitted(imp: Import, result: DmaBuf): Job {
    const fence = Fence._tracked(submitOut32[0]!, this.#fenceFds);
    const seqno = submitOut[1]!;
    const job = new Job(this, imp, result, fence, seqno, submitOut[2]!);
    // Slot 3: 1 published, 0 not asked, -ENOTTY the kernel lacks it, another -errno failed.
    const published = submitOut32[6]!;
    if (published < 0 && published !== -25) {
      const step = submitOut32[8]!;
      job._syncError = publishError(seqno, published, step, step === 2 ? imp.buffer : result);
    }
    this.#jobs.add(job);
    imp._jobStarted(job);
    return job;
  }

  /**
   * {@linkcode Device.import} of `buf` then {@linkcode Device.submit} of the new import, in
   * one shim call when the import options have the common shape (no `planes`, no
   * `modifier`). The job's {@linkcode Job.input} is the new import; release it (or call
   * {@linkcode Job.closeAndRelease}) when done. Errors are those of the two calls: when the
   * submit fails, the import is released again before the error is thrown.
   *
   * @example One frame in two calls
   * ```ts ignore
   * import { Device, Heap } from "../../mod.ts";
   * using dev = Device.open();
   * const heap = Heap.open("system");
   * using frame = heap.allocate(640 * 480 * 3 / 2);
   * using result = heap.allocate(4096);
   * const job = dev.importAndSubmit(frame, { width: 640, height: 480 }, { result });
   * job.waitSync(1000);
   * console.log(job.readResult({ histogram: false }).crc32);
   * job.closeAndRelease();
   * ```
   */
  importAndSubmit(buf: DmaBuf, importOptions: ImportOptions, submitOptions: SubmitOptions): Job {
    if (!commonImport(importOptions)) {
      const imp = this.#importPlanes(buf, importOptions);
      try {
        return this.submit(imp, submitOptions);
      } catch (err) {
        imp.release();
        throw err;
      }
    }
    const { width, height, format, stride, direction } = importArgs;
    // The submit options are read after the import's: a getter there cannot change these.
    const o = commonSubmit(submitOptions)
      ? submitArgs
      : parseOptions(SubmitOptions, submitOptions, "Device.submit");
    const result = o.result, a = frameArgs;
    const c = constantsOf();
    a.setImport(this.fd, buf.fd, width, height, c.pixfmt[format], stride, c.flag[direction]);
    a.setSubmit(0, result.fd, o.model, o.timeoutMs * 1000, this.#submitFlags);
    const ret = shim().symbols.axl_shim_dev_import_submit(a.bytes);
    if (ret < 0) {
      if (a.step === 2) {
        unwrap(ret, `device.submit(handle ${importOut32[0]})`, "device");
      }
      unwrap(ret, `device.import(inode ${buf.inode}, ${format} ${width}x${height})`, "device");
    }
    return this.#submitted(this.#imported(buf, importArgs, undefined), result);
  }

  /** @internal Called by Import.release. */
  _release(imp: Import): void {
    const ret = shim().symbols.axl_shim_dev_release(this.fd, imp.handle);
    if (ret < 0) unwrap(ret, `device.release(handle ${imp.handle})`, "device");
    this.#imports.delete(imp);
  }

  /** @internal Called by Job.close. */
  _forget(job: Job): void {
    this.#jobs.delete(job);
  }

  /** @internal Called by Job.closeAndRelease: closes `fenceFd` and releases `imp`, one call. */
  _closeAndRelease(fenceFd: number, imp: Import): void {
    const ret = shim().symbols.axl_shim_fence_close_release(fenceFd, this.fd, imp.handle);
    if (ret < 0) unwrap(ret, `device.release(handle ${imp.handle})`, "device");
    this.#imports.delete(imp);
  }

  /**
   * Closes jobs' fences, releases every import and closes the device. The driver
   * releases whatever is left when the file closes, so nothing leaks. Idempotent.
   */
  close(): void {
    if (this.#fd < 0) return;
    for (const job of this.#jobs) job.close();
    for (const imp of this.#imports) imp._drop();
    this.#imports.clear();
    fenceLeaks.unregister(this);
    shim().symbols.axl_shim_close(this.#fd);
    this.#fd = -1;
  }

  /** Same as {@linkcode Device.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}

/** Facts about an import, as the driver reported them. */
export interface ImportFacts {
  /** Driver handle (valid for the importing file only). */
  handle: number;
  /** Device address of the first byte. */
  iova: bigint;
  /** Buffer size. */
  size: number;
  /** dma-buf inode. */
  inode: number;
  /** Mapped scatterlist entries. */
  nents: number;
  /** One contiguous IOVA range. */
  contiguous: boolean;
  /** Frame format. */
  format: PixelFormat;
  /** Frame width. */
  width: number;
  /** Frame height. */
  height: number;
  /** DMA direction. */
  direction: Direction;
  /** Offset and pitch of each plane, as the import described them. */
  planes?: ImportPlane[];
  /** Bytes per line of every plane, 0 for packed (`AXL_IOCTL_IMPORT_FD`'s stride). */
  stride?: number;
  /** The ioctl that made the import. */
  ioctl?: "IMPORT_FD" | "IMPORT_FD2";
}

/** A dma-buf imported into the NPU. Release it (or use `using`) when done. */
export class Import implements Disposable, ImportFacts {
  /** The Device it belongs to. */
  readonly device: Device;
  /** The imported buffer (not owned: closing the Import does not close it). */
  readonly buffer: DmaBuf;
  /** Driver handle (valid for the importing file only). */
  readonly handle: number;
  /** Device address of the first byte. */
  readonly iova: bigint;
  /** Buffer size in bytes. */
  readonly size: number;
  /** dma-buf inode. */
  readonly inode: number;
  /** Mapped scatterlist entries. */
  readonly nents: number;
  /** One contiguous IOVA range. */
  readonly contiguous: boolean;
  /** Frame format. */
  readonly format: PixelFormat;
  /** Frame width in pixels. */
  readonly width: number;
  /** Frame height in pixels. */
  readonly height: number;
  /** DMA direction. */
  readonly direction: Direction;
  /** Bytes per line of every plane, 0 for packed (`AXL_IOCTL_IMPORT_FD`'s stride). */
  readonly stride: number;
  /** The ioctl that made the import. */
  readonly ioctl: "IMPORT_FD" | "IMPORT_FD2";
  /** The planes, worked out when first asked for (a frame loop never asks). */
  #planes: ImportPlane[] | undefined;
  #released = false;
  /** Jobs reading it that have not been waited for or closed. */
  #pending = 0;

  /** @internal Made by Device.import. */
  constructor(device: Device, buffer: DmaBuf, facts: ImportFacts) {
    this.device = device;
    this.buffer = buffer;
    this.handle = facts.handle;
    this.iova = facts.iova;
    this.size = facts.size;
    this.inode = facts.inode;
    this.nents = facts.nents;
    this.contiguous = facts.contiguous;
    this.format = facts.format;
    this.width = facts.width;
    this.height = facts.height;
    this.direction = facts.direction;
    this.stride = facts.stride ?? 0;
    this.#planes = facts.planes;
    this.ioctl = facts.ioctl ?? "IMPORT_FD";
  }

  /** Offset and pitch of each plane, as the import described them. */
  get planes(): ImportPlane[] {
    return this.#planes ??= v1Planes(this.format, this.width, this.height, this.stride);
  }

  /** True once released. */
  get released(): boolean {
    return this.#released;
  }

  /** @internal A job that reads it was submitted. */
  _jobStarted(_job: Job): void {
    this.#pending++;
  }

  /** @internal A job that reads it was waited for or closed (once per job). */
  _jobDone(_job: Job): void {
    this.#pending--;
  }

  /** @internal Jobs reading it that have not been waited for or closed. */
  get _pendingJobs(): number {
    return this.#pending;
  }

  /** @internal Job.closeAndRelease released it. */
  _markReleased(): void {
    this.#released = true;
  }

  /**
   * Releases the import (RELEASE_IMPORT). Throws TypeError while a job that reads it
   * has not been waited for: wait for (or close) its jobs first. Idempotent.
   */
  release(): void {
    if (this.#released) return;
    if (this.#pending) {
      throw new TypeError(
        `import ${this.handle}: ${this.#pending} job(s) still use it; wait for them first`,
      );
    }
    this.device._release(this);
    this.#released = true;
  }

  /** @internal The device is closing: the driver drops the import with the file. */
  _drop(): void {
    this.#released = true;
    this.#pending = 0;
  }

  /** Same as {@linkcode Import.release}. */
  [Symbol.dispose](): void {
    this.release();
  }
}

/** The decoded `struct axl_result` the engine writes. */
export interface EngineResult {
  /** Fence sequence number of the job. */
  seqno: bigint;
  /** Model id. */
  model: number;
  /** Input format as a fourcc number. */
  pixfmt: number;
  /** Input width. */
  width: number;
  /** Input height. */
  height: number;
  /** 0 or the errno name the job failed with. */
  status: string | 0;
  /** Smallest luma sample. */
  lumaMin: number;
  /** Largest luma sample. */
  lumaMax: number;
  /** Sum of luma samples. */
  lumaSum: bigint;
  /** CRC-32 over the planes' payload bytes. */
  crc32: number;
  /**
   * 256-bin luma histogram (empty when read with `{ histogram: false }`). Each result has its
   * own bins, but their `.buffer` is shared with other results' (a slab): copy with `slice()`
   * before handing the buffer on.
   */
  histogram: Uint32Array;
}

/** What a finished job reports. */
export interface JobDone {
  /** The fence's final state. */
  fence: FenceInfo;
  /** Kernel submit time (CLOCK_MONOTONIC ns). */
  submitNs: bigint;
  /** Fence signal time (CLOCK_MONOTONIC ns). */
  signalNs: bigint;
  /** signalNs - submitNs. */
  latencyNs: bigint;
}

/** A submitted job: its fence, sequence number and timing. */
export class Job implements Disposable {
  /** The Device it was submitted on. */
  readonly device: Device;
  /** The import it reads. */
  readonly input: Import;
  /** The result buffer (not owned). */
  readonly result: DmaBuf;
  /** The job's fence (owned: closed with the job). */
  readonly fence: Fence;
  /** Fence sequence number on the engine timeline. */
  readonly seqno: bigint;
  /** CLOCK_MONOTONIC time the driver queued the job, in ns. */
  readonly submitNs: bigint;
  #done: JobDone | undefined;
  /** Counted in its input's pending jobs (until waited for or closed). */
  #pending = true;
  /**
   * @internal Set by Device.submit when the job's fence could not be published into its
   * buffers (see {@linkcode Job.syncError}).
   */
  _syncError: AxlError | undefined;

  /** @internal Made by Device.submit. */
  constructor(
    device: Device,
    input: Import,
    result: DmaBuf,
    fence: Fence,
    seqno: bigint,
    submitNs: bigint,
  ) {
    this.device = device;
    this.input = input;
    this.result = result;
    this.fence = fence;
    this.seqno = seqno;
    this.submitNs = submitNs;
  }

  /** The completion, once waited for. */
  get done(): JobDone | undefined {
    return this.#done;
  }

  /**
   * Why this job's fence is not in its buffers' reservations although the Device publishes
   * fences ({@linkcode Device.implicitSync} `on`): the `DMA_BUF_IOCTL_IMPORT_SYNC_FILE` that
   * failed, naming the buffer. The job itself runs and its fence is valid; undefined when
   * publishing succeeded, is off or is unavailable.
   */
  get syncError(): AxlError | undefined {
    return this._syncError;
  }

  /**
   * Waits on the fence without blocking the event loop. Throws AxlError when the job
   * failed (the fence's error, e.g. EIO or ETIMEDOUT) or the wait timed out.
   */
  async wait(timeoutMs = 10_000): Promise<JobDone> {
    return this.#finish(await this.fence.wait(timeoutMs));
  }

  /** Blocking variant of {@linkcode Job.wait}, for tight frame loops. */
  waitSync(timeoutMs = 10_000): JobDone {
    return this.#finish(this.fence.waitSync(timeoutMs));
  }

  #finish(info: FenceInfo): JobDone {
    this.#inputDone();
    if (info.status === "error") {
      const code = info.error ?? "EIO";
      throw new AxlError(`job ${this.seqno}`, 0, {
        code,
        detail: "the engine signalled the fence with an error",
        hint: code === "ETIMEDOUT"
          ? "the job exceeded its timeout: engine stalled or back-pressured"
          : "the engine failed the job: see dmesg | grep axl",
      });
    }
    const signalNs = info.timestampNs ?? 0n;
    this.#done = {
      fence: info,
      submitNs: this.submitNs,
      signalNs,
      latencyNs: signalNs - this.submitNs,
    };
    return this.#done;
  }

  /**
   * Decodes the engine's result from the result buffer (CPU access, read). With
   * `{ histogram: false }` the 256 bins are not copied (an empty array is returned):
   * for frame loops that only compare CRCs.
   *
   * Never reads before the engine wrote: a job not waited for yet is waited for first
   * ({@linkcode Job.waitSync} with `options.timeoutMs`, default 30 s; it throws when the
   * job failed), on every kernel and whether or not implicit sync is on. A job closed
   * before it was waited for cannot be waited for: that throws AxlError EBADF.
   */
  readResult(options?: { histogram?: boolean; timeoutMs?: number }): EngineResult {
    if (this.#done === undefined) this.#waitBeforeRead(options?.timeoutMs ?? 30_000);
    const nums = resultNums, n32 = resultNums32;
    const histogram = options?.histogram === false ? NO_HISTOGRAM : newHistogram();
    const buf = this.result;
    // DMA_BUF_SYNC start, decode and end in one shim call (the end runs whenever the start did).
    const ret = shim().symbols.axl_shim_result_read(
      buf.fd,
      buf._readableAddress(),
      resultLenOf(buf),
      nums,
      histogram.length ? histogram : null,
    );
    if (ret < 0) {
      unwrap(ret, `job ${this.seqno}: read result (inode ${buf.inode})`, "device");
    }
    // Slots 3..10 hold 32-bit fields of struct axl_result: their low halves are the values.
    const status = n32[14]!;
    return {
      seqno: nums[2]!,
      model: n32[6]! >>> 0,
      pixfmt: n32[8]! >>> 0,
      width: n32[10]! >>> 0,
      height: n32[12]! >>> 0,
      status: status === 0 ? 0 : errnoName(status),
      lumaMin: n32[16]! >>> 0,
      lumaMax: n32[18]! >>> 0,
      crc32: n32[20]! >>> 0,
      lumaSum: nums[11]!,
      histogram,
    };
  }

  #waitBeforeRead(timeoutMs: number): void {
    if (this.fence.closed) {
      throw new AxlError(`job ${this.seqno}: read result`, 9, {
        detail: "the job was closed before it was waited for, so its fence cannot be waited on",
        hint: "call job.wait() or job.waitSync() before job.close(), then read the result",
      });
    }
    this.waitSync(timeoutMs);
  }

  /** Closes the fence; an unwaited job stops blocking its import's release. Idempotent. */
  close(): void {
    if (this.fence.closed) return;
    this.#inputDone();
    this.fence.close();
    this.device._forget(this);
  }

  #inputDone(): void {
    if (!this.#pending) return;
    this.#pending = false;
    this.input._jobDone(this);
  }

  /**
   * {@linkcode Job.close} then {@linkcode Import.release} of its input, in one shim call:
   * for frame loops that make one job per import. Throws as those two would (the job is
   * closed even when the release fails).
   *
   * @example
   * ```ts ignore
   * const job = dev.submit(dev.import(frame, { width: 640, height: 480 }), { result });
   * job.waitSync(1000);
   * job.closeAndRelease();
   * ```
   */
  closeAndRelease(): void {
    const input = this.input;
    if (this.fence.closed || input.released || input._pendingJobs > (this.#pending ? 1 : 0)) {
      this.close();
      input.release();
      return;
    }
    this.#inputDone();
    this.device._forget(this);
    this.device._closeAndRelease(this.fence._take(), input);
    input._markReleased();
  }

  /** Same as {@linkcode Job.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}
