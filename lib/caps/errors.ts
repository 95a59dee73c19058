/**
 * The error a malformed caps string, gst-inspect output or pipeline description
 * raises: a SyntaxError that carries the 1-based column (and line, for
 * multi-line input) where parsing stopped.
 *
 * @module
 */

/**
 * A syntax error with its position.
 *
 * @example
 * ```ts
 * import { CapsSyntaxError } from "./errors.ts";
 * import { parseCaps } from "./parse.ts";
 * import { ok, strictEqual } from "node:assert/strict";
 * try {
 *   parseCaps("video/x-raw, width=[1, 2");
 *   ok(false);
 * } catch (e) {
 *   ok(e instanceof CapsSyntaxError);
 *   strictEqual(e.column, 25);
 * }
 * ```
 */
export class CapsSyntaxError extends SyntaxError {
  /** Exit status 3 (`usage`): the caps are wrong as written. */
  readonly exitKind = "usage";
  /** 1-based column in the line where the problem is. */
  readonly column: number;
  /** 1-based line, for multi-line input (1 otherwise). */
  readonly line: number;
  /** The text that was being parsed. */
  readonly input: string;

  /** `column` and `line` are 1-based positions in `input`. */
  constructor(message: string, input: string, column: number, line = 1) {
    super(`${message} (line ${line}, column ${column})`);
    this.name = "CapsSyntaxError";
    this.column = column;
    this.line = line;
    this.input = input;
  }
}
