import assert from "node:assert/strict";
import { command } from "../../../tasks/commands/verify.ts";

async function quiet(fn: () => Promise<number>): Promise<number> {
  const err = console.error, log = console.log;
  console.error = () => {};
  console.log = () => {};
  try {
    return await fn();
  } finally {
    console.error = err;
    console.log = log;
  }
}

Deno.test("verify --help documents every exit code", () => {
  for (const code of ["0 PASS", "1 FAIL", "2 INCONCLUSIVE", "3 could not run"]) {
    assert.ok(command.help.includes(code), code);
  }
});

Deno.test("verify exits 3 on bad options without touching tracefs", async () => {
  assert.equal(await quiet(() => command.run(["--frames", "0"])), 3);
  assert.equal(await quiet(() => command.run(["--mode", "fast"])), 3);
  assert.equal(await quiet(() => command.run(["--threshold", "0"])), 3);
  assert.equal(await quiet(() => command.run(["--config", "/nonexistent/axl.json"])), 3);
  assert.equal(await quiet(() => command.run(["--config", "x", "--pid", "1"])), 3);
  assert.equal(await quiet(() => command.run(["--evidence", "tracepoints"])), 3);
  assert.equal(await quiet(() => command.run(["--pid", "1", "--importer", "two words"])), 3);
  const cfg = await Deno.makeTempFile({ suffix: ".json" });
  await Deno.writeTextFile(cfg, JSON.stringify({ command: [] }));
  assert.equal(await quiet(() => command.run(["--config", cfg])), 3);
  await Deno.remove(cfg);
});

Deno.test("verify --replay re-judges saved artifacts with other options and leaves them as they were", async () => {
  const saved = new URL("../../fixtures/trace/6.12-axl/copy", import.meta.url).pathname;
  const before = [...Deno.readDirSync(saved)].map((e) => e.name).sort();
  const out = await Deno.makeTempDir();
  try {
    const judged = async (...opts: string[]) => {
      const dir = `${out}/${opts.join("_")}`;
      const code = await quiet(() => command.run(["--replay", saved, "--artifacts", dir, ...opts]));
      const result = JSON.parse(await Deno.readTextFile(`${dir}/result.json`));
      return { code, i4: result.axl.invariants.I4.status, notes: result.axl.notes.join("\n") };
    };
    // The copy control fails I4 at the default 1 %; at 50 % the copy (~3.5 %) is below it.
    const strict = await judged();
    assert.deepEqual([strict.code, strict.i4], [1, "FAIL"]);
    assert.match(strict.notes, /re-judged from the saved artifacts/);
    const lax = await judged("--threshold", "50");
    assert.equal(lax.i4, "PASS");
    assert.equal(lax.code, 1, "I1 still fails: the copy control shares no frame");
    assert.deepEqual([...Deno.readDirSync(saved)].map((e) => e.name).sort(), before);
  } finally {
    await Deno.remove(out, { recursive: true });
  }
});

Deno.test("verify --replay of a directory without a capture exits 3 saying so", async () => {
  const empty = await Deno.makeTempDir();
  const err = console.error, log = console.log;
  let said = "";
  console.error = (m: unknown) => said += `${m}\n`;
  console.log = () => {};
  try {
    assert.equal(await command.run(["--replay", empty]), 3);
    assert.match(said, /cannot replay: .* is not a verify artifacts directory/);
    assert.equal(await command.run(["--replay", empty, "--pid", "1"]), 3);
    assert.match(said, /--replay judges saved artifacts; it takes no workload \(pid\)/);
  } finally {
    console.error = err;
    console.log = log;
    await Deno.remove(empty, { recursive: true });
  }
});
