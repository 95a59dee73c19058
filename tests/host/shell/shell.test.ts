import assert from "node:assert/strict";
import { CancelledError } from "../../../lib/shell/abortable.ts";
import { UsageError } from "../../../lib/commands/spec.ts";
import { Session } from "../../../lib/shell/session.ts";
import { classify, needsMore, Shell } from "../../../lib/shell/shell.ts";
import { exitCodeOf } from "../../../lib/commands/exit_code.ts";
import { AxlError } from "../../../lib/core/errors.ts";

function shellWithOutput(json = false) {
  const out: string[] = [];
  const err: string[] = [];
  const shell = new Shell(new Session({ device: "/nonexistent/axl" }), {
    out: (t) => out.push(t),
    err: (t) => err.push(t),
  }, { json });
  return { shell, out, err, signal: new AbortController().signal };
}

Deno.test("classify() prefers commands, binds 'name = command', and lets parentheses force JS", () => {
  assert.equal(classify("  ").kind, "empty");
  assert.equal(classify("# a comment").kind, "empty");
  const c = classify("frame = alloc NV12 640x480");
  assert.ok(c.kind === "command" && c.command.name === "alloc" && c.bindTo === "frame");
  assert.equal(c.kind === "command" && c.rest, "NV12 640x480");
  assert.equal(classify("ls").kind, "command");
  assert.equal(classify("quit").kind === "command", true);
  assert.equal(classify("(ls)").kind, "js");
  assert.equal(classify("wait(3)").kind, "js");
  assert.equal(classify("x = info.engine").kind, "js");
  assert.equal(classify("x == alloc").kind, "js");
});

Deno.test("needsMore() continues JavaScript and backslash-ended command lines", () => {
  assert.equal(needsMore("const f = (x) => {"), true);
  assert.equal(needsMore("const f = (x) => {\n  return x\n}"), false);
  assert.equal(needsMore("alloc NV12 \\"), true);
  assert.equal(needsMore("alloc NV12"), false);
});

Deno.test("exitCodeOf() maps errors to exit codes", () => {
  assert.equal(exitCodeOf(new UsageError("x")), 3);
  assert.equal(exitCodeOf(new SyntaxError("x")), 3);
  assert.equal(exitCodeOf(new CancelledError()), 130);
  assert.equal(
    exitCodeOf(
      new AxlError("device.open(/dev/axl)", 2, { code: "ENOENT", exitKind: "cannot-run" }),
    ),
    3,
  );
  assert.equal(exitCodeOf(new AxlError("device.import(inode 3)", 22, { code: "EINVAL" })), 1);
  assert.equal(exitCodeOf(new TypeError("x")), 3);
  assert.equal(exitCodeOf(new Error("x")), 1);
});

Deno.test("Shell.execute() evaluates JavaScript and prints the value", async () => {
  const { shell, out, signal } = shellWithOutput();
  const r = await shell.execute("[1, 2].map((x) => x * 21)", signal);
  assert.equal(r.code, 0);
  assert.deepEqual(r.value, [21, 42]);
  assert.deepEqual(out, ["[ 21, 42 ]"]);
});

Deno.test("Shell.execute() binds command results to $N and a name, usable from JavaScript", async () => {
  const { shell, out, signal } = shellWithOutput();
  // help has no value: binding it is a usage error.
  const r = await shell.execute("h = help sleep", signal);
  assert.equal(r.code, 3);
  assert.equal(r.names.length, 0);
  const ok = await shell.execute("objs = objects", signal);
  assert.deepEqual(ok.names, ["$1", "objs"]);
  assert.deepEqual(
    await shell.execute("objs.length === $1.length", signal).then((x) => x.value),
    true,
  );
  assert.match(out.join("\n"), /the session holds nothing/);
});

