/**
 * `release`: gives back session objects — releases imports, closes jobs' fences,
 * buffers, producers and the device, recycles frames, stops traces.
 *
 * @module
 */
import { type ShellCommand } from "../command.ts";
import { UsageError } from "../../commands/spec.ts";
import { OBJECT_KINDS } from "../session.ts";
import { resolveObject } from "../resolve.ts";
import { ExitCode } from "../../commands/exit_code.ts";

/** The `release` command. */
export const command: ShellCommand = {
  name: "release",
  aliases: ["free", "detach"],
  summary: "release imports (detach on Metis), close buffers/jobs/producers, recycle frames, " +
    "stop traces",
  positionals: [{ name: "OBJECT", kind: "object", variadic: true, optional: true }],
  options: {
    all: { type: "boolean", short: "a", description: "everything the session holds (as on exit)" },
  },
  details: "An import whose job has not been waited for cannot be released: 'wait' first\n" +
    "(or release the job); a Metis attachment cannot be detached while a transfer on it\n" +
    "is in flight ('wait' first). With --all, jobs go first, then imports, then the rest.",
  async run(ctx, args) {
    const s = ctx.session;
    if (args.values.all) {
      if (args.positionals.length) throw new UsageError("release: --all takes no objects");
      const report = await s.releaseAll();
      const lines = [...report.released, ...report.errors.map((e) => `error: ${e}`)];
      return {
        text: lines.join("\n") || "nothing to release",
        value: report,
        code: report.errors.length ? ExitCode.Fail : ExitCode.Ok,
      };
    }
    if (!args.positionals.length) {
      throw new UsageError("release: name what to release (release $2 frame), or --all");
    }
    const objects = args.positionals.map((w) => resolveObject(s, w, OBJECT_KINDS, "release"));
    const lines: string[] = [];
    for (const o of objects) lines.push(await s.release(o));
    return { text: lines.join("\n") };
  },
};
