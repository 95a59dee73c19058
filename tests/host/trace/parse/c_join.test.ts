// The frame join in C (ffi/src/trace_join.c, run by the scanner) against FrameJoin, the
// TypeScript join it mirrors: the same frames, to the order of each frame's keys, on every
// captured trace with the default options, a small window and list, and no limits; on event
// sequences that take the join's unusual paths; and TypeScript receives no joined events.
import assert from "node:assert/strict";
import { readTraceFacts, type ReadTraceFactsOptions } from "../../../../lib/verify/trace_facts.ts";
import { SCAN_EVENT, SCAN_FOLDED, TraceChunkScanner } from "../../../../lib/core/trace_scan.ts";
import type { LineSource } from "../../../../lib/trace/parse/lines.ts";
import { mulberry32 } from "../../_rng.ts";

const root = new URL("../../../../", import.meta.url);

async function capturedTraces(): Promise<string[]> {
  const out = [new URL("bench/fixtures/axl-frames-6.12-std.trace", root).pathname];
  const walk = async (dir: URL): Promise<void> => {
    for await (const e of Deno.readDir(dir)) {
      if (e.isDirectory) await walk(new URL(`${e.name}/`, dir));
      else if (e.name.endsWith(".trace") || e.name === "trace.txt") {
        out.push(new URL(e.name, dir).pathname);
      }
    }
  };
  await walk(new URL("tests/fixtures/trace/", root));
  return out.sort();
}

/** What a fold's join says, as text: frames with their keys in order, counts, buffers. */
async function joined(
  source: () => LineSource | Promise<LineSource>,
  options: ReadTraceFactsOptions,
): Promise<string> {
  const f = await readTraceFacts(await source(), options);
  const j = f.join!;
  const frames = j.frames([{ seqno: 3, submitNs: 10, signalNs: 25 }, { submitNs: 1, signalNs: 4 }]);
  return JSON.stringify({
    list: frames.list,
    count: frames.count,
    latencyNs: [...frames.latencyNs],
    sources: [...frames.sources],
    inodes: [...frames.inodes],
    t0: frames.t0,
    counts: [j.imports, j.releases, j.submits, j.completes, j.unimportedSubmits],
    exporterOf: [...j.exporterOf],
    exporters: [...j.exporters],
    unreleased: j.unreleasedHandles(),
    eventCounts: Object.entries(f.eventCounts),
    fenceWaitLines: f.fenceWaitLines,
    ts: [f.firstTs, f.lastTs],
  }, (_k, v) => typeof v === "number" && !Number.isFinite(v) ? String(v) : v);
}

const OPTIONS: ReadTraceFactsOptions[] = [
  {},
  { window: 2, listLimit: 3 },
  { window: 1, listLimit: 0 },
  { window: Infinity, listLimit: Infinity },
];

async function same(source: () => LineSource | Promise<LineSource>, what: string) {
  for (const options of OPTIONS) {
    const c = await joined(source, { ...options, scanner: "c" });
    const ts = await joined(source, { ...options, scanner: "typescript" });
    assert.equal(c, ts, `${what} ${JSON.stringify(options)}`);
  }
}

Deno.test("the C join gives FrameJoin's frames on every captured trace, with any window", async () => {
  const files = await capturedTraces();
  assert.ok(files.length >= 15, `${files.length} traces`);
  for (const path of files) await same(() => Deno.open(path), path);
});

const ev = (ts: string, name: string, fields: string) =>
  `  w-7 [000] ..... ${ts}: ${name}: ${fields}`;

