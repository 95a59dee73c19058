import assert from "node:assert/strict";
import { histogram, latencyStats, percentile } from "../../../lib/verify/latency.ts";

Deno.test("percentile() interpolates between closest ranks", () => {
  assert.equal(percentile([5], 99), 5);
  assert.equal(percentile([1, 2, 3, 4, 5], 50), 3);
  assert.equal(percentile([10, 20], 90), 19);
  assert.equal(percentile([3, 1, 2], 0), 1);
  assert.equal(percentile([3, 1, 2], 100), 3);
  assert.throws(() => percentile([], 50), RangeError);
  assert.throws(() => percentile([1], 101), RangeError);
});

Deno.test("latencyStats() ignores non-finite values and is undefined for none", () => {
  assert.equal(latencyStats([]), undefined);
  const s = latencyStats([100, NaN, 300, 200])!;
  assert.deepEqual({ count: s.count, min: s.min, max: s.max, mean: s.mean, p50: s.p50 }, {
    count: 3,
    min: 100,
    max: 300,
    mean: 200,
    p50: 200,
  });
});

Deno.test("histogram() puts every value in a bin, the max in the last", () => {
  const h = histogram([0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10], 5);
  assert.equal(h.length, 5);
  assert.equal(h.reduce((a, b) => a + b.count, 0), 11);
  assert.equal(h[4]!.count, 3);
  assert.deepEqual(histogram([7, 7], 3).map((b) => b.count), [2, 0, 0]);
  assert.throws(() => histogram([1], 0), RangeError);
});
