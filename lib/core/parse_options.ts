/**
 * {@linkcode parseOptions}: validates an options object against its zod schema, turning a
 * failure into a TypeError or RangeError that names the field, and caches what it
 * validated, so a frame loop that passes the same options object every frame pays for the
 * schema once.
 *
 * @module
 */
import type { z } from "../_deps.ts";
import { snapshot, unchanged } from "./_snapshot.ts";

// Options objects already validated, per schema, so a frame loop that reuses one
// object pays for zod once. Each entry keeps a copy of the object's data: an object
// changed since (even deep inside, as a plane's pitch) is validated again.
const validated = new Map<z.ZodType, WeakMap<object, { snap: unknown; data: unknown }>>();

/**
 * Parses options, turning schema failures into TypeError/RangeError. A valid object
 * is cached by identity with a copy of its data, so reusing one unchanged options
 * object in a frame loop validates it once, and changing it is always noticed.
 *
 * @example
 * ```ts
 * import { z } from "npm:zod@4.6.7";
 * import { parseOptions } from "./parse_options.ts";
 * const Size = z.object({ width: z.number().int().min(1) });
 * console.log(parseOptions(Size, { width: 64 }, "frame").width); // 64
 * try {
 *   parseOptions(Size, { width: 0 }, "frame");
 * } catch (err) {
 *   console.log(err instanceof RangeError); // true
 *   console.log((err as Error).message); // "frame: width: Too small: expected number to be >=1"
 * }
 * ```
 */
export function parseOptions<S extends z.ZodType>(
  schema: S,
  value: unknown,
  what: string,
): z.output<S> {
  const isObject = typeof value === "object" && value !== null;
  let cache = validated.get(schema);
  const hit = isObject ? cache?.get(value) : undefined;
  if (hit && unchanged(value, hit.snap)) return hit.data as z.output<S>;
  const r = schema.safeParse(value);
  if (r.success) {
    if (isObject) {
      if (!cache) validated.set(schema, cache = new WeakMap());
      cache.set(value, { snap: snapshot(value), data: r.data });
    }
    return r.data;
  }
  // an object that was valid and is no longer: forget it
  if (hit) cache!.delete(value as object);
  const issue = r.error.issues[0]!;
  const where = issue.path.length ? issue.path.join(".") : what;
  const msg = `${what}: ${where}: ${issue.message}`;
  throw issue.code === "too_small" || issue.code === "too_big"
    ? new RangeError(msg)
    : new TypeError(msg);
}
