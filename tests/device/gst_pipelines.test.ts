// Device tests of `axl verify -- COMMAND` and `--pid` on third-party pipelines built from
// GStreamer's own elements, with no axl tracepoint involved (--evidence generic): vivid's
// capture exports its vb2 buffers (v4l2src io-mode=dmabuf) and vivid's output imports them
// (v4l2sink io-mode=dmabuf-import). Both belong to vivid.0, so the honest I1 is "one
// device". Artifacts go to $AXL_RESULTS/gst-<case>/.
import assert from "node:assert/strict";
import type { VerifyResult } from "../../lib/verify/schema.ts";
import { pairVivid, videoNode } from "./verify/_vivid_pipeline.ts";
import { gstreamerEnv } from "./verify/_gstreamer_env.ts";

const results = Deno.env.get("AXL_RESULTS") ??
  await Deno.makeTempDir({ prefix: "axl-gst-test-" });
const cli = new URL("../../tasks/axl.ts", import.meta.url).pathname;
const FRAMES = 60;
// Both ends agree on this: vivid's webcam input gives it, its HDMI output takes it.
const CAPS = "video/x-raw,format=YUY2,width=640,height=360";

// The arm64 guest's root (scripts/vm/arm64/root.sh) carries no GStreamer: these tests run in
// the x86_64 guest, whose root is the host's, where the rig installs it (scripts/vm/ensure.sh);
// on arm64 they are reported as ignored.
const ON_X86_64 = Deno.build.arch === "x86_64";

// vivid's capture and output nodes both belong to the platform device vivid.0.
const cap = ON_X86_64 ? videoNode("vivid-000-vid-cap") : "";
const out = ON_X86_64 ? videoNode("vivid-000-vid-out") : "";
if (ON_X86_64) pairVivid(cap, out);
const gstEnv = ON_X86_64
  ? await gstreamerEnv(
    ["coreelements", "video4linux2"],
    "v4l2src",
    "gstreamer1.0-tools and gstreamer1.0-plugins-good",
  )
  : {};

/** A pipeline from vivid.0's capture to `sink`, FRAMES frames, capture io-mode `io`. */
function pipeline(io: string, sink: string[], frames = FRAMES): string[] {
  return [
    "gst-launch-1.0",
    "-q",
    "v4l2src",
    `device=${cap}`,
    `io-mode=${io}`,
    `num-buffers=${frames}`,
    "!",
    CAPS,
    "!",
    ...sink,
  ];
}

// sync=false: a sink on the clock drops late frames under TCG, and a dropped frame is a frame
// never imported. show-preroll-frame=false: a video sink shows its first (preroll) frame, and
// shows it again once playing, so the output queues it twice and vivid.0 maps it twice (the
// VM showed 61 maps for 60 frames, the first inode attached to two queue slots).
const v4l2sink = (node: string, io: string) => [
  "v4l2sink",
  `device=${node}`,
  `io-mode=${io}`,
  "sync=false",
  "show-preroll-frame=false",
];

/** Runs `axl verify --json` with `args`; the verdict and the exit code. */
async function verify(name: string, args: string[]): Promise<VerifyResult & { code: number }> {
  const dir = `${results}/gst-${name}`;
  const { code, stdout, stderr } = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--allow-all",
      "--no-check",
      cli,
      "verify",
      "--json",
      // function_graph is evidence of no invariant; leaving it out saves minutes under TCG.
      "--no-graph",
      "--evidence",
      "generic",
      "--accept-exporter",
      "videobuf2_dma_contig",
      "--importer",
      "vivid.0",
      "--artifacts",
      dir,
      ...args,
    ],
    stdin: "null",
    env: gstEnv,
  }).output();
  const text = new TextDecoder().decode(stdout);
  const json = text.slice(text.indexOf("\n{") + 1);
  assert.ok(code <= 2, `verify could not run (${code}): ${new TextDecoder().decode(stderr)}`);
  const r = JSON.parse(json) as VerifyResult;
  const line = Object.values(r.axl.invariants).map((i) => `${i.id}=${i.status}`).join(" ");
  console.log(`gst ${name}: ${r.axl.status} ${line} (${dir})`);
  for (const i of Object.values(r.axl.invariants)) console.log(`  ${i.id} ${i.summary}`);
  return { ...r, code };
}

Deno.test({
  name: "verify -- gst pipeline, vivid's capture exports, its output imports: one device, said so",
  ignore: !ON_X86_64,
}, async () => {
  const r = await verify("zero-copy", [
    "--frames",
    String(FRAMES),
    "--",
    ...pipeline("dmabuf", v4l2sink(out, "dmabuf-import")),
  ]);
  assert.equal(r.axl.workload.exit_code, 0, r.axl.workload.stderr_tail);
  assert.equal(r.axl.evidence?.source, "kprobes");
  assert.equal(r.axl.invariants.I3.source, "kprobes");
  // Exported by vb2 and attached by vivid.0, which owns both nodes: no second device, so
  // I1 says what the run shows instead of passing.
  assert.equal(r.axl.invariants.I1.status, "INCONCLUSIVE", r.axl.invariants.I1.summary);
  assert.match(r.axl.invariants.I1.summary, /exporter and importer are one device/);
  assert.deepEqual(r.detail.exporters, ["videobuf2_dma_contig"]);
  // I2 accepts the exporter but does not pass what I1 did not show shared.
  assert.equal(r.axl.invariants.I2.status, "INCONCLUSIVE", r.axl.invariants.I2.summary);
  assert.match(r.axl.invariants.I2.summary, /videobuf2_dma_contig are accepted/);
  // The kprobes count vivid.0's maps of frame buffers: one per frame queued to the output.
  // vb2 maps a dma-buf when it is queued into a slot that last held another one; the sink
  // cycles 2 slots over the capture's 5 buffers, so every frame is a new map.
  assert.equal(r.axl.invariants.I3.status, "PASS", r.axl.invariants.I3.summary);
  assert.match(r.axl.invariants.I3.summary, /vivid\.0 mapped 60 frame buffers = 60 frames/);
  assert.notEqual(r.axl.invariants.I4.status, "FAIL", r.axl.invariants.I4.summary);
  assert.notEqual(r.axl.status, "PASS");
});

