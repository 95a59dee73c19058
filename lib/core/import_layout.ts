/**
 * How an import describes its frame to the driver: `AXL_IOCTL_IMPORT_FD` (one stride,
 * the chroma plane right after the luma plane) or `AXL_IOCTL_IMPORT_FD2` (an offset and a
 * pitch per plane, and a DRM format modifier). Pure functions, no device needed.
 *
 * @module
 */
import { planeLayout } from "../formats/layout.ts";
import { DRM_FORMAT, type PixelFormat } from "./pixel_format.ts";

/** `DRM_FORMAT_MOD_LINEAR`: lines in memory order, the only layout metis-sim reads. */
export const FORMAT_MOD_LINEAR = 0n;

/** Planes one `AXL_IOCTL_IMPORT_FD2` can describe (`AXL_MAX_PLANES`). */
export const MAX_PLANES = 4;

/** One plane as `AXL_IOCTL_IMPORT_FD2` describes it. */
export interface ImportPlane {
  /** Byte offset of the plane's first line in the buffer. */
  offset: number;
  /** Bytes from one line to the next (at least the line's payload). */
  pitch: number;
}

/** What {@linkcode importRequest} decided: which ioctl, with what layout. */
export type ImportRequest =
  | { ioctl: "IMPORT_FD"; stride: number; planes: ImportPlane[] }
  | { ioctl: "IMPORT_FD2"; planes: ImportPlane[]; modifier: bigint };

/** The geometry part of an import's options. */
export interface ImportGeometry {
  /** Pixel format. */
  format: PixelFormat;
  /** Width in pixels (bytes per line for RAW). */
  width: number;
  /** Height in lines. */
  height: number;
  /** Bytes per line of every plane, 0 for packed (IMPORT_FD only). */
  stride?: number;
  /** Per-plane offset and pitch: selects IMPORT_FD2. */
  planes?: ImportPlane[];
  /** DRM format modifier: anything but linear selects IMPORT_FD2. */
  modifier?: bigint;
}

/**
 * Planes of a format: 2 for NV12, 1 otherwise.
 *
 * @example
 * ```ts
 * import { planeCount } from "./import_layout.ts";
 * console.log(planeCount("NV12")); // 2
 * console.log(planeCount("YUYV")); // 1
 * ```
 */
export function planeCount(format: PixelFormat): number {
  return format === "NV12" ? 2 : 1;
}

/**
 * Lines of each plane and the payload bytes of a line, as the driver counts them: those of
 * the DRM format that stores the same bytes (`formats`' `planeLayout()`).
 *
 * @example
 * ```ts
 * import { planeLines } from "./import_layout.ts";
 * const g = planeLines("NV12", 1920, 1080);
 * console.log(g.lines.join()); // "1080,540"
 * console.log(g.lineBytes); // 1920
 * ```
 */
export function planeLines(
  format: PixelFormat,
  width: number,
  height: number,
): { lines: number[]; lineBytes: number } {
  const { planes } = planeLayout(DRM_FORMAT[format], width, height);
  return { lines: planes.map((p) => p.rows), lineBytes: planes[0]!.rowBytes };
}

/**
 * The planes `AXL_IOCTL_IMPORT_FD` implies: every plane at `stride` (0: packed), each
 * plane right after the previous one's last line.
 *
 * @example
 * ```ts
 * import { v1Planes } from "./import_layout.ts";
 * const p = v1Planes("NV12", 640, 480, 768);
 * console.log(p[1]!.offset); // 368640
 * console.log(p[1]!.pitch); // 768
 * ```
 */
export function v1Planes(
  format: PixelFormat,
  width: number,
  height: number,
  stride = 0,
): ImportPlane[] {
  const { lines, lineBytes } = planeLines(format, width, height);
  const pitch = stride || lineBytes;
  let offset = 0;
  return lines.map((n) => {
    const plane = { offset, pitch };
    offset += pitch * n;
    return plane;
  });
}

/**
 * Where a frame described plane by plane ends: the end of its last line's payload. The
 * padding after that line is not part of the frame, so a buffer this long is enough.
 *
 * @example
 * ```ts
 * import { planesEnd } from "./import_layout.ts";
 * // GREY 1024x5 with pitch 1792: 4 * 1792 + 1024
 * console.log(planesEnd("GREY", 1024, 5, [{ offset: 0, pitch: 1792 }])); // 8192
 * ```
 */
export function planesEnd(
  format: PixelFormat,
  width: number,
  height: number,
  planes: readonly ImportPlane[],
): number {
  const { lines, lineBytes } = planeLines(format, width, height);
  const last = planes.length - 1;
  const p = planes[last]!;
  return p.offset + p.pitch * ((lines[last] ?? 1) - 1) + lineBytes;
}

