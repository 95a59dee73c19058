// Device tests of `axl verify -- COMMAND` and `--pid` on third-party pipelines built from
// GStreamer's own elements, with no axl tracepoint involved (--evidence generic): vivid's
// capture exports its vb2 buffers (v4l2src io-mode=dmabuf) and vivid's output imports them
// (v4l2sink io-mode=dmabuf-import). Artifacts go to $AXL_RESULTS/gst-<case>/.
import assert from "node:assert/strict";
import type { VerifyResult } from "../../lib/verify/schema.ts";
import { setUpVividOutput, videoNode } from "./verify/_vivid_pipeline.ts";

const results = Deno.env.get("AXL_RESULTS") ??
  await Deno.makeTempDir({ prefix: "axl-gst-test-" });
const cli = new URL("../../tasks/axl.ts", import.meta.url).pathname;
const FRAMES = 60;
// Both ends agree on this: vivid's webcam input gives it, its HDMI output takes it.
const CAPS = "video/x-raw,format=YUY2,width=640,height=360";

const cap = videoNode("vivid-000-vid-cap");
const out = videoNode("vivid-000-vid-out");
setUpVividOutput(out);

/** A pipeline from vivid's capture to `sink`, FRAMES frames, capture io-mode `io`. */
function pipeline(io: string, sink: string[]): string[] {
  return [
    "gst-launch-1.0",
    "-q",
    "v4l2src",
    `device=${cap}`,
    `io-mode=${io}`,
    `num-buffers=${FRAMES}`,
    "!",
    CAPS,
    "!",
    ...sink,
  ];
}

const importingSink = (io: string) => ["v4l2sink", `device=${out}`, `io-mode=${io}`];

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
      "--evidence",
      "generic",
      "--importer",
      "vivid.0",
      "--accept-exporter",
      "videobuf2_dma_contig",
      "--artifacts",
      dir,
      ...args,
    ],
    stdin: "null",
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

Deno.test("verify -- gst pipeline, vivid capture exports, vivid output imports", async () => {
  const r = await verify("zero-copy", [
    "--frames",
    String(FRAMES),
    "--",
    ...pipeline("dmabuf", importingSink("dmabuf-import")),
  ]);
  assert.equal(r.axl.workload.exit_code, 0, r.axl.workload.stderr_tail);
  assert.equal(r.axl.evidence?.source, "kprobes");
  assert.equal(r.axl.invariants.I1.status, "PASS", r.axl.invariants.I1.summary);
  assert.equal(r.axl.invariants.I4.status, "PASS", r.axl.invariants.I4.summary);
  assert.ok(r.detail.exporters.includes("videobuf2_dma_contig"), r.detail.exporters.join());
});

Deno.test("verify -- gst pipeline made to copy (mmap both ends): not PASS", async () => {
  const r = await verify("copy", [
    "--frames",
    String(FRAMES),
    "--",
    ...pipeline("mmap", importingSink("mmap")),
  ]);
  assert.equal(r.axl.workload.exit_code, 0, r.axl.workload.stderr_tail);
  assert.notEqual(r.axl.status, "PASS");
});

Deno.test("verify -- gst pipeline where nothing imports: not PASS, I1 says why", async () => {
  const r = await verify("no-importer", [
    "--frames",
    String(FRAMES),
    "--",
    ...pipeline("dmabuf", ["fakesink"]),
  ]);
  assert.equal(r.axl.workload.exit_code, 0, r.axl.workload.stderr_tail);
  assert.notEqual(r.axl.status, "PASS");
  assert.notEqual(r.axl.invariants.I1.status, "PASS", r.axl.invariants.I1.summary);
});

Deno.test("verify --pid on a gst pipeline already running", async () => {
  const argv = pipeline("dmabuf", importingSink("dmabuf-import"));
  argv[5] = "num-buffers=300";
  const gst = new Deno.Command(argv[0]!, { args: argv.slice(1), stdin: "null" }).spawn();
  try {
    const r = await verify("pid", ["--pid", String(gst.pid), "--duration", "4"]);
    assert.equal(r.axl.workload.kind, "pid");
    assert.equal(r.axl.workload.exit_code, null);
    assert.equal(r.axl.frames.submitted, null);
    assert.equal(r.axl.frames.submitted_from, "unknown");
    assert.equal(r.axl.invariants.I1.status, "PASS", r.axl.invariants.I1.summary);
    assert.notEqual(r.axl.invariants.I3.status, "PASS", "frames unknown: I3 cannot pass");
    // --pid leaves the process alone: it is still running after the 4 s.
    assert.ok(Deno.statSync(`/proc/${gst.pid}`).isDirectory);
  } finally {
    gst.kill("SIGTERM");
    await gst.status;
  }
});
