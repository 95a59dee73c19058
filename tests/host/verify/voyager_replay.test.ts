// The Voyager-shaped client and its direct-attach twin, verified in the VM rig with no axl
// tracepoint involved (tests/device/verify_voyager.test.ts; fixtures
// tests/fixtures/trace/6.12-voyager/). The transform client maps each vivid frame on the CPU,
// converts it per pixel into a system-heap buffer of its own pool and attaches that to the
// Metis node: no copy routine runs, and the chain section still says where the chain broke.
import assert from "node:assert/strict";
import { judgeArtifacts } from "../../../lib/verify/replay.ts";

const dir = (mode: string) =>
  new URL(`../../fixtures/trace/6.12-voyager/${mode}`, import.meta.url).pathname;
const options = { evidence: "generic" as const };

// The chain only: the invariants' own tests hold the rest of result.json.
for (const mode of ["transform", "direct"]) {
  Deno.test(`judgeArtifacts() gives back the chain the ${mode} client's live run wrote`, async () => {
    const saved = JSON.parse(await Deno.readTextFile(`${dir(mode)}/result.json`));
    const again = JSON.parse(JSON.stringify(await judgeArtifacts(dir(mode), options)));
    assert.deepEqual(again.axl.chain, saved.axl.chain);
  });
}

Deno.test("the transform client: the card never imported a camera buffer, pid and loop named", async () => {
  const r = await judgeArtifacts(dir("transform"), options);
  const c = r.axl.chain!;
  assert.equal(r.axl.status, "FAIL");
  assert.equal(r.axl.invariants.I1.status, "FAIL", r.axl.invariants.I1.summary);
  // no copy routine by name: I4 cannot see a per-pixel transform
  assert.notEqual(r.axl.invariants.I4.status, "FAIL", r.axl.invariants.I4.summary);
  assert.equal(c.status, "broken");
  assert.deepEqual(c.camera.devices, ["vivid.0"]);
  assert.deepEqual(c.camera.buffers.map((b) => [b.name, b.exporter, b.devices]), [
    ["axl-v4l2-0", "system", ["vivid.0"]],
    ["axl-v4l2-1", "system", ["vivid.0"]],
    ["axl-v4l2-2", "system", ["vivid.0"]],
    ["axl-v4l2-3", "system", ["vivid.0"]],
  ]);
  assert.equal(c.card.device, r.axl.evidence?.importer);
  assert.deepEqual(c.card.buffers.map((b) => [b.name, b.exporter]), [
    ["voyager-pool-0", "system"],
    ["voyager-pool-1", "system"],
    ["voyager-pool-2", "system"],
    ["voyager-pool-3", "system"],
  ]);
  assert.deepEqual(c.shared, []);
  assert.equal(c.between.length, 1);
  const p = c.between[0]!;
  assert.deepEqual(p.pid, r.axl.workload.pids[0]);
  assert.equal(p.comm, "deno");
  assert.deepEqual(p.camera, c.camera.buffers.map((b) => b.inode));
  assert.deepEqual(p.card, c.card.buffers.map((b) => b.inode));
  assert.deepEqual(p.card_writable, p.card);
  const loop = c.hot.find((h) => h.symbol === "convertNv12ToRgb (JIT)");
  assert.ok(loop && loop.self_percent > 10, JSON.stringify(c.hot));
  assert.equal(loop.copy_routine, undefined, "the loop is no copy routine by name");
  assert.match(
    c.summary,
    new RegExp(
      "^the card never imported a camera buffer: \\S+ imported 4 buffers exported by system " +
        "\\(voyager-pool-0, voyager-pool-1, voyager-pool-2, voyager-pool-3\\); vivid\\.0 filled 4 " +
        "buffers exported by system \\(axl-v4l2-0, axl-v4l2-1, axl-v4l2-2, axl-v4l2-3\\); pid \\d+ " +
        "\\(deno\\) mapped each of the camera's 4 buffers and each of the card's 4 writable; top " +
        "self symbols in the workload: convertNv12ToRgb \\(JIT\\) ",
    ),
  );
});

Deno.test("the direct-attach twin: the card imported the camera's own buffers, whole", async () => {
  const r = await judgeArtifacts(dir("direct"), options);
  const c = r.axl.chain!;
  assert.equal(c.status, "whole", c.summary);
  assert.deepEqual(c.shared, c.camera.buffers.map((b) => b.inode));
  assert.deepEqual(c.card.buffers.map((b) => b.name), [
    "axl-v4l2-0",
    "axl-v4l2-1",
    "axl-v4l2-2",
    "axl-v4l2-3",
  ]);
  assert.deepEqual(c.between, [], "no process mapped a camera buffer on the CPU");
  assert.equal(r.axl.invariants.I1.status, "PASS", r.axl.invariants.I1.summary);
  assert.equal(r.axl.invariants.I2.status, "PASS", r.axl.invariants.I2.summary);
  assert.equal(r.axl.invariants.I4.status, "PASS", r.axl.invariants.I4.summary);
});
