// bufinfo read once a second with another importer (`--evidence generic`, `--importer`): the
// capture picks the slow cross-check wherever the attach events name inode and exporter, and
// the held shape takes its pool from the workload's fd scans and the events, not from bufinfo's
// samples. The real capture is the arm64 held run beside a bystander's three nvmap-sim buffers
// (tests/fixtures/trace/5.15-arm64-nvmap/held-bystander/, read every 20 ms), its samples thinned
// to one a second as the slow cross-check reads them.
import assert from "node:assert/strict";
import { join } from "node:path";
import { addSample, emptySummary } from "../../../lib/trace/parse/bufinfo_summary.ts";
import { bufinfoInterval, type CaptureOptions } from "../../../lib/verify/capture.ts";
import type { DeviceUse } from "../../../lib/verify/evidence/dmabuf_probes.ts";
import { heldMappings } from "../../../lib/verify/evidence/held_mappings.ts";
import type { ProbeSetup } from "../../../lib/verify/judge.ts";
import { judgeArtifacts } from "../../../lib/verify/replay.ts";
import type { VerifyResult } from "../../../lib/verify/schema.ts";

const dir = new URL("../../fixtures/trace/5.15-arm64-nvmap/held-bystander", import.meta.url)
  .pathname;
/** As the live run judged it (held_pool_replay.test.ts). */
const options = { evidence: "generic" as const, copyThresholdPercent: 2, minPerfSamples: 500 };
const CARD = "0000:00:01.0";

const events: ProbeSetup = { events: ["axl_kp_1:attach"], inode: true, exporter: true };

/** The options bufinfoInterval() reads, for a workload of `kind` and an importer. */
function opts(kind: string, axl: boolean, evidence?: "generic"): CaptureOptions {
  return {
    headline: "t",
    artifacts: "/nonexistent",
    workload: { kind },
    importer: { name: axl ? "axl" : CARD, axl, reason: "t" },
    ...(evidence ? { evidence } : {}),
  } as unknown as CaptureOptions;
}

Deno.test("bufinfoInterval() reads once a second for another importer when the events name inode and exporter, else every 20 ms", () => {
  for (const o of [opts("command", false), opts("command", true, "generic")]) {
    const notes: string[] = [];
    assert.equal(bufinfoInterval(o, events, notes), 1000);
    assert.deepEqual(notes, [
      "bufinfo read at the start, at the end and every 1000 ms as a cross-check: the attach " +
      "and detach probe events name each buffer's inode and exporter, and the workload's fd " +
      "scans name the buffers it held",
    ]);
  }
  // The axl device's note is as before.
  const notes: string[] = [];
  assert.equal(bufinfoInterval(opts("builtin-zero-copy", true), events, notes), 1000);
  assert.doesNotMatch(notes[0]!, /fd scans/);
  // --pid, events short of inode and exporter, no events: every 20 ms.
  const noExporter: ProbeSetup = { events: ["axl_kp_1:attach"], inode: true, exporter: false };
  const noInode: ProbeSetup = { events: ["axl_kp_1:attach"], inode: false, exporter: true };
  const cases: Array<[CaptureOptions, ProbeSetup]> = [
    [opts("pid", false), events],
    [opts("command", false), noExporter],
    [opts("command", false), noInode],
    [opts("command", false), { unavailable: "no CONFIG_KPROBE_EVENTS" }],
  ];
  for (const [o, p] of cases) {
    const notes: string[] = [];
    assert.equal(bufinfoInterval(o, p, notes), 20, JSON.stringify(p));
    assert.deepEqual(notes, []);
  }
  assert.equal(bufinfoInterval({ ...opts("command", false), bufinfoIntervalMs: 5 }, events, []), 5);
});

/** The capture's record of the workload's dma-buf fds. */
type FdRef = { pid: number; fd: number; inode: number; exporter: string };

/**
 * The fixture with its bufinfo samples thinned to those at least `everyMs` apart (and the
 * last), `bufinfoIntervalMs` recorded as a slow capture records it, `record` applied to its
 * capture.json and `edit` to its trace.txt; judged, and the copy removed after. An edited
 * copy has no integrity record.
 */
