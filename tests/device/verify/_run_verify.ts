/**
 * `axl verify` as the device tests run it: this checkout's CLI under the running Deno, its
 * output printed under a label, its result.json read back. A workload that is a Deno script
 * (a Metis client, the Voyager shape) comes after `--` from {@linkcode denoScript}.
 *
 * @module
 */
import type { VerifyResult } from "../../../lib/verify/schema.ts";

/** The axl CLI of this checkout. */
export const AXL_CLI = new URL("../../../tasks/axl.ts", import.meta.url).pathname;

/**
 * The argv of `deno run --no-check --allow-all [FLAGS] SCRIPT ARGS` under the running Deno.
 *
 * @example
 * ```ts
 * const client = denoScript("./verify/_nvmap_client.ts", ["24", "/dev/axl-metis-0000:00:01.0"]);
 * // [Deno.execPath(), "run", "--no-check", "--allow-all", "./verify/_nvmap_client.ts", "24", …]
 * ```
 */
export function denoScript(script: string, args: string[] = [], flags: string[] = []): string[] {
  return [Deno.execPath(), "run", "--no-check", "--allow-all", ...flags, script, ...args];
}

/** What {@linkcode runVerify} gives back. */
export interface VerifyRun {
  /** verify's exit status. */
  code: number;
  stdout: string;
  stderr: string;
  /** `DIR/result.json`. */
  result: VerifyResult;
}

/** Options of {@linkcode runVerify}. */
export interface VerifyRunOptions {
  /** The workload after `--` (absent: the builtin). */
  command?: string[];
  /** verify's working directory (default: the test's). */
  cwd?: string;
}

/**
 * Runs `axl verify ARGS --artifacts DIR [-- COMMAND]` with no stdin, prints its output as
 * `verify LABEL (exit N):` and reads `DIR/result.json` (a run that wrote none fails the test
 * there, with verify's output above it).
 *
 * @example
 * ```ts
 * const { code, result } = await runVerify("metis zero-copy", `${results}/verify-metis`, [
 *   "--device", node, "--importer", pci, "--evidence", "generic",
 * ]);
 * ```
 */
export async function runVerify(
  label: string,
  dir: string,
  args: string[],
  options: VerifyRunOptions = {},
): Promise<VerifyRun> {
  const [deno, ...argv] = denoScript(AXL_CLI, [
    "verify",
    ...args,
    "--artifacts",
    dir,
    ...(options.command ? ["--", ...options.command] : []),
  ]);
  const out = await new Deno.Command(deno!, {
    args: argv,
    cwd: options.cwd,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  console.log(`verify ${label} (exit ${out.code}):\n${stdout}${stderr}`);
  const result = JSON.parse(await Deno.readTextFile(`${dir}/result.json`)) as VerifyResult;
  return { code: out.code, stdout, stderr, result };
}
