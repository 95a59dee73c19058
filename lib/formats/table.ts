/**
 * The pixel formats this project handles, keyed by their DRM name, with the
 * per-plane geometry needed to lay a frame out in memory and the names the
 * same bytes carry in V4L2 and GStreamer.
 *
 * Naming conventions differ and are easy to get backwards:
 * - DRM names describe a little-endian word from its most significant bits
 *   down (`ARGB8888` is the word A:R:G:B, so the bytes in memory are B, G, R, A).
 * - GStreamer names describe bytes in memory order (that buffer is `BGRA`).
 * - V4L2 32-bit RGB names describe memory order too (`ABGR32`, fourcc `AR24`,
 *   is B, G, R, A in memory despite its name) and share the DRM fourcc.
 *
 * @module
 */

import { fourccCode, fourccString } from "./fourcc.ts";

/** Geometry of one plane, relative to the frame's luma width and height. */
export interface PlaneInfo {
  /** Bytes one block of samples occupies in this plane. */
  readonly bytesPerBlock: number;
  /** Frame columns one block covers (2 for YUYV's Y0 Cb Y1 Cr, 2 for NV12's CbCr pair). */
  readonly blockWidth: number;
  /** Frame rows one plane row covers (2 for a 4:2:0 chroma plane). */
  readonly vsub: number;
}

/** A V4L2 pixel format: its `V4L2_PIX_FMT_*` suffix and fourcc. */
export interface V4l2Format {
  /** Suffix of the `V4L2_PIX_FMT_` macro, e.g. `NV12M`. */
  readonly name: string;
  /** Four-character code, e.g. `NM12`. */
  readonly fourcc: string;
  /** True for the `*M` variants whose planes live in separate buffers. */
  readonly separatePlanes: boolean;
}

/** Everything known about one pixel format. */
export interface FormatInfo {
  /** Suffix of the `DRM_FORMAT_` macro, e.g. `XRGB8888`. */
  readonly drm: string;
  /** DRM four-character code without padding, e.g. `XR24`, `R8`. */
  readonly fourcc: string;
  /** The 32-bit DRM fourcc value. */
  readonly code: number;
  /** Colour model. */
  readonly family: "yuv" | "rgb" | "grey";
  /** Bits of the widest component. */
  readonly depth: number;
  /** Planes in memory order. */
  readonly planes: readonly PlaneInfo[];
  /** GStreamer `GstVideoFormat` name, or null when GStreamer has none. */
  readonly gst: string | null;
  /** V4L2 formats carrying the same bytes (single-buffer first). */
  readonly v4l2: readonly V4l2Format[];
  /**
   * For byte-aligned packed RGB: the components in memory byte order, one
   * letter per byte (`x` = padding). Used to cross-check the name mappings.
   */
  readonly memoryOrder: string | null;
  /** One line for humans. */
  readonly description: string;
}

const luma = (bytes: number): PlaneInfo => ({ bytesPerBlock: bytes, blockWidth: 1, vsub: 1 });
const chroma = (bytes: number, blockWidth: number, vsub: number): PlaneInfo => ({
  bytesPerBlock: bytes,
  blockWidth,
  vsub,
});
const v4 = (name: string, fourcc: string, separatePlanes = false): V4l2Format => ({
  name,
  fourcc,
  separatePlanes,
});

type Row = Omit<FormatInfo, "code">;

