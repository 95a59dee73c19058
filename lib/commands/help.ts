/**
 * Help text built from a command's declaration: the shell's `help COMMAND` and the CLI's
 * `axl COMMAND --help` both come from here.
 *
 * @module
 */
import {
  type CliSpec,
  type CommandSpec,
  optionsOf,
  type OptionSpec,
  type PositionalSpec,
  type Surface,
} from "./spec.ts";

function usageLine(
  name: string,
  positionals: readonly PositionalSpec[],
  hasOptions: boolean,
  rest?: PositionalSpec,
) {
  const parts = [name];
  for (const p of positionals) {
    const v = p.variadic ? `${p.name}...` : p.name;
    parts.push(p.optional ? `[${v}]` : v);
  }
  if (hasOptions) parts.push("[options]");
  if (rest) parts.push(`[-- ${rest.name}...]`);
  return parts.join(" ");
}

function optionLines(options: Readonly<Record<string, OptionSpec>>): string[] {
  const rows = Object.entries(options).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : "    "}--${name}${
      o.type === "string" ? ` ${o.arg ?? (o.choices ? o.choices.join("|") : "VALUE")}` : ""
    }`;
    const text = o.default === undefined
      ? o.description
      : `${o.description} (default ${o.default})`;
    return [flag, text] as const;
  });
  const width = Math.max(0, ...rows.map(([f]) => f.length));
  const indent = " ".repeat(width + 4);
  return rows.map(([f, d]) => `  ${f.padEnd(width)}  ${d.replaceAll("\n", `\n${indent}`)}`);
}

function shellHelp(command: CommandSpec): string {
  const lines: string[] = [];
  if (command.subcommands) {
    for (const [word, sub] of Object.entries(command.subcommands)) {
      const head = usageLine(
        `${command.name} ${word}`,
        sub.positionals,
        Object.keys(sub.options).length > 0,
      );
      lines.push(`${head.padEnd(36)}  ${sub.summary}`);
    }
  } else {
    const options = optionsOf(command, [], "shell");
    lines.push(
      usageLine(command.name, command.positionals, Object.keys(options).length > 0, command.rest),
    );
  }
  lines.push("", command.summary + ".");
  if (command.aliases?.length) lines.push(`Also: ${command.aliases.join(", ")}.`);
  if (command.details) lines.push("", command.details);
  const all: Record<string, OptionSpec> = { ...optionsOf(command, [], "shell") };
  for (const sub of Object.values(command.subcommands ?? {})) Object.assign(all, sub.options);
  if (Object.keys(all).length) lines.push("", "Options:", ...optionLines(all));
  return lines.join("\n");
}

function cliHelp(command: CommandSpec, cli: CliSpec): string {
  const options = optionsOf(command, [], "cli");
  const usage = cli.usage ??
    [usageLine(
      `axl ${command.name}`,
      command.positionals,
      Object.keys(options).length > 0,
      command.rest,
    )];
  const lines = usage.map((u, i) => `${i === 0 ? "Usage: " : "       "}${u}`);
  lines.push("", cli.details, "", "Options:");
  lines.push(
    ...optionLines({ ...options, help: { type: "boolean", short: "h", description: "this text" } }),
  );
  if (cli.epilogue) lines.push("", cli.epilogue);
  const exits = cli.exits.map(([code, meaning]) =>
    `  ${String(code).padStart(3)} ${meaning.replaceAll("\n", "\n      ")}`
  );
  lines.push("", "Exit codes:", ...exits);
  return lines.join("\n");
}

/**
 * The full help text of a command on `surface`, built from its declaration.
 *
 * @example
 * ```ts
 * import { commandHelp } from "./help.ts";
 * const text = commandHelp({ name: "sleep", summary: "wait", details: "",
 *   positionals: [{ name: "MS", kind: "number" }], options: {} }, "shell");
 * console.log(text.startsWith("sleep MS")); // true
 * ```
 */
export function commandHelp(command: CommandSpec, surface: Surface): string {
  if (surface === "shell") return shellHelp(command);
  if (!command.cli) throw new TypeError(`${command.name} is not a command of the axl CLI`);
  return cliHelp(command, command.cli);
}
