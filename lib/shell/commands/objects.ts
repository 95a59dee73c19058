/**
 * `objects`: everything this session created (device, buffers, imports, jobs,
 * producers, frames, traces), with the variables bound to each.
 *
 * @module
 */
import { type ShellCommand } from "../command.ts";
import { summarize } from "../render.ts";

/** The `objects` command. */
export const command: ShellCommand = {
  name: "objects",
  summary: "list what this session created and still holds (everything released on exit)",
  positionals: [],
  options: {
    all: { type: "boolean", short: "a", description: "include released and closed objects" },
  },
  details: "Objects made by JavaScript lines (dev.import(...), Heap.open(...).allocate(...))\n" +
    "are adopted when they are bound to a variable or are a line's value.",
  run(ctx, args) {
    const s = ctx.session;
    const list = args.values.all ? s.all() : s.live();
    const text = list.map((t) => {
      const live = s.isLive(t) ? "" : "  [released]";
      return `${summarize(t.object, s) ?? `${t.kind} #${t.id}`}${live}`;
    });
    return Promise.resolve({
      value: list.map((t) => t.object),
      text: text.join("\n") || "the session holds nothing",
    });
  },
};
