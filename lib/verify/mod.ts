/**
 * Judging a verification run: trace facts, per-frame records, latency statistics, the four
 * invariants (one module each), the failure-mode table and the zod schema of `result.json`.
 *
 * @module
 */
export {
  addRecord,
  type AxlBufferEvent,
  type AxlJobEvent,
  collectTraceFacts,
  emptyTraceFacts,
  type FenceLife,
  readTraceFacts,
  type ReadTraceFactsOptions,
  type TraceFacts,
} from "./trace_facts.ts";
export type { TracedEvents } from "./trace_events.ts";
export {
  buildFrames,
  FRAME_LIST_LIMIT,
  FRAME_WINDOW,
  FrameJoin,
  type FrameJoinOptions,
  type JoinedFrames,
  type TracedFrame,
  type WorkloadFrame,
} from "./frames.ts";
export {
  histogram,
  type HistogramBin,
  type LatencyStats,
  latencyStats,
  percentile,
} from "./latency.ts";
export { diagnosis, FAILURE_MODES, type FailureMode, type FailureModeId } from "./diagnosis.ts";
export {
  type Diagnosis,
  DiagnosisSchema,
  FrameSchema,
  type Invariant,
  InvariantSchema,
  parseVerifyResult,
  RESULT_SCHEMA_VERSION,
  type Status,
  StatusSchema,
  type VerifyResult,
  VerifyResultSchema,
} from "./schema.ts";
export { type AttachmentsVerdict, judgeAttachments } from "./attachments.ts";
export { type ExporterEvidence, judgeExporter } from "./exporter.ts";
export { type AccountingVerdict, type AxlCounts, judgeAccounting } from "./accounting.ts";
export { type CopiesVerdict, judgeCopies, type PerfEvidence } from "./copies.ts";
export {
  DEFAULT_ACCEPTED_EXPORTERS,
  type Environment,
  judge,
  type JudgeInput,
  type JudgeOptions,
  type TraceSetup,
  type WorkloadRecord,
} from "./judge.ts";
