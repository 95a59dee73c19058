/**
 * NvBufSurface colour formats (`NvBufSurfaceColorFormat`, L4T multimedia API)
 * with their enum values and the DRM format holding the same bytes. Variants
 * that differ only in colour range or matrix (`_ER`, `_709`, `_2020`) share a
 * DRM format: the bytes are laid out the same way.
 *
 * @module
 */

import { type FormatInfo, formatInfo } from "../formats/table.ts";

/** One NvBufSurface colour format. */
export interface NvBufColorFormat {
  /** Name without the `NVBUF_COLOR_FORMAT_` prefix, e.g. `NV12_ER`. */
  readonly name: string;
  /** Enum value in nvbufsurface.h. */
  readonly value: number;
  /** DRM format with the same memory layout. */
  readonly drm: FormatInfo;
}

// Enum values in declaration order of nvbufsurface.h (L4T R35/R36).
const ENTRIES: [string, number, string][] = [
  ["GRAY8", 1, "R8"],
  ["YUV420", 2, "YUV420"],
  ["YVU420", 3, "YVU420"],
  ["YUV420_ER", 4, "YUV420"],
  ["YVU420_ER", 5, "YVU420"],
  ["NV12", 6, "NV12"],
  ["NV12_ER", 7, "NV12"],
  ["NV21", 8, "NV21"],
  ["NV21_ER", 9, "NV21"],
  ["UYVY", 10, "UYVY"],
  ["UYVY_ER", 11, "UYVY"],
  ["VYUY", 12, "VYUY"],
  ["VYUY_ER", 13, "VYUY"],
  ["YUYV", 14, "YUYV"],
  ["YUYV_ER", 15, "YUYV"],
  ["YVYU", 16, "YVYU"],
  ["YVYU_ER", 17, "YVYU"],
  ["YUV444", 18, "YUV444"],
  // The RGB names list bytes in memory order, as GStreamer's do.
  ["RGBA", 19, "ABGR8888"],
  ["BGRA", 20, "ARGB8888"],
  ["ARGB", 21, "BGRA8888"],
  ["ABGR", 22, "RGBA8888"],
  ["RGBx", 23, "XBGR8888"],
  ["BGRx", 24, "XRGB8888"],
  ["xRGB", 25, "BGRX8888"],
  ["xBGR", 26, "RGBX8888"],
  ["RGB", 27, "BGR888"],
  ["BGR", 28, "RGB888"],
  // 10 bits in the high bits of 16-bit samples: the P010 layout.
  ["NV12_10LE", 29, "P010"],
  ["NV12_12LE", 30, "P012"],
  ["YUV420_709", 31, "YUV420"],
  ["YUV420_709_ER", 32, "YUV420"],
  ["NV12_709", 33, "NV12"],
  ["NV12_709_ER", 34, "NV12"],
  ["YUV420_2020", 35, "YUV420"],
  ["NV12_2020", 36, "NV12"],
];

/** Every mapped colour format, frozen. */
export const NVBUF_COLOR_FORMATS: readonly NvBufColorFormat[] = Object.freeze(
  ENTRIES.map(([name, value, drm]) => Object.freeze({ name, value, drm: formatInfo(drm) })),
);

/**
 * Finds a colour format by enum value, name (`NV12_ER`) or full macro name
 * (`NVBUF_COLOR_FORMAT_NV12_ER`). Throws a RangeError naming the input.
 *
 * @example
 * ```ts
 * import { nvbufColorFormat } from "./color_format.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(nvbufColorFormat(6).name, "NV12");
 * strictEqual(nvbufColorFormat("NVBUF_COLOR_FORMAT_NV12_ER").drm.drm, "NV12");
 * ```
 */
export function nvbufColorFormat(format: number | string): NvBufColorFormat {
  if (typeof format === "number") {
    const hit = NVBUF_COLOR_FORMATS.find((f) => f.value === format);
    if (hit) return hit;
    throw new RangeError(
      `NvBufSurface colour format ${format} is not one this project maps ` +
        `(known values ${NVBUF_COLOR_FORMATS[0]!.value}..${NVBUF_COLOR_FORMATS.at(-1)!.value})`,
    );
  }
  if (typeof format !== "string") {
    throw new TypeError(`colour format must be a name or enum value, got ${typeof format}`);
  }
  const name = format.startsWith("NVBUF_COLOR_FORMAT_")
    ? format.slice("NVBUF_COLOR_FORMAT_".length)
    : format;
  const hit = NVBUF_COLOR_FORMATS.find((f) => f.name === name);
  if (hit) return hit;
  throw new RangeError(
    `unknown NvBufSurface colour format "${format}" ` +
      `(known: ${NVBUF_COLOR_FORMATS.map((f) => f.name).join(", ")})`,
  );
}
