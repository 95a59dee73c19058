/**
 * One story per verdict: the sections of a judged result agree on where the chain broke, and
 * the result says why it has its status in one sentence (`axl.reason`). A pipeline that left
 * the camera's dma-buf at an element makes the chain `broken` at that pad and its diagnosis
 * the first; a workload that failed after its frames says so in the reason; a workload that
 * failed before its first frame gets no verdict at all ({@linkcode WorkloadFailedEarlyError}).
 *
 * @module
 */
import { diagnosis } from "./diagnosis.ts";
import type { VerifyResult } from "./schema.ts";

/**
 * A workload that failed (non-zero exit, not stopped on request) before the run saw any of its
 * frames: there is nothing to judge, so there is no verdict. Exit 3; the message ends with the
 * last lines of its stderr.
 *
 * @example
 * ```ts
 * import { WorkloadFailedEarlyError } from "./story.ts";
 * const e = new WorkloadFailedEarlyError("sh -c false", 1, "boom");
 * console.log(e.message);
 * ```
 */
export class WorkloadFailedEarlyError extends Error {
  /** Nothing was judged: the run could not be verified (exit 3). */
  readonly exitKind = "cannot-run" as const;
  /** The workload's exit code. */
  readonly exitCode: number;
  constructor(description: string, exitCode: number, stderrTail?: string) {
    const tail = (stderrTail ?? "").split("\n").filter((l) => l.trim()).slice(-5);
    super(
      `the workload failed before its first frame (exit code ${exitCode}), so there is no ` +
        `verdict: ${description}` +
        (tail.length ? `\n  its stderr ended:\n${tail.map((l) => `    ${l}`).join("\n")}` : ""),
    );
    this.name = "WorkloadFailedEarlyError";
    this.exitCode = exitCode;
  }
}

/** Whether the workload of `r` failed: a non-zero exit it was not asked for. */
function workloadFailed(r: VerifyResult): boolean {
  const w = r.axl.workload;
  return w.exit_code !== null && w.exit_code !== 0 && !w.stopped;
}

/** Whether `r` shows none of the workload's frames: no import, no traced frame, no attachment. */
function madeNoFrame(r: VerifyResult): boolean {
  return r.detail.imports === 0 && r.axl.frames.traced === 0 &&
    r.detail.multi_attach_inodes.length === 0 && (r.axl.pipeline?.pads.length ?? 0) === 0;
}

/**
 * Throws {@linkcode WorkloadFailedEarlyError} when the workload of `r` failed before its first
 * frame.
 *
 * @example
 * ```ts ignore
 * import { assertWorkloadRan } from "./story.ts";
 * assertWorkloadRan(await judgeArtifacts("artifacts/verify"));
 * ```
 */
export function assertWorkloadRan(r: VerifyResult): void {
  if (!workloadFailed(r) || !madeNoFrame(r)) return;
  const w = r.axl.workload;
  throw new WorkloadFailedEarlyError(w.description, w.exit_code!, w.stderr_tail);
}

/**
 * Makes the sections of `r` tell one story (in place, and returned): the pipeline's break, when
 * there is one, is the chain's (`broken` at its pad) and the first diagnosis; `axl.reason` says
 * why the run has its status.
 *
 * @example
 * ```ts ignore
 * import { oneStory } from "./story.ts";
 * console.log(oneStory(result).axl.reason);
 * ```
 */
export function oneStory(r: VerifyResult): VerifyResult {
  const a = r.axl;
  const broke = a.pipeline?.status === "FAIL" ? a.pipeline.broke_at : null;
  if (a.pipeline && broke) {
    if (a.chain) {
      a.chain.status = "broken";
      a.chain.broken_at = broke.pad;
      a.chain.summary = `broken at ${broke.pad}: ${a.pipeline.summary}`;
    }
    const first = diagnosis("pipeline-left-camera-dmabuf", a.pipeline.summary);
    a.diagnosis = [first, ...a.diagnosis.filter((d) => d.id !== first.id)];
  }
  a.reason = reasonOf(r, broke ? a.pipeline!.summary : undefined);
  return r;
}

/** The sentence of `axl.reason`. */
function reasonOf(r: VerifyResult, pipelineBreak: string | undefined): string {
  const a = r.axl;
  const invariants = Object.values(a.invariants);
  let why: string;
  if (pipelineBreak) {
    why = pipelineBreak;
  } else if (a.status === "FAIL" && a.chain?.status === "broken") {
    why = a.chain.summary;
  } else {
    const first = invariants.find((i) => i.status === a.status) ??
      invariants.find((i) => i.status !== "PASS");
    why = a.status === "PASS" || !first
      ? "all four invariants passed"
      : `${first.id}: ${first.summary}`;
  }
  if (!workloadFailed(r)) return why;
  const w = a.workload;
  const tail = w.stderr_tail?.split("\n").filter((l) => l.trim()).at(-1);
  return `${why}; the workload failed after ${framesSeen(r)} (exit code ` +
    `${w.exit_code}${w.exit_signal ? `, ${w.exit_signal}` : ""}${
      tail ? `: ${tail.trim()}` : ""
    }), so the verdict covers only the frames it made`;
}

/** What the run saw of the workload's frames, in words, from the best source it has. */
function framesSeen(r: VerifyResult): string {
  const a = r.axl;
  if (a.frames.traced > 0) return `${a.frames.traced} traced frames`;
  const sources = a.pipeline?.pads.filter((p) => a.pipeline?.camera?.pads.includes(p.pad)) ?? [];
  const buffers = Math.max(0, ...sources.map((p) => p.buffers));
  if (buffers > 0) return `${buffers} buffers from ${sources.map((p) => p.pad).join(", ")}`;
  return `${r.detail.imports} imports`;
}
