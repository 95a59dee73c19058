// A small seeded PRNG (mulberry32) so property tests are reproducible: the seed
// is printed on failure and can be forced with AXL_TEST_SEED.
import { mulberry32 } from "../_rng.ts";

export function seededRandom(label: string): { seed: number; next: () => number } {
  const forced = Deno.env.get("AXL_TEST_SEED");
  const seed = forced ? Number(forced) : (Date.now() ^ (label.length * 2654435761)) >>> 0;
  return { seed, next: mulberry32(seed) };
}

export function pick<T>(next: () => number, xs: readonly T[]): T {
  return xs[Math.floor(next() * xs.length)]!;
}

export function intIn(next: () => number, lo: number, hi: number): number {
  return lo + Math.floor(next() * (hi - lo + 1));
}
