// A GStreamer pipeline whose video sink shows its preroll frame twice, verified in the VM
// (tests/device/gst_pipelines.test.ts): v4l2sink on the clock (sync=true, max-lateness=-1 so
// that TCG's late frames are not dropped) with show-preroll-frame at its default. vivid.0
// mapped the frame buffers 61 times for the 60 frames: I3 judges coverage, so the extra map is
// a note, not a FAIL.
import assert from "node:assert/strict";
import { DEFAULT_ACCEPTED_EXPORTERS } from "../../../lib/verify/judge.ts";
import { judgeArtifacts } from "../../../lib/verify/replay.ts";
import { asSavedBeforeChain } from "./_runs.ts";

const dir = new URL("../../fixtures/trace/6.12-gst/vivid-preroll-twice", import.meta.url).pathname;
// The options of the live run: --evidence generic --accept-exporter videobuf2_dma_contig.
const options = {
  evidence: "generic" as const,
  acceptedExporters: [...DEFAULT_ACCEPTED_EXPORTERS, "videobuf2_dma_contig"],
};

Deno.test("judgeArtifacts() gives back the result.json the preroll-twice pipeline wrote live", async () => {
  const saved = JSON.parse(await Deno.readTextFile(`${dir}/result.json`));
  assert.deepEqual(asSavedBeforeChain(await judgeArtifacts(dir, options)), saved);
});

Deno.test("the preroll-twice pipeline: 61 maps for 60 frames is every frame covered, one map noted", async () => {
  const r = await judgeArtifacts(dir, options);
  const { I3 } = r.axl.invariants;
  assert.equal(I3.source, "kprobes");
  assert.equal(I3.status, "PASS", I3.summary);
  assert.equal(
    I3.summary,
    "vivid.0 mapped frame buffers 61 times for 60 frames submitted: every frame covered, 1 more " +
      "map of the same buffers; 61 unmaps (kprobes)",
  );
  assert.equal(I3.evidence.extra_maps, 1);
  assert.equal(I3.evidence.shape, "per-frame");
  // The first buffer went to the sink once more than the others: the preroll frame, twice.
  assert.deepEqual(I3.evidence.maps_by_inode, [
    { inode: 6, maps: 13 },
    { inode: 7, maps: 12 },
    { inode: 8, maps: 12 },
    { inode: 9, maps: 12 },
    { inode: 10, maps: 12 },
  ]);
  assert.ok(
    r.axl.notes.some((n) => n.startsWith("I3: vivid.0 mapped the frame buffers 1 time more")),
  );
  assert.ok(!r.axl.diagnosis.some((d) => d.invariant === "I3"));
  // One device (vivid.0 both ends): I1 cannot pass, so neither can the run.
  assert.equal(r.axl.invariants.I1.status, "INCONCLUSIVE");
  assert.equal(r.axl.status, "INCONCLUSIVE");
});
