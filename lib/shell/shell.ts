/**
 * {@linkcode Shell}: runs one input of the device shell — a command or JavaScript —
 * against a {@linkcode Session}, binds the result, and reports it as text for people or
 * one JSON object per input for machines. The interactive loop and the script runner
 * both drive it; neither lets an error escape.
 *
 * @module
 */
import { abortable } from "./abortable.ts";
import { loadDrivers } from "./_drivers.ts";
import { splitWords } from "./args.ts";
import type { CommandOutcome } from "./command.ts";
import { parseCommandArgs, UsageError } from "../commands/spec.ts";
import { ExitCode, exitCodeOf } from "../commands/exit_code.ts";
import { isIncomplete } from "./js_rewrite.ts";
import {
  findShellCommand,
  loadShellCommand,
  SHELL_COMMAND_LIST,
  type ShellCommandEntry,
} from "./registry.ts";
import { closestName } from "./suggest.ts";
import { errorData, errorLine, renderValue, summarize, toPlain } from "./render.ts";
import type { Session } from "./session.ts";

/** How an input was understood. */
export type Classified =
  | { kind: "empty" }
  | { kind: "js"; source: string }
  | {
    kind: "command";
    /** The command (its module loads when the line runs). */
    command: ShellCommandEntry;
    word: string;
    rest: string;
    bindTo?: string;
  };

/** What running one input gave. */
export interface InputResult {
  /** What the input was. */
  kind: Classified["kind"];
  /** Exit code of this input (0 ok). */
  code: number;
  /** The value (bound for commands; printed for JavaScript). */
  value?: unknown;
  /** Variables the value was bound to. */
  names: string[];
  /** The error, when it failed. */
  error?: unknown;
  /** Exit requested by `exit` (-1: with the script's own status). */
  exit?: number;
}

/** Where the shell writes. */
export interface ShellOutput {
  /** Results: one block of text, or one JSON line. */
  out(text: string): void;
  /** Errors, progress and notes. */
  err(text: string): void;
}

/** Options of {@linkcode Shell}. */
export interface ShellOptions {
  /** Print one JSON object per input instead of text. */
  json?: boolean;
  /** Colour the text (interactive terminals). */
  colors?: boolean;
}

// `name = command args`: bind a command's result to a name.
const BIND_RE = /^([\p{ID_Start}$_][\p{ID_Continue}$]*)\s*=(?!=)\s*(\S+)(?:\s+([^]*))?$/u;
const FIRST_WORD_RE = /^(\S+)(?:\s+([^]*))?$/;

/**
 * Decides whether `input` is empty, a command or JavaScript. A first word that names a
 * command makes a command line (so does `NAME = command ...`); parentheses force
 * JavaScript.
 *
 * @example
 * ```ts
 * import { classify } from "./shell.ts";
 * console.log(classify("frame = alloc 4096").kind); // "command"
 * console.log(classify("frame.size * 2").kind); // "js"
 * console.log(classify("# comment").kind); // "empty"
 * ```
 */
export function classify(input: string): Classified {
  const t = input.trim();
  if (t === "" || t.startsWith("#")) return { kind: "empty" };
  const bind = BIND_RE.exec(t);
  if (bind) {
    const command = findShellCommand(bind[2]!);
    if (command) {
      return { kind: "command", command, word: bind[2]!, rest: bind[3] ?? "", bindTo: bind[1]! };
    }
  }
  const first = FIRST_WORD_RE.exec(t)!;
  const command = findShellCommand(first[1]!);
  if (command) return { kind: "command", command, word: first[1]!, rest: first[2] ?? "" };
  return { kind: "js", source: input };
}

/**
 * True when `buffer` (the lines typed so far) needs more lines: a command line ending
 * in a backslash, or unfinished JavaScript.
 *
 * @example
 * ```ts
 * import { needsMore } from "./shell.ts";
 * console.log(needsMore("const f = (x) => {")); // true
 * console.log(needsMore("alloc 4096")); // false
 * console.log(needsMore("alloc NV12 640x480 \\")); // true
 * ```
 */
export function needsMore(buffer: string): boolean {
  const c = classify(buffer);
  if (c.kind === "empty") return false;
  if (c.kind === "command") return /\\$/.test(buffer.trimEnd());
  return isIncomplete(buffer);
}

/**
 * Runs inputs against a session.
 *
 * @example
 * ```ts
 * import { Session } from "./session.ts";
 * import { Shell } from "./shell.ts";
 * const lines: string[] = [];
 * const shell = new Shell(new Session(), { out: (t) => lines.push(t), err: () => {} });
 * const r = await shell.execute("6 * 7", new AbortController().signal);
 * console.log(r.value); // 42
 * console.log(lines[0]); // "42"
 * ```
 */
export class Shell {
  /** The session inputs run in. */
  readonly session: Session;
  readonly #io: ShellOutput;
  readonly #json: boolean;
  readonly #colors: boolean;
  // The text a command produced, kept beside its result until it is reported.
  readonly #texts = new WeakMap<InputResult, string>();
  #count = 0;

  /** Creates a shell writing to `io`. */
  constructor(session: Session, io: ShellOutput, options: ShellOptions = {}) {
    this.session = session;
    this.#io = io;
    this.#json = options.json ?? false;
    this.#colors = options.colors ?? false;
  }

