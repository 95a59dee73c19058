/**
 * I4, copies: no CPU copy routine at or above the self-share threshold (1 % by default) in
 * the workload's processes, from perf samples matched against the copy-routine patterns
 * (docs/design.md#copy-routines-are-a-pattern-set). Also the `perf` section of result.json.
 *
 * The threshold is inclusive (`≥`): "no copy at 1 %" must not pass a routine measured at
 * exactly 1 %. A share is counted in samples, so it says something only when it holds
 * several of them ({@linkcode SAMPLES_AT_THRESHOLD}), and the rule works both ways: a PASS
 * needs a run where a routine at the threshold would hold that many (1 000 samples for 1 %),
 * and a FAIL needs the routine at or above the threshold to hold that many itself (1 sample
 * of 100 is 1 %, and says nothing). Short of either, I4 is INCONCLUSIVE with the numbers.
 * Samples perf could not name (stripped binaries, JIT code) are
 * reported per DSO; a DSO whose unnamed share reaches the threshold could hide a copy, and
 * the verdict says so. Copy routines sampled in V8's platform worker threads (its garbage
 * collector and compilers, `perf_script_threads.ts`) are the runtime's own: they count in the
 * totals, are named apart (`runtime_copies`), and never fail I4.
 *
 * @module
 */
import type { PerfSummary } from "../trace/parse/perf_script.ts";
import { diagnosis } from "./diagnosis.ts";
import type { Diagnosis, Status, VerifyResult } from "./schema.ts";
import { invariant, round, type Verdict } from "./_invariant.ts";
import type { PerfRateRecord } from "./_perf_capture.ts";

/** Perf as a run recorded it, or why it did not. */
export type PerfEvidence =
  | { summary: PerfSummary; event: string; reason: string; rate?: PerfRateRecord }
  | { unavailable: string };

/**
 * Samples a share must hold to say anything: a routine at exactly the threshold must hold this
 * many for a PASS to be measurable, and a routine at or above it must hold this many to FAIL.
 */
export const SAMPLES_AT_THRESHOLD = 10;

/**
 * The fewest samples that make `thresholdPercent` measurable (see the module doc), and at
 * least `floor`.
 *
 * @example
 * ```ts
 * import { minSamplesFor } from "./copies.ts";
 * console.log(minSamplesFor(1, 100)); // 1000
 * console.log(minSamplesFor(50, 100)); // 100
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
 * console.log(s[0]?.dso); // "/usr/bin/app"
 * console.log(s[0]?.couldHideCopy); // true
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
  /** Symbols of the copy routines shown at or above the threshold (enough samples), hottest first. */
  hot: string[];
  /** The `perf` section of `result.json`. */
  perf: VerifyResult["axl"]["perf"];
}

