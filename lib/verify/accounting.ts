/**
 * I3, accounting: every frame submitted reached the device by an `axl_dmabuf_import` of its
 * buffer, and releases balance imports by the end of the run
 * (docs/design.md#imports-per-frame-releases-balanced). I3 judges coverage: fewer imports than
 * frames, or a job submitted on a buffer with no import of it in flight, FAILs; imports beyond
 * one per frame (the same buffers imported again, e.g. a retry) are a note with their count.
 * Counts from a trace that lost events are no verdict.
 *
 * @module
 */
import { diagnosis } from "./diagnosis.ts";
import type { Diagnosis, Status } from "./schema.ts";
import { invariant, type Verdict } from "./_invariant.ts";

/** The axl event counts of a run (a `FrameJoin` has them). */
export interface AxlCounts {
  /** `axl_dmabuf_import` events. */
  imports: number;
  /** `axl_dmabuf_release` events. */
  releases: number;
  /** `axl_job_submit` events. */
  submits: number;
  /** `axl_job_complete` events. */
  completes: number;
  /** Handles imported more often than released. */
  unreleasedHandles(): number[];
  /** Jobs submitted on a buffer with no import of it in flight (absent: not counted). */
  unimportedSubmits?: number;
}

/** I3's verdict and the number of frames submitted it judged against. */
export interface AccountingVerdict extends Verdict {
  /** From the workload, else the traced job submissions; null when unknown. */
  submitted: number | null;
  /** What the run should know that is no failure (extra imports of the same buffers). */
  notes?: string[];
}

/**
 * Judges I3 from the traced axl events, the frames the workload says it submitted (null:
 * unknown), the trace events that could not be enabled, and whether the trace lost events.
 *
 * @example
 * ```ts
 * import { judgeAccounting } from "./accounting.ts";
 * const counts = { imports: 3, releases: 3, submits: 3, completes: 3, unreleasedHandles: () => [] };
 * const v = judgeAccounting(counts, 4, [], false);
 * console.log(v.invariant.status); // "FAIL"
 * console.log(v.diagnoses[0]?.id); // "imports-ne-frames"
 * ```
 */
export function judgeAccounting(
  counts: AxlCounts,
  framesSubmitted: number | null,
  missingEvents: readonly string[],
  lossy: boolean,
): AccountingVerdict {
  const { imports, releases } = counts;
  const submitted = framesSubmitted ?? (counts.submits > 0 ? counts.submits : null);
  const open = counts.unreleasedHandles();
  const missing = missingEvents.filter((e) => e.startsWith("axl:"));
  const evidence: Record<string, unknown> = {
    imports,
    releases,
    frames_submitted: submitted,
    submitted_source: framesSubmitted !== null
      ? "workload"
      : counts.submits > 0
      ? "axl_job_submit"
      : "unknown",
    job_submits: counts.submits,
    job_completes: counts.completes,
    unreleased_handles: open.slice(0, 20),
    axl_events_missing: missing,
  };
  const verdict = (
    status: Status,
    summary: string,
    d?: Diagnosis,
    notes: string[] = [],
  ): AccountingVerdict => ({
    invariant: invariant("I3", status, summary, evidence),
    diagnoses: d ? [d] : [],
    submitted,
    ...(notes.length > 0 ? { notes } : {}),
  });
  if (missing.length > 0) {
    // Missing evidence is no verdict on the pipeline (`--evidence auto` would have used kprobes).
    return verdict(
      "SKIP",
      "the axl tracepoints are not in tracefs",
      diagnosis("axl-events-missing"),
    );
  }
  if (imports === 0 && !lossy) {
    return verdict("FAIL", "axl_dmabuf_import never fired", diagnosis("axl-import-never-fires"));
  }
  if (lossy) {
    return verdict(
      "INCONCLUSIVE",
      `trace lost events: ${imports} imports / ${releases} releases cannot be trusted`,
    );
  }
  if (submitted === null) {
    return verdict(
      "INCONCLUSIVE",
      `${imports} imports, ${releases} releases, but the number of frames submitted is unknown`,
    );
  }
  if (imports < submitted) {
    return verdict(
      "FAIL",
      `${imports} imports for ${submitted} frames submitted`,
      diagnosis("imports-ne-frames", `${imports} imports, ${submitted} frames`),
    );
  }
  const unimported = counts.unimportedSubmits ?? 0;
  if (unimported > 0) {
    evidence.unimported_submits = unimported;
    return verdict(
      "FAIL",
      `${unimported} of ${counts.submits} jobs were submitted on a buffer with no import of ` +
        `it in flight (${imports} imports for ${submitted} frames)`,
      diagnosis("imports-ne-frames", `${unimported} jobs without an import of their buffer`),
    );
  }
  if (releases !== imports || open.length > 0) {
    return verdict(
      "FAIL",
      `${releases} releases for ${imports} imports`,
      diagnosis(
        "releases-unbalanced",
        `${releases}/${imports}, unreleased handles ${open.slice(0, 5).join(",")}`,
      ),
    );
  }
  const extra = imports - submitted;
  if (extra === 0) {
    return verdict(
      "PASS",
      `${imports} imports = ${submitted} frames submitted; ${releases} releases`,
    );
  }
  evidence.extra_imports = extra;
  return verdict(
    "PASS",
    `${imports} imports for ${submitted} frames submitted: every frame covered, ${extra} more ` +
      `${extra === 1 ? "import" : "imports"}; ${releases} releases`,
    undefined,
    [
      `I3: ${extra} ${extra === 1 ? "import" : "imports"} more than frames submitted ` +
      `(${imports} imports for ${submitted} frames, each released): extra imports of the ` +
      "same buffers are counted here, not failed",
    ],
  );
}
