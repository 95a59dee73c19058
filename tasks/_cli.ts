// Private helpers shared by the command files.
import { CannotRunError, UsageError } from "../lib/commands/spec.ts";
import { errorKind, exitCodeOf } from "../lib/commands/exit_code.ts";

/** The line(s) the CLI prints for `err`, thrown by command `name`. */
function errorText(name: string, err: unknown): string {
  if (err instanceof UsageError) return `axl ${err.message}\nTry 'axl ${name} --help'.`;
  if (err instanceof CannotRunError) return `axl ${err.message}`;
  const message = err instanceof Error ? err.message : String(err);
  // An error of no known kind is a bug: show where it came from.
  if (errorKind(err) === "failed" && err instanceof Error && !("exitKind" in err)) {
    return `axl ${name}: ${err.stack ?? message}`;
  }
  return `axl ${name}: ${message}`;
}

/**
 * Runs a command body, turning an error into a readable message on stderr and the exit
 * code `exitCodeOf()` gives it (the shell uses the same rule): 3 for bad usage and what
 * cannot run here (each with its hint), 130 when interrupted, 1 for a failure; an error
 * of no known kind also prints its stack.
 */
export async function runCommand(
  name: string,
  body: () => Promise<number> | number,
): Promise<number> {
  try {
    return await body();
  } catch (err) {
    console.error(errorText(name, err));
    return exitCodeOf(err);
  }
}

/** Prints `value` as indented JSON (bigints as strings). */
export function printJson(value: unknown): void {
  console.log(JSON.stringify(value, (_k, v) => typeof v === "bigint" ? v.toString() : v, 2));
}
