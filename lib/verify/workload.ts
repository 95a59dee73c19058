/**
 * A workload to verify: something `captureRun()` starts, records while it runs, and stops —
 * a command (e.g. a GStreamer pipeline), an existing process observed until it exits or for a
 * while, or the builtin frame loop (`builtin_workload.ts`).
 *
 * @module
 */
import { join } from "node:path";
import { gstTracerDir, gstTracerEnv } from "../core/gst_tracer.ts";
import type { WorkloadFrame } from "./frames.ts";

/** The file the GStreamer tracer writes into the artifacts directory (`pipeline.ts` reads it). */
export const GST_PADS_FILE = "gst_pads.txt";

/** What capture gives a workload it starts. */
export interface WorkloadContext {
  /** The artifacts directory of the run. */
  artifacts: string;
  /** The capture's notes: a workload adds what the report should say about its setup. */
  notes: string[];
}

/** What a finished workload reports. */
export interface WorkloadOutcome {
  /** Exit code (128 + signal number when a signal ended it); null: not known (a `--pid`). */
  exitCode: number | null;
  /** The signal that ended a command, e.g. `SIGTERM`. */
  exitSignal?: string;
  framesSubmitted: number | null;
  frames?: WorkloadFrame[];
  stderrTail?: string;
  /** It was stopped early on request (Ctrl-C): its exit status is no failure of its own. */
  stopped?: boolean;
}

/** A started workload. */
export interface RunningWorkload {
  /** Processes to record and scan (known once started). */
  pids: number[];
  /** Settles when the workload ends. */
  done: Promise<WorkloadOutcome>;
  /** Asks it to stop early (SIGTERM for commands, abort for the builtin). */
  stop(): void;
  /**
   * Lets a workload that was started held go on: capture calls it once perf is attached to
   * `pids`, so a short command is recorded from its first instruction. Absent: not held.
   */
  release?(): void;
}

/** A workload to verify. */
export interface WorkloadSpec {
  /** `builtin-zero-copy`, `builtin-copy`, `command`, `pid`. */
  kind: string;
  description: string;
  /** Frames expected, for sizing the trace buffer. */
  expectedFrames: number;
  /**
   * `expectedFrames` was given (`--frames`), not a default: perf's rate is then chosen from it
   * (`perf_rate.ts`). A builtin workload's frames are always known.
   */
  framesKnown?: boolean;
  /** Pids known before start (the builtin runs in this process): perf attaches first. */
  pidsBeforeStart?: number[];
  start(context?: WorkloadContext): RunningWorkload;
}

/** Options of {@linkcode commandWorkload} and {@linkcode pidWorkload}. */
export interface ExternalWorkloadOptions {
  /** Frames the process submits (`--frames`), when the user knows; else unknown. */
  frames?: number;
  /** Frames expected, for sizing the trace buffer (default `frames`, else 300). */
  expectedFrames?: number;
}

/** Lines of a command's stderr kept for the report and failure-mode matching. */
const STDERR_TAIL_LINES = 40;

/** How long a command may take to exit after SIGTERM before it is killed. */
const KILL_AFTER_MS = 5000;

/**
 * A workload that runs a command (e.g. a GStreamer pipeline), held until `release()`. Its
 * stdout passes through, the tail of its stderr is kept, its stdin is empty; `stop()` sends
 * SIGTERM, then SIGKILL after 5 s.
 *
 * @example
 * ```ts
 * import { commandWorkload } from "./workload.ts";
 * const w = commandWorkload(["sh", "-c", "echo oops >&2; exit 3"], { frames: 10 });
 * const running = w.start();
 * running.release?.();
 * const outcome = await running.done;
 * console.log(outcome.exitCode); // 3
 * console.log(outcome.stderrTail); // "oops"
 * console.log(outcome.framesSubmitted); // 10
 * ```
 */
export function commandWorkload(argv: string[], o: ExternalWorkloadOptions = {}): WorkloadSpec {
  if (argv.length === 0) throw new RangeError("commandWorkload(): empty command");
  return {
    kind: "command",
    description: argv.join(" "),
    expectedFrames: o.expectedFrames ?? o.frames ?? 300,
    framesKnown: (o.expectedFrames ?? o.frames) !== undefined,
    start(context?: WorkloadContext) {
      // Held at a read of stdin until release(): perf attaches to this pid first (exec keeps
      // the pid), and a pipeline of a few seconds is not over before perf starts.
      const child = new Deno.Command("sh", {
        args: ["-c", 'read -r _; exec "$@" </dev/null', "axl-verify-held", ...argv],
        ...(context ? { env: gstTracing(context) } : {}),
        stdin: "piped",
        stdout: "inherit",
        stderr: "piped",
      }).spawn();
      const stdin = child.stdin.getWriter();
      let released = false;
      const release = () => {
        if (released) return;
        released = true;
        stdin.write(new TextEncoder().encode("\n")).then(() => stdin.close()).catch(() => {});
      };
      const stderr = new Response(child.stderr).text();
      let stopped = false;
      let killer: ReturnType<typeof setTimeout> | undefined;
      const signal = (sig: Deno.Signal) => {
        try {
          child.kill(sig);
        } catch { /* already gone */ }
      };
      return {
        pids: [child.pid],
        done: (async () => {
          const status = await child.status;
          clearTimeout(killer);
          const tail = (await stderr).trimEnd().split("\n").slice(-STDERR_TAIL_LINES).join("\n");
          return {
            exitCode: status.code,
            ...(status.signal ? { exitSignal: status.signal } : {}),
            framesSubmitted: o.frames ?? null,
            ...(tail ? { stderrTail: tail } : {}),
            ...(stopped ? { stopped } : {}),
          };
        })(),
        release,
        stop: () => {
          if (stopped) return;
          stopped = true;
          release();
          signal("SIGTERM");
          killer = setTimeout(() => signal("SIGKILL"), KILL_AFTER_MS);
        },
      };
    },
  };
}

