import assert from "node:assert/strict";
import { judgedRun, type RunCase, runDir } from "./_runs.ts";

// The committed result.json of each captured run was written by the live command in the VM:
// judging the same artifacts again must give it back field for field.
for (const name of ["zero-copy", "copy", "tiny-buffer"] as RunCase[]) {
  Deno.test(`judgeArtifacts() gives back the result.json the ${name} run wrote live`, async () => {
    const saved = JSON.parse(await Deno.readTextFile(`${runDir(name)}/result.json`));
    assert.deepEqual(JSON.parse(JSON.stringify(await judgedRun(name))), saved);
  });
}
