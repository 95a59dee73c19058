// I4's evidence rule works both ways: a PASS needs a run where a routine at the threshold would
// hold ten samples, and a FAIL needs the routine at or above the threshold to hold ten itself.
import assert from "node:assert/strict";
import type { PerfSummary, SymbolShare } from "../../../lib/trace/parse/perf_script.ts";
import { judgeCopies, SAMPLES_AT_THRESHOLD } from "../../../lib/verify/copies.ts";

/** A cpu-clock summary (every sample one period) of `total` samples: `copy` of them in memcpy. */
function run(total: number, copy: number): { summary: PerfSummary; event: string; reason: string } {
  const share = (symbol: string, samples: number, copyRoutine?: string): SymbolShare => ({
    symbol,
    dso: symbol === "memcpy" ? "libc.so.6" : "app",
    period: samples,
    samples,
    selfPercent: (samples / total) * 100,
    ...(copyRoutine ? { copyRoutine, topCaller: "frame_copy" } : {}),
  });
  const symbols = [share("main", total - copy), ...(copy ? [share("memcpy", copy, "glibc")] : [])];
  const copyRoutines = symbols.filter((s) => s.copyRoutine);
  return {
    summary: {
      samples: total,
      totalPeriod: total,
      events: ["cpu-clock"],
      symbols,
      copyRoutines,
      copyPercent: copyRoutines.reduce((a, s) => a + s.selfPercent, 0),
      unknownSamples: 0,
    },
    event: "cpu-clock",
    reason: "test",
  };
}

Deno.test("judgeCopies() does not FAIL a copy routine at the threshold on 1 sample of 100", () => {
  const v = judgeCopies(run(100, 1), 1, 100);
  assert.equal(v.invariant.status, "INCONCLUSIVE");
  assert.equal(
    v.invariant.summary,
    "memcpy at 1% self in 1 of 100 samples: at or above the 1% threshold, but a FAIL needs " +
      "10 samples in the routine",
  );
  assert.deepEqual(v.diagnoses.map((d) => d.id), ["perf-few-samples"]);
  assert.match(v.diagnoses[0]!.symptom, /memcpy at 1% self in 1 of 100 samples/);
  assert.deepEqual(v.hot, [], "not shown hot: result.json's memcpy_hot stays empty");
  assert.deepEqual(v.invariant.evidence.too_few_samples, [
    { symbol: "memcpy", dso: "libc.so.6", self_percent: 1, samples: 1 },
  ]);
  assert.equal(v.invariant.evidence.min_routine_samples, SAMPLES_AT_THRESHOLD);
});

Deno.test("judgeCopies() FAILs a routine at the threshold from its tenth sample on", () => {
  // 9 of 900 and 10 of 1000 are both exactly 1 %: only the second holds ten samples.
  assert.equal(judgeCopies(run(900, 9), 1, 100).invariant.status, "INCONCLUSIVE");
  const ten = judgeCopies(run(1000, 10), 1, 100);
  assert.equal(ten.invariant.status, "FAIL");
  assert.equal(
    ten.invariant.summary,
    "memcpy at 1% self (threshold 1%, failing at or above)",
  );
  assert.deepEqual(ten.hot, ["memcpy"]);
  assert.deepEqual(ten.diagnoses.map((d) => d.id), ["memcpy-hot"]);
});

Deno.test("judgeCopies() FAILs a routine holding ten samples in a run too short to PASS", () => {
  // 10 of 100 is 10 %: the routine shows itself, though 100 samples could never PASS at 1 %.
  const v = judgeCopies(run(100, 10), 1, 100);
  assert.equal(v.invariant.status, "FAIL");
  assert.match(v.invariant.summary, /^memcpy at 10% self \(threshold 1%/);
  // 9 of 100 (9 %) is over the threshold by share but short of ten samples.
  const nine = judgeCopies(run(100, 9), 1, 100);
  assert.equal(nine.invariant.status, "INCONCLUSIVE");
  assert.match(nine.invariant.summary, /memcpy at 9% self in 9 of 100 samples/);
});

Deno.test("judgeCopies() PASSes only a run where a routine at the threshold would hold ten samples", () => {
  // No copy routine at all: 999 samples cannot show 1 %, 1000 can.
  const short = judgeCopies(run(999, 0), 1, 100);
  assert.equal(short.invariant.status, "INCONCLUSIVE");
  assert.match(short.invariant.summary, /only 999 samples: a 1% threshold needs 1000/);
  assert.equal(judgeCopies(run(1000, 0), 1, 100).invariant.status, "PASS");
  // A copy routine below the threshold with enough samples in the run: PASS.
  const below = judgeCopies(run(1000, 9), 1, 100);
  assert.equal(below.invariant.status, "PASS");
  assert.match(below.invariant.summary, /no copy routine at or above 1% \(all copies: 0.9%/);
});
