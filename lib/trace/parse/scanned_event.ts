/**
 * What a fold reads of an event that `scanFtrace()` scanned in place (its `onEvent` option):
 * the name, the time, the pid and fields by key, without a record or a string per value. The
 * scanner behind it is private (`_ftrace_scan.ts`).
 *
 * @module
 */

/**
 * An event read in place by the scanner; valid only during the `onEvent` call that gets it.
 *
 * @example
 * ```ts
 * import { scanFtrace } from "./ftrace.ts";
 * import type { ScannedEvent } from "./scanned_event.ts";
 * let seqno = NaN;
 * await scanFtrace(["  x-1 [000] ..... 1.000000: axl_job_submit: context=2 seqno=9\n"], () => {}, {
 *   onEvent: (e: ScannedEvent) => {
 *     if (e.name === "axl_job_submit") seqno = e.int("seqno");
 *     return true;
 *   },
 * });
 * console.log(seqno); // 9
 * ```
 */
export interface ScannedEvent {
  /** Event name, e.g. `dma_fence_signaled`. */
  readonly name: string;
  /** Timestamp in ns; NaN when the line has no time column. */
  readonly ts: number;
  /** Pid when printed, else NaN. */
  readonly pid: number;
  /** Whether field `key` is present. */
  has(key: string): boolean;
  /** The value of field `key` as the parser's `fields` object holds it, or undefined. */
  field(key: string): string | undefined;
  /** Field `key` as {@linkcode fieldInt} reads it; NaN when absent. */
  int(key: string): number;
}

/**
 * A field value as an integer, as verify reads them: `0x…` (any case) as hex, else `Number()`.
 *
 * @example
 * ```ts
 * import { fieldInt } from "./scanned_event.ts";
 * console.log(fieldInt("0xff")); // 255
 * console.log(fieldInt("12")); // 12
 * console.log(fieldInt("x")); // NaN
 * ```
 */
export function fieldInt(v: string): number {
  return v.length > 1 && v.charCodeAt(0) === 48 && (v.charCodeAt(1) | 32) === 120
    ? parseInt(v, 16)
    : Number(v);
}
