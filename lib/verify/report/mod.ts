/**
 * Outputs of a verification run: for people a Perfetto-compatible trace of the frames and
 * a self-contained HTML report with inline SVG charts; for machines JUnit XML (CI test
 * reporters) and Prometheus metrics (node_exporter's textfile collector).
 *
 * @module
 */
export * from "./perfetto.ts";
export * from "./html.ts";
export * from "./junit.ts";
export * from "./metrics.ts";
