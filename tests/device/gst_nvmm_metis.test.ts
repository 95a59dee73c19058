// `axl verify` of a Jetson-shaped GStreamer pipeline in the arm64 5.15 guest, judged from the
// generic evidence (kprobes on the dma-buf functions, bufinfo, perf; never an axl tracepoint):
// the rig's NVMM-shaped camera (tests/device/gst/nvmm_camera.c, cross-built by ffi/build.sh
// against Debian's arm64 GStreamer) pushes `video/x-raw(memory:NVMM)` buffers, an NvBufSurface
// in plain GstMemory naming a heap dma-buf from a pool of 4 that vivid's capture writes the
// frames into (as VI writes into nvmap surfaces), into an importer that attaches each frame's
// dma-buf to the Metis node. Through a `queue` the card imports the camera's own
// surfaces (PASS); through `nvmmcpuconvert`, which writes each frame into a surface of its own
// on the CPU, it imports the converter's (FAIL, the pipeline section naming the element).
// The heap is AXL_NVMM_HEAP, else nvmap-sim where the rig loads it, else linux,cma (the arm64
// guest's CMA heap). Needs --vivid. aarch64 only: the
// x86_64 guest tests the NVMM path with nvmm_feed (gst_pipeline_memory.test.ts). Artifacts in
// $AXL_RESULTS/gst-nvmm-<middle>/.
import assert from "node:assert/strict";
import type { VerifyResult } from "../../lib/verify/schema.ts";
import { metisTarget, vividCapture } from "./verify/_metis_target.ts";
import { gstreamerEnv } from "./verify/_gstreamer_env.ts";

/**
 * Frames of 320x180 NV12 per run. The passing run needs I4's 1,000 perf samples of the
 * workload: in the arm64 guest its start (GStreamer's registry scan included) gave ~570 and
 * each frame ~7 (vivid fills ~4.4 frames a second under TCG): 40 frames gave 706, 120 gave
 * 1,385 (linux,cma) and 1,245 (nvmap-sim), and 150 gave 1,503, 1,389, 1,264 and 1,090 — too
 * close to the floor, so 250. The failing run needs no I4 PASS: 40.
 */
const FRAMES = 250;
const FAILING_FRAMES = 40;
/**
 * The camera's heap: AXL_NVMM_HEAP, else nvmap-sim (the rig's nvmap stand-in) where the rig
 * loaded it (AXL_EXPECT_NVMAP_SIM=1), else the arm64 guest's CMA heap.
 */
const HEAP = Deno.env.get("AXL_NVMM_HEAP") ??
  (Deno.env.get("AXL_EXPECT_NVMAP_SIM") === "1" ? "nvmap-sim" : "linux,cma");
/** The exporter name of HEAP's buffers: the CMA heap's own name; nvmap's for the rig's nvmap-sim. */
const EXPORTER = HEAP === "nvmap-sim" ? "nvmap_dmabuf" : HEAP;
const ON_AARCH64 = Deno.build.arch === "aarch64";
if (!ON_AARCH64) {
  console.error("gst_nvmm_metis.test.ts: ignored: the arm64 guest's test (--arch aarch64)");
}
const results = Deno.env.get("AXL_RESULTS") ??
  await Deno.makeTempDir({ prefix: "axl-gst-nvmm-" });
const CLI = new URL("../../tasks/axl.ts", import.meta.url).pathname;
const CAMERA = new URL(`../../build/${Deno.build.arch}/gst-tests/nvmm_camera`, import.meta.url)
  .pathname;

