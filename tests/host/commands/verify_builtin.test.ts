// One builtin job's bound: what --job-timeout gives, and what the device refuses.
import assert from "node:assert/strict";
import { builtinJobTimeoutMs, verifyJobTimeoutMs } from "../../../lib/commands/verify_builtin.ts";
import { UsageError } from "../../../lib/commands/spec.ts";
import { MAX_SUBMIT_TIMEOUT_MS } from "../../../lib/core/device.ts";

const FOUR_K = { width: 3840, height: 2160 };

Deno.test("builtinJobTimeoutMs() takes --job-timeout as given, within the device's bound", () => {
  assert.equal(builtinJobTimeoutMs({ size: FOUR_K, jobTimeoutMs: 1 }, MAX_SUBMIT_TIMEOUT_MS), 1);
  assert.equal(
    builtinJobTimeoutMs(
      { size: FOUR_K, jobTimeoutMs: MAX_SUBMIT_TIMEOUT_MS },
      MAX_SUBMIT_TIMEOUT_MS,
    ),
    MAX_SUBMIT_TIMEOUT_MS,
  );
  // a Metis node has no such bound: 4K frames get their scaled default, or what is given
  assert.equal(builtinJobTimeoutMs({ size: FOUR_K }), verifyJobTimeoutMs(FOUR_K));
  assert.equal(builtinJobTimeoutMs({ size: FOUR_K, jobTimeoutMs: 60_000 }), 60_000);
});

Deno.test("builtinJobTimeoutMs() refuses a bound axl's engine would refuse on every submit", () => {
  assert.throws(
    () => builtinJobTimeoutMs({ size: FOUR_K, jobTimeoutMs: 12_000 }, MAX_SUBMIT_TIMEOUT_MS),
    (e: Error) =>
      e instanceof UsageError && /--job-timeout 12000/.test(e.message) &&
      e.message.includes(`${MAX_SUBMIT_TIMEOUT_MS} ms`),
  );
});
