/**
 * I2, exporter: the frame buffers that were multi-attached (I1), or all frames when none was,
 * were exported by an accepted exporter (docs/design.md#exporter-names).
 *
 * @module
 */
import type { InodeObservation } from "../trace/parse/bufinfo_summary.ts";
import { diagnosis } from "./diagnosis.ts";
import type { Diagnosis, Status } from "./schema.ts";
import { invariant, type Verdict } from "./_invariant.ts";

/** What {@linkcode judgeExporter} looks at. */
export interface ExporterEvidence {
  /** Exporter per frame inode from the import tracepoint. */
  exporterOf: ReadonlyMap<number, string>;
  /** Every frame inode. */
  frameInodes: ReadonlySet<number>;
  /** Frame inodes bufinfo listed, and those with ≥ 2 devices (see `judgeAttachments()`). */
  sampled: readonly InodeObservation[];
  /** The frame inodes bufinfo saw with two or more devices attached. */
  multi: readonly InodeObservation[];
  /** The accepted exporter names. */
  accepted: readonly string[];
  /** I1's status: when I1 was skipped, so is an I2 without exporters. */
  attachments: Status;
}

/**
 * Judges I2. Exporters come from the import tracepoint, else from bufinfo.
 *
 * @example
 * ```ts
 * import { judgeExporter } from "./exporter.ts";
 * const v = judgeExporter({
 *   exporterOf: new Map([[9, "udmabuf"]]),
 *   frameInodes: new Set([9]),
 *   sampled: [],
 *   multi: [],
 *   accepted: ["system"],
 *   attachments: "INCONCLUSIVE",
 * });
 * console.log(v.invariant.status); // "FAIL"
 * console.log(v.diagnoses[0]?.id); // "exporter-unknown"
 * ```
 */
export function judgeExporter(e: ExporterEvidence): Verdict {
  const exporterOf = new Map(e.exporterOf);
  for (const x of e.sampled) if (!exporterOf.has(x.inode)) exporterOf.set(x.inode, x.exporter);
  const basis = e.multi.length > 0 ? e.multi.map((x) => x.inode) : [...e.frameInodes];
  const exporters = [
    ...new Set(basis.map((i) => exporterOf.get(i)).filter((x): x is string => !!x)),
  ].sort();
  const rejected = exporters.filter((x) => !e.accepted.includes(x));
  const evidence = {
    exporters,
    accepted: [...e.accepted],
    basis: e.multi.length > 0 ? "multi-attached frames" : "all frames",
  };
  const diagnoses: Diagnosis[] = [];
  const verdict = (status: Status, summary: string): Verdict => ({
    invariant: invariant("I2", status, summary, evidence),
    diagnoses,
  });
  if (exporters.length === 0) {
    return verdict(
      e.attachments === "SKIP" ? "SKIP" : "INCONCLUSIVE",
      "no exporter known for any frame",
    );
  }
  if (rejected.length > 0) {
    diagnoses.push(diagnosis(
      "exporter-unknown",
      `${rejected.join(", ")} (accepted: ${e.accepted.join(", ")})`,
    ));
    return verdict("FAIL", `exporter ${rejected.join(", ")} is not accepted`);
  }
  if (e.multi.length === 0) {
    return verdict(
      "INCONCLUSIVE",
      `frame exporters ${exporters.join(", ")} are accepted, but no frame was multi-attached (I1)`,
    );
  }
  return verdict("PASS", `exporter ${exporters.join(", ")} is accepted`);
}
