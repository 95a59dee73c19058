// ls --watch's change detection on bufinfo captured from the VM's 6.12 kernel during a
// zero-copy run (camera buffers held by vivid, imported by the NPU at 0000:00:02.0), and
// its screen: change column, marks kept for a few refreshes, CPU-mapping footer.
import assert from "node:assert/strict";
import { type DmaBufListing, listDmaBufs } from "../../../lib/shell/dmabuf_listing.ts";
import {
  ChangeMarks,
  cpuMappers,
  diffListings,
  lsFlags,
  MARK_REFRESHES,
  watchText,
} from "../../../lib/shell/dmabuf_watch.ts";
import { parseCommandArgs } from "../../../lib/commands/spec.ts";
import { lsSpec } from "../../../lib/commands/ls.ts";

const SAMPLES = new URL(
  "../../fixtures/trace/6.12-axl/zero-copy/bufinfo_samples.txt",
  import.meta.url,
);
const NPU = "0000:00:02.0";

/** Every captured sample as a system-wide listing (bufinfo only: an empty procfs). */
async function listings(): Promise<DmaBufListing[]> {
  const dir = Deno.makeTempDirSync({ prefix: "axl-watch-" });
  try {
    const samples = Deno.readTextFileSync(SAMPLES).split(/^### sample .*$/m).slice(1);
    const out: DmaBufListing[] = [];
    for (const [i, text] of samples.entries()) {
      Deno.writeTextFileSync(`${dir}/bufinfo-${i}`, text);
      out.push(await listDmaBufs({ all: true, procRoot: dir, bufinfoPath: `${dir}/bufinfo-${i}` }));
    }
    return out;
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
}

Deno.test("diffListings() sees the NPU attach to and detach from camera buffers, in order", async () => {
  const all = await listings();
  assert.ok(all.length > 10, `${all.length} samples`);
  assert.deepEqual(diffListings(undefined, all[0]!), [], "the first refresh has no changes");
  const changes = all.slice(1).flatMap((l, i) => diffListings(all[i], l));
  const npu = changes.filter((c) => c.device === NPU);
  assert.ok(npu.length >= 2, JSON.stringify(changes.slice(0, 20)));
  // per buffer, the NPU attaches before it detaches and never twice in a row
  for (const inode of new Set(npu.map((c) => c.inode))) {
    const kinds = npu.filter((c) => c.inode === inode).map((c) => c.kind);
    assert.equal(kinds[0], "attached", `${inode}: ${kinds}`);
    kinds.forEach((k, i) => i && assert.notEqual(k, kinds[i - 1], `${inode}: ${kinds}`));
  }
  // the camera's attachment is steady: vivid never shows up as a change of a kept buffer
  const kept = new Set(all[0]!.buffers.map((b) => b.inode));
  assert.ok(
    !changes.some((c) => c.device === "vivid.0" && kept.has(c.inode) && c.kind !== "detached"),
  );
});

Deno.test("diffListings() counts a device attached twice, and buffers that come and go", () => {
  const buf = (inode: number, attached: string[]) => ({
    inode,
    size: 4096,
    exporter: "system",
    name: "",
    attached,
    fdRefs: [],
    mapRefs: [],
  });
  const l = (...buffers: ReturnType<typeof buf>[]) => ({ buffers, processes: [], errors: [] });
  assert.deepEqual(diffListings(l(buf(1, ["vgem"])), l(buf(1, ["vgem", "vgem"]), buf(2, ["a"]))), [
    { inode: 1, kind: "attached", device: "vgem" },
    { inode: 2, kind: "new" },
    { inode: 2, kind: "attached", device: "a" },
  ]);
  assert.deepEqual(diffListings(l(buf(1, ["vgem", "vgem"])), l()), [{ inode: 1, kind: "gone" }]);
});

Deno.test("ChangeMarks keeps a mark for MARK_REFRESHES refreshes; watchText shows it and CPU mappers", () => {
  const marks = new ChangeMarks();
  marks.update([{ inode: 7, kind: "attached", device: NPU }], 1);
  for (let r = 2; r <= MARK_REFRESHES; r++) {
    marks.update([], r);
    assert.deepEqual(marks.of(7), [`+${NPU}`], `refresh ${r}`);
  }
  marks.update([], MARK_REFRESHES + 1);
  assert.deepEqual(marks.of(7), []);

  marks.update([{ inode: 7, kind: "detached", device: NPU }], 10);
  const listing: DmaBufListing = {
    buffers: [{
      inode: 7,
      size: 8192,
      exporter: "system",
      name: "frame",
      attached: [],
      fdRefs: [{ pid: 42, comm: "deno", fd: 9 }],
      mapRefs: [{ pid: 42, comm: "deno", count: 1, bytes: 8192 }],
    }],
    processes: [42],
    errors: [],
  };
  const text = watchText(
    listing,
    {
      refresh: 10,
      time: "t",
      buffers: listing.buffers,
      changes: [{ inode: 3, kind: "gone" }],
      cpuMappers: cpuMappers(listing),
    },
    marks,
    { color: false },
  );
  assert.match(text, /^change\s+inode\s+size/m);
  assert.match(text, new RegExp(`^-${NPU}\\s+7\\s+8 KiB\\s+system\\s+frame`, "m"));
  assert.match(text, /^gone since the last refresh: inode 3$/m);
  assert.match(text, /^CPU-MAPPED {2}deno:42 maps 1 dma-buf\(s\) \(inode 7\), 8192 bytes$/m);
  assert.ok(!text.includes("\x1b"), "no escapes without color");
});

Deno.test("lsFlags() reads --interval in seconds and refuses what it cannot use", () => {
  const parse = (...a: string[]) => lsFlags(parseCommandArgs(lsSpec, a, "cli"), "axl ls");
  assert.deepEqual(parse("--watch", "--interval", "0.25", "--count", "3"), {
    watch: true,
    intervalMs: 250,
    count: 3,
    list: { all: false },
  });
  assert.throws(() => parse("--watch", "--interval", "0"), /--interval takes seconds from 0\.05/);
  assert.throws(() => parse("--watch", "--count", "0"), /--count must be at least 1/);
  assert.deepEqual(parse("--pid", "12").list, { all: false, pids: [12] });
});