/**
 * Judges I4: FAIL when a copy routine is at or above `thresholdPercent` self and holds at
 * least {@linkcode SAMPLES_AT_THRESHOLD} samples itself; INCONCLUSIVE when a routine is at or
 * above it on fewer samples, or the run has fewer samples than `minSamples` or than the
 * threshold needs ({@linkcode minSamplesFor}); SKIP without perf.
 *
 * @example
 * ```ts
 * import { judgeCopies } from "./copies.ts";
 * const v = judgeCopies({ unavailable: "no perf" }, 1, 100);
 * console.log(v.invariant.status); // "SKIP"
 * console.log(v.perf.available); // false
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
  // Only a routine holding enough samples of its own shows it is at or above the threshold.
  const shown = over.filter((c) => c.samples >= SAMPLES_AT_THRESHOLD);
  const needed = minSamplesFor(threshold, minSamples);
  const unnamed = unsymbolizedShares(s.symbols, threshold);
  const hiding = unnamed.filter((u) => u.couldHideCopy);
  const runtime = s.runtimeCopies ?? [];
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
    ...(runtime.length > 0
      ? {
        // Present only where a runtime thread copied: counted in `samples`, never a FAIL.
        runtime_copy_percent: round(s.runtimeCopyPercent ?? 0),
        runtime_copies: runtime.slice(0, 10).map((c) => ({
          symbol: c.symbol,
          dso: c.dso,
          thread: c.runtimeThread,
          self_percent: round(c.selfPercent),
          samples: c.samples,
        })),
      }
      : {}),
    comparison: "self_percent >= threshold_percent fails",
    min_samples: needed,
    unsymbolized: unnamed.slice(0, 10).map((u) => ({
      dso: u.dso,
      samples: u.samples,
      percent: u.percent,
      could_hide_copy: u.couldHideCopy,
    })),
  };
  const verdict = (
    status: Status,
    summary: string,
    d?: Diagnosis,
    more: Record<string, unknown> = {},
  ): CopiesVerdict => ({
    invariant: invariant("I4", status, summary, { ...evidence, ...more }),
    diagnoses: d ? [d] : [],
    hot: shown.map((c) => c.symbol),
    perf: perfSection(perf),
  });
  if (shown.length > 0) {
    const top = shown[0]!;
    return verdict(
      "FAIL",
      `${top.symbol} at ${
        round(top.selfPercent)
      }% self (threshold ${threshold}%, failing at or above)`,
      diagnosis(
        "memcpy-hot",
        shown.map((c) =>
          `${c.symbol} ${round(c.selfPercent)}% self${
            c.topCaller ? ` (called from ${c.topCaller})` : ""
          }`
        ).join(", "),
      ),
    );
  }
  if (over.length > 0) {
    const few = over.map((c) =>
      `${c.symbol} at ${round(c.selfPercent)}% self in ${c.samples} of ${s.samples} samples`
    ).join(", ");
    return verdict(
      "INCONCLUSIVE",
      `${few}: at or above the ${threshold}% threshold, but a FAIL needs ` +
        `${SAMPLES_AT_THRESHOLD} samples in the routine`,
      diagnosis("perf-few-samples", `${few} (fewer than ${SAMPLES_AT_THRESHOLD})`),
      {
        // Each routine's own samples, and how many a FAIL needs.
        too_few_samples: over.map((c) => ({
          symbol: c.symbol,
          dso: c.dso,
          self_percent: round(c.selfPercent),
          samples: c.samples,
        })),
        min_routine_samples: SAMPLES_AT_THRESHOLD,
      },
    );
  }
  if (s.samples < needed) {
    const capped = kernelCap(perf.rate);
    return verdict(
      "INCONCLUSIVE",
      `only ${s.samples} samples: a ${threshold}% threshold needs ${needed} ` +
        `(${SAMPLES_AT_THRESHOLD} samples at the threshold)${capped ? `; ${capped}` : ""}`,
      diagnosis("perf-few-samples", `${s.samples} < ${needed}${capped ? `; ${capped}` : ""}`),
    );
  }
  const caveat = hiding.length > 0
    ? `; but ${
      hiding.map((u) => `${u.percent}% in ${u.dso}`).join(", ")
    } have no symbol and could hide a copy`
    : "";
  const own = runtime.length > 0
    ? `; V8's own worker threads copied ${round(s.runtimeCopyPercent ?? 0)}% more, not frame copies`
    : "";
  return verdict(
    "PASS",
    `no copy routine at or above ${threshold}% (all copies: ${
      round(s.copyPercent)
    }%, ${s.samples} samples${own})${caveat}`,
    hiding.length > 0
      ? diagnosis("perf-unsymbolized", hiding.map((u) => `${u.percent}% in ${u.dso}`).join(", "))
      : undefined,
  );
}

/**
 * When the kernel's `perf_event_max_sample_rate` held perf below the rate verify chose (at the
 * start, or lowered during the run), that in words with what to do; else undefined.
 */
function kernelCap(rate: PerfRateRecord | undefined): string | undefined {
  if (!rate) return undefined;
  const after = rate.maxSampleRateAfter;
  const limit = after !== undefined && after < rate.hz
    ? after
    : rate.cappedBy === "perf_event_max_sample_rate"
    ? rate.maxSampleRate
    : undefined;
  if (limit === undefined) return undefined;
  return `perf sampled at most ${limit} Hz, the kernel's perf_event_max_sample_rate ` +
    `(it lowers it while perf's interrupts take too long; ${rate.rule}): run more frames, ` +
    `or raise kernel.perf_event_max_sample_rate`;
}

function perfSection(
  perf: { summary: PerfSummary; event: string; reason: string; rate?: PerfRateRecord },
): VerifyResult["axl"]["perf"] {
  const s = perf.summary;
  const r = perf.rate;
  return {
    available: true,
    reason: perf.reason,
    event: perf.event,
    ...(r
      ? {
        rate: {
          hz: r.hz,
          rule: r.rule,
          ...(r.maxSampleRate !== undefined ? { max_sample_rate: r.maxSampleRate } : {}),
          ...(r.cappedBy ? { capped_by: r.cappedBy } : {}),
          ...(r.maxSampleRateAfter !== undefined
            ? { max_sample_rate_after: r.maxSampleRateAfter }
            : {}),
        },
      }
      : {}),
    samples: s.samples,
    copy_percent: round(s.copyPercent),
    ...((s.runtimeCopies ?? []).length > 0
      ? { runtime_copy_percent: round(s.runtimeCopyPercent ?? 0) }
      : {}),
    top: s.symbols.slice(0, 15).map((x) => {
      const row: VerifyResult["axl"]["perf"]["top"][number] = {
        symbol: x.symbol,
        dso: x.dso,
        self_percent: round(x.selfPercent),
        samples: x.samples,
      };
      if (x.copyRoutine) row.copy_routine = x.copyRoutine;
      if (x.runtimeThread) row.runtime_thread = x.runtimeThread;
      if (x.topCaller) row.top_caller = x.topCaller;
      return row;
    }),
  };
}
