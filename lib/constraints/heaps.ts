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