/**
 * The environment that loads the GStreamer tracer into a command (a no-op for a command that
 * is not GStreamer): it records per pad the memory of every buffer into the artifacts'
 * {@linkcode GST_PADS_FILE}. Without the tracer library, a note says so.
 */
function gstTracing(context: WorkloadContext): Record<string, string> {
  const dir = gstTracerDir();
  if (typeof dir !== "string") {
    context.notes.push(`GStreamer per-pad memory not recorded: ${dir.unavailable}`);
    return {};
  }
  return gstTracerEnv(dir, join(context.artifacts, GST_PADS_FILE), Deno.env.toObject());
}

/** Options of {@linkcode pidWorkload}. */
export interface PidWorkloadOptions extends ExternalWorkloadOptions {
  /** Observe this long (absent: until the process exits or `stop()`). */
  durationMs?: number;
  /** How often to look whether the process still exists (default 100 ms). */
  pollMs?: number;
}

/** Whether process `pid` exists (and is not a zombie). */
function alive(pid: number): boolean {
  try {
    const stat = Deno.readTextFileSync(`/proc/${pid}/stat`);
    // "pid (comm) S ...": comm may hold ") ", so the state follows the last ")".
    return stat[stat.lastIndexOf(")") + 2] !== "Z";
  } catch {
    return false;
  }
}

/**
 * A workload that is an existing process, observed for `durationMs`, or until it exits or
 * `stop()`. It is never signalled: it belongs to someone else. Its exit code is unknown.
 *
 * @example
 * ```ts
 * import { pidWorkload } from "./workload.ts";
 * const sleeper = new Deno.Command("sleep", { args: ["0.2"] }).spawn();
 * const w = pidWorkload(sleeper.pid, { pollMs: 20 });
 * const reaped = sleeper.status; // reaping it makes it vanish from /proc
 * const outcome = await w.start().done;
 * await reaped;
 * console.log(w.kind); // "pid"
 * console.log(outcome.exitCode); // null
 * console.log(outcome.framesSubmitted); // null
 * ```
 */
export function pidWorkload(pid: number, o: PidWorkloadOptions = {}): WorkloadSpec {
  if (!Number.isInteger(pid) || pid <= 0) throw new RangeError(`pidWorkload(): bad pid ${pid}`);
  const { durationMs } = o;
  if (durationMs !== undefined && !(durationMs > 0)) {
    throw new RangeError(`pidWorkload(): duration must be > 0 ms, got ${durationMs}`);
  }
  return {
    kind: "pid",
    description: durationMs === undefined
      ? `pid ${pid} until it exits`
      : `pid ${pid} for ${durationMs} ms`,
    expectedFrames: o.expectedFrames ?? o.frames ?? 300,
    framesKnown: (o.expectedFrames ?? o.frames) !== undefined,
    pidsBeforeStart: [pid],
    start() {
      // One pending poll and one deadline at a time: a watch of hours keeps no list of timers.
      let pollTimer: ReturnType<typeof setTimeout> | undefined;
      let endTimer: ReturnType<typeof setTimeout> | undefined;
      let finish: (stopped: boolean) => void = () => {};
      const done = new Promise<WorkloadOutcome>((resolve) => {
        finish = (stopped) => {
          clearTimeout(pollTimer);
          clearTimeout(endTimer);
          resolve({
            exitCode: null,
            framesSubmitted: o.frames ?? null,
            ...(stopped ? { stopped } : {}),
          });
        };
      });
      if (durationMs !== undefined) endTimer = setTimeout(() => finish(false), durationMs);
      const poll = () => {
        if (!alive(pid)) return finish(false);
        pollTimer = setTimeout(poll, o.pollMs ?? 100);
      };
      poll();
      return { pids: [pid], done, stop: () => finish(true) };
    },
  };
}

/**
 * `inner`, stopped when `signal` aborts (Ctrl-C): started already aborted, it stops at once.
 *
 * @example
 * ```ts
 * import { commandWorkload, stoppable } from "./workload.ts";
 * const abort = new AbortController();
 * abort.abort();
 * const outcome = await stoppable(commandWorkload(["sleep", "30"]), abort.signal).start().done;
 * console.log(outcome.stopped); // true
 * console.log(outcome.exitSignal); // "SIGTERM"
 * ```
 */
export function stoppable(inner: WorkloadSpec, signal: AbortSignal): WorkloadSpec {
  return {
    ...inner,
    start: (context?: WorkloadContext) => {
      const running = inner.start(context);
      if (signal.aborted) running.stop();
      else signal.addEventListener("abort", () => running.stop(), { once: true });
      return running;
    },
  };
}
