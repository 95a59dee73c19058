/**
 * The shape of a shell command (one file per command under `lib/shell/commands/`,
 * registered in `lib/shell/registry.ts`): a declared {@linkcode CommandSpec} — the one
 * description that drives parsing, `help` and Tab completion — and how it runs in a
 * session.
 *
 * @module
 */
import type { CommandSpec, ParsedArgs } from "../commands/spec.ts";
import type { Session } from "./session.ts";

/** What a command hands back to the shell. */
export interface CommandOutcome {
  /** The result, bound to `$N` (and a name) unless undefined. */
  value?: unknown;
  /** Text for humans; default: the shell renders `value`. */
  text?: string;
  /** Exit code of the command (`ExitCode`); default 0. */
  code?: number;
  /** Ends the shell with this exit code after the outcome is shown. */
  exit?: number;
}

/** What a running command gets from the shell. */
export interface CommandContext {
  /** The session: scope, device, tracked objects. */
  readonly session: Session;
  /** Aborted when the user presses Ctrl-C; long commands must stop on it. */
  readonly signal: AbortSignal;
  /** Prints progress or notes (not part of the result; stderr in --json mode). */
  note(text: string): void;
}

/** A command of the device shell: its declaration and how it runs in a session. */
export interface ShellCommand extends CommandSpec {
  /** Runs the command. Errors propagate; the shell reports them in one line. */
  run(ctx: CommandContext, args: ParsedArgs): Promise<CommandOutcome>;
}
