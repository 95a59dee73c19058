/**
 * One stage of trace analysis over one file, in its own process so that its peak RSS is its
 * own. Prints one JSON object ({@linkcode StageResult}). Stages, each including the ones
 * before it:
 *
 * - `c-lines`: the newlines counted in C (`line_count.c`, one FFI call): the floor for a
 *   scanner in C called through FFI;
 * - `read`: the bytes, newlines counted (Deno's floor for reading the file);
 * - `split`: `forEachLine()` on the open file, as the fold reads it (synchronous reads into one
 *   buffer, UTF-8 decoding, line splitting), nothing done per line;
 * - `lines`: `readFileLines` (UTF-8 decoding, line splitting, a string per line);
 * - `parse`: `parseFtrace` (every line parsed into a record);
 * - `scan`: `scanFtrace()`, the TypeScript scanner, as `readTraceFacts({ scanner: "typescript" })`
 *   drives it (call lines counted from their call column, events scanned in place) with nothing
 *   folded;
 * - `c-scan`: `scanFtraceChunks()`, the shim's C scanner over whole chunks, as `readTraceFacts()`
 *   drives it (calls counted in C, events handed over as records) with nothing folded: the
 *   scanner's share of `facts`;
 * - `facts-ts`: `readTraceFacts({ scanner: "typescript" })`, the fold over the TypeScript scanner
 *   (the reference the C scanner is tested against);
 * - `facts`: `readTraceFacts()`, verify's streaming trace fold over the C scanner;
 * - `judge`: `judgeArtifacts()`, verify's whole analysis of an artifacts directory (trace
 *   facts, frame join, bufinfo samples, invariants, latency statistics) — the function
 *   `axl verify` judges its capture with, and replays too. The directory is
 *   `bench/fixtures/verify-run/` with the file as its `trace.txt`.
 *
 * ```sh
 * deno run --allow-all bench/trace_analysis.ts --stage facts FILE
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { forEachLine, readFileLines } from "../lib/trace/parse/lines.ts";
import { parseFtrace, scanFtrace } from "../lib/trace/parse/ftrace.ts";
import { readTraceFacts } from "../lib/verify/trace_facts.ts";
import { scanFtraceChunks } from "../lib/trace/parse/chunk_scan.ts";
import { judgeArtifacts } from "../lib/verify/replay.ts";
import { StageClock } from "../lib/verify/timings.ts";
import { peakRssBytes } from "./_stats.ts";

/** The stages, cheapest first. */
export const STAGES = [
  "c-lines",
  "read",
  "split",
  "lines",
  "parse",
  "scan",
  "c-scan",
  "facts-ts",
  "facts",
  "judge",
] as const;
/** One of {@linkcode STAGES}. */
export type Stage = typeof STAGES[number];

/** What one stage measured. */
export interface StageResult {
  stage: Stage;
  bytes: number;
  /** Wall time of the analysis itself (module loading excluded), ms. */
  ms: number;
  /** Process CPU time of the analysis, ms. */
  cpuMs: number;
  /** Peak RSS of the process (VmHWM), bytes. */
  peakRssBytes: number;
  /** What the stage counted (lines, records, frames...), as a check that it did the work. */
  counts: Record<string, number | string>;
  /**
   * `judge` only: its process CPU time split at `judgeArtifacts()`'s laps (reading the trace,
   * folding perf samples, judging), measured in the same process and run as `cpuMs`: their sum
   * is `cpuMs` (to the 10 ms tick).
   */
  laps?: { stage: string; cpuMs: number }[];
}

/** The C line counter (`line_count.c`), built by `bench/build.sh`. */
const LINE_COUNT = new URL("../build/bench/libline_count.so", import.meta.url);

/** The verify run whose non-trace artifacts the `judge` stage reuses. */
export const VERIFY_RUN = new URL("./fixtures/verify-run/", import.meta.url);

/**
 * Makes an artifacts directory for `judge`: the fixture's capture.json (frames submitted set
 * to `frames`, the workload's per-frame list dropped), bufinfo samples and stats, and `trace`
 * linked as trace.txt.
 *
 * @example
 * ```ts ignore
 * import { judgeDir } from "./trace_analysis.ts";
 * await judgeDir("build/bench/judge-100M", "build/bench/trace-100M.trace", 34640);
 * ```
 */
export async function judgeDir(dir: string, trace: string, frames: number): Promise<void> {
  await Deno.mkdir(dir, { recursive: true });
  const fixture = (name: string) => new URL(name, VERIFY_RUN);
  const capture = JSON.parse(await Deno.readTextFile(fixture("capture.json")));
  capture.workload.framesSubmitted = frames;
  // Leaving it in would pin the run's 60 fence timestamps onto the trace's first frames.
  delete capture.workload.frames;
  await Deno.writeTextFile(join(dir, "capture.json"), JSON.stringify(capture));
  for (const f of ["bufinfo_samples.txt", "per_cpu_stats.txt"]) {
    await Deno.copyFile(fixture(f), join(dir, f));
  }
  const link = join(dir, "trace.txt");
  await Deno.remove(link).catch(() => {});
  await Deno.symlink(await Deno.realPath(trace), link);
}

