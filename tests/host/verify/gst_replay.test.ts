// A GStreamer pipeline verified in the VM with no axl tracepoint (tests/device/
// gst_pipelines.test.ts): vivid's capture exports vb2 buffers (v4l2src io-mode=dmabuf) and
// vivid's output imports them (v4l2sink io-mode=dmabuf-import, at the time still on the clock,
// so late frames were dropped). The parsers of bufinfo, the kprobe events and perf read the
// capture as the live run did.
import assert from "node:assert/strict";
import { DEFAULT_ACCEPTED_EXPORTERS } from "../../../lib/verify/judge.ts";
import { judgeArtifacts } from "../../../lib/verify/replay.ts";
import { asSavedBeforeChain } from "./_runs.ts";

const dir = new URL("../../fixtures/trace/6.12-gst/vivid-to-vivid", import.meta.url).pathname;
// The options of the live run: --evidence generic --accept-exporter videobuf2_dma_contig
// --threshold 5.
const options = {
  evidence: "generic" as const,
  copyThresholdPercent: 5,
  acceptedExporters: [...DEFAULT_ACCEPTED_EXPORTERS, "videobuf2_dma_contig"],
};

Deno.test("judgeArtifacts() gives back the result.json the vivid → vivid pipeline wrote live", async () => {
  const saved = JSON.parse(await Deno.readTextFile(`${dir}/result.json`));
  assert.deepEqual(asSavedBeforeChain(await judgeArtifacts(dir, options)), saved);
});

Deno.test("the vivid → vivid pipeline: one device, counted from the kprobes, nothing copied", async () => {
  const r = await judgeArtifacts(dir, options);
  const { I1, I2, I3, I4 } = r.axl.invariants;
  assert.equal(r.axl.evidence?.source, "kprobes");
  assert.equal(r.axl.evidence?.importer, "vivid.0");
  // bufinfo: the buffers vb2 exported, attached by vivid.0, the owner of both nodes.
  assert.deepEqual(r.detail.exporters, ["videobuf2_dma_contig"]);
  assert.deepEqual(
    [...new Set(r.axl.workload.v4l2_devices?.map((d) => d.device))],
    ["vivid.0"],
  );
  assert.equal(I1.status, "INCONCLUSIVE");
  assert.match(I1.summary, /exporter and importer are one device/);
  assert.equal(I2.status, "INCONCLUSIVE");
  // The kprobes saw vivid.0 map 57 frames of the 60 captured: the sink dropped late ones.
  assert.equal(I3.status, "FAIL");
  assert.match(I3.summary, /mapped frame buffers 57 times for 60 frames submitted/);
  // The verdict says what makes maps differ from frames in a GStreamer pipeline, not the
  // advice for our own driver's imports.
  const why = r.axl.diagnosis.find((d) => d.invariant === "I3");
  assert.equal(why?.id, "maps-ne-frames");
  assert.match(why?.cause ?? "", /drops late frames/);
  assert.equal(I4.status, "PASS");
  assert.equal(r.axl.workload.kind, "command");
  assert.equal(r.axl.workload.exit_code, 0);
  assert.equal(r.axl.frames.submitted_from, "--frames");
});
