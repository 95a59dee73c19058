// `axl verify --job-timeout`: a bound axl's engine would refuse on every submit stops the run
// before it changes anything (exit 3, the option named), and one it takes is what every job
// gets: against an engine made slower than it (latency_us), the builtin's jobs time out.
import assert from "node:assert/strict";
import { MAX_SUBMIT_TIMEOUT_MS } from "../../lib/core/device.ts";
import { tracefsState } from "./verify/_tracefs_state.ts";
import { withModuleParam } from "./_module_param.ts";

const AXL = new URL("../../tasks/axl.ts", import.meta.url).pathname;
const results = Deno.env.get("AXL_RESULTS") ??
  await Deno.makeTempDir({ prefix: "axl-verify-job-timeout-" });

async function verify(...args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-check", "--allow-all", AXL, "verify", ...args],
    stdin: "null",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, stdout: dec.decode(out.stdout), stderr: dec.decode(out.stderr) };
}

Deno.test("axl verify --job-timeout above the engine's bound: exit 3 before tracefs is touched", async () => {
  const before = tracefsState();
  const dir = `${results}/verify-job-timeout-refused`;
  const r = await verify("--job-timeout", String(MAX_SUBMIT_TIMEOUT_MS + 1), "--artifacts", dir);
  assert.equal(r.code, 3, `${r.stdout}\n${r.stderr}`);
  assert.match(r.stderr, new RegExp(`--job-timeout ${MAX_SUBMIT_TIMEOUT_MS + 1} is more than`));
  assert.deepEqual(tracefsState(), before, "tracefs left as found");
  assert.equal(
    await Deno.stat(`${dir}/result.json`).then(() => true, () => false),
    false,
    "no result.json for a run that did not start",
  );
});

Deno.test("axl verify --job-timeout reaches every submit: 100 ms against a 300 ms engine", async () => {
  const dir = `${results}/verify-job-timeout`;
  const r = await withModuleParam(
    "latency_us",
    300_000,
    () =>
      verify(
        "--job-timeout",
        "100",
        "--frames",
        "3",
        "--no-perf",
        "--no-graph",
        "--artifacts",
        dir,
      ),
  );
  assert.notEqual(r.code, 3, `could not run\n${r.stdout}\n${r.stderr}`);
  const workload = JSON.parse(await Deno.readTextFile(`${dir}/result.json`)).axl.workload;
  assert.notEqual(workload.exit_code, 0, JSON.stringify(workload));
  assert.match(workload.stderr_tail ?? "", /ETIMEDOUT/, JSON.stringify(workload));
});
