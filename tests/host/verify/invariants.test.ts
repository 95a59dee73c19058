// The four invariant modules on their own, branch by branch (the captured runs cover the
// verdicts of whole runs: judge.test.ts, replay.test.ts).
import assert from "node:assert/strict";
import { addSample, emptySummary } from "../../../lib/trace/parse/bufinfo_summary.ts";
import type { PerfSummary } from "../../../lib/trace/parse/perf_script.ts";
import { judgeAttachments } from "../../../lib/verify/attachments.ts";
import { judgeExporter } from "../../../lib/verify/exporter.ts";
import { type AxlCounts, judgeAccounting } from "../../../lib/verify/accounting.ts";
import { judgeCopies } from "../../../lib/verify/copies.ts";

function bufinfo(devices: Record<number, string[]>) {
  return addSample(emptySummary(), {
    buffers: Object.entries(devices).map(([inode, d], i) => ({
      size: 4096,
      flags: 2,
      mode: 7,
      count: 3,
      exporter: "system",
      inode: Number(inode),
      name: "",
      devices: d,
      fences: [],
      line: 3 + i,
    })),
  }, 0);
}

Deno.test("judgeAttachments() tells unknown, unsampled and single-attached frames apart", () => {
  const skip = judgeAttachments({ unavailable: "no debugfs" }, new Set([9]), []);
  assert.equal(skip.invariant.status, "SKIP");
  assert.deepEqual(skip.diagnoses.map((d) => d.id), ["bufinfo-unavailable"]);
  const none = judgeAttachments(bufinfo({ 9: ["a", "b"] }), new Set(), []);
  assert.equal(none.invariant.status, "INCONCLUSIVE");
  assert.deepEqual(none.diagnoses, []);
  const unsampled = judgeAttachments(bufinfo({ 7: ["a", "b"] }), new Set([9]), []);
  assert.equal(unsampled.invariant.status, "INCONCLUSIVE");
  assert.deepEqual(unsampled.diagnoses.map((d) => d.id), ["attach-not-sampled"]);
  const one = judgeAttachments(bufinfo({ 9: ["a"] }), new Set([9]), [{ pid: 42, inode: 9 }]);
  assert.equal(one.invariant.status, "FAIL");
  assert.equal(one.sampled.length, 1);
  assert.deepEqual(one.multi, []);
  assert.match(one.diagnoses[0]!.symptom, /pid 42 inode 9/);
});

Deno.test("judgeExporter() skips with I1, and passes only multi-attached accepted frames", () => {
  const e = {
    exporterOf: new Map<number, string>(),
    frameInodes: new Set([9]),
    sampled: [],
    multi: [],
    accepted: ["system"],
  };
  assert.equal(judgeExporter({ ...e, attachments: "SKIP" }).invariant.status, "SKIP");
  assert.equal(judgeExporter({ ...e, attachments: "FAIL" }).invariant.status, "INCONCLUSIVE");
  const multi = [...bufinfo({ 9: ["a", "b"] }).inodes.values()];
  const known = { ...e, sampled: multi, attachments: "FAIL" as const };
  assert.equal(judgeExporter(known).invariant.status, "INCONCLUSIVE");
  const pass = judgeExporter({ ...known, multi, attachments: "PASS" });
  assert.equal(pass.invariant.status, "PASS");
  assert.deepEqual(pass.invariant.evidence.basis, "multi-attached frames");
});

Deno.test("judgeAccounting() skips missing events, fails unbalanced releases, and trusts no lossy count", () => {
  const counts = (imports: number, releases: number, open: number[] = []): AxlCounts => ({
    imports,
    releases,
    submits: 0,
    completes: 0,
    unreleasedHandles: () => open,
  });
  const missing = judgeAccounting(counts(2, 2), 2, ["axl:axl_dmabuf_import"], false);
  assert.deepEqual(missing.diagnoses.map((d) => d.id), ["axl-events-missing"]);
  assert.equal(missing.invariant.status, "SKIP");
  assert.equal(judgeAccounting(counts(1, 0), 2, [], true).invariant.status, "INCONCLUSIVE");
  const unknown = judgeAccounting(counts(2, 2), null, [], false);
  assert.equal(unknown.invariant.status, "INCONCLUSIVE");
  assert.equal(unknown.submitted, null);
  const leak = judgeAccounting(counts(2, 2, [5]), 2, [], false);
  assert.equal(leak.invariant.status, "FAIL");
  assert.deepEqual(leak.diagnoses.map((d) => d.id), ["releases-unbalanced"]);
  assert.equal(judgeAccounting(counts(2, 2), 2, [], false).invariant.status, "PASS");
});

Deno.test("judgeCopies() names the hot copy routine and its caller, and wants enough samples", () => {
  const summary = (copyPercent: number, samples: number): PerfSummary => {
    const memcpy = {
      symbol: "__memmove_avx_unaligned_erms",
      dso: "libc.so.6",
      period: 1,
      samples,
      selfPercent: copyPercent,
      copyRoutine: "glibc-x86",
      topCaller: "frame_copy",
    };
    return {
      samples,
      totalPeriod: samples,
      events: ["cpu-clock"],
      symbols: [memcpy],
      copyRoutines: [memcpy],
      copyPercent,
      unknownSamples: 0,
    };
  };
  const hot = judgeCopies({ summary: summary(12.5, 500), event: "cpu-clock", reason: "" }, 1, 100);
  assert.equal(hot.invariant.status, "FAIL");
  assert.deepEqual(hot.hot, ["__memmove_avx_unaligned_erms"]);
  assert.match(hot.diagnoses[0]!.symptom, /called from frame_copy/);
  assert.equal(hot.perf.top[0]?.top_caller, "frame_copy");
  const few = judgeCopies({ summary: summary(0.5, 20), event: "cpu-clock", reason: "" }, 1, 100);
  assert.equal(few.invariant.status, "INCONCLUSIVE");
  assert.deepEqual(few.diagnoses.map((d) => d.id), ["perf-few-samples"]);
  // 500 samples hold 5 at 1%: too few for the threshold to mean something.
  const short = judgeCopies({ summary: summary(0.5, 500), event: "cycles", reason: "" }, 1, 100);
  assert.equal(short.invariant.status, "INCONCLUSIVE");
  const pass = judgeCopies({ summary: summary(0.5, 1000), event: "cycles", reason: "" }, 1, 100);
  assert.equal(pass.invariant.status, "PASS");
  assert.deepEqual(pass.diagnoses, []);
});
