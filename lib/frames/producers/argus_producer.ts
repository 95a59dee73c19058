/**
 * {@linkcode ArgusProducer}: frames from a Jetson camera through libargus, exported as
 * NvBufSurface dma-bufs by the shim. Anywhere else it fails with a clear error.
 *
 * @module
 */
import { DmaBuf } from "../../core/dmabuf.ts";
import { AxlError, hintFor, unwrap } from "../../core/errors.ts";
import { type Frame, frameLayout } from "../frame.ts";
import { nvmmImportParams, parseNvmmHandle } from "../../nvmm/mod.ts";
import { shim } from "../../core/_shim.ts";
import type { Producer } from "./producer.ts";

/** Options of {@linkcode ArgusProducer.open}. */
export interface ArgusProducerOptions {
  /** Argus sensor index (default 0). */
  sensor?: number;
  /** Width (default 1920). */
  width?: number;
  /** Height (default 1080). */
  height?: number;
  /** Acquire timeout in ms (default 1000). */
  timeoutMs?: number;
}

/**
 * NV12 pitch-linear frames from libargus (`createNvBuffer`).
 *
 * @example
 * ```ts ignore
 * import { ArgusProducer } from "./argus_producer.ts";
 * using cam = ArgusProducer.open({ sensor: 0 }); // throws ENOSYS off a Jetson
 * const frame = await cam.next();
 * ```
 */
export class ArgusProducer implements Producer {
  readonly name: string;
  #session: number;
  readonly #width: number;
  readonly #height: number;
  readonly #timeoutMs: number;
  #sequence = 0;

  private constructor(session: number, o: Required<ArgusProducerOptions>) {
    this.#session = session;
    this.#width = o.width;
    this.#height = o.height;
    this.#timeoutMs = o.timeoutMs;
    this.name = `argus:${o.sensor} NV12 ${o.width}x${o.height}`;
  }

  /** True when this shim was built with the Jetson Multimedia API. */
  static available(): boolean {
    return shim().symbols.axl_shim_argus_available() >= 0;
  }

  /** Opens a capture session; AxlError ENOSYS where Argus is not available. */
  static open(options: ArgusProducerOptions = {}): ArgusProducer {
    const o = { sensor: 0, width: 1920, height: 1080, timeoutMs: 1000, ...options };
    const s = shim();
    const avail = s.symbols.axl_shim_argus_available();
    if (avail < 0) {
      throw new AxlError("argus.open", -avail, {
        hint: hintFor("argus", "ENOSYS"),
        detail: "this shim has no Argus support (not a Jetson build)",
      });
    }
    const session = unwrap(
      s.symbols.axl_shim_argus_open(o.sensor, o.width, o.height),
      "argus.open",
      "argus",
    );
    return new ArgusProducer(session, o);
  }

  /**
   * Acquires the next frame as a dma-buf. Its NvBufSurface metadata is checked against
   * the NVMM handle contract (pitch, size, NV12 plane arithmetic) before it is used.
   */
  next(): Promise<Frame> {
    const out = new BigUint64Array(6);
    unwrap(
      shim().symbols.axl_shim_argus_acquire_fd(this.#session, this.#timeoutMs, out),
      "argus.acquire",
      "argus",
    );
    const buffer = DmaBuf.fromFd(Number(out[0]));
    try {
      const handle = parseNvmmHandle({
        gpu_ptr: out[5]!,
        width: this.#width,
        height: this.#height,
        pitch: Number(out[1]),
        color_format: Number(out[4]),
        size: Number(out[3]),
        batch_size: 1,
      });
      const { width, height, stride } = nvmmImportParams(handle);
      const layout = frameLayout("NV12", width, height, stride);
      return Promise.resolve({
        ...layout,
        buffer,
        sequence: this.#sequence++,
        timestampNs: out[2]!,
      });
    } catch (err) {
      buffer.close();
      throw err;
    }
  }

  /** Closes the frame's fd (the NvBufSurface goes back to Argus). */
  recycle(frame: Frame): void {
    frame.buffer.close();
  }

  /** Ends the session. Idempotent. */
  close(): void {
    if (this.#session < 0) return;
    shim().symbols.axl_shim_argus_close(this.#session);
    this.#session = -1;
  }

  /** Same as {@linkcode ArgusProducer.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}
