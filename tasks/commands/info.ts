/**
 * `axl info`: what the NPU driver reports (lib/commands/info.ts).
 *
 * @module
 */
import { cliCommand } from "../command.ts";
import { Device } from "../../lib/core/device.ts";
import { deviceInfo, infoSpec, infoText } from "../../lib/commands/info.ts";
import { ExitCode } from "../../lib/commands/exit_code.ts";
import { stringOption } from "../../lib/commands/spec.ts";
import { printJson } from "../_cli.ts";

/** The `info` command. */
export const command = cliCommand(infoSpec, (args) => {
  using dev = Device.open(stringOption(args, "device"));
  const info = deviceInfo(dev);
  if (args.values.json) printJson(info);
  else console.log(infoText(info));
  return ExitCode.Ok;
});
