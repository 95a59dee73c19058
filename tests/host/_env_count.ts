// A count a test reads from the environment (rounds, trials). A bare Number() turns a typo into
// NaN or 0, and a loop of NaN rounds runs none: the test would pass having checked nothing.

/** The positive integer in `name`, or `fallback` when it is unset; throws on anything else. */
export function envCount(name: string, fallback: number): number {
  const raw = Deno.env.get(name);
  if (raw === undefined) return fallback;
  const n = Number(raw);
  if (!/^\d+$/.test(raw) || !Number.isSafeInteger(n) || n < 1) {
    throw new RangeError(
      `${name}=${JSON.stringify(raw)}: expected a positive integer (or unset for ${fallback})`,
    );
  }
  return n;
}
