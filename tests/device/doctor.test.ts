// `axl doctor` on the device reports the device's real state. Every expectation
// comes from an independent look at the same system (the files themselves, the
// driver's GET_INFO); the VM rig's exact verdicts are checked only in the VM.
import assert from "node:assert/strict";
import { Device } from "../../lib/core/device.ts";
import { doctorContext } from "../../lib/doctor/environment.ts";
import { runDoctor } from "../../lib/doctor/run.ts";
import type { CheckResult } from "../../lib/doctor/check.ts";
import { command } from "../../tasks/commands/doctor.ts";

const inVm = Deno.env.get("AXL_VM") === "1";

function exists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}

function doctor(): Map<string, CheckResult> {
  return new Map(runDoctor(doctorContext()).map((r) => [r.id, r]));
}

Deno.test("doctor's heap checks match /dev/dma_heap", () => {
  const r = doctor();
  assert.equal(r.get("dma-heap.system")?.status === "ok", exists("/dev/dma_heap/system"));
  const cma = exists("/dev/dma_heap/linux,cma") || exists("/dev/dma_heap/reserved");
  assert.equal(r.get("dma-heap.cma")?.status === "fail", !cma);
});

Deno.test("doctor finds the NPU the driver attaches imports to, and the driver's ABI", () => {
  using dev = Device.open();
  const info = dev.info();
  const r = doctor();
  assert.equal(r.get("npu")?.status, "ok");
  assert.ok(r.get("npu")!.message.includes(info.device), `npu check names ${info.device}`);
  assert.equal(r.get("driver")?.status, "ok");
  assert.equal(r.get("shim")?.status, "ok");
  const abi = r.get("abi")!;
  assert.equal(abi.status, "ok");
  assert.ok(abi.message.startsWith(`ABI driver ${info.abiVersion}, shim ${info.abiVersion},`));
  assert.ok(abi.message.endsWith(`engine ${info.engine} on ${info.device}`));
});

Deno.test("doctor's tracing checks match the mounted tracefs and debugfs", () => {
  const r = doctor();
  assert.equal(r.get("tracefs")?.status === "ok", exists("/sys/kernel/tracing/trace"));
  assert.equal(r.get("bufinfo")?.status === "ok", exists("/sys/kernel/debug/dma_buf/bufinfo"));
});

Deno.test({
  name: "doctor reports the VM rig: system heap, no CMA, no PMU, metis-sim on edu",
  ignore: !inVm,
  fn() {
    const r = doctor();
    const status = (id: string) => r.get(id)?.status;
    assert.equal(status("dma-heap.system"), "ok");
    assert.equal(status("dma-heap.cma"), "fail");
    assert.equal(status("cma"), "fail");
    assert.equal(status("pmu"), "warn");
    assert.equal(status("function_graph"), "ok");
    assert.match(r.get("npu")!.message, /^metis-sim engine on \S+ \[1234:11e8, QEMU edu\]/);
    assert.equal(status("npu.link"), "warn", "edu is conventional PCI: no link attributes");
    assert.equal(status("npu.iommu"), "ok");
    assert.equal(status("abi"), "ok");
  },
});

Deno.test({
  name: "axl doctor exits 1 in the VM rig (no CMA) and prints the fix",
  ignore: !inVm,
  async fn() {
    const lines: string[] = [];
    const log = console.log;
    console.log = (...a: unknown[]) => void lines.push(a.join(" "));
    let code: number;
    try {
      code = await command.run([]);
    } finally {
      console.log = log;
    }
    const out = lines.join("\n");
    console.log(out);
    assert.equal(code, 1);
    assert.match(out, /^FAIL {2}dma-heap\.cma/m);
    assert.match(out, /fix: set CONFIG_DMABUF_HEAPS_CMA=y/);
  },
});
