import assert from "node:assert/strict";
import { runScript } from "../../../lib/shell/script.ts";
import { Session } from "../../../lib/shell/session.ts";
import { Shell } from "../../../lib/shell/shell.ts";
import { FakeProducer } from "./_fakes.ts";

const SHELL = new URL("../../../tasks/commands/shell.ts", import.meta.url).pathname;

async function script(lines: string[], options: { keepGoing?: boolean; json?: boolean } = {}) {
  const out: string[] = [];
  const err: string[] = [];
  const session = new Session({ device: "/nonexistent/axl" });
  const shell = new Shell(session, { out: (t) => out.push(t), err: (t) => err.push(t) }, {
    json: options.json ?? false,
  });
  const summary = await runScript(shell, [lines.join("\n")], {
    ...options,
    echo: true,
    out: (t) => out.push(t),
    err: (t) => err.push(t),
    signal: new AbortController().signal,
  });
  return { summary, out, err, session };
}

Deno.test("runScript() runs inputs in order, joining continued lines, and exits 0", async () => {
  const { summary, out } = await script([
    "# comment",
    "const f = (x) => {",
    "  return x * 2",
    "}",
    "f(21)",
    "help \\",
    "  sleep",
  ]);
  assert.equal(summary.code, 0);
  assert.equal(summary.inputs, 3);
  assert.deepEqual(out.slice(0, 4), [
    "axl> # comment",
    "axl> const f = (x) => {\n...>   return x * 2\n...> }",
    "axl> f(21)",
    "42",
  ]);
  assert.match(out[5]!, /^sleep MS/);
});

Deno.test("runScript() stops at the first failure with its exit code", async () => {
  const { summary, out, err } = await script(["1", "import $5", "2"]);
  assert.equal(summary.code, 3);
  assert.equal(summary.firstFailureLine, 2);
  assert.equal(out.includes("axl> 2"), false);
  assert.match(err.at(-1)!, /stopped at line 2 \(exit status 3\)/);
});

Deno.test("runScript() --keep-going runs everything and keeps the first failure's code", async () => {
  const { summary, out, err } = await script(["throw new Error('x')", "import $5", "'end'"], {
    keepGoing: true,
  });
  assert.equal(summary.code, 1);
  assert.equal(summary.failed, 2);
  assert.ok(out.includes('"end"'));
  assert.match(err.at(-1)!, /2 input\(s\) failed, the first at line 1 \(exit status 1\)/);
});

Deno.test("runScript() releases what the session holds and 'exit N' sets the code", async () => {
  const log: string[] = [];
  const { summary } = await script([], {});
  assert.equal(summary.code, 0);
  const out: string[] = [];
  const session = new Session();
  session.scope.cam = new FakeProducer("cam", log);
  const shell = new Shell(session, { out: (t) => out.push(t), err: () => {} }, { json: true });
  const s = await runScript(shell, ["cam.name\nexit 5\n'never'"], {
    json: true,
    out: (t) => out.push(t),
    err: () => {},
    signal: new AbortController().signal,
  });
  assert.equal(s.code, 5);
  assert.deepEqual(log, ["close cam"]);
  const end = JSON.parse(out.at(-1)!);
  assert.equal(end.kind, "end");
  assert.equal(end.code, 5);
  assert.equal(end.released.length, 1);
  assert.equal(out.some((l) => l.includes("never")), false);
});

Deno.test("runScript() runs an unfinished last input so its error is reported", async () => {
  const { summary, err } = await script(["[1, 2,"]);
  assert.equal(summary.code, 3);
  assert.match(err[0]!, /^SyntaxError/);
});

async function cli(args: string[], stdin?: string) {
  const cmd = new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", SHELL, ...args],
    stdin: stdin === undefined ? "null" : "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1", AXL_DEVICE: "/nonexistent/axl" },
  });
  const child = cmd.spawn();
  if (stdin !== undefined) {
    const w = child.stdin.getWriter();
    await w.write(new TextEncoder().encode(stdin));
    await w.close();
  }
  const o = await child.output();
  const dec = new TextDecoder();
  return { code: o.code, stdout: dec.decode(o.stdout), stderr: dec.decode(o.stderr) };
}

Deno.test("axl shell reads piped stdin non-interactively and exits with the status", async () => {
  const ok = await cli(["--no-echo"], "const a = 20\na + 22\n");
  assert.equal(ok.code, 0, ok.stderr);
  assert.equal(ok.stdout, "42\n");
  const bad = await cli([], "info\n'not reached'\n");
  assert.equal(bad.code, 3);
  assert.match(bad.stderr, /device\.open\(\/nonexistent\/axl\) failed: ENOENT/);
  assert.equal(bad.stdout.includes("not reached"), false);
});

Deno.test("axl shell -f FILE --json prints one JSON object per input and an end record", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const file = `${dir}/s.axl`;
    await Deno.writeTextFile(file, "# test\nx = objects\nx.length\nnope\n");
    const r = await cli(["-f", file, "--json", "-k"]);
    assert.equal(r.code, 1);
    const lines = r.stdout.trim().split("\n").map((l) => JSON.parse(l));
    assert.deepEqual(lines.map((l) => l.kind), ["command", "js", "js", "end"]);
    assert.deepEqual(lines.map((l) => l.line), [2, 3, 4, undefined]);
    assert.deepEqual(lines[1].value, 0);
    assert.equal(lines[2].error.name, "ReferenceError");
    assert.deepEqual([lines[3].code, lines[3].failed, lines[3].firstFailureLine], [1, 1, 4]);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("axl shell rejects a missing file and stray arguments with exit status 3", async () => {
  const missing = await cli(["-f", "/nonexistent/session.axl"]);
  assert.equal(missing.code, 3);
  assert.match(missing.stderr, /cannot read \/nonexistent\/session\.axl/);
  const stray = await cli(["session.axl"]);
  assert.equal(stray.code, 3);
  assert.match(stray.stderr, /needs -f/);
});
