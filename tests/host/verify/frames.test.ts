// The streaming frame join: the same frames whatever the window on real runs, bounded state
// on long ones, the documented limits (window, frame list), workload latencies, and the fast
// trace reader agreeing with the record fold.
import assert from "node:assert/strict";
import { FrameJoin } from "../../../lib/verify/frames.ts";
import { judge } from "../../../lib/verify/judge.ts";
import {
  collectTraceFacts,
  emptyTraceFacts,
  readTraceFacts,
  type TraceFacts,
} from "../../../lib/verify/trace_facts.ts";
import { parseFtrace } from "../../../lib/trace/parse/ftrace.ts";
import { type RunCase, runDir } from "./_runs.ts";
import { unitJudgeInput } from "./_unit_input.ts";

const RUNS: RunCase[] = ["zero-copy", "copy", "tiny-buffer"];

async function traceOf(name: RunCase, window?: number): Promise<TraceFacts> {
  using file = await Deno.open(`${runDir(name)}/trace.txt`);
  return await readTraceFacts(file, window === undefined ? {} : { window });
}

/** One complete frame n (handle, seqno and times from n), as the axl driver traces it. */
function frame(j: FrameJoin, n: number, opts: { release?: boolean; signal?: boolean } = {}) {
  const t = n * 1000;
  j.addImport(n, n % 3, "system", t, 7);
  j.addSubmit(1, n, n, n % 3, t + 10, 7);
  j.addComplete(1, n, 0, t + 50);
  if (opts.signal ?? true) j.addFenceSignaled(1, n, t + 60);
  j.addFenceDestroyed(1, n);
  if (opts.release ?? true) j.addRelease(n, n % 3, t + 90);
}

Deno.test("FrameJoin gives the captured runs the same frames with any window", async () => {
  for (const name of RUNS) {
    const streamed = (await traceOf(name)).join!.frames();
    const whole = (await traceOf(name, Infinity)).join!.frames();
    const tight = (await traceOf(name, 2)).join!.frames();
    assert.ok(streamed.count >= (name === "tiny-buffer" ? 5 : 60), `${name}: ${streamed.count}`);
    assert.deepEqual(streamed, whole, name);
    assert.deepEqual(tight, whole, name);
  }
});

Deno.test("readTraceFacts() agrees with the record fold on every captured trace", async () => {
  const dirs = ["6.12-std", "6.12-rt"].map((k) =>
    new URL(`../../fixtures/trace/${k}/`, import.meta.url)
  );
  const files = RUNS.map((r) => `${runDir(r)}/trace.txt`);
  // The arm64 5.15 runs, and the capture the benchmark scales up to 1 GB.
  for (const run of ["zero-copy", "copy"]) {
    files.push(
      new URL(`../../fixtures/trace/5.15-arm64/${run}/trace.txt`, import.meta.url).pathname,
    );
  }
  files.push(
    new URL("../../../bench/fixtures/axl-frames-6.12-std.trace", import.meta.url).pathname,
  );
  for (const dir of dirs) {
    for await (const e of Deno.readDir(dir)) {
      if (e.name.endsWith(".trace")) files.push(new URL(e.name, dir).pathname);
    }
  }
  for (const path of files) {
    using a = await Deno.open(path);
    const fast = await readTraceFacts(a);
    const b = await Deno.open(path);
    const slow = await collectTraceFacts(parseFtrace(b.readable, { strict: false }));
    // The fast reader does not read the time column of function_graph call lines.
    for (const f of [fast, slow]) {
      delete f.firstTs;
      delete f.lastTs;
    }
    const fastFrames = fast.join?.frames(), slowFrames = slow.join?.frames();
    delete fast.join;
    delete slow.join;
    assert.deepEqual(fast, slow, path);
    assert.deepEqual(fastFrames, slowFrames, path);
  }
});

Deno.test("FrameJoin keeps a few frames in flight over a long run, and every frame's numbers", () => {
  const j = new FrameJoin({ listLimit: 100 });
  for (let n = 1; n <= 200_000; n++) {
    frame(j, n);
    if (n % 50_000 === 0) assert.ok(j.inFlight <= 4, `${j.inFlight} in flight after ${n}`);
  }
  assert.equal(j.imports, 200_000);
  assert.deepEqual(j.unreleasedHandles(), []);
  const f = j.frames();
  assert.equal(f.count, 200_000);
  assert.equal(f.list.length, 100);
  assert.equal(f.latencyNs.length, 200_000);
  assert.ok(f.latencyNs.every((ns) => ns === 50));
  assert.deepEqual(f.list[99], {
    index: 99,
    context: 1,
    seqno: 100,
    handle: 100,
    inode: 1,
    pid: 7,
    submitTs: 100_010,
    exporter: "system",
    importTs: 100_000,
    status: 0,
    completeTs: 100_050,
    signalTs: 100_060,
    releaseTs: 100_090,
    latencyNs: 50,
    latencySource: "trace",
  });
});

