/**
 * The exit codes of every `axl` command, CLI and shell alike.
 *
 * @module
 */

/**
 * Exit codes: 0 ok, 1 a check or operation failed, 2 inconclusive or skipped, 3 could
 * not run (bad usage, no device, missing feature), 130 interrupted by Ctrl-C.
 *
 * @example
 * ```ts
 * import { ExitCode } from "./exit_code.ts";
 * if (ExitCode.CannotRun !== 3) throw new Error("unexpected");
 * ```
 */
export const ExitCode = {
  /** The command did its job (for verify: every invariant passed). */
  Ok: 0,
  /** The command ran and found a failure (for verify: an invariant failed). */
  Fail: 1,
  /** The result is inconclusive or a check was skipped. */
  Inconclusive: 2,
  /** The command could not run: bad usage, missing device, permission or feature. */
  CannotRun: 3,
  /** Interrupted (Ctrl-C / SIGINT). */
  Interrupted: 130,
} as const;

/** One of {@linkcode ExitCode}'s values. */
export type ExitCode = typeof ExitCode[keyof typeof ExitCode];
