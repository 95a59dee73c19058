// `axl verify -- COMMAND` on a user's own script that attaches each camera frame's own buffer
// to the Metis node (tests/device/verify/_metis_user_client.ts): zero-copy by construction.
// Judged from the kprobes on the node's PCI function (--evidence generic), never our axl:*
// tracepoints. I3 judges coverage: every frame's buffer mapped by the card; maps of the same
// buffers beyond one per frame (a probe, a retry) are a note, never a FAIL. Artifacts go to $AXL_RESULTS/verify-metis-user/ when the rig provides it.
import assert from "node:assert/strict";
import type { VerifyResult } from "../../lib/verify/schema.ts";
import { metisTarget, vividCapture } from "./verify/_metis_target.ts";

const results = Deno.env.get("AXL_RESULTS") ??
  await Deno.makeTempDir({ prefix: "axl-verify-metis-user-" });
/**
 * 40 frames: the client's JIT-heavy loop gave 23,596 perf samples for 120 frames in the x86
 * guest, so 40 still give I4 its 1,000 with a wide margin, in a third of the suite's time.
 */
const FRAMES = 40;
/**
 * I4's threshold here. Perf records the client from its start, and in the arm64 guest ~90 % of
 * its samples fall before the first frame (Deno loading mod.ts over 9p): glibc's
 * `__memcpy_generic` held 0.5–0.6 % of a 40-frame run on a quiet host and 1.02 % once under CI
 * load, against 0.2–0.6 % inside the frame loop (docs/verify.md, I4). 2 % sits above that
 * start-up; the copy control (verify.test.ts) keeps the default 1 %.
 */
const THRESHOLD = "2";
const CLI = new URL("../../tasks/axl.ts", import.meta.url).pathname;
const CLIENT = new URL("./verify/_metis_user_client.ts", import.meta.url).pathname;

Deno.test("axl verify -- a user's script attaching each camera frame to the Metis node: I3 PASS on coverage", async () => {
  const vivid = vividCapture();
  const { node, pci } = metisTarget();
  const dir = `${results}/verify-metis-user`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-check",
      "--allow-all",
      CLI,
      "verify",
      "--evidence",
      "generic",
      "--importer",
      pci,
      "--frames",
      String(FRAMES),
      "--threshold",
      THRESHOLD,
      "--artifacts",
      dir,
      "--",
      Deno.execPath(),
      "run",
      "--no-check",
      "--allow-all",
      CLIENT,
      String(FRAMES),
      node,
      vivid.path,
    ],
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  console.log(`verify metis user script (exit ${out.code}):\n${text}`);
  const r = JSON.parse(await Deno.readTextFile(`${dir}/result.json`)) as VerifyResult;
  const a = r.axl;
  assert.equal(a.workload.exit_code, 0, a.workload.stderr_tail);
  assert.equal(a.evidence?.source, "kprobes");
  assert.equal(a.evidence?.importer, pci);
  const i3 = a.invariants.I3;
  const maps = i3.evidence.imports as number;
  assert.ok(maps >= FRAMES, `every frame mapped by the card: ${i3.summary}`);
  assert.equal(i3.status, "PASS", i3.summary);
  if (maps > FRAMES) {
    // attach()'s own layout check maps a buffer the first time it sees it: the same buffers.
    assert.equal(i3.evidence.extra_maps, maps - FRAMES);
    assert.ok(a.notes.some((n) => n.startsWith(`I3: ${pci} mapped the frame buffers`)));
  }
  // The frames were shared: a heap exported them, vivid and the card attached them.
  assert.equal(a.invariants.I1.status, "PASS", a.invariants.I1.summary);
  assert.equal(a.invariants.I2.status, "PASS", a.invariants.I2.summary);
  assert.notEqual(a.invariants.I4.status, "FAIL", a.invariants.I4.summary);
});
