/**
 * The report's GStreamer section: the pipeline drawn with the element where frames leave the
 * camera's dma-buf marked, and each pad's memory.
 *
 * @module
 */
import type { PipelineSection } from "../pipeline_schema.ts";

/**
 * The section's HTML, or `""` when the run was not a traced GStreamer pipeline; `badge` draws a
 * status and `escapeHtml` escapes text (the report's own, `html.ts`).
 *
 * @example
 * ```ts
 * import { pipelineHtml } from "./pipeline_html.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(pipelineHtml(undefined, (s) => s, (s) => s), "");
 * ```
 */
export function pipelineHtml(
  s: PipelineSection | undefined,
  badge: (status: string) => string,
  escapeHtml: (text: string) => string,
): string {
  if (!s) return "";
  const rows = s.pads.map((p) =>
    `<tr${p.marked ? ' class="broke"' : ""}><td>${p.marked ? "✗ " : ""}<code>${
      escapeHtml(p.pad)
    }</code></td><td>${escapeHtml(p.factory)}</td><td>${p.buffers}</td><td>${
      escapeHtml(p.memory)
    }</td><td><small>${escapeHtml(p.caps ?? "")}</small></td></tr>`
  ).join("");
  return `<h2>GStreamer pipeline ${badge(s.status)}</h2>
<p>${escapeHtml(s.summary)}</p>
<pre>${escapeHtml(s.drawing)}</pre>
<table><tr><th>pad</th><th>factory</th><th>buffers</th><th>memory</th><th>caps</th></tr>${rows}</table>`;
}
