/**
 * `heaps`: the DMA heaps this kernel offers.
 *
 * @module
 */
import { Heap, HEAP_DIR } from "../../core/heap.ts";
import type { ShellCommand } from "../command.ts";
import { ExitCode } from "../exit_code.ts";

/** The `heaps` command. */
export const command: ShellCommand = {
  name: "heaps",
  summary: `list the DMA heaps under ${HEAP_DIR}`,
  positionals: [],
  options: {},
  details: "The Jetson path needs 'linux,cma' for camera frames and NPU results; 'system'\n" +
    "serves everything else (and the VM rig). The value is the array of names.",
  run() {
    const heaps = Heap.list();
    if (!heaps.length) {
      return Promise.resolve({
        value: heaps,
        text: `no DMA heaps: ${HEAP_DIR} is missing or empty (CONFIG_DMABUF_HEAPS)`,
        code: ExitCode.Fail,
      });
    }
    return Promise.resolve({ value: heaps, text: heaps.join("\n") });
  },
};
