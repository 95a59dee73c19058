/**
 * Axelera's own Metis driver, `metis.ko` (GPL, not part of axl): recognised, never mistaken
 * for ours. Its `pci_driver` is named `axl` (so `lspci -k` says "Kernel driver in use: axl"),
 * it binds `1f9d:1100` and creates `/dev/metis-<domain>-<bus>-<slot>`; our `axl.ko` registers
 * the PCI driver `axl-metis-sim` and creates `/dev/axl`. The vendor ID and the node names tell
 * them apart.
 *
 * What matters for zero-copy (from its sources, `axl-aipu-ioctl.c` `sysctl_ioctl_dma_xfer` and
 * `axl-aipu-edma.c`, and the 1.x `metis-ioctl.c`): its dma-buf import (`AXL_IOCTL_DMA_ATTACH`)
 * maps the whole buffer, and a transfer checks `offset + size` against the sum of every
 * scatterlist entry and has the eDMA walk every entry, so a scattered buffer (a system-heap
 * frame) moves whole: contiguity is not required. It holds one imported buffer per open file;
 * it has no dma_fence, sync_file or tracepoint, so verify counts its imports with kprobes.
 * Which generation is loaded (1.x `metis-*.c` or 1.6.x `axl-aipu-*.c`) decides whether
 * `GET_DMA_STATS` and the debugfs DMA trace ring exist ({@linkcode readMetisDriver}).
 *
 * One defect of the driver is visible from sysfs and hurts on a Jetson: 1.6.2's `GET_USER_PA`
 * (`'U'`, 50; `axl-aipu-ioctl.c` `sysctl_ioctl_get_user_pa`) answers with `page_to_phys()`, a
 * CPU physical address, which is not what the card must put on the bus when an IOMMU (Orin's
 * SMMU) translates its DMA. {@linkcode checkMetisKo} warns when such a driver is loaded and the
 * card's IOMMU group translates ({@linkcode getUserPa}).
 *
 * @module
 */
import { type MetisDriver, readMetisDriver, readSimMetisDriver } from "../core/metis/driver.ts";
import { type CheckResult, ok, warn } from "./check.ts";
import type { DoctorContext } from "./context.ts";
import { AXELERA_VENDOR, listPci, parseLinkSpeed, type PciFunction } from "./pci.ts";
import type { SystemView } from "./system.ts";

/** Axelera's module name (`metis.ko`). */
export const METIS_KO_MODULE = "metis";
/** The PCI driver name metis.ko registers — the same word as our project, not our driver. */
export const METIS_KO_PCI_DRIVER = "axl";

/**
 * Whether a metis.ko serves `GET_USER_PA`: `"yes"` from version 1.6 (1.6.2's source has it),
 * `"no"` below 1.6 (1.4.4, 1.4.16 and 1.5.6 have no such ioctl) and for the 1.x generation
 * without a version, `"maybe"` for a 1.6.x-generation driver that declares no version.
 *
 * @example
 * ```ts
 * import { getUserPa } from "./metis_ko.ts";
 * import { parseMetisDriver } from "../core/metis/driver.ts";
 * console.log(getUserPa(parseMetisDriver({ version: "1.6.2" }))); // "yes"
 * console.log(getUserPa(parseMetisDriver({ version: "1.4.17" }))); // "no"
 * ```
 */
export function getUserPa(driver: MetisDriver): "yes" | "no" | "maybe" {
  const m = /^v?(\d+)\.(\d+)/.exec(driver.version ?? "");
  if (m) return Number(m[1]) > 1 || Number(m[2]) >= 6 ? "yes" : "no";
  return driver.generation === "1.x" ? "no" : "maybe";
}

/** What sysfs and /dev show of metis.ko. */
export interface MetisKo {
  /** `/sys/module/metis` exists. */
  loaded: boolean;
  /** `MODULE_VERSION`, else `srcversion`; absent when neither is readable. */
  version?: string;
  /** The loaded driver's generation and what it offers; absent when not loaded. */
  driver?: MetisDriver;
  /** Axelera PCI functions bound to its `axl` PCI driver. */
  functions: PciFunction[];
  /** `/dev/metis-*` nodes. */
  nodes: string[];
}

