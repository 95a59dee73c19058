// nvmap's events as evidence for I3, on captures of the arm64 5.15 guest whose camera frames come
// from the rig's nvmap stand-in (fixtures tests/fixtures/trace/5.15-arm64-nvmap/): `read/`, the
// client of tests/device/verify_nvmap.test.ts (attaches each frame's buffer to the Metis node,
// transfers, detaches, and reads it on the CPU); `held/`, the held client of
// tests/device/verify_metis_user.test.ts (attaches each of vivid's four buffers once, transfers
// every frame through the attachment it holds). Both judged from the kprobes (inodes through the
// measured offsets), with nvmap's events beside them.
import assert from "node:assert/strict";
import { judgeArtifacts } from "../../../lib/verify/replay.ts";
import { judgeEditedCopy } from "./_edited_copy.ts";
import type { VerifyResult } from "../../../lib/verify/schema.ts";

const fixtures = new URL("../../fixtures/trace/5.15-arm64-nvmap", import.meta.url).pathname;
/** As the live runs judged them: `--threshold 2`, the CLI's sample floor for their frames. */
const options = { evidence: "generic" as const, copyThresholdPercent: 2, minPerfSamples: 500 };
const CARD = "0000:00:01.0";

/**
 * The fixture `name` with `edit` applied to its trace.txt (and `record` to its capture.json),
 * judged; the copy removed after. An edited copy is no longer what the capture wrote: it has no
 * integrity record.
 */
async function judgeEdited(
  name: string,
  edit: (trace: string) => string,
  record: (r: Record<string, unknown>) => void = () => {},
): Promise<VerifyResult> {
  return await judgeEditedCopy(`${fixtures}/${name}`, options, record, edit);
}

/**
 * The capture as a 5.15 kernel without measured offsets makes it: probe events without the
 * buffer's inode and exporter (both read through the offsets), and a record that says so.
 */
const withoutOffsets = {
  trace: (t: string) => t.replaceAll(/ ino=\d+/g, "").replaceAll(/ exp="[^"]*"/g, ""),
  record: (r: Record<string, unknown>) => {
    const p = r.probes as Record<string, unknown>;
    p.definitions = (p.definitions as string[]).map((d) => d.replace(/ (ino|exp)=\S+/g, ""));
    p.inode = false;
    p.exporter = false;
    p.inodeUnavailable = "no struct offsets for this kernel";
    delete p.inodeFrom;
    delete p.offsets;
  },
};

/**
 * A result without what I4 says of its copy routines (its summary, evidence and perf's copy
 * shares): those follow I4's rules for naming copies, which change apart from these captures
 * (a replay by newer rules names them otherwise). I4's status stays compared.
 */
function withoutI4Details(r: Record<string, unknown>): Record<string, unknown> {
  const axl = r.axl as Record<string, Record<string, Record<string, unknown>>>;
  delete axl.invariants!.I4!.summary;
  delete axl.invariants!.I4!.evidence;
  for (const k of ["copy_percent", "runtime_copy_percent", "top"]) delete axl.perf![k];
  return r;
}

for (const name of ["read", "held"]) {
  Deno.test(`judgeArtifacts() gives back the verdicts the arm64 nvmap ${name} run wrote live`, async () => {
    const saved = JSON.parse(await Deno.readTextFile(`${fixtures}/${name}/result.json`));
    const judged = JSON.parse(JSON.stringify(await judgeArtifacts(`${fixtures}/${name}`, options)));
    assert.equal(judged.axl.invariants.I4.status, "PASS");
    assert.deepEqual(withoutI4Details(judged), withoutI4Details(saved));
  });
}

Deno.test("arm64 nvmap read run: I3 PASS from the kprobes, nvmap's maps agreeing on all 4 buffers", async () => {
  const r = await judgeArtifacts(`${fixtures}/read`, options);
  const i3 = r.axl.invariants.I3;
  assert.equal(r.axl.status, "PASS");
  assert.equal(i3.status, "PASS", i3.summary);
  assert.equal(
    i3.summary,
    `${CARD} mapped 24 frame buffers = 24 frames submitted; 24 unmaps (kprobes)`,
  );
  assert.deepEqual(i3.evidence.nvmap_check, {
    agree: true,
    checked: 4,
    probes_only: [],
    nvmap_only: [],
    more_nvmap_maps: [],
    unjoined: 0,
  });
  const n = r.axl.evidence?.nvmap;
  assert.equal(n?.pointers, "raw");
  // one attach and one nvmap map per frame: a new attachment per frame maps again
  assert.deepEqual(
    { attaches: n?.devices[CARD]?.attaches, maps: n?.devices[CARD]?.maps },
    { attaches: 24, maps: 24 },
  );
});

