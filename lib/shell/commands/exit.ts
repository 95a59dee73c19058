/**
 * `exit [CODE]`: releases everything the session created and leaves the shell.
 *
 * @module
 */
import { parseCount } from "../args.ts";
import { type ShellCommand } from "../command.ts";

/** The `exit` command. */
export const command: ShellCommand = {
  name: "exit",
  aliases: ["quit"],
  summary: "release everything the session created and leave (Ctrl-D does the same)",
  positionals: [{ name: "CODE", kind: "number", optional: true }],
  options: {},
  details: "Without CODE a script exits with its own status (0, or the first failure's).",
  run(_ctx, args) {
    const word = args.positionals[0];
    return Promise.resolve({ exit: word === undefined ? -1 : parseCount(word, "exit: CODE") });
  },
};
