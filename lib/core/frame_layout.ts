/**
 * {@linkcode frameLayout}: the layout the axl driver expects for one of its pixel formats,
 * as a `formats` {@linkcode FrameLayout}: the planes of the DRM format that stores the same
 * bytes, every plane at one stride, each right after the previous one.
 *
 * @module
 */
import { type FrameLayout, planeLayout } from "../formats/layout.ts";
import { v1Planes } from "./import_layout.ts";
import { DRM_FORMAT, type PixelFormat } from "./pixel_format.ts";

/**
 * The layout the axl driver expects for `format` at `width`×`height` with a first-plane
 * `stride` (0: packed). NV12's chroma plane follows the luma plane with the same stride.
 * `format` keeps the driver's name; `fourcc` is the DRM code of the same layout.
 *
 * @example
 * ```ts
 * import { frameLayout } from "./frame_layout.ts";
 * const l = frameLayout("NV12", 640, 480);
 * console.log(l.size); // 460800
 * console.log(l.planes[1]?.offset); // 307200
 * ```
 */
export function frameLayout(
  format: PixelFormat,
  width: number,
  height: number,
  stride = 0,
): FrameLayout<PixelFormat> {
  for (const [n, v] of [["width", width], ["height", height]] as const) {
    if (!Number.isInteger(v) || v <= 0) {
      throw new RangeError(`${n} must be a positive integer, got ${v}`);
    }
  }
  const lineBytes = format === "YUYV" ? 2 * width : width;
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
  const packed = planeLayout(DRM_FORMAT[format], width, height);
  const implied = v1Planes(format, width, height, s);
  const planes = packed.planes.map((p, i) => {
    const { offset, pitch } = implied[i]!;
    return Object.freeze({ ...p, offset, stride: pitch, size: pitch * p.rows });
  });
  const last = planes[planes.length - 1]!;
  return Object.freeze({
    ...packed,
    format,
    planes: Object.freeze(planes),
    size: last.offset + last.size,
  });
}

/**
 * A frame whose exporter chose where each plane starts and its stride (an NvBufSurface with
 * padded luma, a V4L2 multi-planar buffer): the planes of {@linkcode frameLayout} moved to
 * `planes`. RangeError when the count is not the format's or a stride is below a line.
 *
 * @example NV12 1920x1080 with pitch 2048 and the luma padded to 1088 lines
 * ```ts
 * import { placedLayout } from "./frame_layout.ts";
 * const l = placedLayout("NV12", 1920, 1080, [
 *   { offset: 0, stride: 2048 },
 *   { offset: 2048 * 1088, stride: 2048 },
 * ]);
 * console.log(l.size); // 3334144
 * ```
 */
export function placedLayout(
  format: PixelFormat,
  width: number,
  height: number,
  planes: readonly { offset: number; stride: number }[],
): FrameLayout<PixelFormat> {
  const packed = frameLayout(format, width, height);
  if (planes.length !== packed.planes.length) {
    throw new RangeError(`${format} has ${packed.planes.length} plane(s), ${planes.length} given`);
  }
  const placed = packed.planes.map((p, i) => {
    const { offset, stride } = planes[i]!;
    if (stride < p.rowBytes) {
      throw new RangeError(`plane ${i}: stride ${stride} is below a line of ${p.rowBytes} bytes`);
    }
    return Object.freeze({ ...p, offset, stride, size: stride * p.rows });
  });
  const size = Math.max(...placed.map((p) => p.offset + p.size));
  return Object.freeze({ ...packed, planes: Object.freeze(placed), size });
}