Deno.test("arm64 nvmap read run whose nvmap events miss the card's maps of one buffer: I3 INCONCLUSIVE, saying where", async () => {
  const trace = await Deno.readTextFile(`${fixtures}/read/trace.txt`);
  // the pointer of the first buffer the card mapped
  const first = trace.match(/nvmap_dmabuf_map_dma_buf: dmabuf=([0-9a-f]+), device=0000:00:01\.0/);
  assert.ok(first, "the card's nvmap map events");
  const pointer = first[1]!;
  const ino = Number(
    trace.match(new RegExp(`buf=0x${pointer} dev="${CARD}" dir=\\d+ ino=(\\d+)`))![1],
  );
  const r = await judgeEdited(
    "read",
    (t) =>
      t.split("\n").filter((l) =>
        !l.includes(`nvmap_dmabuf_map_dma_buf: dmabuf=${pointer}, device=${CARD}`)
      ).join("\n"),
  );
  const i3 = r.axl.invariants.I3;
  assert.equal(i3.status, "INCONCLUSIVE", i3.summary);
  assert.match(
    i3.summary,
    new RegExp(
      `but nvmap's events disagree \\(the probes saw ${CARD} map inode ${ino}, nvmap's events never did\\)$`,
    ),
  );
  assert.equal((i3.evidence.nvmap_check as { agree: boolean }).agree, false);
  assert.ok(r.axl.notes.some((x) => x.startsWith("I3: nvmap's events disagree with the probes")));
  assert.equal(r.axl.status, "INCONCLUSIVE");
});

Deno.test("arm64 nvmap held run: I3 PASS in the held shape from the kprobes, nvmap agreeing", async () => {
  const r = await judgeArtifacts(`${fixtures}/held`, options);
  const i3 = r.axl.invariants.I3;
  assert.equal(r.axl.status, "PASS");
  assert.equal(i3.evidence.shape, "held");
  assert.equal(
    i3.summary,
    `${CARD} held a mapping of each of the 4 buffers nvmap_dmabuf exported for 40 frames; ` +
      "4 unmaps (kprobes)",
  );
  assert.equal((i3.evidence.nvmap_check as { agree: boolean; checked: number }).agree, true);
  assert.equal((i3.evidence.nvmap_check as { checked: number }).checked, 4);
});

Deno.test("arm64 nvmap held run without measured offsets (no inode in the probes): I3 PASS held, counted from nvmap's events", async () => {
  const r = await judgeEdited("held", withoutOffsets.trace, withoutOffsets.record);
  const i3 = r.axl.invariants.I3;
  assert.equal(i3.status, "PASS", i3.summary);
  assert.equal(
    i3.summary,
    `${CARD} held an attachment of each of the 4 nvmap buffers for 40 frames ` +
      "(nvmap's events: 4 attaches, 4 maps, 4 detaches)",
  );
  assert.equal(i3.evidence.counted_from, "nvmap events");
  assert.equal(i3.evidence.shape, "held");
  assert.equal(i3.evidence.bufinfo_nvmap_buffers, 4);
  assert.equal(r.detail.imports, 4);
  assert.ok(r.axl.notes.some((x) => x.includes("nvmap's events named its nvmap buffers")));
  assert.equal(r.axl.status, "PASS");
});

Deno.test("arm64 nvmap held run without measured offsets, one buffer never attached by the card: I3 FAIL", async () => {
  const trace = await Deno.readTextFile(`${fixtures}/held/trace.txt`);
  const first = trace.match(/nvmap_dmabuf_attach: dmabuf=([0-9a-f]+), device=0000:00:01\.0/);
  assert.ok(first, "the card's nvmap attach events");
  // as if the card had never attached that buffer: its nvmap events by the card are gone
  const r = await judgeEdited(
    "held",
    (t) =>
      withoutOffsets.trace(t).split("\n").filter((l) =>
        !(l.includes(`dmabuf=${first[1]}, device=${CARD}`))
      ).join("\n"),
    withoutOffsets.record,
  );
  const i3 = r.axl.invariants.I3;
  assert.equal(i3.status, "FAIL", i3.summary);
  assert.match(
    i3.summary,
    /held an attachment of 3 nvmap buffers for 40 frames, but bufinfo listed 4/,
  );
});

Deno.test("arm64 nvmap held run without probe events (no kprobe events): I3 PASS held, from nvmap's events", async () => {
  const r = await judgeEdited(
    "held",
    (t) => t.split("\n").filter((l) => !/ axl_kp_(attach|map|unmap|detach): /.test(l)).join("\n"),
    (record) => {
      record.probes = { unavailable: "the kernel has no kprobe events (CONFIG_KPROBE_EVENTS)" };
    },
  );
  const i3 = r.axl.invariants.I3;
  assert.equal(r.axl.evidence?.source, "bufinfo");
  assert.equal(i3.status, "PASS", i3.summary);
  assert.equal(
    i3.summary,
    `${CARD} held an attachment of each of the 4 nvmap buffers for 40 frames ` +
      "(nvmap's events: 4 attaches, 4 maps, 4 detaches)",
  );
  assert.equal(i3.evidence.counted_from, "nvmap events");
  assert.ok(r.axl.notes.some((x) => x.startsWith("I3: no probe events")));
});
