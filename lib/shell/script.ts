/**
 * Running the shell without a terminal: a session file (`shell -f session.axl`) or piped
 * stdin, input by input. It stops at the first failing input unless told to keep going,
 * releases everything the session created, and ends with an exit code that says how it
 * went: 0 all ok, else the first failure's code (1 failed, 2 inconclusive, 3 could not
 * run, 130 interrupted).
 *
 * @module
 */
import { type LineSource, readLines } from "../trace/parse/lines.ts";
import { ExitCode } from "../commands/exit_code.ts";
import { errorLine } from "./render.ts";
import { needsMore, type Shell } from "./shell.ts";

/** Options of {@linkcode runScript}. */
export interface ScriptOptions {
  /** Run every input even after one failed (the exit code is still the first failure's). */
  keepGoing?: boolean;
  /** Print each input as `axl> input` before its output (text mode). */
  echo?: boolean;
  /** JSON mode: the end-of-run record is a JSON line too. */
  json?: boolean;
  /** Stops the script (the running input is cancelled); default: SIGINT. */
  signal?: AbortSignal;
  /** Where results go. */
  out?: (text: string) => void;
  /** Where errors and notes go. */
  err?: (text: string) => void;
}

/** How a script run ended. */
export interface ScriptSummary {
  /** Exit code. */
  code: number;
  /** Inputs run. */
  inputs: number;
  /** Inputs that failed. */
  failed: number;
  /** Line of the first failing input. */
  firstFailureLine?: number;
  /** Exit code of the first failing input. */
  firstFailureCode?: number;
  /** What was released at the end. */
  released: string[];
  /** Releases that failed. */
  releaseErrors: string[];
}

/**
 * Runs the inputs of `source` (lines; unfinished JavaScript and `\`-continued command
 * lines join the next line) and releases the session at the end.
 *
 * @example
 * ```ts ignore
 * import { runScript } from "./script.ts";
 * const summary = await runScript(shell, ["heaps", "1 + 1"], { keepGoing: true });
 * console.log(summary.code);
 * ```
 */
export async function runScript(
  shell: Shell,
  source: LineSource,
  options: ScriptOptions = {},
): Promise<ScriptSummary> {
  const out = options.out ?? ((t: string) => console.log(t));
  const err = options.err ?? ((t: string) => console.error(t));
  const summary: ScriptSummary = {
    code: ExitCode.Ok,
    inputs: 0,
    failed: 0,
    released: [],
    releaseErrors: [],
  };
  let current: AbortController | undefined;
  let interrupted = false;
  const stop = (): void => {
    if (interrupted) Deno.exit(ExitCode.Interrupted); // second Ctrl-C: leave now
    interrupted = true;
    current?.abort();
  };
  let removeSigint = (): void => {};
  if (options.signal) {
    options.signal.addEventListener("abort", stop, { once: true });
  } else {
    Deno.addSignalListener("SIGINT", stop);
    removeSigint = () => Deno.removeSignalListener("SIGINT", stop);
  }
  const onRejection = (e: PromiseRejectionEvent): void => {
    e.preventDefault();
    err(`Uncaught (in promise) ${errorLine(e.reason)}`);
  };
  globalThis.addEventListener("unhandledrejection", onRejection);

  const fail = (code: number, line: number): void => {
    summary.failed++;
    if (summary.firstFailureLine === undefined) {
      summary.code = code;
      summary.firstFailureLine = line;
      summary.firstFailureCode = code;
    }
  };

  try {
    let buffer = "";
    let startLine = 0;
    let exitWith: number | undefined;
    const run = async (input: string, line: number): Promise<boolean> => {
      if (options.echo && !options.json) {
        out(input.split("\n").map((l, i) => `${i ? "...> " : "axl> "}${l}`).join("\n"));
      }
      current = new AbortController();
      if (interrupted) current.abort();
      const r = await shell.execute(input, current.signal, line);
      current = undefined;
      if (r.kind !== "empty") summary.inputs++;
      if (r.code !== ExitCode.Ok) fail(r.code, line);
      if (r.exit !== undefined) {
        exitWith = r.exit;
        return false;
      }
      if (interrupted) return false;
      return r.code === ExitCode.Ok || options.keepGoing === true;
    };
    let go = true;
    for await (const { text, line } of readLines(source)) {
      if (!buffer) startLine = line;
      buffer = buffer ? `${buffer}\n${text}` : text;
      if (needsMore(buffer)) continue;
      const input = buffer;
      buffer = "";
      go = await run(input, startLine);
      if (!go) break;
    }
    // An unfinished last input still runs: its error says what is missing.
    if (go && buffer.trim()) await run(buffer, startLine);
    if (interrupted && summary.code === ExitCode.Ok) summary.code = ExitCode.Interrupted;
    if (exitWith !== undefined && exitWith >= 0) summary.code = exitWith;
  } finally {
    removeSigint();
    const report = await shell.session.releaseAll();
    summary.released = report.released;
    summary.releaseErrors = report.errors;
    if (report.errors.length && summary.code === ExitCode.Ok) summary.code = ExitCode.Fail;
    globalThis.removeEventListener("unhandledrejection", onRejection);
  }
  if (options.json) {
    out(JSON.stringify({
      kind: "end",
      code: summary.code,
      inputs: summary.inputs,
      failed: summary.failed,
      ...(summary.firstFailureLine !== undefined
        ? { firstFailureLine: summary.firstFailureLine, firstFailureCode: summary.firstFailureCode }
        : {}),
      released: summary.released,
      releaseErrors: summary.releaseErrors,
    }));
  } else {
    for (const l of summary.released) err(`released ${l}`);
    for (const l of summary.releaseErrors) err(`release failed: ${l}`);
    if (summary.firstFailureLine !== undefined) {
      const first = `line ${summary.firstFailureLine} (exit status ${summary.firstFailureCode})`;
      err(
        options.keepGoing
          ? `${summary.failed} input(s) failed, the first at ${first}`
          : `stopped at ${first}`,
      );
    }
  }
  return summary;
}
