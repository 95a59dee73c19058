// scripts/verify.sh (`deno task verify`) on a machine without an NPU boots the VM rig; a bad
// option must be refused on the host first, by verify's own parser, before anything is
// installed, built or booted.
import assert from "node:assert/strict";
import { dirname } from "node:path";
import { main } from "../../../tasks/axl.ts";
import { capture } from "./_capture.ts";

const root = new URL("../../..", import.meta.url).pathname;

/** Tools that setup, the shim build and the VM rig run: each records its call and fails. */
const TOOLS = [
  "cc",
  "gcc",
  "make",
  "pkg-config",
  "dpkg",
  "apt-get",
  "sudo",
  "qemu-system-x86_64",
  "qemu-system-aarch64",
];

async function verifyScript(...args: string[]) {
  const fake = await Deno.makeTempDir({ prefix: "axl-verify-sh-" });
  try {
    const marker = `${fake}/called`;
    for (const t of TOOLS) {
      await Deno.writeTextFile(
        `${fake}/${t}`,
        `#!/bin/sh\necho "${t} $*" >> "${marker}"\nexit 99\n`,
        {
          mode: 0o755,
        },
      );
    }
    const env = Deno.env.toObject();
    delete env.INIT_CWD;
    const t0 = performance.now();
    const out = await new Deno.Command("bash", {
      args: [`${root}scripts/verify.sh`, ...args],
      cwd: fake,
      clearEnv: true,
      env: {
        ...env,
        NO_COLOR: "1",
        AXL_DEVICE: `${fake}/no-npu`,
        PATH: `${fake}:${dirname(Deno.execPath())}:${env.PATH ?? ""}`,
      },
      stdin: "null",
    }).output();
    const ms = performance.now() - t0;
    const called = await Deno.readTextFile(marker).catch(() => "");
    const text = new TextDecoder();
    return {
      code: out.code,
      out: text.decode(out.stdout),
      err: text.decode(out.stderr),
      called,
      ms,
    };
  } finally {
    await Deno.remove(fake, { recursive: true });
  }
}

for (
  const args of [
    ["--frames", "abc"],
    ["--mode", "fast"],
    ["--threshold", "0", "--artifacts", "out"],
  ]
) {
  Deno.test(`scripts/verify.sh ${args.join(" ")} refuses on the host before setup, build or boot`, async () => {
    const r = await verifyScript(...args);
    // The message and exit code `axl verify` itself gives for these options.
    const cli = await capture(() => main(["verify", ...args]));
    assert.equal(cli.code, 3);
    assert.equal(r.code, cli.code, r.err);
    assert.equal(r.err.trimEnd(), cli.err);
    assert.equal(r.called, "", "nothing was installed, built or booted");
    assert.doesNotMatch(r.out, /VM rig/);
    assert.ok(r.ms < 10_000, `took ${Math.round(r.ms)} ms`);
  });
}

Deno.test("scripts/verify.sh --json keeps stdout for result.json: its notes go to stderr", async () => {
  // Setup cannot run with the failing tools above: the run stops (exit 3) after the note
  // that it goes to the VM rig, which must not land on stdout.
  const r = await verifyScript("--json", "--frames", "5");
  assert.equal(r.code, 3, r.err);
  assert.equal(r.out, "");
  assert.match(r.err, /^axl verify: no NPU device on this machine .* in the VM rig/m);
});
