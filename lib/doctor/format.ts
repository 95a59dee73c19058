/**
 * Text form of a doctor report: one line per check, the fix indented under
 * every WARN and FAIL, and a closing count.
 *
 * @module
 */
import { type CheckResult, countStatuses } from "./check.ts";

const LABEL = { ok: "OK  ", warn: "WARN", fail: "FAIL" } as const;

/**
 * Formats results for a terminal.
 *
 * @example
 * ```ts
 * import { formatReport } from "./format.ts";
 * import { fail, ok } from "./check.ts";
 * const text = formatReport([ok("kernel", "6.12"), fail("driver", "not loaded", "modprobe axl")]);
 * console.log(text.includes("FAIL  driver")); // true
 * console.log(text.includes("fix: modprobe axl")); // true
 * ```
 */
export function formatReport(results: readonly CheckResult[]): string {
  const width = Math.max(0, ...results.map((r) => r.id.length));
  const lines: string[] = [];
  for (const r of results) {
    lines.push(`${LABEL[r.status]}  ${r.id.padEnd(width)}  ${r.message}`);
    if (r.fix && r.status !== "ok") lines.push(`${" ".repeat(width + 8)}fix: ${r.fix}`);
  }
  const c = countStatuses(results);
  lines.push("", `${c.ok} ok, ${c.warn} warn, ${c.fail} fail`);
  return lines.join("\n");
}
