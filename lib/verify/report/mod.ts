/**
 * Outputs of a verification run for people: a Perfetto-compatible trace of the frames and a
 * self-contained HTML report with inline SVG charts.
 *
 * @module
 */
export { perfettoTrace, type TraceEvent } from "./perfetto.ts";
export { escapeHtml, frameTimelineSvg, latencyHistogramSvg, renderHtmlReport } from "./html.ts";
