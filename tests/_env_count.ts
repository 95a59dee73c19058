// A count a test reads from the environment (rounds, trials). A bare Number() turns a typo into
// NaN or 0, and a loop of NaN rounds runs none: the test would pass having checked nothing.

/**
 * The whole number in `name`, at least `min`, or `fallback` when it is unset; throws on
 * anything else. Host and device tests both read their counts so.
 */
export function envCount(name: string, fallback: number, min = 1): number {
  const raw = Deno.env.get(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < min) {
    throw new RangeError(
      `${name}=${
        JSON.stringify(raw)
      }: expected a whole number, at least ${min} (or unset for ${fallback})`,
    );
  }
  return n;
}
