/**
 * Judging a captured run from its artifacts: the one judge path of live `axl verify` (right
 * after the capture, `runVerify()`) and of replays (a saved artifacts directory, e.g. with
 * other thresholds or a wider exporter set, or on a host without the device) and of the
 * bench's `judge` stage. The trace is folded straight from `trace.txt` by the streaming
 * scanner (`readTraceFacts()`); perf from `perf.script`. Where the shim's C scanner cannot
 * load (a host without `libaxl_shim.so`, or a process without FFI), the trace is read by the
 * TypeScript scanner instead: the same facts (a host test holds the two to that on every
 * captured trace), more slowly, and the result's notes say so with the time it took.
 *
 * @module
 */
import { basename, dirname, join } from "node:path";
import { parseBufinfoSamples } from "../trace/parse/bufinfo_summary.ts";
import { type BufferLoss, parsePerCpuStats, summarizeLoss } from "../trace/parse/per_cpu_stats.ts";
import { parsePerfScript, summarizePerf } from "../trace/parse/perf_script.ts";
import type { Capture, CaptureRecord } from "./capture.ts";
import { judge, type JudgeOptions } from "./judge.ts";
import type { VerifyResult } from "./schema.ts";
import type { StageClock } from "./timings.ts";
import { readTraceFacts } from "./trace_facts.ts";
import { traceScanUnavailable } from "../core/trace_scan.ts";
import { type GstPadsLog, parseGstPads } from "../trace/parse/gst_pads.ts";
import { judgePipeline, withPipeline } from "./pipeline.ts";
import { oneStory } from "./story.ts";
import { importerMaps, withCardWitness } from "./card_witness.ts";
import { GST_PADS_FILE } from "./workload.ts";
import { captureShapeProblem } from "./capture_schema.ts";
import { ArtifactsDamagedError, checkCounts, checkFiles } from "./integrity.ts";

/**
 * CPU time of `readTraceFacts()` on a 100 MB trace scaled from a real capture
 * (`bench/trace_analysis.ts --stage facts` and `--stage facts-ts` on a shared 2-core host, load
 * 6–15: the TypeScript scanner and join 580 ms, median of 8; the C scanner with the frame join
 * in C 310 ms, median of 5), for the note of a replay read without the C scanner.
 */
const SCANNER_CPU_MS_100MB = { c: 310, typescript: 580 } as const;

/**
 * Parses `### cpuN` sections of a saved `per_cpu_stats.txt`.
 *
 * @example
 * ```ts
 * import { parseSavedStats } from "./replay.ts";
 * const loss = parseSavedStats("### cpu0\nentries: 1\noverrun: 2\n### cpu1\nentries: 0\noverrun: 0\n");
 * console.log(loss.lost); // 2
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
  const gz = (await Deno.open(`${path}.gz`).catch((e) => {
    // Name the file the artifacts lack, not the compressed form tried second.
    throw e instanceof Deno.errors.NotFound
      ? new Deno.errors.NotFound(
        `no ${basename(path)} (nor ${basename(path)}.gz) in ${dirname(path)}`,
      )
      : e;
  })).readable;
  return gz.pipeThrough(new DecompressionStream("gzip")) as ReadableStream<Uint8Array>;
}

/**
 * Reads a capture back from its artifacts directory: `capture.json`, `per_cpu_stats.txt`
 * (when saved) and `bufinfo_samples.txt`. `capture.json` must have its shape, and the raw
 * files must be what its integrity record says the capture wrote (`integrity.ts`); else
 * {@linkcode ArtifactsDamagedError} names the file. A capture made before the record
 * existed is read as it is ({@linkcode judgeArtifacts} still bounds what it may hold).
 *
 * @example
 * ```ts ignore
 * import { readCapture } from "./replay.ts";
 * const capture = await readCapture("artifacts/verify");
 * console.log(capture.record.headline, capture.loss?.lost);
 * ```
 */
export async function readCapture(dir: string): Promise<Capture> {
  const record = await readRecord(dir);
  if (record.integrity) {
    await checkFiles(dir, record as unknown as Record<string, unknown>, record.integrity);
  }
  let loss: BufferLoss | undefined;
  try {
    loss = parseSavedStats(await Deno.readTextFile(join(dir, "per_cpu_stats.txt")));
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) throw damaged("per_cpu_stats.txt", e);
  }
  let bufinfo: Capture["bufinfo"];
  if (record.bufinfoUnavailable !== null) {
    bufinfo = { unavailable: record.bufinfoUnavailable };
  } else {
    try {
      bufinfo = await parseBufinfoSamples(
        (await Deno.open(join(dir, "bufinfo_samples.txt"))).readable,
        "bufinfo_samples.txt",
      );
    } catch (e) {
      throw damaged("bufinfo_samples.txt", e);
    }
  }
  return { dir, record, bufinfo, ...(loss ? { loss } : {}), readBack: true };
}

/** `capture.json` of `dir`, of the shape the judge needs. */
async function readRecord(dir: string): Promise<CaptureRecord> {
  let text: string;
  try {
    text = await Deno.readTextFile(join(dir, "capture.json"));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new Deno.errors.NotFound(`no capture.json in ${dir}`);
    }
    throw e;
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    throw new ArtifactsDamagedError("capture.json", `is not JSON (${(e as Error).message})`);
  }
  const problem = captureShapeProblem(raw);
  if (problem) {
    throw new ArtifactsDamagedError("capture.json", `is not a capture record (${problem})`);
  }
  return raw as CaptureRecord;
}

