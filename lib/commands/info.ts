/**
 * `info`: what the NPU driver reports about itself (GET_INFO).
 *
 * @module
 */
import type { DeviceInfo } from "../core/device.ts";
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
    "on first use. 'this file' counts the imports and jobs this session holds.",
  cli: {
    details: `Opens the NPU device node (default: $AXL_DEVICE or /dev/axl) and prints what the
driver reports: ABI version, engine (metis or metis-sim), the device imports attach
to, fence timeline, capabilities and per-file limits.`,
    exits: [
      [ExitCode.Ok, "ok"],
      [ExitCode.CannotRun, "the device could not be opened (the message says why)"],
    ],
  },
};

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
  ].join("\n");
}
