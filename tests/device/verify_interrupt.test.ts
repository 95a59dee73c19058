// Ctrl-C during `axl verify`: the first SIGINT stops the frames; the trace is drained, the
// run judged on what was captured and written, tracefs restored, and the exit status is the
// verdict's, not 130.
import assert from "node:assert/strict";
import { tracefsState } from "./verify/_tracefs_state.ts";

const results = Deno.env.get("AXL_RESULTS") ??
  await Deno.makeTempDir({ prefix: "axl-verify-interrupt-" });

Deno.test("axl verify: SIGINT mid-run stops the frames, and the run is drained and judged", async () => {
  const before = tracefsState();
  const dir = `${results}/verify-interrupted`;
  const child = new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-check",
      "--allow-all",
      new URL("../../tasks/axl.ts", import.meta.url).pathname,
      "verify",
      "--frames",
      "1000000",
      "--no-perf",
      "--artifacts",
      dir,
    ],
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  const stdout = new Response(child.stdout).text();
  const stderr = new Response(child.stderr).text();
  // Frames are flowing once the drained trace has axl events in it.
  const deadline = Date.now() + 300_000;
  while (Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 500));
    const text = await Deno.readTextFile(`${dir}/trace.txt`).catch(() => "");
    if ((text.match(/axl_job_submit/g) ?? []).length >= 20) break;
  }
  child.kill("SIGINT");
  const status = await child.status;
  const out = await stdout, err = await stderr;
  assert.notEqual(status.code, 130, `judged, not just exited\n${err}`);
  assert.notEqual(status.code, 3, `could not run\n${out}\n${err}`);
  const result = JSON.parse(await Deno.readTextFile(`${dir}/result.json`));
  assert.ok(
    result.axl.notes.some((n: string) => n.includes("stopped early by SIGINT")),
    JSON.stringify(result.axl.notes),
  );
  assert.equal(result.axl.trace.overrun, 0);
  assert.ok(result.detail.imports >= 20, `${result.detail.imports} imports judged`);
  assert.deepEqual(tracefsState(), before, "tracefs left as found");
});
