/**
 * {@linkcode ArgusProducer}: frames from a Jetson camera through libargus, copied by the VIC
 * into a ring of NvBuffers the shim's session owns. Anywhere else it fails with a clear error.
 *
 * @module
 */
import type { DmaBuf } from "../../core/dmabuf.ts";
import { type Frame } from "../frame.ts";
import { nvbufColorFormat } from "../../nvmm/mod.ts";
import { placedLayout } from "../../core/frame_layout.ts";
import type { FrameLayout } from "../../formats/layout.ts";
import type { PixelFormat } from "../../core/pixel_format.ts";
import { type ArgusFrame, ArgusSession, checkArgusTimeout } from "../../core/argus.ts";
import type { Producer } from "./producer.ts";

/** Options of {@linkcode ArgusProducer.open}. */
export interface ArgusProducerOptions {
  /** Argus sensor index (default 0). */
  sensor?: number;
  /** Width, even (default 1920). */
  width?: number;
  /** Height, even (default 1080). */
  height?: number;
  /** Acquire timeout in ms, 0 to 60000 (default 1000). */
  timeoutMs?: number;
}

/**
 * The NV12 layout of an acquired NvBuffer, from its own plane pitches and chroma offset,
 * checked against what was asked: an NV12 color format (any range or matrix), `width`×`height`
 * fitting in its pitches, and both planes inside `dataSize`. RangeError otherwise.
 *
 * @example NV12 1920x1080 with pitch 2048 and the luma padded to 1088 lines
 * ```ts
 * import { argusFrameLayout } from "./argus_producer.ts";
 * const l = argusFrameLayout({ fd: 9, slot: 0, pitch: 2048, chromaOffset: 2048 * 1088,
 *   chromaPitch: 2048, sensorTimestampNs: 1n, size: 2048 * 1088 * 3 / 2, colorFormat: 7 },
 *   1920, 1080);
 * console.log(l.planes[1]!.offset); // 2228224
 * ```
 */
export function argusFrameLayout(
  frame: ArgusFrame,
  width: number,
  height: number,
): FrameLayout<PixelFormat> {
  const color = nvbufColorFormat(frame.colorFormat);
  if (color.drm.drm !== "NV12") {
    throw new RangeError(`Argus frame is ${color.name}, not an NV12 format`);
  }
  const layout = placedLayout("NV12", width, height, [
    { offset: 0, stride: frame.pitch },
    { offset: frame.chromaOffset, stride: frame.chromaPitch },
  ]);
  if (layout.planes[0]!.size > frame.chromaOffset) {
    throw new RangeError(
      `Argus frame's chroma plane at ${frame.chromaOffset} overlaps the luma plane ` +
        `(${layout.planes[0]!.size} bytes)`,
    );
  }
  if (layout.size > frame.size) {
    throw new RangeError(
      `Argus frame's planes end at ${layout.size} bytes, past its ${frame.size}-byte surface`,
    );
  }
  return layout;
}

/**
 * NV12 pitch-linear frames from libargus. The shim's session copies each frame into a free
 * slot of its ring of NvBuffers (`copyToNvBuffer`; `createNvBuffer` once per slot); a frame's
 * buffer is its slot's, the same {@linkcode DmaBuf} every time that slot comes round, and stays
 * the producer's. {@linkcode ArgusProducer.recycle} gives the slot back; with every slot held,
 * {@linkcode ArgusProducer.next} fails with ENOBUFS.
 *
 * @example
 * ```ts ignore
 * import { ArgusProducer } from "./argus_producer.ts";
 * using cam = ArgusProducer.open({ sensor: 0 }); // throws ENOSYS off a Jetson
 * const frame = await cam.next();
 * console.log(frame.buffer.inode, frame.sensorTimestampNs);
 * cam.recycle(frame);
 * ```
 */
export class ArgusProducer implements Producer {
  /** What it produces, for reports: `argus:<sensor> NV12 <w>x<h>`. */
  readonly name: string;
  readonly #session: ArgusSession;
  readonly #width: number;
  readonly #height: number;
  readonly #timeoutMs: number;
  /** Per ring slot: the slot's fd in the session and this producer's DmaBuf of it. */
  readonly #slots = new Map<number, { fd: number; buffer: DmaBuf }>();
  readonly #held = new Map<DmaBuf, number>();
  #sequence = 0;
  #closed = false;

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

  /**
   * Opens a capture session. RangeError for a bad option (checked first, on any machine);
   * AxlError ENOSYS where Argus is not available.
   */
  static open(options: ArgusProducerOptions = {}): ArgusProducer {
    const o = { sensor: 0, width: 1920, height: 1080, timeoutMs: 1000, ...options };
    if (!Number.isInteger(o.sensor) || o.sensor < 0) {
      throw new RangeError(`Argus sensor must be an index from 0, got ${o.sensor}`);
    }
    for (const [n, v] of [["width", o.width], ["height", o.height]] as const) {
      if (!Number.isInteger(v) || v <= 0 || v % 2) {
        throw new RangeError(`Argus NV12 ${n} must be a positive even integer, got ${v}`);
      }
    }
    checkArgusTimeout(o.timeoutMs);
    return new ArgusProducer(ArgusSession.open(o.sensor, o.width, o.height), o);
  }

  /**
   * Acquires the next frame into a ring slot. Its NvBufSurface metadata is checked against
   * the NV12 layout asked for ({@linkcode argusFrameLayout}) before it is handed out; a frame
   * that fails gives its slot straight back.
   */
  next(): Promise<Frame> {
    if (this.#closed) throw new TypeError("ArgusProducer is closed");
    const acquired = this.#session.acquire(this.#timeoutMs);
    try {
      const layout = argusFrameLayout(acquired, this.#width, this.#height);
      const buffer = this.#slotBuffer(acquired);
      this.#held.set(buffer, acquired.slot);
      return Promise.resolve({
        ...layout,
        buffer,
        sequence: this.#sequence++,
        sensorTimestampNs: acquired.sensorTimestampNs,
      });
    } catch (err) {
      this.#session.release(acquired.slot);
      throw err;
    }
  }

  /** This producer's DmaBuf of the frame's slot, made the first time the slot comes round. */
  #slotBuffer(frame: ArgusFrame): DmaBuf {
    const known = this.#slots.get(frame.slot);
    if (known?.fd === frame.fd) return known.buffer;
    known?.buffer.close();
    const buffer = this.#session.slotBuffer(frame);
    this.#slots.set(frame.slot, { fd: frame.fd, buffer });
    return buffer;
  }

  /** Gives the frame's ring slot back to the session; the buffer stays open for its next turn. */
  recycle(frame: Frame): void {
    const slot = this.#held.get(frame.buffer);
    if (slot === undefined) {
      throw new TypeError(`frame ${frame.sequence} is not one of this producer's held frames`);
    }
    this.#held.delete(frame.buffer);
    this.#session.release(slot);
  }

  /** Closes the slots' buffers and ends the session (which destroys the ring). Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    for (const { buffer } of this.#slots.values()) buffer.close();
    this.#slots.clear();
    this.#held.clear();
    this.#session.close();
  }

  /** Same as {@linkcode ArgusProducer.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}
