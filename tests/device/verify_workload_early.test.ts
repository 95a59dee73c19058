// A workload that fails before its first frame gets no verdict, live: `axl verify -- COMMAND`
// whose command exits 1 at once (and one that does not exist) ends with exit 3 and the command's
// stderr, writes no result.json, and leaves a capture a replay refuses the same way. The host
// tests replay a capture of such a run (tests/host/verify/workload_early.test.ts); this is the
// live path. About 95 s of guest time per case in TCG: the live run (40 s, nearly all of it
// verify's own setup) and a replay.
import assert from "node:assert/strict";

const AXL = new URL("../../tasks/axl.ts", import.meta.url).pathname;
const results = Deno.env.get("AXL_RESULTS") ??
  await Deno.makeTempDir({ prefix: "axl-verify-early-" });
const root = Deno.uid?.() === 0;

async function axl(args: string[]) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--no-check", "--allow-all", AXL, ...args],
    stdin: "null",
  }).output();
  const dec = new TextDecoder();
  return { code: out.code, out: dec.decode(out.stdout), err: dec.decode(out.stderr) };
}

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

for (
  const [name, command, code, tail] of [
    [
      "exits-1",
      ["sh", "-c", "echo 'client: cannot open /dev/video9' >&2; exit 1"],
      1,
      /client: cannot open \/dev\/video9/,
    ],
    ["not-found", ["/nonexistent/command"], 127, /\/nonexistent\/command: not found/],
  ] as const
) {
  Deno.test({
    name: `verify -- a command that ${
      name === "exits-1" ? "exits 1 at once" : "does not exist"
    }: exit 3, its stderr, no verdict`,
    ignore: !root,
  }, async () => {
    const dir = `${results}/verify-early-${name}`;
    const r = await axl(["verify", "--frames", "3", "--artifacts", dir, "--", ...command]);
    assert.equal(r.code, 3, r.out + r.err);
    assert.match(
      r.err,
      new RegExp(
        `the workload failed before its first frame \\(exit code ${code}\\), so there is no verdict`,
      ),
    );
    assert.match(r.err, tail);
    assert.doesNotMatch(r.out, /^(PASS|FAIL|INCONCLUSIVE|SKIP)\b/m);
    assert.ok(!exists(`${dir}/result.json`), "no result.json");
    const capture = JSON.parse(Deno.readTextFileSync(`${dir}/capture.json`));
    assert.ok(capture.integrity, "capture.json has its integrity record");
    const again = await axl(["verify", "--replay", dir, "--artifacts", `${dir}-replay`]);
    assert.equal(again.code, 3, again.out + again.err);
    assert.match(again.err, tail);
  });
}
