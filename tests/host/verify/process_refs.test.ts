// The fold of the process probes' events (lib/verify/evidence/process_refs.ts): fd events and
// mmap entry/return pairs credited to the thread's process, shaped as the /proc scans' fdRefs
// and mapRefs. The lines are as the x86_64 rig's 6.12 kernel printed these events (kprobe
// `(func+0x4/0x..)`, kretprobe `(caller <- func)`, `record-tgid`'s column).
import assert from "node:assert/strict";
import { ProcessRefFold } from "../../../lib/verify/evidence/process_refs.ts";
import { parseFtraceLine } from "../../../lib/trace/parse/ftrace.ts";

function fold(lines: string[]): ProcessRefFold {
  const f = new ProcessRefFold();
  lines.forEach((l, i) => {
    const e = parseFtraceLine(l, i + 1);
    if (e?.kind === "event") f.add(e);
  });
  return f;
}

const at = (task: string, tid: number, tgid: number, t: number, body: string) =>
  `${task}-${tid} (${tgid}) [001] ..... ${t.toFixed(6)}: ${body}`;
const fdLine = (fd: number, ino: number, magic = "0x444d4142") =>
  `axl_kp_fd: (fd_install+0x4/0xe0) fd=${fd} ino=${ino} magic=${magic}`;
const mmapLine = (ino: number, start: string, end: string, flags: string) =>
  `axl_kp_mmap: (dma_buf_mmap_internal+0x4/0x50) ino=${ino} start=${start} end=${end} flags=${flags}`;
const mmapRet = (ret: number) =>
  `axl_kp_mmap_ret: (__mmap_region+0x6c0/0xa90 <- dma_buf_mmap_internal) ret=${ret}`;

Deno.test("ProcessRefFold credits each fd to the thread's process, once per buffer, the first fd", () => {
  const f = fold([
    at("deno", 10, 10, 1, fdLine(8, 31)),
    // A worker thread of the same process; then a dup of the same buffer.
    at("worker", 11, 10, 1.1, fdLine(9, 32)),
    at("deno", 10, 10, 1.2, fdLine(12, 31)),
    // Another process: not the workload's.
    at("other", 20, 20, 1.4, fdLine(3, 33)),
  ]);
  const known = (ino: number) => ino === 31 ? { exporter: "system" } : undefined;
  assert.deepEqual(f.refs([10], known).fdRefs, [
    { pid: 10, fd: 8, inode: 31, exporter: "system" },
    // Nothing named its exporter.
    { pid: 10, fd: 9, inode: 32, exporter: "" },
  ]);
  assert.equal(f.counts.events, 4);
});

Deno.test("ProcessRefFold leaves out files that are no dma-buf and fds without their process", () => {
  const f = fold([
    at("deno", 10, 10, 1, fdLine(4, 5, "0x534f434b")),
    "deno-10 [000] ..... 2.000000: " + fdLine(5, 31),
  ]);
  assert.deepEqual(f.refs([10]).fdRefs, []);
  assert.equal(f.counts.notDmabuf, 1);
  assert.equal(f.counts.noProcess, 1);
});

Deno.test("ProcessRefFold gives map refs as /proc/PID/maps prints them, and counts what it cannot pair", () => {
  const f = fold([
    at("deno", 10, 10, 1, mmapLine(31, "0x7f3a12c00000", "0x7f3a12d2c000", "0xfb")),
    at("deno", 10, 10, 1.1, mmapRet(0)),
    // Refused by the exporter: no mapping.
    at("deno", 10, 10, 2, mmapLine(31, "0x7f3a13000000", "0x7f3a13100000", "0xfb")),
    at("deno", 10, 10, 2.1, mmapRet(-22)),
    // A read-only private mapping of a low address: printed with 8 digits at least.
    at("deno", 10, 10, 2.5, mmapLine(32, "0x1000", "0x3000", "0x71")),
    at("deno", 10, 10, 2.6, mmapRet(0)),
    // A return whose entry the trace did not hold.
    at("deno", 10, 10, 3, mmapRet(0)),
  ]);
  assert.deepEqual(f.refs([10], (i) => i === 31 ? { name: "frame-0" } : undefined).mapRefs, [
    {
      pid: 10,
      start: "7f3a12c00000",
      end: "7f3a12d2c000",
      bytes: 0x12c000,
      perms: "rw-s",
      inode: 31,
      name: "frame-0",
    },
    {
      pid: 10,
      start: "00001000",
      end: "00003000",
      bytes: 0x2000,
      perms: "r--p",
      inode: 32,
      name: "",
    },
  ]);
  assert.equal(f.counts.failed, 1);
  assert.equal(f.counts.unpaired, 1);
  assert.equal(f.counts.paired, 3);
});

Deno.test("ProcessRefFold counts truncated and garbled events as damaged and gives no ref from them; an empty trace gives nothing", () => {
  const good = at("deno", 10, 10, 1, fdLine(8, 31));
  const f = fold([
    good,
    // Cut in the middle of the inode field, as a trace read while it was written can end.
    good.replace("fd=8 ino=31", "fd=9 ino=").replace(/ magic=.*$/, ""),
    at("deno", 10, 10, 1.1, fdLine(9, 32)).replace("ino=32", "ino=3x2"),
    at("deno", 10, 10, 2, mmapLine(33, "0x7f3a12c00000", "0xzz", "0xfb")),
    at("deno", 10, 10, 2.1, mmapRet(0)),
  ]);
  assert.deepEqual(f.refs([10]).fdRefs.map((r) => r.inode), [31]);
  assert.deepEqual(f.refs([10]).mapRefs, []);
  // The cut line lost its magic too: it is no dma-buf to the fold, not a ref.
  assert.deepEqual(
    [f.counts.events, f.counts.damaged, f.counts.notDmabuf, f.counts.paired],
    [5, 2, 1, 1],
  );
  const empty = fold([""]);
  assert.deepEqual(empty.refs([10]), { fdRefs: [], mapRefs: [] });
  assert.equal(empty.counts.events, 0);
});
