// What the shell says about a mistyped name or an unfinished line, and that --json keeps
// stdout for its JSON lines alone.
import assert from "node:assert/strict";
import { Session } from "../../../lib/shell/session.ts";
import { Shell } from "../../../lib/shell/shell.ts";
import { closestName } from "../../../lib/shell/suggest.ts";

async function shellOutput(...inputs: string[]): Promise<{ code: number; err: string }> {
  const err: string[] = [];
  const shell = new Shell(new Session({ device: "/nonexistent/axl" }), {
    out: () => {},
    err: (t) => err.push(t),
  });
  let code = 0;
  for (const input of inputs) {
    code = (await shell.execute(input, new AbortController().signal)).code;
  }
  return { code, err: err.join("\n") };
}

Deno.test("closestName() finds a typo's name and nothing for an unrelated word", () => {
  assert.equal(closestName("infoo", ["info", "heaps"]), "info");
  assert.equal(closestName("hepas", ["info", "heaps"]), "heaps");
  assert.equal(closestName("frme", ["frame", "free"]), "frame");
  assert.equal(closestName("banana", ["info", "heaps"]), undefined);
  assert.equal(closestName("info", ["info"]), undefined);
});

Deno.test("shell: an unknown name close to a command says which command was meant", async () => {
  const r = await shellOutput("infoo");
  assert.equal(r.code, 1);
  assert.equal(r.err, "ReferenceError: infoo is not defined (did you mean the command 'info'?)");
  // A name close to nothing stays a plain ReferenceError.
  assert.equal((await shellOutput("zzzqqq")).err, "ReferenceError: zzzqqq is not defined");
});

Deno.test("shell: an unknown name close to a variable of the session names the variable", async () => {
  const r = await shellOutput("frame = 1", "frme");
  assert.equal(r.err, "ReferenceError: frme is not defined (did you mean 'frame'?)");
});

Deno.test("shell: a line that ends inside its statement is reported as such, not as the wrapper's '}'", async () => {
  for (const line of ["let y =", "const x = (1", "foo(", "[1, 2,"]) {
    const r = await shellOutput(line);
    assert.equal(r.code, 3, line);
    assert.equal(
      r.err,
      "SyntaxError: Unexpected end of input (the input ends before its statement does)",
      line,
    );
  }
  // A brace the user typed is still the one blamed.
  assert.equal((await shellOutput("x = }")).err, "SyntaxError: Unexpected token '}'");
});

Deno.test("axl shell --json: stdout is JSON lines only; what the session's code prints goes to stderr", async () => {
  const cli = new URL("../../../tasks/axl.ts", import.meta.url).pathname;
  const child = new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-check", "--allow-all", cli, "shell", "--json", "--keep-going"],
    stdin: "piped",
    stdout: "piped",
    stderr: "piped",
    env: { NO_COLOR: "1" },
  }).spawn();
  const w = child.stdin.getWriter();
  await w.write(
    new TextEncoder().encode('console.log("hi")\nconsole.info("there")\n1 + 1\ninfoo\n'),
  );
  await w.close();
  const out = await child.output();
  const stdout = new TextDecoder().decode(out.stdout);
  const stderr = new TextDecoder().decode(out.stderr);
  const lines = stdout.trimEnd().split("\n").map((l) => JSON.parse(l));
  assert.deepEqual(lines.map((l) => l.kind), ["js", "js", "js", "js", "end"]);
  assert.equal(lines[2].value, 2);
  assert.match(lines[3].error.message, /did you mean the command 'info'/);
  assert.match(stderr, /^hi$/m);
  assert.match(stderr, /^there$/m);
});
