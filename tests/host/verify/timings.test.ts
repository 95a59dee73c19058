import assert from "node:assert/strict";
import { saveAndFold } from "../../../lib/verify/_perf_capture.ts";
import { judgeArtifacts, readCapture } from "../../../lib/verify/replay.ts";
import { StageClock } from "../../../lib/verify/timings.ts";
import { runDir } from "./_runs.ts";

Deno.test("StageClock.timings() adds up the stages from the workload's end", async () => {
  const clock = new StageClock();
  clock.workloadStarted();
  await new Promise((r) => setTimeout(r, 20));
  clock.workloadEnded();
  await new Promise((r) => setTimeout(r, 10));
  clock.lap("drain");
  await new Promise((r) => setTimeout(r, 10));
  clock.lap("perf script");
  const t = clock.timings();
  assert.deepEqual(t.stages.map((s) => s.stage), ["drain", "perf script"]);
  assert.ok(t.workloadMs >= 15, `workload ${t.workloadMs} ms`);
  assert.ok(t.stages.every((s) => s.ms >= 5), JSON.stringify(t.stages));
  const sum = t.stages.reduce((a, s) => a + s.ms, 0);
  assert.ok(Math.abs(sum - t.toVerdictMs) <= 0.2, `${sum} against ${t.toVerdictMs}`);
});

Deno.test("StageClock.mark() records background work after the workload's end beside the stages", async () => {
  const clock = new StageClock();
  clock.workloadStarted();
  clock.workloadEnded();
  await new Promise((r) => setTimeout(r, 10));
  clock.mark("perf record exited");
  await new Promise((r) => setTimeout(r, 10));
  clock.lap("drain");
  const t = clock.timings();
  assert.deepEqual(t.marks?.map((m) => m.what), ["perf record exited"]);
  const at = t.marks![0]!.atMs;
  assert.ok(
    at >= 5 && at <= t.stages[0]!.ms,
    `mark at ${at} ms, drain ended at ${t.stages[0]!.ms}`,
  );
  assert.deepEqual(t.stages.map((s) => s.stage), ["drain"]);
  assert.equal(new StageClock().timings().marks, undefined);
});

Deno.test("judgeArtifacts() times its stages on a clock and judges as without one", async () => {
  const dir = runDir("zero-copy");
  const clock = new StageClock();
  clock.workloadEnded();
  const timed = await judgeArtifacts(dir, undefined, clock);
  assert.deepEqual(clock.timings().stages.map((s) => s.stage), [
    "read trace",
    "perf script and fold",
    "fold perf samples",
    "judge",
  ]);
  assert.deepEqual(timed, await judgeArtifacts(dir));
});

Deno.test("saveAndFold() saves perf script's bytes and folds them as the judge does", async () => {
  const dir = runDir("copy");
  const capture = await readCapture(dir);
  const pids = capture.record.workload.pids;
  const gz = (await Deno.open(`${dir}/perf.script.gz`)).readable;
  const text = await new Response(gz.pipeThrough(new DecompressionStream("gzip"))).bytes();
  const tmp = await Deno.makeTempDir();
  try {
    const path = `${tmp}/perf.script`;
    const { summary } = await saveAndFold(ReadableStream.from([text]), path, pids);
    assert.deepEqual(await Deno.readFile(path), text);
    assert.ok(summary && summary.samples > 0);
    // The judge takes the summary instead of folding the file: the same result.
    assert.deepEqual(
      await judgeArtifacts({ ...capture, perfSummary: Promise.resolve(summary) }),
      await judgeArtifacts(dir),
    );
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("saveAndFold() saves output that does not parse and leaves the fold to the judge", async () => {
  const tmp = await Deno.makeTempDir();
  try {
    const bad = new TextEncoder().encode("\tdeadbeef frame before any sample (x)\n");
    const out = await saveAndFold(ReadableStream.from([bad]), `${tmp}/perf.script`, [1]);
    assert.deepEqual(out, {});
    assert.deepEqual(await Deno.readFile(`${tmp}/perf.script`), bad);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});

Deno.test("judgeArtifacts() takes a live capture's perf summary instead of folding perf.script", async () => {
  const capture = await readCapture(runDir("zero-copy"));
  const r = await judgeArtifacts({
    ...capture,
    perfSummary: Promise.resolve({
      samples: 1,
      totalPeriod: 1,
      events: ["cpu-clock"],
      symbols: [],
      copyRoutines: [],
      copyPercent: 0,
      unknownSamples: 0,
    }),
  });
  assert.equal(r.axl.perf.samples, 1);
});

Deno.test("judgeArtifacts() folds perf.script when a live fold gave no summary", async () => {
  const dir = runDir("copy");
  const capture = await readCapture(dir);
  const r = await judgeArtifacts({ ...capture, perfSummary: Promise.resolve(undefined) });
  assert.deepEqual(r, await judgeArtifacts(dir));
});

Deno.test("judgeArtifacts() fails when perf.script could not be written", async () => {
  const capture = await readCapture(runDir("copy"));
  const failed = Promise.reject(new Error("perf.script: No space left on device"));
  await assert.rejects(
    judgeArtifacts({ ...capture, perfSummary: failed }),
    /perf.script: No space left on device/,
  );
});
