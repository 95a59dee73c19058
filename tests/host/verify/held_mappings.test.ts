// I3's held shape (lib/verify/evidence/held_mappings.ts) on small synthetic runs: the pool
// of an exporter's buffers as bufinfo lists it and the importer's maps per inode as the
// kprobes count them. The shape passes only when it is exactly that; every refusal keeps
// the per-frame verdict. The real capture is in gst_kms_replay.test.ts.
import assert from "node:assert/strict";
import { addSample, emptySummary } from "../../../lib/trace/parse/bufinfo_summary.ts";
import type { DeviceUse } from "../../../lib/verify/evidence/dmabuf_probes.ts";
import { heldMappings } from "../../../lib/verify/evidence/held_mappings.ts";
import { judgeImporterAccounting } from "../../../lib/verify/evidence/importer_accounting.ts";

const VB2 = "videobuf2_dma_contig";

/** One bufinfo sample: `inodes` exported by vb2 and attached by vkms, `system` by a heap. */
function pool(inodes: number[], system: number[] = []) {
  const all = [
    ...inodes.map((i) => [i, VB2] as const),
    ...system.map((i) => [i, "system"] as const),
  ];
  return addSample(emptySummary(), {
    buffers: all.map(([inode, exporter], i) => ({
      size: 1228800,
      flags: 2,
      mode: 2,
      count: 3,
      exporter,
      inode,
      name: "",
      devices: ["vkms"],
      fences: [],
      line: i + 2,
    })),
  }, 0);
}

/** vkms's use of dma-bufs: maps and unmaps per inode. */
function use(maps: Record<number, number>, unmaps: Record<number, number> = maps): DeviceUse {
  const m = new Map(Object.entries(maps).map(([k, v]) => [Number(k), v]));
  const u = new Map(Object.entries(unmaps).map(([k, v]) => [Number(k), v]));
  const sum = (x: Map<number, number>) => [...x.values()].reduce((a, b) => a + b, 0);
  return {
    device: "vkms",
    attaches: m.size,
    detaches: m.size,
    maps: sum(m),
    unmaps: sum(u),
    mapsByInode: m,
    unmapsByInode: u,
    buffers: new Set(),
    openMaps: new Map(),
  };
}

/** judgeImporterAccounting() on a kprobes run of vkms with `frames` frames. */
function judge(u: DeviceUse, bufinfo: ReturnType<typeof pool>, frames = 60) {
  return judgeImporterAccounting(
    {
      source: "kprobes",
      importer: { name: "vkms", axl: false, reason: "--importer" },
      passedOver: [],
      frameInodes: new Set(u.mapsByInode.keys()),
      frameInodesFrom: "inodes vkms mapped (kprobes)",
      use: u,
    },
    undefined,
    frames,
    false,
    bufinfo,
  );
}

const ONCE = { 1: 1, 2: 1, 3: 1, 4: 1 };

Deno.test("held: each of the exporter's 4 buffers mapped and unmapped once for 60 frames passes", () => {
  const v = judge(use(ONCE), pool([1, 2, 3, 4]));
  assert.equal(v.invariant.status, "PASS", v.invariant.summary);
  assert.equal(
    v.invariant.summary,
    `vkms held a mapping of each of the 4 buffers ${VB2} exported for 60 frames; 4 unmaps (kprobes)`,
  );
  assert.equal(v.invariant.evidence.shape, "held");
  assert.deepEqual(v.invariant.evidence.held_buffers, [1, 2, 3, 4]);
  // A buffer of another exporter is not in the frames' pool.
  assert.equal(judge(use(ONCE), pool([1, 2, 3, 4], [9])).invariant.status, "PASS");
});

Deno.test("per-frame: one map per frame passes and says its shape", () => {
  const v = judge(use(ONCE), pool([1, 2, 3, 4]), 4);
  assert.equal(v.invariant.status, "PASS", v.invariant.summary);
  assert.equal(v.invariant.evidence.shape, "per-frame");
});

Deno.test("held is refused, keeping the per-frame FAIL, when a buffer of the exporter was never mapped", () => {
  const v = judge(use(ONCE), pool([1, 2, 3, 4, 5]));
  assert.equal(v.invariant.status, "FAIL");
  assert.equal(v.invariant.summary, "vkms mapped frame buffers 4 times for 60 frames submitted");
  assert.equal(v.invariant.evidence.shape, undefined);
  assert.deepEqual(v.diagnoses.map((d) => d.id), ["maps-ne-frames"]);
  const r = heldMappings(use(ONCE), new Set([1, 2, 3, 4]), pool([1, 2, 3, 4, 5]), 60);
  assert.deepEqual(r, { held: false, reason: "inode 5 was mapped 0 times, not once" });
});

Deno.test("held is refused when a buffer was mapped twice", () => {
  const u = use({ 1: 2, 2: 1, 3: 1, 4: 1 });
  assert.equal(judge(u, pool([1, 2, 3, 4])).invariant.status, "FAIL");
  assert.deepEqual(heldMappings(u, new Set([1, 2, 3, 4]), pool([1, 2, 3, 4]), 60), {
    held: false,
    reason: "inode 1 was mapped 2 times, not once",
  });
});

