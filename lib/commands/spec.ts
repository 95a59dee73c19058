/**
 * The declared shape of a command: its options, positional arguments and help text.
 * Parsing (here), `--help` and the shell's `help` (`help.ts`) and the shell's Tab
 * completion all read the same declaration, so an option is written once.
 *
 * @module
 */
import { parseArgs } from "node:util";

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

/** Where a command runs: the `axl` command line or the device shell. */
export type Surface = "cli" | "shell";

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
  /** One line for help (more lines are indented under it). */
  description: string;
  /** Value when the option is left out; help says it. */
  default?: string;
  /** It may be given more than once; the value is then an array. */
  multiple?: boolean;
  /** Only this surface has it; default both. */
  only?: Surface;
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

/** A subcommand (`trace start`): its own options and arguments. */
export interface SubcommandSpec {
  /** One line for help. */
  summary: string;
  /** Positional arguments after the subcommand word. */
  positionals: readonly PositionalSpec[];
  /** Options on top of the command's. */
  options: Readonly<Record<string, OptionSpec>>;
}

/** How the `axl` command line presents a command (absent: a shell-only command). */
export interface CliSpec {
  /** One line for `axl --help`; default the command's summary. */
  summary?: string;
  /** Usage lines after `Usage: `; default `axl NAME [ARGS] [options]`. */
  usage?: readonly string[];
  /** Paragraphs between usage and options: what it does. */
  details: string;
  /** Paragraphs after the options (files written, environment). */
  epilogue?: string;
  /** What each exit code means for this command, in order. */
  exits: readonly (readonly [code: number, meaning: string])[];
}

/** A command: what it is called, what it takes, and its help. */
export interface CommandSpec {
  /** The word typed, e.g. `alloc`. */
  readonly name: string;
  /** Other words that run it in the shell. */
  readonly aliases?: readonly string[];
  /** One line for the shell's `help` list. */
  readonly summary: string;
  /** Positional arguments in order. */
  readonly positionals: readonly PositionalSpec[];
  /** Options by long name. */
  readonly options: Readonly<Record<string, OptionSpec>>;
  /** Extra paragraphs of the shell's help (what it does there, examples). */
  readonly details: string;
  /** Subcommands by their word; the first positional word selects one. */
  readonly subcommands?: Readonly<Record<string, SubcommandSpec>>;
  /** The words after `--`, taken as they are (e.g. a command to run); absent: none. */
  readonly rest?: PositionalSpec;
  /** The `axl` command-line presentation, for commands the CLI has. */
  readonly cli?: CliSpec;
}

/** Parsed arguments of a command. */
export interface ParsedArgs {
  /** Option values by long name (arrays for `multiple` options). */
  values: Record<string, string | boolean | string[] | undefined>;
  /** Positional words. */
  positionals: string[];
  /** The words after `--`, for a command that declares `rest` (absent: no `--`). */
  rest?: string[];
}

/**
 * Bad usage of a command (exit status 3).
 *
 * @example
 * ```ts
 * import { UsageError } from "./spec.ts";
 * const err = new UsageError("alloc: expected SIZE");
 * console.log(err.name); // "UsageError"
 * ```
 */
