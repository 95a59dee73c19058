// A small seeded PRNG (mulberry32) so property tests are reproducible: the seed
// is printed on failure and can be forced with AXL_TEST_SEED.

export function seededRandom(label: string): { seed: number; next: () => number } {
  const forced = Deno.env.get("AXL_TEST_SEED");
  const seed = forced ? Number(forced) : (Date.now() ^ (label.length * 2654435761)) >>> 0;
  let a = seed >>> 0;
  const next = () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  return { seed, next };
}

export function pick<T>(next: () => number, xs: readonly T[]): T {
  return xs[Math.floor(next() * xs.length)]!;
}

export function intIn(next: () => number, lo: number, hi: number): number {
  return lo + Math.floor(next() * (hi - lo + 1));
}
