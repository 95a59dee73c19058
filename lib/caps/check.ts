/**
 * The `caps` check as one call for the CLI and the shell: load the elements'
 * capabilities (saved gst-inspect outputs or a live gst-inspect-1.0), analyze the
 * pipeline or the pair, and optionally run gst-launch-1.0 on the same pipeline to
 * compare.
 *
 * @module
 */

import { analyzePair, analyzePipeline, type CapsReport } from "./analyze.ts";
import { type LaunchOutcome, loadElement, type LoadOptions, runGstLaunch } from "./gst_tools.ts";
import type { ElementInfo } from "./inspect.ts";
import { parsePipeline } from "./pipeline.ts";

/** What to check: a pipeline description, or two elements with an optional filter. */
export interface CapsRequest extends LoadOptions {
  /** A gst-launch-1.0 description. */
  pipeline?: string;
  /** Upstream element: factory name or path to saved gst-inspect output. */
  upstream?: string;
  /** Downstream element, same forms. */
  downstream?: string;
  /** Caps between upstream and downstream (pair form). */
  filter?: string;
  /** Require every link to carry this caps feature, e.g. `memory:NVMM`. */
  requireMemory?: string;
}

/** The analysis plus where each element's capabilities were read from. */
export interface CapsResult {
  /** The analysis of the pipeline. */
  readonly report: CapsReport;
  /** Factory → file path or `gst-inspect-1.0 <factory>`. */
  readonly sources: Readonly<Record<string, string>>;
}

/**
 * Runs the check. Throws TypeError for a malformed request,
 * {@linkcode CapsSyntaxError} for bad caps or descriptions, and
 * {@linkcode GstToolError} when capabilities cannot be obtained.
 *
 * @example
 * ```ts ignore
 * import { checkCaps } from "./check.ts";
 * const { report } = await checkCaps({
 *   pipeline: "videotestsrc ! video/x-raw(memory:DMABuf) ! fakesink",
 * });
 * console.log(report.links[0]!.reasons[0]!.message);
 * ```
 */
export async function checkCaps(request: CapsRequest): Promise<CapsResult> {
  const sources: Record<string, string> = {};
  const load = async (spec: string): Promise<ElementInfo> => {
    const loaded = await loadElement(spec, request);
    sources[loaded.info.factory] = loaded.source;
    return loaded.info;
  };
  if (request.pipeline !== undefined) {
    if (request.upstream !== undefined || request.downstream !== undefined) {
      throw new TypeError("give either a pipeline or two elements, not both");
    }
    if (request.filter !== undefined) {
      throw new TypeError("--filter applies to two elements; put caps in the pipeline instead");
    }
    const pipeline = parsePipeline(request.pipeline);
    const infos = new Map<string, ElementInfo>();
    for (const e of pipeline.elements) {
      if (!infos.has(e.factory)) infos.set(e.factory, await load(e.factory));
    }
    const report = analyzePipeline(pipeline, infos, request, request.pipeline);
    return Object.freeze({ report, sources: Object.freeze(sources) });
  }
  if (request.upstream === undefined || request.downstream === undefined) {
    throw new TypeError("give a pipeline description, or an upstream and a downstream element");
  }
  const up = await load(request.upstream);
  const down = await load(request.downstream);
  const report = analyzePair(up, down, request);
  return Object.freeze({ report, sources: Object.freeze(sources) });
}

/** How the analysis compares with what gst-launch-1.0 did. */
export interface LaunchComparison {
  /** What gst-launch-1.0 did. */
  readonly launch: LaunchOutcome;
  /** `agree`, `disagree`, or `inconclusive` when gst-launch failed for another reason. */
  readonly verdict: "agree" | "disagree" | "inconclusive";
  /** One sentence saying whether and how the two agree. */
  readonly message: string;
}

/**
 * Compares a report with a gst-launch-1.0 outcome: both succeed, or both fail
 * at the same link (a failure while streaming with `not-negotiated` counts as
 * a failure without a link name). Other gst-launch errors (no display, missing
 * device) are inconclusive.
 *
 * @example
 * ```ts
 * import { compareWithLaunch } from "./check.ts";
 * import { parseLaunchOutput } from "./gst_tools.ts";
 * import { strictEqual } from "node:assert/strict";
 * const launch = parseLaunchOutput("Setting pipeline to PLAYING ...\nGot EOS from element\n", 0);
 * const c = compareWithLaunch({ description: "", elements: [], links: [], negotiates: true,
 *   firstFailure: undefined, memoryCheck: undefined }, launch);
 * strictEqual(c.verdict, "agree");
 * ```
 */
export function compareWithLaunch(report: CapsReport, launch: LaunchOutcome): LaunchComparison {
  const failed = report.firstFailure ? report.links[report.firstFailure - 1] : undefined;
  const mk = (verdict: LaunchComparison["verdict"], message: string) =>
    Object.freeze({ launch, verdict, message });
  switch (launch.outcome) {
    case "ok":
      return report.negotiates
        ? mk("agree", "gst-launch-1.0 ran the pipeline to the end: it negotiates")
        : mk(
          "disagree",
          `gst-launch-1.0 ran the pipeline, but link ${failed!.number} was predicted to fail`,
        );
    case "link-failed": {
      const where = `${launch.failedLink!.from} → ${launch.failedLink!.to}`;
      if (!failed) {
        return mk("disagree", `gst-launch-1.0 could not link ${where}; predicted to negotiate`);
      }
      return failed.from === launch.failedLink!.from && failed.to === launch.failedLink!.to
        ? mk("agree", `gst-launch-1.0 also fails to link ${where}`)
        : mk(
          "disagree",
          `gst-launch-1.0 fails at ${where}, predicted ${failed.from} → ${failed.to}`,
        );
    }
    case "not-negotiated":
      return failed
        ? mk(
          "agree",
          "gst-launch-1.0 linked the pipeline but failed with not-negotiated while streaming",
        )
        : mk("disagree", "gst-launch-1.0 failed with not-negotiated; predicted to negotiate");
    default:
      return mk(
        "inconclusive",
        `gst-launch-1.0 ${
          launch.outcome === "timeout" ? "timed out" : "failed for another reason"
        }` +
          (launch.message ? `: ${launch.message}` : ""),
      );
  }
}

/**
 * Runs gst-launch-1.0 on a pipeline and compares with the report.
 *
 * @example
 * ```ts ignore
 * import { checkCaps, launchAndCompare } from "./check.ts";
 * const d = "videotestsrc num-buffers=1 ! fakesink";
 * const { report } = await checkCaps({ pipeline: d });
 * console.log((await launchAndCompare(d, report)).verdict);
 * ```
 */
export async function launchAndCompare(
  description: string,
  report: CapsReport,
  options: { binary?: string; timeoutMs?: number } = {},
): Promise<LaunchComparison> {
  return compareWithLaunch(report, await runGstLaunch(description, options));
}
