/**
 * The shell's command tree: every command by name (from the static
 * {@linkcode SHELL_COMMAND_LIST}), and each command's module, loaded on first use.
 *
 * @module
 */
import type { ShellCommand } from "./command.ts";
import { SHELL_COMMAND_LIST, type ShellCommandEntry } from "./command_list.ts";

export { SHELL_COMMAND_LIST, type ShellCommandEntry };

// Commands whose module has been imported, by name (a module loads once per process).
const loaded = new Map<string, ShellCommand>();

/**
 * The entry of the command called `name` (or with that alias), without loading it.
 *
 * @example
 * ```ts
 * import { findShellCommand } from "./registry.ts";
 * console.log(findShellCommand("quit")?.name); // "exit"
 * ```
 */
export function findShellCommand(name: string): ShellCommandEntry | undefined {
  return SHELL_COMMAND_LIST.find((c) => c.name === name || c.aliases?.includes(name));
}

/**
 * Loads the command called `name` (or with that alias); undefined when there is none.
 *
 * @example
 * ```ts
 * import { loadShellCommand } from "./registry.ts";
 * console.log((await loadShellCommand("?"))?.name); // "help"
 * ```
 */
export async function loadShellCommand(name: string): Promise<ShellCommand | undefined> {
  const entry = findShellCommand(name);
  if (!entry) return undefined;
  const done = loaded.get(entry.name);
  if (done) return done;
  const command = await entry.load();
  loaded.set(entry.name, command);
  return command;
}

/**
 * Loads every command; resolves to them in the order `help` lists them.
 *
 * @example
 * ```ts
 * import { loadShellCommands } from "./registry.ts";
 * console.log((await loadShellCommands())[0]?.name); // "info"
 * ```
 */
export async function loadShellCommands(): Promise<ShellCommand[]> {
  const all: ShellCommand[] = [];
  for (const entry of SHELL_COMMAND_LIST) all.push((await loadShellCommand(entry.name))!);
  return all;
}

/**
 * The command called `name` if its module has been loaded already, else undefined
 * (completion, which must answer at once, uses it).
 *
 * @example
 * ```ts
 * import { loadedShellCommand, loadShellCommand } from "./registry.ts";
 * await loadShellCommand("sleep");
 * console.log(loadedShellCommand("sleep")?.name); // "sleep"
 * ```
 */
export function loadedShellCommand(name: string): ShellCommand | undefined {
  const entry = findShellCommand(name);
  return entry ? loaded.get(entry.name) : undefined;
}

/**
 * Every word that runs a command (names and aliases), sorted.
 *
 * @example
 * ```ts
 * import { commandWords } from "./registry.ts";
 * console.log(commandWords().includes("alloc")); // true
 * ```
 */
export function commandWords(): string[] {
  return SHELL_COMMAND_LIST.flatMap((c) => [c.name, ...(c.aliases ?? [])]).sort();
}
