/**
 * The library in the shell's JavaScript scope: the `axl` namespace (mod.ts) and its
 * most used exports by name, plus frames, the reference model, producers, the
 * workload and the trace parsers. Defined non-enumerable, so `vars` lists only what
 * the session made.
 *
 * @module
 */
import * as axl from "../../mod.ts";
import * as frame from "../frames/frame.ts";
import * as reference from "../frames/reference.ts";
import * as producers from "../frames/producers/mod.ts";
import * as workload from "../frames/workload.ts";
import * as trace from "../trace/mod.ts";
import type { Scope } from "./evaluator.ts";

/**
 * Defines the library's names in `scope` (without overwriting existing variables).
 *
 * @example
 * ```ts
 * import { installModules } from "./modules.ts";
 * const scope: Record<string, unknown> = Object.create(null);
 * installModules(scope);
 * console.log(typeof scope.frameLayout); // "function"
 * console.log(Object.keys(scope).length); // 0
 * ```
 */
export function installModules(scope: Scope): void {
  const names: Record<string, unknown> = {
    axl,
    trace,
    ...axl,
    ...frame,
    ...reference,
    ...producers,
    ...workload,
    parseBufinfo: trace.parseBufinfo,
    parseFtrace: trace.parseFtrace,
    scanProcess: trace.scanProcess,
    BufinfoSampler: trace.BufinfoSampler,
  };
  for (const [name, value] of Object.entries(names)) {
    if (Object.hasOwn(scope, name)) continue;
    Object.defineProperty(scope, name, {
      value,
      enumerable: false,
      configurable: true,
      writable: true,
    });
  }
}
