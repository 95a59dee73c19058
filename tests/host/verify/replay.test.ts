import assert from "node:assert/strict";
import type { BufinfoSummary } from "../../../lib/trace/parse/bufinfo_summary.ts";
import { judgeArtifacts, readCapture } from "../../../lib/verify/replay.ts";
import { asSavedBeforeChain, judgedRun, type RunCase, runDir } from "./_runs.ts";

// The committed result.json of each captured run was written by the live command in the VM:
// judging the same artifacts again must give it back field for field.
for (const name of ["zero-copy", "copy", "tiny-buffer"] as RunCase[]) {
  Deno.test(`judgeArtifacts() gives back the result.json the ${name} run wrote live`, async () => {
    const saved = JSON.parse(await Deno.readTextFile(`${runDir(name)}/result.json`));
    assert.deepEqual(asSavedBeforeChain(await judgedRun(name)), saved);
  });
}

Deno.test("judgeArtifacts() judges a capture in memory as it judges its directory", async () => {
  const dir = runDir("zero-copy");
  const capture = await readCapture(dir);
  assert.deepEqual(await judgeArtifacts(capture), await judgeArtifacts(dir));
});

Deno.test("judgeArtifacts() takes bufinfo and loss from a live capture, not from the files", async () => {
  const capture = await readCapture(runDir("zero-copy"));
  const sampled = capture.bufinfo as BufinfoSummary;
  const { loss: _, ...noLoss } = capture;
  const r = await judgeArtifacts({
    ...noLoss,
    bufinfo: { ...sampled, errors: ["sample 7: read bufinfo: Device or resource busy"] },
  });
  assert.deepEqual(r.axl.bufinfo.errors, ["sample 7: read bufinfo: Device or resource busy"]);
  assert.equal(r.axl.invariants.I1.evidence.sample_errors, 1);
  assert.ok(r.axl.notes.some((n) => n.startsWith("per_cpu stats could not be read")));
});
