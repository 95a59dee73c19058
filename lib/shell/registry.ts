/**
 * The shell's command tree: every command by name, in the order `help` lists them.
 *
 * @module
 */
import { type ShellCommand } from "./command.ts";
import { command as alloc } from "./commands/alloc.ts";
import { command as caps } from "./commands/caps.ts";
import { command as doctor } from "./commands/doctor.ts";
import { command as exit } from "./commands/exit.ts";
import { command as heaps } from "./commands/heaps.ts";
import { command as help } from "./commands/help.ts";
import { command as importCmd } from "./commands/import.ts";
import { command as info } from "./commands/info.ts";
import { command as ls } from "./commands/ls.ts";
import { command as objects } from "./commands/objects.ts";
import { command as produce } from "./commands/produce.ts";
import { command as release } from "./commands/release.ts";
import { command as run } from "./commands/run.ts";
import { command as sleep } from "./commands/sleep.ts";
import { command as submit } from "./commands/submit.ts";
import { command as transfer } from "./commands/transfer.ts";
import { command as trace } from "./commands/trace.ts";
import { command as vars } from "./commands/vars.ts";
import { command as verify } from "./commands/verify.ts";
import { command as wait } from "./commands/wait.ts";

/** All shell commands, in the order `help` lists them. */
export const SHELL_COMMANDS: readonly ShellCommand[] = [
  info,
  doctor,
  heaps,
  alloc,
  ls,
  importCmd,
  submit,
  transfer,
  wait,
  release,
  produce,
  run,
  trace,
  verify,
  caps,
  objects,
  vars,
  sleep,
  help,
  exit,
];

/**
 * The command called `name` (or with that alias).
 *
 * @example
 * ```ts
 * import { findShellCommand } from "./registry.ts";
 * if (findShellCommand("quit")?.name !== "exit") throw new Error("unexpected");
 * ```
 */
export function findShellCommand(name: string): ShellCommand | undefined {
  return SHELL_COMMANDS.find((c) => c.name === name || c.aliases?.includes(name));
}

/**
 * Every word that runs a command (names and aliases), sorted.
 *
 * @example
 * ```ts
 * import { commandWords } from "./registry.ts";
 * if (!commandWords().includes("alloc")) throw new Error("unexpected");
 * ```
 */
export function commandWords(): string[] {
  return SHELL_COMMANDS.flatMap((c) => [c.name, ...(c.aliases ?? [])]).sort();
}
