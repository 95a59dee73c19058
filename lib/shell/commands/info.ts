/**
 * `info` in the shell (lib/commands/info.ts): the session's device, or another node.
 *
 * @module
 */
import { Device } from "../../core/device.ts";
import { deviceInfo, infoSpec, infoText, metisInfo, metisInfoText } from "../../commands/info.ts";
import { stringOption } from "../../commands/spec.ts";
import type { ShellCommand } from "../command.ts";

/** The `info` command. */
export const command: ShellCommand = {
  ...infoSpec,
  run(ctx, args) {
    const path = stringOption(args, "device");
    if (path !== undefined) {
      using dev = Device.open(path);
      const info = deviceInfo(dev);
      return Promise.resolve({ value: info, text: infoText(info) });
    }
    if (ctx.session.driver === "metis") {
      const info = metisInfo(ctx.session.metis("info"));
      return Promise.resolve({ value: info, text: metisInfoText(info) });
    }
    const info = deviceInfo(ctx.session.device());
    return Promise.resolve({ value: info, text: infoText(info) });
  },
};
