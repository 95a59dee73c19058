/**
 * The result of one doctor check: OK, WARN or FAIL, what was found, and for
 * WARN/FAIL what to do about it.
 *
 * @module
 */

/** Outcome of a check. WARN: works, but not as the Jetson path expects. */
export type Status = "ok" | "warn" | "fail";

/** One check's outcome. */
export interface CheckResult {
  /** Stable identifier, e.g. `config.DMABUF_HEAPS_CMA`, `npu.link`. */
  id: string;
  /** OK, WARN or FAIL. */
  status: Status;
  /** What was found, one line. */
  message: string;
  /** What to do; present for WARN and FAIL. */
  fix?: string;
}

/**
 * An OK result.
 *
 * @example
 * ```ts
 * import { ok } from "./check.ts";
 * const r = ok("kernel", "6.12.117 on x86_64");
 * console.log(r.status); // "ok"
 * ```
 */
export function ok(id: string, message: string): CheckResult {
  return { id, status: "ok", message };
}

/**
 * A WARN result with its fix.
 *
 * @example
 * ```ts
 * import { warn } from "./check.ts";
 * const r = warn("pmu", "no hardware PMU", "enable CONFIG_HW_PERF_EVENTS");
 * console.log(r.fix); // "enable CONFIG_HW_PERF_EVENTS"
 * ```
 */
export function warn(id: string, message: string, fix: string): CheckResult {
  return { id, status: "warn", message, fix };
}

/**
 * A FAIL result with its fix.
 *
 * @example
 * ```ts
 * import { fail } from "./check.ts";
 * const r = fail("driver", "axl is not loaded", "sudo modprobe axl");
 * console.log(r.status); // "fail"
 * ```
 */
export function fail(id: string, message: string, fix: string): CheckResult {
  return { id, status: "fail", message, fix };
}

/** How many results have each status. */
export interface StatusCounts {
  /** OK results. */
  ok: number;
  /** WARN results. */
  warn: number;
  /** FAIL results. */
  fail: number;
}

/**
 * Counts results by status.
 *
 * @example
 * ```ts
 * import { countStatuses, fail, ok } from "./check.ts";
 * const c = countStatuses([ok("a", ""), fail("b", "", "")]);
 * console.log(c.ok); // 1
 * console.log(c.fail); // 1
 * console.log(c.warn); // 0
 * ```
 */
export function countStatuses(results: readonly CheckResult[]): StatusCounts {
  const counts: StatusCounts = { ok: 0, warn: 0, fail: 0 };
  for (const r of results) counts[r.status]++;
  return counts;
}
