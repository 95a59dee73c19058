/**
 * Exit codes of the shell and its commands; the same values as the `axl` CLI's
 * (`tasks/command.ts`), repeated here so the library does not depend on the CLI.
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
  /** Everything ran and passed. */
  Ok: 0,
  /** An operation or check failed. */
  Fail: 1,
  /** Inconclusive or skipped. */
  Inconclusive: 2,
  /** Could not run: bad usage, no device, missing feature. */
  CannotRun: 3,
  /** Interrupted (Ctrl-C / SIGINT) in a script. */
  Interrupted: 130,
} as const;
