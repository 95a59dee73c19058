/**
 * `axl heaps`: the DMA heaps this kernel offers.
 *
 * @module
 */
import { type Command, ExitCode } from "../command.ts";
import { Heap, HEAP_DIR } from "../../lib/core/heap.ts";
import { parseOptions, printJson, runCommand } from "../_cli.ts";

/** The `heaps` command. */
export const command: Command = {
  name: "heaps",
  summary: "list the DMA heaps under /dev/dma_heap",
  help: `Usage: axl heaps [--json]

Lists the DMA-BUF heaps of this kernel (${HEAP_DIR}). The Jetson path needs
'linux,cma' (CONFIG_DMABUF_HEAPS_CMA) for camera frames and NPU results, and
'system' for everything else.

Exit codes: 0 at least one heap, 1 none (CONFIG_DMABUF_HEAPS is off or udev
has not created the nodes).`,
  run(args: string[]): Promise<number> {
    return runCommand("heaps", () => {
      const { values } = parseOptions("heaps", args, { json: { type: "boolean", default: false } });
      const heaps = Heap.list();
      if (values.json) printJson({ dir: HEAP_DIR, heaps });
      else if (heaps.length) console.log(heaps.join("\n"));
      else console.error(`no DMA heaps: ${HEAP_DIR} is missing or empty (CONFIG_DMABUF_HEAPS)`);
      return heaps.length ? ExitCode.Ok : ExitCode.Fail;
    });
  },
};
