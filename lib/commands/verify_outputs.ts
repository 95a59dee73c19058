/**
 * Where `verify --junit FILE` and `--metrics FILE` put a verdict: JUnit XML for CI test
 * reporters and the Prometheus text format for node_exporter's textfile collector.
 *
 * @module
 */
import { dirname } from "node:path";
import { junitReport } from "../verify/report/junit.ts";
import { prometheusMetrics } from "../verify/report/metrics.ts";
import type { VerifyResult } from "../verify/schema.ts";
import { CannotRunError } from "./spec.ts";

/** The files a verdict also goes to. */
export interface VerifyOutputs {
  /** `--junit FILE`. */
  junit?: string;
  /** `--metrics FILE`. */
  metrics?: string;
}

/**
 * Writes `text` to `file` through a temporary file in the same directory and a rename, so
 * that a collector reading the directory never sees half a file.
 */
async function replaceFile(file: string, text: string): Promise<void> {
  const temp = await Deno.makeTempFile({ dir: dirname(file), prefix: ".axl-", suffix: ".tmp" });
  try {
    await Deno.writeTextFile(temp, text);
    await Deno.chmod(temp, 0o644);
    await Deno.rename(temp, file);
  } catch (err) {
    await Deno.remove(temp).catch(() => {});
    throw err;
  }
}

/**
 * Writes the verdict `result` to the files `outputs` names; resolves to one line per file
 * written. A file that cannot be written is a CannotRunError naming the option and why.
 *
 * @example
 * ```ts ignore
 * import { writeVerifyOutputs } from "./verify_outputs.ts";
 * const lines = await writeVerifyOutputs(result, { junit: "verify.xml" });
 * ```
 */
export async function writeVerifyOutputs(
  result: VerifyResult,
  outputs: VerifyOutputs,
  now: Date = new Date(),
): Promise<string[]> {
  const jobs: [string, string | undefined, () => string][] = [
    [
      "junit",
      outputs.junit,
      () => junitReport(result, { timestamp: now, hostname: Deno.hostname() }),
    ],
    ["metrics", outputs.metrics, () => prometheusMetrics(result, { timestamp: now })],
  ];
  const written: string[] = [];
  for (const [option, file, render] of jobs) {
    if (file === undefined) continue;
    try {
      await replaceFile(file, render());
    } catch (err) {
      throw new CannotRunError(
        `verify: cannot write --${option} ${file}: ${(err as Error).message} ` +
          "(does its directory exist and is it writable?)",
        { cause: err },
      );
    }
    written.push(`${option}: ${file}`);
  }
  return written;
}