/**
 * Finds metis.ko; undefined when nothing of it is on this machine.
 *
 * @example
 * ```ts
 * import { findMetisKo } from "./metis_ko.ts";
 * import { systemAt } from "./system.ts";
 * console.log(findMetisKo(systemAt(Deno.makeTempDirSync()))); // undefined
 * ```
 */
export function findMetisKo(sys: SystemView): MetisKo | undefined {
  const mod = `/sys/module/${METIS_KO_MODULE}`;
  const loaded = sys.kind(mod) === "dir";
  const functions = listPci(sys).filter((f) =>
    f.vendor === AXELERA_VENDOR && f.driver === METIS_KO_PCI_DRIVER
  );
  const nodes = (sys.list("/dev") ?? []).filter((n) => n.startsWith("metis-"))
    .map((n) => `/dev/${n}`);
  if (!loaded && functions.length === 0 && nodes.length === 0) return undefined;
  const version = sys.readText(`${mod}/version`)?.trim() ||
    sys.readText(`${mod}/srcversion`)?.trim();
  const driver = loaded ? readMetisDriver(sys, METIS_KO_MODULE) : undefined;
  return {
    loaded,
    ...(version ? { version } : {}),
    ...(driver ? { driver } : {}),
    functions,
    nodes,
  };
}

/**
 * The metis.ko checks: module and its generation, bound functions with link and IOMMU group,
 * nodes, and what it does with a dma-buf. Nothing when metis.ko is absent (axl.ko does not need it).
 *
 * @example
 * ```ts ignore
 * for (const r of checkMetisKo(ctx)) console.log(r.status, r.message);
 * ```
 */
export function checkMetisKo(ctx: DoctorContext): CheckResult[] {
  const m = findMetisKo(ctx.sys);
  if (!m) return [];
  const out: CheckResult[] = [];
  const notOurs = "Axelera's driver, not axl's: its PCI driver is named 'axl', ours is " +
    "axl.ko with PCI driver axl-metis-sim and /dev/axl";
  out.push(
    m.loaded
      ? ok(
        "metis.module",
        `metis.ko ${m.version ?? "(no version)"} is loaded (${notOurs}); ` +
          (m.driver?.summary ?? "generation unknown"),
      )
      : warn(
        "metis.module",
        `Metis functions or /dev/metis-* nodes exist but /sys/module/${METIS_KO_MODULE} does not`,
        "modprobe metis (Axelera's driver package), then check dmesg",
      ),
  );
  if (m.functions.length === 0) {
    out.push(warn(
      "metis.functions",
      "no Metis PCI function is bound to metis.ko's 'axl' PCI driver",
      "lspci -nnk -d 1f9d: must say 'Kernel driver in use: axl'; check dmesg for probe errors",
    ));
  }
  for (const fn of m.functions) out.push(functionCheck(ctx, fn));
  out.push(
    m.nodes.length > 0 ? ok("metis.nodes", m.nodes.join(", ")) : warn(
      "metis.nodes",
      "no /dev/metis-* node",
      "metis.ko creates /dev/metis-<domain>-<bus>-<slot> per card: check udev and dmesg",
    ),
  );
  const userPa = m.driver ? userPaCheck(ctx, m.driver, m.functions) : undefined;
  if (userPa) out.push(userPa);
  out.push(ok(
    "metis.zero-copy",
    "metis.ko maps the whole of an attached dma-buf (AXL_IOCTL_DMA_ATTACH) and its eDMA " +
      "walks every scatterlist entry, so scattered buffers (system heap) transfer whole; " +
      "one attached buffer per open file; no dma_fence, sync_file or tracepoint: verify " +
      `counts its imports with kprobes (axl verify --importer ${
        m.functions[0]?.address ?? "<PCI address>"
      })`,
  ));
  return out;
}

/**
 * `GET_USER_PA` against the card's IOMMU: a WARN when the driver has (or may have) it and a
 * bound function's IOMMU group translates (a DMA domain, or a type sysfs does not show);
 * OK when it has it but nothing translates; nothing when it has none.
 */
