/**
 * Pixel formats: DRM fourcc codes and names, format modifiers (LINEAR, INVALID,
 * vendor fields, NVIDIA block-linear), per-plane layout with stride and height
 * padding, and the V4L2 and GStreamer names of the same formats.
 *
 * @example Lay out an NV12 frame and name it everywhere
 * ```ts
 * import { drmToGst, drmToV4l2, planeLayout } from "./mod.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(planeLayout("NV12", 1920, 1080, { heightAlign: 16 }).size, 3133440);
 * strictEqual(drmToGst("NV12"), "NV12");
 * strictEqual(drmToV4l2("R8")?.name, "GREY");
 * ```
 *
 * @module
 */

export { FOURCC_BIG_ENDIAN, fourccCode, fourccString } from "./fourcc.ts";
export {
  findFormat,
  type FormatInfo,
  formatInfo,
  FORMATS,
  type PlaneInfo,
  type V4l2Format,
} from "./table.ts";
export {
  canonicalModifier,
  decodeNvidiaBlockLinear,
  describeModifier,
  formatModifier,
  MOD_INVALID,
  MOD_LINEAR,
  modifierCode,
  type ModifierDescription,
  ModifierVendor,
  modifierVendor,
  NAMED_MODIFIERS,
  nvidia16Bx2Block,
  type NvidiaBlockLinear,
  nvidiaBlockLinear,
  parseModifier,
} from "./modifier.ts";
export {
  alignUp,
  checkLayout,
  type FrameLayout,
  type LayoutOptions,
  type PlaneDescriptor,
  type PlaneLayout,
  planeLayout,
} from "./layout.ts";
export { drmToV4l2, lookupV4l2, v4l2ToDrm } from "./v4l2.ts";
export { drmToGst, gstToDrm } from "./gst.ts";
