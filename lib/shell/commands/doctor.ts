/**
 * `doctor`: the `axl doctor` checks (lib/doctor) from inside the shell — kernel config,
 * heaps and CMA, tracing, perf, the NPU link, driver and shim ABI — each OK, WARN or
 * FAIL with the fix.
 *
 * @module
 */
import { countStatuses, doctorContext, formatReport, runDoctor } from "../../doctor/mod.ts";
import type { ShellCommand } from "../command.ts";
import { ExitCode } from "../exit_code.ts";

/** The `doctor` command. */
export const command: ShellCommand = {
  name: "doctor",
  summary: "check kernel config, heaps, CMA, tracing, perf, the NPU link and the driver ABI",
  positionals: [],
  options: {
    device: { type: "string", kind: "path", arg: "PATH", description: "device node to check" },
  },
  details: "The same checks as 'axl doctor' (its --help explains each). The value is the list\n" +
    "of checks. Exit status 1 when a check FAILs; WARNs are limits, not failures.",
  run(_ctx, args) {
    const device = args.values.device as string | undefined;
    const ctx = doctorContext(device === undefined ? {} : { devicePath: device });
    const checks = runDoctor(ctx);
    return Promise.resolve({
      value: checks,
      text: formatReport(checks),
      code: countStatuses(checks).fail ? ExitCode.Fail : ExitCode.Ok,
    });
  },
};
