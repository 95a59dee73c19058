/**
 * The NVMM (NvBufSurface) handle contract: a frozen, validated description of
 * a device-memory frame (pointer, width, height, pitch, colour format, size,
 * batch size) with the plane arithmetic consumers rely on. Use
 * {@linkcode parseNvmmHandle} wherever NvBufSurface metadata enters the program.
 *
 * @example
 * ```ts
 * import { nvmmPlanes, parseNvmmHandle } from "./mod.ts";
 * import { strictEqual } from "node:assert/strict";
 * const h = parseNvmmHandle({ gpu_ptr: "0x1000", width: 1920, height: 1080, pitch: 2048,
 *   color_format: "NV12", size: 2048 * 1620, batch_size: 1 });
 * strictEqual(nvmmPlanes(h)[1]!.offset, 2048 * 1080);
 * ```
 *
 * @module
 */
export * from "./color_format.ts";
export * from "./handle.ts";