/** A raw file that could not be parsed, as damage naming it (a missing file as itself). */
function damaged(file: string, e: unknown): Error {
  if (e instanceof ArtifactsDamagedError || e instanceof Deno.errors.NotFound) return e;
  return new ArtifactsDamagedError(file, `cannot be parsed (${(e as Error).message})`);
}

/**
 * Judges a captured run: `from` is a capture just taken (`captureRun()`) or an artifacts
 * directory, read with {@linkcode readCapture}. `perf.script` may be stored gzipped as
 * `perf.script.gz`. With `clock`, each stage (reading the trace, folding the perf samples,
 * judging) is timed on it.
 *
 * @example
 * ```ts ignore
 * import { judgeArtifacts } from "./replay.ts";
 * const r = await judgeArtifacts("artifacts/verify", { acceptedExporters: ["nvmap"] });
 * console.log(r.axl.status);
 * ```
 */
export async function judgeArtifacts(
  from: string | Capture,
  options?: JudgeOptions,
  clock?: StageClock,
): Promise<VerifyResult> {
  const capture = typeof from === "string" ? await readCapture(from) : from;
  // Awaited once the trace is read; until then its rejection is not unhandled.
  capture.perfSummary?.catch(() => {});
  const { dir, record, bufinfo, loss } = capture;
  // Read into one reused buffer and folded as it goes: memory does not grow with the trace.
  using trace = await Deno.open(join(dir, "trace.txt"));
  const unavailable = traceScanUnavailable();
  const bytes = unavailable === undefined ? 0 : (await trace.stat()).size;
  const t0 = performance.now();
  const facts = await readTraceFacts(trace, {
    source: join(dir, "trace.txt"),
    strict: false,
    ...(unavailable !== undefined ? { scanner: "typescript" as const } : {}),
    ...("atStart" in bufinfo && bufinfo.atStart ? { attachedAtStart: bufinfo.atStart } : {}),
  });
  clock?.lap("read trace");
  // A live capture's perf script runs on while the trace is read; its fold is used as is.
  const live = await capture.perfSummary;
  clock?.lap("perf script and fold");
  const notes = unavailable === undefined
    ? record.notes
    : [...record.notes, scannerNote(unavailable, bytes, t0)];
  const perf = "unavailable" in record.perf ? { unavailable: record.perf.unavailable } : {
    ...record.perf,
    summary: live ?? await foldPerfScript(dir, record.workload.pids),
  };
  clock?.lap("fold perf samples");
  if (capture.readBack) {
    checkCounts(record.integrity, {
      unparsed: facts.unparsed,
      ...("summary" in perf ? { perfSamples: perf.summary.samples } : {}),
      ...("unavailable" in bufinfo ? {} : { bufinfoSamples: bufinfo.samples }),
    }, (await trace.stat()).size);
  }
  const result = judge({
    headline: record.headline,
    trace: facts,
    setup: record.setup,
    ...(loss ? { loss } : {}),
    bufinfo,
    perf,
    workload: record.workload,
    environment: record.environment,
    notes,
    ...(record.importer ? { importer: record.importer } : {}),
    ...(record.probes ? { probes: record.probes } : {}),
    ...(record.bufinfoIntervalMs !== undefined
      ? { bufinfoIntervalMs: record.bufinfoIntervalMs }
      : {}),
    ...(record.refEvents ? { refEvents: record.refEvents } : {}),
    ...(options ? { options } : {}),
  });
  const pads = await readGstPads(dir);
  const piped = pads ? withPipeline(result, judgePipeline(pads)) : result;
  // The card's witness may add a finding: the story is told once every section is in.
  const judged = oneStory(
    await withCardWitness(piped, dir, importerMaps(facts.dmabuf, record.importer?.name)),
  );
  clock?.lap("judge");
  return judged;
}

/** The perf samples of `perf.script` (or `perf.script.gz`) folded; damage names the file. */
async function foldPerfScript(dir: string, pids: number[]) {
  try {
    return await summarizePerf(
      parsePerfScript(await openMaybeGzip(join(dir, "perf.script")), join(dir, "perf.script")),
      { pids },
    );
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) {
      throw new Deno.errors.NotFound(`no perf.script (nor perf.script.gz) in ${dir}`);
    }
    throw damaged("perf.script", e);
  }
}

/** The GStreamer tracer's record of the run, or undefined when it wrote none. */
async function readGstPads(dir: string): Promise<GstPadsLog | undefined> {
  try {
    return parseGstPads(await Deno.readTextFile(join(dir, GST_PADS_FILE)));
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return undefined;
    throw damaged(GST_PADS_FILE, e);
  }
}

/** The note of a trace read by the TypeScript scanner: why, how long it took, how much slower. */
function scannerNote(unavailable: string, bytes: number, t0: number): string {
  const ms = performance.now() - t0;
  const mb = bytes / 1e6;
  const { c, typescript } = SCANNER_CPU_MS_100MB;
  return `the trace (${mb.toFixed(1)} MB) was read by the TypeScript scanner in ` +
    `${Math.round(ms)} ms, because the shim's C scanner cannot load here (${unavailable}): ` +
    `the same facts, about ${(typescript / c).toFixed(1)}× slower (100 MB: ${typescript} ms ` +
    `of CPU against ${c} ms); build the shim ('deno task build') or set AXL_SHIM for the C one`;
}
