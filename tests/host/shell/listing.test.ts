import assert from "node:assert/strict";
import { listDmaBufs, listingText } from "../../../lib/shell/dmabuf_listing.ts";
import { formatBytes, formatNs, toPlain } from "../../../lib/shell/render.ts";

// Captures from the VM's Debian 6.12 kernel (tests/fixtures/trace/README.md).
const FIXTURES = new URL("../../fixtures/trace/6.12-std/", import.meta.url);
const fixture = (name: string) => Deno.readTextFileSync(new URL(name, FIXTURES));

/** A procfs tree for one process built from the captured fdinfo, maps and bufinfo. */
function procTree(): { root: string; bufinfo: string } {
  const root = Deno.makeTempDirSync({ prefix: "axl-proc-" });
  const pid = `${root}/4242`;
  Deno.mkdirSync(`${pid}/fd`, { recursive: true });
  Deno.mkdirSync(`${pid}/fdinfo`);
  Deno.writeTextFileSync(`${pid}/comm`, "dmabuf-churn\n");
  // fdinfo.txt is "### fd 5 /dmabuf:frame-3" followed by the file.
  const [head, ...body] = fixture("fdinfo.txt").split("\n");
  const [, fd, target] = /^### fd (\d+) (\S+)/.exec(head!)!;
  Deno.symlinkSync(target!, `${pid}/fd/${fd}`);
  Deno.writeTextFileSync(`${pid}/fdinfo/${fd}`, body.join("\n"));
  Deno.symlinkSync("/dev/null", `${pid}/fd/0`);
  Deno.writeTextFileSync(`${pid}/fdinfo/0`, "pos:\t0\nflags:\t0100000\nmnt_id:\t5\nino:\t4\n");
  Deno.writeTextFileSync(`${pid}/maps`, fixture("maps-copy.txt"));
  // The first sample of the captured bufinfo samples.
  const sample = fixture("bufinfo-samples.txt").split(/^### sample .*$/m)[1]!;
  Deno.writeTextFileSync(`${root}/bufinfo`, sample);
  return { root, bufinfo: `${root}/bufinfo` };
}

Deno.test("listDmaBufs() joins fd refs, map refs and bufinfo attachments by inode", async () => {
  const { root, bufinfo } = procTree();
  try {
    const l = await listDmaBufs({ procRoot: root, bufinfoPath: bufinfo, pids: [4242] });
    assert.equal(l.bufinfoProblem, undefined);
    assert.deepEqual(l.buffers.map((b) => b.inode), [12, 14]);
    const [mapped, held] = l.buffers;
    assert.deepEqual(held!.fdRefs, [{ pid: 4242, comm: "dmabuf-churn", fd: 5 }]);
    assert.deepEqual([held!.exporter, held!.name, held!.size], ["system", "frame-3", 1048576]);
    assert.deepEqual(mapped!.mapRefs, [{
      pid: 4242,
      comm: "dmabuf-churn",
      count: 1,
      bytes: 0x100000,
    }]);
    assert.equal(mapped!.name, "frame-1");
    // Neither buffer was alive in that bufinfo sample: no attachments, but known to be none.
    assert.deepEqual(held!.attached, []);

    const all = await listDmaBufs({ procRoot: root, bufinfoPath: bufinfo, all: true });
    assert.deepEqual(all.processes, [4242]);
    const frame0 = all.buffers.find((b) => b.inode === 1)!;
    assert.deepEqual(frame0.attached, ["vgem", "vgem"]);
    assert.equal(frame0.fileRefs, 7);
    assert.deepEqual(frame0.fdRefs, []);

    const text = listingText(all);
    assert.match(text, /^inode\s+size\s+exporter\s+name\s+attached\s+fd refs\s+map refs$/m);
    assert.match(text, /^14\s+1 MiB\s+system\s+frame-3\s+-\s+dmabuf-churn:4242\/fd5\s+-$/m);
    assert.match(text, /^1\s+1 MiB\s+system\s+frame-0\s+vgem,vgem\s+-\s+-$/m);
    assert.match(text, /3 dma-buf\(s\), 3 MiB; 1 process\(es\) scanned$/);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("listDmaBufs() says why attachments are unknown when bufinfo is unreadable", async () => {
  const { root } = procTree();
  try {
    const l = await listDmaBufs({ procRoot: root, bufinfoPath: `${root}/none`, pids: [4242] });
    assert.match(l.bufinfoProblem!, /not found \(mount debugfs/);
    assert.equal(l.buffers[0]!.attached, undefined);
    assert.match(listingText(l), /attachments unknown: .*not found/);
    assert.match(listingText(l), /^14 .* \? /m);
  } finally {
    Deno.removeSync(root, { recursive: true });
  }
});

Deno.test("formatBytes(), formatNs() and toPlain() render for people and machines", () => {
  assert.equal(formatBytes(4096), "4 KiB");
  assert.equal(formatBytes(1536), "1.5 KiB");
  assert.equal(formatBytes(100), "100 B");
  assert.equal(formatNs(850), "850 ns");
  assert.equal(formatNs(25_499_113n), "25.50 ms");
  assert.deepEqual(toPlain(new Map([["a", 1n]])), { a: "1" });
  assert.deepEqual(toPlain({ f() {}, s: new Set([1]), n: NaN }), { s: [1], n: "NaN" });
});
