/**
 * Buffer constraint reconciliation: each accessor of a shared buffer (camera/ISP,
 * NPU, CPU, …) states what it needs (contiguity, power-of-two alignment, CPU and
 * device access, acceptable heaps, image format, modifier, stride and height
 * alignment); {@linkcode reconcile} merges them into one allocation (heap,
 * alignment, size, layout) or a list of conflicts naming who disagrees on what.
 *
 * @example The heap allocation helper's call
 * ```ts
 * import { jetsonRoles, reconcile } from "./mod.ts";
 * import { strictEqual } from "node:assert/strict";
 * const roles = jetsonRoles();
 * const frame = reconcile([roles["camera-isp"], roles["npu-input"]],
 *   { kind: "image", format: "NV12", width: 1920, height: 1080 });
 * strictEqual(frame.ok && frame.heap, "linux,cma");
 * strictEqual(frame.ok && frame.allocSize, 3112960);
 * ```
 *
 * @module
 */
export * from "./types.ts";
export * from "./heaps.ts";
export * from "./reconcile.ts";
export * from "./roles.ts";
export * from "./allocate.ts";
