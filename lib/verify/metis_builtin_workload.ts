/**
 * The builtin workload on a Metis node (lib/frames/metis_workload.ts) as a verify
 * {@linkcode WorkloadSpec}: it runs in this process, so perf records this process, and the
 * card's copy is the driver's (a kernel worker), not ours. Each frame is one attach, so one
 * DMA map by the card: I3 expects as many maps of frames as frames transferred.
 *
 * @module
 */
import type { MetisWorkload, MetisWorkloadReport } from "../frames/metis_workload.ts";
import type { WorkloadMode } from "../frames/workload.ts";
import type { WorkloadFrame } from "./frames.ts";
import type { WorkloadOutcome, WorkloadSpec } from "./workload.ts";
import { CardWitnessCapture } from "./card_witness.ts";

/** The frames verify joins: the buffer the card attached and its transfer's start and end. */
export function metisWorkloadFrames(report: MetisWorkloadReport): WorkloadFrame[] {
  return report.perFrame.map((f) => ({ inode: f.inode, submitNs: f.startNs, signalNs: f.endNs }));
}

/**
 * Wraps a prepared {@linkcode MetisWorkload}: `frames` and `mode` are what it was prepared
 * with. Frames submitted are the transfers that completed.
 *
 * @example
 * ```ts
 * import { metisBuiltinWorkload } from "./metis_builtin_workload.ts";
 * import { percentiles } from "../frames/workload.ts";
 * const w = metisBuiltinWorkload({
 *   run: () => Promise.resolve({
 *     mode: "zero-copy", producer: "p", node: "/dev/axl-metis-0-0-2", framesRequested: 1,
 *     attaches: 1, detaches: 1, transfers: 1, transferNs: percentiles([5]), aborted: false,
 *     perFrame: [{ index: 0, inode: 7, frameInode: 7, startNs: 10, endNs: 15, bytes: 4096, cpuNs: 1 }],
 *   }),
 *   [Symbol.dispose]() {},
 * }, { frames: 1, mode: "zero-copy" });
 * const outcome = await w.start().done;
 * console.log(w.kind); // "builtin-metis-zero-copy"
 * console.log(outcome.frames?.[0]?.inode); // 7
 * ```
 */
export function metisBuiltinWorkload(
  work: MetisWorkload,
  o: {
    frames: number;
    mode: WorkloadMode;
    label?: string;
    /** The node: its debugfs dma-trace, when the driver keeps one, is the card's witness. */
    node?: string;
  },
): WorkloadSpec {
  return {
    kind: `builtin-metis-${o.mode}`,
    description: o.label ?? `builtin Metis workload, ${o.frames} frames, ${o.mode}`,
    expectedFrames: o.frames,
    pidsBeforeStart: [Deno.pid],
    start(context) {
      const abort = new AbortController();
      const witness = o.node && context ? CardWitnessCapture.start(o.node) : undefined;
      const done: Promise<WorkloadOutcome> = work.run(abort.signal).then(
        (r) => {
          witness?.finish(
            context!.artifacts,
            r.perFrame.map((f) => ({
              index: f.index,
              inode: f.inode,
              start_ns: f.startNs,
              end_ns: f.endNs,
              bytes: f.bytes,
            })),
          );
          return {
            exitCode: 0,
            framesSubmitted: r.transfers,
            frames: metisWorkloadFrames(r),
          };
        },
        (e) => {
          witness?.restore();
          return {
            exitCode: 1,
            framesSubmitted: null,
            stderrTail: String((e as Error)?.stack ?? e),
          };
        },
      );
      return { pids: [Deno.pid], done, stop: () => abort.abort() };
    },
  };
}
