/**
 * `info`: what the NPU driver reports about itself (GET_INFO).
 *
 * @module
 */
import { type Device, type DeviceInfo, probeImplicitSync } from "../core/device.ts";
import { defaultFrameHeap, Heap } from "../core/heap.ts";
import type { MetisDevice } from "../core/metis/device.ts";
import type { MetisNodeName } from "../core/metis/node.ts";
import type { MetisProperties, MetisResources } from "../core/metis/queries.ts";
import { readMetisDriver, readSimMetisDriver } from "../core/metis/driver.ts";
import { ExitCode } from "./exit_code.ts";
import type { CommandSpec } from "./spec.ts";

/** The declaration of `info`. */
export const infoSpec: CommandSpec = {
  name: "info",
  summary: "show the NPU driver's ABI, engine, attach device and limits",
  positionals: [],
  options: {
    device: {
      type: "string",
      kind: "path",
      arg: "PATH",
      description: "device node to open (default: $AXL_DEVICE or /dev/axl; in the shell, the\n" +
        "session's device)",
    },
    json: { type: "boolean", description: "print JSON", only: "cli" },
  },
  details: "Opens the session's device (AXL_DEVICE or /dev/axl, or the shell's --device)\n" +
    "on first use; on a Metis session, the node's properties and card memory. 'this file' counts the imports and jobs this session holds.",
  cli: {
    details: `Opens the NPU device node (default: $AXL_DEVICE or /dev/axl) and prints what the
driver reports: ABI version, engine (metis or metis-sim), the device imports attach
to, fence timeline, capabilities, per-file limits, and whether jobs' fences are
published into their buffers for implicit sync (Linux 6.0 and later).`,
    exits: [
      [ExitCode.Ok, "ok"],
      [ExitCode.CannotRun, "the device could not be opened (the message says why)"],
    ],
  },
};

/** What `info` says of each implicit-sync state. */
const IMPLICIT_SYNC_TEXT: Record<DeviceInfo["implicitSync"], string> = {
  on:
    "on (each job's fence is added to its result buffer, and to its input where the kernel allows)",
  off: "off (turned off at open: readers of the result must wait on the job's fence)",
  unavailable: "unavailable (kernel before Linux 6.0: no DMA_BUF_IOCTL_IMPORT_SYNC_FILE; " +
    "readers of the result must wait on the job's fence)",
  unknown: "unknown (no dma-buf to probe the kernel with)",
};

/**
 * The device's info with its implicit-sync state learnt: when no job of this process has
 * told yet, the kernel is probed with a page from the default frame heap (nothing is changed
 * in it); without a heap the state stays `unknown`.
 *
 * @example
 * ```ts ignore
 * import { Device } from "../core/device.ts";
 * using dev = Device.open();
 * console.log(deviceInfo(dev).implicitSync); // "on" on Linux 6.0 and later
 * ```
 */
export function deviceInfo(dev: Device): DeviceInfo {
  if (dev.implicitSync === "unknown") {
    try {
      using page = Heap.open(defaultFrameHeap()).allocate(4096);
      probeImplicitSync(page);
    } catch {
      // no DMA heap here: the state stays unknown, and the info line says why
    }
  }
  return dev.info();
}

/**
 * Text of a device's info, as `info` prints it.
 *
 * @example
 * ```ts ignore
 * import { Device } from "../core/device.ts";
 * using dev = Device.open();
 * console.log(infoText(dev.info()));
 * ```
 */
export function infoText(info: DeviceInfo): string {
  return [
    `device    ${info.path}`,
    // Only our axl.ko answers GET_INFO; say so, as Axelera's metis.ko's PCI driver is also "axl".
    `driver    ${info.driver} (ABI ${info.abiVersion}; axl.ko, not Axelera's metis.ko)`,
    `engine    ${info.engine}`,
    `attaches  ${info.device}`,
    `timeline  ${info.timeline}`,
    `caps      ${info.caps.join(" ") || "-"}`,
    `limits    ${info.maxImports} imports, ${info.maxJobs} jobs per open file`,
    `this file ${info.fileImports} imports, ${info.fileJobs} jobs in flight`,
    `sync      implicit sync ${syncText(info)}`,
  ].join("\n");
}

/** The `sync` line's state: a driver with `implicit-sync-input` publishes in both buffers. */
function syncText(info: DeviceInfo): string {
  if (info.implicitSync === "on" && info.caps.includes("implicit-sync-input")) {
    return "on (the driver adds each job's fence to its result buffer as a writer's and to its input as a reader's)";
  }
  return IMPLICIT_SYNC_TEXT[info.implicitSync];
}