export class UsageError extends Error {
  /** Exit status 3: the arguments are wrong as written. */
  readonly exitKind = "usage";
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
 * import { CannotRunError } from "./spec.ts";
 * console.log(new CannotRunError("no gst-inspect-1.0").name); // "CannotRunError"
 * ```
 */
export class CannotRunError extends Error {
  /** Exit status 3: this machine lacks what the command needs. */
  readonly exitKind = "cannot-run";
  /** Creates the error. */
  constructor(message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = "CannotRunError";
  }
}

function onSurface(
  options: Readonly<Record<string, OptionSpec>>,
  surface: Surface,
): Record<string, OptionSpec> {
  return Object.fromEntries(
    Object.entries(options).filter(([, o]) => o.only === undefined || o.only === surface),
  );
}

/**
 * The options `command` takes on `surface` (with its subcommand's when the first word
 * names one).
 *
 * @example
 * ```ts
 * import { optionsOf } from "./spec.ts";
 * const opts = optionsOf({ name: "x", summary: "", positionals: [], details: "",
 *   options: { json: { type: "boolean", description: "JSON", only: "cli" } } }, [], "shell");
 * console.log("json" in opts); // false
 * ```
 */
export function optionsOf(
  command: CommandSpec,
  words: readonly string[],
  surface: Surface,
): Readonly<Record<string, OptionSpec>> {
  const sub = words[0] !== undefined ? command.subcommands?.[words[0]] : undefined;
  return onSurface(sub ? { ...command.options, ...sub.options } : command.options, surface);
}

/**
 * `--frames -5` as `--frames=-5`: parseArgs takes a word after a string option that starts
 * with a dash for another option ("argument is ambiguous"); a negative number is the
 * option's value, for the option's own check to refuse with its message.
 */
function negativeValuesJoined(
  words: readonly string[],
  options: Readonly<Record<string, { type: "string" | "boolean"; short?: string }>>,
): string[] {
  const takesValue = (word: string) => {
    if (word.startsWith("--")) return options[word.slice(2)]?.type === "string";
    return word.length === 2 && word[0] === "-" &&
      Object.values(options).some((o) => o.type === "string" && o.short === word[1]);
  };
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    const word = words[i]!, next = words[i + 1];
    if (word === "--") return [...out, ...words.slice(i)];
    if (next !== undefined && /^-\.?\d/.test(next) && takesValue(word)) {
      out.push(`${word}${word.startsWith("--") ? "=" : ""}${next}`);
      i++;
    } else out.push(word);
  }
  return out;
}

/**
 * Parses a command's words with `node:util` parseArgs (strict), defaults filled in. A
 * UsageError says what was wrong: on the CLI a command without positionals rejects
 * stray words here; in the shell it says how to get help.
 *
 * @example
 * ```ts
 * import { parseCommandArgs } from "./spec.ts";
 * const cmd = { name: "wait", summary: "", details: "", positionals: [],
 *   options: { timeout: { type: "string" as const, description: "ms", default: "5" } } };
 * const a = parseCommandArgs(cmd, ["$3"], "shell");
 * console.log(a.values.timeout); // "5"
 * console.log(a.positionals[0]); // "$3"
 * ```
 */
export function parseCommandArgs(
  command: CommandSpec,
  words: string[],
  surface: Surface,
): ParsedArgs {
  const cut = command.rest ? words.indexOf("--") : -1;
  if (cut >= 0) {
    return {
      ...parseCommandArgs(command, words.slice(0, cut), surface),
      rest: words.slice(cut + 1),
    };
  }
  const options: Record<
    string,
    { type: "string" | "boolean"; short?: string; default?: string; multiple?: boolean }
  > = {};
  for (const [name, o] of Object.entries(optionsOf(command, words, surface))) {
    options[name] = {
      type: o.type,
      ...(o.short ? { short: o.short } : {}),
      ...(o.default !== undefined ? { default: o.default } : {}),
      ...(o.multiple ? { multiple: true } : {}),
    };
  }
  const allowPositionals = surface === "shell" || command.positionals.length > 0;
  try {
    const { values, positionals } = parseArgs({
      args: negativeValuesJoined(words, options),
      options,
      allowPositionals,
      strict: true,
    });
    return { values: values as ParsedArgs["values"], positionals };
  } catch (err) {
    const msg = err instanceof Error ? err.message : String(err);
    if (surface === "cli") throw new UsageError(`${command.name}: ${msg}`);
    const short = msg.replace(/\. To specify.*$/s, "");
    throw new UsageError(`${command.name}: ${short} (try 'help ${command.name}')`);
  }
}

/**
 * The string value of option `name`, or undefined when it was not given.
 *
 * @example
 * ```ts
 * import { stringOption } from "./spec.ts";
 * console.log(stringOption({ values: { a: "x", b: true }, positionals: [] }, "b")); // undefined
 * ```
 */
export function stringOption(args: ParsedArgs, name: string): string | undefined {
  const v = args.values[name];
  return typeof v === "string" ? v : undefined;
}

/**
 * Every value of a repeatable option, in order (none: an empty array).
 *
 * @example
 * ```ts
 * import { listOption } from "./spec.ts";
 * console.log(listOption({ values: { d: ["a", "b"] }, positionals: [] }, "d").length); // 2
 * ```
 */
export function listOption(args: ParsedArgs, name: string): string[] {
  const v = args.values[name];
  return Array.isArray(v) ? v : typeof v === "string" ? [v] : [];
}
