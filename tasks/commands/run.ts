/**
 * `axl run`: the builtin workload (producer → import → submit → wait → result →
 * release) with per-frame latency from fence timestamps (lib/commands/run.ts).
 *
 * @module
 */
import { cliCommand } from "../command.ts";
import { ExitCode } from "../../lib/commands/exit_code.ts";
import {
  frameLine,
  openRunProducer,
  runExit,
  runPlan,
  runSpec,
  summaryLine,
} from "../../lib/commands/run.ts";
import { type ParsedArgs, stringOption } from "../../lib/commands/spec.ts";
import { runWorkload } from "../../lib/frames/workload.ts";
import { printJson } from "../_cli.ts";

async function run(args: ParsedArgs): Promise<number> {
  const plan = runPlan(args);
  const heap = stringOption(args, "heap") ?? "system";
  using producer = openRunProducer(args, heap);
  const ctl = new AbortController();
  const onSignal = (): void => ctl.abort();
  Deno.addSignalListener("SIGINT", onSignal);
  try {
    const quiet = args.values.json === true || args.values.quiet === true;
    const report = await runWorkload({
      ...plan,
      producer,
      heap,
      device: stringOption(args, "device"),
      signal: ctl.signal,
      onFrame: quiet ? undefined : (f) => console.log(frameLine(f)),
    });
    if (args.values.json) printJson(report);
    else console.log(summaryLine(report));
    // Ctrl-C on the command line is a run that did not complete.
    return runExit(report, ExitCode.Fail);
  } finally {
    Deno.removeSignalListener("SIGINT", onSignal);
  }
}

/** The `run` command. */
export const command = cliCommand(runSpec, run);