const rows: Row[] = [
  // Semi-planar YUV: a luma plane and one interleaved chroma plane.
  {
    drm: "NV12",
    fourcc: "NV12",
    family: "yuv",
    depth: 8,
    planes: [luma(1), chroma(2, 2, 2)],
    gst: "NV12",
    v4l2: [v4("NV12", "NV12"), v4("NV12M", "NM12", true)],
    memoryOrder: null,
    description: "Y plane + interleaved CbCr plane, 4:2:0",
  },
  {
    drm: "NV21",
    fourcc: "NV21",
    family: "yuv",
    depth: 8,
    planes: [luma(1), chroma(2, 2, 2)],
    gst: "NV21",
    v4l2: [v4("NV21", "NV21"), v4("NV21M", "NM21", true)],
    memoryOrder: null,
    description: "Y plane + interleaved CrCb plane, 4:2:0",
  },
  {
    drm: "NV16",
    fourcc: "NV16",
    family: "yuv",
    depth: 8,
    planes: [luma(1), chroma(2, 2, 1)],
    gst: "NV16",
    v4l2: [v4("NV16", "NV16"), v4("NV16M", "NM16", true)],
    memoryOrder: null,
    description: "Y plane + interleaved CbCr plane, 4:2:2",
  },
  {
    drm: "NV61",
    fourcc: "NV61",
    family: "yuv",
    depth: 8,
    planes: [luma(1), chroma(2, 2, 1)],
    gst: "NV61",
    v4l2: [v4("NV61", "NV61"), v4("NV61M", "NM61", true)],
    memoryOrder: null,
    description: "Y plane + interleaved CrCb plane, 4:2:2",
  },
  {
    drm: "NV24",
    fourcc: "NV24",
    family: "yuv",
    depth: 8,
    planes: [luma(1), chroma(2, 1, 1)],
    gst: "NV24",
    v4l2: [v4("NV24", "NV24")],
    memoryOrder: null,
    description: "Y plane + interleaved CbCr plane, 4:4:4",
  },
  {
    drm: "NV42",
    fourcc: "NV42",
    family: "yuv",
    depth: 8,
    planes: [luma(1), chroma(2, 1, 1)],
    gst: null,
    v4l2: [v4("NV42", "NV42")],
    memoryOrder: null,
    description: "Y plane + interleaved CrCb plane, 4:4:4",
  },
  {
    drm: "P010",
    fourcc: "P010",
    family: "yuv",
    depth: 10,
    planes: [luma(2), chroma(4, 2, 2)],
    gst: "P010_10LE",
    v4l2: [v4("P010", "P010")],
    memoryOrder: null,
    description: "NV12 layout with 16-bit little-endian samples, 10 significant bits (high)",
  },
  {
    drm: "P012",
    fourcc: "P012",
    family: "yuv",
    depth: 12,
    planes: [luma(2), chroma(4, 2, 2)],
    gst: "P012_LE",
    v4l2: [],
    memoryOrder: null,
    description: "NV12 layout with 16-bit little-endian samples, 12 significant bits (high)",
  },
  {
    drm: "P016",
    fourcc: "P016",
    family: "yuv",
    depth: 16,
    planes: [luma(2), chroma(4, 2, 2)],
    gst: "P016_LE",
    v4l2: [],
    memoryOrder: null,
    description: "NV12 layout with 16-bit little-endian samples",
  },
  // Fully planar YUV.
  {
    drm: "YUV420",
    fourcc: "YU12",
    family: "yuv",
    depth: 8,
    planes: [luma(1), chroma(1, 2, 2), chroma(1, 2, 2)],
    gst: "I420",
    v4l2: [v4("YUV420", "YU12"), v4("YUV420M", "YM12", true)],
    memoryOrder: null,
    description: "Y, Cb, Cr planes, 4:2:0",
  },
  {
    drm: "YVU420",
    fourcc: "YV12",
    family: "yuv",
    depth: 8,
    planes: [luma(1), chroma(1, 2, 2), chroma(1, 2, 2)],
    gst: "YV12",
    v4l2: [v4("YVU420", "YV12"), v4("YVU420M", "YM21", true)],
    memoryOrder: null,
    description: "Y, Cr, Cb planes, 4:2:0",
  },
  {
    drm: "YUV422",
    fourcc: "YU16",
    family: "yuv",
    depth: 8,
    planes: [luma(1), chroma(1, 2, 1), chroma(1, 2, 1)],
    gst: "Y42B",
    v4l2: [v4("YUV422P", "422P"), v4("YUV422M", "YM16", true)],
    memoryOrder: null,
    description: "Y, Cb, Cr planes, 4:2:2",
  },
  {
    drm: "YUV444",
    fourcc: "YU24",
    family: "yuv",
    depth: 8,
    planes: [luma(1), chroma(1, 1, 1), chroma(1, 1, 1)],
    gst: "Y444",
    v4l2: [v4("YUV444M", "YM24", true)],
    memoryOrder: null,
    description: "Y, Cb, Cr planes, 4:4:4",
  },
  // Packed YUV 4:2:2: one 4-byte block per two pixels.
  {
    drm: "YUYV",
    fourcc: "YUYV",
    family: "yuv",
    depth: 8,
    planes: [chroma(4, 2, 1)],
    gst: "YUY2",
    v4l2: [v4("YUYV", "YUYV")],
    memoryOrder: null,
    description: "packed Y0 Cb Y1 Cr, 4:2:2",
  },
  {
    drm: "YVYU",
    fourcc: "YVYU",
    family: "yuv",
    depth: 8,
    planes: [chroma(4, 2, 1)],
    gst: "YVYU",
    v4l2: [v4("YVYU", "YVYU")],
    memoryOrder: null,
    description: "packed Y0 Cr Y1 Cb, 4:2:2",
  },
  {
    drm: "UYVY",
    fourcc: "UYVY",
    family: "yuv",
    depth: 8,
    planes: [chroma(4, 2, 1)],
    gst: "UYVY",
    v4l2: [v4("UYVY", "UYVY")],
    memoryOrder: null,
    description: "packed Cb Y0 Cr Y1, 4:2:2",
  },
  {
    drm: "VYUY",
    fourcc: "VYUY",
    family: "yuv",
    depth: 8,
    planes: [chroma(4, 2, 1)],
    gst: "VYUY",
    v4l2: [v4("VYUY", "VYUY")],
    memoryOrder: null,
    description: "packed Cr Y0 Cb Y1, 4:2:2",
  },
  {
    drm: "AYUV",
    fourcc: "AYUV",
    family: "yuv",
    depth: 8,
    planes: [luma(4)],
    gst: "VUYA",
    v4l2: [v4("VUYA32", "VUYA")],
    memoryOrder: null,
    description: "packed Cr Cb Y A, 4:4:4 with alpha",
  },
  // Greyscale.
  {
    drm: "R8",
    fourcc: "R8",
    family: "grey",
    depth: 8,
    planes: [luma(1)],
    gst: "GRAY8",
    v4l2: [v4("GREY", "GREY")],
    memoryOrder: null,
    description: "8-bit single channel",
  },
  {
    drm: "R16",
    fourcc: "R16",
    family: "grey",
    depth: 16,
    planes: [luma(2)],
    gst: "GRAY16_LE",
    v4l2: [v4("Y16", "Y16")],
    memoryOrder: null,
    description: "16-bit little-endian single channel",
  },
  // RGB.
  {
    drm: "RGB565",
    fourcc: "RG16",
    family: "rgb",
    depth: 6,
    planes: [luma(2)],
    gst: "RGB16",
    v4l2: [v4("RGB565", "RGBP")],
    memoryOrder: null,
    description: "16-bit little-endian word R:G:B 5:6:5",
  },
  {
    drm: "BGR565",
    fourcc: "BG16",
    family: "rgb",
    depth: 6,
    planes: [luma(2)],
    gst: "BGR16",
    v4l2: [],
    memoryOrder: null,
    description: "16-bit little-endian word B:G:R 5:6:5",
  },
  {
    drm: "RGB888",
    fourcc: "RG24",
    family: "rgb",
    depth: 8,
    planes: [luma(3)],
    gst: "BGR",
    v4l2: [v4("BGR24", "BGR3")],
    memoryOrder: "BGR",
    description: "24-bit R:G:B word, bytes B G R",
  },
  {
    drm: "BGR888",
    fourcc: "BG24",
    family: "rgb",
    depth: 8,
    planes: [luma(3)],
    gst: "RGB",
    v4l2: [v4("RGB24", "RGB3")],
    memoryOrder: "RGB",
    description: "24-bit B:G:R word, bytes R G B",
  },
  {
    drm: "XRGB8888",
    fourcc: "XR24",
    family: "rgb",
    depth: 8,
    planes: [luma(4)],
    gst: "BGRx",
    v4l2: [v4("XBGR32", "XR24")],
    memoryOrder: "BGRx",
    description: "32-bit x:R:G:B word, bytes B G R x",
  },
  {
    drm: "XBGR8888",
    fourcc: "XB24",
    family: "rgb",
    depth: 8,
    planes: [luma(4)],
    gst: "RGBx",
    v4l2: [v4("RGBX32", "XB24")],
    memoryOrder: "RGBx",
    description: "32-bit x:B:G:R word, bytes R G B x",
  },
  {
    drm: "RGBX8888",
    fourcc: "RX24",
    family: "rgb",
    depth: 8,
    planes: [luma(4)],
    gst: "xBGR",
    v4l2: [v4("BGRX32", "RX24")],
    memoryOrder: "xBGR",
    description: "32-bit R:G:B:x word, bytes x B G R",
  },
  {
    drm: "BGRX8888",
    fourcc: "BX24",
    family: "rgb",
    depth: 8,
    planes: [luma(4)],
    gst: "xRGB",
    v4l2: [v4("XRGB32", "BX24")],
    memoryOrder: "xRGB",
    description: "32-bit B:G:R:x word, bytes x R G B",
  },
  {
    drm: "ARGB8888",
    fourcc: "AR24",
    family: "rgb",
    depth: 8,
    planes: [luma(4)],
    gst: "BGRA",
    v4l2: [v4("ABGR32", "AR24")],
    memoryOrder: "BGRA",
    description: "32-bit A:R:G:B word, bytes B G R A",
  },
  {
    drm: "ABGR8888",
    fourcc: "AB24",
    family: "rgb",
    depth: 8,
    planes: [luma(4)],
    gst: "RGBA",
    v4l2: [v4("RGBA32", "AB24")],
    memoryOrder: "RGBA",
    description: "32-bit A:B:G:R word, bytes R G B A",
  },
  {
    drm: "RGBA8888",
    fourcc: "RA24",
    family: "rgb",
    depth: 8,
    planes: [luma(4)],
    gst: "ABGR",
    v4l2: [v4("BGRA32", "RA24")],
    memoryOrder: "ABGR",
    description: "32-bit R:G:B:A word, bytes A B G R",
  },
  {
    drm: "BGRA8888",
    fourcc: "BA24",
    family: "rgb",
    depth: 8,
    planes: [luma(4)],
    gst: "ARGB",
    v4l2: [v4("ARGB32", "BA24")],
    memoryOrder: "ARGB",
    description: "32-bit B:G:R:A word, bytes A R G B",
  },
  {
    drm: "ARGB2101010",
    fourcc: "AR30",
    family: "rgb",
    depth: 10,
    planes: [luma(4)],
    gst: "BGR10A2_LE",
    v4l2: [],
    memoryOrder: null,
    description: "32-bit little-endian word A:R:G:B 2:10:10:10",
  },
  {
    drm: "ABGR2101010",
    fourcc: "AB30",
    family: "rgb",
    depth: 10,
    planes: [luma(4)],
    gst: "RGB10A2_LE",
    v4l2: [],
    memoryOrder: null,
    description: "32-bit little-endian word A:B:G:R 2:10:10:10",
  },
];