Deno.test("held is refused when a mapping was never undone", () => {
  const u = use(ONCE, { 1: 1, 2: 1, 3: 1, 4: 0 });
  assert.equal(judge(u, pool([1, 2, 3, 4])).invariant.status, "FAIL");
  assert.deepEqual(heldMappings(u, new Set([1, 2, 3, 4]), pool([1, 2, 3, 4]), 60), {
    held: false,
    reason: "inode 4 was unmapped 0 times, not once",
  });
});

Deno.test("held is refused without bufinfo, or when bufinfo never listed a mapped buffer", () => {
  const v = judgeImporterAccounting(
    {
      source: "kprobes",
      importer: { name: "vkms", axl: false, reason: "--importer" },
      passedOver: [],
      frameInodes: new Set([1, 2, 3, 4]),
      frameInodesFrom: "inodes vkms mapped (kprobes)",
      use: use(ONCE),
    },
    undefined,
    60,
    false,
  );
  assert.equal(v.invariant.status, "FAIL", "no bufinfo given: only the per-frame shape can pass");
  assert.deepEqual(
    heldMappings(use(ONCE), new Set([1, 2, 3, 4]), { unavailable: "no debugfs" }, 60),
    { held: false, reason: "bufinfo is unavailable (no debugfs)" },
  );
  assert.equal(judge(use(ONCE), pool([1, 2, 3])).invariant.status, "FAIL");
  assert.deepEqual(heldMappings(use(ONCE), new Set([1, 2, 3, 4]), pool([1, 2, 3]), 60), {
    held: false,
    reason: "bufinfo never listed inode 4, so its exporter is unknown",
  });
});

Deno.test("held is refused with more buffers than frames, or probes without inodes", () => {
  assert.deepEqual(heldMappings(use(ONCE), new Set([1, 2, 3, 4]), pool([1, 2, 3, 4]), 3), {
    held: false,
    reason: `4 buffers of ${VB2} for 3 frames`,
  });
  assert.deepEqual(heldMappings(use({}), new Set([1]), pool([1]), 60), {
    held: false,
    reason: "the probes carry no buffer inode",
  });
});

/** judge() with the workload's buffers (its fds and mappings) given, as a capture records them. */
function judgeHeld(u: DeviceUse, bufinfo: ReturnType<typeof pool>, workload: number[]) {
  return judgeImporterAccounting(
    {
      source: "kprobes",
      importer: { name: "vkms", axl: false, reason: "--importer" },
      passedOver: [],
      frameInodes: new Set(u.mapsByInode.keys()),
      frameInodesFrom: "inodes vkms mapped (kprobes)",
      use: u,
    },
    undefined,
    60,
    false,
    bufinfo,
    new Set(),
    undefined,
    new Set(workload),
  );
}

Deno.test("heldMappings() ignores the exporter's buffers no process of the workload held, and counts them", () => {
  // 5-7: the same exporter's buffers of a bystander (a display, another app), never mapped.
  const r = heldMappings(
    use(ONCE),
    new Set([1, 2, 3, 4]),
    pool([1, 2, 3, 4, 5, 6, 7]),
    60,
    new Set([1, 2, 3, 4]),
  );
  assert.deepEqual(r, {
    held: true,
    buffers: [1, 2, 3, 4],
    exporters: [VB2],
    pool: { from: "workload", ignored: 3 },
  });
  const v = judgeHeld(use(ONCE), pool([1, 2, 3, 4, 5, 6, 7]), [1, 2, 3, 4, 8]);
  assert.equal(v.invariant.status, "PASS", v.invariant.summary);
  assert.equal(
    v.invariant.summary,
    `vkms held a mapping of each of the 4 buffers of ${VB2} the workload held, for 60 frames ` +
      `(3 other buffers of ${VB2}, held by no process of the workload, ignored); 4 unmaps (kprobes)`,
  );
  assert.deepEqual(v.invariant.evidence.held_pool, { from: "workload", ignored: 3 });
  // Without the workload's buffers (an older capture) the pool is the whole exporter, as before.
  assert.equal(judge(use(ONCE), pool([1, 2, 3, 4, 5, 6, 7])).invariant.status, "FAIL");
});

Deno.test("heldMappings() still refuses a buffer the workload held that the importer never mapped", () => {
  const v = judgeHeld(use(ONCE), pool([1, 2, 3, 4, 5, 6]), [1, 2, 3, 4, 5]);
  assert.equal(v.invariant.status, "FAIL");
  assert.equal(v.invariant.summary, "vkms mapped frame buffers 4 times for 60 frames submitted");
  assert.equal(v.invariant.evidence.not_held, "inode 5 was mapped 0 times, not once");
  assert.deepEqual(v.invariant.evidence.held_pool, { from: "workload", ignored: 1 });
});

Deno.test("heldPool() keeps the whole exporter when the workload's scans missed a buffer the importer mapped", () => {
  const r = heldMappings(
    use(ONCE),
    new Set([1, 2, 3, 4]),
    pool([1, 2, 3, 4, 5]),
    60,
    new Set([1, 2, 3]),
  );
  assert.deepEqual(r, {
    held: false,
    reason: "inode 5 was mapped 0 times, not once",
    pool: {
      from: "exporter",
      ignored: 0,
      why: "the workload's fd and map scans never saw inode 4, which the importer mapped",
    },
  });
  const v = judgeHeld(use(ONCE), pool([1, 2, 3, 4, 5]), [1, 2, 3]);
  assert.equal(v.invariant.status, "FAIL");
  assert.equal(v.invariant.evidence.held_pool, undefined, "judged as before, word for word");
});
