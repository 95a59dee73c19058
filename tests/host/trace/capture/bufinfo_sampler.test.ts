// The bufinfo sampler on a file of captured bufinfo text (the VM's): its first sample before
// start() resolves, and stop() taking the last sample at once however long the pause, so that
// a slow cross-check does not hold up the verdict.
import assert from "node:assert/strict";
import { join } from "node:path";
import { BufinfoSampler } from "../../../../lib/trace/capture/bufinfo_sampler.ts";

const ZERO = new URL("../../../fixtures/trace/6.12-axl/zero-copy/", import.meta.url).pathname;

Deno.test("BufinfoSampler.stop() takes the last sample at once, not after the pause", async () => {
  const dir = await Deno.makeTempDir();
  try {
    const samples = await Deno.readTextFile(join(ZERO, "bufinfo_samples.txt"));
    const path = join(dir, "bufinfo");
    // The first sample of the VM run, as the kernel printed it.
    await Deno.writeTextFile(path, samples.split(/^### sample .*\n/m)[1]!);
    const sampler = new BufinfoSampler({ path, intervalMs: 5000 });
    await sampler.start();
    assert.equal(sampler.summary.samples, 1, "the first sample is taken when start() resolves");
    assert.deepEqual(sampler.summary.atStart?.get(352), ["vivid.0"]);
    const t0 = performance.now();
    const summary = await sampler.stop();
    const ms = performance.now() - t0;
    assert.equal(summary.samples, 2);
    assert.ok(ms < 1000, `stop() took ${ms.toFixed(0)} ms of a 5,000 ms pause`);
    assert.deepEqual(summary.errors, []);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});
