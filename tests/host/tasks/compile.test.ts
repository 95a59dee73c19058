// The compile task: the exact deno compile invocation, the denort locator, and
// what happens without denort. Building a real axl binary needs denort, which
// this machine cannot download: that path is not run here.
import assert from "node:assert/strict";
import {
  compileArgs,
  denortCachePath,
  elfMachine,
  locateDenort,
  runner,
  smokeVerdict,
  TARGETS,
} from "../../../tasks/compile.ts";

const [X86, ARM] = [TARGETS[0]!, TARGETS[1]!];
const repo = new URL("../../../", import.meta.url).pathname;
const PERMS = ["--allow-all"];

function head(path: string, n: number): Uint8Array | undefined {
  try {
    using f = Deno.openSync(path);
    const buf = new Uint8Array(n);
    return buf.subarray(0, f.readSync(buf) ?? 0);
  } catch {
    return undefined;
  }
}

Deno.test("compileArgs() embeds each architecture's shim and allows all (Deno needs it for /proc, /sys)", () => {
  assert.deepEqual(compileArgs(X86, "build/bin"), [
    "compile",
    "--target",
    "x86_64-unknown-linux-gnu",
    "--output",
    "build/bin/x86_64/axl",
    "--include",
    "build/x86_64/libaxl_shim.so",
    ...PERMS,
    "--exclude-unused-npm",
    "tasks/axl.ts",
  ]);
  assert.deepEqual(compileArgs(ARM, "/tmp/out/"), [
    "compile",
    "--target",
    "aarch64-unknown-linux-gnu",
    "--output",
    "/tmp/out/aarch64/axl",
    "--include",
    "build/aarch64/libaxl_shim.so",
    ...PERMS,
    "--exclude-unused-npm",
    "tasks/axl.ts",
  ]);
});

Deno.test("elfMachine() reads the real deno (x86_64) and the cross-built shim (aarch64)", () => {
  assert.equal(elfMachine(head(Deno.execPath(), 20)!), Deno.build.arch === "x86_64" ? 62 : 183);
  assert.equal(elfMachine(head(`${repo}build/aarch64/libaxl_shim.so`, 20)!), 183);
  assert.equal(elfMachine(new TextEncoder().encode("#!/bin/sh\necho not elf\n")), undefined);
});

Deno.test("locateDenort() takes the per-target variable, then a matching DENORT_BIN, then the cache", () => {
  const denoDir = Deno.makeTempDirSync({ prefix: "axl-denodir-" });
  try {
    const base = { denoDir, version: "2.9.5", allowDownload: false, fs: { head } };
    const x86Elf = Deno.build.arch === "x86_64" ? Deno.execPath() : undefined;
    const armElf = `${repo}build/aarch64/libaxl_shim.so`;
    // DENORT_BIN of the other architecture is skipped with the reason, not used.
    const r1 = locateDenort(ARM, { ...base, env: { DENORT_BIN: x86Elf ?? "/nonexistent" } });
    assert.equal(r1.source, undefined);
    assert.deepEqual(r1.rejected.map((r) => r.what), [
      "AXL_DENORT_AARCH64",
      `DENORT_BIN=${x86Elf ?? "/nonexistent"}`,
      denortCachePath(denoDir, "2.9.5", ARM.triple),
    ]);
    if (x86Elf) assert.equal(r1.rejected[1]!.reason, "is an x86_64 binary, not aarch64");
    const r2 = locateDenort(ARM, {
      ...base,
      env: { DENORT_BIN: "/etc/hostname", AXL_DENORT_AARCH64: armElf },
    });
    assert.deepEqual(r2.source, { kind: "env", variable: "AXL_DENORT_AARCH64", path: armElf });
    const r3 = locateDenort(ARM, { ...base, env: { DENORT_BIN: armElf } });
    assert.deepEqual(r3.source, { kind: "env", variable: "DENORT_BIN", path: armElf });

    // A cached zip is used; a non-zip there is rejected with the reason.
    const zip = denortCachePath(denoDir, "2.9.5", X86.triple);
    Deno.mkdirSync(zip.slice(0, zip.lastIndexOf("/")), { recursive: true });
    Deno.writeTextFileSync(zip, "<html>captive portal</html>");
    const r4 = locateDenort(X86, { ...base, env: {} });
    assert.equal(r4.source, undefined);
    assert.equal(r4.rejected.at(-1)!.reason, "is not a zip file");
    Deno.writeFileSync(zip, new Uint8Array([0x50, 0x4b, 3, 4, 20, 0, 0, 0]));
    assert.deepEqual(locateDenort(X86, { ...base, env: {} }).source, { kind: "cache", path: zip });
    // With downloads allowed and nothing local, deno compile would download.
    const r5 = locateDenort(ARM, { ...base, allowDownload: true, env: {} });
    assert.equal(r5.source?.kind, "download");
  } finally {
    Deno.removeSync(denoDir, { recursive: true });
  }
});

