/**
 * `verify`: the zero-copy verification (lib/verify) of the builtin workload on the
 * session's device — trace, bufinfo samples, map-ref scans and perf around N frames,
 * judged against invariants I1–I4, artifacts written to a directory.
 *
 * @module
 */
import { builtinWorkload } from "../../verify/builtin_workload.ts";
import { runVerify } from "../../verify/run.ts";
import type { Status } from "../../verify/schema.ts";
import type { Producer } from "../../producers/producer.ts";
import type { WorkloadMode } from "../../workload.ts";
import { parseCount } from "../args.ts";
import { type ShellCommand, UsageError } from "../command.ts";
import { ExitCode } from "../exit_code.ts";
import { resolveObject } from "../resolve.ts";

const EXIT: Record<Status, number> = {
  PASS: ExitCode.Ok,
  FAIL: ExitCode.Fail,
  SKIP: ExitCode.Inconclusive,
  INCONCLUSIVE: ExitCode.Inconclusive,
};

/** The `verify` command. */
export const command: ShellCommand = {
  name: "verify",
  summary: "verify the zero-copy invariants I1–I4 on the builtin workload; value: result.json",
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
      description: "zero-copy, or the copy negative control (must fail I4)",
    },
    producer: {
      type: "string",
      kind: "producer",
      arg: "PRODUCER",
      description: "frame source from 'produce'",
    },
    artifacts: {
      type: "string",
      kind: "path",
      arg: "DIR",
      description: "where trace, samples and result.json go (default artifacts/shell-verify)",
    },
    "no-graph": { type: "boolean", description: "skip function_graph (faster to set up)" },
    "no-perf": { type: "boolean", description: "skip perf (I4 then SKIPs)" },
  },
  details: "Needs root, tracefs and debugfs. Exit status 0 PASS, 1 FAIL, 2 SKIP or\n" +
    "INCONCLUSIVE. Ctrl-C stops the workload; tracefs is restored either way.",
  async run(ctx, args) {
    if (args.positionals.length) {
      throw new UsageError(`verify: unexpected '${args.positionals[0]}'`);
    }
    const v = args.values as Record<string, string | boolean | undefined>;
    const mode = (v.mode ?? "zero-copy") as WorkloadMode;
    if (mode !== "zero-copy" && mode !== "copy") {
      throw new UsageError(`verify: --mode is zero-copy or copy, not '${v.mode}'`);
    }
    const frames = typeof v.frames === "string" ? parseCount(v.frames, "verify: --frames") : 30;
    const device = ctx.session.device();
    const info = device.info();
    const producer = typeof v.producer === "string"
      ? resolveObject(ctx.session, v.producer, ["producer"], "verify") as Producer
      : undefined;
    const inner = builtinWorkload({
      frames,
      mode,
      device,
      heap: ctx.session.heap,
      ...(producer ? { producer } : {}),
    });
    // Ctrl-C stops the frames; the run is then judged on what was captured.
    const workload = {
      ...inner,
      start: () => {
        const running = inner.start();
        ctx.signal.addEventListener("abort", () => running.stop(), { once: true });
        return running;
      },
    };
    const run = runVerify({
      artifacts: typeof v.artifacts === "string" ? v.artifacts : "artifacts/shell-verify",
      workload,
      headline: `axl verify (shell): ${workload.description} on ${info.engine} ${info.device}`,
      graph: v["no-graph"] !== true,
      perf: v["no-perf"] !== true,
      device: { name: `${info.engine} ${info.device}`, simulated: info.caps.includes("simulated") },
      onProgress: (m) => ctx.note(m),
    });
    const { result, artifacts } = await run;
    const inv = result.axl.invariants;
    const lines = [
      `${result.axl.status}: ${result.axl.headline}`,
      ...(["I1", "I2", "I3", "I4"] as const).map((k) =>
        `  ${k} ${inv[k].status.padEnd(12)} ${inv[k].summary}`
      ),
      `artifacts: ${artifacts.dir} (result.json, report.html, trace.txt)`,
    ];
    return { value: result, text: lines.join("\n"), code: EXIT[result.axl.status] };
  },
};
