/**
 * The shape of a shell command (one file per command under `lib/shell/commands/`,
 * registered in `lib/shell/registry.ts`): its options and arguments are declared, so
 * one description drives parsing, `help` and Tab completion.
 *
 * @module
 */
import { parseArgs } from "node:util";
import type { Session } from "./session.ts";

/**
 * What an argument value is; it selects completion candidates and the handle lookup
 * (`buffer`, `import`, `job`, `producer`, `frame`, `object` resolve a variable name).
 */
export type ValueKind =
  | "text"
  | "number"
  | "size"
  | "path"
  | "heap"
  | "choice"
  | "command"
  | "buffer"
  | "import"
  | "job"
  | "producer"
  | "frame"
  | "object";

/** One `--option` of a command. */
export interface OptionSpec {
  /** `boolean` flags take no value. */
  type: "string" | "boolean";
  /** One-letter alias. */
  short?: string;
  /** What the value is (for completion and help); default `text`. */
  kind?: ValueKind;
  /** The allowed values of a `choice`. */
  choices?: readonly string[];
  /** Placeholder in help, e.g. `MS`. */
  arg?: string;
  /** One line for help. */
  description: string;
}

/** One positional argument. */
export interface PositionalSpec {
  /** Placeholder in help, e.g. `BUFFER`. */
  name: string;
  /** What the value is. */
  kind: ValueKind;
  /** Allowed values of a `choice`. */
  choices?: readonly string[];
  /** It may be left out. */
  optional?: boolean;
  /** It takes every remaining word. */
  variadic?: boolean;
}

/** What a command hands back to the shell. */
export interface CommandOutcome {
  /** The result, bound to `$N` (and a name) unless undefined. */
  value?: unknown;
  /** Text for humans; default: the shell renders `value`. */
  text?: string;
  /** Exit code of the command (`ExitCode`); default 0. */
  code?: number;
  /** Ends the shell with this exit code after the outcome is shown. */
  exit?: number;
}

/** What a running command gets from the shell. */
export interface CommandContext {
  /** The session: scope, device, tracked objects. */
  readonly session: Session;
  /** Aborted when the user presses Ctrl-C; long commands must stop on it. */
  readonly signal: AbortSignal;
  /** Prints progress or notes (not part of the result; stderr in --json mode). */
  note(text: string): void;
}

/** Parsed arguments of a command. */
export interface ParsedArgs {
  /** Option values by long name. */
  values: Record<string, string | boolean | undefined>;
  /** Positional words. */
  positionals: string[];
}

/** A command of the device shell. */
export interface ShellCommand {
  /** The word typed, e.g. `alloc`. */
  readonly name: string;
  /** Other words that run it. */
  readonly aliases?: readonly string[];
  /** One line for `help`. */
  readonly summary: string;
  /** Positional arguments in order. */
  readonly positionals: readonly PositionalSpec[];
  /** Options by long name. */
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Extra help paragraphs (what it does, examples). */
  readonly details: string;
  /**
   * Subcommands (`trace start`): each one's options and arguments, by its word; the
   * first positional word selects it.
   */
  readonly subcommands?: Readonly<
    Record<
      string,
      {
        summary: string;
        positionals: readonly PositionalSpec[];
        options: Readonly<Record<string, OptionSpec>>;
      }
    >
  >;
  /** Runs the command. Errors propagate; the shell reports them in one line. */
  run(ctx: CommandContext, args: ParsedArgs): Promise<CommandOutcome>;
}

/**
 * Bad usage of a shell command or of the shell itself (exit status 3).
 *
 * @example
 * ```ts
 * import { UsageError } from "./command.ts";
 * const err = new UsageError("alloc: expected SIZE");
 * if (err.name !== "UsageError") throw new Error();
 * ```
 */
export class UsageError extends Error {
  /** Creates the error. */
  constructor(message: string) {
    super(message);
    this.name = "UsageError";
  }
}

/**
 * A command could not run here: a missing tool, file or feature (exit status 3).
 *
 * @example
 * ```ts
 * import { CannotRunError } from "./command.ts";
 * if (new CannotRunError("no gst-inspect-1.0").name !== "CannotRunError") throw new Error();
 * ```
 */
