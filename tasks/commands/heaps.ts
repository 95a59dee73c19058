/**
 * `axl heaps`: the DMA heaps this kernel offers (lib/commands/heaps.ts).
 *
 * @module
 */
import { cliCommand } from "../command.ts";
import { heapsSpec, listHeaps } from "../../lib/commands/heaps.ts";
import { HEAP_DIR } from "../../lib/core/heap.ts";
import { printJson } from "../_cli.ts";

/** The `heaps` command. */
export const command = cliCommand(heapsSpec, (args) => {
  const { heaps, text, code } = listHeaps();
  if (args.values.json) printJson({ dir: HEAP_DIR, heaps });
  else if (heaps.length) console.log(text);
  else console.error(text);
  return code;
});
