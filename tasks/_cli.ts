// Private helpers shared by the command files.
import { parseArgs } from "node:util";
import type { ParseArgsConfig } from "node:util";
import { AxlError } from "../lib/core/errors.ts";
import { ExitCode } from "./command.ts";

/** parseArgs with strict checking; usage errors become UsageError. */
export function parseOptions<T extends NonNullable<ParseArgsConfig["options"]>>(
  command: string,
  args: string[],
  options: T,
  allowPositionals = false,
): ReturnType<typeof parseArgs<{ options: T; allowPositionals: boolean; strict: true }>> {
  try {
    return parseArgs({ args, options, allowPositionals, strict: true });
  } catch (err) {
    throw new UsageError(`${command}: ${err instanceof Error ? err.message : err}`);
  }
}

/** Bad command-line usage (exit code 3). */
export class UsageError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * Runs a command body, turning errors into one readable line and an exit code:
 * usage errors and device errors (AxlError) exit 3 with their hint.
 */
export async function runCommand(
  name: string,
  body: () => Promise<number> | number,
): Promise<number> {
  try {
    return await body();
  } catch (err) {
    if (err instanceof UsageError) {
      console.error(`axl ${err.message}\nTry 'axl ${name} --help'.`);
    } else if (err instanceof AxlError) {
      console.error(`axl ${name}: ${err.message}`);
    } else if (err instanceof TypeError || err instanceof RangeError) {
      console.error(`axl ${name}: ${err.message}`);
    } else {
      throw err;
    }
    return ExitCode.CannotRun;
  }
}

/** Prints `value` as indented JSON (bigints as strings). */
export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, (_k, v) => typeof v === "bigint" ? v.toString() : v, 2));
}
