// scripts/verify.sh (`deno task verify`) on a machine without an NPU boots the VM rig; a bad
// option must be refused on the host first, by verify's own parser, before anything is
// installed, built or booted. The VM path itself runs against a stand-in for the rig
// (the script's AXL_VERIFY_RIG seam) that records the guest's command line.
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
  return await verifyScriptWith({}, ...args);
}

/** verify.sh with `extra` in its environment; `dir` is the temporary directory it runs in. */
async function verifyScriptWith(
  extra: Record<string, string> | ((dir: string) => Promise<Record<string, string>>),
  ...args: string[]
) {
  const fake = await Deno.makeTempDir({ prefix: "axl-verify-sh-" });
  try {
    const more = typeof extra === "function" ? await extra(fake) : extra;
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
        ...more,
      },
      stdin: "null",
    }).output();
    const ms = performance.now() - t0;
    const called = await Deno.readTextFile(marker).catch(() => "");
    const guest = await Deno.readTextFile(`${fake}/guest-argv`).catch(() => "");
    const text = new TextDecoder();
    return {
      guest: guest ? guest.trimEnd().split("\n") : [],
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

/**
 * A stand-in for scripts/vm/run.sh: records the guest's command line (one argument a line,
 * what follows `--`), writes result.json where the guest would (`--results DIR`/verify),
 * and prints what `axl verify` prints with those arguments: with --json the document, else
 * a summary line. Exits with `code`.
 */
function fakeRig(result: string, code: number) {
  return async (dir: string) => {
    const rig = `${dir}/fake-rig`;
    await Deno.writeTextFile(`${dir}/result.json`, result);
    await Deno.writeTextFile(
      rig,
      `#!/bin/bash
results=
while (($#)) && [[ $1 != -- ]]; do
	[[ $1 == --results ]] && results=$2
	shift
done
shift
printf '%s\n' "$@" > "${dir}/guest-argv"
mkdir -p "$results/verify" && cp "${dir}/result.json" "$results/verify/result.json"
json=0
for a in "$@"; do [[ $a == --json ]] && json=1; done
if ((json)); then cat "${dir}/result.json"; else echo "verify: guest summary"; fi
exit ${code}
`,
      { mode: 0o755 },
    );
    return { AXL_VERIFY_RIG: rig, AXL_VERIFY_RIG_RESULTS: `${dir}/rig-results` };
  };
}

for (const code of [0, 1, 2]) {
  Deno.test(`scripts/verify.sh --json in the VM rig prints result.json once, on stdout (guest exit ${code})`, async () => {
    const result = `{"axl":{"status":"${["PASS", "FAIL", "INCONCLUSIVE"][code]}"}}\n`;
    const r = await verifyScriptWith(fakeRig(result, code), "--json", "--frames", "5");
    assert.equal(r.code, code, r.err);
    assert.equal(r.called, "", "the stand-in rig ran, nothing else was built or booted");
    assert.equal(r.out, result);
    assert.ok(!r.err.includes(result.trim()), `result.json on stderr too:\n${r.err}`);
    // The guest runs verify without --json: its summary goes to the console (stderr here).
    assert.match(r.err, /^verify: guest summary$/m);
    assert.deepEqual(r.guest.slice(-3), ["verify", "--frames", "5"]);
  });
}

Deno.test("scripts/verify.sh without --json in the VM rig keeps the guest's summary on stdout", async () => {
  const r = await verifyScriptWith(fakeRig(`{"axl":{"status":"PASS"}}\n`, 0), "--frames", "5");
  assert.equal(r.code, 0, r.err);
  assert.deepEqual(r.guest.slice(-3), ["verify", "--frames", "5"]);
  assert.match(r.out, /^verify: guest summary$/m);
  assert.match(r.out, /^axl verify: artifacts in /m);
});
