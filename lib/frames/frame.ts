/**
 * Frames: a dma-buf plus its format, size and per-plane layout (offset, stride,
 * size), as the kernel's pixel-buffer guide describes them.
 *
 * @module
 */
import type { DmaBuf } from "../core/dmabuf.ts";
import type { PixelFormat } from "../core/device.ts";

/** One plane of a frame. */
export interface Plane {
  /** Byte offset of the plane in the buffer. */
  offset: number;
  /** Bytes per line. */
  stride: number;
  /** Bytes of the plane, stride × lines. */
  size: number;
  /** Payload bytes per line (stride minus padding). */
  lineBytes: number;
  /** Lines in the plane. */
  lines: number;
}

/** Format, size and planes of a frame. */
export interface FrameLayout {
  /** Pixel format. */
  format: PixelFormat;
  /** Width in pixels (bytes per line for RAW). */
  width: number;
  /** Height in lines. */
  height: number;
  /** Planes in memory order. */
  planes: Plane[];
  /** Bytes the frame needs. */
  size: number;
}

/** A frame handed out by a producer. */
export interface Frame extends FrameLayout {
  /** The buffer holding the pixels (owned by the producer). */
  buffer: DmaBuf;
  /** Producer sequence number, from 0. */
  sequence: number;
  /** Capture time (CLOCK_MONOTONIC ns) when the producer knows it. */
  timestampNs?: bigint;
}

/**
 * The layout the axl driver expects for `format` at `width`×`height` with a first-plane
 * `stride` (0: packed). NV12's chroma plane follows the luma plane with the same stride.
 *
 * @example
 * ```ts
 * import { frameLayout } from "./frame.ts";
 * const l = frameLayout("NV12", 640, 480);
 * if (l.size !== 640 * 480 * 3 / 2 || l.planes[1]?.offset !== 640 * 480) throw new Error();
 * ```
 */
export function frameLayout(
  format: PixelFormat,
  width: number,
  height: number,
  stride = 0,
): FrameLayout {
  for (const [n, v] of [["width", width], ["height", height]] as const) {
    if (!Number.isInteger(v) || v <= 0) {
      throw new RangeError(`${n} must be a positive integer, got ${v}`);
    }
  }
  const bytesPerPixel = format === "YUYV" ? 2 : 1;
  const lineBytes = width * bytesPerPixel;
  const s = stride || lineBytes;
  if (!Number.isInteger(s) || s < lineBytes) {
    throw new RangeError(
      `stride ${stride} is smaller than a line of ${format} ${width} px (${lineBytes} bytes)`,
    );
  }
  if (format === "NV12" && (width % 2 || height % 2)) {
    throw new RangeError(`NV12 needs even width and height, got ${width}x${height}`);
  }
  if (format === "YUYV" && width % 2) {
    throw new RangeError(`YUYV needs an even width, got ${width}`);
  }
  const planes: Plane[] = [{ offset: 0, stride: s, size: s * height, lineBytes, lines: height }];
  if (format === "NV12") {
    planes.push({
      offset: s * height,
      stride: s,
      size: s * height / 2,
      lineBytes,
      lines: height / 2,
    });
  }
  const last = planes[planes.length - 1]!;
  return { format, width, height, planes, size: last.offset + last.size };
}
