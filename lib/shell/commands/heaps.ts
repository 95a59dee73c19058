/**
 * `heaps` in the shell (lib/commands/heaps.ts); the value is the array of names.
 *
 * @module
 */
import { heapsSpec, listHeaps } from "../../commands/heaps.ts";
import type { ShellCommand } from "../command.ts";

/** The `heaps` command. */
export const command: ShellCommand = {
  ...heapsSpec,
  run() {
    const { heaps, text, code } = listHeaps();
    return Promise.resolve({ value: heaps, text, code });
  },
};