/** Process CPU time (user + system) in ms, from /proc/self/stat (10 ms resolution). */
function cpuMs(): number {
  const stat = Deno.readTextFileSync("/proc/self/stat");
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  const ticks = Number(f[11]) + Number(f[12]); // utime + stime
  return ticks * 10; // USER_HZ is 100 on Linux
}

/** A {@linkcode StageClock} that also takes the process CPU time at each lap. */
class CpuLaps extends StageClock {
  readonly laps: { stage: string; cpuMs: number }[] = [];
  #last: number;

  constructor(start: number) {
    super();
    this.#last = start;
  }

  override lap(stage: string): void {
    super.lap(stage);
    const now = cpuMs();
    this.laps.push({ stage, cpuMs: now - this.#last });
    this.#last = now;
  }

  /** The laps, with what followed the last one (`after`) up to `end` (CPU ms). */
  close(end: number): { stage: string; cpuMs: number }[] {
    return [...this.laps, { stage: "after", cpuMs: end - this.#last }];
  }
}

async function run(stage: Stage, path: string): Promise<Omit<StageResult, "peakRssBytes">> {
  const bytes = (await Deno.stat(path)).size;
  const c0 = cpuMs(), t0 = performance.now();
  const counts: Record<string, number | string> = {};
  let laps: CpuLaps | undefined;
  switch (stage) {
    case "c-lines": {
      const lib = Deno.dlopen(LINE_COUNT, {
        line_count: { parameters: ["buffer"], result: "i64" },
      });
      try {
        const lines = Number(lib.symbols.line_count(new TextEncoder().encode(`${path}\0`)));
        if (lines < 0) throw new Error(`line_count(${path}): errno ${-lines}`);
        counts.lines = lines;
      } finally {
        lib.close();
      }
      break;
    }
    case "read": {
      let nl = 0;
      const file = await Deno.open(path);
      for await (const chunk of file.readable) {
        for (let i = chunk.indexOf(10); i !== -1; i = chunk.indexOf(10, i + 1)) nl++;
      }
      counts.lines = nl;
      break;
    }
    case "split": {
      using file = await Deno.open(path);
      counts.lines = await forEachLine(file, () => {});
      break;
    }
    case "lines": {
      let n = 0;
      for await (const _ of readFileLines(path)) n++;
      counts.lines = n;
      break;
    }
    case "parse": {
      let n = 0, events = 0;
      for await (const r of parseFtrace((await Deno.open(path)).readable, { strict: false })) {
        n++;
        if (r.kind === "event") events++;
      }
      counts.records = n;
      counts.events = events;
      break;
    }
    case "scan": {
      using file = await Deno.open(path);
      let calls = 0, events = 0, records = 0;
      counts.lines = await scanFtrace(file, () => records++, {
        strict: false,
        onCall: () => calls++,
        onEvent: () => (events++, true),
      });
      counts.calls = calls;
      counts.events = events;
      counts.records = records;
      break;
    }
    case "c-scan": {
      using file = await Deno.open(path);
      let calls = 0, events = 0, records = 0;
      counts.lines = await scanFtraceChunks(file, () => records++, {
        strict: false,
        onCalls: (_func, n) => calls += n,
        onEvent: () => (events++, true),
      });
      counts.calls = calls;
      counts.events = events;
      counts.records = records;
      break;
    }
    case "facts-ts":
    case "facts": {
      using file = await Deno.open(path);
      const scanner = stage === "facts" ? "c" : "typescript";
      const facts = await readTraceFacts(file, { strict: false, scanner });
      // Folded traces fill the streaming frame join, not the per-event lists.
      counts.imports = facts.join?.imports ?? 0;
      counts.submits = facts.join?.submits ?? 0;
      counts.unparsed = facts.unparsed;
      break;
    }
    case "judge": {
      laps = new CpuLaps(c0);
      const r = await judgeArtifacts(path, undefined, laps);
      counts.status = r.axl.status;
      counts.frames = r.axl.frames.list.length;
      counts.I3 = r.axl.invariants.I3?.summary ?? "";
      break;
    }
  }
  const c1 = cpuMs();
  return {
    stage,
    bytes,
    ms: Math.round(performance.now() - t0),
    cpuMs: c1 - c0,
    counts,
    ...(laps ? { laps: laps.close(c1) } : {}),
  };
}

if (import.meta.main) {
  const { values, positionals } = parseArgs({
    args: Deno.args,
    options: { stage: { type: "string", default: "facts" } },
    allowPositionals: true,
  });
  const stage = values.stage as Stage;
  if (!(STAGES as readonly string[]).includes(stage) || positionals.length !== 1) {
    console.error(
      `usage: trace_analysis.ts --stage ${STAGES.join("|")} FILE (judge: an artifacts directory)`,
    );
    Deno.exit(3);
  }
  const r = await run(stage, positionals[0]!);
  console.log(JSON.stringify({ ...r, peakRssBytes: peakRssBytes() } satisfies StageResult));
}