Deno.test("Shell.execute() reports errors in one line and keeps going", async () => {
  const { shell, err, signal } = shellWithOutput();
  const results = [];
  for (
    const input of ["nope()", "1 +", "alloc", "import $9", "wait --bogus", "info", "'still alive'"]
  ) {
    results.push(await shell.execute(input, signal));
  }
  assert.deepEqual(results.map((r) => r.code), [1, 3, 3, 3, 3, 3, 0]);
  assert.equal(err.length, 6);
  for (const line of err) assert.equal(line.includes("\n"), false, line);
  assert.match(err[0]!, /^ReferenceError: nope is not defined$/);
  assert.match(err[2]!, /^usage: alloc: expected SIZE/);
  assert.match(err[3]!, /no variable '\$9'/);
  assert.match(err[4]!, /Unknown option '--bogus'/);
  assert.match(
    err[5]!,
    /^error: device\.open\(\/nonexistent\/axl\) failed: ENOENT \(no axl device node: .*axl\.ko/,
  );
  // The last error stays inspectable.
  assert.equal(await shell.execute("$err.code", signal).then((r) => r.value), "ENOENT");
});

Deno.test("Shell.execute() --json prints one object per input", async () => {
  const { shell, out, signal } = shellWithOutput(true);
  await shell.execute("x = objects", signal, 3);
  await shell.execute("({ big: 2n ** 70n, bytes: new Uint8Array([1, 2]) })", signal, 4);
  await shell.execute("throw new RangeError('bad')", signal, 5);
  const [a, b, c] = out.map((l) => JSON.parse(l));
  assert.deepEqual(
    [a.n, a.line, a.input, a.kind, a.ok, a.code, a.names, a.value],
    [1, 3, "x = objects", "command", true, 0, ["$1", "x"], []],
  );
  assert.deepEqual(b.value, { big: "1180591620717411303424", bytes: [1, 2] });
  assert.deepEqual([c.ok, c.code, c.error], [false, 3, { name: "RangeError", message: "bad" }]);
});

Deno.test("Shell.execute() --help shows a command's help", async () => {
  const { shell, out, signal } = shellWithOutput();
  await shell.execute("alloc --help", signal);
  assert.match(out[0]!, /^alloc SIZE\|FORMAT\|result \[WxH\] \[options\]/);
  assert.match(out[0]!, /--fill pattern\|zero\|BYTE/);
});

Deno.test("Shell.execute() cancels a running command and JavaScript on abort", async () => {
  const { shell, err } = shellWithOutput();
  for (const input of ["sleep 60000", "await new Promise(() => {})"]) {
    const ac = new AbortController();
    const running = shell.execute(input, ac.signal);
    setTimeout(() => ac.abort(), 20);
    const r = await running;
    assert.equal(r.code, 130, input);
  }
  assert.deepEqual(err, ["cancelled (Ctrl-C)", "cancelled (Ctrl-C)"]);
});

Deno.test("Shell.execute() survives throwing getters and odd thrown values", async () => {
  const { shell, out, err, signal } = shellWithOutput();
  const a = await shell.execute('({ get boom() { throw new Error("getter") }, a: 1 })', signal);
  assert.equal(a.code, 0);
  assert.equal(out.at(-1), "{ boom: [Getter], a: 1 }");
  assert.equal((await shell.execute("throw null", signal)).code, 1);
  assert.equal((await shell.execute("throw { toString() { throw 1 } }", signal)).code, 1);
  assert.deepEqual(err, ["Uncaught null", "Uncaught { toString: [Function: toString] }"]);
  const j = shellWithOutput(true);
  await j.shell.execute('({ get boom() { throw new Error("getter") } })', j.signal);
  assert.deepEqual(JSON.parse(j.out[0]!).value, { boom: "[getter threw: getter]" });
});

Deno.test("caps checks links against saved gst-inspect outputs", async () => {
  const { shell, out, err, signal } = shellWithOutput();
  const dir = new URL("../../fixtures/gst/gstreamer-1.22", import.meta.url).pathname;
  const ok = await shell.execute(
    `r = caps -d ${dir} --no-gst-inspect videotestsrc fakesink`,
    signal,
  );
  assert.equal(ok.code, 0);
  assert.equal(await shell.execute("r.negotiates", signal).then((x) => x.value), true);
  const bad = await shell.execute(
    `caps -d ${dir} --no-gst-inspect videotestsrc ! "video/x-raw(memory:DMABuf)" ! fakesink`,
    signal,
  );
  assert.equal(bad.code, 1);
  assert.match(out.join("\n"), /caps features \(memory\)/);
  const missing = await shell.execute(`caps -d ${dir} --no-gst-inspect nosuch fakesink`, signal);
  assert.equal(missing.code, 3);
  assert.match(err.at(-1)!, /^error: caps: no saved capabilities for "nosuch"/);
});
