// A workload that fails before its first frame gets no verdict: the capture of a real run of
// `axl verify -- /nonexistent/command` in the x86_64 guest
// (tests/fixtures/trace/6.12-axl/workload-not-found), replayed.
import assert from "node:assert/strict";
import { replayVerify } from "../../../lib/verify/run.ts";
import { WorkloadFailedEarlyError } from "../../../lib/verify/story.ts";

const DIR = new URL("../../fixtures/trace/6.12-axl/workload-not-found", import.meta.url).pathname;

Deno.test("replayVerify() gives no verdict for a command that did not exist, with its stderr", async () => {
  let caught: unknown;
  try {
    await replayVerify(DIR, Deno.makeTempDirSync());
  } catch (x) {
    caught = x;
  }
  assert.ok(caught instanceof WorkloadFailedEarlyError, String(caught));
  assert.equal(caught.exitKind, "cannot-run");
  assert.equal(caught.exitCode, 127);
  assert.match(caught.message, /^the workload failed before its first frame \(exit code 127\)/);
  assert.match(caught.message, /exec: \/nonexistent\/command: not found/);
});

Deno.test("verify --replay of that capture exits 3 with the workload's stderr", async () => {
  const cli = new URL("../../../tasks/axl.ts", import.meta.url).pathname;
  const r = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "-A",
      "--no-check",
      cli,
      "verify",
      "--replay",
      DIR,
      "--artifacts",
      Deno.makeTempDirSync(),
    ],
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const stderr = new TextDecoder().decode(r.stderr);
  assert.equal(r.code, 3, stderr);
  assert.match(stderr, /no verdict: \/nonexistent\/command/);
  assert.match(stderr, /not found/);
  assert.doesNotMatch(new TextDecoder().decode(r.stdout), /^(PASS|FAIL|INCONCLUSIVE)/m);
});
