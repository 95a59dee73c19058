// Each doctor check with one fact of the captured VM state changed. There is no
// capture from a Jetson or a Metis card yet: the Metis PCI attributes below use
// the formats of drivers/pci/pci-sysfs.c ("8.0 GT/s PCIe", "4").
import assert from "node:assert/strict";
import { checkDriver } from "../../../lib/doctor/driver.ts";
import { checkKernelConfig, checkRelease } from "../../../lib/doctor/kernel.ts";
import { checkCmaPool, checkHeaps, parseMeminfo } from "../../../lib/doctor/memory.ts";
import { checkNpuPci, findNpu, parseLinkSpeed } from "../../../lib/doctor/pci.ts";
import { checkPerf, isCpuPmu } from "../../../lib/doctor/perf.ts";
import { checkTracing, parseMounts } from "../../../lib/doctor/tracing.ts";
import type { Override } from "./_helpers.ts";
import { statuses, vmContext } from "./_helpers.ts";

const METIS = "/sys/bus/pci/devices/0004:01:00.0";

function metis(link: { speed?: string; width?: string; driver?: string; group?: boolean }) {
  const o: Record<string, Override> = {
    [`${METIS}/vendor`]: { text: "0x1f9d\n" },
    [`${METIS}/device`]: { text: "0x1100\n" },
  };
  if (link.speed) o[`${METIS}/current_link_speed`] = { text: `${link.speed}\n` };
  if (link.width) o[`${METIS}/current_link_width`] = { text: `${link.width}\n` };
  if (link.speed) o[`${METIS}/max_link_speed`] = { text: "8.0 GT/s PCIe\n" };
  if (link.width) o[`${METIS}/max_link_width`] = { text: "4\n" };
  if (link.driver) o[`${METIS}/driver`] = { link: `../../../bus/pci/drivers/${link.driver}` };
  if (link.group !== false) o[`${METIS}/iommu_group`] = { link: "../../../kernel/iommu_groups/7" };
  return o;
}

Deno.test("checkRelease() takes L4T's 5.15 and warns about older kernels unless axl.ko is loaded", () => {
  const old = checkRelease(vmContext({ release: "5.10.120-tegra", arch: "aarch64" }, undefined));
  assert.equal(old.status, "ok", "the VM fixture has axl loaded");
  const bare = (release: string) =>
    checkRelease(vmContext({
      release,
      arch: "aarch64",
      overrides: { "/sys/module/axl": { remove: true } },
    }));
  assert.equal(bare("5.15.136-tegra").status, "ok");
  const r = bare("5.10.120-tegra");
  assert.equal(r.status, "warn");
  assert.match(r.message, /5\.15 \(L4T R36\), 6\.1 and 6\.12/);
  assert.match(r.fix!, /axl_compat\.h/);
  assert.equal(checkRelease(vmContext()).status, "ok");
});

Deno.test("checkKernelConfig() applies the arm64 rules on aarch64 (ARM_SMMU, IOMMU_DMA)", () => {
  const results = statuses(checkKernelConfig(vmContext({ arch: "aarch64" })));
  // The x86 config has IOMMU_DMA but no ARM_SMMU; the x86 IOMMU rule is not applied.
  assert.equal(results["config.ARM_SMMU|ARM_SMMU_V3"], "fail");
  assert.equal(results["config.IOMMU_DMA"], "ok");
  assert.equal(results["config.INTEL_IOMMU|AMD_IOMMU"], undefined);
});

Deno.test("checkKernelConfig() fails with the IKCONFIG fix when no config is readable", () => {
  const ctx = vmContext({ overrides: { "/boot": { remove: true } } });
  const [r, ...rest] = checkKernelConfig(ctx);
  assert.equal(rest.length, 0);
  assert.equal(r!.status, "fail");
  assert.match(r!.message, /\/proc\/config\.gz, \/boot\/config-6\.12\.117\+deb12-amd64/);
  assert.match(r!.fix!, /CONFIG_IKCONFIG_PROC/);
});

