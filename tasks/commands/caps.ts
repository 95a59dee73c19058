/**
 * `axl caps`: reads two elements' capabilities (or every element of a
 * gst-launch-1.0 description) and says for each link whether it negotiates, in
 * which memory, and if not, exactly why and what would fix it.
 *
 * @module
 */

import { parseArgs } from "node:util";
import type { Command } from "../command.ts";
import { ExitCode } from "../command.ts";
import {
  capsReportJson,
  CapsSyntaxError,
  checkCaps,
  GstToolError,
  haveGstTool,
  launchAndCompare,
  type LaunchComparison,
  renderCapsReport,
} from "../../lib/caps/mod.ts";

const HELP = `usage: axl caps [options] <upstream> <downstream>
       axl caps [options] <element> ! [caps !] <element> ...
       axl caps [options] --pipeline "<gst-launch-1.0 description>"

Says for each link whether the caps negotiate, in which memory (system memory,
memory:NVMM, memory:DMABuf, ...), and if not, which caps feature or field
(format, drm-format, width, framerate, ...) disagrees and what would fix it.

Elements are factory names, read with gst-inspect-1.0 or from saved outputs in
--inspect-dir, or paths to a saved \`gst-inspect-1.0 <element>\` output. Save the
outputs on the device (gst-inspect-1.0 nvvidconv > nvvidconv.txt) to analyse its
elements anywhere.

options:
  -p, --pipeline DESC        analyse every link of a gst-launch-1.0 description
  -f, --filter CAPS          caps between <upstream> and <downstream>
  -d, --inspect-dir DIR      directory of saved <factory>.txt outputs (repeatable)
      --no-gst-inspect       never run gst-inspect-1.0; only use saved outputs
  -m, --require-memory FEAT  fail unless every link carries FEAT, e.g. memory:NVMM
      --launch               also run gst-launch-1.0 -v on the pipeline and compare
      --json                 print the report as JSON
  -v, --verbose              print what each side of every link offers
  -h, --help                 this text

exit codes:
  0  every link negotiates (and carries --require-memory, if given)
  1  a link does not negotiate, misses the required memory, or --launch disagrees
  2  --launch was inconclusive (gst-launch-1.0 failed for an unrelated reason)
  3  cannot run: bad usage, unreadable input, missing gst-inspect-1.0 / element`;

/** The `caps` command. */
export const capsCommand: Command = {
  name: "caps",
  summary: "explain whether GStreamer caps negotiate, in which memory, and why not",
  help: HELP,
  run: runCaps,
};

/**
 * Runs `axl caps` with the arguments after the command name; resolves to the
 * exit code. Output goes to stdout, errors to stderr.
 *
 * @example
 * ```ts ignore
 * import { runCaps } from "./caps.ts";
 * const code = await runCaps(["videotestsrc", "!", "video/x-raw(memory:DMABuf)", "!", "fakesink"]);
 * console.log(code); // 1
 * ```
 */
export async function runCaps(args: string[]): Promise<number> {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      allowPositionals: true,
      strict: true,
      options: {
        pipeline: { type: "string", short: "p" },
        filter: { type: "string", short: "f" },
        "inspect-dir": { type: "string", short: "d", multiple: true },
        "no-gst-inspect": { type: "boolean" },
        "require-memory": { type: "string", short: "m" },
        launch: { type: "boolean" },
        json: { type: "boolean" },
        verbose: { type: "boolean", short: "v" },
        help: { type: "boolean", short: "h" },
      },
    });
  } catch (e) {
    return usage((e as Error).message);
  }
  const { values, positionals } = parsed;
  if (values.help) {
    console.log(HELP);
    return ExitCode.Ok;
  }
  let pipeline = values.pipeline;
  let upstream: string | undefined;
  let downstream: string | undefined;
  // A description may come as words (`a ! b`) or as one quoted argument.
  if (positionals.some((p) => p === "!" || /(^|\s)!(\s|$)/.test(p))) {
    if (pipeline !== undefined) {
      return usage("give the pipeline either with --pipeline or as arguments");
    }
    pipeline = positionals.join(" ");
  } else if (positionals.length === 2) {
    [upstream, downstream] = positionals;
  } else if (pipeline === undefined) {
    return usage(
      positionals.length === 0
        ? "nothing to check: give two elements or a pipeline"
        : `expected two elements, got ${positionals.length} (separate pipeline elements with "!")`,
    );
  } else if (positionals.length > 0) {
    return usage(`unexpected arguments with --pipeline: ${positionals.join(" ")}`);
  }
  const memory = values["require-memory"];
  if (memory !== undefined && !/^[A-Za-z][\w\-+.]*:[\w\-+.:/]+$/.test(memory)) {
    return usage(`--require-memory "${memory}" is not a caps feature such as memory:NVMM`);
  }
  if (values.launch && pipeline === undefined) {
    return usage("--launch needs a pipeline description");
  }

  try {
    const { report, sources } = await checkCaps({
      pipeline,
      upstream,
      downstream,
      filter: values.filter,
      inspectDirs: values["inspect-dir"],
      runInspect: !values["no-gst-inspect"],
      requireMemory: memory,
    });
    let comparison: LaunchComparison | undefined;
    if (values.launch) {
      if (!(await haveGstTool("gst-launch-1.0"))) {
        console.error(
          "axl caps: --launch: gst-launch-1.0 is not installed (apt-get install gstreamer1.0-tools)",
        );
        return ExitCode.CannotRun;
      }
      comparison = await launchAndCompare(pipeline!, report);
    }
    if (values.json) {
      const json = JSON.parse(capsReportJson(report));
      console.log(JSON.stringify(
        {
          ...json,
          sources,
          launch: comparison
            ? {
              verdict: comparison.verdict,
              message: comparison.message,
              outcome: comparison.launch.outcome,
              failedLink: comparison.launch.failedLink,
            }
            : undefined,
        },
        null,
        2,
      ));
    } else {
      console.log(renderCapsReport(report, { verbose: values.verbose }));
      for (const [factory, source] of Object.entries(sources)) {
        if (values.verbose) console.log(`source: ${factory}: ${source}`);
      }
      if (comparison) {
        console.log(`gst-launch-1.0: ${comparison.verdict.toUpperCase()}: ${comparison.message}`);
      }
    }
    if (!report.negotiates || report.memoryCheck?.ok === false) return ExitCode.Fail;
    if (comparison?.verdict === "disagree") return ExitCode.Fail;
    if (comparison?.verdict === "inconclusive") return ExitCode.Inconclusive;
    return ExitCode.Ok;
  } catch (e) {
    if (
      e instanceof CapsSyntaxError || e instanceof GstToolError || e instanceof TypeError ||
      e instanceof RangeError
    ) {
      console.error(`axl caps: ${e.message}`);
      return ExitCode.CannotRun;
    }
    throw e;
  }
}

function usage(message: string): number {
  console.error(`axl caps: ${message}\n(see axl caps --help)`);
  return ExitCode.CannotRun;
}
