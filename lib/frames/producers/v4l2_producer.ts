/**
 * {@linkcode V4l2Producer}: a V4L2 capture device writing into dma-bufs we allocate from a
 * DMA heap (`V4L2_MEMORY_DMABUF`), so each frame buffer is attached to both the camera
 * and, once imported, the NPU.
 *
 * @module
 */
import { DmaBuf } from "../../core/dmabuf.ts";
import { AxlError } from "../../core/errors.ts";
import { type Frame, frameLayout } from "../frame.ts";
import { defaultFrameHeap, Heap } from "../../core/heap.ts";
import { V4l2Device, type V4l2FrameInterval } from "../../core/v4l2.ts";
import type { Producer } from "./producer.ts";

/** Options of {@linkcode V4l2Producer.open}. */
export interface V4l2ProducerOptions {
  /** Device node; default: the first capture device with streaming I/O. */
  device?: string;
  /** Heap the frame buffers come from (default: the CMA heap if any, else `system`). */
  heap?: string;
  /** Width (default 640). */
  width?: number;
  /** Height (default 480). */
  height?: number;
  /**
   * Frames per second to ask the camera for (VIDIOC_S_PARM); the driver settles on the
   * nearest rate it has, see {@linkcode V4l2Producer.frameInterval}. Default: its own.
   */
  fps?: number;
  /** Buffers to queue (default 4). */
  buffers?: number;
  /** Dequeue timeout in ms (default 2000). */
  timeoutMs?: number;
  /**
   * Bytes to allocate per buffer at least. Default: for the `system` heap, 1 MiB when the
   * frame fits in it, because the system heap hands out one physically contiguous
   * order-8 chunk only for a 1 MiB request, and cameras with a dma-contig allocator
   * (vivid allocators=1, many CSI hosts) can only attach contiguous buffers.
   */
  minBufferBytes?: number;
}

const SYSTEM_HEAP_CHUNK = 1 << 20;

/** The default minimum buffer size: see {@linkcode V4l2ProducerOptions.minBufferBytes}. */
export function contiguousDefault(heap: { name: string }, format: { sizeImage: number }): number {
  return heap.name === "system" && format.sizeImage <= SYSTEM_HEAP_CHUNK ? SYSTEM_HEAP_CHUNK : 0;
}

/** A V4L2 capture device as VIDIOC_QUERYCAP describes it. */
export interface V4l2DeviceInfo {
  /** Device node. */
  path: string;
  /** Driver name, e.g. `vivid`. */
  driver: string;
  /** Card name. */
  card: string;
  /** Bus info. */
  bus: string;
}

/** Capture devices with streaming I/O, from /dev/video*. */
export function listCaptureDevices(): V4l2DeviceInfo[] {
  const out: V4l2DeviceInfo[] = [];
  let names: string[];
  try {
    names = [...Deno.readDirSync("/dev")].map((e) => e.name).filter((n) => /^video\d+$/.test(n));
  } catch {
    return out;
  }
  names.sort((a, b) => Number(a.slice(5)) - Number(b.slice(5)));
  for (const name of names) {
    const path = `/dev/${name}`;
    using dev = V4l2Device.tryOpen(path);
    const cap = dev?.queryCapability();
    if (!cap?.streamingCapture) continue;
    out.push({ path, driver: cap.driver, card: cap.card, bus: cap.bus });
  }
  return out;
}

/**
 * NV12 frames from a V4L2 camera (in the VM rig: `vivid` loaded with `allocators=1`).
 *
 * @example
 * ```ts ignore
 * import { V4l2Producer } from "./v4l2_producer.ts";
 * using cam = V4l2Producer.open({ width: 640, height: 480 });
 * const frame = await cam.next();
 * console.log(frame.buffer.inode, frame.sequence);
 * cam.recycle(frame);
 * ```
 */
