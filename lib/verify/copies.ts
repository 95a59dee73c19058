/**
 * I4, copies: no CPU copy routine above the self-share threshold (1 % by default) in the
 * workload's processes, from perf samples matched against the copy-routine patterns
 * (DESIGN Corrections 5). Also the `perf` section of result.json.
 *
 * @module
 */
import type { PerfSummary } from "../trace/parse/perf_script.ts";
import { diagnosis } from "./diagnosis.ts";
import type { Diagnosis, Status, VerifyResult } from "./schema.ts";
import { invariant, round, type Verdict } from "./_invariant.ts";

/** Perf as a run recorded it, or why it did not. */
export type PerfEvidence =
  | { summary: PerfSummary; event: string; reason: string }
  | { unavailable: string };

/** I4's verdict, the copy routines over the threshold, and result.json's `perf` section. */
export interface CopiesVerdict extends Verdict {
  hot: string[];
  perf: VerifyResult["axl"]["perf"];
}

/**
 * Judges I4: FAIL when a copy routine is above `thresholdPercent` self, INCONCLUSIVE with
 * fewer than `minSamples` samples, SKIP without perf.
 *
 * @example
 * ```ts
 * import { judgeCopies } from "./copies.ts";
 * const v = judgeCopies({ unavailable: "no perf" }, 1, 100);
 * if (v.invariant.status !== "SKIP" || v.perf.available) throw new Error();
 * ```
 */
export function judgeCopies(
  perf: PerfEvidence,
  thresholdPercent: number,
  minSamples: number,
): CopiesVerdict {
  if ("unavailable" in perf) {
    return {
      invariant: invariant("I4", "SKIP", `perf unavailable: ${perf.unavailable}`, {}),
      diagnoses: [diagnosis("perf-unavailable", perf.unavailable)],
      hot: [],
      perf: { available: false, reason: perf.unavailable, samples: 0, copy_percent: 0, top: [] },
    };
  }
  const s = perf.summary, threshold = thresholdPercent;
  const over = s.copyRoutines.filter((c) => c.selfPercent > threshold);
  const evidence = {
    event: perf.event,
    samples: s.samples,
    threshold_percent: threshold,
    copy_percent: round(s.copyPercent),
    over_threshold: over.map((c) => ({
      symbol: c.symbol,
      dso: c.dso,
      self_percent: round(c.selfPercent),
      caller: c.topCaller ?? null,
    })),
    copy_routines: s.copyRoutines.slice(0, 10).map((c) => ({
      symbol: c.symbol,
      self_percent: round(c.selfPercent),
    })),
  };
  const verdict = (status: Status, summary: string, d?: Diagnosis): CopiesVerdict => ({
    invariant: invariant("I4", status, summary, evidence),
    diagnoses: d ? [d] : [],
    hot: over.map((c) => c.symbol),
    perf: perfSection(perf),
  });
  if (over.length > 0) {
    const top = over[0]!;
    return verdict(
      "FAIL",
      `${top.symbol} at ${round(top.selfPercent)}% self (threshold ${threshold}%)`,
      diagnosis(
        "memcpy-hot",
        over.map((c) =>
          `${c.symbol} ${round(c.selfPercent)}% self${
            c.topCaller ? ` (called from ${c.topCaller})` : ""
          }`
        ).join(", "),
      ),
    );
  }
  if (s.samples < minSamples) {
    return verdict(
      "INCONCLUSIVE",
      `only ${s.samples} samples (need ${minSamples})`,
      diagnosis("perf-few-samples", `${s.samples} < ${minSamples}`),
    );
  }
  return verdict(
    "PASS",
    `no copy routine above ${threshold}% (all copies: ${
      round(s.copyPercent)
    }%, ${s.samples} samples)`,
  );
}

function perfSection(
  perf: { summary: PerfSummary; event: string; reason: string },
): VerifyResult["axl"]["perf"] {
  const s = perf.summary;
  return {
    available: true,
    reason: perf.reason,
    event: perf.event,
    samples: s.samples,
    copy_percent: round(s.copyPercent),
    top: s.symbols.slice(0, 15).map((x) => {
      const row: VerifyResult["axl"]["perf"]["top"][number] = {
        symbol: x.symbol,
        dso: x.dso,
        self_percent: round(x.selfPercent),
        samples: x.samples,
      };
      if (x.copyRoutine) row.copy_routine = x.copyRoutine;
      if (x.topCaller) row.top_caller = x.topCaller;
      return row;
    }),
  };
}
