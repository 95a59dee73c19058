// Device tests of where a GStreamer pipeline's frames leave the camera's dma-buf memory: the
// axlpads tracer (build/<arch>/gst/libgstaxltrace.so) is loaded into the workload by
// `axl verify -- COMMAND` and records per pad the memory of every buffer. vivid's capture
// exports its vb2 buffers (v4l2src io-mode=dmabuf) and kmssink shows them on vkms, with
// videoconvert in between: converting YUY2 to BGRx it writes every frame into new memory on
// the CPU (FAIL, naming videoconvert0), converting nothing it passes the camera's buffers on
// (PASS). And an NVMM-shaped source (tests/device/gst/nvmm_feed.c: NvBufSurface structs whose
// bufferDesc is a real system-heap dma-buf) is read as NVMM dma-bufs, never system memory.
// x86_64 guest only (scripts/vm/run.sh --vivid --vkms); artifacts in $AXL_RESULTS/gst-memory-*.
import assert from "node:assert/strict";
import type { VerifyResult } from "../../lib/verify/schema.ts";
import { parseGstPads } from "../../lib/trace/parse/gst_pads.ts";
import { judgePipeline } from "../../lib/verify/pipeline.ts";
import { gstTracerDir, gstTracerEnv } from "../../lib/core/gst_tracer.ts";
import { NVBUF_SURFACE_LAYOUT } from "../../lib/nvmm/surface_layout.ts";
import { kmsPipelineRunnable, verifyVividPipeline } from "./verify/_vivid_pipeline.ts";
import { gstreamerEnv } from "./verify/_gstreamer_env.ts";

/**
 * Frames of the passing run: I4 needs 1,000 perf samples, and 300 frames gave them in
 * gst_kms.test.ts. The failing run needs no I4 PASS: 60 frames (its 300 took 8 min in TCG).
 */
const FRAMES = 300;
const FAILING_FRAMES = 60;
const ON_X86_64 = Deno.build.arch === "x86_64";
const kmsRunnable = kmsPipelineRunnable();
if (!kmsRunnable) {
  console.error(
    "gst_pipeline_memory.test.ts: kmssink cases ignored: they need the x86_64 guest with vivid " +
      "and vkms (scripts/vm/run.sh --vivid --vkms)",
  );
}
const results = Deno.env.get("AXL_RESULTS") ??
  await Deno.makeTempDir({ prefix: "axl-gst-memory-" });
const tracer = gstTracerDir();

/** Runs `axl verify --json` on vivid's capture, `middle` elements, then `sink` (kmssink on vkms). */
async function verifyToKms(
  name: string,
  middle: string[],
  frames = FRAMES,
  sink?: string[],
): Promise<VerifyResult> {
  assert.equal(typeof tracer, "string", `the tracer is not built: ${JSON.stringify(tracer)}`);
  const env = await gstreamerEnv(
    ["coreelements", "video4linux2", "kms", "videoconvertscale"],
    "videoconvert",
    "gstreamer1.0-tools, gstreamer1.0-plugins-base, -good and -bad",
  );
  const dir = `${results}/gst-memory-${name}`;
  return await verifyVividPipeline({ name, dir, frames, io: "dmabuf", middle, sink, env });
}

