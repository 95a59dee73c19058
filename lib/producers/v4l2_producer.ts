/**
 * {@linkcode V4l2Producer}: a V4L2 capture device writing into dma-bufs we allocate from a
 * DMA heap (`V4L2_MEMORY_DMABUF`), so each frame buffer is attached to both the camera
 * and, once imported, the NPU.
 *
 * @module
 */
import { DmaBuf } from "../dmabuf.ts";
import { AxlError, unwrap } from "../errors.ts";
import { type Frame, frameLayout } from "../frame.ts";
import { defaultFrameHeap, Heap } from "../heap.ts";
import { cString, nulStrings, shim } from "../_shim.ts";
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
  const s = shim();
  const want = s.constant("V4L2_CAP_VIDEO_CAPTURE") | s.constant("V4L2_CAP_STREAMING");
  for (const name of names) {
    const path = `/dev/${name}`;
    const fd = s.symbols.axl_shim_open(
      cString(path),
      s.constant("O_RDWR") | s.constant("O_NONBLOCK"),
    );
    if (fd < 0) continue;
    try {
      const caps = new Uint32Array(1);
      const strings = new Uint8Array(128);
      if (s.symbols.axl_shim_v4l2_querycap(fd, caps, strings, BigInt(strings.length)) < 0) continue;
      if ((caps[0]! & want) !== want) continue;
      const [driver, card, bus] = nulStrings(strings, 3);
      out.push({ path, driver: driver!, card: card!, bus: bus! });
    } finally {
      s.symbols.axl_shim_close(fd);
    }
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
  readonly name: string;
  #fd: number;
  readonly #buffers: DmaBuf[];
  readonly #layoutArgs: [number, number, number];
  readonly #timeoutMs: number;

  private constructor(
    name: string,
    fd: number,
    buffers: DmaBuf[],
    layout: [number, number, number],
    timeoutMs: number,
  ) {
    this.name = name;
    this.#fd = fd;
    this.#buffers = buffers;
    this.#layoutArgs = layout;
    this.#timeoutMs = timeoutMs;
  }

  /** Opens the camera, sets NV12, queues heap buffers and starts streaming. */
  static open(options: V4l2ProducerOptions = {}): V4l2Producer {
    const s = shim();
    const path = options.device ?? listCaptureDevices()[0]?.path;
    if (!path) {
      throw new AxlError("v4l2.open", 19, {
        code: "ENODEV",
        detail: "no V4L2 capture device with streaming I/O",
        hint: "connect a camera or, for testing, modprobe vivid allocators=1",
      });
    }
    const count = options.buffers ?? 4;
    const fd = unwrap(
      s.symbols.axl_shim_open(cString(path), s.constant("O_RDWR") | s.constant("O_NONBLOCK")),
      `v4l2.open(${path})`,
      "v4l2",
    );
    const buffers: DmaBuf[] = [];
    try {
      const fmt = new Uint32Array(5);
      unwrap(
        s.symbols.axl_shim_v4l2_set_format(
          fd,
          options.width ?? 640,
          options.height ?? 480,
          s.constant("V4L2_PIX_FMT_NV12"),
          fmt,
        ),
        `v4l2.setFormat(${path}, NV12)`,
        "v4l2",
      );
      const [width, height, fourcc, stride, sizeimage] = [...fmt] as [
        number,
        number,
        number,
        number,
        number,
      ];
      if (fourcc !== s.constant("V4L2_PIX_FMT_NV12")) {
        throw new AxlError(`v4l2.setFormat(${path})`, 22, {
          detail: "the device does not capture NV12",
          hint: "pick a camera with NV12 output (v4l2-ctl --list-formats)",
        });
      }
      const granted = unwrap(
        s.symbols.axl_shim_v4l2_reqbufs(fd, count),
        `v4l2.reqbufs(${path}, ${count})`,
        "v4l2",
      );
      const heap = Heap.open(options.heap ?? defaultFrameHeap());
      const contiguousDefault = heap.name === "system" && sizeimage <= SYSTEM_HEAP_CHUNK
        ? SYSTEM_HEAP_CHUNK
        : 0;
      const bytes = Math.max(sizeimage, options.minBufferBytes ?? contiguousDefault);
      for (let i = 0; i < granted; i++) {
        const buf = heap.allocate(bytes, { name: `axl-v4l2-${i}` });
        buffers.push(buf);
        unwrap(s.symbols.axl_shim_v4l2_qbuf(fd, i, buf.fd, buf.size), `v4l2.qbuf(${i})`, "v4l2");
      }
      unwrap(s.symbols.axl_shim_v4l2_stream(fd, 1), `v4l2.streamon(${path})`, "v4l2");
      const name = `v4l2:${path} NV12 ${width}x${height} x${granted}`;
      return new V4l2Producer(
        name,
        fd,
        buffers,
        [width, height, stride],
        options.timeoutMs ?? 2000,
      );
    } catch (err) {
      s.symbols.axl_shim_v4l2_reqbufs(fd, 0);
      for (const b of buffers) b.close();
      s.symbols.axl_shim_close(fd);
      throw err;
    }
  }

  /** Waits for the camera to fill a buffer and dequeues it. */
  async next(): Promise<Frame> {
    const s = shim();
    const out = new BigUint64Array(5);
    for (;;) {
      const ret = s.symbols.axl_shim_v4l2_dqbuf(this.#fd, out);
      if (ret >= 0) break;
      if (ret !== -11) unwrap(ret, `v4l2.dqbuf(${this.name})`, "v4l2"); // -EAGAIN: not yet
      const ready = await s.symbols.axl_shim_poll_in_async(this.#fd, this.#timeoutMs);
      if (ready === 0) {
        throw new AxlError(`v4l2.dqbuf(${this.name})`, 110, {
          code: "ETIMEDOUT",
          detail: `no frame within ${this.#timeoutMs} ms`,
          hint: "is the camera streaming? check dmesg and the sensor's clock/link",
        });
      }
      unwrap(ready, `v4l2.poll(${this.name})`, "v4l2");
    }
    const [w, h, stride] = this.#layoutArgs;
    const buffer = this.#buffers[Number(out[0])]!;
    return {
      ...frameLayout("NV12", w, h, stride),
      buffer,
      sequence: Number(out[2]),
      timestampNs: out[3]!,
    };
  }

  /** Queues the frame's buffer back to the camera. */
  recycle(frame: Frame): void {
    const i = this.#buffers.indexOf(frame.buffer);
    if (i < 0) throw new TypeError("the frame does not come from this producer");
    unwrap(
      shim().symbols.axl_shim_v4l2_qbuf(this.#fd, i, frame.buffer.fd, frame.buffer.size),
      `v4l2.qbuf(${i})`,
      "v4l2",
    );
  }

  /** Stops streaming, frees the buffers and closes the device. Idempotent. */
  close(): void {
    if (this.#fd < 0) return;
    const s = shim();
    s.symbols.axl_shim_v4l2_stream(this.#fd, 0);
    s.symbols.axl_shim_v4l2_reqbufs(this.#fd, 0);
    for (const b of this.#buffers) b.close();
    s.symbols.axl_shim_close(this.#fd);
    this.#fd = -1;
  }

  /** Same as {@linkcode V4l2Producer.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}
