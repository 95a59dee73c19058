// A user's script anywhere imports axl by path with no --config: the library's own
// specifiers resolve without the repository's deno.json (third-party packages are pinned
// once, as npm: specifiers, in lib/_deps.ts). The script runs from a temporary directory
// outside the repository and uses what needs each kind of import: zod (result.json's
// schema), the FFI shim, and a device error's exit kind.
import assert from "node:assert/strict";
import { tsFiles } from "./_import_graph.ts";

const root = decodeURIComponent(new URL("../..", import.meta.url).pathname).replace(/\/$/, "");
const modUrl = new URL("../../mod.ts", import.meta.url).href;
const fixture = `${root}/tests/fixtures/trace/6.12-axl/copy/result.json`;

const SCRIPT = `
import { AxlError, Device, frameLayout, parseVerifyResult, shimInfo } from "${modUrl}";
const result = parseVerifyResult(JSON.parse(await Deno.readTextFile(${JSON.stringify(fixture)})));
let opened = "no error";
try {
  Device.open("/nonexistent/axl");
} catch (err) {
  opened = err instanceof AxlError ? \`\${err.code} \${err.exitKind}\` : String(err);
}
console.log(JSON.stringify({
  status: result.axl.status,
  nv12: frameLayout("NV12", 64, 32).size,
  abi: shimInfo().abiVersion,
  opened,
}));
`;

async function deno(args: string[], cwd: string): Promise<{ code: number; out: string }> {
  const out = await new Deno.Command(Deno.execPath(), {
    args,
    cwd,
    env: { NO_COLOR: "1" },
    stdout: "piped",
    stderr: "piped",
  }).output();
  const text = new TextDecoder().decode(out.stdout) + new TextDecoder().decode(out.stderr);
  return { code: out.code, out: text };
}

Deno.test("a script outside the repository imports mod.ts by path with no --config", async () => {
  const dir = await Deno.makeTempDir({ prefix: "axl-user-" });
  try {
    assert.ok(!dir.startsWith(`${root}/`), `${dir} is inside the repository`);
    await Deno.writeTextFile(`${dir}/script.ts`, SCRIPT);
    const run = await deno(["run", "--allow-read", "--allow-ffi", "--allow-env", "script.ts"], dir);
    assert.equal(run.code, 0, run.out);
    assert.deepEqual(JSON.parse(run.out.trim().split("\n").at(-1)!), {
      status: "FAIL",
      nv12: 3072,
      abi: 1,
      opened: "ENOENT cannot-run",
    });
    // The types resolve the same way: the user's deno check needs no config of ours either.
    const check = await deno(["check", "script.ts"], dir);
    assert.equal(check.code, 0, check.out);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("the library imports no bare specifier: node: built-ins, relative paths, lib/_deps.ts", () => {
  const found: string[] = [];
  for (const file of ["lib", "ffi", "tasks", "mod.ts"].flatMap((dir) => tsFiles(root, dir))) {
    const text = Deno.readTextFileSync(`${root}/${file}`);
    for (const m of text.matchAll(/^\s*(?:import|export)\b[^"'`;]*?from\s*["']([^"']+)["']/gm)) {
      const spec = m[1]!;
      if (spec.startsWith(".") || spec.startsWith("node:")) continue;
      if (file === "lib/_deps.ts" && /^npm:[^@]+@\d+\.\d+\.\d+/.test(spec)) continue;
      found.push(`${file}: "${spec}"`);
    }
  }
  assert.deepEqual(found, [], "import third-party packages through lib/_deps.ts (pinned npm:)");
});