Deno.test("checkKernelConfig() accepts =m and reports a corrupt /proc/config.gz", () => {
  const config = vmContext().sys.readText("/boot/config-6.12.117+deb12-amd64")!;
  const modular = vmContext({
    overrides: {
      "/boot/config-6.12.117+deb12-amd64": {
        text: config.replace("CONFIG_SYNC_FILE=y", "CONFIG_SYNC_FILE=m"),
      },
    },
  });
  assert.equal(statuses(checkKernelConfig(modular))["config.SYNC_FILE"], "ok");
  const corrupt = vmContext({ overrides: { "/proc/config.gz": { text: "not gzip" } } });
  const [r] = checkKernelConfig(corrupt);
  assert.equal(r!.status, "fail");
  assert.match(r!.message, /\/proc\/config\.gz is not valid gzip data/);
});

Deno.test("checkHeaps() accepts linux,cma or reserved and warns when the user cannot open it", () => {
  const cma = vmContext({ overrides: { "/dev/dma_heap/linux,cma": { text: "" } } });
  assert.equal(statuses(checkHeaps(cma))["dma-heap.cma"], "ok");
  const reserved = vmContext({ overrides: { "/dev/dma_heap/reserved": { text: "" } } });
  assert.equal(statuses(checkHeaps(reserved))["dma-heap.cma"], "ok");
  const locked = vmContext({
    isRoot: false,
    overrides: { "/dev/dma_heap/system": { dir: [] } }, // exists, cannot be opened as a file
  });
  const sys = checkHeaps(locked).find((r) => r.id === "dma-heap.system")!;
  assert.equal(sys.status, "warn");
  assert.match(sys.fix!, /udev rule/);
  const none = checkHeaps(vmContext({ overrides: { "/dev/dma_heap": { remove: true } } }));
  assert.deepEqual(statuses(none), { "dma-heap": "fail" });
});

Deno.test("checkCmaPool() compares CmaTotal with the 256 MiB the board reserves", () => {
  const meminfo = vmContext().sys.readText("/proc/meminfo")!;
  const withCma = (kb: number) =>
    vmContext({
      overrides: {
        "/proc/meminfo": { text: `${meminfo}CmaTotal:       ${kb} kB\nCmaFree:        ${kb} kB\n` },
      },
    });
  assert.equal(checkCmaPool(withCma(262144)).status, "ok");
  assert.equal(checkCmaPool(withCma(262144)).message, "CmaTotal 256 MiB, CmaFree 256 MiB");
  assert.equal(checkCmaPool(withCma(65536)).status, "warn");
  assert.equal(checkCmaPool(withCma(0)).status, "fail");
  assert.equal(checkCmaPool(vmContext()).status, "fail");
  assert.equal(parseMeminfo(meminfo).get("MemTotal")! > 0, true);
});

Deno.test("checkTracing() fails without tracefs/debugfs and for a non-root bufinfo", () => {
  const mounts = vmContext().sys.readText("/proc/mounts")!;
  assert.equal(parseMounts(mounts).filter((m) => m.type === "tracefs").length, 2);
  const bare = mounts.split("\n").filter((l) => !/^(tracefs|debugfs) /.test(l)).join("\n");
  const r = statuses(checkTracing(vmContext({ overrides: { "/proc/mounts": { text: bare } } })));
  assert.deepEqual(r, { tracefs: "fail", debugfs: "fail" });
  const user = vmContext({
    isRoot: false,
    overrides: { "/sys/kernel/debug/dma_buf/bufinfo": { remove: true } },
  });
  const bufinfo = checkTracing(user).find((c) => c.id === "bufinfo")!;
  assert.equal(bufinfo.status, "fail");
  assert.match(bufinfo.fix!, /as root/);
  const noGraph = vmContext({
    overrides: { "/sys/kernel/tracing/available_tracers": { text: "blk function nop\n" } },
  });
  assert.equal(statuses(checkTracing(noGraph)).function_graph, "warn");
});

