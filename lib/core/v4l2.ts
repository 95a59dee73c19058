/**
 * {@linkcode V4l2Device}: typed wrappers for the V4L2 ioctls a dma-buf capture needs
 * (QUERYCAP, S_FMT, S_PARM, REQBUFS with V4L2_MEMORY_DMABUF, QBUF, DQBUF, STREAMON/OFF). Calls
 * that fail throw {@linkcode AxlError} with the operation and the device in the message.
 *
 * @module
 */
import { AxlError, unwrap } from "./errors.ts";
import type { DmaBuf } from "./dmabuf.ts";
import { cString, nulStrings, shim } from "./_shim.ts";

/** What VIDIOC_QUERYCAP reports. */
export interface V4l2Capability {
  /** Driver name, e.g. `vivid`. */
  driver: string;
  /** Card name. */
  card: string;
  /** Bus info. */
  bus: string;
  /** True for a capture device with streaming I/O. */
  streamingCapture: boolean;
}

/** The format VIDIOC_S_FMT settled on (the driver may adjust what was asked). */
export interface V4l2StreamFormat {
  /** Width in pixels. */
  width: number;
  /** Height in lines. */
  height: number;
  /** True when the driver kept the requested pixel format. */
  pixelFormatKept: boolean;
  /** Bytes per line of the first plane. */
  bytesPerLine: number;
  /** Bytes a frame needs. */
  sizeImage: number;
}

/** The frame interval VIDIOC_S_PARM settled on (the driver picks the nearest it has). */
export interface V4l2FrameInterval {
  /** Seconds per frame: `numerator / denominator`. */
  numerator: number;
  denominator: number;
  /** False when the driver paces frames itself and ignored the request. */
  settable: boolean;
}

/** A buffer VIDIOC_DQBUF handed back. */
export interface V4l2Dequeued {
  /** Index of the buffer, as queued. */
  index: number;
  /** Driver's frame sequence number. */
  sequence: number;
  /** Capture time, CLOCK_MONOTONIC ns. */
  timestampNs: bigint;
}

const EAGAIN = 11;

/**
 * An open V4L2 device node, closed on dispose.
 *
 * @example
 * ```ts ignore
 * import { V4l2Device } from "./v4l2.ts";
 * using dev = V4l2Device.open("/dev/video0");
 * console.log(dev.queryCapability()?.driver);
 * ```
 */
export class V4l2Device {
  /** Device node. */
  readonly path: string;
  #fd: number;

  private constructor(path: string, fd: number) {
    this.path = path;
    this.#fd = fd;
  }

  /** Opens `path` read-write and non-blocking; AxlError when it cannot. */
  static open(path: string): V4l2Device {
    const fd = unwrap(V4l2Device.#openFd(path), `v4l2.open(${path})`, "v4l2", "cannot-run");
    return new V4l2Device(path, fd);
  }

  /** Opens `path`, or undefined when it cannot be opened (for probing /dev/video*). */
  static tryOpen(path: string): V4l2Device | undefined {
    const fd = V4l2Device.#openFd(path);
    return fd < 0 ? undefined : new V4l2Device(path, fd);
  }

  static #openFd(path: string): number {
    const s = shim();
    return s.symbols.axl_shim_open(cString(path), s.constant("O_RDWR") | s.constant("O_NONBLOCK"));
  }

