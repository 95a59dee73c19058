// One story per verdict, on the capture of a real run of `axl verify -- gst-launch-1.0 v4l2src !
// videoscale ! kmssink` in the x86_64 guest (tests/fixtures/trace/6.12-gst/vivid-scale-kms):
// videoscale writes every frame into a dumb buffer of kmssink's, and the GStreamer tracer saw it.
import assert from "node:assert/strict";
import { judgeArtifacts } from "../../../lib/verify/replay.ts";
import { DEFAULT_ACCEPTED_EXPORTERS } from "../../../lib/verify/judge.ts";

const DIR = new URL("../../fixtures/trace/6.12-gst/vivid-scale-kms", import.meta.url).pathname;
// as the device tests judge a vivid pipeline to kmssink on vkms
const OPTIONS = {
  evidence: "generic" as const,
  acceptedExporters: [...DEFAULT_ACCEPTED_EXPORTERS, "videobuf2_dma_contig"],
};

Deno.test("judgeArtifacts() of camera ! videoscale ! kmssink: reason, first diagnosis and chain name videoscale0", async () => {
  const r = await judgeArtifacts(DIR, OPTIONS);
  const a = r.axl;
  assert.equal(a.status, "FAIL");
  assert.equal(a.pipeline?.broke_at?.pad, "videoscale0:src");
  // the headline's reason is the pipeline's break
  assert.equal((a as { reason?: string }).reason, a.pipeline.summary);
  assert.match(a.pipeline.summary, /videoscale0 \(videoscale\) is the first element whose output/);
  // the first diagnosis is that break, not "--importer names another device"
  assert.equal(a.diagnosis[0]?.id, "pipeline-left-camera-dmabuf");
  assert.ok(a.diagnosis[0]?.symptom.includes(a.pipeline.summary));
  // the chain agrees: broken, at that pad
  assert.equal(a.chain?.status, "broken");
  assert.equal((a.chain as { broken_at?: string }).broken_at, "videoscale0:src");
  assert.match(a.chain.summary, /^broken at videoscale0:src: /);
});

Deno.test("judgeArtifacts() of camera ! videoscale ! kmssink gives back the run's live result.json", async () => {
  const saved = JSON.parse(await Deno.readTextFile(`${DIR}/result.json`));
  const again = JSON.parse(JSON.stringify(await judgeArtifacts(DIR, OPTIONS)));
  assert.deepEqual(again, saved);
});
