/**
 * {@linkcode pathExists}: whether a path names anything, for probing kernel and tool files
 * (tracefs controls, device nodes, a Deno cache) where absence is an answer, not an error.
 *
 * @module
 */

/**
 * True when `path` exists (following links); false when it does not or cannot be reached.
 *
 * @example
 * ```ts
 * import { pathExists } from "./path_exists.ts";
 * console.log(pathExists("/")); // true
 * console.log(pathExists("/no/such/path")); // false
 * ```
 */
export function pathExists(path: string): boolean {
  try {
    Deno.statSync(path);
    return true;
  } catch {
    return false;
  }
}
