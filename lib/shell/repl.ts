/**
 * The interactive loop: `node:readline` with Tab completion and persistent history.
 * Lines run one at a time; Ctrl-C cancels the running input (or clears the line), never
 * the shell; Ctrl-D or `exit` releases what the session holds and leaves.
 *
 * @module
 */
import process from "node:process";
import * as readline from "node:readline";
import { complete } from "./completer.ts";
import { appendHistory, HISTORY_SIZE, loadHistory } from "./history.ts";
import { errorLine } from "./render.ts";
import { needsMore, type Shell } from "./shell.ts";

/** Options of {@linkcode runRepl}. */
export interface ReplOptions {
  /** History file; undefined: no history. */
  historyFile?: string;
  /** First lines printed (a banner). */
  banner?: string;
  /** Called once the first prompt is shown (for start-up timing). */
  onPrompt?: () => void;
}

const PROMPT = "axl> ";
const MORE = "...> ";

// The history file's lines, or none (and no file) when it cannot be read.
function openHistory(file: string | undefined): { history: string[]; file?: string } {
  if (!file) return { history: [] };
  try {
    return { history: loadHistory(file), file };
  } catch (err) {
    console.error(`history disabled: ${file}: ${(err as Error).message}`);
    return { history: [] };
  }
}

function createInterface(shell: Shell, history: string[]): readline.Interface {
  return readline.createInterface({
    input: process.stdin,
    output: process.stdout,
    terminal: true,
    prompt: PROMPT,
    history,
    historySize: HISTORY_SIZE,
    removeHistoryDuplicates: true,
    completer: (line: string) => {
      try {
        return complete(line, shell.session);
      } catch {
        return [[], line];
      }
    },
  });
}

// Errors of promises the user left running must not end the shell: they are printed and
// `after` shows the prompt again. Returns the function that stops catching them.
function catchUncaught(after: () => void): () => void {
  const onRejection = (e: PromiseRejectionEvent): void => {
    e.preventDefault();
    console.error(`Uncaught (in promise) ${errorLine(e.reason)}`);
    after();
  };
  const onError = (e: ErrorEvent): void => {
    e.preventDefault();
    console.error(`Uncaught ${errorLine(e.error)}`);
    after();
  };
  globalThis.addEventListener("unhandledrejection", onRejection);
  globalThis.addEventListener("error", onError);
  return () => {
    globalThis.removeEventListener("unhandledrejection", onRejection);
    globalThis.removeEventListener("error", onError);
  };
}

/**
 * Runs the interactive shell until Ctrl-D or `exit`; resolves to the exit code after
 * everything the session created has been released.
 *
 * @example
 * ```ts ignore
 * import { runRepl } from "./repl.ts";
 * Deno.exit(await runRepl(shell, { historyFile: "/tmp/h" }));
 * ```
 */
export function runRepl(shell: Shell, options: ReplOptions = {}): Promise<number> {
  const opened = openHistory(options.historyFile);
  let historyFile = opened.file;
  const rl = createInterface(shell, opened.history);

  let buffer = "";
  let running: AbortController | undefined;
  let exitCode = 0;
  let closing = false;
  const queue: string[] = [];

  const prompt = (): void => {
    if (closing) return;
    rl.setPrompt(buffer ? MORE : PROMPT);
    rl.prompt();
  };

  const stopCatching = catchUncaught(() => {
    if (!running) prompt();
  });

  const drain = async (): Promise<void> => {
    while (queue.length && !running && !closing) {
      const line = queue.shift()!;
      if (historyFile && line.trim()) {
        try {
          appendHistory(historyFile, line);
        } catch (err) {
          console.error(`history disabled: ${(err as Error).message}`);
          historyFile = undefined;
        }
      }
      buffer = buffer ? `${buffer}\n${line}` : line;
      if (needsMore(buffer)) {
        prompt();
        continue;
      }
      const input = buffer;
      buffer = "";
      running = new AbortController();
      const result = await shell.execute(input, running.signal);
      running = undefined;
      if (result.exit !== undefined) {
        exitCode = result.exit < 0 ? 0 : result.exit;
        rl.close();
        return;
      }
      prompt();
    }
  };

  rl.on("line", (line: string) => {
    queue.push(line);
    void drain();
  });
  rl.on("SIGINT", () => {
    if (running) {
      running.abort();
      process.stdout.write("^C\n");
      return;
    }
    const typed = rl.line;
    process.stdout.write("^C\n");
    if (buffer || typed) {
      buffer = "";
      // Drop what was typed on this line too.
      rl.write(null, { ctrl: true, name: "u" });
    } else {
      console.error("(to leave: exit or Ctrl-D)");
    }
    prompt();
  });

  return new Promise<number>((resolve) => {
    rl.on("close", async () => {
      closing = true;
      running?.abort();
      process.stdout.write("\n");
      const report = await shell.session.releaseAll();
      for (const line of report.released) console.error(`released ${line}`);
      for (const line of report.errors) console.error(`release failed: ${line}`);
      stopCatching();
      resolve(report.errors.length && exitCode === 0 ? 1 : exitCode);
    });
    if (options.banner) console.log(options.banner);
    prompt();
    options.onPrompt?.();
    // Load the library and every command while the user types (inputs wait for what
    // they need; completion offers a command's options once it has loaded).
    void shell.session.load().catch(
      (err) => {
        console.error(`loading the shell's modules failed: ${errorLine(err)}`);
        prompt();
      },
    );
  });
}