Deno.test({
  name: "verify -- gst pipeline whose sink shows its preroll frame twice: judged on coverage",
  ignore: !ON_X86_64,
}, async () => {
  // The sink on the clock (sync=true) and show-preroll-frame at its default (true): the first
  // frame is queued to vivid's output twice. max-lateness=-1 keeps the sink from dropping the
  // frames TCG makes late, so every one of the 60 reaches the importer.
  const r = await verify("preroll-twice", [
    "--frames",
    String(FRAMES),
    "--",
    ...pipeline("dmabuf", [
      "v4l2sink",
      `device=${out}`,
      "io-mode=dmabuf-import",
      "sync=true",
      "max-lateness=-1",
    ]),
  ]);
  assert.equal(r.axl.workload.exit_code, 0, r.axl.workload.stderr_tail);
  const i3 = r.axl.invariants.I3;
  assert.equal(i3.source, "kprobes");
  const maps = i3.evidence.imports as number;
  assert.ok(maps > FRAMES, `the preroll frame shown twice is a map more: ${i3.summary}`);
  // Every frame was mapped; the extra map of the preroll frame is a note, not a FAIL.
  assert.equal(i3.status, "PASS", i3.summary);
  assert.equal(i3.evidence.extra_maps, maps - FRAMES);
  assert.match(i3.summary, /every frame covered, \d+ more maps? of the same buffers/);
  const extra = maps - FRAMES;
  assert.ok(
    r.axl.notes.some((n) =>
      n.startsWith(
        `I3: vivid.0 mapped the frame buffers ${extra} time${extra === 1 ? "" : "s"} more`,
      )
    ),
    JSON.stringify(r.axl.notes),
  );
  assert.ok(!r.axl.diagnosis.some((d) => d.id === "maps-ne-frames"));
});

Deno.test({
  name: "verify -- gst pipeline made to copy (mmap at both ends): FAIL naming the copy",
  ignore: !ON_X86_64,
}, async () => {
  const r = await verify("copy", [
    "--frames",
    String(FRAMES),
    "--",
    ...pipeline("mmap", v4l2sink(out, "mmap")),
  ]);
  assert.equal(r.axl.workload.exit_code, 0, r.axl.workload.stderr_tail);
  assert.notEqual(r.axl.invariants.I1.status, "PASS", "nothing was imported");
  assert.equal(r.axl.invariants.I4.status, "FAIL", r.axl.invariants.I4.summary);
  assert.ok(r.detail.memcpy_hot.length > 0);
  assert.equal(r.axl.status, "FAIL");
});

Deno.test({
  name: "verify -- gst pipeline where nothing imports: not PASS, I1 and I3 say why",
  ignore: !ON_X86_64,
}, async () => {
  const r = await verify("no-importer", [
    "--frames",
    String(FRAMES),
    "--",
    ...pipeline("dmabuf", ["fakesink"]),
  ]);
  assert.equal(r.axl.workload.exit_code, 0, r.axl.workload.stderr_tail);
  assert.notEqual(r.axl.status, "PASS");
  assert.notEqual(r.axl.invariants.I1.status, "PASS", r.axl.invariants.I1.summary);
  assert.notEqual(r.axl.invariants.I3.status, "PASS", r.axl.invariants.I3.summary);
});

Deno.test({
  name: "verify --pid on a gst pipeline already running: observed, left alone",
  ignore: !ON_X86_64,
}, async () => {
  const argv = pipeline("dmabuf", v4l2sink(out, "dmabuf-import"), 100000);
  const gst = new Deno.Command(argv[0]!, { args: argv.slice(1), stdin: "null", env: gstEnv })
    .spawn();
  try {
    const r = await verify("pid", ["--pid", String(gst.pid), "--duration", "6"]);
    assert.equal(r.axl.workload.kind, "pid");
    assert.equal(r.axl.workload.exit_code, null);
    assert.equal(r.axl.frames.submitted, null);
    assert.equal(r.axl.frames.submitted_from, "unknown");
    assert.ok(r.axl.invariants.I1.evidence.frame_inodes_sampled as number > 0, "frames seen");
    assert.equal(r.axl.invariants.I3.status, "INCONCLUSIVE", "frames unknown: I3 cannot pass");
    // --pid leaves the process alone: it still runs after the observation.
    assert.ok(Deno.statSync(`/proc/${gst.pid}`).isDirectory);
  } finally {
    gst.kill("SIGTERM");
    await gst.status;
  }
});
