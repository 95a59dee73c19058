/**
 * Judging a verification run: trace facts, per-frame records, latency statistics, the four
 * invariants (one module each), the failure-mode table and the zod schema of `result.json`.
 *
 * @module
 */
export * from "./trace_facts.ts";
export * from "./trace_events.ts";
export * from "./frames.ts";
export * from "./latency.ts";
export * from "./diagnosis.ts";
export * from "./schema.ts";
export * from "./attachments.ts";
export * from "./exporter.ts";
export * from "./accounting.ts";
export * from "./copies.ts";
export * from "./judge.ts";
export * from "./chain.ts";
export * from "./chain_schema.ts";
export * from "./evidence/source.ts";
export * from "./evidence/dmabuf_probes.ts";
export type { Verdict } from "./_invariant.ts";
