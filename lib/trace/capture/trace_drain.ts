/**
 * Draining a trace buffer to disk while it records: a `cat` of the instance's `trace_pipe`
 * (a consuming read) appends to a file, so the ring buffer only has to hold what arrives
 * between two reads, however long the run. The text is the same the `trace` file prints,
 * including the `CPU:N [LOST M EVENTS]` markers the consuming reader sees; no header.
 *
 * Why text and not the per-CPU binary `trace_pipe_raw`: the analysis folds the text, and
 * the kernel formats it fast enough to keep up with a verify run (see the streaming
 * numbers in docs/verify.md); the binary pages would need a page and event-format parser for no
 * gain at these rates.
 *
 * The reader runs in its own process with SIGINT and SIGTERM ignored, so a Ctrl-C in the
 * terminal stops the workload but not the drain; {@linkcode TraceDrain.finish} ends it after
 * everything recorded has been written.
 *
 * @module
 */

import { parsePerCpuStats } from "../parse/per_cpu_stats.ts";
import { TracefsJournal } from "./tracefs_journal.ts";
import { procStartTime } from "./tracefs_state_file.ts";

/** Options of {@linkcode TraceDrain.start}. */
export interface TraceDrainOptions {
  /** The tracefs directory that records (an instance, or the mount point). */
  dir: string;
  /** File the text goes to (created or truncated). */
  output: string;
}

/** What a drain did. */
export interface DrainSummary {
  /** Bytes written to the output file. */
  bytes: number;
  /** Milliseconds from start to the last byte. */
  ms: number;
  /** How the reader ended: at the end of the data (`eof`) or stopped once empty (`idle`). */
  ended: "eof" | "idle";
}

/** A running drain. */
export class TraceDrain {
  #child: Deno.ChildProcess;
  #status: Promise<Deno.CommandStatus>;
  #stderr: Promise<string>;
  #opts: TraceDrainOptions;
  #startedAt = Date.now();

  private constructor(child: Deno.ChildProcess, opts: TraceDrainOptions) {
    this.#child = child;
    this.#opts = opts;
    this.#status = child.status;
    this.#stderr = new Response(child.stderr).text();
  }

  /**
   * Starts reading `trace_pipe` of `dir` into `output`. Start it before tracing is turned on
   * or right after; nothing is lost either way, the buffer holds what comes first.
   *
   * @example
   * ```ts ignore
   * import { TraceDrain } from "./trace_drain.ts";
   * const drain = TraceDrain.start({ dir: session.info.dir, output: "trace.txt" });
   * // ... tracing on, workload, tracing off ...
   * console.log(await drain.finish());
   * ```
   */
  static start(opts: TraceDrainOptions): TraceDrain {
    const pipe = `${opts.dir}/trace_pipe`;
    try {
      Deno.statSync(pipe);
    } catch (e) {
      throw new Error(`cannot drain the trace: ${pipe}: ${(e as Error).message}`, { cause: e });
    }
    // An ignored signal stays ignored across exec: the terminal's Ctrl-C does not reach cat.
    const child = new Deno.Command("sh", {
      args: ["-c", 'trap "" INT TERM; exec cat -- "$0" > "$1"', pipe, opts.output],
      stdin: "null",
      stdout: "null",
      stderr: "piped",
    }).spawn();
    TraceDrain.#journal(child, pipe);
    return new TraceDrain(child, opts);
  }

  /**
   * Records the reader in the state file: it ignores SIGINT and SIGTERM and outlives a
   * killed run, holding `trace_pipe` open (an instance cannot be removed while it does).
   */
  static #journal(child: Deno.ChildProcess, pipe: string): void {
    let startTime: string;
    try {
      startTime = procStartTime(Deno.readTextFileSync(`/proc/${child.pid}/stat`));
    } catch {
      return; // already gone
    }
    const journal = TracefsJournal.current();
    try {
      const rec = journal.record(`reading ${pipe}`, {
        op: "kill",
        pid: child.pid,
        startTime,
        command: `cat ${pipe}`,
      });
      child.status.finally(() => journal.forget(rec));
    } catch (e) {
      child.kill("SIGKILL");
      throw e;
    }
  }

  /**
   * Waits until everything recorded is on disk, then ends the reader; call it after tracing
   * is off. Kernels that wake `trace_pipe` readers when tracing stops end `cat` at the end
   * of the data; elsewhere (or when nothing was ever read) it is ended once every CPU's
   * buffer is empty and the file has stopped growing.
   */
  async finish(options: { pollMs?: number; timeoutMs?: number } = {}): Promise<DrainSummary> {
    const pollMs = options.pollMs ?? 100;
    const deadline = Date.now() + (options.timeoutMs ?? 60_000);
    let exited = false;
    this.#status.then(() => exited = true);
    let lastSize = -1;
    let idlePolls = 0;
    let ended: DrainSummary["ended"] = "eof";
    while (!exited) {
      // A reader that reaches the end of the data (tracing off wakes it) ends the wait at
      // once: the verdict does not wait out the rest of a poll.
      let timer: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([
        new Promise((r) => timer = setTimeout(r, pollMs)),
        this.#status,
      ]);
      clearTimeout(timer);
      if (exited) break;
      const size = fileSize(this.#opts.output);
      // Two quiet polls in a row: cat may hold a chunk it has read but not yet written.
      idlePolls = size === lastSize && unreadEntries(this.#opts.dir) === 0 ? idlePolls + 1 : 0;
      // cat may have ended since `exited` was read (reading the stats is slow on a debug
      // kernel): kill() then finds it gone, which is what was wanted.
      if (idlePolls >= 2) {
        ended = "idle";
        this.kill();
        break;
      }
      if (Date.now() > deadline) {
        this.kill();
        await this.#status;
        throw new Error(
          `draining ${this.#opts.dir}/trace_pipe did not finish in ${
            options.timeoutMs ?? 60_000
          } ms ` +
            `(${unreadEntries(this.#opts.dir)} events still unread)`,
        );
      }
      lastSize = size;
    }
    const status = await this.#status;
    const err = (await this.#stderr).trim();
    if (ended === "eof" && !status.success) {
      throw new Error(`draining ${this.#opts.dir}/trace_pipe failed (exit ${status.code}): ${err}`);
    }
    return { bytes: fileSize(this.#opts.output), ms: Date.now() - this.#startedAt, ended };
  }

  /** Ends the reader at once, synchronously (before an exit: the instance can then go). */
  kill(): void {
    try {
      this.#child.kill("SIGKILL");
    } catch { /* already gone */ }
  }

  /** Ends the reader at once (an aborted capture); what was drained stays in the file. */
  async abort(): Promise<void> {
    this.kill();
    await this.#status;
    await this.#stderr;
  }
}

function fileSize(path: string): number {
  try {
    return Deno.statSync(path).size;
  } catch {
    return 0;
  }
}

/**
 * Events still in the ring buffers of `dir`, the tracefs top level or an instance (the
 * `entries:` of every CPU's stats): what no reader has taken yet.
 */
export function unreadEntries(dir: string): number {
  let n = 0;
  for (const e of Deno.readDirSync(`${dir}/per_cpu`)) {
    if (!/^cpu\d+$/.test(e.name)) continue;
    const stats = `${dir}/per_cpu/${e.name}/stats`;
    n += parsePerCpuStats(Deno.readTextFileSync(stats), stats).entries;
  }
  return n;
}
