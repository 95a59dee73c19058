/**
 * Per-plane memory layout of a frame: offset, stride and size of every plane,
 * with stride and height padding (a 1080-line frame stored as 1088 lines is
 * still a 1080-line frame; only offsets, strides and sizes change).
 *
 * @module
 */

import { decodeNvidiaBlockLinear, describeModifier, MOD_INVALID, MOD_LINEAR } from "./modifier.ts";
import { type FormatInfo, formatInfo } from "./table.ts";

/** Padding rules for {@linkcode planeLayout}. All values are in bytes or rows. */
export interface LayoutOptions {
  /** Every plane's stride is a multiple of this many bytes (default 1). */
  strideAlign?: number;
  /** The luma height is padded to a multiple of this many rows (default 1), e.g. 16: 1080 → 1088. */
  heightAlign?: number;
  /** Every plane starts at a multiple of this many bytes (default 1). */
  planeAlign?: number;
  /**
   * Layout modifier (default LINEAR). NVIDIA block-linear modifiers pad strides to
   * whole 64-byte GOBs and rows to whole blocks; other vendor layouts are refused.
   */
  modifier?: bigint;
}

/** One plane of a laid-out frame. */
export interface PlaneLayout {
  /** Plane number, 0 = first plane (luma for YUV). */
  readonly index: number;
  /** Byte offset of the plane's first row from the start of the buffer. */
  readonly offset: number;
  /** Bytes from one row to the next, padding included. */
  readonly stride: number;
  /** Rows stored, padding included. */
  readonly rows: number;
  /** Bytes of the plane: stride × rows. */
  readonly size: number;
  /** Bytes of one row that hold samples (the rest of the stride is padding). */
  readonly rowBytes: number;
}

/**
 * A frame laid out in one buffer. `Format` narrows the format name where a device has its
 * own names for DRM layouts (the axl driver's `GREY` is DRM `R8`: `fourcc` says which).
 */
export interface FrameLayout<Format extends string = string> {
  /** Format name: the DRM name, or the device's name for the same layout. */
  readonly format: Format;
  /** DRM fourcc value. */
  readonly fourcc: number;
  /** Visible width in pixels. */
  readonly width: number;
  /** Visible height in rows. */
  readonly height: number;
  /** Luma rows stored (height plus padding). */
  readonly paddedHeight: number;
  /** DRM format modifier of the layout (`MOD_LINEAR` unless one was asked for). */
  readonly modifier: bigint;
  /** Every plane, in plane order. */
  readonly planes: readonly PlaneLayout[];
  /** Bytes the buffer needs: end of the last plane. */
  readonly size: number;
}

/**
 * Lays a frame out plane after plane in one buffer.
 *
 * @example NV12 1920×1080, strides to 64 bytes, height to 16 rows
 * ```ts
 * import { planeLayout } from "./layout.ts";
 * import { deepStrictEqual, strictEqual } from "node:assert/strict";
 * const l = planeLayout("NV12", 1920, 1080, { strideAlign: 64, heightAlign: 16 });
 * strictEqual(l.paddedHeight, 1088);
 * deepStrictEqual(l.planes.map((p) => [p.offset, p.stride, p.size]), [
 *   [0, 1920, 1920 * 1088],
 *   [1920 * 1088, 1920, 1920 * 544],
 * ]);
 * strictEqual(l.size, 3133440);
 * strictEqual(planeLayout("NV12", 1920, 1080).size, 3110400);
 * ```
 */
export function planeLayout(
  format: string | number | FormatInfo,
  width: number,
  height: number,
  options: LayoutOptions = {},
): FrameLayout {
  const info = formatInfo(format);
  positiveInt("width", width);
  positiveInt("height", height);
  const strideAlign = positiveInt("strideAlign", options.strideAlign ?? 1);
  const heightAlign = positiveInt("heightAlign", options.heightAlign ?? 1);
  const planeAlign = positiveInt("planeAlign", options.planeAlign ?? 1);
  const modifier = options.modifier ?? MOD_LINEAR;
  const tiling = tilingFor(modifier);

  const paddedHeight = alignUp(height, heightAlign);
  const planes: PlaneLayout[] = [];
  let offset = 0;
  const tooLarge = () =>
    new RangeError(`frame ${width}x${height} ${info.drm} is too large to address`);
  info.planes.forEach((plane, index) => {
    const rowBytes = Math.ceil(width / plane.blockWidth) * plane.bytesPerBlock;
    const stride = alignUp(rowBytes, lcm(strideAlign, tiling.strideAlign));
    const rows = alignUp(Math.ceil(paddedHeight / plane.vsub), tiling.rowAlign);
    offset = alignUp(offset, planeAlign);
    const size = stride * rows;
    if (!Number.isSafeInteger(size) || !Number.isSafeInteger(offset + size)) throw tooLarge();
    planes.push(Object.freeze({ index, offset, stride, rows, size, rowBytes }));
    offset += size;
  });
  return Object.freeze({
    format: info.drm,
    fourcc: info.code,
    width,
    height,
    paddedHeight,
    modifier,
    planes: Object.freeze(planes),
    size: offset,
  });
}

