import assert from "node:assert/strict";
import {
  type FtraceRecord,
  parseFtrace,
  parseFtraceLine,
  timestampNs,
} from "../../../../lib/trace/parse/ftrace.ts";
import { readFileLines } from "../../../../lib/trace/parse/lines.ts";
import { ParseError } from "../../../../lib/trace/parse/parse_error.ts";
import { fixture, fixtureText, KERNELS } from "../_fixtures.ts";

async function parseFile(kernel: string, name: string): Promise<FtraceRecord[]> {
  const out: FtraceRecord[] = [];
  const file = await Deno.open(fixture(kernel, name));
  for await (const r of parseFtrace(file.readable, { source: name })) out.push(r);
  return out;
}

for (const k of KERNELS) {
  Deno.test(`parseFtrace() reads every line of the ${k} captures strictly`, async () => {
    for (
      const name of [
        "events.trace",
        "instance-graph.trace",
        "toplevel-graph-abstime-proc.trace",
        "overrun.trace",
        "overrun-pipe.trace",
        "overrun-while-writing.trace",
      ]
    ) {
      const recs = await parseFile(k, name);
      const lines = (await fixtureText(k, name)).split("\n").filter((l) =>
        l.trim() !== "" && !/^\s*-{4,}\s*$/.test(l)
      ).length;
      assert.equal(recs.length, lines, `${k}/${name}: one record per non-blank line`);
    }
  });

  Deno.test(`parseFtrace() reads event lines with ${k === "6.12-rt" ? "PREEMPT_RT" : "normal"} flag columns`, async () => {
    const recs = await parseFile(k, "events.trace");
    const events = recs.filter((r) => r.kind === "event");
    assert.equal(events.length, 20);
    const header = recs.find((r) => r.kind === "header" && r.entries);
    assert.deepEqual(header?.kind === "header" && header.entries, {
      inBuffer: 20,
      written: 20,
      cpus: 2,
    });
    for (const e of events) {
      assert.equal(e.kind, "event");
      if (e.kind !== "event") continue;
      assert.equal(e.task, "dmabuf-churn");
      assert.match(e.flags, /^[.a-zA-Z0-9]{4,}$/);
      assert.ok(e.ts! > 1e9);
      assert.equal(e.fields.driver, "vgem");
      assert.ok(Number(e.fields.context) > 0);
    }
    const names = new Set(events.map((e) => e.kind === "event" && e.name));
    assert.deepEqual([...names].sort(), [
      "dma_fence_destroy",
      "dma_fence_init",
      "dma_fence_signaled",
      "dma_fence_wait_end",
      "dma_fence_wait_start",
    ]);
  });

  Deno.test(`parseFtrace() reads function_graph output of ${k} with its embedded events`, async () => {
    const recs = await parseFile(k, "instance-graph.trace");
    const graph = recs.filter((r) => r.kind === "graph");
    const funcs = new Set(graph.map((g) => g.kind === "graph" ? g.func : ""));
    for (
      const f of ["dma_buf_attach", "dma_buf_detach", "dma_buf_map_attachment", "dma_buf_export"]
    ) assert.ok(funcs.has(f), f);
    const leaf = graph.find((g) =>
      g.kind === "graph" && g.call === "leaf" && g.func === "dma_buf_dynamic_attach"
    );
    assert.ok(leaf?.kind === "graph" && leaf.depth === 1 && leaf.duration! > 0);
    const entries = graph.filter((g) => g.kind === "graph" && g.call === "entry").length;
    const exits = graph.filter((g) => g.kind === "graph" && g.call === "exit").length;
    assert.equal(entries, exits);
    assert.ok(
      recs.some((r) => r.kind === "event" && r.name === "dma_fence_signaled" && r.ts === undefined),
    );
    assert.ok(recs.some((r) => r.kind === "switch"));
  });

  Deno.test(`parseFtrace() reads funcgraph-abstime and funcgraph-proc columns (${k})`, async () => {
    const recs = await parseFile(k, "toplevel-graph-abstime-proc.trace");
    const ev = recs.filter((r) => r.kind === "event");
    assert.ok(ev.length > 0);
    for (const e of ev) assert.ok(e.kind === "event" && e.ts! > 1e9 && e.pid! > 0 && e.task);
    const g = recs.find((r) => r.kind === "graph");
    assert.ok(g?.kind === "graph" && g.ts! > 1e9 && g.pid! > 0);
  });

  Deno.test(`parseFtrace() reports lost-event markers of trace_pipe (${k})`, async () => {
    const lost = (await parseFile(k, "overrun-pipe.trace")).filter((r) => r.kind === "lost");
    assert.ok(lost.length >= 1);
    for (const l of lost) assert.ok(l.kind === "lost" && l.count! > 0);
  });
}

