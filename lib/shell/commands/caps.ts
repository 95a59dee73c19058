/**
 * `caps`: whether GStreamer caps negotiate link by link, in which memory (system,
 * memory:NVMM, memory:DMABuf), and if not why — lib/caps, as `axl caps` does it.
 *
 * @module
 */
import { checkCaps } from "../../caps/check.ts";
import { CapsSyntaxError } from "../../caps/errors.ts";
import { GstToolError } from "../../caps/gst_tools.ts";
import { renderCapsReport } from "../../caps/render.ts";
import { CannotRunError, type ShellCommand, UsageError } from "../command.ts";
import { ExitCode } from "../exit_code.ts";

/** The `caps` command. */
export const command: ShellCommand = {
  name: "caps",
  summary: "explain whether GStreamer caps negotiate, in which memory, and why not",
  positionals: [{ name: "ELEMENT|CAPS|!", kind: "text", variadic: true, optional: true }],
  options: {
    pipeline: {
      type: "string",
      short: "p",
      arg: "DESC",
      description: "a gst-launch-1.0 description",
    },
    filter: { type: "string", arg: "CAPS", description: "caps between two elements" },
    "inspect-dir": {
      type: "string",
      short: "d",
      kind: "path",
      arg: "DIR",
      description: "saved gst-inspect-1.0 outputs (<factory>.txt)",
    },
    "no-gst-inspect": { type: "boolean", description: "only use saved outputs" },
    "require-memory": {
      type: "string",
      short: "m",
      arg: "FEATURE",
      description: "fail unless every link carries it, e.g. memory:NVMM",
    },
    verbose: { type: "boolean", short: "v", description: "what each side of every link offers" },
  },
  details: `Examples:
  caps nvarguscamerasrc nvvidconv
  caps videotestsrc ! 'video/x-raw(memory:DMABuf)' ! fakesink
  caps -p "v4l2src ! video/x-raw,format=NV12 ! fakesink" -d saved-inspect/
The value is the report (links, reasons, memory). Exit status 1 when a link does
not negotiate or misses --require-memory; 3 when an element cannot be read.`,
  async run(_ctx, args) {
    const v = args.values as Record<string, string | boolean | undefined>;
    const words = args.positionals;
    let pipeline = typeof v.pipeline === "string" ? v.pipeline : undefined;
    let upstream: string | undefined;
    let downstream: string | undefined;
    if (words.includes("!")) {
      if (pipeline !== undefined) {
        throw new UsageError("caps: a pipeline as words or --pipeline, not both");
      }
      pipeline = words.join(" ");
    } else if (words.length === 2) {
      [upstream, downstream] = words;
    } else if (pipeline === undefined || words.length) {
      throw new UsageError("caps: give two elements or a pipeline (elements joined by '!')");
    }
    try {
      const { report } = await checkCaps({
        ...(pipeline !== undefined ? { pipeline } : {}),
        ...(upstream !== undefined ? { upstream } : {}),
        ...(downstream !== undefined ? { downstream } : {}),
        ...(typeof v.filter === "string" ? { filter: v.filter } : {}),
        ...(typeof v["inspect-dir"] === "string" ? { inspectDirs: [v["inspect-dir"]] } : {}),
        runInspect: v["no-gst-inspect"] !== true,
        ...(typeof v["require-memory"] === "string" ? { requireMemory: v["require-memory"] } : {}),
      });
      const ok = report.negotiates && report.memoryCheck?.ok !== false;
      return {
        value: report,
        text: renderCapsReport(report, { verbose: v.verbose === true }),
        code: ok ? ExitCode.Ok : ExitCode.Fail,
      };
    } catch (err) {
      if (err instanceof CapsSyntaxError || err instanceof GstToolError) {
        throw new CannotRunError(`caps: ${err.message}`);
      }
      throw err;
    }
  },
};
