/**
 * `trace start|stop|show`: captures the kernel's view of what the session does — the
 * driver's import/release/job events and the dma_fence lifecycle, optionally the
 * dma-buf attach/map calls — and shows it.
 *
 * @module
 */
import { parseCount } from "../args.ts";
import { type ShellCommand } from "../command.ts";
import { UsageError } from "../../commands/spec.ts";
import type { Session } from "../session.ts";
import { ShellTrace, type TraceCapture } from "../trace_capture.ts";
import { resolveObject } from "../resolve.ts";

function latestTrace(session: Session, live: boolean): ShellTrace | undefined {
  const list = (live ? session.live() : [...session.all()]).filter((t) => t.kind === "trace");
  return list[list.length - 1]?.object as ShellTrace | undefined;
}

function summaryText(c: TraceCapture): string {
  const counts = Object.entries(c.counts).map(([n, k]) => `${n} ×${k}`).join(", ") || "none";
  const lines = [
    `${c.events.length} events: ${counts}`,
    `${c.graphLines} function_graph lines; ${c.lost} events lost; clock ${c.info.clock}`,
  ];
  if (c.info.missingEvents.length) lines.push(`not available: ${c.info.missingEvents.join(", ")}`);
  if (c.info.graphUnavailable) lines.push(`function_graph: ${c.info.graphUnavailable}`);
  for (const n of c.info.notes) lines.push(`note: ${n}`);
  return lines.join("\n");
}

function globRe(glob: string): RegExp {
  const esc = glob.replace(/[.+^${}()|[\]\\]/g, "\\$&").replace(/\*/g, ".*").replace(/\?/g, ".");
  return new RegExp(`^${esc}$`);
}

/** The `trace` command. */
export const command: ShellCommand = {
  name: "trace",
  summary: "capture the kernel's events: trace start, run things, trace stop, trace show",
  positionals: [{ name: "start|stop|show", kind: "choice", choices: ["start", "stop", "show"] }],
  options: {},
  subcommands: {
    start: {
      summary: "start recording dma_fence:* and axl:* events",
      positionals: [],
      options: {
        event: {
          type: "string",
          arg: "SYS:EVENT",
          description: "events to enable instead, comma-separated (e.g. axl:*,dma_fence:*)",
        },
        graph: {
          type: "boolean",
          description: "also function_graph on dma_buf_attach/map/... (slow to enable in a VM)",
        },
        "buffer-kb": {
          type: "string",
          kind: "number",
          arg: "KIB",
          description: "per-CPU buffer (default 4096)",
        },
      },
    },
    stop: {
      summary: "stop, read the capture and restore tracefs; value: the capture",
      positionals: [{ name: "TRACE", kind: "object", optional: true }],
      options: {},
    },
    show: {
      summary: "print captured lines (of a running trace: what is there so far)",
      positionals: [{ name: "TRACE", kind: "object", optional: true }],
      options: {
        event: {
          type: "string",
          arg: "GLOB",
          description: "only events whose name matches (axl_*)",
        },
        grep: { type: "string", arg: "TEXT", description: "only lines containing TEXT" },
        last: { type: "string", kind: "number", arg: "N", description: "only the last N lines" },
      },
    },
  },
  details: "Needs root and tracefs. The capture uses a private tracefs instance and puts\n" +
    "back every setting it changed on stop, on 'release' and when the shell exits.\n" +
    "Timestamps use the mono clock, comparable with fence timestamps.",
  async run(ctx, args) {
    const [sub, target, ...rest] = args.positionals;
    const v = args.values as Record<string, string | boolean | undefined>;
    const s = ctx.session;
    if (rest.length) throw new UsageError(`trace ${sub}: unexpected '${rest[0]}'`);
    if (sub === "start") {
      if (target !== undefined) throw new UsageError(`trace start: unexpected '${target}'`);
      if (latestTrace(s, true)) {
        throw new UsageError("trace start: a trace is already recording; 'trace stop' it first");
      }
      const trace = ShellTrace.start({
        graph: v.graph === true,
        ...(typeof v.event === "string" ? { events: v.event.split(",").filter(Boolean) } : {}),
        ...(typeof v["buffer-kb"] === "string"
          ? { bufferKb: parseCount(v["buffer-kb"], "trace start: --buffer-kb") }
          : {}),
      });
      s.track("trace", trace, "trace start");
      const i = trace.info;
      const text = `recording ${i.events.length} events (${i.tracer}) in ` +
        `${i.instance ? `instance ${i.instance}` : "the top-level buffer"}` +
        (i.missingEvents.length ? `; not available: ${i.missingEvents.join(", ")}` : "");
      return { value: trace, text };
    }
    if (sub === "stop" || sub === "show") {
      const trace = target !== undefined
        ? resolveObject(s, target, ["trace"], `trace ${sub}`) as ShellTrace
        : latestTrace(s, sub === "stop");
      if (!trace) {
        throw new UsageError(
          `trace ${sub}: no ${sub === "stop" ? "recording " : ""}trace; 'trace start' first`,
        );
      }
      if (sub === "stop") {
        const c = await trace.stop();
        return { value: c, text: summaryText(c) };
      }
      const c = trace.stopped ? trace.capture! : await trace.peek();
      let lines = c.raw.filter((l) => l.trim() && !l.startsWith("#"));
      if (typeof v.event === "string") {
        const re = globRe(v.event);
        lines = c.events.filter((e) => re.test(e.name)).map((e) => c.raw[e.line - 1]!);
      }
      if (typeof v.grep === "string") lines = lines.filter((l) => l.includes(v.grep as string));
      if (typeof v.last === "string") {
        lines = lines.slice(-parseCount(v.last, "trace show: --last"));
      }
      return { value: lines, text: lines.join("\n") || "no matching trace lines" };
    }
    throw new UsageError("trace: expected start, stop or show (try 'help trace')");
  },
};
