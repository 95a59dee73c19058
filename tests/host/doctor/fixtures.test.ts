// The doctor checks replayed on the VM rig's captured state (tests/fixtures/doctor).
import assert from "node:assert/strict";
import { runDoctor } from "../../../lib/doctor/run.ts";
import { statuses, VM_NO_MODULE, vmContext } from "./_helpers.ts";

Deno.test("runDoctor() reports the VM rig's captured state check by check", () => {
  const results = runDoctor(vmContext());
  assert.deepEqual(statuses(results), {
    "kernel": "ok",
    "config": "ok",
    "config.DMA_SHARED_BUFFER": "ok",
    "config.DMABUF_HEAPS": "ok",
    "config.DMABUF_HEAPS_SYSTEM": "ok",
    "config.DMABUF_HEAPS_CMA": "fail",
    "config.CMA": "fail",
    "config.DMA_CMA": "fail",
    "config.SYNC_FILE": "ok",
    "config.INTEL_IOMMU|AMD_IOMMU": "ok",
    "config.DEBUG_FS": "ok",
    "config.FTRACE": "ok",
    "config.FUNCTION_TRACER": "ok",
    "config.FUNCTION_GRAPH_TRACER": "ok",
    "config.DYNAMIC_FTRACE": "ok",
    "config.PERF_EVENTS": "ok",
    "config.DMABUF_SYSFS_STATS": "warn",
    "dma-heap": "ok",
    "dma-heap.system": "ok",
    "dma-heap.cma": "fail",
    "cma": "fail",
    "tracefs": "ok",
    "function_graph": "ok",
    "debugfs": "ok",
    "bufinfo": "ok",
    "tracefs.state": "ok",
    "perf": "ok",
    "pmu": "warn",
    "npu": "ok",
    "npu.link": "warn",
    "npu.iommu": "ok",
    "driver": "ok",
    "device-node": "ok",
    "shim": "warn",
    "abi": "ok",
  });
});

Deno.test("runDoctor() gives every WARN and FAIL a fix", () => {
  for (const root of [undefined, VM_NO_MODULE]) {
    for (const r of runDoctor(vmContext({}, root))) {
      if (r.status !== "ok") assert.ok(r.fix && r.fix.length > 10, `${r.id} has no fix`);
    }
  }
});

Deno.test("runDoctor() names the VM's metis-sim on edu, its IOMMU group and the driver ABI", () => {
  const byId = new Map(runDoctor(vmContext()).map((r) => [r.id, r]));
  assert.match(
    byId.get("npu")!.message,
    /metis-sim engine on 0000:00:02\.0 \[1234:11e8, QEMU edu\]/,
  );
  assert.match(byId.get("npu.link")!.message, /no PCIe link attributes/);
  assert.equal(byId.get("npu.iommu")!.message, "0000:00:02.0 is in IOMMU group 2");
  assert.equal(
    byId.get("abi")!.message,
    "ABI driver 1, this build 1; engine metis-sim on 0000:00:02.0",
  );
  assert.match(byId.get("dma-heap.cma")!.fix!, /CONFIG_DMABUF_HEAPS_CMA=y/);
  assert.match(byId.get("cma")!.message, /no CmaTotal/);
  assert.match(byId.get("pmu")!.message, /cpu-clock/);
});

Deno.test("runDoctor() without axl.ko fails the NPU, driver and node checks and skips the ABI", () => {
  const results = runDoctor(vmContext({}, VM_NO_MODULE));
  const byId = new Map(results.map((r) => [r.id, r]));
  assert.equal(byId.get("npu")!.status, "fail");
  assert.match(byId.get("npu")!.message, /edu .* is present but metis-sim is not bound/);
  assert.match(byId.get("npu")!.fix!, /insmod kernel\/axl\.ko/);
  assert.equal(byId.get("driver")!.status, "fail");
  assert.match(byId.get("driver")!.fix!, /dkms install axl/);
  assert.equal(byId.get("device-node")!.status, "fail");
  assert.equal(byId.has("abi"), false);
  assert.equal(byId.has("npu.link"), false);
});
