/**
 * The shell's persistent history: one entered line per line of
 * `${XDG_STATE_HOME:-~/.local/state}/axl/history`, appended as lines are entered (so
 * a crash loses nothing) and trimmed to the newest entries on load.
 *
 * @module
 */

/** Entries kept. */
export const HISTORY_SIZE = 1000;

/**
 * The history file for an environment (`XDG_STATE_HOME`, else `HOME/.local/state`);
 * undefined when neither is set.
 *
 * @example
 * ```ts
 * import { historyPath } from "./history.ts";
 * const p = historyPath({ XDG_STATE_HOME: "/s", HOME: "/h" });
 * console.log(p); // "/s/axl/history"
 * console.log(historyPath({ HOME: "/h" })); // "/h/.local/state/axl/history"
 * ```
 */
export function historyPath(env: Record<string, string | undefined>): string | undefined {
  const state = env.XDG_STATE_HOME || (env.HOME ? `${env.HOME}/.local/state` : undefined);
  return state ? `${state}/axl/history` : undefined;
}

/**
 * Reads the history, newest entry first (the order `node:readline` wants), and rewrites
 * the file when it has grown past twice `size` entries. A missing file is an empty
 * history.
 *
 * @example
 * ```ts
 * import { appendHistory, loadHistory } from "./history.ts";
 * const dir = Deno.makeTempDirSync();
 * appendHistory(`${dir}/h`, "heaps");
 * appendHistory(`${dir}/h`, "ls");
 * console.log(loadHistory(`${dir}/h`).join()); // "ls,heaps"
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function loadHistory(path: string, size = HISTORY_SIZE): string[] {
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (err) {
    if (err instanceof Deno.errors.NotFound) return [];
    throw err;
  }
  const lines = text.split("\n").filter((l) => l.trim() !== "");
  if (lines.length > 2 * size) {
    Deno.writeTextFileSync(path, lines.slice(-size).join("\n") + "\n");
  }
  return lines.slice(-size).reverse();
}

/**
 * Appends one entered line (creating the directory); blank lines are not recorded.
 *
 * @example
 * ```ts
 * import { appendHistory } from "./history.ts";
 * const dir = Deno.makeTempDirSync();
 * appendHistory(`${dir}/a/b/history`, "info");
 * console.log(Deno.readTextFileSync(`${dir}/a/b/history`)); // "info\n"
 * Deno.removeSync(dir, { recursive: true });
 * ```
 */
export function appendHistory(path: string, line: string): void {
  if (line.trim() === "") return;
  const dir = path.slice(0, path.lastIndexOf("/"));
  if (dir) Deno.mkdirSync(dir, { recursive: true });
  Deno.writeTextFileSync(path, line.replace(/\n/g, " ") + "\n", { append: true });
}