function isUint(v: number, max: number): boolean {
  return Number.isSafeInteger(v) && v >= 0 && v <= max;
}

/**
 * Picks the ioctl for an import and checks the planes as far as user space can:
 * `planes` or a modifier other than linear select `AXL_IOCTL_IMPORT_FD2`; otherwise
 * `AXL_IOCTL_IMPORT_FD` with `stride`. Throws RangeError for a plane count that is not
 * the format's, offsets that are not ascending and disjoint, or a pitch below a line, and
 * TypeError for `stride` together with `planes`. The driver checks again (and checks
 * the buffer size).
 *
 * @example
 * ```ts
 * import { importRequest } from "./import_layout.ts";
 * const r = importRequest({
 *   format: "NV12", width: 1920, height: 1080,
 *   planes: [{ offset: 0, pitch: 2048 }, { offset: 2048 * 1088, pitch: 2048 }],
 * });
 * console.log(r.ioctl); // "IMPORT_FD2"
 * console.log(importRequest({ format: "GREY", width: 8, height: 8 }).ioctl); // "IMPORT_FD"
 * ```
 */
export function importRequest(g: ImportGeometry): ImportRequest {
  const modifier = g.modifier ?? FORMAT_MOD_LINEAR;
  if (g.planes === undefined) {
    const planes = v1Planes(g.format, g.width, g.height, g.stride ?? 0);
    if (modifier === FORMAT_MOD_LINEAR) {
      return { ioctl: "IMPORT_FD", stride: g.stride ?? 0, planes };
    }
    return { ioctl: "IMPORT_FD2", planes, modifier };
  }
  if (g.stride) {
    throw new TypeError("import: give either stride or planes, not both");
  }
  const want = planeCount(g.format);
  if (g.planes.length !== want) {
    throw new RangeError(
      `import: ${g.format} has ${want} plane(s), ${g.planes.length} given`,
    );
  }
  const { lines, lineBytes } = planeLines(g.format, g.width, g.height);
  let end = 0;
  g.planes.forEach((p, i) => {
    if (!isUint(p.offset, Number.MAX_SAFE_INTEGER)) {
      throw new RangeError(`import: plane ${i} offset ${p.offset} is not a byte offset`);
    }
    if (!isUint(p.pitch, 0xffff_ffff) || p.pitch < lineBytes) {
      throw new RangeError(
        `import: plane ${i} pitch ${p.pitch} is below a line of ${lineBytes} bytes`,
      );
    }
    if (p.offset < end) {
      throw new RangeError(
        `import: plane ${i} at ${p.offset} overlaps or precedes the previous plane (ends at ${end})`,
      );
    }
    end = p.offset + p.pitch * (lines[i]! - 1) + lineBytes;
  });
  return { ioctl: "IMPORT_FD2", planes: g.planes.map((p) => ({ ...p })), modifier };
}

/** What {@linkcode importGeometryFor} reads of a frame's layout: format, size, planes. */
export interface PlanedGeometry {
  /** Pixel format. */
  format: PixelFormat;
  /** Width in pixels (bytes per line for RAW). */
  width: number;
  /** Height in lines. */
  height: number;
  /** Offset and bytes per line of every plane, in memory order. */
  planes: readonly { offset: number; stride: number }[];
}

/**
 * Import geometry for a frame layout (a producer's frame, an NvBufSurface description):
 * `stride` when `AXL_IOCTL_IMPORT_FD` can express it, per-plane `planes` otherwise.
 *
 * @example
 * ```ts
 * import { importGeometryFor } from "./import_layout.ts";
 * const g = importGeometryFor({
 *   format: "NV12", width: 640, height: 480,
 *   planes: [{ offset: 0, stride: 768 }, { offset: 768 * 480, stride: 768 }],
 * });
 * console.log(g.stride); // 768
 * console.log(g.planes); // undefined
 * ```
 */
export function importGeometryFor(layout: PlanedGeometry): ImportGeometry {
  const { format, width, height } = layout;
  const planes = layout.planes.map((p) => ({ offset: p.offset, pitch: p.stride }));
  const stride = planes[0]?.pitch ?? 0;
  const implied = v1Planes(format, width, height, stride);
  const same = planes.length === implied.length &&
    planes.every((p, i) => p.offset === implied[i]!.offset && p.pitch === implied[i]!.pitch);
  return same ? { format, width, height, stride } : { format, width, height, planes };
}
