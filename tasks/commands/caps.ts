/**
 * `axl caps`: reads two elements' capabilities (or every element of a
 * gst-launch-1.0 description) and says for each link whether it negotiates, in
 * which memory, and if not, exactly why and what would fix it (lib/commands/caps.ts);
 * `--launch` also runs the pipeline and compares.
 *
 * @module
 */
import { cliCommand } from "../command.ts";
import { ExitCode } from "../../lib/commands/exit_code.ts";
import { capsExit, capsRequest, capsSpec, runCapsCheck } from "../../lib/commands/caps.ts";
import { CannotRunError, type ParsedArgs, UsageError } from "../../lib/commands/spec.ts";
import {
  capsReportJson,
  haveGstTool,
  launchAndCompare,
  type LaunchComparison,
  renderCapsReport,
} from "../../lib/caps/mod.ts";

async function launch(pipeline: string, report: Parameters<typeof launchAndCompare>[1]) {
  if (!(await haveGstTool("gst-launch-1.0"))) {
    throw new CannotRunError(
      "caps: --launch: gst-launch-1.0 is not installed (apt-get install gstreamer1.0-tools)",
    );
  }
  return await launchAndCompare(pipeline, report);
}

async function caps(args: ParsedArgs): Promise<number> {
  const request = capsRequest(args);
  if (args.values.launch && request.pipeline === undefined) {
    throw new UsageError("caps: --launch needs a pipeline description");
  }
  const { report, sources } = await runCapsCheck(request);
  let comparison: LaunchComparison | undefined;
  if (args.values.launch) comparison = await launch(request.pipeline!, report);
  if (args.values.json) {
    const json = JSON.parse(capsReportJson(report));
    const launched = comparison && {
      verdict: comparison.verdict,
      message: comparison.message,
      outcome: comparison.launch.outcome,
      failedLink: comparison.launch.failedLink,
    };
    console.log(JSON.stringify({ ...json, sources, launch: launched }, null, 2));
  } else {
    console.log(renderCapsReport(report, { verbose: args.values.verbose === true }));
    for (const [factory, source] of Object.entries(sources)) {
      if (args.values.verbose) console.log(`source: ${factory}: ${source}`);
    }
    if (comparison) {
      console.log(`gst-launch-1.0: ${comparison.verdict.toUpperCase()}: ${comparison.message}`);
    }
  }
  if (capsExit(report) !== ExitCode.Ok || comparison?.verdict === "disagree") return ExitCode.Fail;
  if (comparison?.verdict === "inconclusive") return ExitCode.Inconclusive;
  return ExitCode.Ok;
}

/** The `caps` command. */
export const capsCommand = cliCommand(capsSpec, caps);

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
export const runCaps: (args: string[]) => Promise<number> = capsCommand.run;
