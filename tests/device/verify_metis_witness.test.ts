// `axl verify` on the simulated Metis node with the card's own witness: the node's debugfs
// dma-trace (metis.ko 1.6.2's format) is enabled and cleared before the frames, read after
// them and put back as it was; result.json's card_witness says whether the card's transfers
// agree with the frames and the dma-buf events. On a release without dma-trace (1.4.4) it
// says the witness is not available. (1.4.17 keeps dma-trace as 1.6.2 does, 1.4.16's source
// says; tests/device/metis_gen.test.ts checks it there, and a verify on it is the same run.)
// Artifacts go to $AXL_RESULTS/verify-witness-<gen>/ when the rig provides it.
import assert from "node:assert/strict";
import { MetisDevice } from "../../lib/core/metis/device.ts";
import { findDmaTraceFiles, parseDmaTrace } from "../../lib/core/metis/dma_trace.ts";
import type { VerifyResult } from "../../lib/verify/schema.ts";
import { AXL_PARAMS } from "./_module_param.ts";
import { metisTarget } from "./verify/_metis_target.ts";
import { runVerify } from "./verify/_run_verify.ts";

const results = Deno.env.get("AXL_RESULTS") ??
  await Deno.makeTempDir({ prefix: "axl-verify-witness-test-" });
const FRAMES = 12;
const KO = Deno.env.get("AXL_KO") ?? "/run/axl/ctl/axl.ko";

function run(cmd: string, args: string[]): void {
  const out = new Deno.Command(cmd, { args, stderr: "piped" }).outputSync();
  if (!out.success) throw new Error(`${cmd}: ${new TextDecoder().decode(out.stderr)}`);
}

async function load(gen: string): Promise<void> {
  const params = [...Deno.readDirSync(AXL_PARAMS)].filter((e) => e.name !== "metis_generation")
    .map((e) => `${e.name}=${Deno.readTextFileSync(`${AXL_PARAMS}/${e.name}`).trim()}`);
  run("rmmod", ["axl"]);
  run("insmod", [KO, ...params, `metis_generation=${gen}`]);
  for (let t = 0; t < 200 && MetisDevice.discover().length === 0; t++) {
    await new Promise((r) => setTimeout(r, 10));
  }
}

async function verify(gen: string): Promise<{ result: VerifyResult; dir: string; stdout: string }> {
  const { node, pci } = metisTarget();
  const dir = `${results}/verify-witness-${gen}`;
  const { result, stdout } = await runVerify(`witness ${gen}`, dir, [
    ...["--device", node, "--importer", pci, "--evidence", "generic"],
    ...["--producer", "heap", "--frames", String(FRAMES)],
  ]);
  return { result, dir, stdout };
}

Deno.test("axl verify on metis-sim 1.6.2: the card's dma-trace agrees with the frames; on 1.4.4 it is not available", async () => {
  const t0 = performance.now();
  try {
    for (const gen of ["1.6.2"]) {
      await load(gen);
      const { node } = metisTarget();
      const trace = findDmaTraceFiles(node)!.trace!;
      Deno.writeTextFileSync(trace, "disable\n"); // the state verify must put back
      const { result, dir } = await verify(gen);
      const w = result.axl.card_witness!;
      assert.ok(w, "result.json has card_witness");
      assert.equal(w.available, true, w.reason);
      assert.equal(w.verdict, "agree", w.disagreements.join("; "));
      assert.deepEqual([w.frames, w.matched, w.to_card], [FRAMES, FRAMES, FRAMES]);
      assert.equal(w.attach_checked, true, "kprobe events with inodes checked the attaches");
      assert.equal(w.card_bytes, w.frame_bytes);
      assert.match(w.driver!, new RegExp(`presenting metis\\.ko ${gen.replaceAll(".", "\\.")}`));
      const lines = Deno.readTextFileSync(`${dir}/dma-trace.txt`);
      assert.equal(parseDmaTrace(lines).entries.length, FRAMES);
      assert.match(Deno.readTextFileSync(`${dir}/report.html`), /Card's own witness \(dma-trace\)/);
      // put back: tracing off again, as it was before the run
      assert.equal(parseDmaTrace(Deno.readTextFileSync(trace)).enabled, false);
    }
    await load("1.4.4");
    const { result } = await verify("1.4.4");
    const w = result.axl.card_witness!;
    assert.deepEqual([w.available, w.verdict], [false, "unavailable"]);
    assert.match(w.summary, /the card's own witness is not available: .*keeps no dma-trace/);
  } finally {
    await load("1.6.2");
  }
  console.log(`verify_metis_witness: ${((performance.now() - t0) / 1000).toFixed(1)} s`);
});
