// A workload that fails before its first frame gets no verdict: the capture of a real run of
// `axl verify -- /nonexistent/command` in the x86_64 guest
// (tests/fixtures/trace/6.12-axl/workload-not-found), replayed.
import assert from "node:assert/strict";
import { replayVerify } from "../../../lib/verify/run.ts";
import { WorkloadFailedEarlyError } from "../../../lib/verify/story.ts";
import { DEFAULT_ACCEPTED_EXPORTERS } from "../../../lib/verify/judge.ts";
import { verdictLines } from "../../../lib/commands/verify.ts";

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

// camera ! videoscale ! kmssink made its 20 frames, then the shell around it exited 1
// (tests/fixtures/trace/6.12-gst/vivid-scale-kms-fails-after).
const LATE = new URL("../../fixtures/trace/6.12-gst/vivid-scale-kms-fails-after", import.meta.url)
  .pathname;

Deno.test("replayVerify() keeps the verdict of a workload that failed after its frames, the failure in its first line", async () => {
  const { result } = await replayVerify(LATE, Deno.makeTempDirSync(), {
    evidence: "generic",
    acceptedExporters: [...DEFAULT_ACCEPTED_EXPORTERS, "videobuf2_dma_contig"],
  });
  assert.equal(result.axl.status, "FAIL");
  assert.equal(result.axl.workload.exit_code, 1);
  const first = verdictLines(result)[0]!;
  assert.match(first, /^FAIL: videoscale0:src pushed a dma-buf/);
  assert.match(
    first,
    /; the workload failed after 20 buffers from v4l2src0:src \(exit code 1: after the frames: upload failed\), so the verdict covers only the frames it made$/,
  );
});
