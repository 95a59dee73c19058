// A user's script that attaches each camera buffer once and holds it, verified with
// `--evidence generic` in the arm64 5.15 guest (tests/device/verify_metis_user.test.ts, `held`;
// fixture tests/fixtures/trace/5.15-arm64-generic/held/). 5.15 names no probe argument through
// BTF: the kprobe events reached each buffer's inode through the struct offsets measured from
// the kit kernel's build tree (`kernel-offsets`, scripts/kernel-offsets.sh), and I3 judged the
// held shape from them. Without those inodes the same run is INCONCLUSIVE.
import assert from "node:assert/strict";
import { judgeArtifacts } from "../../../lib/verify/replay.ts";
import {
  dmabufProbeDefinitions,
  parseKernelOffsets,
} from "../../../lib/trace/capture/kprobe_events.ts";

const dir = new URL("../../fixtures/trace/5.15-arm64-generic/held", import.meta.url).pathname;
/** As the live run judged it: `--threshold 2`, and the CLI's sample floor for 40 frames. */
const options = { evidence: "generic" as const, copyThresholdPercent: 2, minPerfSamples: 500 };

Deno.test("judgeArtifacts() gives back the result.json the arm64 held run wrote live", async () => {
  const saved = JSON.parse(await Deno.readTextFile(`${dir}/result.json`));
  const judged = JSON.parse(JSON.stringify(await judgeArtifacts(dir, options)));
  // The live run came before the verdict's one-sentence reason (story.ts): all else is the same.
  assert.equal(judged.axl.reason, "all four invariants passed");
  delete judged.axl.reason;
  assert.deepEqual(judged, saved);
});

Deno.test("arm64 5.15 held attachments: I3 PASS in the held shape, from inodes the probes read", async () => {
  const r = await judgeArtifacts(dir, options);
  const i3 = r.axl.invariants.I3;
  assert.equal(r.axl.status, "PASS");
  assert.equal(r.axl.evidence?.source, "kprobes");
  assert.equal(i3.status, "PASS", i3.summary);
  assert.equal(i3.evidence.shape, "held");
  assert.equal(
    i3.summary,
    "0000:00:01.0 held a mapping of each of the 4 buffers linux,cma exported for 40 frames; " +
      "4 unmaps (kprobes)",
  );
  assert.equal((i3.evidence.held_buffers as number[]).length, 4);
  assert.equal(r.axl.chain?.status, "whole");
});

Deno.test("the arm64 held run's probe lines are the ones the measured offsets give", async () => {
  const capture = JSON.parse(await Deno.readTextFile(`${dir}/capture.json`));
  const offsets = parseKernelOffsets(
    await Deno.readTextFile(`${dir}/kernel-offsets`),
    "kernel-offsets",
  );
  assert.ok(!("unavailable" in offsets), JSON.stringify(offsets));
  assert.equal(offsets.release, "5.15.215-axl-jetson-vm");
  const defs = dmabufProbeDefinitions(capture.probes.group, {
    // 5.15's dma-buf functions in available_filter_functions (no _unlocked wrappers)
    functions: new Set([
      "dma_buf_attach",
      "dma_buf_dynamic_attach",
      "dma_buf_detach",
      "dma_buf_map_attachment",
      "dma_buf_unmap_attachment",
    ]),
    argAccess: true,
    btfArgs: false,
    arch: "aarch64",
    offsets,
  });
  assert.ok(Array.isArray(defs));
  assert.deepEqual(capture.probes.definitions, defs.map((d) => d.withInode));
  assert.equal(capture.probes.inodeFrom, "offsets");
  // every probe event of the run carries an inode
  const trace = await Deno.readTextFile(`${dir}/trace.txt`);
  const events = trace.split("\n").filter((l) => / axl_kp_(attach|map|unmap|detach): /.test(l));
  assert.ok(events.length >= 16, `${events.length} probe events`);
  assert.ok(events.every((l) => / ino=\d+ \*\/$/.test(l)), "an inode in every event");
});

Deno.test("the same arm64 run without the inodes in its events: I3 INCONCLUSIVE, as before", async () => {
  const tmp = await Deno.makeTempDir({ prefix: "axl-held-no-inode-" });
  try {
    for (const e of Deno.readDirSync(dir)) {
      let text = await Deno.readFile(`${dir}/${e.name}`);
      if (e.name === "trace.txt") {
        text = new TextEncoder().encode(
          new TextDecoder().decode(text).replaceAll(/ ino=\d+ \*\//g, " */"),
        );
      }
      await Deno.writeFile(`${tmp}/${e.name}`, text);
    }
    const r = await judgeArtifacts(tmp, options);
    const i3 = r.axl.invariants.I3;
    assert.equal(i3.status, "INCONCLUSIVE", i3.summary);
    assert.equal(
      i3.summary,
      "0000:00:01.0 mapped 4 buffers for 40 frames submitted, but the probes carry no inode, " +
        "so output buffers it maps cannot be told from frames",
    );
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