  /** VIDIOC_QUERYCAP, or undefined when the node does not answer it. */
  queryCapability(): V4l2Capability | undefined {
    const s = shim();
    const caps = new Uint32Array(1);
    const strings = new Uint8Array(128);
    if (s.symbols.axl_shim_v4l2_querycap(this.#fd, caps, strings, BigInt(strings.length)) < 0) {
      return undefined;
    }
    const want = s.constant("V4L2_CAP_VIDEO_CAPTURE") | s.constant("V4L2_CAP_STREAMING");
    const [driver, card, bus] = nulStrings(strings, 3);
    return {
      driver: driver!,
      card: card!,
      bus: bus!,
      streamingCapture: (caps[0]! & want) === want,
    };
  }

  /** VIDIOC_S_FMT for NV12 capture at `width`×`height`. */
  setFormatNv12(width: number, height: number): V4l2StreamFormat {
    const s = shim();
    const nv12 = s.constant("V4L2_PIX_FMT_NV12");
    const fmt = new Uint32Array(5);
    unwrap(
      s.symbols.axl_shim_v4l2_set_format(this.#fd, width, height, nv12, fmt),
      `v4l2.setFormat(${this.path}, NV12)`,
      "v4l2",
    );
    const [w, h, fourcc, bytesPerLine, sizeImage] = [...fmt] as number[];
    return {
      width: w!,
      height: h!,
      pixelFormatKept: fourcc === nv12,
      bytesPerLine: bytesPerLine!,
      sizeImage: sizeImage!,
    };
  }

  /** VIDIOC_S_PARM: asks for `fps` frames per second (a whole number). */
  setFrameRate(fps: number): V4l2FrameInterval {
    if (!Number.isInteger(fps) || fps < 1) {
      throw new RangeError(
        `frame rate must be a whole number of frames per second >= 1, got ${fps}`,
      );
    }
    const out = new Uint32Array(3);
    unwrap(
      shim().symbols.axl_shim_v4l2_set_interval(this.#fd, 1, fps, out),
      `v4l2.setFrameRate(${this.path}, ${fps})`,
      "v4l2",
    );
    return { numerator: out[0]!, denominator: out[1]!, settable: out[2] === 1 };
  }

  /** VIDIOC_REQBUFS for `count` dma-buf buffers; returns how many the driver granted. */
  requestBuffers(count: number): number {
    return unwrap(
      shim().symbols.axl_shim_v4l2_reqbufs(this.#fd, count),
      `v4l2.reqbufs(${this.path}, ${count})`,
      "v4l2",
    );
  }

  /** VIDIOC_REQBUFS with 0: frees the driver's buffer slots; errors are ignored (cleanup). */
  releaseBuffers(): void {
    shim().symbols.axl_shim_v4l2_reqbufs(this.#fd, 0);
  }

  /** VIDIOC_QBUF of `buffer` as slot `index`. */
  queue(index: number, buffer: DmaBuf): void {
    unwrap(
      shim().symbols.axl_shim_v4l2_qbuf(this.#fd, index, buffer.fd, buffer.size),
      `v4l2.qbuf(${index})`,
      "v4l2",
    );
  }

  /** VIDIOC_STREAMON. */
  streamOn(): void {
    unwrap(shim().symbols.axl_shim_v4l2_stream(this.#fd, 1), `v4l2.streamon(${this.path})`, "v4l2");
  }

  /** VIDIOC_STREAMOFF; errors are ignored (cleanup). */
  streamOff(): void {
    shim().symbols.axl_shim_v4l2_stream(this.#fd, 0);
  }

  /**
   * VIDIOC_DQBUF, polling (on a worker thread) while the driver has nothing ready. `label`
   * names the stream in errors; AxlError ETIMEDOUT after `timeoutMs` without a frame.
   */
  async dequeue(timeoutMs: number, label: string = this.path): Promise<V4l2Dequeued> {
    const s = shim();
    const out = new BigUint64Array(5);
    for (;;) {
      const ret = s.symbols.axl_shim_v4l2_dqbuf(this.#fd, out);
      if (ret >= 0) break;
      if (ret !== -EAGAIN) unwrap(ret, `v4l2.dqbuf(${label})`, "v4l2");
      const ready = await s.symbols.axl_shim_poll_in_async(this.#fd, timeoutMs);
      if (ready === 0) {
        throw new AxlError(`v4l2.dqbuf(${label})`, 110, {
          code: "ETIMEDOUT",
          detail: `no frame within ${timeoutMs} ms`,
          hint: "is the camera streaming? check dmesg and the sensor's clock/link",
        });
      }
      unwrap(ready, `v4l2.poll(${label})`, "v4l2");
    }
    return { index: Number(out[0]), sequence: Number(out[2]), timestampNs: out[3]! };
  }

  /** Closes the node. Idempotent. */
  close(): void {
    if (this.#fd < 0) return;
    shim().symbols.axl_shim_close(this.#fd);
    this.#fd = -1;
  }

  /** Same as {@linkcode V4l2Device.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}