export class V4l2Producer implements Producer {
  /** What it produces, for reports: `v4l2:<node> NV12 <w>x<h> x<buffers>`. */
  readonly name: string;
  /** The interval the driver settled on when `fps` was asked for. */
  readonly frameInterval?: V4l2FrameInterval;
  readonly #device: V4l2Device;
  readonly #buffers: DmaBuf[];
  readonly #layoutArgs: [number, number, number];
  readonly #timeoutMs: number;
  #closed = false;

  private constructor(
    name: string,
    device: V4l2Device,
    buffers: DmaBuf[],
    layout: [number, number, number],
    timeoutMs: number,
    frameInterval?: V4l2FrameInterval,
  ) {
    this.name = name;
    this.frameInterval = frameInterval;
    this.#device = device;
    this.#buffers = buffers;
    this.#layoutArgs = layout;
    this.#timeoutMs = timeoutMs;
  }

  /** Opens the camera, sets NV12, queues heap buffers and starts streaming. */
  static open(options: V4l2ProducerOptions = {}): V4l2Producer {
    const path = options.device ?? listCaptureDevices()[0]?.path;
    if (!path) {
      throw new AxlError("v4l2.open", 19, {
        code: "ENODEV",
        detail: "no V4L2 capture device with streaming I/O",
        hint: "connect a camera or, for testing, modprobe vivid allocators=1",
        exitKind: "cannot-run",
      });
    }
    const count = options.buffers ?? 4;
    const dev = V4l2Device.open(path);
    const buffers: DmaBuf[] = [];
    try {
      const fmt = dev.setFormatNv12(options.width ?? 640, options.height ?? 480);
      if (!fmt.pixelFormatKept) {
        throw new AxlError(`v4l2.setFormat(${path})`, 22, {
          detail: "the device does not capture NV12",
          hint: "pick a camera with NV12 output (v4l2-ctl --list-formats)",
        });
      }
      // After S_FMT: vivid narrows the intervals it offers to the frame size.
      const interval = options.fps === undefined ? undefined : dev.setFrameRate(options.fps);
      const granted = dev.requestBuffers(count);
      const heap = Heap.open(options.heap ?? defaultFrameHeap());
      const bytes = Math.max(fmt.sizeImage, options.minBufferBytes ?? contiguousDefault(heap, fmt));
      for (let i = 0; i < granted; i++) {
        const buf = heap.allocate(bytes, { name: `axl-v4l2-${i}` });
        buffers.push(buf);
        dev.queue(i, buf);
      }
      dev.streamOn();
      const name = `v4l2:${path} NV12 ${fmt.width}x${fmt.height} x${granted}`;
      const layout: [number, number, number] = [fmt.width, fmt.height, fmt.bytesPerLine];
      return new V4l2Producer(name, dev, buffers, layout, options.timeoutMs ?? 2000, interval);
    } catch (err) {
      dev.releaseBuffers();
      for (const b of buffers) b.close();
      dev.close();
      throw err;
    }
  }

  /** Waits for the camera to fill a buffer and dequeues it. */
  async next(): Promise<Frame> {
    const done = await this.#device.dequeue(this.#timeoutMs, this.name);
    const [w, h, stride] = this.#layoutArgs;
    const buffer = this.#buffers[done.index]!;
    return {
      ...frameLayout("NV12", w, h, stride),
      buffer,
      sequence: done.sequence,
      timestampNs: done.timestampNs,
    };
  }

  /** The buffers queued to the camera, by V4L2 index (empty once closed). */
  buffers(): readonly DmaBuf[] {
    return this.#closed ? [] : this.#buffers;
  }

  /** Queues the frame's buffer back to the camera. */
  recycle(frame: Frame): void {
    const i = this.#buffers.indexOf(frame.buffer);
    if (i < 0) throw new TypeError("the frame does not come from this producer");
    this.#device.queue(i, frame.buffer);
  }

  /** Stops streaming, frees the buffers and closes the device. Idempotent. */
  close(): void {
    if (this.#closed) return;
    this.#closed = true;
    this.#device.streamOff();
    this.#device.releaseBuffers();
    for (const b of this.#buffers) b.close();
    this.#device.close();
  }

  /** Same as {@linkcode V4l2Producer.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}
