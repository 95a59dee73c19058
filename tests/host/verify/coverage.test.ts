// I3 judges coverage, not exact counts: edited copies of the zero-copy run the verify device test
// captured in the VM (axl.ko + vivid; our tracepoints and the dma-buf kprobe events in one
// trace, see the fixtures README). One map (or import) more of a frame buffer is a note, one
// fewer, or a frame buffer never mapped, is a FAIL.
import assert from "node:assert/strict";
import { join } from "node:path";
import { judgeArtifacts } from "../../../lib/verify/replay.ts";
import type { VerifyResult } from "../../../lib/verify/schema.ts";
import { runDir } from "./_runs.ts";

const ZERO = runDir("zero-copy");

/** Judges the zero-copy run with its trace.txt lines passed through `edit`. */
async function judgeEdited(
  edit: (lines: string[]) => string[],
  evidence: "generic" | "auto",
): Promise<VerifyResult> {
  const dir = await Deno.makeTempDir({ prefix: "axl-coverage-" });
  try {
    for (
      const f of ["capture.json", "per_cpu_stats.txt", "bufinfo_samples.txt", "perf.script.gz"]
    ) {
      await Deno.copyFile(join(ZERO, f), join(dir, f));
    }
    const lines = (await Deno.readTextFile(join(ZERO, "trace.txt"))).split("\n");
    await Deno.writeTextFile(join(dir, "trace.txt"), edit(lines).join("\n"));
    return await judgeArtifacts(dir, { evidence });
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

/** Index of the first line matching `re` from `from` on; throws when there is none. */
function find(lines: string[], re: RegExp, from = 0): number {
  const i = lines.findIndex((l, n) => n >= from && re.test(l));
  if (i < 0) throw new Error(`no line matches ${re}`);
  return i;
}

/** The first map of inode `ino` by the NPU and the unmap of the same attachment after it. */
function mapPair(lines: string[], ino: number, from = 0): [number, number] {
  const m = find(lines, new RegExp(`axl_kp_map: .* dev="0000:00:02.0" .*ino=${ino} `), from);
  const att = / att=(\S+) /.exec(lines[m]!)![1]!;
  return [m, find(lines, new RegExp(`axl_kp_unmap: .* att=${att} .*ino=${ino} `), m)];
}

/** The first import of inode `ino` and the release of its handle after it. */
function importPair(lines: string[], ino: number, from = 0): [number, number] {
  const i = find(lines, new RegExp(`axl_dmabuf_import: handle=\\d+ inode=${ino} `), from);
  const handle = /handle=(\d+)/.exec(lines[i]!)![1]!;
  return [i, find(lines, new RegExp(`axl_dmabuf_release: handle=${handle} inode=${ino} `), i)];
}

/** `lines` with the lines at `drop` left out. */
const without = (lines: string[], drop: number[]) => lines.filter((_, n) => !drop.includes(n));

/** `lines` with the pair at [a, b] done once more right after b (same timestamps). */
function twice(lines: string[], [a, b]: [number, number]): string[] {
  return [...lines.slice(0, b + 1), lines[a]!, lines[b]!, ...lines.slice(b + 1)];
}

Deno.test("the zero-copy run maps each of its 60 frames once: I3 PASS from both sources", async () => {
  const generic = await judgeEdited((l) => l, "generic");
  assert.equal(generic.axl.invariants.I3.status, "PASS");
  assert.equal(generic.axl.invariants.I3.evidence.extra_maps, undefined);
  const axl = await judgeEdited((l) => l, "auto");
  assert.equal(axl.axl.invariants.I3.source, "axl-tracepoints");
  assert.equal(axl.axl.invariants.I3.status, "PASS");
  assert.equal(axl.axl.invariants.I3.evidence.extra_imports, undefined);
});

Deno.test("I3 (kprobes) passes one map more of a frame buffer, with a note counting it", async () => {
  const r = await judgeEdited((l) => twice(l, mapPair(l, 349)), "generic");
  const i3 = r.axl.invariants.I3;
  assert.equal(i3.status, "PASS", i3.summary);
  assert.equal(
    i3.summary,
    "0000:00:02.0 mapped frame buffers 61 times for 60 frames submitted: every frame covered, " +
      "1 more map of the same buffers; 61 unmaps (kprobes)",
  );
  assert.equal(i3.evidence.extra_maps, 1);
  assert.deepEqual((i3.evidence.maps_by_inode as Array<{ inode: number }>)[0], {
    inode: 349,
    maps: 16,
  });
  assert.ok(
    r.axl.notes.some((n) => /^I3: 0000:00:02.0 mapped the frame buffers 1 time more/.test(n)),
    JSON.stringify(r.axl.notes),
  );
  assert.equal(r.axl.status, "PASS");
  assert.ok(!r.axl.diagnosis.some((d) => d.invariant === "I3"));
});

Deno.test("I3 (kprobes) fails one frame's map dropped", async () => {
  const r = await judgeEdited((l) => without(l, mapPair(l, 349)), "generic");
  const i3 = r.axl.invariants.I3;
  assert.equal(i3.status, "FAIL");
  assert.equal(i3.summary, "0000:00:02.0 mapped frame buffers 59 times for 60 frames submitted");
  assert.deepEqual(r.axl.diagnosis.filter((d) => d.invariant === "I3").map((d) => d.id), [
    "maps-ne-frames",
  ]);
});

Deno.test("I3 (kprobes) fails a frame buffer never mapped, though the maps still number 60", async () => {
  // Every map of inode 349 (15 frames) gone, and 15 more of inode 350 in their place.
  const r = await judgeEdited((lines) => {
    let l = lines;
    for (let k = 0; k < 15; k++) l = without(l, mapPair(l, 349));
    for (let k = 0, from = 0; k < 15; k++) {
      const pair = mapPair(l, 350, from);
      l = twice(l, pair);
      from = pair[1] + 3;
    }
    return l;
  }, "generic");
  const i3 = r.axl.invariants.I3;
  assert.equal(i3.evidence.imports, 60, "as many maps as frames");
  assert.equal(i3.status, "FAIL", i3.summary);
  assert.equal(
    i3.summary,
    "0000:00:02.0 never mapped 1 of the 4 frame buffers the workload submitted (inode 349)",
  );
  assert.deepEqual(i3.evidence.never_mapped, [349]);
});

Deno.test("I3 (axl tracepoints) passes one import more of a frame buffer, with a note counting it", async () => {
  const r = await judgeEdited((l) => twice(l, importPair(l, 350)), "auto");
  const i3 = r.axl.invariants.I3;
  assert.equal(i3.source, "axl-tracepoints");
  assert.equal(i3.status, "PASS", i3.summary);
  assert.equal(
    i3.summary,
    "61 imports for 60 frames submitted: every frame covered, 1 more import; 61 releases",
  );
  assert.equal(i3.evidence.extra_imports, 1);
  assert.ok(r.axl.notes.some((n) => /^I3: 1 import more than frames submitted/.test(n)));
});

Deno.test("I3 (axl tracepoints) fails one frame's import dropped, and a job with no import in flight", async () => {
  const dropped = await judgeEdited((l) => without(l, importPair(l, 349)), "auto");
  assert.equal(dropped.axl.invariants.I3.status, "FAIL");
  assert.equal(dropped.axl.invariants.I3.summary, "59 imports for 60 frames submitted");
  // The same, with an import of another buffer done twice: 60 imports, one job uncovered.
  const moved = await judgeEdited((l) => {
    const x = without(l, importPair(l, 349));
    return twice(x, importPair(x, 350));
  }, "auto");
  const i3 = moved.axl.invariants.I3;
  assert.equal(i3.evidence.imports, 60);
  assert.equal(i3.status, "FAIL", i3.summary);
  assert.equal(
    i3.summary,
    "1 of 60 jobs were submitted on a buffer with no import of it in flight (60 imports for 60 frames)",
  );
});
