/**
 * The one error type of every parser in `lib/trace/` (ftrace text, per-CPU stats, bufinfo,
 * perf script, /proc maps). It always names the input and the 1-based line number.
 *
 * @module
 */

/** Where a parse error happened. */
export interface ParseErrorLocation {
  /** What was being parsed: a file path or a label such as `"trace"`. */
  source: string;
  /** 1-based line number in `source`. */
  line: number;
  /** The offending line (cut to 200 characters in the message). */
  text?: string;
}

/**
 * A line of kernel or perf output that the parser could not understand.
 *
 * @example
 * ```ts
 * import { ParseError } from "./parse_error.ts";
 * const err = new ParseError("no CPU column", { source: "trace", line: 7, text: "junk" });
 * console.log(err.line); // 7
 * console.log(err.message); // 'trace:7: no CPU column: "junk"'
 * ```
 */
export class ParseError extends Error {
  /** Exit status 1 (`failed`): the kernel's output could not be read. */
  readonly exitKind = "failed";
  /** What was being parsed. */
  readonly source: string;
  /** 1-based line number. */
  readonly line: number;
  /** The offending line, when there is one. */
  readonly text: string | undefined;

  /** Builds `"<source>:<line>: <reason>: <text>"`. */
  constructor(reason: string, where: ParseErrorLocation, options?: { cause?: unknown }) {
    const shown = where.text === undefined
      ? ""
      : `: ${
        JSON.stringify(where.text.length > 200 ? where.text.slice(0, 200) + "…" : where.text)
      }`;
    super(`${where.source}:${where.line}: ${reason}${shown}`, options);
    this.name = "ParseError";
    this.source = where.source;
    this.line = where.line;
    this.text = where.text;
  }
}
