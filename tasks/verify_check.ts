/**
 * Checks `axl verify` options the way the command does and runs nothing: exit 0 when
 * they are good, else the command's own message and exit code (3). `scripts/verify.sh`
 * runs it on the host before it installs packages, builds the shim or boots the VM rig,
 * so that a mistyped option is refused in a second, not after the guest has booted.
 *
 * ```sh
 * deno run --allow-read --allow-env tasks/verify_check.ts --frames abc
 * ```
 *
 * @module
 */
import { parseCommandArgs } from "../lib/commands/spec.ts";
import { verifyPlan, verifySpec } from "../lib/commands/verify.ts";
import { runCommand } from "./_cli.ts";

/**
 * Parses and checks `args` (the words after `axl verify`) with verify's declaration and
 * the checks its body makes first; resolves to 0, or prints the error `axl verify`
 * prints and resolves to its exit code.
 *
 * @example
 * ```ts
 * import { checkVerifyArgs } from "./verify_check.ts";
 * console.log(await checkVerifyArgs(["--frames", "30"])); // 0
 * ```
 */
export async function checkVerifyArgs(args: string[]): Promise<number> {
  return await runCommand("verify", () => {
    verifyPlan(parseCommandArgs(verifySpec, args, "cli"));
    return 0;
  });
}

if (import.meta.main) Deno.exit(await checkVerifyArgs(Deno.args));
