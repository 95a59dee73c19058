/**
 * `wait`: waits for a job's fence (on a worker thread; Ctrl-C stops waiting), then
 * reads the engine's result and, when the input's content is known (a frame filled
 * with the test pattern), compares it with the reference model.
 *
 * @module
 */
import type { EngineResult, Job, JobDone } from "../../core/device.ts";
import type { TransferDone } from "../../core/metis/device.ts";
import type { ReferenceResult } from "../../frames/reference.ts";
import { abortable } from "../abortable.ts";
import { parseCount } from "../args.ts";
import { type ShellCommand } from "../command.ts";
import { UsageError } from "../../commands/spec.ts";
import { ExitCode } from "../../commands/exit_code.ts";
import { formatNs } from "../render.ts";
import { resolveOrLatest } from "../resolve.ts";
import type { Session } from "../session.ts";
import { compareBytes, MetisTransfer, readBytes, type TransferCheck } from "../metis_objects.ts";
import type { CommandOutcome } from "../command.ts";

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
  summary: "wait for a job's fence (or a Metis transfer's poll) and check its result",
  positionals: [{ name: "JOB|TRANSFER", kind: "job", optional: true }],
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
    "status 1 when the job failed or the result differs from the reference.\n" +
    "On a Metis session it waits for a transfer (poll() on the node's file); a from-card\n" +
    "transfer's bytes are compared with what this session's transfers put at that card\n" +
    "address (exit status 1 when they differ).",
  async run(ctx, args) {
    if (args.positionals.length > 1) throw new UsageError("wait: one job at a time");
    const target = resolveOrLatest(ctx.session, args.positionals[0], ["job"], "wait");
    const v = args.values as Record<string, string | undefined>;
    const timeout = v.timeout === undefined ? 10_000 : parseCount(v.timeout, "wait: --timeout");
    if (target instanceof MetisTransfer) {
      return waitTransfer(ctx.session, target, await abortable(target.promise, ctx.signal));
    }
    const job = target as Job;
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

/** The value of `wait` on a Metis transfer. */
export interface TransferWaitResult {
  /** Which way it copied. */
  direction: string;
  /** Card address. */
  card: bigint;
  /** Bytes copied. */
  size: number;
  /** From the ioctl to the poll() completion, ns. */
  elapsedNs: bigint;
  /** For a from-card transfer of bytes this session put on the card: how they compare. */
  check?: TransferCheck;
  /** Whether the bytes match (absent without a check). */
  matches?: boolean;
}

function waitTransfer(
  session: Session,
  t: MetisTransfer,
  done: TransferDone,
): CommandOutcome {
  const out: TransferWaitResult = {
    direction: done.direction,
    card: done.card,
    size: done.size,
    elapsedNs: done.elapsedNs,
  };
  const where = `card 0x${done.card.toString(16)}`;
  const lines = [
    `transfer ${done.direction} ${where}: ${done.size} bytes in ${formatNs(done.elapsedNs)}`,
  ];
  const want = done.direction === "from-card" ? session.card.read(done.card, done.size) : undefined;
  if (want) {
    const got = readBytes(t.attachment.buffer, done.offset, done.size);
    out.check = compareBytes(got, want);
    out.matches = out.check.firstMismatch < 0;
    lines.push(
      out.matches
        ? `bytes     ${out.check.bytes} match what went to ${where}`
        : `bytes     MISMATCH at byte ${out.check.firstMismatch} of what went to ${where}`,
    );
  }
  return {
    value: out,
    text: lines.join("\n"),
    code: out.matches === false ? ExitCode.Fail : ExitCode.Ok,
  };
}
