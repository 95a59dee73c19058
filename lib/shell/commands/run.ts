/**
 * `run`: the builtin workload — N frames of import → submit → wait → read result →
 * release — in zero-copy mode or the copy-every-frame negative control. Ctrl-C stops it
 * between frames; everything it allocated is freed either way.
 *
 * @module
 */
import type { Producer } from "../../frames/producers/producer.ts";
import { runWorkload, type WorkloadMode, type WorkloadReport } from "../../frames/workload.ts";
import { parseCount } from "../args.ts";
import { type ShellCommand, UsageError } from "../command.ts";
import { ExitCode } from "../exit_code.ts";
import { formatNs } from "../render.ts";
import { resolveObject } from "../resolve.ts";

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
  name: "run",
  summary: "run the builtin workload (N frames import/submit/wait/release); value: the report",
  positionals: [],
  options: {
    frames: {
      type: "string",
      short: "n",
      kind: "number",
      arg: "N",
      description: "frames (default 30)",
    },
    mode: {
      type: "string",
      kind: "choice",
      choices: ["zero-copy", "copy"],
      description: "zero-copy, or copy every frame first (negative control)",
    },
    producer: {
      type: "string",
      kind: "producer",
      arg: "PRODUCER",
      description: "frame source from 'produce' (default: heap test patterns)",
    },
    heap: { type: "string", kind: "heap", arg: "HEAP", description: "heap for frames and results" },
    timeout: {
      type: "string",
      kind: "number",
      arg: "MS",
      description: "per-job timeout (default 2000)",
    },
    model: { type: "string", kind: "number", arg: "ID", description: "model id (default 0)" },
  },
  details: "Uses the session's device. Exit status 1 when a frame's result differed from\n" +
    "the reference or imports and releases do not balance.",
  async run(ctx, args) {
    if (args.positionals.length) throw new UsageError(`run: unexpected '${args.positionals[0]}'`);
    const v = args.values as Record<string, string | undefined>;
    const mode = (v.mode ?? "zero-copy") as WorkloadMode;
    if (mode !== "zero-copy" && mode !== "copy") {
      throw new UsageError(`run: --mode is zero-copy or copy, not '${v.mode}'`);
    }
    const frames = v.frames === undefined ? 30 : parseCount(v.frames, "run: --frames");
    let lastNote = 0;
    const report = await runWorkload({
      frames,
      mode,
      device: ctx.session.device(),
      heap: v.heap ?? ctx.session.heap,
      ...(v.producer === undefined
        ? {}
        : { producer: resolveObject(ctx.session, v.producer, ["producer"], "run") as Producer }),
      ...(v.timeout === undefined ? {} : { timeoutMs: parseCount(v.timeout, "run: --timeout") }),
      ...(v.model === undefined ? {} : { model: parseCount(v.model, "run: --model") }),
      // Waiting on a worker thread keeps Ctrl-C responsive.
      syncWait: false,
      signal: ctx.signal,
      onFrame: (stat) => {
        const now = performance.now();
        if (now - lastNote > 1000) {
          lastNote = now;
          ctx.note(`frame ${stat.index + 1}/${frames}: ${formatNs(stat.latencyNs)}`);
        }
      },
    });
    const ok = report.mismatches === 0 && report.imports === report.releases &&
      (report.aborted || report.completed === frames);
    return {
      value: report,
      text: reportText(report),
      code: report.aborted ? ExitCode.Interrupted : ok ? ExitCode.Ok : ExitCode.Fail,
    };
  },
};