Deno.test("checkPerf() finds perf on PATH, and a PMU by name", () => {
  assert.equal(statuses(checkPerf(vmContext())).perf, "ok");
  assert.equal(statuses(checkPerf(vmContext({ pathDirs: ["/nowhere"] }))).perf, "fail");
  const user = checkPerf(vmContext({ isRoot: false }))[0]!;
  assert.equal(user.status, "warn", "perf_event_paranoid is 2 in the capture");
  const arm = vmContext({
    arch: "aarch64",
    overrides: { "/sys/bus/event_source/devices/armv8_cortex_a78/type": { text: "8\n" } },
  });
  assert.equal(statuses(checkPerf(arm)).pmu, "ok");
  assert.equal(isCpuPmu("cpu"), true);
  assert.equal(isCpuPmu("arm_dsu_0"), false);
});

Deno.test("checkNpuPci() passes a Metis at Gen3 x4 and warns on a degraded link", () => {
  const good = checkNpuPci(
    vmContext({ overrides: metis({ speed: "8.0 GT/s PCIe", width: "4", driver: "metis" }) }),
  );
  assert.deepEqual(statuses(good), { npu: "ok", "npu.link": "ok", "npu.iommu": "ok" });
  assert.match(good[0]!.message, /^Metis at 0004:01:00\.0 \[1f9d:1100\] driver metis$/);
  assert.equal(good[1]!.message, "link 8.0 GT/s PCIe x4 (max 8.0 GT/s PCIe x4)");

  const slow = checkNpuPci(
    vmContext({ overrides: metis({ speed: "2.5 GT/s PCIe", width: "1", driver: "metis" }) }),
  );
  assert.equal(slow[1]!.status, "warn");
  assert.match(slow[1]!.message, /link 2\.5 GT\/s PCIe x1 .*expected 8\.0 GT\/s x4/);
  assert.match(slow[1]!.fix!, /LnkSta/);

  const unbound = checkNpuPci(
    vmContext({ overrides: metis({ speed: "8.0 GT/s PCIe", width: "4", group: false }) }),
  );
  assert.deepEqual(statuses(unbound), { npu: "fail", "npu.link": "ok", "npu.iommu": "warn" });
});

Deno.test("findNpu() prefers an Axelera function over metis-sim; parseLinkSpeed() reads old and new formats", () => {
  const sim = { address: "0000:00:02.0", vendor: 0x1234, device: 0x11e8, driver: "axl-metis-sim" };
  const card = { address: "0004:01:00.0", vendor: 0x1f9d, device: 0x1100 };
  assert.equal(findNpu([sim, card])?.kind, "metis");
  assert.equal(findNpu([sim])?.kind, "metis-sim");
  assert.equal(findNpu([{ ...sim, driver: undefined } as never]), undefined);
  assert.equal(parseLinkSpeed("16.0 GT/s PCIe\n"), 16);
  assert.equal(parseLinkSpeed("5 GT/s"), 5);
  assert.equal(parseLinkSpeed("Unknown"), undefined);
});

Deno.test("checkDriver() fails an ABI mismatch and maps probe errors to fixes", () => {
  const newer = checkDriver(vmContext({
    probeDriver: () => ({
      ok: true,
      abiVersion: 2,
      engine: "metis",
      device: "0004:01:00.0",
      caps: [],
    }),
    probeShim: () => ({ ok: true, path: "/opt/axl/libaxl_shim.so", source: "env", abiVersion: 1 }),
  }));
  const abi = newer.find((r) => r.id === "abi")!;
  assert.equal(abi.status, "fail");
  assert.equal(
    abi.message,
    "ABI mismatch: ABI driver 2, shim 1, this build 1; engine metis on 0004:01:00.0",
  );
  assert.match(abi.fix!, /same release/);

  const denied = checkDriver(vmContext({
    isRoot: false,
    probeDriver: () => ({ ok: false, error: "device.open(/dev/axl) failed: EACCES" }),
  }));
  assert.match(denied.find((r) => r.id === "abi")!.fix!, /run as root/);

  const shim = checkDriver(vmContext({
    probeShim: () => ({
      ok: false,
      error: "cannot load libaxl_shim.so; tried:\n  /x (env): no such file",
    }),
  })).find((r) => r.id === "shim")!;
  assert.equal(shim.status, "fail");
  assert.equal(shim.message, "cannot load libaxl_shim.so; tried:");
  assert.match(shim.fix!, /\/x \(env\): no such file/);
});
