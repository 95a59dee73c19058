/**
 * One verification run end to end: capture the workload (`capture.ts`), judge the capture
 * (`judgeArtifacts()`, the same path a replay and the bench take), then write `result.json`,
 * `trace.json` for Perfetto and `report.html` next to the raw artifacts.
 *
 * @module
 */
import { join } from "node:path";
import { perfettoTrace } from "./report/perfetto.ts";
import { renderHtmlReport } from "./report/html.ts";
import { type CaptureFiles, type CaptureOptions, captureRun } from "./capture.ts";
import type { JudgeOptions } from "./judge.ts";
import { judgeArtifacts } from "./replay.ts";
import type { VerifyResult } from "./schema.ts";

/** Options of {@linkcode runVerify}: the capture's, and the judge's thresholds and sets. */
export interface VerifyRunOptions extends CaptureOptions {
  judge?: JudgeOptions;
}

/** Paths written by {@linkcode runVerify}. */
export interface VerifyArtifacts extends CaptureFiles {
  result: string;
  perfetto: string;
  html: string;
}

/**
 * Runs a verification and writes the artifacts. Throws only when it cannot run at all
 * (no tracefs, not root); everything else ends up in the result.
 *
 * @example
 * ```ts ignore
 * import { runVerify } from "./run.ts";
 * const { result } = await runVerify({ artifacts: "artifacts/verify", workload, headline: "..." });
 * console.log(result.axl.status);
 * ```
 */
export async function runVerify(
  o: VerifyRunOptions,
): Promise<{ result: VerifyResult; artifacts: VerifyArtifacts }> {
  const { capture, files } = await captureRun(o);
  const result = await judgeArtifacts(capture, o.judge);
  const art: VerifyArtifacts = {
    ...files,
    result: join(files.dir, "result.json"),
    perfetto: join(files.dir, "trace.json"),
    html: join(files.dir, "report.html"),
  };
  await Deno.writeTextFile(art.result, JSON.stringify(result, null, 2) + "\n");
  await Deno.writeTextFile(art.perfetto, JSON.stringify(perfettoTrace(result)) + "\n");
  await Deno.writeTextFile(art.html, renderHtmlReport(result));
  return { result, artifacts: art };
}
