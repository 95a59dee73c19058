/**
 * Latency statistics of per-frame durations: percentiles and a histogram. Samples may be
 * large (one per frame of a long run) and typed arrays: nothing here spreads them into
 * arguments or sorts them more than once.
 *
 * @module
 */

/** Percentiles and extremes of a sample, in the sample's unit. */
export interface LatencyStats {
  /** Finite samples counted. */
  count: number;
  /** Smallest sample. */
  min: number;
  /** Largest sample. */
  max: number;
  /** Arithmetic mean. */
  mean: number;
  /** Median (linear interpolation between ranks, as {@linkcode percentile}). */
  p50: number;
  /** 90th percentile. */
  p90: number;
  /** 99th percentile. */
  p99: number;
}

/**
 * The `p`-th percentile (0–100) of `values` by linear interpolation between closest ranks.
 *
 * @example
 * ```ts
 * import { percentile } from "./latency.ts";
 * console.log(percentile([1, 2, 3, 4], 50)); // 2.5
 * ```
 */
export function percentile(values: ArrayLike<number>, p: number): number {
  if (!(p >= 0 && p <= 100)) throw new RangeError(`percentile(): p must be in [0, 100], got ${p}`);
  if (values.length === 0) throw new RangeError("percentile(): no values");
  return ofSorted(Float64Array.from(values).sort(), p);
}

function ofSorted(sorted: Float64Array, p: number): number {
  const rank = (p / 100) * (sorted.length - 1);
  const lo = Math.floor(rank), hi = Math.ceil(rank);
  return sorted[lo]! + (sorted[hi]! - sorted[lo]!) * (rank - lo);
}

/** The finite values, and their extremes. */
function finite(values: ArrayLike<number>): { v: Float64Array; min: number; max: number } {
  const v = new Float64Array(values.length);
  let n = 0, min = Infinity, max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const x = values[i]!;
    if (!Number.isFinite(x)) continue;
    v[n++] = x;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  return { v: v.subarray(0, n), min, max };
}

/**
 * Count, extremes, mean and p50/p90/p99; `undefined` for an empty sample.
 *
 * @example
 * ```ts
 * import { latencyStats } from "./latency.ts";
 * const s = latencyStats([10, 20, 30]);
 * console.log(s?.p50); // 20
 * console.log(s?.max); // 30
 * ```
 */
export function latencyStats(values: ArrayLike<number>): LatencyStats | undefined {
  const { v, min, max } = finite(values);
  if (v.length === 0) return undefined;
  let sum = 0;
  for (let i = 0; i < v.length; i++) sum += v[i]!;
  // v is a copy: sorted in place.
  const sorted = v.sort();
  return {
    count: v.length,
    min,
    max,
    mean: sum / v.length,
    p50: ofSorted(sorted, 50),
    p90: ofSorted(sorted, 90),
    p99: ofSorted(sorted, 99),
  };
}

/** One histogram bin: [lo, hi) and its count. */
export interface HistogramBin {
  /** Lower edge, included. */
  lo: number;
  /** Upper edge, excluded (included for the last bin). */
  hi: number;
  /** Samples in the bin. */
  count: number;
}

/**
 * An equal-width histogram of `values` with `bins` bins (the last bin includes the max).
 *
 * @example
 * ```ts
 * import { histogram } from "./latency.ts";
 * const h = histogram([1, 2, 2, 9], 4);
 * console.log(h.length); // 4
 * console.log(h.reduce((a, b) => a + b.count, 0)); // 4
 * ```
 */
export function histogram(values: ArrayLike<number>, bins = 20): HistogramBin[] {
  if (!Number.isInteger(bins) || bins < 1) {
    throw new RangeError(`histogram(): bins must be >= 1, got ${bins}`);
  }
  let min = Infinity, max = -Infinity;
  for (let i = 0; i < values.length; i++) {
    const x = values[i]!;
    if (!Number.isFinite(x)) continue;
    if (x < min) min = x;
    if (x > max) max = x;
  }
  if (min > max) return [];
  const width = max > min ? (max - min) / bins : 1;
  const out: HistogramBin[] = Array.from({ length: bins }, (_, i) => ({
    lo: min + i * width,
    hi: min + (i + 1) * width,
    count: 0,
  }));
  for (let i = 0; i < values.length; i++) {
    const x = values[i]!;
    if (Number.isFinite(x)) out[Math.min(bins - 1, Math.floor((x - min) / width))]!.count++;
  }
  return out;
}
