/**
 * The DMA-BUF heaps the reconciler knows, by their /dev/dma_heap names.
 *
 * `system` hands out pages from anywhere (scatter-gather); the CMA heap hands
 * out physically contiguous ranges and is named after its CMA area: `linux,cma`
 * on device-tree systems such as Jetson, `reserved` for the default area on
 * x86. CMA is small (256 MiB on the reference device), so it is only chosen
 * when an accessor needs contiguity.
 *
 * @module
 */

import type { HeapInfo } from "./types.ts";

/** Default heap table, in order of preference when nothing else decides. */
export const DEFAULT_HEAPS: readonly HeapInfo[] = Object.freeze([
  Object.freeze({
    name: "system",
    contiguous: false,
    cpuMappable: true,
    description: "system heap: pages from anywhere, scatter-gather",
  }),
  Object.freeze({
    name: "linux,cma",
    contiguous: true,
    cpuMappable: true,
    description: "CMA heap (device-tree CMA area): physically contiguous",
  }),
  Object.freeze({
    name: "reserved",
    contiguous: true,
    cpuMappable: true,
    description: "CMA heap (default CMA area): physically contiguous",
  }),
]);

/**
 * The names the kernel gives the CMA heap, in order of preference: it is named
 * after its CMA area, `linux,cma` for a device tree's reserved-memory node (the
 * Jetson, the arm64 VM rig), `reserved` for the area made from `cma=` or
 * `CONFIG_CMA_SIZE_MBYTES`.
 */
export const CMA_HEAP_NAMES: readonly string[] = Object.freeze(["linux,cma", "reserved"]);

/**
 * The CMA heap among `heaps` (names under /dev/dma_heap), or undefined when
 * there is none.
 *
 * @example
 * ```ts
 * import { cmaHeapName } from "./heaps.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(cmaHeapName(["reserved", "system"]), "reserved");
 * strictEqual(cmaHeapName(["system"]), undefined);
 * ```
 */
export function cmaHeapName(heaps: readonly string[]): string | undefined {
  return CMA_HEAP_NAMES.find((name) => heaps.includes(name));
}

/**
 * Lists the heaps present on this machine (the entries of /dev/dma_heap), or
 * an empty list when the directory does not exist.
 *
 * @example
 * ```ts ignore
 * import { availableHeaps } from "./heaps.ts";
 * console.log(await availableHeaps()); // e.g. ["system"]
 * ```
 */
export async function availableHeaps(dir = "/dev/dma_heap"): Promise<string[]> {
  const out: string[] = [];
  try {
    for await (const e of Deno.readDir(dir)) out.push(e.name);
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return [];
    throw e;
  }
  return out.sort();
}
