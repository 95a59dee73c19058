/**
 * NPU PCI checks: find the Metis (Axelera, `1f9d:1100`) — or, in the VM rig,
 * the QEMU `edu` function metis-sim binds to — read its link from sysfs and
 * compare it with Gen3 x4, and check that it sits in an IOMMU group.
 *
 * @module
 */
import { type CheckResult, fail, ok, warn } from "./check.ts";
import type { DoctorContext } from "./context.ts";
import type { SystemView } from "./system.ts";

/** Axelera's PCI vendor ID. */
export const AXELERA_VENDOR = 0x1f9d;
/** The Metis M.2 card's device ID (`lspci -d 1f9d:1100`). */
export const METIS_DEVICE = 0x1100;
/** QEMU's `edu` device, which metis-sim binds to in the VM rig. */
export const EDU_ID = { vendor: 0x1234, device: 0x11e8 } as const;
/** The PCI driver name of axl's metis-sim engine. */
export const METIS_SIM_DRIVER = "axl-metis-sim";

/** A PCI function as sysfs shows it. */
export interface PciFunction {
  /** Address, e.g. `0004:01:00.0`. */
  address: string;
  /** Vendor ID. */
  vendor: number;
  /** Device ID. */
  device: number;
  /** Bound driver name; absent when unbound. */
  driver?: string;
  /** IOMMU group number; absent when the function has none. */
  iommuGroup?: string;
  /** `current_link_speed` text, e.g. `8.0 GT/s PCIe`; absent on conventional PCI. */
  linkSpeed?: string;
  /** `current_link_width`, e.g. `4`. */
  linkWidth?: string;
  /** `max_link_speed`. */
  maxLinkSpeed?: string;
  /** `max_link_width`. */
  maxLinkWidth?: string;
}

const hex = (s: string | undefined) => (s === undefined ? NaN : parseInt(s.trim(), 16));
const base = (s: string | undefined) => s?.slice(s.lastIndexOf("/") + 1);
const hex4 = (n: number) => n.toString(16).padStart(4, "0");

/**
 * Every PCI function under `/sys/bus/pci/devices`.
 *
 * @example
 * ```ts ignore
 * import { listPci } from "./pci.ts";
 * import { systemAt } from "./system.ts";
 * console.log(listPci(systemAt("/")).map((f) => f.address));
 * ```
 */
export function listPci(sys: SystemView): PciFunction[] {
  const dir = "/sys/bus/pci/devices";
  return (sys.list(dir) ?? []).map((address) => {
    const read = (f: string) => sys.readText(`${dir}/${address}/${f}`)?.trim();
    const fn: PciFunction = {
      address,
      vendor: hex(read("vendor")),
      device: hex(read("device")),
    };
    const driver = base(sys.readLink(`${dir}/${address}/driver`));
    const group = base(sys.readLink(`${dir}/${address}/iommu_group`));
    if (driver) fn.driver = driver;
    if (group) fn.iommuGroup = group;
    const link: [keyof PciFunction, string][] = [
      ["linkSpeed", "current_link_speed"],
      ["linkWidth", "current_link_width"],
      ["maxLinkSpeed", "max_link_speed"],
      ["maxLinkWidth", "max_link_width"],
    ];
    for (const [key, file] of link) {
      const v = read(file);
      if (v !== undefined) (fn as unknown as Record<string, string>)[key] = v;
    }
    return fn;
  });
}

/**
 * Link speed in GT/s from sysfs text (`8.0 GT/s PCIe`, older kernels `8 GT/s`);
 * `undefined` for `Unknown` or anything else.
 *
 * @example
 * ```ts
 * import { parseLinkSpeed } from "./pci.ts";
 * console.log(parseLinkSpeed("8.0 GT/s PCIe")); // 8
 * console.log(parseLinkSpeed("Unknown")); // undefined
 * ```
 */
export function parseLinkSpeed(text: string | undefined): number | undefined {
  const m = /^(\d+(?:\.\d+)?) GT\/s/.exec(text?.trim() ?? "");
  return m ? Number(m[1]) : undefined;
}

/** The NPU the checks look at, and how it was recognised. */
export interface NpuFunction {
  /** The PCI function. */
  fn: PciFunction;
  /** `metis`: an Axelera function; `metis-sim`: bound to axl's simulated engine. */
  kind: "metis" | "metis-sim";
}

/**
 * Picks the NPU: an Axelera function (the Metis card first), else the function
 * bound to metis-sim.
 *
 * @example
 * ```ts
 * import { findNpu } from "./pci.ts";
 * const npu = findNpu([{ address: "0004:01:00.0", vendor: 0x1f9d, device: 0x1100 }]);
 * console.log(npu?.kind); // "metis"
 * ```
 */