async function judgeThinned(
  everyMs: number,
  record: (r: Record<string, unknown>) => void = () => {},
  edit: (trace: string) => string = (t) => t,
): Promise<{ result: VerifyResult; samples: number }> {
  const tmp = await Deno.makeTempDir({ prefix: "axl-bufinfo-cross-check-" });
  try {
    for (const e of Deno.readDirSync(dir)) {
      const from = join(dir, e.name), to = join(tmp, e.name);
      if (e.name === "bufinfo_samples.txt") {
        const all = (await Deno.readTextFile(from)).split(/(?=^### sample )/m);
        const at = (s: string) => Number(/^### sample \d+ (\d+)/.exec(s)![1]);
        let last = -Infinity;
        const kept = all.filter((s, i) => {
          if (i === all.length - 1 || at(s) - last >= everyMs) {
            last = at(s);
            return true;
          }
          return false;
        });
        await Deno.writeTextFile(to, kept.join(""));
      } else if (e.name === "capture.json") {
        const { integrity: _, ...r } = JSON.parse(await Deno.readTextFile(from));
        r.bufinfoIntervalMs = everyMs;
        record(r);
        await Deno.writeTextFile(to, JSON.stringify(r));
      } else if (e.name === "trace.txt") {
        await Deno.writeTextFile(to, edit(await Deno.readTextFile(from)));
      } else await Deno.copyFile(from, to);
    }
    const result = await judgeArtifacts(tmp, options);
    const samples = (await Deno.readTextFile(join(tmp, "bufinfo_samples.txt")))
      .split(/^### sample /m).length - 1;
    return { result, samples };
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

Deno.test("judgeArtifacts() on the held bystander run read once a second: PASS held as every 20 ms, and a buffer only the fd scans saw still refuses the shape", async () => {
  const { result, samples } = await judgeThinned(1000);
  assert.equal(samples, 20);
  const a = result.axl, i3 = a.invariants.I3;
  assert.equal(i3.status, "PASS", i3.summary);
  assert.equal(
    i3.summary,
    `${CARD} held a mapping of each of the 4 buffers of nvmap_dmabuf the workload held, for 40 ` +
      "frames (3 other buffers of nvmap_dmabuf, held by no process of the workload, ignored); " +
      "4 unmaps (kprobes)",
  );
  assert.deepEqual(i3.evidence.held_buffers, [4, 5, 6, 7]);
  assert.equal(a.status, "PASS", JSON.stringify(a.invariants));
  // A camera buffer the client held by an fd for less than a second, between two reads of
  // bufinfo, and the card never attached: only the fd scans (fdinfo's exp_name) name it.
  const held = (await judgeThinned(1000, withFd)).result.axl.invariants.I3;
  assert.equal(held.status, "FAIL", held.summary);
  assert.equal(held.summary, `${CARD} mapped frame buffers 4 times for 40 frames submitted`);
  assert.equal(held.evidence.not_held, "inode 9999 was mapped 0 times, not once");
  assert.deepEqual(held.evidence.held_pool, { from: "workload", ignored: 3 });
});

Deno.test("judgeArtifacts() without measured offsets, read once a second: nvmap's held count counts a buffer only the fd scans saw", async () => {
  const noOffsets = (r: Record<string, unknown>) => {
    const p = r.probes as Record<string, unknown>;
    p.definitions = (p.definitions as string[]).map((d) => d.replace(/ (ino|exp)=\S+/g, ""));
    p.inode = false;
    p.exporter = false;
    p.inodeUnavailable = "no struct offsets for this kernel";
    delete p.inodeFrom;
    delete p.offsets;
  };
  const strip = (t: string) => t.replaceAll(/ ino=\d+/g, "").replaceAll(/ exp="[^"]*"/g, "");
  const base = (await judgeThinned(1000, noOffsets, strip)).result.axl.invariants.I3;
  assert.equal(base.status, "PASS", base.summary);
  assert.equal(base.evidence.counted_from, "nvmap events");
  const i3 = (await judgeThinned(1000, (r) => {
    noOffsets(r);
    withFd(r);
  }, strip)).result.axl.invariants.I3;
  assert.equal(i3.status, "FAIL", i3.summary);
  assert.match(
    i3.summary,
    new RegExp(
      `^${CARD} held an attachment of 4 nvmap buffers for 40 frames, but the workload held 5: ` +
        "frames in the others never reached it",
    ),
  );
});

/** Adds a workload fd of an nvmap buffer (inode 9999) that neither bufinfo nor the card saw. */
function withFd(r: Record<string, unknown>): void {
  const fds = (r.workload as { fdRefs: FdRef[] }).fdRefs;
  fds.push({ pid: fds[0]!.pid, fd: 99, inode: 9999, exporter: "nvmap_dmabuf" });
}

/** One bufinfo sample of `inodes`, exported by nvmap and attached by the card. */
function sample(inodes: number[]) {
  return addSample(emptySummary(), {
    buffers: inodes.map((inode, i) => ({
      size: 4096,
      flags: 2,
      mode: 2,
      count: 3,
      exporter: "nvmap_dmabuf",
      inode,
      name: "",
      devices: [CARD],
      fences: [],
      line: i + 2,
    })),
  }, 0);
}

/** The card's maps of `inodes`, each once and undone. */
function once(inodes: number[]): DeviceUse {
  const m = new Map(inodes.map((i) => [i, 1]));
  return {
    device: CARD,
    attaches: m.size,
    detaches: m.size,
    maps: m.size,
    unmaps: m.size,
    mapsByInode: m,
    unmapsByInode: new Map(m),
    buffers: new Set(),
    openMaps: new Map(),
  };
}

Deno.test("heldMappings() read once a second does not take the whole exporter as the pool: INCONCLUSIVE", () => {
  // The scans missed inode 4, which the card mapped: the pool would be every buffer of the
  // exporter, which two reads a second apart cannot list.
  const r = heldMappings(once([4, 5]), new Set([4, 5]), sample([4, 5]), 40, new Set([5]), 1000);
  assert.equal(r.held, false);
  assert.ok(!r.held && r.inconclusive);
  assert.equal(
    !r.held && r.reason,
    "bufinfo was read every 1000 ms and the workload's fd and map scans never saw inode 4, " +
      "which the importer mapped, so the exporter's buffers during the run are not all known",
  );
  // Read every 20 ms, the same run is held, as before.
  assert.equal(
    heldMappings(once([4, 5]), new Set([4, 5]), sample([4, 5]), 40, new Set([5])).held,
    true,
  );
});

Deno.test("heldMappings() read once a second refuses a buffer the workload mapped whose exporter nothing named", () => {
  const r = heldMappings(
    once([4, 5]),
    new Set([4, 5]),
    sample([4, 5]),
    40,
    new Set([4, 5, 8]),
    1000,
  );
  assert.ok(!r.held && r.inconclusive);
  assert.match(
    !r.held ? r.reason : "",
    /nothing named the exporter of inode 8, which the workload held/,
  );
});