/** What `info` shows about a Metis node. */
export interface MetisInfo {
  /** Node path. */
  path: string;
  /** `metis` (Axelera's metis.ko) or `axl-metis` (axl.ko's simulator node). */
  driver: MetisNodeName["driver"];
  /** The PCI function as bufinfo names an attached device (function 0), if on PCI. */
  pci?: string;
  /** GET_DEV_PROPERTY. */
  properties: MetisProperties;
  /** GET_RESOURCE_INFO. */
  resources: MetisResources;
  /** The driver behind the node and its version (for metis.ko, its source generation). */
  driverVersion: string;
  /**
   * GET_DMA_STATS: the most scatterlist entries of a buffer the card transferred since the
   * driver loaded; undefined when the driver did not answer GET_DMA_STATS.
   */
  maxSegments?: number;
}

function readParam(module: string, name: string): string | undefined {
  try {
    return Deno.readTextFileSync(`/sys/module/${module}/parameters/${name}`).trim();
  } catch {
    return undefined;
  }
}

/**
 * What drives the node: metis.ko's generation, or axl.ko with its eDMA pass size and the
 * metis.ko release its node presents.
 */
function driverVersion(driver: MetisNodeName["driver"], path: string): string {
  if (driver === "metis") {
    return readMetisDriver()?.summary ?? "metis.ko (/sys/module/metis is not readable)";
  }
  let version = "";
  try {
    version = Deno.readTextFileSync("/sys/module/axl/version").trim();
  } catch {
    // axl.ko without MODULE_VERSION
  }
  const pass = readParam("axl", "metis_ll_max");
  const presents = readSimMetisDriver(path);
  return `axl.ko${version ? ` ${version}` : ""}: metis.ko's dma-buf ABI with GET_DMA_STATS` +
    (pass ? `, eDMA passes of ${pass} descriptors` : "") +
    (presents ? `; ${presents.summary}` : "");
}

function maxSegments(dev: MetisDevice): number | undefined {
  try {
    return dev.maxSegments();
  } catch {
    return undefined; // the driver did not answer GET_DMA_STATS
  }
}

/** The {@linkcode MetisInfo} of an open node. */
export function metisInfo(dev: MetisDevice): MetisInfo {
  const pci = dev.node.pci;
  return {
    path: dev.path,
    driver: dev.node.driver,
    ...(pci
      ? {
        pci: `${pci.domain.toString(16).padStart(4, "0")}:${
          pci.bus.toString(16).padStart(2, "0")
        }:${pci.slot.toString(16).padStart(2, "0")}.0`,
      }
      : {}),
    properties: dev.properties(),
    resources: dev.resources(),
    driverVersion: driverVersion(dev.node.driver, dev.path),
    ...(() => {
      const n = maxSegments(dev);
      return n === undefined ? {} : { maxSegments: n };
    })(),
  };
}

/**
 * Text of a Metis node's info, as `info` prints it on a Metis session.
 *
 * @example
 * ```ts
 * import { metisInfoText } from "./info.ts";
 * const text = metisInfoText({
 *   path: "/dev/axl-metis-0-0-3", driver: "axl-metis", pci: "0000:00:03.0",
 *   properties: { hwGen: 0, aicoreCount: 4, pveCoreCount: 0, pesGroup: -1 },
 *   resources: { l2: { base: 0n, size: 0n }, ddr: [{ base: 0n, size: 1048576n }] },
 *   driverVersion: "axl.ko", maxSegments: 33,
 * });
 * console.log(text.includes("card DDR  0x0 +1048576")); // true
 * console.log(text.includes("most scatterlist entries of a transfer so far: 33")); // true
 * ```
 */
export function metisInfoText(info: MetisInfo): string {
  const p = info.properties;
  return [
    `device    ${info.path}`,
    `driver    ${info.driver} (${
      info.driver === "metis" ? "Axelera's metis.ko" : "axl.ko's node with metis.ko's ABI"
    }; transfers complete through poll(), no fences)`,
    `version   ${info.driverVersion}`,
    `attaches  ${info.pci ?? "platform device"}`,
    `card      hw gen ${p.hwGen}, ${p.aicoreCount} AI cores, ${p.pveCoreCount} PVE cores`,
    // the driver reports a fixed array of areas; unused ones are empty
    ...info.resources.ddr.filter((d) => d.size > 0n).map((d) =>
      `card DDR  0x${d.base.toString(16)} +${d.size}`
    ),
    "limits    one attached buffer per open file, one transfer at a time",
    `sg        any dma-buf attaches, scattered or not: the eDMA walks every scatterlist entry; ${
      info.maxSegments === undefined
        ? "GET_DMA_STATS did not answer, so no count"
        : `most scatterlist entries of a transfer so far: ${info.maxSegments}`
    }`,
  ].join("\n");
}