export function findNpu(fns: readonly PciFunction[]): NpuFunction | undefined {
  const axelera = fns.filter((f) => f.vendor === AXELERA_VENDOR);
  const metis = axelera.find((f) => f.device === METIS_DEVICE) ?? axelera[0];
  if (metis) return { fn: metis, kind: "metis" };
  const sim = fns.find((f) => f.driver === METIS_SIM_DRIVER);
  return sim ? { fn: sim, kind: "metis-sim" } : undefined;
}

function describe(fn: PciFunction): string {
  const id = `${hex4(fn.vendor)}:${hex4(fn.device)}`;
  const edu = fn.vendor === EDU_ID.vendor && fn.device === EDU_ID.device ? ", QEMU edu" : "";
  // metis.ko's PCI driver is named `axl`: say whose it is.
  const whose = fn.driver === "axl" && fn.vendor === AXELERA_VENDOR ? " (Axelera's metis.ko)" : "";
  return `${fn.address} [${id}${edu}] driver ${fn.driver ?? "(none)"}${whose}`;
}

function checkLink(ctx: DoctorContext, fn: PciFunction): CheckResult {
  const want = `${ctx.expect.linkGTs.toFixed(1)} GT/s x${ctx.expect.linkWidth}`;
  const speed = parseLinkSpeed(fn.linkSpeed);
  const width = Number(fn.linkWidth);
  if (fn.linkSpeed === undefined || fn.linkWidth === undefined) {
    return warn(
      "npu.link",
      `${fn.address} has no PCIe link attributes (a conventional PCI function, like the VM's ` +
        `edu): the ${want} link cannot be checked`,
      "on the Jetson the Metis must show current_link_speed and current_link_width in sysfs",
    );
  }
  const found = `${fn.linkSpeed} x${fn.linkWidth}`;
  const maxNote = fn.maxLinkSpeed !== undefined
    ? ` (max ${fn.maxLinkSpeed} x${fn.maxLinkWidth ?? "?"})`
    : "";
  if (speed === undefined || !Number.isFinite(width)) {
    return warn("npu.link", `link ${found}${maxNote}: not trained`, "reseat the card, reboot");
  }
  if (speed < ctx.expect.linkGTs || width < ctx.expect.linkWidth) {
    return warn(
      "npu.link",
      `link ${found}${maxNote}, expected ${want} (Gen3 x4): DMA bandwidth and latency suffer`,
      "check the M.2 slot provides 4 lanes at Gen3, reseat the card, and look for link " +
        "retraining in dmesg (lspci -vvv: LnkSta must show Speed 8GT/s, Width x4)",
    );
  }
  return ok("npu.link", `link ${found}${maxNote}`);
}

/**
 * Checks the NPU's PCI function, its link and its IOMMU group.
 *
 * @example
 * ```ts ignore
 * for (const r of checkNpuPci(ctx)) console.log(r.status, r.message);
 * ```
 */
export function checkNpuPci(ctx: DoctorContext): CheckResult[] {
  const fns = listPci(ctx.sys);
  const npu = findNpu(fns);
  if (!npu) {
    const edu = fns.find((f) => f.vendor === EDU_ID.vendor && f.device === EDU_ID.device);
    return [
      fail(
        "npu",
        edu
          ? `no NPU: QEMU's edu (${describe(edu)}) is present but metis-sim is not bound to it`
          : `no NPU: no Axelera PCI function (${hex4(AXELERA_VENDOR)}:${hex4(METIS_DEVICE)}) ` +
            `among ${fns.length} PCI functions`,
        edu
          ? "load axl.ko (insmod kernel/axl.ko, or modprobe axl after the DKMS install)"
          : "check the Metis M.2 card is seated and enumerates (lspci -nn -d 1f9d:), and the " +
            "PCIe controller is enabled in the device tree",
      ),
    ];
  }
  const { fn, kind } = npu;
  const out: CheckResult[] = [];
  if (kind === "metis-sim") {
    out.push(ok("npu", `metis-sim engine on ${describe(fn)} (simulated NPU)`));
  } else if (!fn.driver) {
    out.push(
      fail(
        "npu",
        `Metis at ${describe(fn)} is not bound to a driver`,
        "load Axelera's driver (modprobe metis: metis.ko, whose PCI driver is named axl) for the " +
          "card itself, and check dmesg for probe errors; our axl.ko drives only the simulated " +
          "engine and does not bind 1f9d:1100",
      ),
    );
  } else {
    out.push(ok("npu", `Metis at ${describe(fn)}`));
  }
  out.push(checkLink(ctx, fn));
  out.push(
    fn.iommuGroup !== undefined
      ? ok("npu.iommu", `${fn.address} is in IOMMU group ${fn.iommuGroup}`)
      : warn(
        "npu.iommu",
        `${fn.address} is in no IOMMU group: imports are mapped without translation`,
        ctx.arch === "aarch64"
          ? "enable the SMMU for the PCIe controller (iommus property in the device tree)"
          : "boot with intel_iommu=on (the VM rig does)",
      ),
  );
  return out;
}
