// Input cut as a pipe delivers it, for the tests of the line splitter and the scanners.

/** `bytes` cut into pieces of random sizes from 1 to `max`. */
export function cut(bytes: Uint8Array, rand: () => number, max: number): Uint8Array[] {
  const out: Uint8Array[] = [];
  for (let i = 0; i < bytes.length;) {
    const n = 1 + Math.floor(rand() * max);
    out.push(bytes.slice(i, i + n));
    i += n;
  }
  return out;
}

/** The chunks as an async iterable, as a stream would hand them out. */
export async function* stream(chunks: Uint8Array[]): AsyncGenerator<Uint8Array> {
  yield* chunks;
}
