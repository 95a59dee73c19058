// Truthful details (docs/design.md#i1-two-devices-attached): I1 for both shapes of sharing with
// devices counted once, I4's inclusive threshold, its sample minimum and the share of samples
// without a symbol.
import assert from "node:assert/strict";
import { addSample, emptySummary } from "../../../lib/trace/parse/bufinfo_summary.ts";
import type { PerfSummary, SymbolShare } from "../../../lib/trace/parse/perf_script.ts";
import { judgeAttachments } from "../../../lib/verify/attachments.ts";
import { judgeCopies, minSamplesFor } from "../../../lib/verify/copies.ts";

function sample(exporter: string, devices: string[]) {
  return addSample(emptySummary(), {
    buffers: [{
      size: 1 << 20,
      flags: 2,
      mode: 7,
      count: 3,
      exporter,
      inode: 9,
      name: "",
      devices,
      fences: [],
      line: 3,
    }],
  }, 0);
}

Deno.test("judgeAttachments() passes an allocator's buffer only with two distinct devices attached", () => {
  assert.equal(
    judgeAttachments(sample("system", ["vivid.0", "0000:00:02.0"]), new Set([9]), [])
      .invariant.status,
    "PASS",
  );
  const twice = judgeAttachments(
    sample("system", ["0000:00:02.0", "0000:00:02.0"]),
    new Set([9]),
    [],
  );
  assert.equal(twice.invariant.status, "FAIL", "one device attached twice is one device");
  assert.equal(twice.invariant.evidence.max_devices, 1);
  assert.match(twice.invariant.summary, /at most 1 distinct device/);
});

Deno.test("judgeAttachments() passes a producer device's own buffer with one other device attached", () => {
  const v = judgeAttachments(sample("videobuf2_dma_contig", ["0000:00:02.0"]), new Set([9]), []);
  assert.equal(v.invariant.status, "PASS");
  assert.match(v.invariant.summary, /exported by the producer device \(videobuf2_dma_contig\)/);
  // An allocator's buffer with the importer alone attached is not shared.
  assert.equal(
    judgeAttachments(sample("system", ["0000:00:02.0"]), new Set([9]), []).invariant.status,
    "FAIL",
  );
  // Nor is a device-exported buffer nobody attached.
  assert.equal(
    judgeAttachments(sample("videobuf2_dma_contig", []), new Set([9]), []).invariant.status,
    "FAIL",
  );
});

Deno.test("judgeAttachments() does not pass a vb2 buffer that stayed within the device owning the workload's V4L2 nodes", () => {
  // vivid.0's capture exported it and vivid.0's output attached it: one device.
  const one = judgeAttachments(
    sample("videobuf2_dma_contig", ["vivid.0"]),
    new Set([9]),
    [],
    "bufinfo",
    ["vivid.0"],
  );
  assert.equal(one.invariant.status, "INCONCLUSIVE");
  assert.match(one.invariant.summary, /attached by vivid\.0 only/);
  assert.match(one.invariant.summary, /exporter and importer are one device/);
  // vivid.0's capture into vivid.1's output: the attached device is not the only exporter.
  const two = judgeAttachments(
    sample("videobuf2_dma_contig", ["vivid.1"]),
    new Set([9]),
    [],
    "bufinfo",
    ["vivid.0", "vivid.1"],
  );
  assert.equal(two.invariant.status, "PASS", two.invariant.summary);
  // The builtin: vivid.0 exports, the NPU attaches.
  assert.equal(
    judgeAttachments(sample("videobuf2_dma_contig", ["0000:00:03.0"]), new Set([9]), [], "x", [
      "vivid.0",
    ]).invariant.status,
    "PASS",
  );
});

function perf(samples: number, shares: Array<[string, string, number, string?]>): PerfSummary {
  const symbols: SymbolShare[] = shares.map(([symbol, dso, pct, copy]) => ({
    symbol,
    dso,
    period: pct,
    samples: Math.round((samples * pct) / 100),
    selfPercent: pct,
    ...(copy ? { copyRoutine: copy } : {}),
  }));
  const copyRoutines = symbols.filter((s) => s.copyRoutine);
  return {
    samples,
    totalPeriod: 100,
    events: ["cpu-clock"],
    symbols,
    copyRoutines,
    copyPercent: copyRoutines.reduce((a, s) => a + s.selfPercent, 0),
    unknownSamples: symbols.filter((s) => s.symbol === "[unknown]").reduce(
      (a, s) => a + s.samples,
      0,
    ),
  };
}

const ev = (summary: PerfSummary) => ({ summary, event: "cpu-clock", reason: "test" });

Deno.test("judgeCopies() fails a copy routine at exactly the threshold (>=)", () => {
  const at = judgeCopies(
    ev(perf(5000, [["memcpy", "libc.so.6", 1, "memcpy"], ["main", "app", 99]])),
    1,
    100,
  );
  assert.equal(at.invariant.status, "FAIL");
  assert.match(at.invariant.summary, /failing at or above/);
  assert.equal(at.invariant.evidence.comparison, "self_percent >= threshold_percent fails");
  const below = judgeCopies(
    ev(perf(5000, [["memcpy", "libc.so.6", 0.98, "memcpy"], ["main", "app", 99.02]])),
    1,
    100,
  );
  assert.equal(below.invariant.status, "PASS");
});

Deno.test("judgeCopies() is INCONCLUSIVE until a routine at the threshold would hold 10 samples", () => {
  assert.equal(minSamplesFor(1, 100), 1000);
  assert.equal(minSamplesFor(5, 100), 200);
  assert.equal(minSamplesFor(20, 100), 100, "never below the floor");
  const few = judgeCopies(ev(perf(400, [["main", "app", 100]])), 1, 100);
  assert.equal(few.invariant.status, "INCONCLUSIVE");
  assert.match(few.invariant.summary, /a 1% threshold needs 1000/);
  assert.deepEqual(few.diagnoses.map((d) => d.id), ["perf-few-samples"]);
  assert.equal(judgeCopies(ev(perf(400, [["main", "app", 100]])), 5, 100).invariant.status, "PASS");
});

Deno.test("judgeCopies() reports samples without a symbol per DSO and says when they could hide a copy", () => {
  const v = judgeCopies(
    ev(perf(4000, [
      ["[unknown]", "/usr/bin/deno", 30],
      ["[unknown]", "/tmp/perf-12.map", 0.5],
      ["main", "app", 69.5],
    ])),
    1,
    100,
  );
  assert.equal(v.invariant.status, "PASS", "unnamed samples are a caveat, not a copy");
  assert.match(v.invariant.summary, /30% in \/usr\/bin\/deno have no symbol and could hide a copy/);
  assert.deepEqual(v.invariant.evidence.unsymbolized, [
    { dso: "/usr/bin/deno", samples: 1200, percent: 30, could_hide_copy: true },
    { dso: "/tmp/perf-12.map", samples: 20, percent: 0.5, could_hide_copy: false },
  ]);
  assert.deepEqual(v.diagnoses.map((d) => d.id), ["perf-unsymbolized"]);
  const named = judgeCopies(ev(perf(4000, [["main", "app", 100]])), 1, 100);
  assert.deepEqual(named.invariant.evidence.unsymbolized, []);
  assert.doesNotMatch(named.invariant.summary, /could hide/);
});
