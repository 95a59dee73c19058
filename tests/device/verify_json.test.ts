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
