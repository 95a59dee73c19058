// `axl run` exits with the codes its --help lists: a DMA heap this machine lacks is
// "could not run" (3), like a missing device, not a failed frame (1).
import assert from "node:assert/strict";
import { main } from "../../../tasks/axl.ts";
import { command } from "../../../tasks/commands/run.ts";
import { capture } from "./_capture.ts";

Deno.test("axl run --frames 3 on a missing heap exits 3, as its help says", async () => {
  assert.match(
    command.help,
    /^ +3 could not run \(no device, no heap: the message says what to do\)$/m,
  );
  const r = await capture(() => main(["run", "--frames", "3", "--heap", "axl-test-no-such-heap"]));
  assert.match(
    r.err,
    /^axl run: heap\.alloc\(axl-test-no-such-heap, \d+ bytes\) failed: ENOENT \(no such DMA heap: /,
  );
  assert.equal(r.code, 3, r.err);
});
