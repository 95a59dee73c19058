/**
 * The packed argument block of the per-frame import and submit, `struct axl_shim_frame_args`
 * of `ffi/src/axl_shim.h`: one pointer per call instead of up to fourteen scalars and
 * out-arrays (a call V8 does not make through its fast path converts each argument on every
 * call). The offsets below are the C struct's on x86_64 and aarch64;
 * `tests/host/ffi/frame_args.test.ts` compiles the header for both and compares.
 *
 * @module
 */

/** Byte offset of each member of `struct axl_shim_frame_args`. */
export const FRAME_ARGS_OFFSETS = {
  dev: 0,
  buf_fd: 4,
  width: 8,
  height: 12,
  pixfmt: 16,
  stride: 20,
  flags: 24,
  handle: 28,
  result_fd: 32,
  model_id: 36,
  timeout_us: 40,
  submit_flags: 44,
  step: 48,
  pad: 52,
  imp_out: 56,
  sub_out: 104,
} as const;

/** `sizeof(struct axl_shim_frame_args)`. */
export const FRAME_ARGS_BYTES = 144;
/** u64 slots of `imp_out` (`AXL_SHIM_IMPORT_OUT_SLOTS`). */
export const IMPORT_OUT_SLOTS = 6;
/** u64 slots of `sub_out` (`AXL_SHIM_SUBMIT_OUT_SLOTS`). */
export const SUBMIT_OUT_SLOTS = 5;

// 32-bit word index of each 32-bit member, for the Int32Array/Uint32Array views.
const W = {
  dev: FRAME_ARGS_OFFSETS.dev >> 2,
  bufFd: FRAME_ARGS_OFFSETS.buf_fd >> 2,
  width: FRAME_ARGS_OFFSETS.width >> 2,
  height: FRAME_ARGS_OFFSETS.height >> 2,
  pixfmt: FRAME_ARGS_OFFSETS.pixfmt >> 2,
  stride: FRAME_ARGS_OFFSETS.stride >> 2,
  flags: FRAME_ARGS_OFFSETS.flags >> 2,
  handle: FRAME_ARGS_OFFSETS.handle >> 2,
  resultFd: FRAME_ARGS_OFFSETS.result_fd >> 2,
  modelId: FRAME_ARGS_OFFSETS.model_id >> 2,
  timeoutUs: FRAME_ARGS_OFFSETS.timeout_us >> 2,
  submitFlags: FRAME_ARGS_OFFSETS.submit_flags >> 2,
  step: FRAME_ARGS_OFFSETS.step >> 2,
} as const;

/**
 * One `struct axl_shim_frame_args`, allocated once and reused for every frame: the caller
 * sets the inputs, passes {@linkcode FrameArgs.bytes} to `axl_shim_frame_import`,
 * `axl_shim_frame_submit` or `axl_shim_dev_import_submit`, and reads the out-slots through
 * the views (`impOut32`/`subOut32` read a slot's 32-bit halves without a BigInt).
 *
 * @example
 * ```ts
 * import { FRAME_ARGS_BYTES, FrameArgs } from "./frame_args.ts";
 * const a = new FrameArgs();
 * a.setImport(3, 7, 640, 480, 1, 0, 1);
 * console.log(a.bytes.length === FRAME_ARGS_BYTES, a.i32[1]); // true 7
 * ```
 */
export class FrameArgs {
  /** The block itself: what the shim call takes. */
  readonly bytes: Uint8Array<ArrayBuffer>;
  /** The block as signed 32-bit words. */
  readonly i32: Int32Array<ArrayBuffer>;
  /** The block as unsigned 32-bit words. */
  readonly u32: Uint32Array<ArrayBuffer>;
  /** `imp_out`: what `axl_shim_dev_import` writes. */
  readonly impOut: BigUint64Array<ArrayBuffer>;
  /** `imp_out` as 32-bit halves (little-endian: the low half first). */
  readonly impOut32: Uint32Array<ArrayBuffer>;
  /** `sub_out`: what `axl_shim_dev_submit` writes. */
  readonly subOut: BigUint64Array<ArrayBuffer>;
  /** `sub_out` as signed 32-bit halves. */
  readonly subOut32: Int32Array<ArrayBuffer>;

  constructor() {
    const buf = new ArrayBuffer(FRAME_ARGS_BYTES);
    this.bytes = new Uint8Array(buf);
    this.i32 = new Int32Array(buf);
    this.u32 = new Uint32Array(buf);
    this.impOut = new BigUint64Array(buf, FRAME_ARGS_OFFSETS.imp_out, IMPORT_OUT_SLOTS);
    this.impOut32 = new Uint32Array(buf, FRAME_ARGS_OFFSETS.imp_out, 2 * IMPORT_OUT_SLOTS);
    this.subOut = new BigUint64Array(buf, FRAME_ARGS_OFFSETS.sub_out, SUBMIT_OUT_SLOTS);
    this.subOut32 = new Int32Array(buf, FRAME_ARGS_OFFSETS.sub_out, 2 * SUBMIT_OUT_SLOTS);
  }

  /** Sets the import's inputs (`dev` and `bufFd` are the submit's too). */
  setImport(
    dev: number,
    bufFd: number,
    width: number,
    height: number,
    pixfmt: number,
    stride: number,
    flags: number,
  ): void {
    const i = this.i32, u = this.u32;
    i[W.dev] = dev;
    i[W.bufFd] = bufFd;
    u[W.width] = width;
    u[W.height] = height;
    u[W.pixfmt] = pixfmt;
    u[W.stride] = stride;
    u[W.flags] = flags;
  }

  /** Sets the submit's inputs (`handle` is read by `axl_shim_frame_submit` only). */
  setSubmit(
    handle: number,
    resultFd: number,
    modelId: number,
    timeoutUs: number,
    submitFlags: number,
  ): void {
    const i = this.i32, u = this.u32;
    u[W.handle] = handle;
    i[W.resultFd] = resultFd;
    u[W.modelId] = modelId;
    u[W.timeoutUs] = timeoutUs;
    u[W.submitFlags] = submitFlags;
  }

  /** Sets `dev` and `buf_fd` alone (a submit of an existing import). */
  setFds(dev: number, bufFd: number): void {
    this.i32[W.dev] = dev;
    this.i32[W.bufFd] = bufFd;
  }

  /** Sets `buf_fd` alone (a loop whose other inputs do not change). */
  setBufFd(bufFd: number): void {
    this.i32[W.bufFd] = bufFd;
  }

  /** The step that failed in the last call: 1 import, 2 submit, 0 none. */
  get step(): number {
    return this.i32[W.step]!;
  }
}
