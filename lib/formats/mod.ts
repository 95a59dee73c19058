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
export * from "./fourcc.ts";
export * from "./table.ts";
export * from "./modifier.ts";
export * from "./layout.ts";
export * from "./v4l2.ts";
export * from "./gst.ts";