  /** Runs one input (possibly several lines); never throws. */
  async execute(input: string, signal: AbortSignal, line?: number): Promise<InputResult> {
    const c = classify(input);
    if (c.kind === "empty") return { kind: "empty", code: ExitCode.Ok, names: [] };
    this.#count++;
    let result: InputResult;
    try {
      await loadDrivers();
      result = c.kind === "command" ? await this.#command(c, signal) : {
        kind: "js",
        code: ExitCode.Ok,
        value: await this.#javascript(c.source, signal),
        names: [],
      };
    } catch (error) {
      result = this.#failed(c.kind, error);
    }
    try {
      return this.#report(input, line, result);
    } catch (error) {
      // Showing the value failed (a throwing getter, say): report that instead.
      return this.#report(input, line, this.#failed(c.kind, error));
    }
  }

  #failed(kind: InputResult["kind"], error: unknown): InputResult {
    // Keep the error for inspection: $err.stack, $err.hint.
    Object.defineProperty(this.session.scope, "$err", {
      value: error,
      writable: true,
      configurable: true,
      enumerable: false,
    });
    let code: number = ExitCode.Fail;
    try {
      code = exitCodeOf(error);
    } catch { /* a hostile thrown value: keep Fail */ }
    return { kind, code, names: [], error };
  }

  async #command(
    c: Extract<Classified, { kind: "command" }>,
    signal: AbortSignal,
  ): Promise<InputResult> {
    const rest = c.rest.replace(/\\\n/g, " ").replace(/\\$/, "");
    const split = splitWords(rest);
    if (split.openQuote) throw new UsageError(`${c.word}: unclosed ${split.openQuote} quote`);
    const words = split.words.map((w) => w.value);
    let outcome: CommandOutcome;
    if (words.includes("--help") || words.includes("-h")) {
      const help = (await loadShellCommand("help"))!;
      outcome = await help.run(this.#context(signal), {
        values: {},
        positionals: [c.command.name],
      });
    } else {
      const command = (await loadShellCommand(c.command.name))!;
      const args = parseCommandArgs(command, words, "shell");
      outcome = await command.run(this.#context(signal), args);
    }
    const result: InputResult = {
      kind: "command",
      code: outcome.code ?? ExitCode.Ok,
      names: [],
      ...(outcome.exit !== undefined ? { exit: outcome.exit } : {}),
    };
    if (outcome.value !== undefined) {
      result.value = outcome.value;
      result.names = this.session.bind(outcome.value, c.bindTo);
      this.session.adopt(outcome.value, `${c.word} ${rest}`.trim());
    } else if (c.bindTo) {
      throw new UsageError(`${c.word}: gives no value to bind to '${c.bindTo}'`);
    }
    if (outcome.text !== undefined) this.#texts.set(result, outcome.text);
    return result;
  }

  #context(signal: AbortSignal) {
    return {
      session: this.session,
      signal,
      note: (text: string) => this.#io.err(this.#dim(text)),
    };
  }

  async #javascript(source: string, signal: AbortSignal): Promise<unknown> {
    await this.session.loadModules();
    let value: unknown;
    try {
      value = await abortable(this.session.evaluator.evaluate(source), signal);
    } catch (err) {
      throw this.#withHint(err);
    }
    this.session.adopt(value, source.trim().split("\n")[0]!);
    return value;
  }

  /** A ReferenceError for a mistyped command or variable, with the name meant. */
  #withHint(err: unknown): unknown {
    const m = err instanceof ReferenceError ? /^(\S+) is not defined$/.exec(err.message) : null;
    if (!m) return err;
    const word = m[1]!;
    // The session's own names first: on a tie, a variable is likelier than a command.
    const variables = Object.keys(this.session.scope);
    const commands = SHELL_COMMAND_LIST.flatMap((c) => [c.name, ...(c.aliases ?? [])]);
    const meant = closestName(word, [...variables, ...commands]);
    if (!meant) return err;
    const hint = variables.includes(meant)
      ? `did you mean '${meant}'?`
      : `did you mean the command '${meant}'?`;
    const hinted = new ReferenceError(`${word} is not defined (${hint})`, { cause: err });
    hinted.stack = hinted.stack?.replace(/^[^\n]*/, `ReferenceError: ${hinted.message}`);
    return hinted;
  }

  #dim(text: string): string {
    return this.#colors ? `\x1b[2m${text}\x1b[22m` : text;
  }

  #red(text: string): string {
    return this.#colors ? `\x1b[31m${text}\x1b[39m` : text;
  }

  #report(input: string, line: number | undefined, r: InputResult): InputResult {
    if (this.#json) {
      const obj: Record<string, unknown> = {
        n: this.#count,
        ...(line !== undefined ? { line } : {}),
        input: input.trim(),
        kind: r.kind,
        ok: r.error === undefined && r.code === ExitCode.Ok,
        code: r.code,
      };
      if (r.names.length) obj.names = r.names;
      if (r.error !== undefined) obj.error = errorData(r.error);
      else if (r.value !== undefined) obj.value = toPlain(r.value, this.session);
      const text = this.#texts.get(r);
      if (text !== undefined && r.kind === "command") obj.text = text;
      this.#io.out(JSON.stringify(obj));
      return r;
    }
    if (r.error !== undefined) {
      this.#io.err(this.#red(errorLine(r.error)));
      return r;
    }
    const text = this.#texts.get(r);
    if (r.kind === "js") {
      if (r.value !== undefined) this.#io.out(renderValue(r.value, this.session, this.#colors));
      return r;
    }
    const summary = summarize(r.value, this.session);
    if (text !== undefined) {
      const names = r.names.join(" ");
      this.#io.out(names ? `${names} =${text.includes("\n") ? "\n" : " "}${text}` : text);
    } else if (summary !== undefined) {
      this.#io.out(summary);
    } else if (r.value !== undefined) {
      const body = renderValue(r.value, this.session, this.#colors);
      this.#io.out(`${r.names.join(" ")} = ${body}`);
    }
    if (r.code !== ExitCode.Ok) this.#io.err(this.#red(`(exit status ${r.code})`));
    return r;
  }
}