Deno.test("FrameJoin closes frames older than its window: late events count but join nothing", () => {
  for (const window of [16, Infinity]) {
    const j = new FrameJoin({ window });
    for (let n = 1; n <= 100; n++) frame(j, n, { release: false });
    assert.ok(j.inFlight <= Math.min(window, 100));
    for (let n = 1; n <= 100; n++) j.addRelease(n, n % 3, 1e9);
    assert.equal(j.releases, 100);
    assert.deepEqual(j.unreleasedHandles(), []);
    const released = j.frames().list.filter((f) => f.releaseTs === 1e9).length;
    assert.equal(released, window === 16 ? 16 : 100, `window ${window}`);
  }
});

Deno.test("FrameJoin takes a fence signal over the completion, whichever comes first", () => {
  const j = new FrameJoin();
  j.addFenceSignaled(1, 1, 40); // before its job: remembered
  j.addSubmit(1, 1, 1, 5, 10, 1);
  j.addComplete(1, 1, -5, 30);
  j.addSubmit(1, 2, 2, 5, 100, 1);
  j.addComplete(1, 2, 0, 130); // no fence signal: the completion times it
  const [a, b] = j.frames().list;
  assert.equal(a!.latencyNs, 30);
  assert.equal(a!.status, -5);
  assert.equal(b!.latencyNs, 30);
  assert.equal(b!.signalTs, 130);
});

Deno.test("FrameJoin drops frames made from imports once a job is traced", () => {
  const j = new FrameJoin();
  j.addImport(1, 5, "system", 1, 1);
  j.addImport(2, 6, "system", 2, 1);
  assert.equal(j.frames().count, 2);
  const k = new FrameJoin();
  k.addImport(1, 5, "system", 1, 1);
  k.addImport(2, 6, "system", 2, 1);
  k.addSubmit(1, 9, 2, 6, 3, 1);
  const f = k.frames();
  assert.equal(f.count, 1);
  assert.equal(f.list[0]!.seqno, 9);
  assert.equal(f.list[0]!.importTs, 2);
  assert.deepEqual([...f.inodes].sort(), [5, 6]);
});

Deno.test("FrameJoin fills untimed frames from the workload by sequence number, else position", () => {
  const j = new FrameJoin();
  for (let n = 1; n <= 4; n++) j.addSubmit(1, n, n, 5, n * 100, 1);
  j.addFenceSignaled(1, 1, 150);
  const f = j.frames([
    { seqno: 3, submitNs: 0, signalNs: 7 },
    { submitNs: 0, signalNs: 9 }, // no seqno: the second frame
    { seqno: 1, submitNs: 0, signalNs: 1 }, // timed by the trace already
    { seqno: 99, submitNs: 0, signalNs: 11 }, // no such frame: the fourth, by position
  ]);
  assert.deepEqual(f.list.map((x) => [x.latencyNs, x.latencySource]), [
    [50, "trace"],
    [9, "workload"],
    [7, "workload"],
    [11, "workload"],
  ]);
  assert.deepEqual([...f.latencyNs], [50, 9, 7, 11]);
  assert.deepEqual([...f.sources].sort(), ["trace", "workload"]);
  // Asking again gives the same answer: the join is not changed by it.
  assert.deepEqual(j.frames([{ seqno: 3, submitNs: 0, signalNs: 7 }]).list[2]!.latencyNs, 7);
  assert.equal(j.frames().list[2]!.latencyNs, undefined);
});

Deno.test("FrameJoin rejects a bad window or list limit with a RangeError", () => {
  assert.throws(() => new FrameJoin({ window: 0 }), RangeError);
  assert.throws(() => new FrameJoin({ listLimit: -1 }), RangeError);
});

Deno.test("judge() lists the first frames of a long run, says so, and counts them all", () => {
  const facts = emptyTraceFacts();
  facts.join = new FrameJoin({ listLimit: 25 });
  for (let n = 1; n <= 3000; n++) frame(facts.join, n);
  const r = judge(unitJudgeInput({ trace: facts, framesSubmitted: 3000 }));
  assert.equal(r.axl.frames.traced, 3000);
  assert.equal(r.axl.frames.list.length, 25);
  assert.equal(r.axl.latency.count, 3000);
  assert.equal(r.axl.latency.p50, 0.05);
  assert.equal(r.axl.invariants.I3.status, "PASS");
  assert.ok(r.axl.notes.some((n) => /first 25 of 3000 frames/.test(n)), r.axl.notes.join("; "));
  // Relative times start at the first import.
  assert.equal(r.axl.frames.list[0]!.import_ns, 0);
  assert.equal(r.axl.frames.list[1]!.submit_ns, 1010);
});

Deno.test("judge() reports a leaked buffer of a streamed trace as unreleased", () => {
  const facts = emptyTraceFacts();
  facts.join = new FrameJoin();
  for (let n = 1; n <= 50; n++) frame(facts.join, n, { release: n !== 17 });
  const r = judge(unitJudgeInput({ trace: facts, framesSubmitted: 50 }));
  assert.equal(r.axl.invariants.I3.status, "FAIL");
  assert.deepEqual(r.axl.invariants.I3.evidence.unreleased_handles, [17]);
  assert.ok(r.axl.diagnosis.some((d) => d.id === "releases-unbalanced"));
});
