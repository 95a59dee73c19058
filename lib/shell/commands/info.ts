/**
 * `info`: what the NPU driver reports about itself (GET_INFO).
 *
 * @module
 */
import { Device, type DeviceInfo } from "../../device.ts";
import type { ShellCommand } from "../command.ts";

/**
 * Text of a device's info, as `axl info` prints it.
 *
 * @example
 * ```ts ignore
 * import { Device } from "../../device.ts";
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

/** The `info` command. */
export const command: ShellCommand = {
  name: "info",
  summary: "show the NPU driver's ABI, engine, attach device and limits",
  positionals: [],
  options: {
    device: {
      type: "string",
      kind: "path",
      arg: "PATH",
      description: "ask another device node (default: the session's device)",
    },
  },
  details: "Opens the session's device (AXL_DEVICE or /dev/axl, or the shell's --device)\n" +
    "on first use. 'this file' counts the imports and jobs this session holds.",
  run(ctx, args) {
    const path = args.values.device as string | undefined;
    if (path !== undefined) {
      using dev = Device.open(path);
      const info = dev.info();
      return Promise.resolve({ value: info, text: infoText(info) });
    }
    const info = ctx.session.device().info();
    return Promise.resolve({ value: info, text: infoText(info) });
  },
};
