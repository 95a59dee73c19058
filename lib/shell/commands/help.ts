/**
 * `help [COMMAND]`: the command list, or one command's usage and options.
 *
 * @module
 */
import { type ShellCommand } from "../command.ts";
import { UsageError } from "../../commands/spec.ts";
import { commandHelp } from "../../commands/help.ts";
import { loadShellCommand, SHELL_COMMAND_LIST } from "../registry.ts";

const GENERAL = `Lines are commands or JavaScript. A line whose first word is a command runs it;
anything else is JavaScript with top-level await and the axl modules in scope (Device,
Heap, DmaBuf, Fence, frameLayout, referenceResult, HeapProducer, runWorkload, ...;
'dev' is the session's device, 'session' the session). Wrap a line in parentheses
to force JavaScript: (info).

Command results are bound to $1, $2, ...; 'NAME = command ...' also binds NAME, so
commands and code mix: 'frame = alloc NV12 640x480 --fill pattern', then
'frame.inode' or 'import frame'. Arguments that take an object accept a variable
($3, frame) or a session object number (#2); left out, the newest one is used.
Ctrl-C cancels the running command; Ctrl-D or 'exit' releases everything the session
created and leaves.`;

/** The `help` command. */
export const command: ShellCommand = {
  name: "help",
  aliases: ["?"],
  summary: "list the commands, or show one command's usage and options",
  positionals: [{ name: "COMMAND", kind: "command", optional: true }],
  options: {},
  details: "",
  async run(_ctx, args) {
    const name = args.positionals[0];
    if (name !== undefined) {
      const cmd = await loadShellCommand(name);
      if (!cmd) throw new UsageError(`help: no command '${name}' (type 'help' for the list)`);
      return { text: commandHelp(cmd, "shell") };
    }
    const width = Math.max(...SHELL_COMMAND_LIST.map((c) => c.name.length));
    const list = SHELL_COMMAND_LIST.map((c) => `  ${c.name.padEnd(width)}  ${c.summary}`);
    return {
      text: ["Commands:", ...list, "", GENERAL, "", "help COMMAND shows its options."].join("\n"),
    };
  },
};
