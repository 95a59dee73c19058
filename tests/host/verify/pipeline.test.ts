// judgePipeline(): where a pipeline's frames leave the camera's dma-buf memory, on tracer
// records shaped like the VM's (vivid → kmssink) and the Jetson's (NVMM), and withPipeline()'s
// effect on the run's status.
import assert from "node:assert/strict";
import { parseGstPads } from "../../../lib/trace/parse/gst_pads.ts";
import { judgePipeline, pipelineLines, withPipeline } from "../../../lib/verify/pipeline.ts";
import { PipelineSectionSchema } from "../../../lib/verify/pipeline_schema.ts";
import type { VerifyResult } from "../../../lib/verify/schema.ts";

/** A tracer file: pads `[pad, factory, peer, memory tokens per buffer]`. */
function log(pads: Array<[string, string, string, string[]]>): string {
  const lines = ["axlpads version=1 pid=9"];
  for (const [pad, factory, peer] of pads) {
    lines.push(`pad pid=9 pad=${pad} element=${pad.split(":")[0]} factory=${factory} peer=${peer}`);
  }
  for (const ino of [100, 101]) {
    lines.push(`dmabuf pid=9 ino=${ino} exp=videobuf2_dma_contig size=614400`);
  }
  for (const [pad, , , bufs] of pads) {
    bufs.forEach((m, i) => lines.push(`buf pid=9 pad=${pad} n=${i + 1} t=${i} ${m}`));
  }
  return lines.join("\n");
}

const cam = ["m=dmabuf:100", "m=dmabuf:101", "m=dmabuf:100"];

Deno.test("judgePipeline() names the first element whose output is not the camera's dma-buf", () => {
  const v = judgePipeline(parseGstPads(log([
    ["capsfilter0:src", "capsfilter", "videoconvert0:sink", cam],
    ["v4l2src0:src", "v4l2src", "capsfilter0:sink", cam],
    ["videoconvert0:src", "videoconvert", "capsfilter1:sink", [
      "m=sys:KMSMemory",
      "m=sys:KMSMemory",
      "m=sys:KMSMemory",
    ]],
    ["capsfilter1:src", "capsfilter", "kmssink0:sink", [
      "m=sys:KMSMemory",
      "m=sys:KMSMemory",
      "m=sys:KMSMemory",
    ]],
  ])));
  PipelineSectionSchema.parse(v);
  assert.equal(v.status, "FAIL");
  // Pipeline order, not push order: the source first.
  assert.deepEqual(v.pads.map((p) => p.pad), [
    "v4l2src0:src",
    "capsfilter0:src",
    "videoconvert0:src",
    "capsfilter1:src",
  ]);
  assert.deepEqual(v.broke_at, {
    pad: "videoconvert0:src",
    element: "videoconvert0",
    factory: "videoconvert",
    memory: "system memory (KMSMemory)",
    buffers: 3,
    of: 3,
  });
  assert.equal(
    v.summary,
    "videoconvert0:src pushed system memory (KMSMemory): videoconvert0 (videoconvert) is the " +
      "first element whose output is no longer the camera's dma-buf (2 buffers of videobuf2_dma_contig)",
  );
  assert.equal(
    v.drawing,
    "v4l2src0 ! capsfilter0 ! [videoconvert0 ✗ system memory] ! capsfilter1 ! kmssink0",
  );
  assert.deepEqual(v.pads.map((p) => p.marked), [false, false, true, false]);
  assert.match(
    pipelineLines(v).join("\n"),
    /✗ videoconvert0:src {2}3 buffers, system memory \(KMSMemory\)/,
  );
});

Deno.test("judgePipeline() passes a chain that carries the camera's dma-bufs to the sink", () => {
  const v = judgePipeline(parseGstPads(log([
    ["v4l2src0:src", "v4l2src", "capsfilter0:sink", cam],
    ["capsfilter0:src", "capsfilter", "videoconvert0:sink", cam],
    ["videoconvert0:src", "videoconvert", "kmssink0:sink", cam],
  ])));
  assert.equal(v.status, "PASS", v.summary);
  assert.equal(v.broke_at, null);
  assert.deepEqual(v.sinks, ["kmssink0"]);
  assert.equal(v.camera?.dmabufs, 2);
  assert.equal(v.drawing, "v4l2src0 ! capsfilter0 ! videoconvert0 ! kmssink0");
});

