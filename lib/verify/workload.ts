/**
 * A workload to verify: something `captureRun()` starts, records while it runs, and stops —
 * a command (e.g. a GStreamer pipeline), an existing process observed for a while, or the
 * builtin frame loop (`builtin_workload.ts`).
 *
 * @module
 */
import type { WorkloadFrame } from "./frames.ts";

/** What a finished workload reports. */
export interface WorkloadOutcome {
  exitCode: number | null;
  framesSubmitted: number | null;
  frames?: WorkloadFrame[];
  stderrTail?: string;
}

/** A started workload. */
export interface RunningWorkload {
  /** Processes to record and scan (known once started). */
  pids: number[];
  /** Settles when the workload ends. */
  done: Promise<WorkloadOutcome>;
  /** Asks it to stop early (SIGTERM for commands, abort for the builtin). */
  stop(): void;
}

/** A workload to verify. */
export interface WorkloadSpec {
  /** `builtin-zero-copy`, `builtin-copy`, `command`, `pid`. */
  kind: string;
  description: string;
  /** Frames expected, for sizing the trace buffer. */
  expectedFrames: number;
  /** Pids known before start (the builtin runs in this process): perf attaches first. */
  pidsBeforeStart?: number[];
  start(): RunningWorkload;
}

/**
 * A workload that runs a command (e.g. the GStreamer pipeline of a config file).
 *
 * @example
 * ```ts
 * import { commandWorkload } from "./workload.ts";
 * const w = commandWorkload(["true"]);
 * if (w.kind !== "command") throw new Error();
 * ```
 */
export function commandWorkload(argv: string[], expectedFrames = 300): WorkloadSpec {
  if (argv.length === 0) throw new RangeError("commandWorkload(): empty command");
  return {
    kind: "command",
    description: argv.join(" "),
    expectedFrames,
    start() {
      const child = new Deno.Command(argv[0]!, {
        args: argv.slice(1),
        stdin: "null",
        stdout: "inherit",
        stderr: "piped",
      })
        .spawn();
      const stderr = new Response(child.stderr).text();
      return {
        pids: [child.pid],
        done: (async () => {
          const status = await child.status;
          const err = await stderr;
          return {
            exitCode: status.code,
            framesSubmitted: null,
            stderrTail: err.split("\n").slice(-40).join("\n"),
          };
        })(),
        stop: () => {
          try {
            child.kill("SIGTERM");
          } catch { /* already gone */ }
        },
      };
    },
  };
}

/**
 * A workload that is an existing process, observed for `durationMs`.
 *
 * @example
 * ```ts
 * import { pidWorkload } from "./workload.ts";
 * if (pidWorkload(1, 1000).kind !== "pid") throw new Error();
 * ```
 */
export function pidWorkload(pid: number, durationMs: number, expectedFrames = 300): WorkloadSpec {
  if (!Number.isInteger(pid) || pid <= 0) throw new RangeError(`pidWorkload(): bad pid ${pid}`);
  if (!(durationMs > 0)) {
    throw new RangeError(`pidWorkload(): duration must be > 0 ms, got ${durationMs}`);
  }
  return {
    kind: "pid",
    description: `pid ${pid} for ${durationMs} ms`,
    expectedFrames,
    pidsBeforeStart: [pid],
    start() {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let wake: () => void = () => {};
      const done = new Promise<WorkloadOutcome>((resolve) => {
        wake = () => resolve({ exitCode: null, framesSubmitted: null });
        timer = setTimeout(wake, durationMs);
      });
      return {
        pids: [pid],
        done,
        stop: () => {
          clearTimeout(timer);
          wake();
        },
      };
    },
  };
}
