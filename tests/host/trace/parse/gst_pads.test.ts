// parseGstPads() on what the axlpads tracer writes (format: ffi/src/gst/axl_gst_pads.c).
import assert from "node:assert/strict";
import {
  isDmaBufMemory,
  parseGstPads,
  parsePadMemory,
} from "../../../../lib/trace/parse/gst_pads.ts";

const LOG = [
  "axlpads version=1 pid=10",
  "axlpads version=1 pid=11",
  "pad pid=11 pad=v4l2src0:src element=v4l2src0 factory=v4l2src peer=capsfilter0:sink",
  "caps pid=11 pad=v4l2src0:src caps=video/x-raw, format=(string)YUY2, width=(int)640",
  "dmabuf pid=11 ino=501 exp=videobuf2_dma_contig size=614400",
  "buf pid=11 pad=v4l2src0:src n=1 t=1000 m=dmabuf:501",
  "dmabuf pid=11 ino=502 exp=videobuf2_dma_contig size=614400",
  "buf pid=11 pad=v4l2src0:src n=2 t=2000 m=dmabuf:502",
  "buf pid=11 pad=v4l2src0:src n=3 t=3000 m=dmabuf:501",
  "pad pid=11 pad=videoconvert0:src element=videoconvert0 factory=videoconvert peer=kmssink0:sink",
  "buf pid=11 pad=videoconvert0:src n=1 t=1500 m=sys:KMSMemory",
  "buf pid=11 pad=videoconvert0:src n=2 t=2500 m=sys:KMSMemory",
  "something a newer tracer writes",
].join("\n");

Deno.test("parseGstPads() collects pads, their memory per buffer, dma-bufs and pids", () => {
  const log = parseGstPads(LOG);
  assert.deepEqual(log.pids, [10, 11]);
  assert.equal(log.unparsed, 1);
  const src = log.pads.get("11/v4l2src0:src")!;
  assert.equal(src.factory, "v4l2src");
  assert.equal(src.peer, "capsfilter0:sink");
  assert.equal(src.buffers, 3);
  assert.deepEqual([...src.memory], [["dmabuf:501", 2], ["dmabuf:502", 1]]);
  assert.deepEqual([...src.inodes], [501, 502]);
  assert.equal(src.notDmabuf, 0);
  assert.deepEqual(src.caps, ["video/x-raw, format=(string)YUY2, width=(int)640"]);
  assert.deepEqual(src.first, [{ kind: "dmabuf", inode: 501 }]);
  const vc = log.pads.get("11/videoconvert0:src")!;
  assert.equal(vc.notDmabuf, 2);
  assert.deepEqual(log.dmabufs.get(502), {
    inode: 502,
    exporter: "videobuf2_dma_contig",
    size: 614400,
  });
});

Deno.test("parseGstPads() counts buffers past the tracer's per-pad cap by their sequence number", () => {
  // Past 20,000 lines a pad writes only buffers in memory it has not pushed before.
  const log = parseGstPads([
    "buf pid=1 pad=a:src n=1 t=1 m=dmabuf:7",
    "buf pid=1 pad=a:src n=25000 t=9 m=dmabuf:8",
  ].join("\n"));
  const a = log.pads.get("1/a:src")!;
  assert.equal(a.buffers, 25000);
  assert.equal(a.lines, 2);
});

Deno.test("parsePadMemory() reads every kind, and only dma-buf and NVMM dma-buf are dma-bufs", () => {
  const kinds = [
    "dmabuf:5",
    "nvmm:6",
    "nvmm-nofd:2",
    "nvmm-bad:none-filled",
    "sys:SystemMemory",
    "none",
  ]
    .map(parsePadMemory);
  assert.deepEqual(kinds, [
    { kind: "dmabuf", inode: 5 },
    { kind: "nvmm", inode: 6 },
    { kind: "nvmm-nofd", memType: 2 },
    { kind: "nvmm-bad", reason: "none-filled" },
    { kind: "sys", memType: "SystemMemory" },
    { kind: "none" },
  ]);
  assert.deepEqual(kinds.map(isDmaBufMemory), [true, true, false, false, false, false]);
});

Deno.test("parseGstPads() counts a buffer of two memories, one of them system, as not dma-buf", () => {
  const log = parseGstPads("buf pid=1 pad=a:src n=1 t=1 m=dmabuf:5 m=sys:SystemMemory");
  const a = log.pads.get("1/a:src")!;
  assert.equal(a.notDmabuf, 1);
  assert.deepEqual([...a.inodes], [5]);
});
