// The JSDoc examples of the library read as code a user can copy: they print what
// they show (console.log(…) // value) instead of asserting it with `throw new Error()`,
// and import no private file. `deno test --doc` runs them.
import assert from "node:assert/strict";

const root = new URL("../../", import.meta.url);

/** The TypeScript code blocks of every JSDoc comment in `source`. */
function examples(source: string): string[] {
  const blocks: string[] = [];
  for (const comment of source.matchAll(/\/\*\*[\s\S]*?\*\//g)) {
    const lines = comment[0].split("\n").map((l) => l.replace(/^\s*\*? ?/, ""));
    const text = lines.join("\n");
    for (const m of text.matchAll(/```ts[^\n]*\n([\s\S]*?)```/g)) blocks.push(m[1]!);
  }
  return blocks;
}

async function files(dir: string): Promise<string[]> {
  const out: string[] = [];
  for await (const e of Deno.readDir(new URL(dir, root))) {
    if (e.isDirectory) out.push(...await files(`${dir}${e.name}/`));
    else if (e.name.endsWith(".ts")) out.push(`${dir}${e.name}`);
  }
  return out;
}

Deno.test("JSDoc examples of lib/, ffi/, tasks/ and mod.ts show values instead of asserting them", async () => {
  const paths = [
    ...await files("lib/"),
    ...await files("ffi/"),
    ...await files("tasks/"),
    "mod.ts",
  ];
  const bad: string[] = [];
  for (const path of paths) {
    for (const code of examples(await Deno.readTextFile(new URL(path, root)))) {
      if (/throw new Error\(/.test(code)) bad.push(`${path}: asserts with throw new Error()`);
      // A private file's own examples import it; others must not.
      const own = path.split("/").pop()!;
      const privateImport = [...code.matchAll(/from "([^"]*\/)(_[^"/]*)"/g)]
        .some((m) => m[1] !== "./" || m[2] !== own);
      // Types and parsers of a module come from its public file, not its schema.
      if (privateImport || /from "\.\/schema\.ts"/.test(code)) {
        bad.push(`${path}: imports a private file`);
      }
    }
  }
  assert.deepEqual(bad, []);
});
