/**
 * The device shell: a REPL that takes commands and JavaScript (top-level await, the
 * axl modules in scope), binds command results to `$1`, `$2`, … or a name, completes
 * commands, options, heaps, handles and paths, keeps history, and runs session files
 * non-interactively with meaningful exit codes.
 *
 * @example Run a session file
 * ```ts ignore
 * import { Session, Shell, runScript } from "./mod.ts";
 * const session = new Session();
 * const shell = new Shell(session, { out: console.log, err: console.error });
 * const { code } = await runScript(shell, ["heaps", "$1.length"]);
 * ```
 *
 * @module
 */
export { Evaluator } from "./evaluator.ts";
export type { Scope } from "./evaluator.ts";
export { Session } from "./session.ts";
export type { ObjectKind, SessionOptions, Tracked } from "./session.ts";
export { classify, needsMore, Shell } from "./shell.ts";
export type { InputResult, ShellOptions, ShellOutput } from "./shell.ts";
export { runScript } from "./script.ts";
export type { ScriptOptions, ScriptSummary } from "./script.ts";
export { runRepl } from "./repl.ts";
export type { ReplOptions } from "./repl.ts";
export { complete } from "./completer.ts";
export { historyPath } from "./history.ts";
export {
  findShellCommand,
  loadedShellCommand,
  loadShellCommand,
  loadShellCommands,
  SHELL_COMMAND_LIST,
} from "./registry.ts";
export type { ShellCommandEntry } from "./registry.ts";
export { installModules } from "./modules.ts";
export { ExitCode, exitCodeOf } from "../commands/exit_code.ts";