/** Event sequences for the join's unusual paths. */
const SEQUENCES: Record<string, string[]> = {
  "imports only": [
    ev("1.0", "axl_dmabuf_import", "handle=1 inode=5 exporter=system"),
    ev("1.1", "axl_dmabuf_import", "handle=2 inode=6 exporter=udmabuf"),
    ev("1.2", "axl_dmabuf_release", "handle=1 inode=5"),
    ev("1.3", "axl_dmabuf_import", "handle=1 inode=5"),
  ],
  "fence signal and completion before the job": [
    ev("1.0", "axl_dmabuf_import", "handle=1 inode=5 exporter=system"),
    ev("1.1", "dma_fence_signaled", "context=9 seqno=1"),
    ev("1.2", "axl_job_complete", "context=9 seqno=1 status=0"),
    ev("1.3", "axl_job_submit", "context=9 seqno=1 handle=1 inode=5"),
    ev("1.4", "axl_dmabuf_release", "handle=1 inode=5"),
    ev("1.5", "dma_fence_destroy", "context=9 seqno=1"),
  ],
  "one fence twice, a release first, a handle never released": [
    ev("1.0", "axl_dmabuf_release", "handle=4 inode=5"),
    ev("1.1", "axl_dmabuf_import", "handle=1 inode=5 exporter=system"),
    ev("1.2", "axl_job_submit", "context=9 seqno=2 handle=1 inode=5"),
    ev("1.3", "axl_job_submit", "context=9 seqno=2 handle=1 inode=5"),
    ev("1.4", "axl_job_complete", "context=9 seqno=2 status=22"),
    ev("1.5", "dma_fence_signaled", "context=9 seqno=2"),
    ev("1.6", "dma_fence_signaled", "context=9 seqno=2"),
    ev("1.7", "axl_dmabuf_import", "handle=3 inode=8 exporter=system"),
    ev("1.8", "axl_job_submit", "context=9 seqno=3 handle=3 inode=8"),
    ev("1.9", "axl_dmabuf_release", "handle=1 inode=5"),
  ],
  "fields absent, old names, and values only TypeScript reads": [
    ev("1.0", "axl_dmabuf_import", "inode=5"),
    ev("1.1", "axl_job_submit", "ctx=4 seqno=1 handle=0x1f inode=5"),
    ev("1.2", "axl_job_complete", "ctx=4 seqno=1"),
    ev("1.3", "axl_dmabuf_import", 'handle=-2 inode="7" exporter="sys tem"'),
    ev("1.4", "axl_job_submit", "context=4 seqno=1e3 handle=-2 inode=7"),
    ev("1.5", "dma_fence_signaled", "context=4 seqno=1000"),
    ev("1.6", "axl_job_complete", "context=4 seqno=1000 status=-5"),
    ev("1.7", "axl_dmabuf_release", "handle=-2 inode=7"),
    ev("1.8", "dma_fence_wait_start", "context=4 seqno=1000"),
    ev("1.9", "dma_fence_wait_end", "context=4 seqno=1000"),
    ev("2.0", "axl_job_submit", "context=4 seqno=99999999999999999 handle=1 inode=5"),
  ],
  "a completion without a time, events between lines the parser reads": [
    "# tracer: nop",
    ev("1.0", "axl_dmabuf_import", "handle=1 inode=5 exporter=system"),
    "CPU:0 [LOST 3 EVENTS]",
    ev("1.1", "axl_job_submit", "context=9 seqno=1 handle=1 inode=5"),
    "  w-7 [000] ..... axl_job_complete: context=9 seqno=1 status=0",
    "garbage",
    "  w-7 [000] ..... 1.3: axl_job_complete: context=9 seqno=1 status=0 \u00e9=1",
    ev("1.4", "dma_fence_signaled", "context=9 seqno=1"),
    ev("1.5", "axl_dmabuf_release", "handle=1 inode=5"),
  ],
};

Deno.test("the C join gives FrameJoin's frames on events that take its unusual paths", async () => {
  const all: string[] = [];
  for (const [what, lines] of Object.entries(SEQUENCES)) {
    await same(() => [lines.join("\n") + "\n"], what);
    all.push(...lines);
  }
  await same(() => [all.join("\n")], "all of them");
  // Shuffled, many times over: any order of events gives the same frames.
  const rand = mulberry32(7);
  for (let round = 0; round < 20; round++) {
    const lines = [...all].sort(() => rand() - 0.5);
    await same(() => [lines.join("\n")], `shuffled ${round}`);
  }
});

