// The shim locator's compiled-binary behaviour: env → beside the binary → embedded,
// the error when the embedded copy cannot be extracted (read-only filesystems), and the one
// for a stale build from older sources.
import assert from "node:assert/strict";
import {
  embeddedLoadFailure,
  extractionProblem,
  openCandidate,
  SHIM_API_VERSION,
  shimCandidates,
  ShimLoadError,
} from "../../../ffi/loader.ts";

Deno.test("shimCandidates() in a compiled binary: env, beside the binary, then the embedded copy", () => {
  const c = shimCandidates({
    env: "/opt/axl/lib/libaxl_shim.so",
    execPath: "/usr/local/bin/axl",
    moduleUrl: "file:///tmp/deno-compile-axl/ffi/loader.ts",
    standalone: true,
  });
  assert.deepEqual(c, [
    { path: "/opt/axl/lib/libaxl_shim.so", source: "env" },
    { path: "/usr/local/bin/libaxl_shim.so", source: "beside-binary" },
    { path: `/tmp/deno-compile-axl/build/${Deno.build.arch}/libaxl_shim.so`, source: "embedded" },
  ]);
});

Deno.test("shimCandidates() for the deno runtime: no beside-binary rule, the local build last", () => {
  const c = shimCandidates({
    execPath: "/usr/local/bin/deno",
    moduleUrl: "file:///src/axl/ffi/loader.ts",
    standalone: false,
  });
  assert.deepEqual(c, [
    { path: `/src/axl/build/${Deno.build.arch}/libaxl_shim.so`, source: "local-build" },
  ]);
});

Deno.test("ShimLoadError in a compiled binary says to put the shim next to it, not to build", () => {
  const err = new ShimLoadError([
    { path: "/usr/local/bin/libaxl_shim.so", source: "beside-binary", reason: "no such file" },
    { path: "/tmp/x/build/aarch64/libaxl_shim.so", source: "embedded", reason: "extract failed" },
  ]);
  assert.match(err.message, /next to the axl binary, or set AXL_SHIM/);
  assert.doesNotMatch(err.message, /deno task build/);
  assert.match(err.message, /\(embedded\): extract failed/);
});

Deno.test("extractionProblem() reports a directory that refuses new files, accepts a writable one", () => {
  const dir = Deno.makeTempDirSync({ prefix: "axl-extract-" });
  try {
    assert.equal(extractionProblem(dir), undefined);
    assert.deepEqual([...Deno.readDirSync(dir)], [], "the probe file is removed");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
  // sysfs refuses new files even for root, like a read-only mount does.
  assert.match(extractionProblem("/sys")!, /denied|Read-only/i);
});

Deno.test("embeddedLoadFailure() names the directory and every way out", () => {
  const msg = embeddedLoadFailure(
    "Read-only file system (os error 30)",
    "/tmp",
    "Read-only file system (os error 30): tmpfile",
  );
  assert.match(msg, /\/tmp is not writable \(Read-only file system/);
  for (const way of ["TMPDIR", "next to the binary", "AXL_SHIM"]) assert.ok(msg.includes(way), way);
  assert.match(embeddedLoadFailure("failed to map segment", "/tmp"), /\/tmp may be mounted noexec/);
});

/** Builds a library that exports only the two version functions, like a shim from old sources. */
function oldShim(dir: string, api: number): string {
  const source = `${dir}/old_shim.c`;
  const path = `${dir}/libaxl_shim.so`;
  Deno.writeTextFileSync(
    source,
    `int axl_shim_api_version(void) { return ${api}; }\nint axl_shim_abi_version(void) { return 1; }\n`,
  );
  const cc = new Deno.Command("cc", { args: ["-shared", "-fPIC", "-o", path, source] })
    .outputSync();
  assert.ok(cc.success, new TextDecoder().decode(cc.stderr));
  return path;
}

// The stale library is built by this machine's cc, which targets x86_64: under qemu-user the
// arm64 deno cannot load it, and the arm64 guest has no cc.
Deno.test({
  name: "openCandidate() of a stale build names it, its API and the rebuild command",
  ignore: Deno.build.arch !== "x86_64",
}, () => {
  const dir = Deno.makeTempDirSync({ prefix: "axl-stale-shim-" });
  try {
    const path = oldShim(dir, 2);
    const why = openCandidate({ path, source: "local-build" });
    assert.equal(typeof why, "string");
    assert.match(
      why as string,
      new RegExp(
        `^stale build: ${path} has shim API 2 and lacks axl_\\w+ \\(this code needs shim ` +
          `API ${SHIM_API_VERSION}\\); run 'bash ffi/build.sh'$`,
      ),
    );
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
