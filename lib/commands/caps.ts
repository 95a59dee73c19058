/**
 * `caps`: whether GStreamer caps negotiate link by link, in which memory (system,
 * memory:NVMM, memory:DMABuf), and if not why — lib/caps behind one declaration.
 *
 * @module
 */
import { type CapsRequest, type CapsResult, checkCaps } from "../caps/check.ts";
import { CapsSyntaxError } from "../caps/errors.ts";
import { GstToolError } from "../caps/gst_tools.ts";
import { ExitCode } from "./exit_code.ts";
import {
  CannotRunError,
  type CommandSpec,
  listOption,
  type ParsedArgs,
  stringOption,
  UsageError,
} from "./spec.ts";

/** The declaration of `caps`. */
export const capsSpec: CommandSpec = {
  name: "caps",
  summary: "explain whether GStreamer caps negotiate, in which memory, and why not",
  positionals: [{ name: "ELEMENT|CAPS|!", kind: "text", variadic: true, optional: true }],
  options: {
    pipeline: {
      type: "string",
      short: "p",
      arg: "DESC",
      description: "analyse every link of a gst-launch-1.0 description",
    },
    filter: {
      type: "string",
      short: "f",
      arg: "CAPS",
      description: "caps between <upstream> and <downstream>",
    },
    "inspect-dir": {
      type: "string",
      short: "d",
      kind: "path",
      arg: "DIR",
      description: "directory of saved <factory>.txt outputs (repeatable)",
      multiple: true,
    },
    "no-gst-inspect": {
      type: "boolean",
      description: "never run gst-inspect-1.0; only use saved outputs",
    },
    "require-memory": {
      type: "string",
      short: "m",
      arg: "FEATURE",
      description: "fail unless every link carries it, e.g. memory:NVMM",
    },
    launch: {
      type: "boolean",
      description: "also run gst-launch-1.0 -v on the pipeline and compare",
      only: "cli",
    },
    json: { type: "boolean", description: "print the report as JSON", only: "cli" },
    verbose: {
      type: "boolean",
      short: "v",
      description: "print what each side of every link offers",
    },
  },
  details: `Examples:
  caps nvarguscamerasrc nvvidconv
  caps videotestsrc ! 'video/x-raw(memory:DMABuf)' ! fakesink
  caps -p "v4l2src ! video/x-raw,format=NV12 ! fakesink" -d saved-inspect/
The value is the report (links, reasons, memory). Exit status 1 when a link does
not negotiate or misses --require-memory; 3 when an element cannot be read.`,
  cli: {
    usage: [
      "axl caps [options] <upstream> <downstream>",
      "axl caps [options] <element> ! [caps !] <element> ...",
      'axl caps [options] --pipeline "<gst-launch-1.0 description>"',
    ],
    details: `Says for each link whether the caps negotiate, in which memory (system memory,
memory:NVMM, memory:DMABuf, ...), and if not, which caps feature or field
(format, drm-format, width, framerate, ...) disagrees and what would fix it.

Elements are factory names, read with gst-inspect-1.0 or from saved outputs in
--inspect-dir, or paths to a saved \`gst-inspect-1.0 <element>\` output. Save the
outputs on the device (gst-inspect-1.0 nvvidconv > nvvidconv.txt) to analyse its
elements anywhere.`,
    exits: [
      [ExitCode.Ok, "every link negotiates (and carries --require-memory, if given)"],
      [
        ExitCode.Fail,
        "a link does not negotiate, misses the required memory, or --launch disagrees",
      ],
      [
        ExitCode.Inconclusive,
        "--launch was inconclusive (gst-launch-1.0 failed for an unrelated reason)",
      ],
      [
        ExitCode.CannotRun,
        "cannot run: bad usage, unreadable input, missing gst-inspect-1.0 / element",
      ],
    ],
  },
};

// Where the words are a pipeline (`a ! b`, or one quoted description) or two elements.
function linkOf(words: string[], pipeline: string | undefined) {
  if (words.some((p) => p === "!" || /(^|\s)!(\s|$)/.test(p))) {
    if (pipeline !== undefined) {
      throw new UsageError("caps: give the pipeline either with --pipeline or as arguments");
    }
    return { pipeline: words.join(" ") };
  }
  if (words.length === 2) return { upstream: words[0]!, downstream: words[1]! };
  if (pipeline === undefined) {
    throw new UsageError(
      words.length === 0
        ? "caps: nothing to check: give two elements or a pipeline"
        : `caps: expected two elements, got ${words.length} (separate pipeline elements with "!")`,
    );
  }
  if (words.length > 0) {
    throw new UsageError(`caps: unexpected arguments with --pipeline: ${words.join(" ")}`);
  }
  return { pipeline };
}

/**
 * Reads the request out of the parsed arguments; UsageError says what is wrong.
 *
 * @example
 * ```ts
 * import { capsRequest } from "./caps.ts";
 * const r = capsRequest({ values: {}, positionals: ["a", "!", "b"] });
 * console.log(r.pipeline); // "a ! b"
 * ```
 */
export function capsRequest(args: ParsedArgs): CapsRequest {
  const memory = stringOption(args, "require-memory");
  if (memory !== undefined && !/^[A-Za-z][\w\-+.]*:[\w\-+.:/]+$/.test(memory)) {
    throw new UsageError(
      `caps: --require-memory "${memory}" is not a caps feature such as memory:NVMM`,
    );
  }
  const filter = stringOption(args, "filter");
  const inspectDirs = listOption(args, "inspect-dir");
  return {
    ...linkOf(args.positionals, stringOption(args, "pipeline")),
    ...(filter !== undefined ? { filter } : {}),
    ...(inspectDirs.length ? { inspectDirs } : {}),
    runInspect: args.values["no-gst-inspect"] !== true,
    ...(memory !== undefined ? { requireMemory: memory } : {}),
  };
}

/**
 * Checks the request; a caps syntax error or a missing tool or element cannot run.
 *
 * @example
 * ```ts ignore
 * import { capsRequest, runCapsCheck } from "./caps.ts";
 * const { report } = await runCapsCheck(capsRequest({ values: {}, positionals: ["a", "b"] }));
 * ```
 */
export async function runCapsCheck(request: CapsRequest): Promise<CapsResult> {
  try {
    return await checkCaps(request);
  } catch (err) {
    if (err instanceof CapsSyntaxError || err instanceof GstToolError) {
      throw new CannotRunError(`caps: ${err.message}`, { cause: err });
    }
    throw err;
  }
}

/**
 * Ok when every link negotiates in the required memory, else Fail.
 *
 * @example
 * ```ts ignore
 * const code = capsExit(report);
 * ```
 */
export function capsExit(report: CapsResult["report"]): number {
  return report.negotiates && report.memoryCheck?.ok !== false ? ExitCode.Ok : ExitCode.Fail;
}
