/**
 * `heaps`: the DMA heaps this kernel offers.
 *
 * @module
 */
import { Heap, HEAP_DIR } from "../core/heap.ts";
import { ExitCode } from "./exit_code.ts";
import type { CommandSpec } from "./spec.ts";

/** The declaration of `heaps`. */
export const heapsSpec: CommandSpec = {
  name: "heaps",
  summary: `list the DMA heaps under ${HEAP_DIR}`,
  positionals: [],
  options: { json: { type: "boolean", description: "print {dir, heaps} as JSON", only: "cli" } },
  details: "The Jetson path needs 'linux,cma' for camera frames and NPU results; 'system'\n" +
    "serves everything else (and the VM rig). The value is the array of names.",
  cli: {
    details: `Lists the DMA-BUF heaps of this kernel (${HEAP_DIR}). The Jetson path needs
'linux,cma' (CONFIG_DMABUF_HEAPS_CMA) for camera frames and NPU results, and
'system' for everything else.`,
    exits: [
      [ExitCode.Ok, "at least one heap"],
      [ExitCode.Fail, "none (CONFIG_DMABUF_HEAPS is off or udev has not created the nodes)"],
    ],
  },
};

/** The heaps found, the text to show and the exit code. */
export interface HeapsOutcome {
  /** Heap names. */
  heaps: string[];
  /** The names one per line, or why there are none. */
  text: string;
  /** Ok with at least one heap, else Fail. */
  code: number;
}

/**
 * Lists the heaps.
 *
 * @example
 * ```ts
 * import { listHeaps } from "./heaps.ts";
 * const { heaps, code } = listHeaps();
 * console.log(code, heaps); // 0 and the heaps, or 3 and none where /dev/dma_heap is missing
 * ```
 */
export function listHeaps(): HeapsOutcome {
  const heaps = Heap.list();
  if (heaps.length) return { heaps, text: heaps.join("\n"), code: ExitCode.Ok };
  return {
    heaps,
    text: `no DMA heaps: ${HEAP_DIR} is missing or empty (CONFIG_DMABUF_HEAPS)`,
    code: ExitCode.Fail,
  };
}
