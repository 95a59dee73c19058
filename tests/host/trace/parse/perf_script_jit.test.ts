import assert from "node:assert/strict";
import {
  parsePerfMap,
  PerfMapIndex,
  resolvePerfMapFrames,
} from "../../../../lib/trace/parse/perf_script_jit.ts";
import { parsePerfScript, summarizePerf } from "../../../../lib/trace/parse/perf_script.ts";
import { FIXTURES } from "../_fixtures.ts";

/** perf-jit-live: one recording read live and after the run, and V8's final perf map. */
async function jitLive() {
  const fixture = (_: string, name: string) => new URL(name, FIXTURES).pathname;
  const read = async (name: string) =>
    await new Response(
      (await Deno.open(fixture("6.12-std", `perf-jit-live/${name}`))).readable.pipeThrough(
        new DecompressionStream("gzip"),
      ),
    ).text();
  const pid = (await Deno.readTextFile(fixture("6.12-std", "perf-jit-live/pid"))).trim();
  return {
    pid: Number(pid),
    path: `/tmp/perf-${pid}.map`,
    live: await read("live.perf.script.gz"),
    after: await read("after.perf.script.gz"),
    map: await read(`perf-${pid}.map.gz`),
  };
}

Deno.test("resolvePerfMapFrames() turns perf script's live output into what it prints of the finished data file", async () => {
  const f = await jitLive();
  // What the fixture shows: live, perf script named none of the code compiled after it met
  // the process.
  const unknown = (t: string) => (t.match(/ \[unknown\] \(\/tmp\/perf-\d+\.map\)$/gm) ?? []).length;
  assert.notEqual(f.live, f.after);
  assert.ok(unknown(f.live) > 100, `${unknown(f.live)} unnamed JIT frames live`);
  assert.equal(unknown(f.after), 0);
  const read: string[] = [];
  const r = resolvePerfMapFrames(f.live, (p) => {
    read.push(p);
    return p === f.path ? f.map : undefined;
  });
  assert.equal(r.ambiguous, undefined);
  assert.deepEqual(read, [f.path], "the map is read once");
  assert.equal(r.renamed, unknown(f.live));
  assert.ok(r.text === f.after, "the live output named again is byte for byte perf script's");
  // and so is its fold: the judge's perf evidence is the same both ways
  const fold = async (t: string) =>
    await summarizePerf(parsePerfScript([t], "perf.script"), { pids: [f.pid] });
  assert.deepEqual(await fold(r.text), await fold(f.after));
  assert.notDeepEqual(await fold(f.live), await fold(f.after));
});

Deno.test("resolvePerfMapFrames() leaves output without JIT frames as it is, and names nothing from a map that is gone, unless perf named it live", () => {
  const text = "sh 5/5 1.000000: 1 cpu-clock: \n\t    61e2 [unknown] (/usr/bin/dash)\n\n" +
    "deno 7/7 1.000001: 1 cpu-clock: \n\t    1010 JS:*a (/tmp/perf-7.map)\n\n";
  const none = resolvePerfMapFrames(text.split("\n\n")[0]!, () => "");
  assert.equal(none.frames, 0);
  const unnamed = text.replace("JS:*a", "[unknown]");
  const gone = resolvePerfMapFrames(unnamed, () => undefined);
  assert.equal(gone.renamed, 0);
  assert.equal(gone.text, unnamed);
  // perf named it live, and the map read now does not hold it: not the file perf read
  const other = resolvePerfMapFrames(text, () => undefined);
  assert.match(other.ambiguous ?? "", /0x1010 was named JS:\*a and is in no entry of the map now/);
});

Deno.test("parsePerfMap() reads a map as perf's dso__load_perf_map() does", () => {
  const entries = parsePerfMap(
    "1000 10 JS:*a file:///x.ts:1:1\n" +
      "2000 0 JS:zero\n" + // size 0: holds its start only
      "3000 10\n" + // no name: skipped
      "zz\n" + // too short: skipped
      "4000 20 JS:*last-with-no-newline",
  );
  assert.deepEqual(entries, [
    { start: 0x1000n, end: 0x1010n, name: "JS:*a file:///x.ts:1:1" },
    { start: 0x2000n, end: 0x2001n, name: "JS:zero" },
    // perf drops the last character of every line as its newline
    { start: 0x4000n, end: 0x4020n, name: "JS:*last-with-no-newlin" },
  ]);
});

Deno.test("PerfMapIndex.lookup() answers as perf does, and says when overlapping entries leave the answer to perf's tree", () => {
  const map = new PerfMapIndex(parsePerfMap(
    "1000 100 JS:*a\n2000 0 JS:zero\n5000 100 JS:*old\n5080 100 JS:*new\n9000 10 JS:*z\n",
  ));
  assert.deepEqual(map.lookup(0x1000n), { name: "JS:*a" });
  assert.deepEqual(map.lookup(0x10ffn), { name: "JS:*a" });
  assert.deepEqual(map.lookup(0x1100n), { unknown: true });
  assert.deepEqual(map.lookup(0x2000n), { name: "JS:zero" });
  assert.deepEqual(map.lookup(0x2001n), { unknown: true });
  assert.deepEqual(map.lookup(0xfffn), { unknown: true });
  assert.deepEqual(map.lookup(0x9005n), { name: "JS:*z" });
  // V8 reused addresses: both hold 0x5090, and one of them alone 0x5010
  assert.match((map.lookup(0x5090n) as { ambiguous: string }).ambiguous, /2 overlapping/);
  assert.match((map.lookup(0x5010n) as { ambiguous: string }).ambiguous, /JS:\*old/);
  const r = resolvePerfMapFrames(
    "deno 7/7 1.000000: 1 cpu-clock: \n\t    5090 [unknown] (/tmp/perf-7.map)\n\n",
    () => "5000 100 JS:*old\n5080 100 JS:*new\n",
  );
  assert.match(r.ambiguous ?? "", /^\/tmp\/perf-7\.map: 0x5090 lies in 2 overlapping entries/);
});
