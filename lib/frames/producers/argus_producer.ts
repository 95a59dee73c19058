/**
 * {@linkcode ArgusProducer}: frames from a Jetson camera through libargus, exported as
 * NvBufSurface dma-bufs by the shim. Anywhere else it fails with a clear error.
 *
 * @module
 */
import { DmaBuf } from "../../core/dmabuf.ts";
import { type Frame, frameLayout } from "../frame.ts";
import { nvmmImportParams, parseNvmmHandle } from "../../nvmm/mod.ts";
import { ArgusSession } from "../../core/argus.ts";
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
  /** What it produces, for reports: `argus:<sensor> NV12 <w>x<h>`. */
  readonly name: string;
  readonly #session: ArgusSession;
  readonly #width: number;
  readonly #height: number;
  readonly #timeoutMs: number;
  #sequence = 0;

  private constructor(session: ArgusSession, o: Required<ArgusProducerOptions>) {
    this.#session = session;
    this.#width = o.width;
    this.#height = o.height;
    this.#timeoutMs = o.timeoutMs;
    this.name = `argus:${o.sensor} NV12 ${o.width}x${o.height}`;
  }

  /** True when this shim was built with the Jetson Multimedia API. */
  static available(): boolean {
    return ArgusSession.available();
  }

  /** Opens a capture session; AxlError ENOSYS where Argus is not available. */
  static open(options: ArgusProducerOptions = {}): ArgusProducer {
    const o = { sensor: 0, width: 1920, height: 1080, timeoutMs: 1000, ...options };
    return new ArgusProducer(ArgusSession.open(o.sensor, o.width, o.height), o);
  }

  /**
   * Acquires the next frame as a dma-buf. Its NvBufSurface metadata is checked against
   * the NVMM handle contract (pitch, size, NV12 plane arithmetic) before it is used.
   */
  next(): Promise<Frame> {
    const acquired = this.#session.acquire(this.#timeoutMs);
    const buffer = DmaBuf.fromFd(acquired.fd);
    try {
      const handle = parseNvmmHandle({
        gpu_ptr: acquired.gpuPtr,
        width: this.#width,
        height: this.#height,
        pitch: acquired.pitch,
        color_format: acquired.colorFormat,
        size: acquired.size,
        batch_size: 1,
      });
      const { width, height, stride } = nvmmImportParams(handle);
      const layout = frameLayout("NV12", width, height, stride);
      return Promise.resolve({
        ...layout,
        buffer,
        sequence: this.#sequence++,
        timestampNs: acquired.timestampNs,
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
    this.#session.close();
  }

  /** Same as {@linkcode ArgusProducer.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}
