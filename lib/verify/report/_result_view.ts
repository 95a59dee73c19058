// What the machine-readable reports read from a result: the invariants generically (any id,
// in the result's order), so that an invariant added to result.json is reported without
// a change here.
import type { VerifyResult } from "../schema.ts";

/** One invariant as the reports read it. */
export interface InvariantView {
  /** `I1`, `I2`, … */
  id: string;
  /** What it claims. */
  title: string;
  /** PASS, FAIL, SKIP or INCONCLUSIVE. */
  status: string;
  /** One sentence saying why. */
  summary: string;
  /** The numbers and names the verdict rests on. */
  evidence: Record<string, unknown>;
  /** Where that evidence came from, when the result names it. */
  source?: string | undefined;
}

/** The invariants of `result`, in the result's order. */
export function invariantsOf(result: VerifyResult): InvariantView[] {
  const all = result.axl.invariants as unknown as Record<string, InvariantView>;
  return Object.values(all).filter((i) => typeof i?.id === "string");
}

/** The statuses a verdict can take. */
export const STATUSES = ["PASS", "FAIL", "SKIP", "INCONCLUSIVE"] as const;
