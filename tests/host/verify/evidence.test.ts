// Evidence of imports from whoever imports: the runs the verify device test captured in the
// VM (axl.ko + vivid, kprobe events defined beside our tracepoints; see the fixtures README)
// judged from each source in turn.
import assert from "node:assert/strict";
import { join } from "node:path";
import { judgeArtifacts, readCapture } from "../../../lib/verify/replay.ts";
import { readTraceFacts } from "../../../lib/verify/trace_facts.ts";
import { runDir } from "./_runs.ts";

const ZERO = runDir("zero-copy");
const IMPORTER = "0000:00:02.0";

Deno.test("the probe events of a VM capture fold per device, with inodes, balanced", async () => {
  using f = await Deno.open(join(ZERO, "trace.txt"));
  const facts = await readTraceFacts(f);
  assert.equal(facts.unparsed, 0);
  const dmabuf = facts.dmabuf!;
  assert.equal(dmabuf.unnamed, 0);
  assert.equal(dmabuf.inodes, true);
  const use = dmabuf.devices.get(IMPORTER)!;
  // Per frame the NPU maps the frame (to-device) and the result buffer (bidirectional).
  assert.equal(use.maps, 120);
  assert.equal(use.unmaps, 120);
  assert.equal(use.attaches, use.detaches);
  assert.equal(use.openMaps.size, 0);
  assert.equal(facts.join?.imports, 60, "our tracepoint saw the 60 frame imports");
});

Deno.test("judgeArtifacts() uses our tracepoints by default and kprobes with --evidence generic: PASS both", async () => {
  const axl = await judgeArtifacts(ZERO);
  assert.equal(axl.axl.status, "PASS");
  assert.equal(axl.axl.evidence?.source, "axl-tracepoints");
  assert.deepEqual(
    Object.values(axl.axl.invariants).map((i) => i.source),
    ["bufinfo", "axl-tracepoints", "axl-tracepoints", "perf"],
  );
  const generic = await judgeArtifacts(ZERO, { evidence: "generic" });
  assert.equal(generic.axl.status, "PASS", JSON.stringify(generic.axl.invariants.I3));
  assert.equal(generic.axl.evidence?.source, "kprobes");
  assert.deepEqual(generic.axl.evidence?.passed_over, [
    "axl-tracepoints: ignored (--evidence generic)",
  ]);
  assert.deepEqual(
    Object.values(generic.axl.invariants).map((i) => i.source),
    ["bufinfo", "bufinfo", "kprobes", "perf"],
  );
  assert.equal(generic.detail.imports, 60);
  assert.equal(generic.detail.releases, 60);
  assert.deepEqual(generic.detail.multi_attach_inodes, axl.detail.multi_attach_inodes);
  assert.equal(generic.axl.frames.traced, 60, "frames come from the workload alone");
});

Deno.test("--importer naming a device that imported nothing fails I3 and lists who did", async () => {
  const r = await judgeArtifacts(ZERO, { evidence: "generic", importer: "vgem" });
  assert.equal(r.axl.invariants.I3.status, "FAIL");
  const d = r.axl.diagnosis.find((x) => x.id === "importer-never-maps")!;
  assert.match(d.symptom, /devices that did: 0000:00:02\.0/);
  assert.equal(r.axl.invariants.I1.status, "INCONCLUSIVE", "vgem attached no frame");
  // In auto mode another importer than ours also turns our tracepoints away.
  const auto = await judgeArtifacts(ZERO, { importer: "vgem" });
  assert.equal(auto.axl.evidence?.source, "kprobes");
});

Deno.test("without probe events the importer's frames come from bufinfo, and I3 is not a FAIL", async () => {
  const capture = await readCapture(ZERO);
  capture.record.probes = { unavailable: "the kernel has no kprobe events (CONFIG_KPROBE_EVENTS)" };
  const r = await judgeArtifacts(capture, { evidence: "generic" });
  assert.equal(r.axl.evidence?.source, "bufinfo");
  assert.equal(r.axl.invariants.I3.status, "INCONCLUSIVE");
  assert.ok(r.axl.diagnosis.some((x) => x.id === "import-evidence-missing"));
  assert.equal(r.axl.invariants.I1.status, "PASS", "bufinfo still shows the shared frames");
  assert.equal(r.axl.evidence?.probes.available, false);

  capture.record.importer = { name: null, axl: false, reason: "test" };
  const none = await judgeArtifacts(capture, { evidence: "generic" });
  assert.equal(none.axl.evidence?.source, "none");
  assert.equal(none.axl.invariants.I3.status, "SKIP");
  assert.notEqual(none.axl.status, "FAIL");
});

Deno.test("probes without inodes (no BTF arguments, as on 5.15): frames from bufinfo, extra maps INCONCLUSIVE", async () => {
  const dir = await Deno.makeTempDir();
  try {
    for (const f of ["bufinfo_samples.txt", "per_cpu_stats.txt", "perf.script.gz"]) {
      await Deno.copyFile(join(ZERO, f), join(dir, f));
    }
    const trace = await Deno.readTextFile(join(ZERO, "trace.txt"));
    await Deno.writeTextFile(join(dir, "trace.txt"), trace.replace(/ ino=\d+/g, ""));
    const record = JSON.parse(await Deno.readTextFile(join(ZERO, "capture.json")));
    record.probes.inode = false;
    await Deno.writeTextFile(join(dir, "capture.json"), JSON.stringify(record));
    const r = await judgeArtifacts(dir, { evidence: "generic" });
    assert.equal(r.axl.evidence?.source, "kprobes");
    assert.equal(r.axl.invariants.I1.status, "PASS");
    assert.match(String(r.axl.invariants.I1.evidence.frame_inodes_from), /bufinfo buffers/);
    // 120 maps (frames and the result buffer) for 60 frames: not a verdict without inodes.
    assert.equal(r.axl.invariants.I3.status, "INCONCLUSIVE");
    assert.ok(r.axl.diagnosis.some((x) => x.id === "probe-inode-missing"));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the copy control fails I4 whatever the evidence of imports", async () => {
  for (const evidence of ["auto", "generic"] as const) {
    const r = await judgeArtifacts(runDir("copy"), { evidence });
    assert.equal(r.axl.invariants.I4.status, "FAIL");
    assert.ok(r.detail.memcpy_hot.length > 0);
  }
});
