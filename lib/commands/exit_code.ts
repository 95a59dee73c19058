/**
 * The exit codes of every `axl` command, CLI and shell alike, and the one rule that maps
 * an error to its code: the error's `exitKind` field (see {@linkcode ErrorKind}), never its
 * message.
 *
 * @module
 */
import type { ErrorKind } from "../core/errors.ts";

export type { ErrorKind };

/**
 * Exit codes: 0 ok, 1 a check or operation failed, 2 inconclusive or skipped, 3 could
 * not run (bad usage, no device, missing feature), 130 interrupted by Ctrl-C.
 *
 * @example
 * ```ts
 * import { ExitCode } from "./exit_code.ts";
 * console.log(ExitCode.CannotRun); // 3
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

/** The exit code of each kind of error. */
export const EXIT_CODE_OF_KIND: Readonly<Record<ErrorKind, ExitCode>> = {
  usage: ExitCode.CannotRun,
  "cannot-run": ExitCode.CannotRun,
  failed: ExitCode.Fail,
  interrupted: ExitCode.Interrupted,
};

function isKind(value: unknown): value is ErrorKind {
  return typeof value === "string" && Object.hasOwn(EXIT_CODE_OF_KIND, value);
}

/** Deno's file-system errors that mean something this machine lacks. */
function isMissing(err: object): boolean {
  return err instanceof Deno.errors.NotFound || err instanceof Deno.errors.PermissionDenied ||
    err instanceof Deno.errors.NotCapable;
}

/**
 * The kind of `err`: its `exitKind` field when it has one (every axl error class does);
 * for JavaScript's own errors, `usage` for a SyntaxError, TypeError or RangeError (input or
 * an argument wrong as written), `cannot-run` for Deno's NotFound, PermissionDenied and
 * NotCapable (a file or permission missing); `failed` for anything else.
 *
 * @example
 * ```ts
 * import { errorKind } from "./exit_code.ts";
 * console.log(errorKind(new RangeError("frames must be >= 1"))); // "usage"
 * console.log(errorKind(new Error("boom"))); // "failed"
 * console.log(errorKind(Object.assign(new Error("x"), { exitKind: "cannot-run" }))); // "cannot-run"
 * ```
 */
export function errorKind(err: unknown): ErrorKind {
  if (typeof err !== "object" || err === null) return "failed";
  const declared = (err as { exitKind?: unknown }).exitKind;
  if (isKind(declared)) return declared;
  if (err instanceof SyntaxError || err instanceof TypeError || err instanceof RangeError) {
    return "usage";
  }
  return isMissing(err) ? "cannot-run" : "failed";
}

/**
 * The exit code `err` stands for, by {@linkcode errorKind}: 3 for bad usage and what
 * cannot run here, 130 when interrupted, 1 for every other failure. The CLI, the shell
 * and verify all use it.
 *
 * @example
 * ```ts
 * import { exitCodeOf } from "./exit_code.ts";
 * console.log(exitCodeOf(new SyntaxError("x"))); // 3
 * console.log(exitCodeOf(new Error("x"))); // 1
 * ```
 */
export function exitCodeOf(err: unknown): ExitCode {
  return EXIT_CODE_OF_KIND[errorKind(err)];
}
