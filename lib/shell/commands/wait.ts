/**
 * `wait`: waits for a job's fence (on a worker thread; Ctrl-C stops waiting), then
 * reads the engine's result and, when the input's content is known (a frame filled
 * with the test pattern), compares it with the reference model.
 *
 * @module
 */
import type { EngineResult, Job, JobDone } from "../../core/device.ts";
import type { ReferenceResult } from "../../frames/reference.ts";
import { abortable } from "../abortable.ts";
import { parseCount } from "../args.ts";
import { type ShellCommand } from "../command.ts";
import { UsageError } from "../../commands/spec.ts";
import { ExitCode } from "../../commands/exit_code.ts";
import { formatNs } from "../render.ts";
import { resolveOrLatest } from "../resolve.ts";

/** The value of `wait`. */
export interface WaitResult {
  /** The job's fence sequence number. */
  seqno: bigint;
  /** Final fence state: `signaled` (an error is thrown instead). */
  status: string;
  /** Fence signal time minus the driver's submit time, ns. */
  latencyNs: bigint;
  /** Driver submit time (CLOCK_MONOTONIC ns). */
  submitNs: bigint;
  /** Fence signal time (CLOCK_MONOTONIC ns). */
  signalNs: bigint;
  /** The decoded engine result. */
  result: EngineResult;
  /** What the reference model says the result must be, when the input is known. */
  reference?: ReferenceResult;
  /** Whether result and reference agree (absent without a reference). */
  matches?: boolean;
}

function hex(n: number): string {
  return `0x${n.toString(16).padStart(8, "0")}`;
}

/** The `wait` command. */
export const command: ShellCommand = {
  name: "wait",
  summary: "wait for a job's fence and read its result; checks it against the reference",
  positionals: [{ name: "JOB", kind: "job", optional: true }],
  options: {
    timeout: {
      type: "string",
      kind: "number",
      arg: "MS",
      description: "give up after MS milliseconds (default 10000)",
    },
  },
  details: "Latency is the fence's signal timestamp minus the driver's submit time. The\n" +
    "result is read once through a bracketed CPU mapping of the result buffer. Exit\n" +
    "status 1 when the job failed or the result differs from the reference.",
  async run(ctx, args) {
    if (args.positionals.length > 1) throw new UsageError("wait: one job at a time");
    const job = resolveOrLatest(ctx.session, args.positionals[0], ["job"], "wait") as Job;
    const v = args.values as Record<string, string | undefined>;
    const timeout = v.timeout === undefined ? 10_000 : parseCount(v.timeout, "wait: --timeout");
    const done: JobDone = job.done ?? await abortable(job.wait(timeout), ctx.signal);
    const result = job.readResult();
    const out: WaitResult = {
      seqno: job.seqno,
      status: done.fence.status,
      latencyNs: done.latencyNs,
      submitNs: done.submitNs,
      signalNs: done.signalNs,
      result,
    };
    const reference = ctx.session.bufferMeta(job.input.buffer)?.reference;
    const lines = [
      `job seqno ${job.seqno}: ${done.fence.status} after ${formatNs(done.latencyNs)}`,
      `result    crc32 ${hex(result.crc32)}  luma ${result.lumaMin}..${result.lumaMax} ` +
      `sum ${result.lumaSum}  ${result.width}x${result.height} status ${result.status || "ok"}`,
    ];
    let code: number = result.status === 0 ? ExitCode.Ok : ExitCode.Fail;
    if (reference) {
      out.reference = reference;
      out.matches = reference.crc32 === result.crc32 && reference.lumaMin === result.lumaMin &&
        reference.lumaMax === result.lumaMax && reference.lumaSum === result.lumaSum;
      lines.push(
        out.matches
          ? `reference crc32 ${hex(reference.crc32)}: matches`
          : `reference crc32 ${hex(reference.crc32)} luma ${reference.lumaMin}..` +
            `${reference.lumaMax} sum ${reference.lumaSum}: MISMATCH`,
      );
      if (!out.matches) code = ExitCode.Fail;
    }
    return { value: out, text: lines.join("\n"), code };
  },
};
