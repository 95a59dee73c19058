// The doctor checks and the heap defaults replayed on the arm64 rig's captured guests
// (tests/fixtures/doctor/vm-arm64-5.15*): the CMA heap by either of its kernel names.
import assert from "node:assert/strict";
import { runDoctor } from "../../../lib/doctor/run.ts";
import { defaultFrameHeap } from "../../../lib/core/heap.ts";
import { defaultFrameAccessors } from "../../../lib/constraints/allocate.ts";
import { ARM64, ARM64_RESERVED, statuses, vmContext } from "./_helpers.ts";

function heapsOf(root: string): string[] {
  return [...Deno.readDirSync(`${root}/dev/dma_heap`)].map((e) => e.name).sort();
}

for (const [root, heap] of [[ARM64, "linux,cma"], [ARM64_RESERVED, "reserved"]] as const) {
  Deno.test(`runDoctor() on the arm64 guest with the ${heap} heap: CMA, PMU and SMMU all OK`, () => {
    const results = runDoctor(vmContext({}, root));
    const byId = new Map(results.map((r) => [r.id, r]));
    const s = statuses(results);
    assert.equal(s["dma-heap.cma"], "ok");
    assert.equal(byId.get("dma-heap.cma")!.message, `/dev/dma_heap/${heap}`);
    assert.equal(byId.get("dma-heap")!.message, `/dev/dma_heap: ${heap} system`);
    assert.equal(s["cma"], "ok");
    assert.match(byId.get("cma")!.message, /^CmaTotal 256 MiB, CmaFree 254 MiB$/);
    assert.equal(s["config.DMABUF_HEAPS_CMA"], "ok");
    assert.equal(s["pmu"], "ok");
    assert.match(byId.get("pmu")!.message, /armv8_pmuv3/);
    assert.equal(s["npu.iommu"], "ok");
    assert.deepEqual(results.filter((r) => r.status === "fail").map((r) => r.id), []);
  });

  Deno.test(`the heap defaults on the arm64 guest with the ${heap} heap take frames from it`, () => {
    const heaps = heapsOf(root);
    assert.equal(defaultFrameHeap(heaps), heap);
    const [camera, npu] = defaultFrameAccessors(heaps);
    assert.deepEqual(camera!.heaps, [heap]);
    assert.equal(camera!.contiguity, "physical");
    assert.equal(npu!.name, "npu-input");
  });
}

Deno.test("the heap defaults without a CMA heap (the x86_64 rig) stay on system", () => {
  assert.equal(defaultFrameHeap(["system"]), "system");
  const [camera] = defaultFrameAccessors(["system"]);
  assert.equal(camera!.contiguity, "dma");
  assert.equal(camera!.heaps, undefined);
});
