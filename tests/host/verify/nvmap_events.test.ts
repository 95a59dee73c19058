// nvmap's dma-buf events (a Jetson's nvmap, the rig's nvmap-sim) in a trace: folded per device
// and per task, their dmabuf= pointers joined to inodes through the probe events' buf=/ino=.
// The lines are nvmap-sim's and the probes' formats as the x86_64 guest printed them.
import assert from "node:assert/strict";
import { readTraceFacts } from "../../../lib/verify/trace_facts.ts";
import { normalizePointer, NvmapFacts } from "../../../lib/verify/evidence/nvmap_events.ts";
import { analyzeChain } from "../../../lib/verify/chain.ts";

const EDU = "0000:00:02.0";
const A = "ffff8880047c3000"; // frame buffer, inode 41
const B = "ffff8880047c3800"; // frame buffer, inode 42

function line(task: string, pid: number, ts: string, event: string, body: string): string {
  return `${task.padStart(16)}-${pid}     [000] .....  ${ts}: ${event}: ${body}`;
}

const TRACE = [
  "# tracer: nop",
  "#",
  line(
    "camera",
    300,
    "10.000001",
    "nvmap_make_dmabuf",
    `cli=nvmap-sim handle=ffff888004d41000 dmabuf=${A}`,
  ),
  line(
    "camera",
    300,
    "10.000002",
    "nvmap_make_dmabuf",
    `cli=nvmap-sim handle=ffff888004d41200 dmabuf=${B}`,
  ),
  // the client attaches each buffer once and holds it; nvmap's map is per attachment
  line("client", 301, "10.000010", "nvmap_dmabuf_attach", `dmabuf=${A}, device=${EDU}`),
  line(
    "client",
    301,
    "10.000011",
    "axl_kp_attach",
    `(dma_buf_attach+0x4/0x10) att=0xffff888004e00000 buf=0x${A} dev="${EDU}" ino=41`,
  ),
  line("client", 301, "10.000012", "nvmap_dmabuf_map_dma_buf", `dmabuf=${A}, device=${EDU}`),
  line(
    "client",
    301,
    "10.000013",
    "axl_kp_map",
    `(dma_buf_map_attachment+0x4/0xe0) att=0xffff888004e00000 buf=0x${A} dev="${EDU}" dir=1 ino=41`,
  ),
  line("client", 301, "10.000020", "nvmap_dmabuf_attach", `dmabuf=${B}, device=${EDU}`),
  line("client", 301, "10.000021", "nvmap_dmabuf_map_dma_buf", `dmabuf=${B}, device=${EDU}`),
  line(
    "client",
    301,
    "10.000022",
    "axl_kp_map",
    `(dma_buf_map_attachment+0x4/0xe0) att=0xffff888004e00100 buf=0x${B} dev="${EDU}" dir=1 ino=42`,
  ),
  // the client reads frame A on the CPU: a touch of a camera buffer
  line("client", 301, "10.000030", "nvmap_dmabuf_mmap", `dmabuf=${A}`),
  line(
    "client",
    301,
    "10.000031",
    "nvmap_dmabuf_begin_cpu_access",
    `dmabuf=${A}, start=0 len=65536`,
  ),
  line("client", 301, "10.000032", "nvmap_dmabuf_end_cpu_access", `dmabuf=${A}, start=0 len=65536`),
  line(
    "client",
    301,
    "10.000033",
    "nvmap_dmabuf_begin_cpu_access",
    `dmabuf=${A}, start=0 len=65536`,
  ),
  line("kworker/0:1", 40, "10.000040", "nvmap_dmabuf_vmap", `dmabuf=${B}`),
  line("client", 301, "10.000050", "nvmap_dmabuf_unmap_dma_buf", `dmabuf=${A}, device=${EDU}`),
  line("client", 301, "10.000051", "nvmap_dmabuf_detach", `dmabuf=${A}, device=${EDU}`),
  line(
    "camera",
    300,
    "10.000060",
    "nvmap_dmabuf_release",
    `cli=nvmap-sim handle=ffff888004d41000 dmabuf=${A}`,
  ),
  "",
].join("\n");

async function facts(text: string) {
  const path = await Deno.makeTempFile({ suffix: ".txt" });
  try {
    await Deno.writeTextFile(path, text);
    using f = await Deno.open(path);
    return await readTraceFacts(f);
  } finally {
    await Deno.remove(path);
  }
}

Deno.test("readTraceFacts() folds nvmap's events per device and joins their pointers to inodes", async () => {
  const t = await facts(TRACE);
  assert.equal(t.unparsed, 0);
  const n = t.nvmap;
  assert.ok(n, "the nvmap events were folded");
  assert.equal(n.events, 14);
  assert.equal(n.hashed, false);
  assert.deepEqual([...n.made].sort(), [A, B]);
  assert.deepEqual([...n.released], [A]);
  const use = n.devices.get(EDU)!;
  assert.deepEqual(
    { attaches: use.attaches, maps: use.maps, unmaps: use.unmaps, detaches: use.detaches },
    { attaches: 2, maps: 2, unmaps: 1, detaches: 1 },
  );
  assert.deepEqual([...n.inodesOf(EDU)].sort(), [41, 42]);
  assert.deepEqual(n.joined(), { buffers: 2, withInode: 2 });
  // the probe events still fold as before, beside the nvmap ones
  assert.equal(t.dmabuf?.devices.get(EDU)?.maps, 2);
});

