/**
 * Bench section 3, trace analysis on the host: traces scaled from a real capture, `grep -c` as
 * the floor for reading the file, then each of verify's analysis stages, with throughput and
 * peak RSS.
 *
 * @module
 */
import { summarize, type Summary } from "./_stats.ts";
import { generateTrace } from "./trace_gen.ts";
import { judgeDir, type Stage, type StageResult, STAGES } from "./trace_analysis.ts";
import { log, mb, results, sh, work } from "./_results.ts";

export interface StageRow {
  stage: Stage;
  runs: StageResult[];
  cpuMs?: Summary;
  wallMs?: Summary;
  peakRssBytes?: number;
  cpuMBps?: number;
  wallMBps?: number;
  /** grep's CPU throughput / this stage's. */
  timesGrep?: number;
  /** This stage's CPU throughput / the seed-style Python pass's. */
  timesPython?: number;
  /** This stage's CPU throughput / the filtered Python pass's (`seed_checker_filtered.py`). */
  timesPythonFiltered?: number;
  failed?: string;
}

export interface SizeRow {
  size: number;
  generated: Awaited<ReturnType<typeof generateTrace>>;
  grep: { count: number; cpuMs: Summary; wallMs: Summary; cpuMBps: number; wallMBps: number };
  python?: { submits: number; cpuMs: Summary; wallMs: Summary; cpuMBps: number; wallMBps: number };
  /** Why the Python pass has no numbers. */
  pythonFailed?: string;
  /** The stronger Python pass: a substring test on each line before any regex. */
  pythonFiltered?: {
    submits: number;
    cpuMs: Summary;
    wallMs: Summary;
    cpuMBps: number;
    wallMBps: number;
  };
  /** Why the filtered Python pass has no numbers. */
  pythonFilteredFailed?: string;
  stages: StageRow[];
}

/** One run of a command on `file` with its output and its CPU time (user + system). */
export interface TimedRun {
  out: string;
  cpuMs: number;
  wallMs: number;
}

export async function timedOnce(script: string, file: string): Promise<TimedRun> {
  // `times` prints the shell's, then its children's, user and system time.
  const r = await sh(["bash", "-c", `${script}; times`, "timed", file]);
  if (r.code !== 0) {
    throw new Error(`exit ${r.code}: ${r.stderr.trim().split("\n").slice(0, 2).join(" ")}`);
  }
  const lines = r.stdout.trim().split("\n");
  const m = /(\d+)m([\d.]+)s\s+(\d+)m([\d.]+)s/.exec(lines.at(-1) ?? "");
  if (!m) throw new Error(`cannot read the CPU time from: ${r.stdout}`);
  const cpuMs = (Number(m[1]) * 60 + Number(m[2]) + Number(m[3]) * 60 + Number(m[4])) * 1e3;
  return { out: lines.slice(0, -2).join("\n"), cpuMs, wallMs: r.ms };
}

export async function grepOnce(
  file: string,
): Promise<{ count: number; cpuMs: number; wallMs: number }> {
  const r = await timedOnce('LC_ALL=C grep -c -F axl_job_submit "$1"', file);
  return { count: Number(r.out), cpuMs: r.cpuMs, wallMs: r.wallMs };
}

/** What the seed-style Python pass (`seed_checker.py`) counted, and its cost. */
export interface PythonRun {
  submits: number;
  imports: number;
  cpuMs: number;
  wallMs: number;
}

/**
 * One run of a Python pass over `file`: `seed_checker.py` (a regex on every line), or with
 * `filtered` the stronger `seed_checker_filtered.py` (a substring test first).
 */
export async function pythonOnce(file: string, filtered = false): Promise<PythonRun> {
  const script = filtered ? "bench/seed_checker_filtered.py" : "bench/seed_checker.py";
  const r = await timedOnce(`python3 ${script} "$1"`, file);
  const counted = JSON.parse(r.out) as { submits: number; imports: number };
  return { submits: counted.submits, imports: counted.imports, cpuMs: r.cpuMs, wallMs: r.wallMs };
}

/** CPU and wall time of some runs over `bytes`, with MB/s from their medians. */
export function speed(
  runs: { cpuMs: number; wallMs: number }[],
  bytes: number,
): { cpuMs: Summary; wallMs: Summary; cpuMBps: number; wallMBps: number } {
  const cpuMs = summarize(runs.map((r) => r.cpuMs));
  const wallMs = summarize(runs.map((r) => r.wallMs));
  return {
    cpuMs,
    wallMs,
    cpuMBps: bytes / 1e3 / Math.max(cpuMs.median, 1),
    wallMBps: bytes / 1e3 / wallMs.median,
  };
}

export async function stageOnce(
  stage: Stage,
  target: string,
  timeoutMs: number,
): Promise<StageResult> {
  const r = await sh([
    // This Deno, also when `deno` is not on PATH.
    Deno.execPath(),
    "run",
    // /proc/self/{stat,status} (CPU time, peak RSS) need --allow-all in Deno.
    "--allow-all",
    "bench/trace_analysis.ts",
    "--stage",
    stage,
    target,
  ], { timeoutMs });
  if (r.timedOut) throw new Error(`did not finish within ${timeoutMs / 1e3} s`);
  if (r.code !== 0) {
    const oom = /heap limit|out of memory/i.test(r.stderr);
    throw new Error(
      oom
        ? "ran out of memory (V8 heap limit)"
        : `exit ${r.code}: ${r.stderr.trim().split("\n").slice(0, 2).join(" ").slice(0, 300)}`,
    );
  }
  return JSON.parse(r.stdout.trim().split("\n").at(-1)!) as StageResult;
}

