/**
 * `axl info`: what the NPU driver reports (GET_INFO).
 *
 * @module
 */
import { type Command, ExitCode } from "../command.ts";
import { Device } from "../../lib/core/device.ts";
import { infoText } from "../../lib/shell/commands/info.ts";
import { parseOptions, printJson, runCommand } from "../_cli.ts";

/** The `info` command. */
export const command: Command = {
  name: "info",
  summary: "show the NPU driver's ABI, engine, attach device and limits",
  help: `Usage: axl info [--device PATH] [--json]

Opens the NPU device node (default: $AXL_DEVICE or /dev/axl) and prints what the
driver reports: ABI version, engine (metis or metis-sim), the device imports attach
to, fence timeline, capabilities and per-file limits.

Options:
  --device PATH  device node to open
  --json         print JSON

Exit codes: 0 ok, 3 the device could not be opened (the message says why).`,
  run(args: string[]): Promise<number> {
    return runCommand("info", () => {
      const { values } = parseOptions("info", args, {
        device: { type: "string" },
        json: { type: "boolean", default: false },
      });
      using dev = Device.open(values.device);
      const info = dev.info();
      if (values.json) {
        printJson(info);
      } else {
        console.log(infoText(info));
      }
      return ExitCode.Ok;
    });
  },
};
