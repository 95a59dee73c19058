/**
 * `run` in the shell (lib/commands/run.ts) on the session's device; the value is the
 * report. Ctrl-C stops it between frames; everything it allocated is freed either way.
 *
 * @module
 */
import type { Producer } from "../../frames/producers/producer.ts";
import { runWorkload, type WorkloadReport } from "../../frames/workload.ts";
import { openRunProducer, runExit, runPlan, runSpec } from "../../commands/run.ts";
import { type ParsedArgs, stringOption } from "../../commands/spec.ts";
import { parseCount } from "../args.ts";
import type { ShellCommand } from "../command.ts";
import { formatNs } from "../render.ts";
import { resolveObject } from "../resolve.ts";
import type { Session } from "../session.ts";

// A producer variable of the session, or a heap/v4l2 producer opened for this run.
function producerOf(session: Session, args: ParsedArgs, heap: string) {
  const word = stringOption(args, "producer");
  if (word === undefined) return { owned: false };
  if ((word === "heap" || word === "v4l2") && !Object.hasOwn(session.scope, word)) {
    return { producer: openRunProducer(args, heap), owned: true };
  }
  return { producer: resolveObject(session, word, ["producer"], "run") as Producer, owned: false };
}

/**
 * Text summary of a workload report.
 *
 * @example
 * ```ts ignore
 * import { runWorkload } from "../../frames/workload.ts";
 * console.log(reportText(await runWorkload({ frames: 5 })));
 * ```
 */
export function reportText(r: WorkloadReport): string {
  const l = r.latencyNs;
  return [
    `${r.mode} run: ${r.completed}/${r.framesRequested} frames from ${r.producer}` +
    `${r.aborted ? " (stopped by Ctrl-C)" : ""}`,
    `imports ${r.imports}, releases ${r.releases}, result mismatches ${r.mismatches}`,
    `latency p50 ${formatNs(l.p50)}  p90 ${formatNs(l.p90)}  p99 ${formatNs(l.p99)}  max ${
      formatNs(l.max)
    }`,
    `cpu ${formatNs(r.cpuNsPerFrame.p50)}/frame (p50), wall ${formatNs(r.wallNs)}`,
    `exporters ${r.exporters.join(", ") || "-"}; inodes ${r.inodes.join(" ") || "-"}`,
  ].join("\n");
}

/** The `run` command. */
export const command: ShellCommand = {
  ...runSpec,
  async run(ctx, args) {
    const plan = runPlan(args);
    const heap = stringOption(args, "heap") ?? ctx.session.heap;
    const { producer, owned } = producerOf(ctx.session, args, heap);
    let lastNote = 0;
    try {
      const report = await runWorkload({
        ...plan,
        device: ctx.session.device(),
        heap,
        ...(producer ? { producer } : {}),
        model: parseCount(stringOption(args, "model") ?? "0", "run: --model"),
        // Waiting on a worker thread keeps Ctrl-C responsive.
        syncWait: false,
        signal: ctx.signal,
        onFrame: (stat) => {
          const now = performance.now();
          if (now - lastNote > 1000) {
            lastNote = now;
            ctx.note(`frame ${stat.index + 1}/${plan.frames}: ${formatNs(stat.latencyNs)}`);
          }
        },
      });
      return { value: report, text: reportText(report), code: runExit(report) };
    } finally {
      if (owned) producer?.close();
    }
  },
};
