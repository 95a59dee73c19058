// A zero-copy builtin run that FAILed I4 on V8's own threads (tests/fixtures/trace/6.12-axl/
// v8-worker-copies: the tiny-buffer case of the verify device test in a fresh-clone x86_64 guest
// run, perf at 2,000 Hz). 14 of the 15 samples of glibc's __memmove_avx_unaligned_erms were in
// the builtin's threads named `V8 DefaultWorke` (V8's garbage collector and compilers), 1 in the
// thread that runs the frame loop: 1.002 % of 1,497 samples together, a FAIL at the 1 % threshold.
import assert from "node:assert/strict";
import { parsePerfScript, summarizePerf } from "../../../lib/trace/parse/perf_script.ts";
import { judgeArtifacts } from "../../../lib/verify/replay.ts";
import { renderHtmlReport } from "../../../lib/verify/report/html.ts";

const DIR = new URL("../../fixtures/trace/6.12-axl/v8-worker-copies", import.meta.url).pathname;

async function summary() {
  const file = await Deno.open(`${DIR}/perf.script.gz`);
  const text = file.readable.pipeThrough(new DecompressionStream("gzip"));
  return await summarizePerf(parsePerfScript(text, "perf.script"));
}

Deno.test("the v8-worker-copies capture is the run whose I4 FAILed live", async () => {
  const saved = JSON.parse(await Deno.readTextFile(`${DIR}/result.json`));
  assert.equal(saved.axl.invariants.I4.status, "FAIL");
  assert.match(saved.axl.invariants.I4.summary, /^__memmove_avx_unaligned_erms at 1\.002% self/);
});

Deno.test("summarizePerf() keeps V8's worker threads' copies in the totals under their own entry", async () => {
  const s = await summary();
  assert.equal(s.samples, 1497);
  // every sample still counts: the shares add up to the whole run
  const total = s.symbols.reduce((a, x) => a + x.samples, 0);
  assert.equal(total, 1497);
  const memmove = (x: { symbol: string }) => x.symbol === "__memmove_avx_unaligned_erms";
  // the frame loop's thread: one sample, a frame copy candidate
  const frames = s.copyRoutines.filter(memmove);
  assert.deepEqual(frames.map((x) => [x.samples, x.runtimeThread]), [[1, undefined]]);
  // V8's platform workers: 14 samples, named apart, not among the copy routines
  const runtime = (s.runtimeCopies ?? []).filter(memmove);
  assert.deepEqual(runtime.map((x) => [x.samples, x.runtimeThread, x.copyRoutine]), [
    [14, "v8-platform-worker", "glibc-x86_64"],
  ]);
  assert.ok(s.symbols.includes(runtime[0]!), "the entry is one of the run's symbols");
  assert.ok(s.copyRoutines.every((c) => c.runtimeThread === undefined));
  assert.ok(Math.abs((s.runtimeCopyPercent ?? 0) - (14 / 1497) * 100) < 1e-9);
  assert.ok(s.copyPercent < 1, `${s.copyPercent}`);
});

Deno.test("judgeArtifacts() does not FAIL I4 on V8's worker threads' copies, and names them", async () => {
  const r = await judgeArtifacts(DIR);
  const i4 = r.axl.invariants.I4;
  assert.equal(i4.status, "PASS", i4.summary);
  assert.match(i4.summary, /V8's own worker threads copied 0\.935% more, not frame copies/);
  const ev = i4.evidence as Record<string, unknown>;
  assert.equal(ev.samples, 1497);
  assert.deepEqual(ev.over_threshold, []);
  assert.equal(ev.runtime_copy_percent, 0.935);
  assert.deepEqual((ev.runtime_copies as Array<Record<string, unknown>>)[0], {
    symbol: "__memmove_avx_unaligned_erms",
    dso: "/usr/lib/x86_64-linux-gnu/libc.so.6",
    thread: "v8-platform-worker",
    self_percent: 0.935,
    samples: 14,
  });
  // result.json's perf section: the frames' copies, and V8's apart
  assert.equal(r.axl.perf.runtime_copy_percent, 0.935);
  const row = r.axl.perf.top.find((t) => t.runtime_thread === "v8-platform-worker");
  assert.equal(row?.symbol, "__memmove_avx_unaligned_erms");
  // The run is still INCONCLUSIVE: its 4 KiB trace buffer lost events (the case's point).
  assert.equal(r.axl.status, "INCONCLUSIVE");
  assert.ok(r.axl.trace.overrun > 0 || r.axl.trace.lost_events > 0);
  assert.ok(!r.axl.notes.some((n) => /damaged/.test(n)), r.axl.notes.join("\n"));
});

Deno.test("renderHtmlReport() shows V8's worker threads' copies apart from the frames'", async () => {
  const html = renderHtmlReport(await judgeArtifacts(DIR));
  assert.match(
    html,
    /copy routines 0\.468% self; V8's own worker threads \(garbage collector, compilers\): 0\.935% more in copy routines, not frame copies/,
  );
  // the V8 row is no frame copy: not marked as one
  const row = html.match(/<tr[^>]*><td>__memmove_avx_unaligned_erms<\/td>[^\n]*?<\/tr>/g) ?? [];
  assert.ok(row.some((r) => /in V8's worker threads: not a frame copy/.test(r)), row.join("\n"));
  assert.ok(row.filter((r) => / class="copy"/.test(r)).every((r) => !/V8/.test(r)));
});
