/**
 * The pixel formats the axl driver understands, by the names its uapi gives them.
 *
 * @module
 */

/** Pixel formats the driver understands (see `AXL_PIXFMT_*`). */
export const PIXEL_FORMATS = ["NV12", "GREY", "YUYV", "RAW"] as const;
/** One of {@linkcode PIXEL_FORMATS}. */
export type PixelFormat = typeof PIXEL_FORMATS[number];

/** The DRM format with the same planes as each pixel format (RAW: bytes, one plane). */
export const DRM_FORMAT: Readonly<Record<PixelFormat, string>> = {
  NV12: "NV12",
  GREY: "R8",
  YUYV: "YUYV",
  RAW: "R8",
};
