// A two-device GStreamer pipeline verified in the VM with no axl tracepoint involved
// (tests/device/gst_kms.test.ts): vivid's capture exports its vb2 buffers (v4l2src
// io-mode=dmabuf) and kmssink shows them on vkms, which imports each once and keeps it (one
// DRM framebuffer per buffer). The parsers of bufinfo, the kprobe events and perf read the
// capture as the live run did, and I3 finds the held shape in it.
import assert from "node:assert/strict";
import { DEFAULT_ACCEPTED_EXPORTERS } from "../../../lib/verify/judge.ts";
import { judgeArtifacts } from "../../../lib/verify/replay.ts";
import { asSavedBeforeChain } from "./_runs.ts";

const dir = new URL("../../fixtures/trace/6.12-gst/vivid-to-vkms", import.meta.url).pathname;
// The options of the live run: --evidence generic --accept-exporter videobuf2_dma_contig
// --importer vkms.
const options = {
  evidence: "generic" as const,
  importer: "vkms",
  acceptedExporters: [...DEFAULT_ACCEPTED_EXPORTERS, "videobuf2_dma_contig"],
};

Deno.test("judgeArtifacts() gives back the result.json the vivid → vkms pipeline wrote live", async () => {
  const saved = JSON.parse(await Deno.readTextFile(`${dir}/result.json`));
  assert.deepEqual(asSavedBeforeChain(await judgeArtifacts(dir, options)), saved);
});

Deno.test("the vivid → vkms pipeline: two devices, vkms held each buffer's mapping, PASS", async () => {
  const r = await judgeArtifacts(dir, options);
  const { I1, I2, I3, I4 } = r.axl.invariants;
  assert.equal(r.axl.evidence?.source, "kprobes");
  assert.equal(r.axl.evidence?.importer, "vkms");
  assert.deepEqual(r.detail.exporters, ["videobuf2_dma_contig"]);
  assert.equal(I1.status, "PASS", I1.summary);
  assert.match(
    I1.summary,
    /exported by the producer device \(videobuf2_dma_contig\), vkms attached/,
  );
  assert.equal(I2.status, "PASS", I2.summary);
  // vkms mapped each of v4l2src's buffers once for all 60 frames, and unmapped each at the end.
  assert.equal(I3.status, "PASS", I3.summary);
  assert.equal(I3.source, "kprobes");
  assert.equal(I3.evidence.shape, "held");
  const held = I3.evidence.held_buffers as number[];
  assert.equal(I3.evidence.imports, held.length);
  assert.equal(I3.evidence.releases, held.length);
  assert.equal(
    I3.summary,
    `vkms held a mapping of each of the ${held.length} buffers videobuf2_dma_contig exported ` +
      `for 60 frames; ${held.length} unmaps (kprobes)`,
  );
  assert.equal(I4.status, "PASS", I4.summary);
  assert.equal(r.axl.status, "PASS");
  assert.equal(r.axl.workload.exit_code, 0);
  assert.equal(r.axl.frames.submitted_from, "--frames");
});

Deno.test("the vivid → vkms capture with one more buffer of the exporter, never mapped: I3 FAIL", async () => {
  // A last sample listing a videobuf2_dma_contig buffer vkms never mapped: a frame could have
  // travelled in it, so the held shape is refused and the per-frame count fails.
  const tmp = await Deno.makeTempDir();
  try {
    for await (const e of Deno.readDir(dir)) {
      await Deno.copyFile(`${dir}/${e.name}`, `${tmp}/${e.name}`);
    }
    const samples = await Deno.readTextFile(`${dir}/bufinfo_samples.txt`);
    const header = samples.split("\n").find((l) => l.startsWith("size"))!;
    const last = [...samples.matchAll(/^### sample (\d+) (\d+)$/gm)].at(-1)!;
    await Deno.writeTextFile(
      `${tmp}/bufinfo_samples.txt`,
      `${samples}### sample ${Number(last[1]) + 1} ${last[2]}\n\nDma-buf Objects:\n${header}\n` +
        "01228800\t00000002\t00080007\t00000001\tvideobuf2_dma_contig\t00000999\t<none>\n" +
        "\tAttached Devices:\nTotal 0 devices attached\n\n\nTotal 1 objects, 1228800 bytes\n",
    );
    const r = await judgeArtifacts(tmp, options);
    assert.equal(r.axl.invariants.I3.status, "FAIL", r.axl.invariants.I3.summary);
    assert.match(r.axl.invariants.I3.summary, /^vkms mapped frame buffers \d+ times for 60 frames/);
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
});
