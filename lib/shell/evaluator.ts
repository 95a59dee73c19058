/**
 * {@linkcode Evaluator}: runs shell JavaScript with top-level `await` against one scope
 * object that outlives each line, so variables, command results (`$1`, `frame`) and the
 * library's modules are shared between code and commands.
 *
 * @module
 */
import { compileBody, rewriteJs, SCOPE_PARAM } from "./js_rewrite.ts";

/** The variables of a shell session (a null-prototype object). */
export type Scope = Record<string, unknown>;

/**
 * Evaluates JavaScript in a persistent scope.
 *
 * @example
 * ```ts
 * import { Evaluator } from "./evaluator.ts";
 * const ev = new Evaluator();
 * await ev.evaluate("const n = await Promise.resolve(6)");
 * console.log(await ev.evaluate("n * 7")); // 42
 * ```
 */
export class Evaluator {
  /** The variables; values set here are visible to code and the other way round. */
  readonly scope: Scope;
  readonly #proxy: object;

  /** Creates an evaluator over `scope` (default: a new empty scope). */
  constructor(scope: Scope = Object.create(null)) {
    this.scope = scope;
    this.#proxy = new Proxy(scope, {
      // Claim every name that is not a global, so assignments land in the scope and
      // unknown names still fail with ReferenceError (from get).
      has: (_t, key) => {
        if (typeof key === "symbol" || key === SCOPE_PARAM) return false;
        return key in scope || !(key in globalThis);
      },
      get: (_t, key) => {
        if (typeof key === "symbol") return undefined;
        if (key in scope) return scope[key];
        throw new ReferenceError(`${key} is not defined`);
      },
      set: (_t, key, value) => {
        if (typeof key === "symbol") return false;
        scope[key] = value;
        return true;
      },
      deleteProperty: (_t, key) => typeof key === "string" && delete scope[key],
    });
  }

  /**
   * Runs `source` and resolves to the value of its last expression (undefined when it
   * ends in a declaration or statement). SyntaxError is thrown before anything runs.
   */
  async evaluate(source: string): Promise<unknown> {
    const { body } = rewriteJs(source);
    return await compileBody(body)(this.#proxy);
  }

  /**
   * Looks a dotted name (`frame.buffer.size`) up in the scope and globals without
   * running code; undefined when any part is missing. Used by completion.
   */
  lookup(path: string): unknown {
    const parts = path.split(".");
    const first = parts.shift()!;
    let value: unknown = first in this.scope
      ? this.scope[first]
      : (globalThis as Record<string, unknown>)[first];
    for (const p of parts) {
      if (value === null || value === undefined) return undefined;
      try {
        value = (value as Record<string, unknown>)[p];
      } catch {
        return undefined;
      }
    }
    return value;
  }
}
