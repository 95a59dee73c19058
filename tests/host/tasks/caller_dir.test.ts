// `deno task` runs in the project root; the paths a user gives are relative to where they
// typed the command (INIT_CWD), for every task that takes one.
import assert from "node:assert/strict";
import { dirname } from "node:path";

const root = new URL("../../..", import.meta.url).pathname;

/**
 * The environment of a user's shell: no INIT_CWD (`deno task` keeps one it inherits, and this
 * test may itself run under `deno task test`), and this `deno` first on PATH, which
 * scripts/verify.sh runs.
 */
function callerEnv(): Record<string, string> {
  const env = Deno.env.toObject();
  delete env.INIT_CWD;
  return { ...env, NO_COLOR: "1", PATH: `${dirname(Deno.execPath())}:${env.PATH ?? ""}` };
}

async function task(cwd: string, ...args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["task", "--quiet", "--config", `${root}deno.json`, ...args],
    cwd,
    env: callerEnv(),
    clearEnv: true,
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, out: text.decode(out.stdout), err: text.decode(out.stderr) };
}

Deno.test("deno task shell -f FILE reads FILE from the caller's directory", async () => {
  const here = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${here}/session.axl`, "help heaps\n");
    const r = await task(here, "shell", "-f", "session.axl");
    assert.equal(r.code, 0, r.err);
    assert.match(r.out, /heaps/);
  } finally {
    await Deno.remove(here, { recursive: true });
  }
});

Deno.test("deno task verify --replay DIR --artifacts OUT uses the caller's directory for both", async () => {
  const here = await Deno.makeTempDir();
  try {
    const saved = new URL("../../fixtures/trace/6.12-axl/zero-copy", import.meta.url).pathname;
    await Deno.symlink(saved, `${here}/saved`);
    const r = await task(here, "verify", "--replay", "saved", "--artifacts", "out");
    assert.equal(r.code, 0, r.err + r.out);
    const result = JSON.parse(await Deno.readTextFile(`${here}/out/result.json`));
    assert.equal(result.axl.status, "PASS");
  } finally {
    await Deno.remove(here, { recursive: true });
  }
});