function userPaCheck(
  ctx: DoctorContext,
  driver: MetisDriver,
  functions: PciFunction[],
): CheckResult | undefined {
  const has = getUserPa(driver);
  if (has === "no") return undefined;
  const name = driver.version
    ? `metis.ko ${driver.version} serves`
    : `metis.ko (no version; an axl-aipu-*.c driver, 1.4.16 or later, by its ${driver.basis}) may serve`;
  const what = `${name} GET_USER_PA ('U', 50), which answers with page_to_phys(): a CPU ` +
    "physical address";
  const translated = functions.flatMap((fn) => {
    if (fn.iommuGroup === undefined) return [];
    const type = ctx.sys.readText(`/sys/kernel/iommu_groups/${fn.iommuGroup}/type`)?.trim();
    return type === "identity" ? [] : [
      `${fn.address} (IOMMU group ${fn.iommuGroup}, ${
        type ? `${type} domain` : "domain type unread"
      })`,
    ];
  });
  if (translated.length === 0) {
    return ok(
      "metis.user-pa",
      `${what}; no Metis function is behind a translating IOMMU (no group, or an identity ` +
        "domain), so that address is the one the card uses",
    );
  }
  return warn(
    "metis.user-pa",
    `${what}, but ${translated.join(", ")} sits behind an IOMMU that translates the card's ` +
      "DMA: a transfer programmed with that address goes to an IOVA that maps something else, " +
      "or nothing (an SMMU fault)",
    "program the card with addresses from a dma-buf import (DMA_ATTACH maps the buffer through " +
      "the IOMMU, which is all axl does), never with GET_USER_PA's; see docs/metis.md, " +
      "'metis.ko defects a user can hit'",
  );
}

/** One bound function: its link against Gen3 x4 and its IOMMU group. */
function functionCheck(ctx: DoctorContext, fn: PciFunction): CheckResult {
  const want = `${ctx.expect.linkGTs.toFixed(1)} GT/s x${ctx.expect.linkWidth}`;
  const speed = parseLinkSpeed(fn.linkSpeed);
  const width = Number(fn.linkWidth);
  const link = fn.linkSpeed === undefined
    ? "no link attributes"
    : `${fn.linkSpeed} x${fn.linkWidth}`;
  const group = fn.iommuGroup !== undefined ? `IOMMU group ${fn.iommuGroup}` : "no IOMMU group";
  const what = `${fn.address} bound to metis.ko: link ${link} (want ${want}), ${group}`;
  if (speed === undefined || !(width >= ctx.expect.linkWidth) || speed < ctx.expect.linkGTs) {
    return warn(
      "metis.functions",
      what,
      "lspci -vvv -s " + fn.address + ": LnkSta must show Speed 8GT/s, Width x4; reseat the card",
    );
  }
  if (fn.iommuGroup === undefined) {
    return warn(
      "metis.functions",
      what,
      "enable the SMMU for the PCIe controller: without it imports are not translated",
    );
  }
  return ok("metis.functions", what);
}

/**
 * axl.ko's simulated Metis nodes (`/dev/axl-metis-*`): which metis.ko release each presents
 * (`metis_generation=`), read where driver.ts reads a real metis.ko's version and parameters.
 * Nothing when there is no such node.
 *
 * @example
 * ```ts
 * import { checkMetisSim } from "./metis_ko.ts";
 * import { systemAt } from "./system.ts";
 * const sys = systemAt(Deno.makeTempDirSync());
 * console.log(checkMetisSim({ sys } as Parameters<typeof checkMetisSim>[0]).length); // 0
 * ```
 */
export function checkMetisSim(ctx: Pick<DoctorContext, "sys">): CheckResult[] {
  const nodes = (ctx.sys.list("/dev") ?? []).filter((n) => n.startsWith("axl-metis-")).sort();
  return nodes.map((n) => {
    const d = readSimMetisDriver(`/dev/${n}`, ctx.sys);
    return ok(
      "metis.sim",
      d
        ? `/dev/${n}: ${d.summary}`
        : `/dev/${n}: axl.ko's Metis-compatible node (this axl.ko names no metis.ko release)`,
    );
  });
}
