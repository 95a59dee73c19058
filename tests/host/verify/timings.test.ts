import assert from "node:assert/strict";
import { judgeArtifacts } from "../../../lib/verify/replay.ts";
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

Deno.test("judgeArtifacts() times its stages on a clock and judges as without one", async () => {
  const dir = runDir("zero-copy");
  const clock = new StageClock();
  clock.workloadEnded();
  const timed = await judgeArtifacts(dir, undefined, clock);
  assert.deepEqual(clock.timings().stages.map((s) => s.stage), [
    "read trace",
    "fold perf samples",
    "judge",
  ]);
  assert.deepEqual(timed, await judgeArtifacts(dir));
});
