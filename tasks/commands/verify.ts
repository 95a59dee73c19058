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
  replayArtifacts,
  verdictLines,
  VERIFY_EXIT,
  verifyImporter,
  type VerifyPlan,
  verifyPlan,
  verifySpec,
} from "../../lib/commands/verify.ts";
import {
  type BuiltinRun,
  builtinRun,
  couldNotRun,
  metisRun,
  openVerifyProducer,
  verifyMetisNode,
} from "../../lib/commands/verify_builtin.ts";
import { type ExternalRun, externalRun } from "../../lib/commands/verify_workload.ts";
import { writeVerifyOutputs } from "../../lib/commands/verify_outputs.ts";
import {
  CannotRunError,
  type ParsedArgs,
  stringOption,
  UsageError,
} from "../../lib/commands/spec.ts";
import { Device } from "../../lib/core/device.ts";
import { MetisDevice } from "../../lib/core/metis/device.ts";
import { replayVerify, runVerify } from "../../lib/verify/run.ts";
import { printJson } from "../_cli.ts";
import { join, relative } from "node:path";

/** Set by scripts/verify.sh for the VM guest: the host directory the artifacts go to. */
const ARTIFACTS_AS_ENV = "AXL_VERIFY_ARTIFACTS_AS";

type Run = ExternalRun & Partial<Pick<BuiltinRun, "device" | "axlDevice">>;

function printVerdict(
  result: Parameters<typeof verdictLines>[0],
  dir: string,
  html: string,
  written: string[],
) {
  for (const line of verdictLines(result)) console.log(line);
  for (const line of written) console.log(line);
  console.log(`${result.axl.status}  (artifacts: ${dir}; report: ${html})`);
}

// --replay DIR: the judge again on saved artifacts; nothing is captured, DIR is only read.
async function replay(args: ParsedArgs, plan: VerifyPlan, dir: string): Promise<number> {
  const judge = { ...plan.run.judge, ...(plan.importer ? { importer: plan.importer } : {}) };
  const out = replayArtifacts(dir, stringOption(args, "artifacts"));
  try {
    await Deno.mkdir(out, { recursive: true });
  } catch (e) {
    throw new CannotRunError(
      `verify: cannot write the artifacts directory ${out}: ${(e as Error).message} ` +
        "(give --artifacts a directory you can write)",
      { cause: e },
    );
  }
  let replayed: Awaited<ReturnType<typeof replayVerify>>;
  try {
    replayed = await replayVerify(dir, out, judge);
  } catch (e) {
    const what = e instanceof Deno.errors.NotFound
      ? `${dir} is not a verify artifacts directory (${(e as Error).message})`
      : (e as Error).message;
    throw new CannotRunError(`verify: cannot replay: ${what}`, { cause: e });
  }
  const { result, files } = replayed;
  const written = await writeVerifyOutputs(result, plan.outputs);
  // With --json, stdout is the one JSON document; everything else goes to stderr.
  const say = args.values.json ? console.error : console.log;
  say(`axl verify: replay of ${dir}: ${result.axl.workload.description}`);
  if (args.values.json) {
    for (const line of written) console.error(line);
    printJson(result);
  } else printVerdict(result, out, files.html, written);
  return VERIFY_EXIT[result.axl.status];
}

async function verify(args: ParsedArgs): Promise<number> {
  const plan = verifyPlan(args);
  const saved = stringOption(args, "replay");
  if (saved !== undefined) {
    const workload = ["config", "pid"].find((o) => stringOption(args, o) !== undefined) ??
      (args.rest !== undefined ? "-- COMMAND" : undefined);
    if (workload) {
      throw new UsageError(
        `verify: --replay judges saved artifacts; it takes no workload (${workload})`,
      );
    }
    return await replay(args, plan, saved);
  }
  const stack = new DisposableStack();
  try {
    const external = await externalRun(args, plan);
    let run: Run;
    if (external) {
      run = external;
    } else {
      const node = stringOption(args, "device");
      // a Metis node (metis.ko's ABI) runs the Metis builtin; anything else is axl.ko's
      const metisNode = verifyMetisNode(node);
      const card = metisNode ? stack.use(MetisDevice.open(metisNode)) : undefined;
      const dev = card ? undefined : stack.use(Device.open(node));
      const kind = stringOption(args, "producer") ?? "auto";
      const producer = stack.use(
        openVerifyProducer(
          kind,
          stringOption(args, "camera"),
          undefined,
          plan.size,
          plan.mode === "copy",
        ),
      );
      run = card ? stack.use(metisRun(plan, card, producer)) : builtinRun(plan, dev!, producer);
    }
    // With --json, stdout is the one JSON document; everything else goes to stderr.
    (args.values.json ? console.error : console.log)(run.headline);
    const tty = Deno.stderr.isTerminal();
    const { result, artifacts } = await runVerify({
      ...plan.run,
      workload: run.workload,
      headline: run.headline,
      ...(run.device ? { device: run.device } : {}),
      importer: verifyImporter(plan, run.axlDevice),
      onProgress: tty ? (m) => console.error(`  … ${m}`) : undefined,
    });
    const written = await writeVerifyOutputs(result, plan.outputs);
    if (args.values.json) {
      for (const line of written) console.error(line);
      printJson(result);
    } else {
      // In the VM rig the guest writes a directory that scripts/verify.sh then copies to the
      // host: it names the host's directory here, so the last line says where to look.
      const shown = Deno.env.get(ARTIFACTS_AS_ENV) || undefined;
      const html = shown ? join(shown, relative(artifacts.dir, artifacts.html)) : artifacts.html;
      printVerdict(result, shown ?? artifacts.dir, html, written);
    }
    return VERIFY_EXIT[result.axl.status];
  } catch (err) {
    return couldNotRun(err);
  } finally {
    stack.dispose();
  }
}

/** The `verify` command. */
export const command = cliCommand(verifySpec, verify);