/** `axl verify --json --evidence generic … -- nvmm_camera HEAP FRAMES NODE middle`. */
async function verifyNvmm(
  middle: "queue" | "cpuconvert",
  frames: number,
): Promise<{ code: number; r: VerifyResult; stdout: string; seconds: number }> {
  await Deno.stat(CAMERA).catch(() => {
    throw new Error(`${CAMERA} is not built: run ffi/build.sh (it fetches arm64 GStreamer)`);
  });
  const env = await gstreamerEnv(
    ["coreelements", "app"],
    "appsink",
    "gstreamer1.0-tools and gstreamer1.0-plugins-base (scripts/vm/arm64/root.sh)",
  );
  const { node, pci } = metisTarget();
  const camera = vividCapture().path;
  const dir = `${results}/gst-nvmm-${middle}`;
  const t0 = performance.now();
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      ...["run", "--allow-all", "--no-check", CLI, "verify", "--json", "--no-graph"],
      ...["--evidence", "generic", "--importer", pci, "--frames", String(frames)],
      ...["--artifacts", dir, "--", CAMERA, HEAP, String(frames), camera, node, middle],
    ],
    stdin: "null",
    env,
  }).output();
  const seconds = Math.round((performance.now() - t0) / 100) / 10;
  const text = new TextDecoder().decode(out.stdout);
  assert.ok(
    out.code <= 2,
    `verify could not run (${out.code}): ${new TextDecoder().decode(out.stderr)}`,
  );
  const r = JSON.parse(text.slice(text.indexOf("\n{") + 1)) as VerifyResult;
  console.log(`nvmm ${middle} on ${HEAP}: ${r.axl.status} in ${seconds} s (${dir})`);
  for (const i of Object.values(r.axl.invariants)) {
    console.log(`  ${i.id} ${i.status} ${i.summary}`);
  }
  const p = r.axl.pipeline;
  if (p) console.log(`  pipeline ${p.status} ${p.summary}\n    ${p.drawing}`);
  assert.equal(r.axl.workload.exit_code, 0, r.axl.workload.stderr_tail);
  assert.equal(r.axl.evidence?.source, "kprobes");
  return { code: out.code, r, stdout: text, seconds };
}

Deno.test({
  name: "arm64: verify -- nvmmcamsrc (NVMM) ! queue ! importer on the Metis node: PASS",
  ignore: !ON_AARCH64,
}, async () => {
  const { code, r } = await verifyNvmm("queue", FRAMES);
  const p = r.axl.pipeline;
  assert.ok(p, "result.json has a pipeline section (the aarch64 tracer was loaded)");
  assert.equal(p.status, "PASS", p.summary);
  assert.equal(p.broke_at, null);
  assert.equal(p.drawing, "nvmmcamsrc0 ! queue0 ! importer");
  const src = p.pads.find((x) => x.pad === "nvmmcamsrc0:src");
  assert.ok(src?.camera_dmabuf, JSON.stringify(p.pads));
  assert.match(src.memory, /NVMM surface's dma-buf/);
  assert.deepEqual(p.camera?.exporters, [EXPORTER]);
  // the capture device filled the surfaces the card imported
  assert.match(r.axl.invariants.I1.summary, /vivid\.0/);
  const chain = (r.axl as { chain?: { status: string; summary: string } }).chain;
  assert.equal(chain?.status, "whole", chain?.summary);
  for (const i of Object.values(r.axl.invariants)) assert.equal(i.status, "PASS", i.summary);
  assert.equal(r.axl.status, "PASS");
  assert.equal(code, 0);
});

Deno.test({
  name: "arm64: verify -- nvmmcamsrc ! nvmmcpuconvert ! importer: FAIL naming nvmmcpuconvert0",
  ignore: !ON_AARCH64,
}, async () => {
  const { code, r } = await verifyNvmm("cpuconvert", FAILING_FRAMES);
  const p = r.axl.pipeline;
  assert.ok(p, "result.json has a pipeline section (the aarch64 tracer was loaded)");
  assert.equal(p.status, "FAIL", p.summary);
  assert.equal(p.broke_at?.pad, "nvmmcpuconvert0:src");
  assert.equal(p.broke_at?.factory, "nvmmcpuconvert");
  assert.match(p.summary, /nvmmcpuconvert0 \(nvmmcpuconvert\) is the first element/);
  assert.match(p.drawing, /^nvmmcamsrc0 ! \[nvmmcpuconvert0 ✗ [^\]]+\] ! importer$/);
  // the card imported the converter's surfaces, never one the camera filled
  assert.equal(r.axl.invariants.I1.status, "FAIL", r.axl.invariants.I1.summary);
  const chain = (r.axl as {
    chain?: { status: string; summary: string; between: { comm: string; camera: number[] }[] };
  }).chain;
  assert.equal(chain?.status, "broken", chain?.summary);
  // One story per verdict: the chain is broken where the pipeline broke, and says so first.
  assert.match(chain.summary, /^broken at nvmmcpuconvert0:src: /);
  assert.ok(
    chain.between.some((b) => b.comm === "nvmm_camera" && b.camera.length === 4),
    `the converter's process mapped the 4 camera surfaces: ${JSON.stringify(chain.between)}`,
  );
  assert.equal(r.axl.status, "FAIL");
  assert.equal(code, 1);
});
