// What the docs tell a user agrees with the code: where zod is pinned, which permissions a
// script importing mod.ts needs, how to run axl itself, and where verify's artifacts land.
import assert from "node:assert/strict";
import { dirname } from "node:path";

const root = new URL("../../", import.meta.url);
const read = (path: string) => Deno.readTextFile(new URL(path, root));
const flat = (text: string) => text.replace(/\s+/g, " ");
const text = new TextDecoder();

Deno.test("docs/deviations.md names the file that pins zod, and that file does", async () => {
  const said = /`zod` from npm, pinned once as an `npm:` specifier in `([^`]+)`/.exec(
    flat(await read("docs/deviations.md")),
  );
  assert.ok(said, "docs/deviations.md says where zod is pinned");
  assert.match(await read(said[1]!), /^export \{ z \} from "npm:zod@\d+\.\d+\.\d+";$/m);
  assert.doesNotMatch(await read("deno.json"), /zod/);
});

/** The `--allow-*` flags of the first `deno run` in `text`, or of mod.ts's "Run scripts with". */
function flags(source: string): string[] {
  return [...source.matchAll(/--allow-[a-z]+/g)].map((m) => m[0]).sort();
}

Deno.test("mod.ts and docs/library.md ask for the permissions a script outside the repo needs", async () => {
  const modDoc = /Run scripts with ([^:]+):/.exec(flat(await read("mod.ts")));
  assert.ok(modDoc, "mod.ts says which permissions to run with");
  const libraryRun = /^deno run (.*)$/m.exec(await read("docs/library.md"));
  assert.ok(libraryRun, "docs/library.md shows the deno run line");
  const wanted = flags(modDoc[1]!);
  assert.deepEqual(flags(libraryRun[1]!), wanted);
  // A script of a user's, outside the repository, that takes a dma-buf fd (stdin, here
  // /dev/null, which is not one): with the permissions the docs name, axl gets as far as
  // reading the fd's fdinfo and says it is not a dma-buf.
  const dir = await Deno.makeTempDir({ prefix: "axl-perms-" });
  try {
    await Deno.writeTextFile(
      `${dir}/check.ts`,
      `import { AxlError, DmaBuf } from "${new URL("mod.ts", root).href}";\n` +
        "try { DmaBuf.fromFd(0); } catch (e) {\n" +
        '  console.log(e instanceof AxlError ? "AxlError" : `${(e as Error).name}: ${(e as Error).message}`);\n' +
        "}\n",
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: ["run", "--no-check", ...wanted, `${dir}/check.ts`],
      cwd: dir,
      stdin: "null",
    }).output();
    assert.equal(text.decode(out.stdout).trim(), "AxlError", text.decode(out.stderr));
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("README's verify transcript ends with the host's artifacts directory", async () => {
  const readme = await read("README.md");
  const transcript = /```\n\$ scripts\/task verify\n([\s\S]*?)```/.exec(readme);
  assert.ok(transcript, "README has the scripts/task verify transcript");
  assert.doesNotMatch(transcript[1]!, /\/run\/axl\/results/, "the guest's directory");
  const lines = transcript[1]!.trimEnd().split("\n");
  assert.match(
    lines.at(-2)!,
    /^PASS +\(artifacts: artifacts\/verify; report: artifacts\/verify\/report\.html\)$/,
  );
  // The last line is the one scripts/verify.sh prints after copying the artifacts back.
  assert.match(
    lines.at(-1)!,
    /^axl verify: artifacts in \S+\/artifacts\/verify \(VM console log: /,
  );
  assert.match(
    await read("scripts/verify.sh"),
    /echo "axl verify: artifacts in \$artifacts \(VM console log: /,
  );
});

Deno.test("the README's way onto PATH runs axl from any directory, paths relative to it", async () => {
  const readme = await read("README.md");
  const line = /^ln -s "\$PWD\/scripts\/axl" ~\/\.local\/bin\/axl/m.exec(readme);
  assert.ok(line, "README gives the one line that puts axl on PATH");
  assert.match(readme, /^scripts\/task axl info +# or: deno task axl info$/m);
  const home = await Deno.makeTempDir({ prefix: "axl-path-" });
  try {
    // The README's line, run from the repository with HOME pointing at a scratch home.
    await Deno.mkdir(`${home}/.local/bin`, { recursive: true });
    const ln = await new Deno.Command("bash", {
      args: ["-c", line[0]],
      cwd: new URL(".", root).pathname,
      env: { HOME: home },
    }).output();
    assert.equal(ln.code, 0, text.decode(ln.stderr));
    await Deno.mkdir(`${home}/work`);
    const saved = new URL("tests/fixtures/trace/6.12-axl/zero-copy", root).pathname;
    await Deno.symlink(saved, `${home}/work/saved`);
    const env = Deno.env.toObject();
    delete env.INIT_CWD;
    const path = `${home}/.local/bin:${dirname(Deno.execPath())}:${env.PATH ?? ""}`;
    const run = (...args: string[]) =>
      new Deno.Command("axl", {
        args,
        cwd: `${home}/work`,
        clearEnv: true,
        env: { ...env, PATH: path, NO_COLOR: "1", AXL_DENO: Deno.execPath() },
        stdin: "null",
      }).output();
    const version = await run("--version");
    assert.equal(text.decode(version.stdout), "axl 0.1.0\n", text.decode(version.stderr));
    const replay = await run("verify", "--replay", "saved", "--artifacts", "out");
    assert.equal(replay.code, 0, text.decode(replay.stderr));
    assert.match(
      text.decode(replay.stdout),
      /^PASS +\(artifacts: out; report: out\/report\.html\)$/m,
    );
    await Deno.stat(`${home}/work/out/result.json`);
  } finally {
    await Deno.remove(home, { recursive: true });
  }
});

Deno.test("scripts/task axl resolves the paths given against the caller's directory", async () => {
  const here = await Deno.makeTempDir({ prefix: "axl-task-" });
  try {
    const saved = new URL("tests/fixtures/trace/6.12-axl/zero-copy", root).pathname;
    await Deno.symlink(saved, `${here}/saved`);
    const env = Deno.env.toObject();
    delete env.INIT_CWD;
    const out = await new Deno.Command(new URL("scripts/task", root).pathname, {
      args: ["axl", "verify", "--replay", "saved", "--artifacts", "out", "--json"],
      cwd: here,
      clearEnv: true,
      env: { ...env, NO_COLOR: "1", AXL_DENO: Deno.execPath() },
      stdin: "null",
    }).output();
    assert.equal(out.code, 0, text.decode(out.stderr));
    assert.equal(JSON.parse(text.decode(out.stdout)).axl.status, "PASS");
    await Deno.stat(`${here}/out/result.json`);
  } finally {
    await Deno.remove(here, { recursive: true });
  }
});
