// I3 from nvmap's events, case by case: the count where the probes carry no inode, and the
// cross-check where they do. Events in nvmap's fields (`dmabuf=%p, device=%s`), pointers as the
// arm64 guest printed them; the captured runs are replayed in nvmap_arm64_replay.test.ts.
import assert from "node:assert/strict";
import { NvmapFacts } from "../../../lib/verify/evidence/nvmap_events.ts";
import {
  countNvmapImports,
  crossCheckNvmap,
} from "../../../lib/verify/evidence/nvmap_accounting.ts";
import type { BufinfoSummary } from "../../../lib/trace/parse/bufinfo_summary.ts";

const CARD = "0000:00:01.0";
const P = ["ffff00000c8fba00", "ffff00000c8fbc00"];

function facts(events: Array<[string, number, string?]>): NvmapFacts {
  const n = new NvmapFacts();
  P.forEach((p, i) => n.notePointer(`0x${p}`, i + 1));
  for (const [kind, buf, device = CARD] of events) {
    n.add(`nvmap_dmabuf_${kind}`, 100, {
      field: (k) => (k === "dmabuf" ? P[buf] : k === "device" ? device : undefined),
    });
  }
  return n;
}

/** One attach, map, unmap and detach of buffer `b` by the card. */
const cycle = (b: number): Array<[string, number]> => [
  ["attach", b],
  ["map_dma_buf", b],
  ["unmap_dma_buf", b],
  ["detach", b],
];

function bufinfo(nvmapBuffers: number): BufinfoSummary {
  const inodes = new Map();
  for (let i = 1; i <= nvmapBuffers; i++) {
    inodes.set(i, {
      inode: i,
      exporter: "nvmap_dmabuf",
      name: `cam-${i}`,
      size: 4096,
      maxDevices: 2,
      devicesAtMax: ["vivid.0", CARD],
      devicesSeen: ["vivid.0", CARD],
      samples: 1,
      multiAttachSamples: 1,
      firstSeenMs: 0,
      lastSeenMs: 0,
    });
  }
  return { samples: 1, errors: [], inodes };
}

Deno.test("countNvmapImports() passes an attach per frame, each detached", () => {
  const c = countNvmapImports(facts([...cycle(0), ...cycle(1), ...cycle(0)]), CARD, 3, bufinfo(2));
  assert.equal(c?.status, "PASS", c?.summary);
  assert.equal(c?.shape, "per-frame");
  assert.deepEqual({ imports: c?.imports, releases: c?.releases }, { imports: 3, releases: 3 });
});

Deno.test("countNvmapImports() fails attaches the importer never detached", () => {
  const c = countNvmapImports(
    facts([...cycle(0), ["attach", 1], ["map_dma_buf", 1]]),
    CARD,
    2,
    bufinfo(2),
  );
  assert.equal(c?.status, "FAIL");
  assert.match(c!.summary, /^1 detaches for 2 attaches of nvmap buffers by 0000:00:01\.0/);
});

Deno.test("countNvmapImports() on the held shape wants bufinfo to say how many nvmap buffers there were", () => {
  const held = facts([...cycle(0), ...cycle(1)]);
  assert.equal(countNvmapImports(held, CARD, 40, bufinfo(2))?.status, "PASS");
  assert.equal(countNvmapImports(held, CARD, 40, bufinfo(3))?.status, "FAIL");
  assert.equal(countNvmapImports(held, CARD, 40, bufinfo(1))?.status, "INCONCLUSIVE");
  assert.equal(
    countNvmapImports(held, CARD, 40, { unavailable: "no debugfs" })?.status,
    "INCONCLUSIVE",
  );
  // a buffer attached twice is not held: fewer attaches than frames fail
  const twice = countNvmapImports(facts([...cycle(0), ...cycle(0)]), CARD, 40, bufinfo(1));
  assert.equal(twice?.status, "FAIL");
});

Deno.test("countNvmapImports() leaves I3 to the probes when nvmap saw the importer attach nothing", () => {
  assert.equal(
    countNvmapImports(facts(cycle(0).map(([k, b]) => [k, b, "vivid.0"])), CARD, 1, bufinfo(1)),
    undefined,
  );
});

Deno.test("crossCheckNvmap() names each way the two sources disagree", () => {
  const probes = { mapsByInode: new Map([[1, 2], [2, 1]]) };
  // agree: nvmap's one map per attachment, the probes' two map calls through the cached table
  assert.equal(
    crossCheckNvmap(facts([...cycle(0), ...cycle(1)]), CARD, new Set([1, 2]), probes)?.agree,
    true,
  );
  // the probes saw inode 2 mapped, nvmap saw it attached but never mapped
  const missing = crossCheckNvmap(
    facts([...cycle(0), ["attach", 1], ["detach", 1]]),
    CARD,
    new Set([1, 2]),
    probes,
  )!;
  assert.deepEqual(missing.probes_only, [2]);
  // nvmap saw more map calls of inode 2 than the probes saw
  const more = crossCheckNvmap(
    facts([...cycle(0), ...cycle(1), ...cycle(1)]),
    CARD,
    new Set([1, 2]),
    probes,
  )!;
  assert.deepEqual(more.more_nvmap_maps, [2]);
  // nvmap saw the importer map inode 2, the probes never did
  const only = crossCheckNvmap(facts([...cycle(0), ...cycle(1)]), CARD, new Set([1]), {
    mapsByInode: new Map([[1, 1]]),
  })!;
  assert.deepEqual(only.nvmap_only, [2]);
  assert.equal(only.agree, false);
});

Deno.test("crossCheckNvmap() leaves out a buffer attached before the trace (mapped through the cached table)", () => {
  // the card attached inode 2 before the trace: the probes see its map calls, nvmap nothing
  const c = crossCheckNvmap(facts(cycle(0)), CARD, new Set([1, 2]), {
    mapsByInode: new Map([[1, 1], [2, 5]]),
  })!;
  assert.equal(c.agree, true);
  assert.equal(c.checked, 1);
});

Deno.test("countNvmapImports() on the held shape ignores nvmap buffers no process of the workload held", () => {
  const held = facts([...cycle(0), ...cycle(1)]);
  // bufinfo lists 5 nvmap buffers: the camera's 1-2 (the workload's fds), a bystander's 3-5.
  const c = countNvmapImports(held, CARD, 40, bufinfo(5), new Set([1, 2]));
  assert.equal(c?.status, "PASS", c?.summary);
  assert.equal(c?.shape, "held");
  assert.match(
    c!.summary,
    /^0000:00:01\.0 held an attachment of each of the 2 nvmap buffers the workload held for 40 frames \(3 other nvmap buffers, held by no process of the workload, ignored\) /,
  );
  assert.deepEqual(c?.evidence.held_pool, { from: "workload", ignored: 3 });
  // Before: every nvmap buffer bufinfo listed was the pool.
  assert.equal(countNvmapImports(held, CARD, 40, bufinfo(5))?.status, "FAIL");
  // A camera buffer the workload held and the card never attached still fails.
  const short = countNvmapImports(held, CARD, 40, bufinfo(5), new Set([1, 2, 3]));
  assert.equal(short?.status, "FAIL", short?.summary);
  assert.match(short!.summary, /but the workload held 3: frames in the others never reached it/);
  // Scans that saw fewer nvmap buffers than the card attached: the whole pool, as before.
  const missed = countNvmapImports(held, CARD, 40, bufinfo(5), new Set([1]));
  assert.equal(missed?.status, "FAIL");
  assert.equal(missed?.evidence.held_pool, undefined);
});
