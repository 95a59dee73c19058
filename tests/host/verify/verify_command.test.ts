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
