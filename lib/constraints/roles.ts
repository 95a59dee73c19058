/**
 * Default constraints for the roles on the zero-copy path, from the "which heap
 * when" table of the design and the measured facts about the VM rig
 * (docs/design.md#which-heap-when):
 *
 * | role            | Jetson                                       | VM rig                          |
 * | --------------- | -------------------------------------------- | ------------------------------- |
 * | camera / ISP    | physically contiguous → `linux,cma`          | vivid (dma-contig) behind the emulated IOMMU, ≤ 1 MiB |
 * | NPU input       | Metis reads through the SMMU                 | metis-sim on `edu` behind intel-iommu |
 * | NPU result      | contiguous unless the SMMU does scatter-gather → `linux,cma` | same IOMMU: `system` is fine |
 * | telemetry       | CPU only, no DMA constraint → `system`       | same                            |
 *
 * Pitch and height alignment of NvBufSurface frames are reported by the
 * exporter and are not modelled here.
 *
 * @module
 */

import { MOD_LINEAR } from "../formats/modifier.ts";
import type { AccessorConstraints } from "./types.ts";

/** Role names with defaults. */
export type Role = "camera-isp" | "npu-input" | "npu-result" | "telemetry" | "cpu-reader";

/** Platform facts the defaults depend on. */
export interface RoleOptions {
  /**
   * The NPU's DMA goes through an SMMU/IOMMU that maps scatter-gather lists
   * (default false on the Jetson, as the design assumes; true in the VM rig).
   */
  npuScatterGather?: boolean;
  /**
   * The CMA heap's name on this machine (default `linux,cma`, the Jetson's;
   * `reserved` where the CMA area comes from `cma=`).
   */
  cmaHeap?: string;
}

/**
 * Jetson defaults per role.
 *
 * @example
 * ```ts
 * import { jetsonRoles } from "./roles.ts";
 * import { reconcile } from "./reconcile.ts";
 * import { strictEqual } from "node:assert/strict";
 * const r = jetsonRoles();
 * const result = reconcile([r["npu-result"], r["cpu-reader"]], { kind: "raw", size: 65536 });
 * strictEqual(result.ok && result.heap, "linux,cma");
 * ```
 */
export function jetsonRoles(
  options: RoleOptions = {},
): Readonly<Record<Role, AccessorConstraints>> {
  const sg = options.npuScatterGather ?? false;
  return Object.freeze({
    "camera-isp": Object.freeze({
      name: "camera-isp",
      // NVMM buffers from the ISP are physically contiguous (ISP descriptors need it).
      contiguity: "physical",
      heaps: Object.freeze([options.cmaHeap ?? "linux,cma"]),
      deviceAccess: "write",
      cpuAccess: "none",
      alignment: 4096,
      formats: Object.freeze(["NV12"]),
      modifiers: Object.freeze([MOD_LINEAR]),
    }),
    "npu-input": Object.freeze({
      name: "npu-input",
      contiguity: "dma",
      iommu: sg,
      deviceAccess: "read",
      cpuAccess: "none",
      alignment: 4096,
    }),
    "npu-result": Object.freeze({
      name: "npu-result",
      contiguity: "dma",
      iommu: sg,
      deviceAccess: "write",
      cpuAccess: "none",
      alignment: 4096,
    }),
    telemetry: Object.freeze({
      name: "telemetry",
      contiguity: "none",
      heaps: Object.freeze(["system"]),
      cpuAccess: "readwrite",
      deviceAccess: "none",
    }),
    "cpu-reader": Object.freeze({
      name: "cpu-reader",
      contiguity: "none",
      cpuAccess: "read",
      deviceAccess: "none",
    }),
  });
}

/**
 * VM-rig defaults: vivid with `allocators=1` (dma-contig) and metis-sim on the
 * `edu` device both sit behind the emulated intel-iommu, so scatter-gather
 * `system` heap buffers work; vivid only attached ones of at most 1 MiB
 * (measured: docs/design.md#other-facts), and the VM has no CMA heap.
 *
 * @example
 * ```ts
 * import { vmRoles } from "./roles.ts";
 * import { reconcile } from "./reconcile.ts";
 * import { strictEqual } from "node:assert/strict";
 * const r = vmRoles();
 * const result = reconcile([r["camera-isp"], r["npu-input"]],
 *   { kind: "image", format: "NV12", width: 640, height: 480 }, { availableHeaps: ["system"] });
 * strictEqual(result.ok && result.heap, "system");
 * ```
 */
export function vmRoles(): Readonly<Record<Role, AccessorConstraints>> {
  const jetson = jetsonRoles({ npuScatterGather: true });
  return Object.freeze({
    ...jetson,
    "camera-isp": Object.freeze({
      name: "camera-isp",
      contiguity: "dma",
      iommu: true,
      deviceAccess: "write",
      cpuAccess: "none",
      alignment: 4096,
      maxSize: 1 << 20,
      formats: Object.freeze(["NV12", "YUYV", "R8"]),
      modifiers: Object.freeze([MOD_LINEAR]),
    }),
  });
}
