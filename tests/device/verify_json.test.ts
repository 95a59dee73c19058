// `axl verify --json` on the device: stdout is exactly one JSON document (result.json), the
// headline and everything else go to stderr. A short builtin run without perf or
// function_graph keeps it cheap.
import assert from "node:assert/strict";

const AXL = new URL("../../tasks/axl.ts", import.meta.url).pathname;
const results = Deno.env.get("AXL_RESULTS") ??
  await Deno.makeTempDir({ prefix: "axl-verify-json-" });

Deno.test("axl verify --json prints one JSON document on stdout and the headline on stderr", async () => {
  const dir = `${results}/verify-json`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-check",
      "--allow-all",
      AXL,
      "verify",
      "--json",
      "--frames",
      "5",
      "--no-perf",
      "--no-graph",
      "--artifacts",
      dir,
    ],
    stdin: "null",
  }).output();
  const dec = new TextDecoder();
  const [stdout, stderr] = [dec.decode(out.stdout), dec.decode(out.stderr)];
  assert.ok(out.code <= 2, `verify could not run (${out.code}): ${stderr}`);
  const result = JSON.parse(stdout);
  assert.deepEqual(result, JSON.parse(await Deno.readTextFile(`${dir}/result.json`)));
  assert.match(stderr, /^axl verify: /m, "the headline is on stderr");
});

Deno.test("axl verify in the VM rig names the host's artifacts directory that scripts/verify.sh gives it", async () => {
  const dir = `${results}/verify-shown`;
  const out = await new Deno.Command(Deno.execPath(), {
    args: [
      "run",
      "--no-check",
      "--allow-all",
      AXL,
      "verify",
      "--frames",
      "5",
      "--no-perf",
      "--no-graph",
      "--artifacts",
      dir,
    ],
    env: { AXL_VERIFY_ARTIFACTS_AS: "artifacts/verify" },
    stdin: "null",
  }).output();
  const stdout = new TextDecoder().decode(out.stdout);
  assert.ok(
    out.code <= 2,
    `verify could not run (${out.code}): ${new TextDecoder().decode(out.stderr)}`,
  );
  const last = stdout.trimEnd().split("\n").pop()!;
  assert.match(
    last,
    /^(PASS|FAIL|INCONCLUSIVE|SKIP) +\(artifacts: artifacts\/verify; report: artifacts\/verify\/report\.html\)$/,
  );
  assert.ok(!stdout.includes(dir), "the guest's own directory is not shown");
});
