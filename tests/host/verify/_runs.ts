// Judged runs from artifacts the verify device test wrote in the VM (committed under
// tests/fixtures/trace/6.12-axl/<case>/; see the fixtures README).
import { judgeArtifacts } from "../../../lib/verify/replay.ts";
import type { VerifyResult } from "../../../lib/verify/schema.ts";

export type RunCase = "zero-copy" | "copy" | "tiny-buffer";

export function runDir(name: RunCase): string {
  return new URL(`../../fixtures/trace/6.12-axl/${name}`, import.meta.url).pathname;
}

export async function judgedRun(name: RunCase): Promise<VerifyResult> {
  return await judgeArtifacts(runDir(name));
}

/**
 * A judged result as the JSON of a result.json captured before the `chain` section and the
 * `reason` existed:
 * the fixtures' saved results predate it (its own tests are in chain.test.ts).
 */
export function asSavedBeforeChain(r: VerifyResult): unknown {
  const json = JSON.parse(JSON.stringify(r));
  delete json.axl.chain;
  delete json.axl.reason; // one sentence of why, added with the chain's agreement (story.ts)
  return json;
}