Deno.test("readTraceFacts() names each CPU touch of an nvmap buffer: task, kind, inode", async () => {
  const touches = (await facts(TRACE)).nvmap!.cpuTouches()
    .map((x) => `${x.kind} pid=${x.pid} ino=${x.inode} x${x.count}`).sort();
  assert.deepEqual(touches, [
    "begin_cpu_access pid=301 ino=41 x2",
    "mmap pid=301 ino=41 x1",
    "vmap pid=40 ino=42 x1",
  ]);
});

Deno.test("readTraceFacts() reports hashed nvmap pointers (hash-ptr set): nothing joins", async () => {
  const hashed = TRACE.replaceAll(`dmabuf=${A}`, "dmabuf=000000003e1f8a2c")
    .replaceAll(`dmabuf=${B}`, "dmabuf=00000000b7d01f55");
  const n = (await facts(hashed)).nvmap!;
  assert.equal(n.hashed, true);
  assert.deepEqual(n.joined(), { buffers: 2, withInode: 0 });
  assert.equal(n.inodesOf(EDU).size, 0);
});

Deno.test("a trace without nvmap events has no nvmap facts, probes or not", async () => {
  const t = await facts(TRACE.split("\n").filter((l) => !l.includes("nvmap")).join("\n"));
  assert.equal(t.nvmap, undefined);
  assert.equal(t.dmabuf?.devices.get(EDU)?.maps, 2);
});

Deno.test("normalizePointer() takes %p, x64 and the comma tracefs leaves", () => {
  assert.equal(normalizePointer("ffff8880047c3000,"), "ffff8880047c3000");
  assert.equal(normalizePointer("0xFFFF8880047C3000"), "ffff8880047c3000");
  assert.equal(normalizePointer("(null)"), "");
  assert.equal(new NvmapFacts().add("axl_kp_map", 1, { field: () => undefined }), false);
});

Deno.test("analyzeChain() names the workload's CPU touches of nvmap camera buffers", async () => {
  const n = (await facts(TRACE)).nvmap!;
  const obs = (inode: number, devices: string[]) => ({
    inode,
    exporter: "nvmap_dmabuf",
    name: `cam-${inode}`,
    size: 65536,
    maxDevices: devices.length,
    devicesAtMax: devices,
    devicesSeen: devices,
    samples: 1,
    multiAttachSamples: 0,
    firstSeenMs: 0,
    lastSeenMs: 0,
  });
  const chain = analyzeChain({
    importer: EDU,
    bufinfo: {
      samples: 1,
      errors: [],
      inodes: new Map([[41, obs(41, ["vivid.0", EDU])], [42, obs(42, ["vivid.0", EDU])]]),
    },
    mapRefs: [],
    cameraDevices: ["vivid.0"],
    workload: { kind: "command", description: "client", pids: [301] },
    nvmap: n,
  });
  assert.equal(chain.status, "whole");
  // the kworker's vmap is not the workload's
  assert.deepEqual(chain.cpu_touches, [
    { pid: 301, kind: "begin_cpu_access", inode: 41, in_chain: true, count: 2 },
    { pid: 301, kind: "mmap", inode: 41, in_chain: true, count: 1 },
  ]);
  const without = analyzeChain({
    importer: EDU,
    bufinfo: { samples: 1, errors: [], inodes: new Map([[41, obs(41, ["vivid.0", EDU])]]) },
    mapRefs: [],
    cameraDevices: ["vivid.0"],
    workload: { kind: "command", description: "client", pids: [301] },
  });
  assert.equal("cpu_touches" in without, false, "no nvmap events, no field: old results stay");
});

Deno.test("notePointerInode() joins no inode to a pointer the probes saw with two (freed and reused)", async () => {
  // frame A's struct dma_buf freed and another buffer (inode 43) allocated at its address
  const reused = TRACE.replace(
    "\n",
    "\n" + line(
      "client",
      301,
      "9.000000",
      "axl_kp_map",
      `(dma_buf_map_attachment+0x4/0xe0) att=0xffff888004e00200 buf=0x${A} dev="${EDU}" dir=1 ino=43`,
    ) + "\n",
  );
  const n = (await facts(reused)).nvmap!;
  assert.equal(n.inodeOf(A), undefined);
  assert.deepEqual(n.reusedPointers(), [A]);
  assert.deepEqual([...n.inodesOf(EDU)], [42]);
  assert.deepEqual(n.joined(), { buffers: 2, withInode: 1 });
  assert.equal(n.cpuTouches().find((t) => t.buffer === A)?.inode, undefined);
});
