/**
 * The workloads `verify` runs besides the builtin: a command after `--`, a command from
 * `--config FILE`, or a process already running (`--pid`). The CLI and the shell take them
 * from here, so both accept the same words and say the same things.
 *
 * @module
 */
import { z } from "../_deps.ts";
import { commandWorkload, pidWorkload, type WorkloadSpec } from "../verify/workload.ts";
import { intOption } from "./options.ts";
import { type ParsedArgs, stringOption, UsageError } from "./spec.ts";
import type { VerifyPlan } from "./verify.ts";

/** The config file of a command workload (`--config FILE`). */
const ConfigSchema = z.object({
  /** argv of the workload, e.g. the GStreamer pipeline of docs/design.md. */
  command: z.array(z.string()).min(1),
  /** Frames the command submits (as `--frames`; also sizes the trace buffer). */
  frames: z.number().int().positive().optional(),
  acceptExporters: z.array(z.string()).optional(),
});

/** A workload that is not the builtin, with its first line. */
export interface ExternalRun {
  workload: WorkloadSpec;
  headline: string;
}

/**
 * The workload `args` name besides the builtin, or undefined for the builtin. `--config`
 * may add accepted exporters to `plan`. A UsageError says which words conflict.
 *
 * @example
 * ```ts
 * import { externalRun } from "./verify_workload.ts";
 * import { verifyPlan } from "./verify.ts";
 * const args = { values: { frames: "30" }, positionals: [], rest: ["gst-launch-1.0", "-q"] };
 * const run = await externalRun(args, verifyPlan(args));
 * console.log(run?.workload.kind); // "command"
 * console.log(run?.headline.includes("gst-launch-1.0 -q")); // true
 * ```
 */
export async function externalRun(
  args: ParsedArgs,
  plan: VerifyPlan,
): Promise<ExternalRun | undefined> {
  const config = stringOption(args, "config");
  const pid = stringOption(args, "pid");
  const given = [
    args.rest !== undefined ? "-- COMMAND" : "",
    config !== undefined ? "--config" : "",
    pid !== undefined ? "--pid" : "",
  ].filter(Boolean);
  if (given.length > 1) {
    throw new UsageError(`verify: ${given.join(" and ")} exclude each other: give one workload`);
  }
  if (stringOption(args, "duration") !== undefined && pid === undefined) {
    throw new UsageError("verify: --duration applies to --pid only");
  }
  if (args.rest !== undefined) {
    if (args.rest.length === 0) throw new UsageError("verify: expected a command after '--'");
    return commandRun(args.rest, plan.framesGiven, "command");
  }
  if (config !== undefined) return await configRun(config, plan);
  if (pid !== undefined) return pidRun(args, pid, plan.framesGiven);
  return undefined;
}

function commandRun(argv: string[], frames: number | undefined, from: string): ExternalRun {
  return {
    workload: commandWorkload(argv, frames !== undefined ? { frames } : {}),
    headline: `axl verify: ${from}: ${argv.join(" ")}`,
  };
}

async function configRun(file: string, plan: VerifyPlan): Promise<ExternalRun> {
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
  return commandRun(
    cfg.data.command,
    plan.framesGiven ?? cfg.data.frames,
    `command workload from ${file}`,
  );
}

function pidRun(args: ParsedArgs, pidText: string, frames: number | undefined): ExternalRun {
  const pid = intOption("verify", "pid", pidText, 1);
  try {
    Deno.statSync(`/proc/${pid}`);
  } catch {
    throw new UsageError(`verify: --pid ${pid}: no such process (is it still running?)`);
  }
  const durationText = stringOption(args, "duration");
  const seconds = durationText === undefined ? undefined : Number(durationText);
  if (seconds !== undefined && !(seconds > 0)) {
    throw new UsageError(`verify: --duration must be > 0 seconds, got '${durationText}'`);
  }
  return {
    workload: pidWorkload(pid, {
      ...(seconds !== undefined ? { durationMs: seconds * 1000 } : {}),
      ...(frames !== undefined ? { frames } : {}),
    }),
    headline: seconds === undefined
      ? `axl verify: observing pid ${pid} until it exits (Ctrl-C stops observing)`
      : `axl verify: observing pid ${pid} for ${seconds} s`,
  };
}
