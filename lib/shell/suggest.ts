/**
 * "Did you mean …?": the known name closest to a mistyped one.
 *
 * @module
 */

/** Edit distance between `a` and `b` (insertions, deletions, substitutions, swaps of two). */
function distance(a: string, b: string): number {
  const d = Array.from({ length: a.length + 1 }, (_, i) => [i, ...Array(b.length).fill(0)]);
  for (let j = 1; j <= b.length; j++) d[0]![j] = j;
  for (let i = 1; i <= a.length; i++) {
    for (let j = 1; j <= b.length; j++) {
      const cost = a[i - 1] === b[j - 1] ? 0 : 1;
      let v = Math.min(d[i - 1]![j]! + 1, d[i]![j - 1]! + 1, d[i - 1]![j - 1]! + cost);
      if (i > 1 && j > 1 && a[i - 1] === b[j - 2] && a[i - 2] === b[j - 1]) {
        v = Math.min(v, d[i - 2]![j - 2]! + 1);
      }
      d[i]![j] = v;
    }
  }
  return d[a.length]![b.length]!;
}

/**
 * The name of `names` closest to `word`, when it is close enough to be a typo (one edit
 * for short names, up to a third of the word's length for long ones); undefined otherwise.
 *
 * @example
 * ```ts
 * import { closestName } from "./suggest.ts";
 * console.log(closestName("infoo", ["info", "heaps", "alloc"])); // info
 * console.log(closestName("banana", ["info", "heaps"])); // undefined
 * ```
 */
export function closestName(word: string, names: Iterable<string>): string | undefined {
  const limit = Math.max(1, Math.floor(word.length / 3));
  let best: string | undefined, bestDistance = Infinity;
  for (const name of names) {
    if (name === word) continue;
    const n = distance(word, name);
    if (n <= limit && n < bestDistance) [best, bestDistance] = [name, n];
  }
  return best;
}
