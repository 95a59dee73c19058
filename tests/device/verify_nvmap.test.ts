// `axl verify -- COMMAND` over Jetson-shaped camera frames: a user's script on the Metis ABI whose
// camera (vivid, scripts/vm/run.sh --vivid) captures into buffers of the rig's nvmap stand-in
// (/dev/dma_heap/nvmap-sim: exported as nvmap_dmabuf, nvmap's tracepoints, one IOMMU map per
// buffer and device). Judged from the kprobes
// (--evidence generic) with nvmap's own events beside them: the run records them (hash-ptr
// cleared for its buffer), joins their dmabuf= pointers to inodes through the probes' buf=/ino=,
// cross-checks I3's maps against nvmap's, and names in the chain section every CPU touch of a
// camera buffer by the workload. On both guests: on the arm64 5.15 one the probes reach the
// inode through the struct offsets the rig measured ($AXL_KERNEL_OFFSETS).
// Artifacts go to $AXL_RESULTS/verify-nvmap-read/ when the rig provides it.
import assert from "node:assert/strict";
import type { VerifyResult } from "../../lib/verify/schema.ts";
import { metisTarget, vividCapture } from "./verify/_metis_target.ts";
import { denoScript, runVerify } from "./verify/_run_verify.ts";
import { tracefsState } from "./verify/_tracefs_state.ts";

const results = Deno.env.get("AXL_RESULTS") ??
  await Deno.makeTempDir({ prefix: "axl-verify-nvmap-" });
/**
 * 24 frames on both guests: a 40-frame run of this client gave I4 11,965–13,882 perf samples in
 * the x86 guest; in the arm64 guest 24 frames gave 5,990–6,266 (perf at 999 Hz, held to 750 by
 * the kernel's limit in one run), and 1,440 with the limit set to 250 Hz beforehand (one sample
 * per tick, the lowest the kernel goes): still above the 500 I4 needs at the 2 % threshold, and
 * the 1,000 it needs at 1 %. The test took 42–44 s of the arm64 guest, 24 s at 250 Hz.
 */
const FRAMES = 24;
/** I4's threshold for a Deno client (see verify_metis_user.test.ts). */
const THRESHOLD = "2";
const CLIENT = new URL("./verify/_nvmap_client.ts", import.meta.url).pathname;
const HEAP = "/dev/dma_heap/nvmap-sim";

async function verify(name: string, mode: string): Promise<VerifyResult> {
  const { node, pci } = metisTarget();
  const dir = `${results}/verify-nvmap-${name}`;
  const { result: r } = await runVerify(`nvmap-sim ${name}`, dir, [
    ...["--evidence", "generic", "--importer", pci],
    ...["--frames", String(FRAMES), "--threshold", THRESHOLD],
  ], { command: denoScript(CLIENT, [String(FRAMES), node, vividCapture().path, mode]) });
  assert.equal(r.axl.workload.exit_code, 0, r.axl.workload.stderr_tail);
  return r;
}

function present(): boolean {
  try {
    Deno.statSync(HEAP);
    return true;
  } catch {
    assert.ok(
      !Deno.env.get("AXL_EXPECT_NVMAP_SIM"),
      `${HEAP} absent, but the rig loads nvmap_sim.ko`,
    );
    return false;
  }
}

Deno.test({
  name:
    "axl verify -- a script reading each nvmap-sim camera frame: PASS, nvmap's events joined, the CPU touch named",
  ignore: !present(),
  fn: async () => {
    const { pci } = metisTarget();
    const found = tracefsState();
    const a = (await verify("read", "read")).axl;
    // hash-ptr and nvmap's event enables included (tests/device/verify/_tracefs_state.ts)
    assert.deepEqual(tracefsState(), found, "tracefs left as found");
    assert.equal(a.status, "PASS", JSON.stringify(a.invariants));
    assert.equal(a.evidence?.source, "kprobes");
    // I2 names nvmap's exporter
    assert.deepEqual(a.invariants.I2.evidence.exporters, ["nvmap_dmabuf"]);
    const n = a.evidence?.nvmap;
    assert.ok(n, "the evidence section names nvmap's events");
    assert.equal(n.pointers, "raw", "hash-ptr was cleared for the run");
    const card = n.devices[pci];
    assert.ok(card, `nvmap saw ${pci} attach: ${JSON.stringify(n.devices)}`);
    assert.ok(card.attaches >= FRAMES, `an attach per frame: ${card.attaches}`);
    assert.ok(card.inodes.length > 0 && n.withInode === n.buffers, JSON.stringify(n));
    // I3's maps and nvmap's agree on every camera buffer the card mapped
    const i3 = a.invariants.I3;
    assert.deepEqual(i3.evidence.nvmap_check, {
      agree: true,
      checked: card.inodes.length,
      probes_only: [],
      nvmap_only: [],
      more_nvmap_maps: [],
      unjoined: 0,
    }, i3.summary);
    // The client's reads (its own task: vivid fills from a kernel worker, left out).
    const touches = a.chain?.cpu_touches ?? [];
    const reads = touches.filter((t) => t.kind === "begin_cpu_access" && t.in_chain);
    assert.ok(
      reads.reduce((s, t) => s + t.count, 0) >= FRAMES,
      `a CPU read of a camera buffer per frame: ${JSON.stringify(touches)}`,
    );
    assert.ok(touches.some((t) => t.kind === "mmap" && t.in_chain), JSON.stringify(touches));
    assert.ok(reads.every((t) => a.workload.pids.includes(t.pid)), "by the workload's process");
  },
});