Deno.test("runner() runs a foreign binary through qemu-user with the cross sysroot", () => {
  const all = () => true;
  assert.deepEqual(runner(X86, "x86_64", all), []);
  assert.deepEqual(runner(ARM, "x86_64", all), [
    "/usr/bin/qemu-aarch64-static",
    "-L",
    "/usr/aarch64-linux-gnu",
  ]);
  assert.equal(runner(ARM, "x86_64", () => false), undefined);
});

Deno.test("smokeVerdict() accepts axl's --version and names a full deno used as denort", () => {
  assert.equal(smokeVerdict("axl 0.1.0\n", 0, "0.1.0"), undefined);
  assert.match(
    smokeVerdict("deno 2.9.5 (stable, release, x86_64-unknown-linux-gnu)\n", 0, "0.1.0")!,
    /full deno/,
  );
  assert.match(smokeVerdict("", 1, "0.1.0")!, /exit code 1/);
});

async function task(args: string[], env: Record<string, string>) {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-all", "tasks/compile.ts", ...args],
    cwd: repo,
    env: { NO_COLOR: "1", ...env },
    clearEnv: true,
    stdin: "null",
  }).output();
  const text = (b: Uint8Array) => new TextDecoder().decode(b);
  return { code: out.code, stdout: text(out.stdout), stderr: text(out.stderr) };
}

function baseEnv(): Record<string, string> {
  const env: Record<string, string> = { PATH: Deno.env.get("PATH") ?? "/usr/bin:/bin" };
  const home = Deno.env.get("HOME");
  if (home) env.HOME = home;
  return env;
}

Deno.test("deno task compile without denort stops with exit 3 and says how to provide it", async () => {
  const denoDir = Deno.makeTempDirSync({ prefix: "axl-denodir-" });
  try {
    const { code, stderr } = await task(["--offline"], { ...baseEnv(), DENO_DIR: denoDir });
    assert.equal(code, 3);
    const zip = denortCachePath(denoDir, Deno.version.deno, X86.triple);
    assert.match(
      stderr,
      /^compile: cannot build x86_64-unknown-linux-gnu: 'deno compile' needs Deno's denort/,
    );
    assert.ok(stderr.includes(`  ${zip}: not in the cache`), stderr);
    assert.ok(stderr.includes(`     ${zip}\n`), "names where to put the zip");
    assert.match(stderr, /AXL_DENORT_X86_64=\/path\/to\/denort/);
    assert.match(stderr, /download: not tried \(--offline\)/);
  } finally {
    Deno.removeSync(denoDir, { recursive: true });
  }
});

Deno.test("deno task compile rejects an unknown target with exit 3", async () => {
  const { code, stderr } = await task(["--target", "riscv64"], baseEnv());
  assert.equal(code, 3);
  assert.match(stderr, /unknown --target 'riscv64'/);
});

Deno.test({
  name: "deno task compile runs the real invocation and catches a full deno passed as denort",
  ignore: Deno.build.arch !== "x86_64",
  async fn() {
    const out = Deno.makeTempDirSync({ prefix: "axl-compile-" });
    try {
      const { code, stdout, stderr } = await task(
        ["--target", "x86_64", "--out", out],
        { ...baseEnv(), AXL_DENORT_X86_64: Deno.execPath() },
      );
      assert.equal(code, 1, stderr);
      assert.ok(stdout.includes(`deno ${compileArgs(X86, out).join(" ")}`), stdout);
      assert.match(stderr, /runs as the deno CLI: the denort used was a full deno binary/);
      // deno compile did embed the x86_64 shim: its symbols are in the output.
      const grep = await new Deno.Command("grep", {
        args: ["-c", "-a", "axl_shim_abi_version", `${out}/x86_64/axl`],
        stdout: "piped",
      }).output();
      assert.ok(Number(new TextDecoder().decode(grep.stdout).trim()) > 0, "shim not embedded");
    } finally {
      Deno.removeSync(out, { recursive: true });
    }
  },
});
