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

export {
  ANY_CAPS,
  type Caps,
  type CapsFeatures,
  type CapsField,
  type CapsStructure,
  type CapsValue,
  EMPTY_CAPS,
  fieldValue,
  type Fraction,
  type IntType,
  isEmptyCaps,
  memoryOf,
  SYSTEM_MEMORY,
} from "./types.ts";
export { CapsSyntaxError } from "./errors.ts";
export {
  compareFractions,
  parseCaps,
  parseFeatures,
  type ParsePosition,
  parseStructure,
  parseValue,
} from "./parse.ts";
export {
  printBare,
  printCaps,
  printFeatures,
  printStructure,
  printValue,
  quoteString,
} from "./print.ts";
export {
  canIntersect,
  featuresMatch,
  intersectCaps,
  intersectStructure,
  intersectValue,
} from "./intersect.ts";
export {
  checkDmaDrm,
  describeDrmFormat,
  DMABUF_FEATURE,
  type DmaDrmIssue,
  type DrmFormat,
  drmFormatsOf,
  parseDrmFormat,
  printDrmFormat,
} from "./dma_drm.ts";
export {
  type ElementInfo,
  type PadDirection,
  type PadPresence,
  type PadTemplate,
  parseGstInspect,
  templateCaps,
} from "./inspect.ts";
export {
  type BehaviourChoice,
  behaviourOf,
  type ElementBehaviour,
  KNOWN_BEHAVIOURS,
} from "./behaviour.ts";
export {
  parsePipeline,
  type Pipeline,
  type PipelineElement,
  type PipelineLink,
} from "./pipeline.ts";
export { explainMismatch, type Reason, type ReasonKind, type Sides } from "./diagnose.ts";
export {
  analyzeDescription,
  type AnalyzeOptions,
  analyzePair,
  analyzePipeline,
  type CapsReport,
  type ElementReport,
  type LinkReport,
  type MemoryCheck,
} from "./analyze.ts";
export { capsReportJson, renderCapsReport, type RenderOptions } from "./render.ts";
export {
  GstToolError,
  haveGstTool,
  launchArgs,
  type LaunchOutcome,
  type LoadedElement,
  loadElement,
  type LoadOptions,
  parseLaunchOutput,
  runGstInspect,
  runGstLaunch,
} from "./gst_tools.ts";
export {
  type CapsRequest,
  type CapsResult,
  checkCaps,
  compareWithLaunch,
  launchAndCompare,
  type LaunchComparison,
} from "./check.ts";
