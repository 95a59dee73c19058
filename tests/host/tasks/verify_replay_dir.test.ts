// `axl verify --replay DIR` only reads DIR: its verdict goes beside DIR (or to --artifacts
// elsewhere), never into DIR or inside it; --json prints one JSON document on stdout.
import assert from "node:assert/strict";
import { cp } from "node:fs/promises";

const cli = new URL("../../../tasks/axl.ts", import.meta.url).pathname;
const fixture = new URL("../../fixtures/trace/6.12-axl/zero-copy", import.meta.url).pathname;

async function axl(cwd: string, ...args: string[]) {
  const env = Deno.env.toObject();
  delete env.INIT_CWD;
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-check", "--allow-all", cli, ...args],
    cwd,
    clearEnv: true,
    env: { ...env, NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const text = new TextDecoder();
  return { code: out.code, out: text.decode(out.stdout), err: text.decode(out.stderr) };
}

/** Every file under `dir` with its bytes, to compare before and after. */
async function snapshot(dir: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  for await (const e of Deno.readDir(dir)) {
    const path = `${dir}/${e.name}`;
    files.set(e.name, e.isDirectory ? "dir" : (await Deno.readTextFile(path)));
  }
  return files;
}

/** A copy of a captured run in a directory of its own: `run` holds the artifacts. */
async function withRun(fn: (here: string) => Promise<void>) {
  const here = await Deno.makeTempDir({ prefix: "axl-replay-dir-" });
  try {
    await cp(fixture, `${here}/run`, { recursive: true });
    await fn(here);
  } finally {
    await Deno.remove(here, { recursive: true });
  }
}

Deno.test("verify --replay DIR without --artifacts writes DIR-replay beside DIR, never DIR", async () => {
  await withRun(async (here) => {
    const before = await snapshot(`${here}/run`);
    const r = await axl(here, "verify", "--replay", "run", "--threshold", "0.1");
    // At 0.1 % the run's own 0.18 % of _copy_to_user fails I4: a verdict other than the saved one.
    assert.equal(r.code, 1, r.err + r.out);
    assert.deepEqual(await snapshot(`${here}/run`), before, "the replayed directory is unchanged");
    const result = JSON.parse(await Deno.readTextFile(`${here}/run-replay/result.json`));
    assert.equal(result.axl.invariants.I4.evidence.threshold_percent, 0.1);
    await Deno.stat(`${here}/run-replay/report.html`);
    assert.match(r.out, /\(artifacts: run-replay; report: /);
    // From inside DIR, `.` is judged into ../run-replay, beside it too.
    const here2 = await axl(`${here}/run`, "verify", "--replay", ".", "--json");
    assert.equal(here2.code, 0, here2.err);
    assert.deepEqual(await snapshot(`${here}/run`), before);
    assert.equal(
      JSON.parse(await Deno.readTextFile(`${here}/run-replay/result.json`)).axl.status,
      "PASS",
    );
  });
});

Deno.test("verify --replay DIR refuses --artifacts DIR or inside it, naming a directory to use", async () => {
  await withRun(async (here) => {
    await Deno.symlink(`${here}/run`, `${here}/link`);
    const before = await snapshot(`${here}/run`);
    for (const artifacts of ["run", "run/", "run/sub", `${here}/run/a/b`, "link", "link/x"]) {
      const r = await axl(here, "verify", "--replay", "run", "--artifacts", artifacts);
      assert.equal(r.code, 3, `${artifacts}: ${r.err}`);
      assert.equal(r.out, "", artifacts);
      assert.match(
        r.err,
        /^axl verify: --artifacts .* the directory --replay reads \(run\), which a replay never writes: give another, e\.g\. --artifacts run-replay\nTry 'axl verify --help'\.\n$/,
      );
    }
    assert.deepEqual(await snapshot(`${here}/run`), before);
  });
});

Deno.test("verify --replay --artifacts PATH that cannot be written blames the artifacts directory", async () => {
  await withRun(async (here) => {
    const r = await axl(here, "verify", "--replay", "run", "--artifacts", "/proc/nope");
    assert.equal(r.code, 3);
    assert.match(
      r.err,
      /^axl verify: cannot write the artifacts directory \/proc\/nope: .*give --artifacts a directory you can write/,
    );
    assert.doesNotMatch(r.err, /not a verify artifacts directory/);
  });
});

Deno.test("verify --replay --json prints exactly one JSON document on stdout, the rest on stderr", async () => {
  await withRun(async (here) => {
    const r = await axl(here, "verify", "--replay", "run", "--json", "--artifacts", "out");
    assert.equal(r.code, 0, r.err);
    const result = JSON.parse(r.out);
    assert.equal(result.axl.status, "PASS");
    assert.match(r.err, /^axl verify: replay of run: /);
  });
});

Deno.test("verify --json (live) keeps stdout for the JSON document alone", async () => {
  await withRun(async (here) => {
    // A command workload: where tracefs or root is missing the run cannot start (exit 3) and
    // stdout stays empty; where it can, stdout is result.json.
    const r = await axl(here, "verify", "--json", "--no-perf", "--artifacts", "out", "--", "true");
    assert.match(r.err, /^axl verify: command: true$/m, "the headline is on stderr");
    if (r.code === 3) assert.equal(r.out, "", r.err);
    else assert.equal(JSON.parse(r.out).axl.workload.kind, "command");
  });
});

Deno.test("verify --replay of artifacts without their perf script names perf.script", async () => {
  await withRun(async (here) => {
    await Deno.remove(`${here}/run/perf.script.gz`);
    const r = await axl(here, "verify", "--replay", "run", "--artifacts", "out");
    assert.equal(r.code, 3);
    assert.match(r.err, /no perf\.script \(nor perf\.script\.gz\) in run\b/);
    assert.doesNotMatch(r.err, /open '.*perf\.script\.gz'/);
  });
});
