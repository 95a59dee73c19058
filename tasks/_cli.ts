// Private helpers shared by the command files.
import { AxlError } from "../lib/core/errors.ts";
import { ExitCode } from "../lib/commands/exit_code.ts";
import { CannotRunError, UsageError } from "../lib/commands/spec.ts";

/**
 * Runs a command body, turning errors into one readable line and an exit code:
 * usage errors, what cannot run here and device errors (AxlError) exit 3 with their hint.
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
    } else if (err instanceof CannotRunError) {
      console.error(`axl ${err.message}`);
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
