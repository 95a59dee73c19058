// The trace bench's breakdown of the judge: its parts come from one process (the judge's own
// laps), so they add up; stages measured in other processes are printed beside it.
import assert from "node:assert/strict";
import { gapLines } from "../../../bench/table.ts";
import type { SizeRow, StageRow } from "../../../bench/section_trace.ts";
import { judgeDir, type StageResult } from "../../../bench/trace_analysis.ts";
import { stageOnce } from "../../../bench/section_trace.ts";

const root = new URL("../../../", import.meta.url);

/** Median, min and max of a small sample, as the bench summarises its runs. */
function summarize(values: number[]) {
  const v = [...values].sort((a, b) => a - b);
  const median = v.length % 2
    ? v[(v.length - 1) / 2]!
    : (v[v.length / 2 - 1]! + v[v.length / 2]!) / 2;
  return { n: v.length, median, min: v[0]!, max: v.at(-1)!, p25: median, p75: median };
}

/** A stage row of runs with these CPU times (and laps). */
function stage(name: StageRow["stage"], runs: Partial<StageResult>[]): StageRow {
  const full = runs.map((r) => ({
    stage: name,
    bytes: 1e9,
    ms: r.cpuMs!,
    cpuMs: r.cpuMs!,
    peakRssBytes: 1e8,
    counts: {},
    ...r,
  }));
  return { stage: name, runs: full, cpuMs: summarize(full.map((r) => r.cpuMs)) };
}

Deno.test("gapLines() splits the judge at its own laps, even when another process's facts took longer", () => {
  // As a 1 GB run measured them: facts 1,730 ms in its process, the judge 1,320 ms in its own.
  const row = {
    size: 1e9,
    grep: { count: 1, cpuMs: summarize([467]), wallMs: summarize([900]), cpuMBps: 0, wallMBps: 0 },
    stages: [
      stage("facts", [{ cpuMs: 1730 }]),
      stage("judge", [{
        cpuMs: 1320,
        laps: [
          { stage: "read trace", cpuMs: 1200 },
          { stage: "perf script and fold", cpuMs: 0 },
          { stage: "fold perf samples", cpuMs: 10 },
          { stage: "judge", cpuMs: 110 },
          { stage: "after", cpuMs: 0 },
        ],
      }]),
    ],
  } as unknown as SizeRow;
  const lines = gapLines(row);
  const text = lines.join("\n");
  assert.match(
    text,
    /judge \(CPU, one process: its median run of 1\) 1320 ms \(2\.8× grep\) = read trace 1200 \+ fold perf samples 10 \+ judging 110 ms/,
  );
  assert.match(text, /facts \(scan and frame join in C\) 1730 ms \(3\.7× grep\)/);
  // No part is a difference of two processes: nothing negative.
  assert.doesNotMatch(text, /−|-\d/, text);
});

Deno.test("gapLines() takes the judge's median run whole, so its parts add up to it", () => {
  const laps = (read: number, rest: number) => [
    { stage: "read trace", cpuMs: read },
    { stage: "judge", cpuMs: rest },
  ];
  const row = {
    size: 1e8,
    grep: { count: 1, cpuMs: summarize([50]), wallMs: summarize([90]), cpuMBps: 0, wallMBps: 0 },
    stages: [
      stage("facts", [{ cpuMs: 250 }, { cpuMs: 240 }, { cpuMs: 300 }]),
      stage("judge", [
        { cpuMs: 400, laps: laps(300, 100) },
        { cpuMs: 280, laps: laps(200, 80) },
        { cpuMs: 350, laps: laps(330, 20) },
      ]),
    ],
  } as unknown as SizeRow;
  const text = gapLines(row).join("\n");
  assert.match(
    text,
    /its median run of 3\) 350 ms \(7\.0× grep\) = read trace 330 \+ judging 20 ms/,
  );
  assert.match(text, /facts \(scan and frame join in C\) 250 ms \(5\.0× grep\) \[240–300\]/);
});

Deno.test("the judge stage reports its CPU time split at judgeArtifacts()'s laps, adding up to it", async () => {
  const dir = await Deno.makeTempDir({ prefix: "axl-judge-laps-" });
  try {
    const trace = new URL("bench/fixtures/axl-frames-6.12-std.trace", root).pathname;
    await judgeDir(dir, trace, 40);
    const r = await stageOnce("judge", dir, 120_000);
    assert.deepEqual(r.laps?.map((l) => l.stage), [
      "read trace",
      "perf script and fold",
      "fold perf samples",
      "judge",
      "after",
    ]);
    assert.equal(r.laps!.reduce((a, l) => a + l.cpuMs, 0), r.cpuMs);
    assert.ok(r.laps!.every((l) => l.cpuMs >= 0), JSON.stringify(r.laps));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
