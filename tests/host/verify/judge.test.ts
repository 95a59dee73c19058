import assert from "node:assert/strict";
import { judge } from "../../../lib/verify/judge.ts";
import { parseVerifyResult, VerifyResultSchema } from "../../../lib/verify/schema.ts";
import { FAILURE_MODES } from "../../../lib/verify/diagnosis.ts";
import { emptySummary } from "../../../lib/trace/parse/bufinfo_summary.ts";
import { judgedRun } from "./_runs.ts";
import { judgeArtifacts } from "../../../lib/verify/replay.ts";
import { unitJudgeInput } from "./_unit_input.ts";

const SEED_KEYS = [
  "I1_attach_count_ge2",
  "I2_known_exporter",
  "I3_axl_imports",
  "I4_no_memcpy_hot",
  "detail",
  "pass",
  "axl",
];
const DETAIL_KEYS = [
  "imports",
  "releases",
  "fence_wait_lines",
  "multi_attach_inodes",
  "exporters",
  "memcpy_hot",
];

Deno.test("judge() passes the VM's zero-copy run on all four invariants with real evidence", async () => {
  const r = await judgedRun("zero-copy");
  assert.deepEqual(Object.keys(r), SEED_KEYS);
  assert.deepEqual(Object.keys(r.detail), DETAIL_KEYS);
  for (const i of Object.values(r.axl.invariants)) {
    assert.equal(i.status, "PASS", `${i.id}: ${i.summary}`);
  }
  assert.equal(r.pass, true);
  assert.equal(r.axl.status, "PASS");
  assert.equal(r.detail.imports, r.axl.frames.submitted);
  assert.equal(r.detail.releases, r.detail.imports);
  assert.ok(r.detail.multi_attach_inodes.length > 0);
  assert.deepEqual(r.detail.exporters, ["system"]);
  assert.deepEqual(r.detail.memcpy_hot, []);
  assert.equal(r.axl.latency.source, "trace");
  assert.ok(r.axl.latency.p50! > 0 && r.axl.latency.p99! >= r.axl.latency.p50!);
  assert.equal(r.axl.trace.overrun, 0);
  VerifyResultSchema.parse(JSON.parse(JSON.stringify(r)));
});

Deno.test("judge() fails the VM's copy-mode run on I4 and names the copy routine", async () => {
  const r = await judgedRun("copy");
  assert.equal(r.axl.status, "FAIL");
  assert.equal(r.axl.invariants.I4.status, "FAIL");
  assert.equal(r.I4_no_memcpy_hot, false);
  assert.ok(r.detail.memcpy_hot.length > 0);
  assert.match(
    r.axl.invariants.I4.summary,
    new RegExp(r.detail.memcpy_hot[0]!.replace(/[$]/g, "\\$")),
  );
  assert.ok(r.axl.diagnosis.some((d) => d.id === "memcpy-hot"));
});

Deno.test("judge() calls the VM's tiny-buffer run INCONCLUSIVE, never PASS", async () => {
  const r = await judgedRun("tiny-buffer");
  assert.equal(r.axl.status, "INCONCLUSIVE");
  assert.equal(r.pass, false);
  assert.ok(r.axl.trace.overrun > 0);
  assert.ok(r.axl.diagnosis.some((d) => d.id === "trace-lost-events"));
  // Counts come from the trace: I3 cannot pass. I1 rests on bufinfo samples and may.
  assert.equal(r.axl.invariants.I3.status, "INCONCLUSIVE");
  assert.equal(r.I3_axl_imports, false);
});

const base = () => unitJudgeInput({ events: ["axl:axl_dmabuf_import"] });

