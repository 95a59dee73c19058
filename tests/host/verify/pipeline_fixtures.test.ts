// judgePipeline() on tracer files the VM rig wrote (tests/fixtures/gst/pads/README.md), and the
// replay path that adds the pipeline section to a saved run.
import assert from "node:assert/strict";
import { parseGstPads } from "../../../lib/trace/parse/gst_pads.ts";
import { judgePipeline } from "../../../lib/verify/pipeline.ts";
import { judgeArtifacts } from "../../../lib/verify/replay.ts";
import { DEFAULT_ACCEPTED_EXPORTERS } from "../../../lib/verify/judge.ts";
import { parseVerifyResult } from "../../../lib/verify/schema.ts";
import { renderHtmlReport } from "../../../lib/verify/report/html.ts";

const pads = (name: string) =>
  Deno.readTextFile(new URL(`../../fixtures/gst/pads/${name}`, import.meta.url));

Deno.test("vivid ! videoconvert (YUY2 → BGRx) ! kmssink: FAIL at videoconvert0:src, which wrote into drm's dma-bufs", async () => {
  const v = judgePipeline(parseGstPads(await pads("vivid-convert-kmssink.txt")));
  assert.equal(v.status, "FAIL");
  assert.equal(
    v.summary,
    "videoconvert0:src pushed a dma-buf (inode 3, not the camera's, exported by drm): " +
      "videoconvert0 (videoconvert) is the first element whose output is no longer the " +
      "camera's dma-buf (2 buffers of videobuf2_dma_contig)",
  );
  assert.deepEqual(v.broke_at, {
    pad: "videoconvert0:src",
    element: "videoconvert0",
    factory: "videoconvert",
    memory: "a dma-buf (inode 3, not the camera's, exported by drm)",
    buffers: 300,
    of: 300,
  });
  assert.equal(
    v.drawing,
    "v4l2src0 ! capsfilter0 ! [videoconvert0 ✗ another dma-buf] ! capsfilter1 ! kmssink0",
  );
  assert.deepEqual(v.pads.map((p) => [p.pad, p.buffers, p.camera_dmabuf]), [
    ["v4l2src0:src", 300, true],
    ["capsfilter0:src", 300, true],
    ["videoconvert0:src", 300, false],
    ["capsfilter1:src", 300, false],
  ]);
});

Deno.test("vivid ! videoscale ! fakesink: FAIL, videoscale0:src pushed system memory", async () => {
  const v = judgePipeline(parseGstPads(await pads("vivid-scale-fakesink.txt")));
  assert.equal(v.status, "FAIL");
  assert.equal(
    v.summary,
    "videoscale0:src pushed system memory (SystemMemory): videoscale0 (videoscale) is the " +
      "first element whose output is no longer the camera's dma-buf (2 buffers of " +
      "videobuf2_dma_contig)",
  );
  assert.equal(
    v.drawing,
    "v4l2src0 ! capsfilter0 ! [videoscale0 ✗ system memory] ! capsfilter1 ! fakesink0",
  );
  assert.deepEqual(v.broke_at?.buffers, 30);
});

Deno.test("vivid ! videoconvert (passthrough) ! kmssink: PASS, the camera's four dma-bufs all the way", async () => {
  const v = judgePipeline(parseGstPads(await pads("vivid-passthrough-kmssink.txt")));
  assert.equal(v.status, "PASS", v.summary);
  assert.equal(
    v.summary,
    "every pad from v4l2src0:src to kmssink0 pushed the camera's dma-bufs (4 buffers of " +
      "videobuf2_dma_contig)",
  );
  assert.equal(v.drawing, "v4l2src0 ! capsfilter0 ! videoconvert0 ! kmssink0");
});

Deno.test("NVMM-shaped buffers of real dma-bufs: read as NVMM surfaces' dma-bufs, exporter system", async () => {
  const log = parseGstPads(await pads("nvmm-surface-array.txt"));
  assert.doesNotMatch(await pads("nvmm-surface-array.txt"), / m=sys:/);
  assert.deepEqual([...log.dmabufs.values()].map((d) => d.exporter), [
    "system",
    "system",
    "system",
  ]);
  const v = judgePipeline(log);
  assert.equal(v.status, "PASS", v.summary);
  assert.equal(v.camera?.dmabufs, 3);
  assert.match(v.pads[0]!.memory, /^an NVMM surface's dma-buf \(inode \d+, the camera's\)$/);
});

Deno.test("an NVMM batch of CUDA memory: no dma-buf, never system memory", async () => {
  const v = judgePipeline(parseGstPads(await pads("nvmm-cuda-device.txt")));
  assert.equal(v.status, "FAIL");
  assert.match(
    v.summary,
    /^src:src pushed NVMM memory with no dma-buf \(NvBufSurface memType 2\): the source's own/,
  );
});

Deno.test("judgeArtifacts() adds the pipeline section when the artifacts hold gst_pads.txt", async () => {
  // The saved vivid → vkms run (tests/host/verify/gst_kms_replay.test.ts) with a tracer file
  // beside it: the wiring of the replay, not one run's facts.
  const saved = new URL("../../fixtures/trace/6.12-gst/vivid-to-vkms", import.meta.url).pathname;
  const options = {
    evidence: "generic" as const,
    importer: "vkms",
    acceptedExporters: [...DEFAULT_ACCEPTED_EXPORTERS, "videobuf2_dma_contig"],
  };
  const tmp = await Deno.makeTempDir();
  try {
    for await (const e of Deno.readDir(saved)) {
      await Deno.copyFile(`${saved}/${e.name}`, `${tmp}/${e.name}`);
    }
    const before = await judgeArtifacts(tmp, options);
    assert.equal(before.axl.pipeline, undefined);
    assert.equal(before.axl.status, "PASS");
    await Deno.writeTextFile(`${tmp}/gst_pads.txt`, await pads("vivid-convert-kmssink.txt"));
    const after = await judgeArtifacts(tmp, options);
    assert.equal(after.axl.pipeline?.broke_at?.pad, "videoconvert0:src");
    assert.equal(after.axl.status, "FAIL");
    assert.equal(after.pass, false);
    // The result with its pipeline section is a valid result.json, and the report marks it.
    parseVerifyResult(JSON.parse(JSON.stringify(after)));
    assert.match(renderHtmlReport(after), /\[videoconvert0 ✗ another dma-buf\]/);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
