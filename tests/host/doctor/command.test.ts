// `axl doctor` as a command: output, --json, exit codes and bad usage.
import assert from "node:assert/strict";
import { command } from "../../../tasks/commands/doctor.ts";
import { VM } from "./_helpers.ts";
import { capture, type Captured } from "../tasks/_capture.ts";

function run(args: string[]): Promise<Captured> {
  return capture(() => command.run(args));
}

Deno.test("doctor --root prints every check with its fix and exits 1 on a FAIL", async () => {
  const { code, out } = await run(["--root", VM]);
  assert.equal(code, 1);
  assert.match(out, /^axl doctor: 6\.12\.117\+deb12-amd64 on x86_64 \(captured tree /);
  assert.match(out, /^FAIL {2}dma-heap\.cma {2,}no CMA heap/m);
  assert.match(out, /^ +fix: set CONFIG_DMABUF_HEAPS_CMA=y/m);
  assert.match(out, /^OK {4}abi {2,}ABI driver 1, this build 1/m);
  assert.match(out, /^26 ok, 4 warn, 5 fail$/m);
});

Deno.test("doctor --json gives counts and checks", async () => {
  const { code, out } = await run(["--root", VM, "--json", "--cma-mib", "128"]);
  assert.equal(code, 1);
  const report = JSON.parse(out);
  assert.equal(report.release, "6.12.117+deb12-amd64");
  assert.equal(report.arch, "x86_64");
  assert.deepEqual(report.counts, { ok: 26, warn: 4, fail: 5 });
  const cma = report.checks.find((c: { id: string }) => c.id === "cma");
  assert.match(cma.fix, /reserve 128 MiB/);
});

Deno.test("doctor rejects bad usage with exit code 3", async () => {
  for (
    const args of [["--bogus"], ["--root", "/no/such/dir"], ["--link-width", "x"], [
      "--cma-mib",
      "0",
    ]]
  ) {
    const { code, err } = await run(args);
    assert.equal(code, 3, args.join(" "));
    assert.match(err, /doctor/);
  }
});

Deno.test("doctor on this machine agrees with what the file system shows", async () => {
  const { out } = await run(["--json"]);
  const report = JSON.parse(out);
  const byId = new Map<string, { status: string }>(
    report.checks.map((c: { id: string; status: string }) => [c.id, c]),
  );
  const exists = (p: string) => {
    try {
      Deno.statSync(p);
      return true;
    } catch {
      return false;
    }
  };
  assert.equal(byId.get("dma-heap")!.status === "ok", exists("/dev/dma_heap"));
  assert.equal(byId.get("driver")!.status === "ok", exists("/sys/module/axl"));
  assert.equal(byId.get("device-node")!.status === "ok", exists("/dev/axl"));
  assert.equal(report.release, Deno.readTextFileSync("/proc/sys/kernel/osrelease").trim());
});

Deno.test("doctor under deno run without --allow-all says so instead of reporting /proc as missing", async () => {
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["run", "--allow-read", "--allow-env", "--allow-ffi", "tasks/commands/doctor.ts"],
    cwd: new URL("../../../", import.meta.url).pathname,
    env: { NO_COLOR: "1" },
    stdin: "null",
  }).output();
  const stderr = new TextDecoder().decode(out.stderr);
  assert.equal(out.code, 3, stderr);
  assert.match(stderr, /Deno denied access \(Requires all access to "\/proc\/.*--allow-all/);
});
