// `axl verify --replay DIR` where the shim cannot load: run as its own process without
// --allow-ffi (dlopen refused, as on a host without libaxl_shim.so), it judges with the
// TypeScript scanner, gives the result the C scanner gives, and says so in a note.
import assert from "node:assert/strict";
import type { VerifyResult } from "../../../lib/verify/schema.ts";

const cli = new URL("../../../tasks/axl.ts", import.meta.url).pathname;
const fixture = (d: string) => new URL(`../../fixtures/trace/${d}`, import.meta.url).pathname;

/** `axl verify --replay dir --json` in a process of its own, with or without FFI. */
async function replay(dir: string, ffi: boolean): Promise<{ code: number; r: VerifyResult }> {
  const out = await Deno.makeTempDir({ prefix: "axl-replay-" });
  try {
    const perms = ["--allow-read", "--allow-write", "--allow-env", "--allow-run"];
    const p = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--no-check",
        ...perms,
        ...(ffi ? ["--allow-ffi"] : []),
        cli,
        "verify",
        "--replay",
        dir,
        "--artifacts",
        out,
        "--json",
      ],
      stdin: "null",
      stdout: "piped",
      stderr: "piped",
    }).output();
    const text = new TextDecoder().decode(p.stdout);
    assert.ok(
      p.code <= 2,
      `replay could not run (${p.code}): ${new TextDecoder().decode(p.stderr)}`,
    );
    return { code: p.code, r: JSON.parse(text.slice(text.indexOf("{"))) as VerifyResult };
  } finally {
    await Deno.remove(out, { recursive: true });
  }
}

const SCANNER_NOTE =
  /^the trace \(\d+\.\d MB\) was read by the TypeScript scanner in \d+ ms, because the shim's C scanner cannot load here \(.*libaxl_shim\.so: .*--allow-ffi.*\): the same facts, about \d+\.\d× slower/;

for (const [dir, status] of [["6.12-axl/zero-copy", "PASS"], ["6.12-axl/copy", "FAIL"]] as const) {
  Deno.test(`verify --replay ${dir} without the shim gives the shim's verdict (${status}) and says so`, async () => {
    const [c, ts] = await Promise.all([replay(fixture(dir), true), replay(fixture(dir), false)]);
    assert.equal(c.r.axl.status, status);
    assert.equal(ts.r.axl.status, status);
    assert.equal(ts.code, c.code);
    assert.ok(!c.r.axl.notes.some((n) => SCANNER_NOTE.test(n)), "the C scanner ran: no note");
    const notes = ts.r.axl.notes.filter((n) => SCANNER_NOTE.test(n));
    assert.equal(notes.length, 1, JSON.stringify(ts.r.axl.notes));
    // Everything else is the same, field for field.
    const strip = (r: VerifyResult) => ({
      ...r,
      axl: { ...r.axl, notes: r.axl.notes.filter((n) => !SCANNER_NOTE.test(n)) },
    });
    assert.deepEqual(strip(ts.r), strip(c.r));
  });
}