Deno.test("judge() maps missing axl events to I3 SKIP, missing imports and unbalanced releases to FAIL rows", () => {
  const missing = base();
  missing.setup.missingEvents = ["axl:*"];
  let r = judge(missing);
  assert.equal(r.axl.invariants.I3.status, "SKIP", "missing evidence is not a FAIL");
  assert.ok(r.axl.diagnosis.some((d) => d.id === "axl-events-missing"));

  r = judge(base());
  assert.ok(r.axl.diagnosis.some((d) => d.id === "axl-import-never-fires"));

  const unbalanced = base();
  unbalanced.trace.imports.push({ line: 1, handle: 1, inode: 5, exporter: "system" }, {
    line: 2,
    handle: 2,
    inode: 6,
    exporter: "system",
  });
  unbalanced.trace.releases.push({ line: 3, handle: 1, inode: 5, exporter: "system" });
  r = judge(unbalanced);
  assert.equal(r.axl.invariants.I3.status, "FAIL");
  assert.ok(r.axl.diagnosis.some((d) => d.id === "releases-unbalanced" && d.symptom.includes("2")));

  const extra = base();
  extra.workload.framesSubmitted = 3;
  extra.trace.imports.push({ line: 1, handle: 1, inode: 5, exporter: "system" });
  extra.trace.releases.push({ line: 2, handle: 1, inode: 5, exporter: "system" });
  r = judge(extra);
  assert.ok(r.axl.diagnosis.some((d) => d.id === "imports-ne-frames"));
});

Deno.test("judge() reports SKIP for missing perf/bufinfo and an unknown exporter as I2 FAIL", () => {
  const input = base();
  input.bufinfo = { unavailable: "debugfs not mounted" };
  let r = judge(input);
  assert.equal(r.axl.invariants.I1.status, "SKIP");
  assert.equal(r.axl.invariants.I4.status, "SKIP");
  assert.notEqual(r.axl.status, "PASS");

  const exp = base();
  exp.trace.imports.push({ line: 1, handle: 1, inode: 5, exporter: "ion" });
  const b = emptySummary();
  b.samples = 1;
  b.inodes.set(5, {
    inode: 5,
    exporter: "ion",
    name: "",
    size: 1,
    maxDevices: 2,
    devicesAtMax: ["cam", "npu"],
    devicesSeen: ["cam", "npu"],
    samples: 1,
    multiAttachSamples: 1,
    firstSeenMs: 0,
    lastSeenMs: 0,
  });
  exp.bufinfo = b;
  r = judge(exp);
  assert.equal(r.axl.invariants.I1.status, "PASS");
  assert.equal(r.axl.invariants.I2.status, "FAIL");
  assert.ok(r.axl.diagnosis.some((d) => d.id === "exporter-unknown" && d.symptom.includes("ion")));
  r = judge({ ...exp, options: { acceptedExporters: ["ion"] } });
  assert.equal(r.axl.invariants.I2.status, "PASS");
});

Deno.test("parseVerifyResult() names the first bad field", () => {
  assert.throws(
    () => parseVerifyResult({}),
    (e) => e instanceof TypeError && /I1_attach_count_ge2/.test(e.message),
  );
});

Deno.test("every failure mode has a symptom, cause, fix and source", () => {
  for (const [id, row] of Object.entries(FAILURE_MODES)) {
    for (const k of ["symptom", "cause", "fix", "source"] as const) {
      assert.ok(row[k].length > 5, `${id}.${k}`);
    }
  }
});

Deno.test("judge() results are exactly what VerifyResultSchema says, on every captured run", async () => {
  // judge() returns its result typed but unparsed: this is the check that was in it.
  const root = new URL("../../fixtures/trace/", import.meta.url);
  let judged = 0;
  for await (const kernel of Deno.readDir(root)) {
    if (!kernel.isDirectory) continue;
    for await (const run of Deno.readDir(new URL(`${kernel.name}/`, root))) {
      const dir = new URL(`${kernel.name}/${run.name}/`, root);
      try {
        await Deno.stat(new URL("capture.json", dir));
      } catch {
        continue;
      }
      const r = JSON.parse(JSON.stringify(await judgeArtifacts(dir.pathname)));
      // Parsing strips what the schema does not know and rejects what it forbids.
      assert.deepEqual(VerifyResultSchema.parse(r), r, `${kernel.name}/${run.name}`);
      judged++;
    }
  }
  assert.ok(judged >= 7, `${judged} runs judged`);
});
