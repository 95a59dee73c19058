// The done-when of the Metis backend: `axl verify` judges a workload that drives the
// Metis node (tests/device/fixtures/metis-workload.axl, run by the shell as a command
// workload) through the generic evidence path, with the node's PCI function as the
// importer, and every invariant passes.
import assert from "node:assert/strict";
import { MetisDevice } from "../../mod.ts";
import { metisInfo } from "../../lib/commands/info.ts";

const REPO = new URL("../../", import.meta.url).pathname;

Deno.test("axl verify --importer <Metis PCI> --evidence generic on a Metis workload: PASS", async () => {
  let pci: string | undefined;
  {
    using dev = MetisDevice.open();
    pci = metisInfo(dev).pci;
  }
  assert.ok(pci, "the Metis node is not on PCI");
  const dir = Deno.makeTempDirSync({ prefix: "axl-metis-verify-" });
  try {
    const config = `${dir}/metis.json`;
    Deno.writeTextFileSync(
      config,
      JSON.stringify({
        command: [
          Deno.execPath(),
          "run",
          "--allow-all",
          `${REPO}tasks/axl.ts`,
          "shell",
          "--device",
          "metis",
          "--no-history",
          "-f",
          `${REPO}tests/device/fixtures/metis-workload.axl`,
        ],
        frames: 30,
      }),
    );
    const out = await new Deno.Command(Deno.execPath(), {
      args: [
        "run",
        "--allow-all",
        `${REPO}tasks/axl.ts`,
        "verify",
        "--config",
        config,
        "--importer",
        pci,
        "--evidence",
        "generic",
        "--artifacts",
        `${dir}/artifacts`,
      ],
      cwd: REPO,
      stdout: "piped",
      stderr: "piped",
    }).output();
    const dec = new TextDecoder();
    const stdout = dec.decode(out.stdout);
    // the verdict lines go to the suite's log, for the record
    console.log(stdout.trimEnd());
    assert.equal(out.code, 0, stdout + dec.decode(out.stderr));
    for (const id of ["I1", "I2", "I3", "I4"]) {
      assert.match(stdout, new RegExp(`^${id} PASS\\s`, "m"), `${id} in:\n${stdout}`);
    }
    assert.match(
      stdout,
      new RegExp(`^evidence: (kprobes|bufinfo) \\(importer ${pci.replaceAll(".", "\\.")}: `, "m"),
    );
    const artifacts = /^PASS {2}\(artifacts: ([^;]+);/m.exec(stdout)?.[1];
    assert.ok(artifacts, stdout);
    const result = JSON.parse(Deno.readTextFileSync(`${artifacts}/result.json`));
    assert.equal(result.axl.status, "PASS");
  } finally {
    Deno.removeSync(dir, { recursive: true });
  }
});