Deno.test("judgePipeline() fails an element that pushes a dma-buf that is not the camera's", () => {
  // E.g. a converter writing into buffers of its own DMA-heap pool.
  const v = judgePipeline(parseGstPads(log([
    ["v4l2src0:src", "v4l2src", "conv0:sink", cam],
    ["conv0:src", "myconv", "sink0:sink", ["m=dmabuf:900", "m=dmabuf:901", "m=dmabuf:900"]],
  ])));
  assert.equal(v.status, "FAIL");
  assert.match(v.summary, /^conv0:src pushed a dma-buf \(inode 900, not the camera's\)/);
  assert.match(v.drawing, /\[conv0 ✗ another dma-buf\]/);
});

Deno.test("judgePipeline() reads NVMM surfaces' dma-bufs as the camera's, and never as system memory", () => {
  const nv = ["m=nvmm:300", "m=nvmm:301", "m=nvmm:302"];
  const pass = judgePipeline(parseGstPads(log([
    ["zedsrc0:src", "zedsrc", "queue0:sink", nv],
    ["queue0:src", "queue", "nvinfer0:sink", nv],
  ])));
  assert.equal(pass.status, "PASS", pass.summary);
  assert.match(pass.pads[0]!.memory, /^an NVMM surface's dma-buf \(inode 300, the camera's\)$/);
  // nvvideoconvert writes new NVMM surfaces (a VIC copy): another dma-buf, not system memory.
  const copy = judgePipeline(parseGstPads(log([
    ["zedsrc0:src", "zedsrc", "nvvideoconvert0:sink", nv],
    ["nvvideoconvert0:src", "nvvideoconvert", "nvinfer0:sink", ["m=nvmm:700"]],
  ])));
  assert.equal(copy.status, "FAIL");
  assert.match(
    copy.summary,
    /^nvvideoconvert0:src pushed an NVMM surface's dma-buf \(inode 700, not the camera's\)/,
  );
  assert.doesNotMatch(copy.summary, /system memory/);
});

Deno.test("judgePipeline() follows both branches of a tee from the source", () => {
  const v = judgePipeline(parseGstPads(log([
    ["v4l2src0:src", "v4l2src", "tee0:sink", cam],
    ["tee0:src_0", "tee", "queue0:sink", cam],
    ["tee0:src_1", "tee", "queue1:sink", cam],
    ["queue0:src", "queue", "kmssink0:sink", cam],
    ["queue1:src", "queue", "videoconvert0:sink", cam],
    ["videoconvert0:src", "videoconvert", "fakesink0:sink", ["m=sys:SystemMemory"]],
  ])));
  assert.equal(v.status, "FAIL");
  assert.equal(v.broke_at?.pad, "videoconvert0:src");
  assert.deepEqual(v.sinks, ["kmssink0", "fakesink0"]);
});

Deno.test("judgePipeline() with a tracer that saw no buffer is INCONCLUSIVE", () => {
  const v = judgePipeline(parseGstPads("axlpads version=1 pid=3\n"));
  assert.equal(v.status, "INCONCLUSIVE");
  assert.equal(v.camera, null);
});

Deno.test("withPipeline() makes a passing run FAIL when the pipeline breaks, and leaves it otherwise", () => {
  const result = () => ({ pass: true, axl: { status: "PASS" } }) as unknown as VerifyResult;
  const broke = judgePipeline(parseGstPads(log([
    ["v4l2src0:src", "v4l2src", "videoconvert0:sink", cam],
    ["videoconvert0:src", "videoconvert", "fakesink0:sink", ["m=sys:SystemMemory"]],
  ])));
  const failed = withPipeline(result(), broke);
  assert.equal(failed.axl.status, "FAIL");
  assert.equal(failed.pass, false);
  assert.equal(failed.axl.pipeline, broke);
  const ok = withPipeline(result(), judgePipeline(parseGstPads("")));
  assert.equal(ok.axl.status, "PASS");
  assert.equal(ok.pass, true);
});
