/**
 * Text and JSON renderings of a {@linkcode CapsReport}, shared by the `axl caps`
 * command and the shell.
 *
 * @module
 */

import type { CapsReport, LinkReport } from "./analyze.ts";

/** Options for {@linkcode renderCapsReport}. */
export interface RenderOptions {
  /** Longest caps string to print before cutting it (default 240; 0 = never cut). */
  maxCaps?: number;
  /** Print upstream/downstream caps of every link, not only failing ones. */
  verbose?: boolean;
}

/**
 * Renders a report for a terminal: one block per link, then the verdict.
 *
 * @example
 * ```ts
 * import { analyzeDescription } from "./analyze.ts";
 * import { parseGstInspect } from "./inspect.ts";
 * import { renderCapsReport } from "./render.ts";
 * import { ok } from "node:assert/strict";
 * const t = (dir: string, caps: string) =>
 *   `Pad Templates:\n  ${dir} template: 'p'\n    Availability: Always\n    Capabilities:\n      ${caps}\n`;
 * const els = new Map([
 *   ["cam", parseGstInspect(t("SRC", "video/x-raw(memory:NVMM)"), "cam")],
 *   ["cpu", parseGstInspect(t("SINK", "video/x-raw"), "cpu")],
 * ]);
 * ok(renderCapsReport(analyzeDescription("cam ! cpu", els)).includes("FAIL"));
 * ```
 */
export function renderCapsReport(report: CapsReport, options: RenderOptions = {}): string {
  const max = options.maxCaps ?? 240;
  const out: string[] = [];
  if (report.description) out.push(`pipeline: ${report.description}`);
  out.push(
    "elements: " +
      report.elements.map((e) =>
        `${e.name} (${e.factory}, ${e.behaviour}${e.behaviourSource === "known" ? ", known" : ""})`
      ).join(", "),
  );
  for (const link of report.links) out.push("", ...renderLink(link, max, options.verbose ?? false));
  out.push("");
  if (report.negotiates) {
    out.push(`verdict: OK: all ${report.links.length} link(s) negotiate`);
  } else {
    const f = report.links[report.firstFailure! - 1]!;
    out.push(`verdict: FAIL: link ${f.number} (${f.from} → ${f.to}) does not negotiate`);
  }
  if (report.memoryCheck) {
    const m = report.memoryCheck;
    if (m.ok) out.push(`memory: every negotiating link carries ${m.required}`);
    else for (const o of m.offenders) out.push(`memory: ${o.message}`);
  }
  return out.join("\n");
}

function renderLink(link: LinkReport, max: number, verbose: boolean): string[] {
  const lines: string[] = [];
  const via = link.filter ? `  via ${link.filter}` : "";
  lines.push(`link ${link.number}  ${link.from} → ${link.to}${via}`);
  if (link.negotiates) {
    lines.push(`  OK    negotiates in ${link.memory.map(memoryName).join(" or ")}`);
    lines.push(`  caps  ${cut(link.caps, max)}`);
  } else {
    lines.push(`  FAIL  does not negotiate${link.reached ? "" : " (not reached by gst-launch)"}`);
    for (const r of link.reasons) {
      lines.push(`  why   ${r.message}`);
      lines.push(`  fix   ${r.fix}`);
    }
  }
  if (verbose || !link.negotiates) {
    lines.push(`  out   ${cut(link.upstreamCaps, max)}`);
    lines.push(`  in    ${cut(link.downstreamCaps, max)}`);
  }
  for (const n of link.notes) lines.push(`  note  ${n}`);
  return lines;
}

function memoryName(m: string): string {
  if (m === "ANY") return "any memory (input unknown)";
  return m === "memory:SystemMemory" ? "system memory" : m;
}

function cut(s: string, max: number): string {
  return max > 0 && s.length > max ? `${s.slice(0, max)}… (${s.length} chars)` : s;
}

/**
 * The report as JSON text (it holds no bigints, so plain JSON works).
 *
 * @example
 * ```ts
 * import { capsReportJson } from "./render.ts";
 * import { strictEqual } from "node:assert/strict";
 * const json = capsReportJson({
 *   description: "a ! b", elements: [], links: [], negotiates: true,
 *   firstFailure: undefined, memoryCheck: undefined,
 * });
 * strictEqual(JSON.parse(json).negotiates, true);
 * ```
 */
export function capsReportJson(report: CapsReport): string {
  return JSON.stringify(report, null, 2);
}
