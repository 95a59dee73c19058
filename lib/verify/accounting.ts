/**
 * I3, accounting: one `axl_dmabuf_import` per frame submitted, and releases balance imports
 * by the end of the run (docs/design.md#imports-per-frame-releases-balanced). Counts from a
 * trace that lost events are no verdict.
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
}

/** I3's verdict and the number of frames submitted it judged against. */
export interface AccountingVerdict extends Verdict {
  /** From the workload, else the traced job submissions; null when unknown. */
  submitted: number | null;
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
 * if (v.invariant.status !== "FAIL" || v.diagnoses[0]?.id !== "imports-ne-frames") throw new Error();
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
  const evidence = {
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
    axl_events_missing: missingEvents.filter((e) => e.startsWith("axl:")),
  };
  const verdict = (status: Status, summary: string, d?: Diagnosis): AccountingVerdict => ({
    invariant: invariant("I3", status, summary, evidence),
    diagnoses: d ? [d] : [],
    submitted,
  });
  if (evidence.axl_events_missing.length > 0) {
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
  if (imports !== submitted) {
    return verdict(
      "FAIL",
      `${imports} imports for ${submitted} frames submitted`,
      diagnosis("imports-ne-frames", `${imports} imports, ${submitted} frames`),
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
  return verdict(
    "PASS",
    `${imports} imports = ${submitted} frames submitted; ${releases} releases`,
  );
}
