// The chain section from real runs captured in the VM rig (tests/fixtures/trace/): where the
// camera → card chain of buffers held or broke, judged from bufinfo, the dma-buf kprobe
// events, /proc/PID/maps and perf as the live run captured them.
import assert from "node:assert/strict";
import { analyzeChain } from "../../../lib/verify/chain.ts";
import { DEFAULT_ACCEPTED_EXPORTERS } from "../../../lib/verify/judge.ts";
import { judgeArtifacts, readCapture } from "../../../lib/verify/replay.ts";
import type { BufinfoSummary } from "../../../lib/trace/parse/bufinfo_summary.ts";
import type { Chain } from "../../../lib/verify/chain_schema.ts";
import { ChainSchema } from "../../../lib/verify/chain_schema.ts";
import { verdictLines } from "../../../lib/commands/verify.ts";
import { renderHtmlReport } from "../../../lib/verify/report/html.ts";

const fixture = (p: string) => new URL(`../../fixtures/trace/${p}`, import.meta.url).pathname;

async function chainOf(p: string, options = {}): Promise<Chain> {
  const r = await judgeArtifacts(fixture(p), options);
  assert.ok(r.axl.chain, `${p}: result has a chain section`);
  return ChainSchema.parse(r.axl.chain);
}

Deno.test("analyzeChain() on vivid → vkms: the card imported the camera's own buffers, whole", async () => {
  const c = await chainOf("6.12-gst/vivid-to-vkms", {
    evidence: "generic",
    importer: "vkms",
    acceptedExporters: [...DEFAULT_ACCEPTED_EXPORTERS, "videobuf2_dma_contig"],
  });
  assert.equal(c.status, "whole", c.summary);
  assert.deepEqual(c.camera.devices, ["vivid.0"]);
  assert.equal(c.card.device, "vkms");
  assert.deepEqual(c.card.from, ["kprobes", "bufinfo"]);
  assert.equal(c.card.buffers.length, 4);
  assert.ok(c.card.buffers.every((b) => b.exporter === "videobuf2_dma_contig"));
  assert.deepEqual(c.shared, c.card.buffers.map((b) => b.inode));
  assert.match(c.summary, /^the card imported the camera's buffers: vkms imported 4 buffers/);
});

Deno.test("analyzeChain() without recorded V4L2 nodes takes the devices that attached frames (builtin, axl.ko)", async () => {
  const c = await chainOf("6.12-axl/zero-copy");
  assert.equal(c.camera.devices_from, "attachments");
  assert.deepEqual(c.camera.devices, ["vivid.0"]);
  assert.equal(c.status, "whole", c.summary);
  // the 4 camera buffers, and the result buffer the card writes, which no camera filled
  assert.equal(c.shared.length, 4);
  assert.deepEqual(
    c.card.buffers.filter((b) => !c.shared.includes(b.inode)).map((b) => b.name),
    ["axl-result"],
  );
  assert.match(c.summary, /it also imported 1 buffer exported by system \(axl-result\)/);
});

Deno.test("analyzeChain() with heap frames and no camera: unknown, said so", async () => {
  const c = await chainOf("6.12-axl/copy");
  assert.equal(c.status, "unknown");
  assert.deepEqual(c.camera.buffers, []);
  assert.match(c.summary, /^no camera buffer was seen/);
  assert.match(c.summary, /axl-staging/);
});

const obs = (inode: number, exporter: string, name: string, devices: string[]) => ({
  inode,
  exporter,
  name,
  size: 1 << 20,
  maxDevices: devices.length,
  devicesAtMax: devices,
  devicesSeen: devices,
  samples: 1,
  multiAttachSamples: devices.length > 1 ? 1 : 0,
  firstSeenMs: 0,
  lastSeenMs: 0,
});
const ref = (pid: number, inode: number, perms: string, name = "") => ({
  pid,
  start: "7f0000000000",
  end: "7f0000100000",
  bytes: 1 << 20,
  perms,
  inode,
  name,
});

Deno.test("analyzeChain() calls a run partial when a process also fed the card from the CPU", () => {
  const c = analyzeChain({
    importer: "0000:00:02.0",
    bufinfo: {
      samples: 1,
      errors: [],
      inodes: new Map([
        [1, obs(1, "system", "cam-0", ["vivid.0", "0000:00:02.0"])],
        [2, obs(2, "system", "cam-1", ["vivid.0"])],
        [3, obs(3, "system", "pool-0", ["0000:00:02.0"])],
      ]),
    },
    mapRefs: [ref(9, 2, "r--s"), ref(9, 3, "rw-s")],
    cameraDevices: ["vivid.0"],
    workload: { kind: "command", description: "gst-launch-1.0 -q v4l2src", pids: [9] },
  });
  assert.equal(c.status, "partial");
  assert.deepEqual(c.shared, [1]);
  assert.deepEqual(c.between, [{
    pid: 9,
    comm: "gst-launch-1.0",
    camera: [2],
    card: [3],
    card_writable: [3],
  }]);
  assert.match(
    c.summary,
    /^the card imported 1 camera buffer and 1 buffer exported by system \(pool-0\) that no camera filled; vivid\.0 filled 2 buffers .*; pid 9 \(gst-launch-1\.0\) mapped 1 of the camera's 2 buffers and each of the card's 1 writable$/,
  );
});

Deno.test("analyzeChain() with no importer chosen: unknown, naming why", () => {
  const c = analyzeChain({
    importer: null,
    bufinfo: { unavailable: "no debugfs" },
    mapRefs: [],
    cameraDevices: [],
    workload: { kind: "pid", description: "pid 1", pids: [1] },
  });
  assert.equal(c.status, "unknown");
  assert.equal(c.summary, "no importing device was chosen, so the card's buffers are unknown");
});

Deno.test("the text summary and the HTML report show the chain", async () => {
  const r = await judgeArtifacts(fixture("6.12-gst/vivid-to-vkms"), {
    evidence: "generic",
    importer: "vkms",
    acceptedExporters: [...DEFAULT_ACCEPTED_EXPORTERS, "videobuf2_dma_contig"],
  });
  const line = verdictLines(r).find((l) => l.startsWith("chain: "));
  assert.equal(line, `chain: ${r.axl.chain!.summary}`);
  const html = renderHtmlReport(r);
  assert.match(
    html,
    /<h2>Chain <span class="badge" style="background:#1a7f37">whole<\/span><\/h2>/,
  );
  assert.ok(html.includes("the card imported the camera&#39;s buffers: vkms imported 4 buffers"));
});

Deno.test("judge() notes a broken chain under invariants that all passed", async () => {
  // The builtin zero-copy run (PASS), told that the workload's camera was another V4L2 device
  // whose one buffer the card never imported: the invariants still pass, the chain is broken,
  // and the result says so instead of a silent PASS.
  const capture = await readCapture(fixture("6.12-axl/zero-copy"));
  capture.record.workload.v4l2Devices = [{ node: "/dev/video9", name: "cam", device: "cam.9" }];
  const bufinfo = capture.bufinfo as BufinfoSummary;
  bufinfo.inodes.set(999_999, {
    inode: 999_999,
    exporter: "system",
    name: "other-camera-0",
    size: 4096,
    maxDevices: 1,
    devicesAtMax: ["cam.9"],
    devicesSeen: ["cam.9"],
    samples: 1,
    multiAttachSamples: 0,
    firstSeenMs: 0,
    lastSeenMs: 0,
  });
  const r = await judgeArtifacts(capture);
  assert.equal(r.axl.status, "PASS");
  assert.equal(r.axl.chain?.status, "broken", r.axl.chain?.summary);
  assert.ok(
    r.axl.notes.includes(
      `the invariants passed, but the chain is broken: ${r.axl.chain!.summary}`,
    ),
    r.axl.notes.join("\n"),
  );
});
