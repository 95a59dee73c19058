/**
 * `axl doctor`: checks what the Jetson frame path needs and prints each check as
 * OK, WARN or FAIL with the fix (lib/commands/doctor.ts).
 *
 * @module
 */
import { cliCommand } from "../command.ts";
import { checkMachine, doctorExit, doctorSpec } from "../../lib/commands/doctor.ts";
import { formatReport } from "../../lib/doctor/mod.ts";
import { printJson } from "../_cli.ts";

/** The `doctor` command. */
export const command = cliCommand(doctorSpec, (args) => {
  const report = checkMachine(args);
  if (args.values.json) {
    printJson(report);
  } else {
    console.log(
      `axl doctor: ${report.release || "unknown kernel"} on ${report.arch}` +
        (report.root === "/" ? "" : ` (captured tree ${report.root})`),
    );
    console.log(formatReport(report.checks));
  }
  return doctorExit(report.counts);
});

if (import.meta.main) {
  Deno.exit(await command.run(Deno.args));
}
