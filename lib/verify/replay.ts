/**
 * Judging a run again from its artifacts directory (`trace.txt`, `per_cpu_stats.txt`,
 * `bufinfo_samples.txt`, `perf.script`, `capture.json`), e.g. with other thresholds or a
 * wider exporter set, or on a host without the device.
 *
 * @module
 */
import { join } from "node:path";
import { parseBufinfoSamples } from "../trace/bufinfo_sampler.ts";
import { type BufferLoss, parsePerCpuStats, summarizeLoss } from "../trace/per_cpu_stats.ts";
import { parsePerfScript, summarizePerf } from "../trace/perf_script.ts";
import { judge, type JudgeOptions } from "./judge.ts";
import type { CaptureRecord } from "./run.ts";
import type { VerifyResult } from "./schema.ts";
import { readTraceFacts } from "./trace_facts.ts";

/**
 * Parses `### cpuN` sections of a saved `per_cpu_stats.txt`.
 *
 * @example
 * ```ts
 * import { parseSavedStats } from "./replay.ts";
 * const loss = parseSavedStats("### cpu0\nentries: 1\noverrun: 2\n### cpu1\nentries: 0\noverrun: 0\n");
 * if (loss.lost !== 2) throw new Error();
 * ```
 */
export function parseSavedStats(text: string, source = "per_cpu_stats.txt"): BufferLoss {
  const per = new Map<number, ReturnType<typeof parsePerCpuStats>>();
  for (const part of text.split(/^### cpu(?=\d+$)/m).slice(1)) {
    const nl = part.indexOf("\n");
    per.set(
      Number(part.slice(0, nl)),
      parsePerCpuStats(part.slice(nl + 1), `${source} cpu${part.slice(0, nl)}`),
    );
  }
  return summarizeLoss(per);
}

/** Opens `path`, or `path.gz` decompressed when only that exists. */
async function openMaybeGzip(path: string): Promise<ReadableStream<Uint8Array>> {
  try {
    return (await Deno.open(path)).readable;
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  const gz = (await Deno.open(`${path}.gz`)).readable;
  return gz.pipeThrough(new DecompressionStream("gzip")) as ReadableStream<Uint8Array>;
}

/**
 * Re-judges the run saved in `dir` (`perf.script` may be stored gzipped as `perf.script.gz`).
 *
 * @example
 * ```ts ignore
 * import { judgeArtifacts } from "./replay.ts";
 * const r = await judgeArtifacts("artifacts/verify", { acceptedExporters: ["nvmap"] });
 * console.log(r.axl.status);
 * ```
 */
export async function judgeArtifacts(dir: string, options?: JudgeOptions): Promise<VerifyResult> {
  const capture = JSON.parse(await Deno.readTextFile(join(dir, "capture.json"))) as CaptureRecord;
  // Read into one reused buffer and folded as it goes: memory does not grow with the trace.
  using trace = await Deno.open(join(dir, "trace.txt"));
  const facts = await readTraceFacts(trace, { source: join(dir, "trace.txt"), strict: false });
  let loss: BufferLoss | undefined;
  try {
    loss = parseSavedStats(await Deno.readTextFile(join(dir, "per_cpu_stats.txt")));
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw e;
  }
  const bufinfo = capture.bufinfoUnavailable !== null
    ? { unavailable: capture.bufinfoUnavailable }
    : await parseBufinfoSamples(
      (await Deno.open(join(dir, "bufinfo_samples.txt"))).readable,
      "bufinfo_samples.txt",
    );
  const perf = "unavailable" in capture.perf ? { unavailable: capture.perf.unavailable } : {
    ...capture.perf,
    summary: await summarizePerf(
      parsePerfScript(
        await openMaybeGzip(join(dir, "perf.script")),
        join(dir, "perf.script"),
      ),
      { pids: capture.workload.pids },
    ),
  };
  return judge({
    headline: capture.headline,
    trace: facts,
    setup: capture.setup,
    ...(loss ? { loss } : {}),
    bufinfo,
    perf,
    workload: capture.workload,
    environment: capture.environment,
    notes: capture.notes,
    ...(options ? { options } : {}),
  });
}