/** Runs section 3 into `results.trace` at each of `sizes` (bytes); `keep` keeps the traces. */
export async function traceSection(sizes: number[], quick: boolean, keep: boolean): Promise<void> {
  const rows: SizeRow[] = [];
  for (const size of sizes) {
    const big = size >= 500e6;
    const file = `${work}/trace-${mb(size).replace(" ", "")}.trace`;
    log(`trace: generating ${mb(size)}`);
    const generated = await generateTrace(file, size);
    const judgeAt = `${work}/judge-${mb(size).replace(" ", "")}`;
    await judgeDir(judgeAt, file, generated.frames);
    try {
      await grepOnce(file); // page cache warm for everyone
      const reps = quick || big ? 1 : 3;
      // At 1 GB, not the stages that make a string or a record per line.
      const stages: Stage[] = STAGES.filter((s) => !big || (s !== "lines" && s !== "parse"));
      const repeated = new Set<Stage>(["c-lines", "c-scan", "facts-ts", "facts", "judge"]);
      const grepRuns: { count: number; cpuMs: number; wallMs: number }[] = [];
      const pythonRuns: PythonRun[] = [];
      const filteredRuns: PythonRun[] = [];
      let pythonFailed: string | undefined;
      let filteredFailed: string | undefined;
      const byStage = new Map<Stage, StageRow>(stages.map((s) => [s, { stage: s, runs: [] }]));
      for (let rep = 0; rep < reps; rep++) {
        grepRuns.push(await grepOnce(file));
        if (!pythonFailed) {
          log(`trace: ${mb(size)} seed-style Python pass (${rep + 1}/${reps})`);
          try {
            pythonRuns.push(await pythonOnce(file));
          } catch (e) {
            pythonFailed = (e as Error).message;
          }
        }
        if (!filteredFailed) {
          log(`trace: ${mb(size)} filtered Python pass (${rep + 1}/${reps})`);
          try {
            filteredRuns.push(await pythonOnce(file, true));
          } catch (e) {
            filteredFailed = (e as Error).message;
          }
        }
        for (const stage of stages) {
          const row = byStage.get(stage)!;
          if (row.failed || (rep > 0 && !repeated.has(stage))) continue;
          const timeoutMs = stage === "judge"
            ? (big ? 150_000 : 120_000)
            : (big ? 300_000 : 120_000);
          log(`trace: ${mb(size)} ${stage} (${rep + 1}/${reps})`);
          try {
            row.runs.push(await stageOnce(stage, stage === "judge" ? judgeAt : file, timeoutMs));
          } catch (e) {
            row.failed = (e as Error).message;
          }
        }
      }
      const grep = { count: grepRuns[0]!.count, ...speed(grepRuns, generated.bytes) };
      const python = pythonRuns.length ? speed(pythonRuns, generated.bytes) : undefined;
      const pythonSubmits = pythonRuns[0]?.submits;
      const filtered = filteredRuns.length ? speed(filteredRuns, generated.bytes) : undefined;
      const filteredSubmits = filteredRuns[0]?.submits;
      for (const [what, n] of [["", pythonSubmits], ["filtered ", filteredSubmits]] as const) {
        if (n !== undefined && n !== generated.frames) {
          results.problems.push(
            `trace ${mb(size)}: the ${what}Python pass counted ${n} submits, ` +
              `generated ${generated.frames}`,
          );
        }
      }
      if (grep.count !== generated.frames) {
        results.problems.push(
          `trace ${mb(size)}: grep counted ${grep.count} submits, generated ${generated.frames}`,
        );
      }
      for (const row of byStage.values()) {
        if (!row.runs.length) continue;
        const runs = row.runs.map((r) => ({ cpuMs: r.cpuMs, wallMs: r.ms }));
        const measured = speed(runs, generated.bytes);
        Object.assign(row, measured);
        row.peakRssBytes = Math.max(...row.runs.map((r) => r.peakRssBytes));
        row.timesGrep = grep.cpuMBps / measured.cpuMBps;
        if (python) row.timesPython = measured.cpuMBps / python.cpuMBps;
        if (filtered) row.timesPythonFiltered = measured.cpuMBps / filtered.cpuMBps;
      }
      rows.push({
        size,
        generated,
        grep,
        ...(python ? { python: { submits: pythonSubmits!, ...python } } : {}),
        ...(pythonFailed ? { pythonFailed } : {}),
        ...(filtered ? { pythonFiltered: { submits: filteredSubmits!, ...filtered } } : {}),
        ...(filteredFailed ? { pythonFilteredFailed: filteredFailed } : {}),
        stages: [...byStage.values()],
      });
    } finally {
      if (!keep) {
        await Deno.remove(file).catch(() => {});
        await Deno.remove(judgeAt, { recursive: true }).catch(() => {});
      }
    }
  }
  results.trace = { template: "bench/fixtures/axl-frames-6.12-std.trace", sizes: rows };
}
