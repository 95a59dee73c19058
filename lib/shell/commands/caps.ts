/**
 * `caps` in the shell (lib/commands/caps.ts); the value is the report.
 *
 * @module
 */
import { capsExit, capsRequest, capsSpec, runCapsCheck } from "../../commands/caps.ts";
import { renderCapsReport } from "../../caps/render.ts";
import type { ShellCommand } from "../command.ts";

/** The `caps` command. */
export const command: ShellCommand = {
  ...capsSpec,
  async run(_ctx, args) {
    const { report } = await runCapsCheck(capsRequest(args));
    return {
      value: report,
      text: renderCapsReport(report, { verbose: args.values.verbose === true }),
      code: capsExit(report),
    };
  },
};
