/**
 * Per-frame records (import → submit → signal → release) joined from the trace, and
 * completed with the workload's own fence timestamps where the trace lacks them.
 *
 * @module
 */
import type { AxlBufferEvent, TraceFacts } from "./trace_facts.ts";

/** One frame's path through the driver; times are ns of the trace clock. */
export interface Frame {
  index: number;
  context?: number;
  seqno?: number;
  handle?: number;
  inode?: number;
  exporter?: string;
  pid?: number;
  importTs?: number;
  submitTs?: number;
  signalTs?: number;
  completeTs?: number;
  releaseTs?: number;
  /** Job status from `axl_job_complete` (0 or -errno). */
  status?: number;
  /** signal − submit, ns. */
  latencyNs?: number;
  /** Where latencyNs came from. */
  latencySource?: "trace" | "workload";
}

/** What a workload reports about one frame (from SYNC_IOC_FILE_INFO etc.). */
export interface WorkloadFrame {
  seqno?: number;
  inode?: number;
  /** CLOCK_MONOTONIC ns when the job was queued (axl_submit.submit_ns). */
  submitNs?: number;
  /** CLOCK_MONOTONIC ns the fence signalled (sync_file timestamp). */
  signalNs?: number;
}

/**
 * Joins the trace's axl and dma_fence events into frames. With `axl_job_submit` events a
 * frame is a job; without them, each import is a frame.
 *
 * @example
 * ```ts
 * import { buildFrames } from "./frames.ts";
 * import { emptyTraceFacts } from "./trace_facts.ts";
 * const f = emptyTraceFacts();
 * f.imports.push({ line: 1, ts: 10, handle: 1, inode: 9, exporter: "system" });
 * f.submits.push({ line: 2, ts: 20, context: 5, seqno: 1, handle: 1, inode: 9, status: 0 });
 * f.fences.set("5:1", { driver: "axl", timeline: "metis-0", context: 5, seqno: 1, signaled: 70 });
 * f.releases.push({ line: 4, ts: 90, handle: 1, inode: 9, exporter: "system" });
 * const [frame] = buildFrames(f);
 * if (frame?.latencyNs !== 50 || frame.releaseTs !== 90) throw new Error(JSON.stringify(frame));
 * ```
 */
export function buildFrames(facts: TraceFacts, workload: readonly WorkloadFrame[] = []): Frame[] {
  const frames: Frame[] = [];
  const imports = [...facts.imports].sort((a, b) => a.line - b.line);
  const releases = [...facts.releases].sort((a, b) => a.line - b.line);
  const findImport = (handle: number, inode: number, beforeLine: number) => {
    let best: AxlBufferEvent | undefined;
    for (const i of imports) {
      if (i.line > beforeLine) break;
      if (i.handle === handle && i.inode === inode) best = i;
    }
    return best;
  };
  const findRelease = (handle: number, afterLine: number) =>
    releases.find((r) => r.line > afterLine && r.handle === handle);
  if (facts.submits.length > 0) {
    const completes = new Map(facts.completes.map((c) => [`${c.context}:${c.seqno}`, c]));
    for (const s of [...facts.submits].sort((a, b) => a.line - b.line)) {
      const key = `${s.context}:${s.seqno}`;
      const frame: Frame = {
        index: frames.length,
        context: s.context,
        seqno: s.seqno,
        handle: s.handle,
        inode: s.inode,
      };
      if (s.pid !== undefined) frame.pid = s.pid;
      if (s.ts !== undefined) frame.submitTs = s.ts;
      const imp = findImport(s.handle, s.inode, s.line);
      if (imp) {
        frame.exporter = imp.exporter;
        if (imp.ts !== undefined) frame.importTs = imp.ts;
      }
      const fence = facts.fences.get(key);
      if (fence?.signaled !== undefined) frame.signalTs = fence.signaled;
      const done = completes.get(key);
      if (done) {
        frame.status = done.status;
        if (done.ts !== undefined) frame.completeTs = done.ts;
        frame.signalTs ??= done.ts;
      }
      const rel = findRelease(s.handle, s.line);
      if (rel?.ts !== undefined) frame.releaseTs = rel.ts;
      frames.push(frame);
    }
  } else {
    for (const imp of imports) {
      const frame: Frame = {
        index: frames.length,
        handle: imp.handle,
        inode: imp.inode,
        exporter: imp.exporter,
      };
      if (imp.pid !== undefined) frame.pid = imp.pid;
      if (imp.ts !== undefined) frame.importTs = imp.ts;
      const rel = findRelease(imp.handle, imp.line);
      if (rel?.ts !== undefined) frame.releaseTs = rel.ts;
      frames.push(frame);
    }
  }
  for (const f of frames) {
    if (f.submitTs !== undefined && f.signalTs !== undefined && f.signalTs >= f.submitTs) {
      f.latencyNs = f.signalTs - f.submitTs;
      f.latencySource = "trace";
    }
  }
  // The workload's own fence timestamps fill frames the trace could not time.
  const bySeq = new Map(workload.filter((w) => w.seqno !== undefined).map((w) => [w.seqno!, w]));
  workload.forEach((w, i) => {
    let f = w.seqno !== undefined ? frames.find((x) => x.seqno === w.seqno) : frames[i];
    if (!f && frames.length === 0) return;
    f ??= frames[i];
    if (!f || f.latencyNs !== undefined) return;
    const src = w.seqno !== undefined ? bySeq.get(w.seqno) ?? w : w;
    if (src.submitNs !== undefined && src.signalNs !== undefined && src.signalNs >= src.submitNs) {
      f.latencyNs = src.signalNs - src.submitNs;
      f.latencySource = "workload";
    }
  });
  if (frames.length === 0) {
    for (const w of workload) {
      const f: Frame = { index: frames.length };
      if (w.seqno !== undefined) f.seqno = w.seqno;
      if (w.inode !== undefined) f.inode = w.inode;
      if (w.submitNs !== undefined) f.submitTs = w.submitNs;
      if (w.signalNs !== undefined) f.signalTs = w.signalNs;
      if (w.submitNs !== undefined && w.signalNs !== undefined && w.signalNs >= w.submitNs) {
        f.latencyNs = w.signalNs - w.submitNs;
        f.latencySource = "workload";
      }
      frames.push(f);
    }
  }
  return frames;
}
