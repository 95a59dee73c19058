/**
 * `verify` in the shell (lib/commands/verify.ts): the builtin workload on the session's
 * device (on a Metis session the Metis builtin: attach, transfer, detach), frames from a
 * session producer or one opened for the run, or a command or `--pid` workload
 * (`verify_workload.ts`); the value is result.json. Ctrl-C stops the frames (or the
 * command; a pid is left alone) and the run is judged on what was captured.
 *
 * @module
 */
import type { Producer } from "../../frames/producers/producer.ts";
import { runVerify } from "../../verify/run.ts";
import { stoppable, type WorkloadSpec } from "../../verify/workload.ts";
import {
  verdictLines,
  VERIFY_EXIT,
  verifyImporter,
  type VerifyPlan,
  verifyPlan,
  verifySpec,
} from "../../commands/verify.ts";
import {
  type BuiltinRun,
  builtinRun,
  couldNotRun,
  metisRun,
  openVerifyProducer,
} from "../../commands/verify_builtin.ts";
import { externalRun } from "../../commands/verify_workload.ts";
import { writeVerifyOutputs } from "../../commands/verify_outputs.ts";
import type { FrameSize } from "../../commands/options.ts";
import { type ParsedArgs, stringOption, UsageError } from "../../commands/spec.ts";
import type { CommandContext, CommandOutcome, ShellCommand } from "../command.ts";
import type { Session } from "../session.ts";

// A session producer by variable, or one opened for this run (closed after it).
function producerFor(
  session: Session,
  args: ParsedArgs,
  size: FrameSize,
  copy: boolean,
): { producer: Producer; owned: boolean } {
  const word = stringOption(args, "producer");
  if (word !== undefined && Object.hasOwn(session.scope, word)) {
    const p = session.scope[word];
    if (session.kindOf(p) !== "producer") throw new UsageError(`verify: ${word} is not a producer`);
    if (stringOption(args, "size") !== undefined) {
      throw new UsageError(
        `verify: --size is for a producer opened by verify; ${word} has its own`,
      );
    }
    return { producer: p as Producer, owned: false };
  }
  const camera = stringOption(args, "camera");
  return {
    producer: openVerifyProducer(word ?? "auto", camera, session.heap, size, copy),
    owned: true,
  };
}

/** The `verify` command. */
export const command: ShellCommand = {
  ...verifySpec,
  async run(ctx, args) {
    const plan = verifyPlan(args);
    const external = await externalRun(args, plan);
    if (external) {
      return await judged(plan, external.workload, external.headline, ctx);
    }
    const session = ctx.session;
    // a Metis session runs the Metis builtin on its node; an axl.ko one the job loop
    const card = session.driver === "metis" ? session.metis("verify") : undefined;
    const device = card ? undefined : session.device();
    const { producer, owned } = producerFor(session, args, plan.size, plan.mode === "copy");
    try {
      using run = card
        ? metisRun(plan, card, producer, session.heap)
        : { ...builtinRun(plan, device!, producer, session.heap), [Symbol.dispose]() {} };
      return await judged(plan, run.workload, run.headline, ctx, run);
    } finally {
      if (owned) producer.close();
    }
  },
};

// Runs and judges `workload` (stopped by Ctrl-C); the value is result.json.
async function judged(
  plan: VerifyPlan,
  workload: WorkloadSpec,
  headline: string,
  ctx: CommandContext,
  builtin?: BuiltinRun,
): Promise<CommandOutcome> {
  const { result, artifacts } = await runVerify({
    ...plan.run,
    workload: stoppable(workload, ctx.signal),
    headline,
    ...(builtin ? { device: builtin.device } : {}),
    importer: verifyImporter(plan, builtin?.axlDevice),
    onProgress: (m) => ctx.note(`… ${m}`),
  }).catch(couldNotRun);
  const lines = [
    headline,
    ...verdictLines(result),
    ...await writeVerifyOutputs(result, plan.outputs),
  ];
  lines.push(`${result.axl.status}  (artifacts: ${artifacts.dir})`);
  return { value: result, text: lines.join("\n"), code: VERIFY_EXIT[result.axl.status] };
}
