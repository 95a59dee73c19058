// What the four invariant modules share: titles, the invariant row, the verdict they return.
import type { Diagnosis, Invariant, Status } from "./schema.ts";

const TITLES = {
  I1: "a frame buffer was shared by two devices during the run",
  I2: "its exporter is in the accepted set",
  I3: "imports equal frames submitted and releases balance",
  I4: "no CPU copy routine at or above the threshold",
} as const;

/** What one invariant module returns: its row of result.json and the diagnoses it adds. */
export interface Verdict {
  /** The invariant's row of `result.json`. */
  invariant: Invariant;
  /** Failure modes it recognized, for the diagnosis list. */
  diagnoses: Diagnosis[];
}

/** The result.json row of invariant `id`. */
export function invariant(
  id: keyof typeof TITLES,
  status: Status,
  summary: string,
  evidence: Record<string, unknown>,
): Invariant {
  return { id, title: TITLES[id], status, summary, evidence };
}

/** Rounded to 3 decimals, as result.json prints numbers. */
export function round(x: number): number {
  return Math.round(x * 1000) / 1000;
}