Deno.test("the C join hands TypeScript the first event of each name, not every event", () => {
  const scanner = new TraceChunkScanner();
  scanner.startJoin(10_000, 4096);
  try {
    const lines = [];
    for (let i = 1; i <= 100; i++) {
      lines.push(
        ev(`1.${i}`, "axl_dmabuf_import", `handle=${i} inode=5 exporter=system`),
        ev(`1.${i}`, "axl_job_submit", `context=9 seqno=${i} handle=${i} inode=5`),
        ev(`1.${i}`, "dma_fence_signaled", `context=9 seqno=${i}`),
        ev(`1.${i}`, "axl_job_complete", `context=9 seqno=${i} status=0`),
        ev(`1.${i}`, "axl_dmabuf_release", `handle=${i} inode=5`),
      );
    }
    const text = new TextEncoder().encode(lines.join("\n") + "\n");
    assert.equal(scanner.scan(text, text.length), text.length);
    const kinds: number[] = [];
    for (let at = 2; at < scanner.out[0]!;) {
      const kind = scanner.out[at]!;
      kinds.push(kind);
      assert.notEqual(kind, SCAN_EVENT);
      at += kind === SCAN_FOLDED ? 5 : 4;
    }
    assert.deepEqual(kinds, [SCAN_FOLDED, SCAN_FOLDED, SCAN_FOLDED, SCAN_FOLDED, SCAN_FOLDED]);
    const r = scanner.joinResult();
    assert.equal(r.count, 100);
    assert.deepEqual([...r.latency.slice(0, 3)], [0, 0, 0]);
    assert.deepEqual(r.list[0], {
      index: 0,
      context: 9,
      seqno: 1,
      handle: 1,
      inode: 5,
      pid: 7,
      submitTs: 1.1e9,
      exporter: "system",
      importTs: 1.1e9,
      status: 0,
      completeTs: 1.1e9,
      releaseTs: 1.1e9,
      signalTs: 1.1e9,
      latencyNs: 0,
      latencySource: "trace",
    });
    assert.deepEqual([...r.eventCounts.values()], [100, 100, 100, 100, 100]);
  } finally {
    scanner.stopJoin();
  }
});

Deno.test("the C join only counts the events of a name it was told to", () => {
  const scanner = new TraceChunkScanner();
  scanner.startJoin(10_000, 4096);
  try {
    const line = (i: number) => ev(`2.${i}`, "dma_fence_init", `context=9 seqno=${i}`);
    const scan = (text: string): number[] => {
      const bytes = new TextEncoder().encode(text);
      assert.equal(scanner.scan(bytes, bytes.length), bytes.length);
      const kinds: number[] = [];
      for (let at = 2; at < scanner.out[0]!;) {
        const kind = scanner.out[at]!;
        kinds.push(kind);
        at += kind === SCAN_FOLDED ? 5 : kind === SCAN_EVENT ? 8 + 4 * scanner.out[at + 6]! : 4;
      }
      return kinds;
    };
    assert.deepEqual(scan(`${line(1)}\n`), [SCAN_EVENT]);
    const number = scanner.out[2 + 7]!;
    scanner.joinCountOnly(number);
    assert.deepEqual(scan(`${line(2)}\n${line(3)}\n${line(4)}\n`), []);
    const r = scanner.joinResult();
    assert.equal(r.eventCounts.get(number), 3);
    assert.deepEqual([r.firstTs, r.lastTs], [2.2e9, 2.4e9]);
    assert.throws(() => scanner.joinCountOnly(99), RangeError);
  } finally {
    scanner.stopJoin();
  }
});

Deno.test("the C join refuses bad options and a second start, and reads random bytes", () => {
  const scanner = new TraceChunkScanner();
  assert.throws(() => scanner.startJoin(-1, 10), /invalid options \(listLimit -1, window 10\)/);
  assert.throws(() => scanner.startJoin(10, 0.5), /invalid options/);
  scanner.startJoin(10, 2);
  try {
    assert.throws(() => scanner.startJoin(10, 2), /a join already running/);
    const rand = mulberry32(11);
    const sample = new TextEncoder().encode(
      Object.values(SEQUENCES).flat().join("\n") + "\n",
    );
    for (let round = 0; round < 500; round++) {
      const len = Math.floor(rand() * 600);
      const bytes = new Uint8Array(len);
      for (let i = 0; i < len; i++) {
        bytes[i] = rand() < 0.05
          ? Math.floor(rand() * 256)
          : sample[Math.floor(rand() * sample.length)]!;
      }
      for (let pos = 0; pos < len;) {
        const n = scanner.scan(bytes.subarray(pos), len - pos);
        if (n === 0) break;
        pos += n;
      }
    }
    const r = scanner.joinResult();
    assert.ok(r.count >= 0 && r.seqno.length === r.count);
  } finally {
    scanner.stopJoin();
  }
  scanner.stopJoin(); // twice: nothing
});
