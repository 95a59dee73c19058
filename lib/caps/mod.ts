/**
 * GStreamer caps: parse and print caps strings, intersect them the way
 * GStreamer does, read `gst-inspect-1.0` output, check DMA_DRM (`drm-format`)
 * rules, and tell for every link of a pipeline whether it negotiates, in which
 * memory, and if not, why and what would fix it.
 *
 * @example Why an NVMM producer cannot feed a system-memory consumer
 * ```ts
 * import { analyzeDescription, parseGstInspect, renderCapsReport } from "./mod.ts";
 * import { strictEqual } from "node:assert/strict";
 * const t = (dir: string, caps: string) =>
 *   `Pad Templates:\n  ${dir} template: 'p'\n    Availability: Always\n    Capabilities:\n      ${caps}\n`;
 * const elements = new Map([
 *   ["cam", parseGstInspect(t("SRC", "video/x-raw(memory:NVMM)"), "cam")],
 *   ["cpu", parseGstInspect(t("SINK", "video/x-raw"), "cpu")],
 * ]);
 * const report = analyzeDescription("cam ! cpu", elements);
 * strictEqual(report.links[0]!.reasons[0]!.kind, "features");
 * strictEqual(renderCapsReport(report).includes("caps features (memory)"), true);
 * ```
 *
 * @module
 */
export * from "./types.ts";
export * from "./errors.ts";
export * from "./parse.ts";
export * from "./print.ts";
export * from "./intersect.ts";
export * from "./dma_drm.ts";
export * from "./inspect.ts";
export * from "./behaviour.ts";
export * from "./pipeline.ts";
export * from "./diagnose.ts";
export * from "./analyze.ts";
export * from "./render.ts";
export * from "./gst_tools.ts";
export * from "./check.ts";
