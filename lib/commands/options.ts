/**
 * Options several commands declare alike, and the readers that check their values.
 *
 * @module
 */
import type { WorkloadMode } from "../frames/workload.ts";
import { type OptionSpec, type ParsedArgs, stringOption, UsageError } from "./spec.ts";

/**
 * `-n, --frames N` with its default.
 *
 * @example
 * ```ts
 * import { framesOption } from "./options.ts";
 * console.log(framesOption("frames", "30").default); // "30"
 * ```
 */
export function framesOption(description: string, fallback?: string): OptionSpec {
  return {
    type: "string",
    short: "n",
    kind: "number",
    arg: "N",
    description,
    ...(fallback !== undefined ? { default: fallback } : {}),
  };
}

/**
 * `--mode zero-copy|copy`, zero-copy by default.
 *
 * @example
 * ```ts
 * import { modeSpec } from "./options.ts";
 * console.log(modeSpec("the mode").choices?.length); // 2
 * ```
 */
export function modeSpec(description: string): OptionSpec {
  return {
    type: "string",
    kind: "choice",
    choices: ["zero-copy", "copy"],
    description,
    default: "zero-copy",
  };
}

/** `--device PATH` on the command line (the shell has its session's device). */
export const DEVICE_OPTION: OptionSpec = {
  type: "string",
  kind: "path",
  arg: "PATH",
  description: "NPU device node (default: $AXL_DEVICE or /dev/axl)",
  only: "cli",
};

/**
 * A whole number option `>= min` (decimal or 0x hex); UsageError names the command and
 * option.
 *
 * @example
 * ```ts
 * import { intOption } from "./options.ts";
 * console.log(intOption("run", "frames", "30", 1)); // 30
 * ```
 */
export function intOption(command: string, name: string, text: string, min: number): number {
  const t = text.trim();
  const n = /^0x[0-9a-f]+$/i.test(t) ? parseInt(t, 16) : t === "" ? NaN : Number(t);
  if (!Number.isSafeInteger(n) || n < min) {
    throw new UsageError(`${command}: --${name} must be an integer >= ${min}, got '${text}'`);
  }
  return n;
}

/**
 * `--mode`, checked.
 *
 * @example
 * ```ts
 * import { modeOption } from "./options.ts";
 * console.log(modeOption("run", { values: { mode: "copy" }, positionals: [] })); // "copy"
 * ```
 */
export function modeOption(command: string, args: ParsedArgs): WorkloadMode {
  const mode = stringOption(args, "mode") ?? "zero-copy";
  if (mode !== "zero-copy" && mode !== "copy") {
    throw new UsageError(`${command}: --mode must be zero-copy or copy, got '${mode}'`);
  }
  return mode;
}

/** A frame size, `--size WxH`. */
export interface FrameSize {
  /** Pixels per line. */
  width: number;
  /** Lines. */
  height: number;
}

/**
 * `--size WxH`, checked: both even (NV12 subsamples chroma 2×2) and within 16..8192.
 *
 * @example
 * ```ts
 * import { sizeOption } from "./options.ts";
 * console.log(sizeOption("verify", "1920x1080").height); // 1080
 * ```
 */
export function sizeOption(command: string, text: string): FrameSize {
  const m = /^(\d+)x(\d+)$/i.exec(text.trim());
  const [width, height] = m ? [Number(m[1]), Number(m[2])] : [NaN, NaN];
  const ok = (n: number) => n >= 16 && n <= 8192 && n % 2 === 0;
  if (!ok(width) || !ok(height)) {
    throw new UsageError(
      `${command}: --size must be WIDTHxHEIGHT, even, 16..8192 each (e.g. 1920x1080), got '${text}'`,
    );
  }
  return { width, height };
}