/** A plane as described by an exporter: where it starts and its stride. */
export interface PlaneDescriptor {
  /** Bytes from the start of the buffer to the plane's first row. */
  readonly offset: number;
  /** Bytes from one row to the next. */
  readonly stride: number;
}

/**
 * Checks an exporter's plane description (as in a dma-buf import: format, size,
 * per-plane offset and stride) against the format. Returns problems as sentences;
 * an empty list means the frame fits.
 *
 * @example A stride too small for the width
 * ```ts
 * import { checkLayout } from "./layout.ts";
 * import { strictEqual } from "node:assert/strict";
 * const problems = checkLayout("NV12", 1920, 1080, [
 *   { offset: 0, stride: 1900 },
 *   { offset: 1920 * 1080, stride: 1920 },
 * ], 3110400);
 * strictEqual(problems.length, 1);
 * ```
 */
export function checkLayout(
  format: string | number | FormatInfo,
  width: number,
  height: number,
  planes: readonly PlaneDescriptor[],
  bufferSize: number,
): string[] {
  const info = formatInfo(format);
  positiveInt("width", width);
  positiveInt("height", height);
  if (!Number.isSafeInteger(bufferSize) || bufferSize < 0) {
    throw new RangeError(`bufferSize ${bufferSize} must be a non-negative integer`);
  }
  const problems: string[] = [];
  if (planes.length !== info.planes.length) {
    problems.push(
      `${info.drm} has ${info.planes.length} plane(s), the description has ${planes.length}`,
    );
    return problems;
  }
  const extents: { index: number; start: number; end: number }[] = [];
  info.planes.forEach((plane, index) => {
    const desc = planes[index]!;
    const rowBytes = Math.ceil(width / plane.blockWidth) * plane.bytesPerBlock;
    const rows = Math.ceil(height / plane.vsub);
    if (!Number.isSafeInteger(desc.offset) || desc.offset < 0) {
      problems.push(`plane ${index}: offset ${desc.offset} is not a non-negative integer`);
      return;
    }
    if (!Number.isSafeInteger(desc.stride) || desc.stride < rowBytes) {
      problems.push(
        `plane ${index}: stride ${desc.stride} is less than the ${rowBytes} bytes a row of ` +
          `${width} pixels needs`,
      );
      return;
    }
    const end = desc.offset + desc.stride * (rows - 1) + rowBytes;
    if (end > bufferSize) {
      problems.push(
        `plane ${index}: ${rows} rows at offset ${desc.offset} with stride ${desc.stride} ` +
          `end at byte ${end}, past the ${bufferSize}-byte buffer`,
      );
    }
    extents.push({ index, start: desc.offset, end: desc.offset + desc.stride * rows });
  });
  extents.sort((a, b) => a.start - b.start);
  for (let i = 1; i < extents.length; i++) {
    const prev = extents[i - 1]!;
    const cur = extents[i]!;
    if (cur.start < prev.end && cur.start !== prev.start) {
      problems.push(`plane ${cur.index} starts at ${cur.start}, inside plane ${prev.index}`);
    }
  }
  return problems;
}

function tilingFor(modifier: bigint): { strideAlign: number; rowAlign: number } {
  if (typeof modifier !== "bigint") {
    throw new TypeError(`modifier must be a bigint, got ${typeof modifier}`);
  }
  if (modifier === MOD_LINEAR) return { strideAlign: 1, rowAlign: 1 };
  const bl = decodeNvidiaBlockLinear(modifier);
  if (bl) {
    const gobRows = bl.g === 1 ? 4 : 8;
    return { strideAlign: 64, rowAlign: gobRows * 2 ** bl.h };
  }
  if (modifier === MOD_INVALID) {
    throw new RangeError(
      "modifier INVALID means the driver picks the layout privately: ask the exporter for " +
        "offsets and strides instead of computing them",
    );
  }
  throw new RangeError(
    `no size model for ${describeModifier(modifier).text}: take offsets and strides from the ` +
      "exporter",
  );
}

function positiveInt(name: string, v: number): number {
  if (typeof v !== "number" || !Number.isSafeInteger(v) || v <= 0) {
    throw new RangeError(`${name} must be a positive integer, got ${v}`);
  }
  return v;
}

/**
 * Rounds `value` up to a multiple of `align`.
 *
 * @example
 * ```ts
 * import { alignUp } from "./layout.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(alignUp(1080, 16), 1088);
 * ```
 */
export function alignUp(value: number, align: number): number {
  if (!Number.isSafeInteger(value) || value < 0) {
    throw new RangeError(`alignUp: value ${value} must be a non-negative integer`);
  }
  if (!Number.isSafeInteger(align) || align <= 0) {
    throw new RangeError(`alignUp: alignment ${align} must be a positive integer`);
  }
  return Math.ceil(value / align) * align;
}

function gcd(a: number, b: number): number {
  while (b) [a, b] = [b, a % b];
  return a;
}

function lcm(a: number, b: number): number {
  return (a / gcd(a, b)) * b;
}
