/**
 * `axl verify`: proves the zero-copy frame path on this machine (invariants I1–I4) and
 * writes an artifacts directory with the raw evidence, result.json, a Perfetto trace and an
 * HTML report (lib/commands/verify.ts). The CLI adds two workloads: a command from a
 * config file and an existing process.
 *
 * @module
 */
import { z } from "zod";
import { cliCommand } from "../command.ts";
import {
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
  openVerifyProducer,
} from "../../lib/commands/verify_builtin.ts";
import { intOption } from "../../lib/commands/options.ts";
import {
  CannotRunError,
  type ParsedArgs,
  stringOption,
  UsageError,
} from "../../lib/commands/spec.ts";
import { Device } from "../../lib/core/device.ts";
import { replayVerify, runVerify } from "../../lib/verify/run.ts";
import { commandWorkload, pidWorkload } from "../../lib/verify/workload.ts";
import { printJson } from "../_cli.ts";

/** The config file of a command workload (`--config FILE`). */
const ConfigSchema = z.object({
  /** argv of the workload, e.g. the GStreamer pipeline of seed 000. */
  command: z.array(z.string()).min(1),
  /** Frames the command is expected to run (sizes the trace buffer). */
  frames: z.number().int().positive().optional(),
  acceptExporters: z.array(z.string()).optional(),
});

type Run =
  & Omit<BuiltinRun, "device" | "axlDevice">
  & Partial<Pick<BuiltinRun, "device" | "axlDevice">>;

async function configRun(file: string, plan: VerifyPlan): Promise<Run> {
  let raw: unknown;
  try {
    raw = JSON.parse(await Deno.readTextFile(file));
  } catch (e) {
    throw new UsageError(`verify: cannot read --config ${file}: ${(e as Error).message}`);
  }
  const cfg = ConfigSchema.safeParse(raw);
  if (!cfg.success) {
    const i = cfg.error.issues[0]!;
    throw new UsageError(`verify: --config ${file}: ${i.path.join(".") || "(root)"}: ${i.message}`);
  }
  const judge = plan.run.judge!;
  const accepted = [...(judge.acceptedExporters ?? []), ...(cfg.data.acceptExporters ?? [])];
  plan.run = { ...plan.run, judge: { ...judge, acceptedExporters: accepted } };
  return {
    workload: commandWorkload(cfg.data.command, cfg.data.frames ?? 300),
    headline: `axl verify: command workload from ${file}: ${cfg.data.command.join(" ")}`,
  };
}

function pidRun(args: ParsedArgs, pidText: string): Run {
  const pid = intOption("verify", "pid", pidText, 1);
  const seconds = Number(stringOption(args, "duration") ?? "10");
  if (!(seconds > 0)) throw new UsageError("verify: --duration must be > 0 seconds");
  return {
    workload: pidWorkload(pid, seconds * 1000),
    headline: `axl verify: observing pid ${pid} for ${seconds} s`,
  };
}

function printVerdict(result: Parameters<typeof verdictLines>[0], dir: string, html: string) {
  for (const line of verdictLines(result)) console.log(line);
  console.log(`${result.axl.status}  (artifacts: ${dir}; report: ${html})`);
}

// --replay DIR: the judge again on saved artifacts; nothing is captured.
async function replay(args: ParsedArgs, plan: VerifyPlan, dir: string): Promise<number> {
  const judge = { ...plan.run.judge, ...(plan.importer ? { importer: plan.importer } : {}) };
  let replayed: Awaited<ReturnType<typeof replayVerify>>;
  try {
    replayed = await replayVerify(dir, plan.run.artifacts, judge);
  } catch (e) {
    const what = e instanceof Deno.errors.NotFound
      ? `${dir} is not a verify artifacts directory (${(e as Error).message})`
      : (e as Error).message;
    throw new CannotRunError(`verify: cannot replay: ${what}`, { cause: e });
  }
  const { result, files } = replayed;
  console.log(`axl verify: replay of ${dir}: ${result.axl.workload.description}`);
  if (args.values.json) printJson(result);
  else printVerdict(result, plan.run.artifacts, files.html);
  return VERIFY_EXIT[result.axl.status];
}

async function verify(args: ParsedArgs): Promise<number> {
  const plan = verifyPlan(args);
  const config = stringOption(args, "config");
  const pid = stringOption(args, "pid");
  const saved = stringOption(args, "replay");
  if ([config, pid, saved].filter(Boolean).length > 1) {
    throw new UsageError("verify: --config, --pid and --replay exclude each other");
  }
  if (saved) return await replay(args, plan, saved);
  const stack = new DisposableStack();
  try {
    let run: Run;
    if (config) {
      run = await configRun(config, plan);
    } else if (pid) {
      run = pidRun(args, pid);
    } else {
      const dev = stack.use(Device.open(stringOption(args, "device")));
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
