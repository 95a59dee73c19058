/**
 * `doctor` in the shell (lib/commands/doctor.ts); the value is the list of checks.
 *
 * @module
 */
import { checkMachine, doctorExit, doctorSpec } from "../../commands/doctor.ts";
import { formatReport } from "../../doctor/mod.ts";
import type { ShellCommand } from "../command.ts";

/** The `doctor` command. */
export const command: ShellCommand = {
  ...doctorSpec,
  run(_ctx, args) {
    const report = checkMachine(args);
    return Promise.resolve({
      value: report.checks,
      text: formatReport(report.checks),
      code: doctorExit(report.counts),
    });
  },
};