/** Every format in the table, frozen. */
export const FORMATS: readonly FormatInfo[] = Object.freeze(
  rows.map((row) =>
    Object.freeze({
      ...row,
      code: fourccCode(row.fourcc),
      planes: Object.freeze(row.planes.map((p) => Object.freeze({ ...p }))),
      v4l2: Object.freeze(row.v4l2.map((v) => Object.freeze({ ...v }))),
    })
  ),
);

const byDrm = new Map(FORMATS.map((f) => [f.drm, f]));
const byCode = new Map(FORMATS.map((f) => [f.code, f]));

/**
 * Finds a format by DRM name (`NV12`, `XRGB8888`, `DRM_FORMAT_XRGB8888`), DRM
 * fourcc (`XR24`, `R8  `) or fourcc value. Returns undefined when unknown.
 *
 * @example Three spellings of one format
 * ```ts
 * import { findFormat } from "./table.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(findFormat("XRGB8888")?.fourcc, "XR24");
 * strictEqual(findFormat("XR24")?.drm, "XRGB8888");
 * strictEqual(findFormat(0x3231564e)?.drm, "NV12");
 * ```
 */
export function findFormat(format: string | number): FormatInfo | undefined {
  if (typeof format === "number") return byCode.get(format);
  if (typeof format !== "string") return undefined;
  const name = format.startsWith("DRM_FORMAT_") ? format.slice("DRM_FORMAT_".length) : format;
  const hit = byDrm.get(name);
  if (hit) return hit;
  if (name.length >= 1 && name.length <= 4) {
    try {
      return byCode.get(fourccCode(name));
    } catch {
      return undefined;
    }
  }
  return undefined;
}

/**
 * Like {@linkcode findFormat} but throws a RangeError naming the known formats.
 *
 * @example
 * ```ts
 * import { formatInfo } from "./table.ts";
 * import { strictEqual, throws } from "node:assert/strict";
 * strictEqual(formatInfo("NV12").planes.length, 2);
 * throws(() => formatInfo("NV99"), RangeError);
 * ```
 */
export function formatInfo(format: string | number | FormatInfo): FormatInfo {
  if (typeof format === "object" && format !== null && "drm" in format) return format;
  if (typeof format !== "string" && typeof format !== "number") {
    throw new TypeError(`format must be a DRM name, fourcc or code, got ${typeof format}`);
  }
  const hit = findFormat(format);
  if (hit) return hit;
  const shown = typeof format === "number" ? fourccString(format) : `"${format}"`;
  throw new RangeError(
    `unknown pixel format ${shown}; known DRM formats: ${FORMATS.map((f) => f.drm).join(", ")}`,
  );
}
