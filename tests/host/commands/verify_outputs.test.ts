// `axl verify --replay DIR --junit FILE --metrics FILE` end to end: the saved copy-control
// run from the VM rig judged again, both files written and checked by xmllint (JUnit
// schema) and promtool; a file that cannot be written exits 3 naming the option.
import assert from "node:assert/strict";
import { command } from "../../../tasks/commands/verify.ts";
import { checkMetrics, validateJunit } from "../verify/report/_validators.ts";

const saved = new URL("../../fixtures/trace/6.12-axl/copy", import.meta.url).pathname;

async function captured(fn: () => Promise<number>): Promise<{ code: number; out: string }> {
  const lines: string[] = [];
  const err = console.error, log = console.log;
  console.error = (...a: unknown[]) => lines.push(a.join(" "));
  console.log = (...a: unknown[]) => lines.push(a.join(" "));
  try {
    return { code: await fn(), out: lines.join("\n") };
  } finally {
    console.error = err;
    console.log = log;
  }
}

Deno.test("verify --replay --junit --metrics writes both files, valid, beside the verdict", async () => {
  const dir = await Deno.makeTempDir({ prefix: "axl-outputs-" });
  try {
    const junit = `${dir}/verify.xml`, metrics = `${dir}/axl_verify.prom`;
    const r = await captured(() =>
      command.run([
        "--replay",
        saved,
        "--artifacts",
        `${dir}/artifacts`,
        "--junit",
        junit,
        "--metrics",
        metrics,
      ])
    );
    assert.equal(r.code, 1, r.out);
    assert.match(r.out, new RegExp(`junit: ${junit}\nmetrics: ${metrics}\nFAIL `));
    const xml = await Deno.readTextFile(junit);
    const valid = await validateJunit(xml);
    assert.equal(valid.code, 0, valid.output);
    assert.match(xml, /tests="4" failures="2" errors="1"/);
    const text = await Deno.readTextFile(metrics);
    const checked = await checkMetrics(text);
    assert.equal(checked.code, 0, checked.output);
    assert.match(text, /axl_verify_status\{[^}]*status="FAIL"\} 1/);
    assert.equal((await Deno.stat(metrics)).mode! & 0o777, 0o644);
    assert.deepEqual([...Deno.readDirSync(dir)].map((e) => e.name).sort(), [
      "artifacts",
      "axl_verify.prom",
      "verify.xml",
    ]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("verify --metrics into a missing directory exits 3 naming the option", async () => {
  const dir = await Deno.makeTempDir({ prefix: "axl-outputs-" });
  try {
    const r = await captured(() =>
      command.run([
        "--replay",
        saved,
        "--artifacts",
        `${dir}/artifacts`,
        "--metrics",
        `${dir}/no/such/dir/axl_verify.prom`,
      ])
    );
    assert.equal(r.code, 3, r.out);
    assert.match(r.out, /axl verify: cannot write --metrics .*no\/such\/dir\/axl_verify\.prom: /);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