export class CannotRunError extends Error {
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "CannotRunError";
  }
}

/**
 * The options of `command` (of its subcommand when the first word names one).
 *
 * @example
 * ```ts
 * import { optionsOf } from "./command.ts";
 * const opts = optionsOf({ name: "x", summary: "", positionals: [], details: "",
 *   options: { json: { type: "boolean", description: "JSON" } },
 *   run: () => Promise.resolve({}) }, []);
 * if (!("json" in opts)) throw new Error("unexpected");
 * ```
 */
export function optionsOf(
  command: ShellCommand,
  words: readonly string[],
): Readonly<Record<string, OptionSpec>> {
  const sub = words[0] !== undefined ? command.subcommands?.[words[0]] : undefined;
  return sub ? { ...command.options, ...sub.options } : command.options;
}

/**
 * Parses a command's words with `node:util` parseArgs (strict); UsageError says what
 * was wrong and how to get help.
 *
 * @example
 * ```ts
 * import { parseCommandArgs } from "./command.ts";
 * const cmd = { name: "wait", summary: "", details: "", positionals: [],
 *   options: { timeout: { type: "string" as const, description: "ms" } },
 *   run: () => Promise.resolve({}) };
 * const a = parseCommandArgs(cmd, ["$3", "--timeout", "500"]);
 * if (a.values.timeout !== "500" || a.positionals[0] !== "$3") throw new Error("unexpected");
 * ```
 */
export function parseCommandArgs(command: ShellCommand, words: string[]): ParsedArgs {
  const specs = optionsOf(command, words);
  const options: Record<string, { type: "string" | "boolean"; short?: string }> = {};
  for (const [name, spec] of Object.entries(specs)) {
    options[name] = spec.short ? { type: spec.type, short: spec.short } : { type: spec.type };
  }
  try {
    const { values, positionals } = parseArgs({
      args: words,
      options,
      allowPositionals: true,
      strict: true,
    });
    return { values: values as ParsedArgs["values"], positionals };
  } catch (err) {
    const msg = err instanceof Error ? err.message.replace(/\. To specify.*$/s, "") : String(err);
    throw new UsageError(`${command.name}: ${msg} (try 'help ${command.name}')`);
  }
}

function usageLine(name: string, positionals: readonly PositionalSpec[], hasOptions: boolean) {
  const parts = [name];
  for (const p of positionals) {
    const v = p.variadic ? `${p.name}...` : p.name;
    parts.push(p.optional ? `[${v}]` : v);
  }
  if (hasOptions) parts.push("[options]");
  return parts.join(" ");
}

function optionLines(options: Readonly<Record<string, OptionSpec>>): string[] {
  const rows = Object.entries(options).map(([name, o]) => {
    const flag = `${o.short ? `-${o.short}, ` : "    "}--${name}${
      o.type === "string" ? ` ${o.arg ?? (o.choices ? o.choices.join("|") : "VALUE")}` : ""
    }`;
    return [flag, o.description] as const;
  });
  const width = Math.max(0, ...rows.map(([f]) => f.length));
  return rows.map(([f, d]) => `  ${f.padEnd(width)}  ${d}`);
}

/**
 * The full help text of a command, built from its declaration.
 *
 * @example
 * ```ts
 * import { commandHelp } from "./command.ts";
 * const text = commandHelp({ name: "sleep", summary: "wait", details: "",
 *   positionals: [{ name: "MS", kind: "number" }], options: {},
 *   run: () => Promise.resolve({}) });
 * if (!text.startsWith("sleep MS")) throw new Error(text);
 * ```
 */
export function commandHelp(command: ShellCommand): string {
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
    lines.push(
      usageLine(command.name, command.positionals, Object.keys(command.options).length > 0),
    );
  }
  lines.push("", command.summary + ".");
  if (command.aliases?.length) lines.push(`Also: ${command.aliases.join(", ")}.`);
  if (command.details) lines.push("", command.details);
  const all: Record<string, OptionSpec> = { ...command.options };
  for (const sub of Object.values(command.subcommands ?? {})) Object.assign(all, sub.options);
  if (Object.keys(all).length) lines.push("", "Options:", ...optionLines(all));
  return lines.join("\n");
}
