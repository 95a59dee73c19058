/**
 * Mapping between DRM formats and GStreamer video format names, both ways.
 *
 * GStreamer names list bytes in memory order, DRM names list a little-endian
 * word from the top bit down, so the RGB names look reversed:
 * `DRM_FORMAT_ARGB8888` is GStreamer `BGRA`.
 *
 * @module
 */

import { type FormatInfo, formatInfo, FORMATS } from "./table.ts";

const byGst = new Map<string, FormatInfo>();
for (const format of FORMATS) if (format.gst) byGst.set(format.gst, format);

/**
 * The GStreamer format name for a DRM format, or undefined when GStreamer has none.
 *
 * @example
 * ```ts
 * import { drmToGst } from "./gst.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(drmToGst("ARGB8888"), "BGRA");
 * strictEqual(drmToGst("YUYV"), "YUY2");
 * ```
 */
export function drmToGst(format: string | number | FormatInfo): string | undefined {
  return formatInfo(format).gst ?? undefined;
}

/**
 * The DRM format for a GStreamer format name (`NV12`, `BGRx`, `GRAY8`), or
 * undefined when the name has no DRM equivalent in the table.
 *
 * @example
 * ```ts
 * import { gstToDrm } from "./gst.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(gstToDrm("BGRx")?.drm, "XRGB8888");
 * strictEqual(gstToDrm("I420")?.fourcc, "YU12");
 * ```
 */
export function gstToDrm(name: string): FormatInfo | undefined {
  if (typeof name !== "string") {
    throw new TypeError(`GStreamer format must be a string, got ${typeof name}`);
  }
  return byGst.get(name);
}
