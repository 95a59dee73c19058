/**
 * `vars`: the session's variables with a one-line view of each value.
 *
 * @module
 */
import { type ShellCommand } from "../command.ts";
import { renderValue } from "../render.ts";

/** The `vars` command. */
export const command: ShellCommand = {
  name: "vars",
  summary: "list the session's variables ($1, names, and those JavaScript defined)",
  positionals: [],
  options: {},
  details: "The axl modules in scope (Device, Heap, ...) are not listed; 'dev' and 'session'\n" +
    "are always there.",
  run(ctx) {
    const scope = ctx.session.scope;
    const rows: string[] = [];
    for (const name of Object.keys(scope)) {
      const d = Object.getOwnPropertyDescriptor(scope, name)!;
      if (!("value" in d) || name === "session") continue;
      const line = renderValue(d.value, ctx.session).split("\n")[0]!;
      rows.push(`${name.padEnd(8)} ${line.length > 100 ? line.slice(0, 99) + "…" : line}`);
    }
    // Not bound to $N: listing the variables should not add one.
    return Promise.resolve({ text: rows.join("\n") || "no variables yet" });
  },
};
