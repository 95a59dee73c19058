// `axl doctor` on the device reports the device's real state. Every expectation
// comes from an independent look at the same system (the files themselves, the
// driver's GET_INFO); the VM rig's exact verdicts are checked only in the VM.
import assert from "node:assert/strict";
import { Device } from "../../lib/core/device.ts";
import { doctorContext } from "../../lib/doctor/environment.ts";
import { runDoctor } from "../../lib/doctor/run.ts";
import type { CheckResult, Status } from "../../lib/doctor/check.ts";
import { command } from "../../tasks/commands/doctor.ts";
import { pathExists } from "../../lib/core/path_exists.ts";

const inVm = Deno.env.get("AXL_VM") === "1";
// The x86_64 rig has no CMA and no PMU; the arm64 rig is Jetson-shaped: a
// linux,cma heap from its device tree, 256 MiB of CMA, the ARMv8 PMU.
const inX86Vm = inVm && Deno.build.arch === "x86_64";
const inArm64Vm = inVm && Deno.build.arch === "aarch64";

function doctor(): Map<string, CheckResult> {
  return new Map(runDoctor(doctorContext()).map((r) => [r.id, r]));
}

/** Checks the status of every check `expected` names at once, so a failure lists them all. */
function assertStatuses(r: Map<string, CheckResult>, expected: Record<string, Status>): void {
  const actual = Object.fromEntries(Object.keys(expected).map((id) => [id, r.get(id)?.status]));
  assert.deepEqual(actual, expected);
}

Deno.test("doctor's heap checks match /dev/dma_heap", () => {
  const r = doctor();
  assert.equal(r.get("dma-heap.system")?.status === "ok", pathExists("/dev/dma_heap/system"));
  const cma = pathExists("/dev/dma_heap/linux,cma") || pathExists("/dev/dma_heap/reserved");
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
  assert.equal(r.get("tracefs")?.status === "ok", pathExists("/sys/kernel/tracing/trace"));
  assert.equal(r.get("bufinfo")?.status === "ok", pathExists("/sys/kernel/debug/dma_buf/bufinfo"));
});

Deno.test({
  name: "doctor reports the VM rig: system heap, no CMA, no PMU, metis-sim on edu",
  ignore: !inX86Vm,
  fn() {
    const r = doctor();
    assertStatuses(r, {
      "dma-heap.system": "ok",
      "dma-heap.cma": "fail",
      cma: "fail",
      pmu: "warn",
      function_graph: "ok",
      "npu.link": "warn", // edu is conventional PCI: no link attributes
      "npu.iommu": "ok",
      abi: "ok",
    });
    assert.match(r.get("npu")!.message, /^metis-sim engine on \S+ \[1234:11e8, QEMU edu\]/);
    // the release the simulated node presents (metis_generation=, default 1.6.2)
    assert.match(
      r.get("metis.sim")!.message,
      /^\/dev\/axl-metis-\S+: axl\.ko's metis-sim presenting metis\.ko 1\.6\.2: the 1\.6\.x driver/,
    );
  },
});

Deno.test({
  name:
    "doctor reports the arm64 rig: the linux,cma heap and CMA by their names, the PMU, the SMMU",
  ignore: !inArm64Vm,
  fn() {
    const r = doctor();
    assertStatuses(r, {
      "dma-heap.system": "ok",
      "dma-heap.cma": "ok",
      cma: "ok",
      pmu: "ok",
      "npu.iommu": "ok", // edu sits behind the SMMUv3
      abi: "ok",
    });
    assert.equal(r.get("dma-heap.cma")!.message, "/dev/dma_heap/linux,cma");
    const cmaKb = Number(
      /^CmaTotal:\s+(\d+) kB$/m.exec(Deno.readTextFileSync("/proc/meminfo"))![1],
    );
    assert.match(r.get("cma")!.message, new RegExp(`^CmaTotal ${Math.round(cmaKb / 1024)} MiB,`));
    assert.match(r.get("pmu")!.message, /armv8_pmuv3/);
    assert.match(r.get("npu")!.message, /^metis-sim engine on \S+ \[1234:11e8, QEMU edu\]/);
  },
});

/** Runs `axl doctor` in this process; its exit code and what it printed. */
async function runDoctorCommand(): Promise<{ code: number; out: string }> {
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
  return { code, out };
}

Deno.test({
  name: "axl doctor exits 1 in the VM rig (no CMA) and prints the fix",
  ignore: !inX86Vm,
  async fn() {
    const { code, out } = await runDoctorCommand();
    assert.equal(code, 1);
    assert.match(out, /^FAIL {2}dma-heap\.cma/m);
    assert.match(out, /fix: set CONFIG_DMABUF_HEAPS_CMA=y/);
  },
});

Deno.test({
  name: "axl doctor exits 0 in the arm64 rig and names the CMA heap linux,cma",
  ignore: !inArm64Vm,
  async fn() {
    const { code, out } = await runDoctorCommand();
    assert.equal(code, 0);
    assert.match(out, /^OK {4}dma-heap\.cma +\/dev\/dma_heap\/linux,cma$/m);
    assert.doesNotMatch(out, /^FAIL/m);
  },
});
