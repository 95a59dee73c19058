/**
 * I4, copies: no CPU copy routine at or above the self-share threshold (1 % by default) in
 * the workload's processes, from perf samples matched against the copy-routine patterns
 * (docs/design.md#copy-routines-are-a-pattern-set). Also the `perf` section of result.json.
 *
 * The threshold is inclusive (`≥`): "no copy at 1 %" must not pass a routine measured at
 * exactly 1 %. A share is counted in samples, so a threshold means something only when a
 * routine at the threshold would hold several of them: the run needs at least
 * {@linkcode SAMPLES_AT_THRESHOLD} samples' worth at the threshold (1 000 samples for 1 %),
 * else I4 is INCONCLUSIVE. Samples perf could not name (stripped binaries, JIT code) are
 * reported per DSO; a DSO whose unnamed share reaches the threshold could hide a copy, and
 * the verdict says so.
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

/** Samples a routine at exactly the threshold must hold for the threshold to be measurable. */
export const SAMPLES_AT_THRESHOLD = 10;

/**
 * The fewest samples that make `thresholdPercent` measurable (see the module doc), and at
 * least `floor`.
 *
 * @example
 * ```ts
 * import { minSamplesFor } from "./copies.ts";
 * if (minSamplesFor(1, 100) !== 1000 || minSamplesFor(50, 100) !== 100) throw new Error();
 * ```
 */
export function minSamplesFor(thresholdPercent: number, floor: number): number {
  return Math.max(floor, Math.ceil((SAMPLES_AT_THRESHOLD * 100) / thresholdPercent));
}

/** The share of samples perf could not name, in one DSO. */
export interface UnsymbolizedShare {
  dso: string;
  samples: number;
  percent: number;
  /** The share reaches the threshold: a copy routine could hide in it. */
  couldHideCopy: boolean;
}

/**
 * Samples without a symbol, per DSO, largest first.
 *
 * @example
 * ```ts
 * import { unsymbolizedShares } from "./copies.ts";
 * const s = unsymbolizedShares([
 *   { symbol: "[unknown]", dso: "/usr/bin/app", period: 30, samples: 30, selfPercent: 30 },
 *   { symbol: "main", dso: "/usr/bin/app", period: 70, samples: 70, selfPercent: 70 },
 * ], 1);
 * if (s[0]?.dso !== "/usr/bin/app" || !s[0].couldHideCopy) throw new Error();
 * ```
 */
export function unsymbolizedShares(
  symbols: PerfSummary["symbols"],
  thresholdPercent: number,
): UnsymbolizedShare[] {
  const by = new Map<string, { samples: number; percent: number }>();
  for (const x of symbols) {
    if (x.symbol !== "[unknown]") continue;
    const e = by.get(x.dso) ?? { samples: 0, percent: 0 };
    e.samples += x.samples;
    e.percent += x.selfPercent;
    by.set(x.dso, e);
  }
  return [...by].map(([dso, e]) => ({
    dso,
    samples: e.samples,
    percent: round(e.percent),
    couldHideCopy: e.percent >= thresholdPercent,
  })).sort((a, b) => b.percent - a.percent);
}

/** I4's verdict, the copy routines over the threshold, and result.json's `perf` section. */
export interface CopiesVerdict extends Verdict {
  /** Symbols of the copy routines at or above the threshold, hottest first. */
  hot: string[];
  /** The `perf` section of `result.json`. */
  perf: VerifyResult["axl"]["perf"];
}

/**
 * Judges I4: FAIL when a copy routine is at or above `thresholdPercent` self, INCONCLUSIVE
 * with fewer samples than `minSamples` or than the threshold needs ({@linkcode minSamplesFor}),
 * SKIP without perf.
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
  const over = s.copyRoutines.filter((c) => c.selfPercent >= threshold);
  const needed = minSamplesFor(threshold, minSamples);
  const unnamed = unsymbolizedShares(s.symbols, threshold);
  const hiding = unnamed.filter((u) => u.couldHideCopy);
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
    comparison: "self_percent >= threshold_percent fails",
    min_samples: needed,
    unsymbolized: unnamed.slice(0, 10).map((u) => ({
      dso: u.dso,
      samples: u.samples,
      percent: u.percent,
      could_hide_copy: u.couldHideCopy,
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
      `${top.symbol} at ${
        round(top.selfPercent)
      }% self (threshold ${threshold}%, failing at or above)`,
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
  if (s.samples < needed) {
    return verdict(
      "INCONCLUSIVE",
      `only ${s.samples} samples: a ${threshold}% threshold needs ${needed} ` +
        `(${SAMPLES_AT_THRESHOLD} samples at the threshold)`,
      diagnosis("perf-few-samples", `${s.samples} < ${needed}`),
    );
  }
  const caveat = hiding.length > 0
    ? `; but ${
      hiding.map((u) => `${u.percent}% in ${u.dso}`).join(", ")
    } have no symbol and could hide a copy`
    : "";
  return verdict(
    "PASS",
    `no copy routine at or above ${threshold}% (all copies: ${
      round(s.copyPercent)
    }%, ${s.samples} samples)${caveat}`,
    hiding.length > 0
      ? diagnosis("perf-unsymbolized", hiding.map((u) => `${u.percent}% in ${u.dso}`).join(", "))
      : undefined,
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
