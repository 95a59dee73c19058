// The Perfetto trace of a judged run.
import assert from "node:assert/strict";
import { perfettoTrace } from "../../../../lib/verify/report/perfetto.ts";
import { judgedRun } from "../_runs.ts";

Deno.test("perfettoTrace() writes one frame slice and its stage slices per traced frame", async () => {
  const r = await judgedRun("zero-copy");
  const doc = perfettoTrace(r);
  const frames = doc.traceEvents.filter((e) => e.cat === "frame");
  assert.equal(frames.length, r.axl.frames.list.length);
  assert.ok(doc.traceEvents.filter((e) => e.cat === "stage").length >= frames.length * 2);
  for (const e of doc.traceEvents) if (e.ph === "X") assert.ok(e.dur! > 0 && e.ts >= 0);
  assert.ok(doc.traceEvents.some((e) => e.ph === "M" && e.name === "process_name"));
  JSON.parse(JSON.stringify(doc));
});
