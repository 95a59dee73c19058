/**
 * Outputs of a verification run for people: a Perfetto-compatible trace of the frames and a
 * self-contained HTML report with inline SVG charts.
 *
 * @module
 */
export * from "./perfetto.ts";
export * from "./html.ts";
