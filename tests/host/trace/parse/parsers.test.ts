import assert from "node:assert/strict";
import { parsePerCpuStats, summarizeLoss } from "../../../../lib/trace/parse/per_cpu_stats.ts";
import { parseBufinfo } from "../../../../lib/trace/parse/bufinfo.ts";
import { parseBufinfoSamples } from "../../../../lib/trace/parse/bufinfo_summary.ts";
import { parseDmaBufMaps } from "../../../../lib/trace/parse/dmabuf_maps.ts";
import { dmaBufFdInfo, parseFdinfo } from "../../../../lib/core/fdinfo.ts";
import { ParseError } from "../../../../lib/trace/parse/parse_error.ts";
import { fixture, fixtureText, KERNELS } from "../_fixtures.ts";

function splitStats(text: string): Map<number, string> {
  const out = new Map<number, string>();
  for (const part of text.split(/^### cpu/m).slice(1)) {
    const nl = part.indexOf("\n");
    out.set(Number(part.slice(0, nl)), part.slice(nl + 1));
  }
  return out;
}

for (const k of KERNELS) {
  Deno.test(`parsePerCpuStats() finds the overrun of the tiny-buffer capture (${k})`, async () => {
    const per = new Map(
      [...splitStats(await fixtureText(k, "overrun.stats"))].map((
        [c, t],
      ) => [c, parsePerCpuStats(t, `cpu${c}`)]),
    );
    assert.equal(per.size, 2);
    const loss = summarizeLoss(per);
    assert.ok(loss.lost > 0, "overrun counted");
    assert.ok(loss.lossyCpus.length > 0);
    const clean = summarizeLoss(
      new Map(
        [...splitStats(await fixtureText(k, "instance-graph.stats"))].map((
          [c, t],
        ) => [c, parsePerCpuStats(t)]),
      ),
    );
    assert.equal(clean.lost, 0);
    assert.ok([...clean.perCpu.values()].some((s) => s.entries > 0 && s.oldestEventTs! > 0));
  });

  Deno.test(`parseBufinfoSamples() sees two vgem attachments on named frames (${k})`, async () => {
    const s = await parseBufinfoSamples(
      (await Deno.open(fixture(k, "bufinfo-samples.txt"))).readable,
    );
    assert.ok(s.samples >= 3);
    // Each frame was attached by two vgem files: one device twice, which counts once.
    const frames = [...s.inodes.values()].filter((o) => /^frame-\d$/.test(o.name));
    assert.ok(frames.length > 0);
    for (const o of frames) {
      assert.equal(o.exporter, "system");
      assert.equal(o.maxDevices, 1);
      assert.deepEqual(o.devicesSeen, ["vgem"]);
      assert.equal(o.multiAttachSamples, 0);
    }
    const raw = await fixtureText(k, "bufinfo-samples.txt");
    assert.match(raw, /\tvgem\n\tvgem\n/, "the raw samples do list vgem twice on one buffer");
  });

  Deno.test(`parseDmaBufMaps() finds the mapped frame and fdinfo its dma-buf fields (${k})`, async () => {
    const maps = parseDmaBufMaps(await fixtureText(k, "maps-copy.txt"));
    assert.equal(maps.length, 1);
    assert.equal(maps[0]!.bytes, 1048576);
    assert.equal(maps[0]!.perms, "rw-s");
    assert.match(maps[0]!.name, /^frame-\d$/);
    // fdinfo was read a moment after maps (another frame by then): check its own fields.
    let fdinfo: string;
    try {
      fdinfo = await fixtureText(k, "fdinfo.txt");
    } catch {
      return; // this capture raced the frame loop and has no fdinfo (see the README)
    }
    const infos = fdinfo.split(/^### fd .*$/m).filter((t) => t.trim()).map((t) =>
      dmaBufFdInfo(parseFdinfo(t))!
    );
    assert.ok(infos.length > 0);
    for (const i of infos) {
      assert.equal(i.exporter, "system");
      assert.equal(i.size, 1048576);
      assert.match(i.name, /^frame-\d$/);
      assert.ok(i.inode > 0);
    }
  });
}

Deno.test("parseBufinfo() takes columns from the header and checks the device total", () => {
  const old =
    "size\tflags\tmode\tcount\texp_name\tbuf name\n00004096\t00000002\t00080005\t00000001\tion\tcam 0\n\tAttached Devices:\n\tisp\nTotal 1 devices attached\n";
  const snap = parseBufinfo(old.replace("buf name", "name"));
  assert.equal(snap.buffers[0]!.inode, undefined);
  assert.equal(snap.buffers[0]!.name, "cam 0");
  assert.throws(
    () =>
      parseBufinfo(
        "size\tflags\tmode\tcount\texp_name\tino\tname\n00004096\t2\t5\t1\tsystem\t7\t<none>\n\tAttached Devices:\n\tvgem\nTotal 2 devices attached\n",
        "b",
      ),
    (e) => e instanceof ParseError && e.line === 5 && /says 2 devices/.test(e.message),
  );
  assert.throws(
    () => parseBufinfo("00004096\txx\t5\t1\tsystem\t7\tn\n"),
    (e) => e instanceof ParseError && e.line === 1,
  );
});

Deno.test("parsePerCpuStats() rejects malformed counts with the line number", () => {
  assert.throws(
    () => parsePerCpuStats("entries: 1\noverrun: lots\n", "s"),
    (e) => e instanceof ParseError && e.line === 2,
  );
  assert.throws(
    () => parsePerCpuStats("bytes: 1\n", "s"),
    (e) => e instanceof ParseError && /entries/.test(e.message),
  );
});
