/**
 * `axl verify`: proves the zero-copy frame path on this machine (invariants I1–I4) and
 * writes an artifacts directory with the raw evidence, result.json, a Perfetto trace and an
 * HTML report (lib/commands/verify.ts). Besides the builtin it runs a command (`-- COMMAND`,
 * `--config`) or observes a process (`--pid`): `lib/commands/verify_workload.ts`.
 *
 * @module
 */
import { cliCommand } from "../command.ts";
import {
  verdictLines,
  VERIFY_EXIT,
  verifyImporter,
  verifyPlan,
  verifySpec,
} from "../../lib/commands/verify.ts";
import {
  type BuiltinRun,
  builtinRun,
  couldNotRun,
  openVerifyProducer,
} from "../../lib/commands/verify_builtin.ts";
import { type ExternalRun, externalRun } from "../../lib/commands/verify_workload.ts";
import { type ParsedArgs, stringOption } from "../../lib/commands/spec.ts";
import { Device } from "../../lib/core/device.ts";
import { runVerify } from "../../lib/verify/run.ts";
import { printJson } from "../_cli.ts";

type Run = ExternalRun & Partial<Pick<BuiltinRun, "device" | "axlDevice">>;

function printVerdict(result: Parameters<typeof verdictLines>[0], dir: string, html: string) {
  for (const line of verdictLines(result)) console.log(line);
  console.log(`${result.axl.status}  (artifacts: ${dir}; report: ${html})`);
}

async function verify(args: ParsedArgs): Promise<number> {
  const plan = verifyPlan(args);
  const stack = new DisposableStack();
  try {
    const external = await externalRun(args, plan);
    let run: Run;
    if (external) {
      run = external;
    } else {
      const dev = stack.use(Device.open(stringOption(args, "device")));
      const kind = stringOption(args, "producer") ?? "auto";
      const producer = stack.use(openVerifyProducer(kind, stringOption(args, "camera")));
      run = builtinRun(plan, dev, producer);
    }
    console.log(run.headline);
    const tty = Deno.stderr.isTerminal();
    const { result, artifacts } = await runVerify({
      ...plan.run,
      workload: run.workload,
      headline: run.headline,
      ...(run.device ? { device: run.device } : {}),
      importer: verifyImporter(plan, run.axlDevice),
      onProgress: tty ? (m) => console.error(`  … ${m}`) : undefined,
    });
    if (args.values.json) printJson(result);
    else printVerdict(result, artifacts.dir, artifacts.html);
    return VERIFY_EXIT[result.axl.status];
  } catch (err) {
    return couldNotRun(err);
  } finally {
    stack.dispose();
  }
}

/** The `verify` command. */
export const command = cliCommand(verifySpec, verify);
