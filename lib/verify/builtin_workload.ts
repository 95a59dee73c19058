/**
 * The builtin workload (lib/frames/workload.ts) as a verify {@linkcode WorkloadSpec}: it runs in
 * this process, so perf records this process.
 *
 * @module
 */
import { runWorkload, type WorkloadOptions } from "../frames/workload.ts";
import type { WorkloadOutcome, WorkloadSpec } from "./workload.ts";
import { FRAME_LIST_LIMIT } from "./frames.ts";

/**
 * Wraps {@linkcode runWorkload}. The run's own per-frame records (fence times by sequence
 * number) are kept for the first `keepFrames` frames, by default as many as result.json lists:
 * they only fill in frames the trace could not time, and a soak of hundreds of thousands of
 * frames must not keep one each.
 *
 * @example
 * ```ts
 * import { builtinWorkload } from "./builtin_workload.ts";
 * const w = builtinWorkload({ frames: 10, mode: "copy" });
 * console.log(w.kind); // "builtin-copy"
 * console.log(w.expectedFrames); // 10
 * ```
 */
export function builtinWorkload(options: WorkloadOptions = {}, label?: string): WorkloadSpec {
  const mode = options.mode ?? "zero-copy";
  const frames = options.frames ?? 30;
  return {
    kind: `builtin-${mode}`,
    description: label ?? `builtin workload, ${frames} frames, ${mode}`,
    expectedFrames: frames,
    pidsBeforeStart: [Deno.pid],
    start() {
      const abort = new AbortController();
      const done: Promise<WorkloadOutcome> = runWorkload({
        // Waiting on a thread keeps the event loop free, so the bufinfo sampler runs while
        // a frame is imported.
        syncWait: false,
        keepFrames: FRAME_LIST_LIMIT,
        ...options,
        signal: abort.signal,
      }).then(
        (r) => ({
          exitCode: 0,
          framesSubmitted: r.submitted,
          frames: r.perFrame.map((f) => ({
            seqno: Number(f.seqno),
            inode: f.inode,
            submitNs: Number(f.submitNs),
            signalNs: Number(f.signalNs),
          })),
        }),
        (e) => ({
          exitCode: 1,
          framesSubmitted: null,
          stderrTail: String((e as Error)?.stack ?? e),
        }),
      );
      return { pids: [Deno.pid], done, stop: () => abort.abort() };
    },
  };
}