Deno.test({
  name: "verify -- camera ! videoconvert (YUY2 → BGRx) ! kmssink: FAIL naming videoconvert0:src",
  ignore: !kmsRunnable,
}, async () => {
  const r = await verifyToKms("convert", [
    ...["video/x-raw,format=YUY2,width=640,height=480", "!", "videoconvert", "!"],
    "video/x-raw,format=BGRx",
  ], FAILING_FRAMES);
  const p = r.axl.pipeline;
  assert.ok(p, "result.json has a pipeline section");
  assert.equal(p.status, "FAIL", p.summary);
  assert.equal(p.broke_at?.pad, "videoconvert0:src");
  assert.equal(p.broke_at?.factory, "videoconvert");
  // videoconvert writes into buffers of kmssink's pool: dumb buffers kmssink exports as
  // dma-bufs (so vkms can show them), not the camera's.
  assert.match(
    p.summary,
    /^videoconvert0:src pushed a dma-buf \(inode \d+, not the camera's, exported by /,
  );
  assert.match(
    p.summary,
    /videoconvert0 \(videoconvert\) is the first element whose output is no longer/,
  );
  assert.match(
    p.drawing,
    /^v4l2src0 ! capsfilter0 ! \[videoconvert0 ✗ another dma-buf\] ! capsfilter1 ! kmssink0$/,
  );
  // Upstream of it the camera's buffers travelled as they were.
  assert.deepEqual(p.camera?.exporters, ["videobuf2_dma_contig"]);
  const before = p.pads.filter((x) => x.pad === "v4l2src0:src" || x.pad === "capsfilter0:src");
  assert.equal(before.length, 2);
  assert.ok(before.every((x) => x.camera_dmabuf && !x.marked), JSON.stringify(before));
  assert.equal(r.axl.status, "FAIL");
  assert.equal(r.pass, false);
});

Deno.test({
  name: "verify -- its passthrough twin (videoconvert converting nothing): PASS",
  ignore: !kmsRunnable,
}, async () => {
  const r = await verifyToKms("passthrough", [
    ...["video/x-raw,format=BGRx,width=640,height=480", "!", "videoconvert"],
  ]);
  const p = r.axl.pipeline;
  assert.ok(p, "result.json has a pipeline section");
  assert.equal(p.status, "PASS", p.summary);
  assert.equal(p.broke_at, null);
  const vc = p.pads.find((x) => x.pad === "videoconvert0:src");
  assert.ok(vc?.camera_dmabuf, JSON.stringify(p.pads));
  assert.deepEqual(p.sinks, ["kmssink0"]);
  for (const i of Object.values(r.axl.invariants)) assert.equal(i.status, "PASS", i.summary);
  assert.equal(r.axl.status, "PASS");
});

Deno.test({
  name: "verify -- camera ! videoscale ! fakesink: FAIL, videoscale0:src pushed system memory",
  ignore: !kmsRunnable,
}, async () => {
  // A sink that offers no pool: videoscale scales every frame into system memory of its own.
  const r = await verifyToKms(
    "scale",
    [
      ...["video/x-raw,format=YUY2,width=640,height=480", "!", "videoscale", "!"],
      "video/x-raw,width=320,height=240",
    ],
    30,
    ["fakesink"],
  );
  const p = r.axl.pipeline;
  assert.ok(p, "result.json has a pipeline section");
  assert.equal(p.status, "FAIL", p.summary);
  assert.equal(p.broke_at?.pad, "videoscale0:src");
  assert.match(p.summary, /^videoscale0:src pushed system memory \(SystemMemory\): videoscale0/);
  assert.equal(
    p.drawing,
    "v4l2src0 ! capsfilter0 ! [videoscale0 ✗ system memory] ! capsfilter1 ! fakesink0",
  );
  assert.equal(r.axl.status, "FAIL");
});

/** Builds nvmm_feed in a temporary directory (the x86_64 guest has the host's compiler). */
async function buildFeeder(): Promise<string> {
  const dir = await Deno.makeTempDir({ prefix: "axl-nvmm-feed-" });
  const root = new URL("../../", import.meta.url).pathname;
  const pc = await new Deno.Command("pkg-config", {
    args: ["--cflags", "--libs", "gstreamer-1.0", "gstreamer-app-1.0"],
  }).output();
  assert.ok(
    pc.success,
    "pkg-config gstreamer-app-1.0 failed: install libgstreamer-plugins-base1.0-dev",
  );
  const flags = new TextDecoder().decode(pc.stdout).trim().split(/\s+/);
  const cc = await new Deno.Command("cc", {
    args: [
      ...["-std=gnu11", "-Wall", "-Werror", `-I${root}ffi/src/gst`, "-o", `${dir}/nvmm_feed`],
      `${root}tests/device/gst/nvmm_feed.c`,
      ...flags,
    ],
  }).output();
  assert.ok(cc.success, new TextDecoder().decode(cc.stderr));
  return `${dir}/nvmm_feed`;
}

/** Runs the feeder with the tracer loaded; the dma-buf inodes it made and the tracer's file. */
async function feed(memType: number): Promise<{ inodes: number[]; pads: string }> {
  assert.equal(typeof tracer, "string", `the tracer is not built: ${JSON.stringify(tracer)}`);
  const env = await gstreamerEnv(["coreelements", "app"], "appsrc", "gstreamer1.0-plugins-base");
  const feeder = await buildFeeder();
  const out = `${results}/gst-memory-nvmm-${memType}.txt`;
  await Deno.remove(out).catch(() => {});
  const run = await new Deno.Command(feeder, {
    args: [String(memType), "9"],
    env: { ...env, ...gstTracerEnv(tracer as string, out, env) },
    stdin: "null",
  }).output();
  const stdout = new TextDecoder().decode(run.stdout);
  assert.ok(run.success, `nvmm_feed failed: ${new TextDecoder().decode(run.stderr)}`);
  const inodes = [...stdout.matchAll(/^inode (\d+)$/gm)].map((m) => Number(m[1]));
  assert.equal(inodes.length, 3, stdout);
  const pads = await Deno.readTextFile(out);
  console.log(pads.split("\n").filter((l) => l.startsWith("buf")).slice(0, 3).join("\n"));
  return { inodes, pads };
}

Deno.test({
  name: "axlpads reads an NVMM buffer's dma-buf from its NvBufSurface: nvmm, never system memory",
  ignore: !ON_X86_64,
}, async () => {
  const { inodes, pads } = await feed(NVBUF_SURFACE_LAYOUT.memType.SURFACE_ARRAY);
  assert.doesNotMatch(pads, / m=sys:/, "an NVMM buffer was called system memory");
  const log = parseGstPads(pads);
  const src = [...log.pads.values()].find((p) => p.pad === "src:src");
  assert.ok(src, pads);
  assert.equal(src.buffers, 9);
  assert.deepEqual([...src.inodes].sort(), [...inodes].sort(), "the bufferDesc fds' inodes");
  assert.deepEqual([...src.memory.keys()].every((k) => k.startsWith("nvmm:")), true);
  assert.equal(log.dmabufs.get(inodes[0]!)?.exporter, "system");
  const verdict = judgePipeline(log);
  assert.equal(verdict.status, "PASS", verdict.summary);
  assert.match(verdict.pads[0]!.memory, /NVMM surface's dma-buf/);
});

Deno.test({
  name: "axlpads: an NVMM batch of CUDA memory has no dma-buf, and is not called system memory",
  ignore: !ON_X86_64,
}, async () => {
  const { pads } = await feed(NVBUF_SURFACE_LAYOUT.memType.CUDA_DEVICE);
  assert.doesNotMatch(pads, / m=sys:/);
  const verdict = judgePipeline(parseGstPads(pads));
  assert.equal(verdict.status, "FAIL");
  assert.match(
    verdict.summary,
    /^src:src pushed NVMM memory with no dma-buf \(NvBufSurface memType 2\)/,
  );
});