Deno.test("parseFtraceLine() reads the original design's excerpt, tgid columns and older RT flag columns", () => {
  const seed = parseFtraceLine(
    "gst-launch-1.0-3142 [003] d..2. 123.456789: axl_dmabuf_import: handle=17 inode=41023 exporter=nvmap iova=0x80100000 size=3110400",
    1,
  );
  assert.ok(seed?.kind === "event");
  assert.equal(seed.task, "gst-launch-1.0");
  assert.equal(seed.pid, 3142);
  assert.equal(seed.ts, 123456789000);
  assert.equal(seed.fields.exporter, "nvmap");
  const tgid = parseFtraceLine(
    "  kworker/u16:2-89   (   89) [005] d..2.   5.000001: dma_fence_signaled: driver=axl context=2 seqno=17",
    2,
  );
  assert.ok(tgid?.kind === "event" && tgid.tgid === 89 && tgid.task === "kworker/u16:2");
  const oldRt = parseFtraceLine(
    "  irq/42-axl-120   [001] d...1..  7.100000: axl_job_complete: context=2 seqno=1 status=0",
    3,
  );
  assert.ok(oldRt?.kind === "event" && oldRt.flags === "d...1.." && oldRt.task === "irq/42-axl");
  const noFlags = parseFtraceLine("  a b-7 [000]   1.5: x: y=1", 4);
  assert.ok(
    noFlags?.kind === "event" && noFlags.flags === "" && noFlags.task === "a b" &&
      noFlags.ts === 1.5e9,
  );
  assert.deepEqual(parseFtraceLine("CPU:3 [LOST EVENTS]", 5), {
    kind: "lost",
    line: 5,
    cpu: 3,
    count: null,
  });
  assert.deepEqual(parseFtraceLine("##### CPU 1 buffer started ####", 6), {
    kind: "buffer-started",
    line: 6,
    cpu: 1,
  });
});

Deno.test("parseFtraceLine() throws ParseError with the line number, or yields unparsed when not strict", () => {
  assert.throws(
    () => parseFtraceLine("garbage here", 42, { source: "x.trace" }),
    (e) => e instanceof ParseError && e.line === 42 && e.message.startsWith("x.trace:42:"),
  );
  assert.throws(
    () => parseFtraceLine(" 0) ?? bad |  f();", 7),
    (e) => e instanceof ParseError && e.line === 7,
  );
  assert.deepEqual(parseFtraceLine("garbage", 3, { strict: false })?.kind, "unparsed");
  assert.throws(() => parseFtraceLine("x", 0), RangeError);
});

Deno.test("timestampNs() converts seconds with 6 or 9 decimals and raw counters", () => {
  assert.equal(timestampNs("11.276661"), 11276661000);
  assert.equal(timestampNs("11.276661123"), 11276661123);
  assert.equal(timestampNs("123456"), 123456);
});

Deno.test("readFileLines() numbers lines of a fixture from 1", async () => {
  let last = 0;
  for await (const l of readFileLines(fixture("6.12-std", "events.trace"))) {
    assert.equal(l.line, last + 1);
    last = l.line;
  }
  assert.equal(last, 32);
});
