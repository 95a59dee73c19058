/**
 * The shape every `axl` subcommand has. One file per command under
 * `tasks/commands/`, registered by name in `tasks/registry.ts`.
 *
 * @module
 */

/** Exit codes shared by every command. */
export const ExitCode = {
  /** The command did its job (for verify: every invariant passed). */
  Ok: 0,
  /** The command ran and found a failure (for verify: an invariant failed). */
  Fail: 1,
  /** The result is inconclusive or a check was skipped. */
  Inconclusive: 2,
  /** The command could not run: bad usage, missing device or permission. */
  CannotRun: 3,
} as const;

/** One of {@linkcode ExitCode}'s values. */
export type ExitCode = typeof ExitCode[keyof typeof ExitCode];

/** A subcommand of the `axl` CLI. */
export interface Command {
  /** Name typed on the command line, e.g. `verify`. */
  readonly name: string;
  /** One line for the command list. */
  readonly summary: string;
  /** Full `--help` text: usage, options, exit codes. */
  readonly help: string;
  /** Runs the command with the arguments after its name; resolves to the exit code. */
  run(args: string[]): Promise<number>;
}
