// GStreamer pipelines from vivid's capture: its capture and output nodes, found by name, never
// by number, and set up so that the output takes what the capture gives; and `axl verify` of a
// pipeline from the capture to kmssink on vkms, the DRM device that imports its buffers.
import assert from "node:assert/strict";
import type { VerifyResult } from "../../../lib/verify/schema.ts";

/** The node of the video4linux device called `name` (e.g. "vivid-000-vid-cap"). */
export function videoNode(name: string): string {
  for (const e of Deno.readDirSync("/sys/class/video4linux")) {
    const n = Deno.readTextFileSync(`/sys/class/video4linux/${e.name}/name`).trim();
    if (n === name) return `/dev/${e.name}`;
  }
  throw new Error(`no video4linux device named ${name} (load vivid: scripts/vm/run.sh --vivid)`);
}

// From <linux/videodev2.h>: _IOWR('V', 47, int) and _IOWR('V', 28, struct v4l2_control).
const VIDIOC_S_OUTPUT = 0xc004562f;
const VIDIOC_S_CTRL = 0xc008561c;
// vivid's own "Colorspace" control (VIVID_CID_VIVID_BASE + 25); menu item 0 is SMPTE 170M.
const VIVID_CID_COLORSPACE = 0x00f0f019;
const VIVID_COLORSPACE_SMPTE170M = 0;

/** One ioctl on `node` that must succeed; `what` names it in the error. */
function ioctl(node: string, request: number, arg: BufferSource, what: string): void {
  const libc = Deno.dlopen("libc.so.6", {
    ioctl: { parameters: ["i32", "u64", "buffer"], result: "i32" },
    open: { parameters: ["buffer", "i32"], result: "i32" },
    close: { parameters: ["i32"], result: "i32" },
  });
  try {
    const fd = libc.symbols.open(new TextEncoder().encode(`${node}\0`), 2 /* O_RDWR */);
    if (fd < 0) throw new Error(`cannot open ${node}`);
    try {
      if (libc.symbols.ioctl(fd, BigInt(request), arg) !== 0) {
        throw new Error(`${what} on ${node} failed`);
      }
    } finally {
      libc.symbols.close(fd);
    }
  } finally {
    libc.close();
  }
}

/**
 * Sets up a vivid capture → output pair; the settings stay with the devices after the files
 * are closed. The output is switched to HDMI (output 1: output 0 is S-Video, which takes
 * interlaced frames only); at a CE timing it accepts SMPTE 170M (bt601) but not the sRGB the
 * webcam input reports by default, so the capture is told to report SMPTE 170M.
 */
export function pairVivid(capture: string, output: string): void {
  ioctl(output, VIDIOC_S_OUTPUT, new Int32Array([1]), "VIDIOC_S_OUTPUT 1 (HDMI)");
  ioctl(
    capture,
    VIDIOC_S_CTRL,
    new Uint32Array([VIVID_CID_COLORSPACE, VIVID_COLORSPACE_SMPTE170M]),
    "VIDIOC_S_CTRL Colorspace = SMPTE 170M",
  );
}

/** Whether the kernel module `name` is loaded. */
export function moduleLoaded(name: string): boolean {
  try {
    return Deno.statSync(`/sys/module/${name}`).isDirectory;
  } catch {
    return false;
  }
}

/**
 * Whether the vivid → kmssink-on-vkms tests run here: in the x86_64 guest, when the rig was
 * asked for vkms (`scripts/vm/run.sh --vkms` sets AXL_EXPECT_VKMS=1, and then a missing vkms
 * fails the test instead), or when vkms and vivid are both loaded. Elsewhere they are reported
 * as ignored, never as passed.
 */
export function kmsPipelineRunnable(): boolean {
  const expected = Deno.env.get("AXL_EXPECT_VKMS") === "1";
  return Deno.build.arch === "x86_64" &&
    (expected || (moduleLoaded("vkms") && moduleLoaded("vivid")));
}

/** One `axl verify` run of a pipeline from vivid's capture; see {@linkcode verifyVividPipeline}. */
export interface VividPipelineRun {
  /** Names the run in the output. */
  name: string;
  /** Where verify writes its artifacts. */
  dir: string;
  /** Frames v4l2src captures (`num-buffers`) and verify expects. */
  frames: number;
  /** v4l2src's `io-mode`: dmabuf exports vb2's buffers, mmap makes every consumer copy. */
  io: "dmabuf" | "mmap";
  /** The elements between v4l2src and the sink, caps included, without the `!` around them. */
  middle: string[];
  /** The sink; kmssink on vkms unless given. */
  sink?: string[];
  /** GStreamer's environment (`gstreamerEnv()` of `_gstreamer_env.ts`). */
  env: Record<string, string>;
}

/**
 * Runs `axl verify --json` on `gst-launch-1.0 v4l2src ! MIDDLE ! SINK` from vivid's capture,
 * judged from the kprobes on vkms (the generic evidence path; vivid's vb2 buffers are accepted
 * as the producer's), prints each invariant and the pipeline section, and fails unless verify
 * ran and the pipeline exited 0.
 *
 * @example
 * ```ts
 * const r = await verifyVividPipeline({
 *   name: "gst-kms",
 *   dir: `${results}/gst-kms`,
 *   frames: 300,
 *   io: "dmabuf",
 *   middle: ["video/x-raw,format=BGRx,width=640,height=480"],
 *   env: await gstreamerEnv(["coreelements", "video4linux2", "kms"], "kmssink", "…"),
 * });
 * assert.equal(r.axl.status, "PASS");
 * ```
 */
export async function verifyVividPipeline(run: VividPipelineRun): Promise<VerifyResult> {
  assert.ok(
    moduleLoaded("vkms"),
    "AXL_EXPECT_VKMS=1 but vkms is not loaded (scripts/vm/run.sh --vkms)",
  );
  // sync=false: on the clock, kmssink drops late frames under TCG.
  const sink = run.sink ?? ["kmssink", "driver-name=vkms", "sync=false"];
  const cli = new URL("../../../tasks/axl.ts", import.meta.url).pathname;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      ...["run", "--allow-all", "--no-check", cli, "verify", "--json", "--no-graph"],
      ...["--evidence", "generic", "--accept-exporter", "videobuf2_dma_contig"],
      ...["--importer", "vkms", "--artifacts", run.dir, "--frames", String(run.frames), "--"],
      ...["gst-launch-1.0", "-q", "v4l2src", `device=${videoNode("vivid-000-vid-cap")}`],
      ...[`io-mode=${run.io}`, `num-buffers=${run.frames}`, "!", ...run.middle, "!", ...sink],
    ],
    stdin: "null",
    env: run.env,
  }).output();
  const text = new TextDecoder().decode(stdout);
  assert.ok(code <= 2, `verify could not run (${code}): ${new TextDecoder().decode(stderr)}`);
  const r = JSON.parse(text.slice(text.indexOf("\n{") + 1)) as VerifyResult;
  console.log(`${run.name}: ${r.axl.status} (${run.dir})`);
  for (const i of Object.values(r.axl.invariants)) {
    console.log(`  ${i.id} ${i.status} ${i.summary}`);
  }
  const p = r.axl.pipeline;
  if (p) console.log(`  pipeline ${p.status} ${p.summary}\n    ${p.drawing}`);
  assert.equal(r.axl.workload.exit_code, 0, r.axl.workload.stderr_tail);
  return r;
}
