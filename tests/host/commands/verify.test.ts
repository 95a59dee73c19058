// What `axl verify` and the shell's `verify` share: the checked options, the exit code
// of each verdict, the headline and the verdict lines of a result captured in the VM.
import assert from "node:assert/strict";
import type { DeviceInfo } from "../../../lib/core/device.ts";
import {
  verdictLines,
  VERIFY_EXIT,
  verifyHeadline,
  verifyPlan,
} from "../../../lib/commands/verify.ts";
import { UsageError } from "../../../lib/commands/spec.ts";
import { DEFAULT_ACCEPTED_EXPORTERS } from "../../../lib/verify/judge.ts";
import type { VerifyResult } from "../../../lib/verify/schema.ts";

const FIXTURES = new URL("../../fixtures/trace/6.12-axl/", import.meta.url);

function result(name: string): VerifyResult {
  return JSON.parse(Deno.readTextFileSync(new URL(`${name}/result.json`, FIXTURES)));
}

Deno.test("verifyPlan() fills the defaults and reads repeated and comma-separated exporters", () => {
  const plain = verifyPlan({ values: {}, positionals: [] });
  assert.equal(plain.frames, 60);
  assert.equal(plain.mode, "zero-copy");
  assert.equal(plain.jobTimeoutMs, undefined);
  assert.equal(
    verifyPlan({ values: { "job-timeout": "2500" }, positionals: [] }).jobTimeoutMs,
    2500,
  );
  assert.deepEqual(plain.run.judge, {
    acceptedExporters: [...DEFAULT_ACCEPTED_EXPORTERS],
    copyThresholdPercent: 1,
    evidence: "auto",
  });
  assert.deepEqual([plain.run.graph, plain.run.perf, plain.run.artifacts], [
    true,
    true,
    "artifacts/verify",
  ]);
  const p = verifyPlan({
    values: {
      "accept-exporter": ["a,b", "c"],
      "bufinfo-interval": "0",
      "buffer-kb": "0x400",
      "no-perf": true,
      mode: "copy",
    },
    positionals: [],
  });
  assert.deepEqual(p.run.judge?.acceptedExporters?.slice(-3), ["a", "b", "c"]);
  assert.deepEqual([p.run.bufinfoIntervalMs, p.run.bufferSizeKb, p.run.perf, p.mode], [
    0,
    1024,
    false,
    "copy",
  ]);
});

Deno.test("verifyPlan() names the option that is wrong", () => {
  const cases: [Record<string, string>, RegExp][] = [
    [{ frames: "1.5" }, /--frames must be an integer >= 1, got '1.5'/],
    [{ "buffer-kb": "0" }, /--buffer-kb must be an integer >= 1/],
    [{ "bufinfo-interval": "-1" }, /--bufinfo-interval must be an integer >= 0/],
    [{ threshold: "x" }, /--threshold must be a percentage in \(0, 100\], got 'x'/],
    [{ mode: "fast" }, /--mode must be zero-copy or copy, got 'fast'/],
    [{ "job-timeout": "0" }, /--job-timeout must be an integer >= 1, got '0'/],
  ];
  for (const [values, message] of cases) {
    assert.throws(() => verifyPlan({ values, positionals: [] }), (e: Error) => {
      return e instanceof UsageError && message.test(e.message) && e.message.startsWith("verify: ");
    });
  }
  assert.throws(() => verifyPlan({ values: {}, positionals: ["x"] }), /unexpected 'x'/);
});

Deno.test("each verdict has its exit code", () => {
  assert.deepEqual(VERIFY_EXIT, { PASS: 0, FAIL: 1, INCONCLUSIVE: 2, SKIP: 2 });
});

Deno.test("verifyHeadline() says SIMULATED on metis-sim", () => {
  const info = { engine: "metis-sim", device: "0000:00:03.0", caps: ["simulated"] };
  assert.match(
    verifyHeadline(info as unknown as DeviceInfo),
    /^axl verify: no NPU here: builtin workload against the SIMULATED device \(metis-sim on 0000:00:03\.0, /,
  );
  const real = { engine: "metis", device: "0000:01:00.0", caps: [] };
  assert.equal(
    verifyHeadline(real as unknown as DeviceInfo),
    "axl verify: builtin workload on metis 0000:01:00.0",
  );
});

Deno.test("verdictLines() of the copy run: four invariants, evidence, latency, each diagnosis, notes", () => {
  const r = result("copy");
  const lines = verdictLines(r);
  assert.deepEqual(
    lines.slice(0, 4).map((l) => l.slice(0, 16)),
    Object.values(r.axl.invariants).map((i) => `${i.id} ${i.status.padEnd(12)} `.slice(0, 16)),
  );
  assert.match(lines[3]!, /^I4 FAIL {9}/);
  assert.equal(
    lines[4],
    "evidence: axl-tracepoints (importer 0000:00:02.0: the axl device (axl.ko, PCI driver " +
      "axl-metis-sim))",
  );
  assert.equal(
    lines[5],
    `latency (trace): p50 ${r.axl.latency.p50} µs, p90 ${r.axl.latency.p90} µs, ` +
      `p99 ${r.axl.latency.p99} µs over 60 frames`,
  );
  const diagnoses = lines.filter((l) => l.startsWith("diagnosis ["));
  assert.equal(diagnoses.length, r.axl.diagnosis.length);
  for (const d of diagnoses) {
    assert.match(d, /^diagnosis \[(I\d|latency)\] .+\n {2}cause: .+\n {2}fix: {3}.+$/);
  }
  assert.deepEqual(
    lines.filter((l) => l.startsWith("note: ")),
    r.axl.notes.map((n) => `note: ${n}`),
  );
  assert.equal(lines.length, 6 + r.axl.diagnosis.length + r.axl.notes.length);
});
