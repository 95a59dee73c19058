// The Argus export (ffi/src/argus.cpp) compiled off a Jetson: against the Jetson Multimedia
// API's public headers (libargus, EGLStream and its NV extension; directory in
// AXL_MMAPI_INCLUDE) and the project's own nvbufsurface.h declaration, with the flags
// ffi/build.sh's Jetson build uses. The object is compiled for aarch64 (the Jetson's
// architecture) and its undefined symbols must be exactly the list in docs/deployment.md, each
// from a library the Jetson build links. Nothing here links or runs it: there is no libargus.
//
//   AXL_MMAPI_INCLUDE=DIR deno test --allow-all tests/jetson/
//
// scripts/test-all.sh runs it when it finds the headers and reports it as not run when it does
// not; run directly without them, every test fails and says what is missing.
import assert from "node:assert/strict";

const root = new URL("../../", import.meta.url).pathname;
const SOURCE = `${root}ffi/src/argus.cpp`;
const MMAPI = Deno.env.get("AXL_MMAPI_INCLUDE") ?? "";
const decoder = new TextDecoder();

/** The libraries a Jetson build of the shim may take the object's undefined symbols from. */
const LIBRARIES = ["libnvargus_socketclient", "libnvbufsurface", "libEGL", "libc", "libstdc++"];

/** Why the check cannot run here, or undefined when it can. */
async function missing(): Promise<string | undefined> {
  if (!MMAPI) {
    return "AXL_MMAPI_INCLUDE is not set: point it at the Jetson Multimedia API's include " +
      "directory (the one holding Argus/ and EGLStream/)";
  }
  for (const header of ["Argus/Argus.h", "EGLStream/NV/ImageNativeBuffer.h"]) {
    if (!(await exists(`${MMAPI}/${header}`))) {
      return `AXL_MMAPI_INCLUDE=${MMAPI} has no ${header}`;
    }
  }
  if (!(await exists("/usr/include/EGL/egl.h"))) {
    return "no /usr/include/EGL/egl.h: install libegl-dev (scripts/setup.sh does)";
  }
  return undefined;
}

async function exists(path: string): Promise<boolean> {
  try {
    await Deno.stat(path);
    return true;
  } catch {
    return false;
  }
}

/** `argus_cxxflags=(…)` of ffi/build.sh: the Jetson build's own flags, checked with here. */
async function buildFlags(): Promise<string[]> {
  const script = await Deno.readTextFile(`${root}ffi/build.sh`);
  const m = /^\s*argus_cxxflags=\(([^)]*)\)$/m.exec(script);
  assert.ok(m, "ffi/build.sh has no argus_cxxflags=(…) line");
  return m[1]!.trim().split(/\s+/);
}

/**
 * Runs `cxx` on argus.cpp with build.sh's flags and `extra`. The EGL headers are
 * architecture-independent: a directory holding only them keeps a cross compiler off the
 * host's other headers.
 */
async function compile(cxx: string, extra: string[]): Promise<Deno.CommandOutput> {
  const why = await missing();
  if (why) throw new Error(`the Argus compile check cannot run: ${why}`);
  const egl = await Deno.makeTempDir();
  try {
    await Deno.symlink("/usr/include/EGL", `${egl}/EGL`);
    await Deno.symlink("/usr/include/KHR", `${egl}/KHR`);
    const args = [
      ...await buildFlags(),
      `-I${root}ffi/src`,
      `-I${root}ffi/src/nvbufsurface`,
      `-I${root}kernel/include/uapi`,
      "-isystem",
      MMAPI,
      "-isystem",
      egl,
      ...extra,
      SOURCE,
    ];
    try {
      return await new Deno.Command(cxx, { args }).output();
    } catch (err) {
      throw new Error(`cannot run ${cxx} (scripts/setup.sh installs it): ${err}`);
    }
  } finally {
    await Deno.remove(egl, { recursive: true });
  }
}

/** Fails with the compiler's messages when it failed. */
function assertCompiled(out: Deno.CommandOutput, what: string): void {
  assert.ok(out.success, `${what} does not compile:\n${decoder.decode(out.stderr)}`);
  assert.equal(decoder.decode(out.stderr), "", `${what}: the compiler warned`);
}

/** The rows of docs/deployment.md's table of undefined symbols: mangled name → library. */
async function documentedSymbols(): Promise<Map<string, string>> {
  const doc = await Deno.readTextFile(`${root}docs/deployment.md`);
  const start = doc.indexOf("### Undefined symbols of the Argus export");
  assert.ok(start >= 0, "docs/deployment.md has no '### Undefined symbols of the Argus export'");
  const section = doc.slice(start).split(/\n#{2,3} /)[0]!;
  const rows = new Map<string, string>();
  for (const m of section.matchAll(/^\| `([^`]+)` *\|[^|]+\| *([^| ]+) *\|$/gm)) {
    rows.set(m[1]!, m[2]!.trim());
  }
  return rows;
}

Deno.test("argus.cpp compiles for aarch64 with ffi/build.sh's flags and no warning", async () => {
  assertCompiled(await compile("aarch64-linux-gnu-g++", ["-fsyntax-only"]), "argus.cpp (aarch64)");
});

Deno.test("argus.cpp compiles for x86_64 as well", async () => {
  assertCompiled(await compile("g++", ["-fsyntax-only"]), "argus.cpp (x86_64)");
});

Deno.test("argus.o's undefined symbols are docs/deployment.md's list, from the linked libraries", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const obj = `${dir}/argus.o`;
    assertCompiled(await compile("aarch64-linux-gnu-g++", ["-c", "-o", obj]), "argus.o");
    const nm = await new Deno.Command("aarch64-linux-gnu-nm", { args: ["-u", obj] }).output();
    assert.ok(nm.success, decoder.decode(nm.stderr));
    const undefined_ = decoder.decode(nm.stdout).split("\n").map((l) => l.trim())
      .filter((l) => l.startsWith("U ")).map((l) => l.slice(2)).sort();
    const documented = await documentedSymbols();
    assert.deepEqual(
      undefined_,
      [...documented.keys()].sort(),
      "nm -u of argus.o differs from docs/deployment.md's table: a Jetson link would need " +
        "what the table does not say (or the table lists what is no longer used)",
    );
    for (const [symbol, library] of documented) {
      assert.ok(
        LIBRARIES.includes(library),
        `${symbol}: ${library} is not a library the build links`,
      );
    }
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
