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
import { judgeArtifacts, readCapture } from "./replay.ts";
import type { VerifyResult } from "./schema.ts";
import { StageClock, type VerifyTimings } from "./timings.ts";
import { hashFiles, NO_RECORD_NOTE, writeIntegrity, WRITTEN_BEFORE_JUDGE } from "./integrity.ts";
import { assertWorkloadRan } from "./story.ts";

/** Options of {@linkcode runVerify}: the capture's, and the judge's thresholds and sets. */
export interface VerifyRunOptions extends CaptureOptions {
  judge?: JudgeOptions;
}

/** Paths written by {@linkcode runVerify}. */
export interface VerifyArtifacts extends CaptureFiles, VerdictFiles {
  /** `timings.json`: the workload's wall time and each stage after it. */
  timings: string;
}

/**
 * Runs a verification and writes the artifacts. Throws only when it cannot run at all
 * (no tracefs, not root); everything else ends up in the result. The time from the
 * workload's end to the verdict, stage by stage, goes to `timings.json` (not `result.json`,
 * which a replay reproduces exactly).
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
): Promise<{ result: VerifyResult; artifacts: VerifyArtifacts; timings: VerifyTimings }> {
  const clock = o.clock ?? new StageClock();
  const { capture, files } = await captureRun({
    ...o,
    clock,
    ...(o.judge?.evidence ? { evidence: o.judge.evidence } : {}),
  });
  // The files the capture has finished are hashed while the judge waits for perf script.
  const early = hashFiles(files.dir, WRITTEN_BEFORE_JUDGE);
  early.catch(() => {}); // awaited below; not an unhandled rejection if the judge throws first
  const result = await judgeArtifacts(capture, o.judge, clock);
  capture.record.integrity = await writeIntegrity(files.dir, capture.record, {
    unparsed: result.axl.trace.unparsed_lines,
    ...(result.axl.perf.available ? { perfSamples: result.axl.perf.samples } : {}),
    ...(result.axl.bufinfo.available ? { bufinfoSamples: result.axl.bufinfo.samples } : {}),
  }, await early);
  clock.lap("integrity record");
  // After the record: a replay of the artifacts says the same.
  assertWorkloadRan(result);
  const verdict = await writeVerdict(files.dir, result);
  clock.lap("report");
  const timings = clock.timings();
  const path = join(files.dir, "timings.json");
  await Deno.writeTextFile(path, JSON.stringify(timings, null, 2) + "\n");
  return { result, artifacts: { ...files, ...verdict, timings: path }, timings };
}

/** The verdict files of a run: result.json, trace.json (Perfetto) and report.html. */
export interface VerdictFiles {
  result: string;
  perfetto: string;
  html: string;
}

async function writeVerdict(dir: string, result: VerifyResult): Promise<VerdictFiles> {
  const files = {
    result: join(dir, "result.json"),
    perfetto: join(dir, "trace.json"),
    html: join(dir, "report.html"),
  };
  await Deno.writeTextFile(files.result, JSON.stringify(result, null, 2) + "\n");
  await Deno.writeTextFile(files.perfetto, JSON.stringify(perfettoTrace(result)) + "\n");
  await Deno.writeTextFile(files.html, renderHtmlReport(result));
  return files;
}

/**
 * Judges a saved artifacts directory `from` again, e.g. with another threshold, importer
 * or exporter set, on any machine (no root, no device: only files are read), and writes
 * the verdict files into `to` (created if needed). The raw evidence in `from` is only
 * read; when `to` is `from`, its old verdict files are replaced.
 *
 * @example
 * ```ts ignore
 * import { replayVerify } from "./run.ts";
 * const { result } = await replayVerify("saved/verify", "out", { copyThresholdPercent: 5 });
 * console.log(result.axl.status);
 * ```
 */
export async function replayVerify(
  from: string,
  to: string,
  judge?: JudgeOptions,
): Promise<{ result: VerifyResult; files: VerdictFiles }> {
  const capture = await readCapture(from);
  const result = await judgeArtifacts(capture, judge);
  assertWorkloadRan(result);
  if (!capture.record.integrity) result.axl.notes.push(NO_RECORD_NOTE);
  result.axl.notes.push(`re-judged from the saved artifacts in ${from} (axl verify --replay)`);
  await Deno.mkdir(to, { recursive: true });
  return { result, files: await writeVerdict(to, result) };
}
