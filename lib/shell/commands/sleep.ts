/**
 * `sleep MS`: waits, for scripts that give hardware time; Ctrl-C cancels it.
 *
 * @module
 */
import { sleep } from "../abortable.ts";
import { parseCount } from "../args.ts";
import { type ShellCommand } from "../command.ts";
import { UsageError } from "../../commands/spec.ts";

/** The `sleep` command. */
export const command: ShellCommand = {
  name: "sleep",
  summary: "wait MS milliseconds (Ctrl-C cancels)",
  positionals: [{ name: "MS", kind: "number" }],
  options: {},
  details: "",
  async run(ctx, args) {
    const word = args.positionals[0];
    if (word === undefined || args.positionals.length > 1) {
      throw new UsageError("sleep: expected one argument, the milliseconds to wait");
    }
    await sleep(parseCount(word, "sleep: MS"), ctx.signal);
    return {};
  },
};
