/**
 * The `axl` command tree: every subcommand, by name. Tasks, the compiled binary and
 * the shell all dispatch through it.
 *
 * @module
 */
import type { Command } from "./command.ts";
import { capsCommand as caps } from "./commands/caps.ts";
import { command as doctor } from "./commands/doctor.ts";
import { command as heaps } from "./commands/heaps.ts";
import { command as info } from "./commands/info.ts";
import { command as ls } from "./commands/ls.ts";
import { command as reset } from "./commands/reset.ts";
import { command as run } from "./commands/run.ts";
import { command as shell } from "./commands/shell.ts";
import { command as verify } from "./commands/verify.ts";

/** All commands, in the order `axl --help` lists them. */
export const COMMANDS: readonly Command[] = [
  verify,
  run,
  shell,
  doctor,
  reset,
  info,
  ls,
  heaps,
  caps,
];

/** Looks a command up by name. */
export function findCommand(name: string): Command | undefined {
  return COMMANDS.find((c) => c.name === name);
}
