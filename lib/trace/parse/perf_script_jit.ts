/**
 * Naming JIT frames of `perf script` output again from a runtime's final perf map.
 *
 * A JIT runtime (V8 with `--perf-basic-prof`) appends a line `START SIZE NAME` (hex, hex,
 * the rest of the line) to `/tmp/perf-PID.map` for each function it compiles, and perf
 * prints a frame in its anonymous executable memory with that file as the frame's DSO.
 * perf script reads the file once, when it first resolves an address there: reading perf's
 * output live, while the workload runs, leaves every function compiled after that moment
 * `[unknown]`, while `perf script` on the finished data file names it.
 * {@linkcode resolvePerfMapFrames} names every such frame again from the map as it is at
 * the end, by perf's own rules, so that the text is what `perf script` prints of the
 * finished data file; where perf's answer would depend on the order of its symbol tree
 * (entries of the map that overlap) it says so instead of guessing.
 *
 * perf's rules (tools/perf/util/symbol.c, Linux 6.1): `dso__load_perf_map()` reads each
 * line as a start (`strtoull` base 16), one separator, a size, one separator and the name
 * (the rest of the line, its last character dropped as the newline), skips lines too short
 * to hold them, and inserts every symbol unsorted, with no fix-up of overlaps or ends;
 * `symbol__new()` makes a symbol `[start, start + size)`, and `symbols__find()` answers an
 * address with a symbol whose range holds it (a symbol of size 0 holds its start only), or
 * none: `[unknown]`.
 *
 * @module
 */

/** One entry of a perf map, as perf reads it. */
export interface PerfMapEntry {
  /** First address. */
  start: bigint;
  /** One past the last address (start + 1 for an entry of size 0). */
  end: bigint;
  /** The name perf prints. */
  name: string;
}

/** perf's `hex2u64()`: `strtoull(s, &end, 16)`; the value and the characters read. */
function hex2u64(s: string): { value: bigint; length: number } {
  const m = /^[ \t\n\v\f\r]*([+-]?)(0[xX](?=[0-9a-fA-F]))?([0-9a-fA-F]*)/.exec(s)!;
  if (m[3] === "") return { value: 0n, length: 0 };
  let value = BigInt(`0x${m[3]}`) & 0xffffffffffffffffn;
  if (m[1] === "-") value = (-value) & 0xffffffffffffffffn;
  return { value, length: m[0].length };
}

/**
 * Parses the text of a perf map as perf's `dso__load_perf_map()` does.
 *
 * @example
 * ```ts
 * import { parsePerfMap } from "./perf_script_jit.ts";
 * const [e] = parsePerfMap("7f0010 40 JS:*loop file:///a.ts:1:1\n");
 * console.log(e!.name, e!.end - e!.start); // "JS:*loop file:///a.ts:1:1" 64n
 * ```
 */
export function parsePerfMap(text: string): PerfMapEntry[] {
  const entries: PerfMapEntry[] = [];
  const lines = text.split("\n");
  // getline() returns each line with its newline; the last one may have none, and perf
  // drops its last character all the same.
  if (lines[lines.length - 1] === "") lines.pop();
  else if (lines.length > 0) lines[lines.length - 1] = lines[lines.length - 1]!.slice(0, -1);
  for (const line of lines) {
    const a = hex2u64(line);
    let len = a.length + 1;
    if (len + 2 >= line.length) continue;
    const b = hex2u64(line.slice(len));
    len += b.length + 1;
    if (len + 2 >= line.length) continue;
    const size = b.value === 0n ? 1n : b.value;
    entries.push({ start: a.value, end: a.value + size, name: line.slice(len) });
  }
  return entries;
}

/** What a perf map says of one address. */
export type PerfMapAnswer =
  | { name: string }
  | { unknown: true }
  | { ambiguous: string };

/**
 * A perf map's entries sorted for lookups that answer as perf does, or say that perf's
 * answer depends on the shape of its symbol tree.
 */
export class PerfMapIndex {
  #entries: PerfMapEntry[];
  /** `#overlaps[i]`: entry i shares an address with another entry. */
  #overlaps: boolean[];

  /** Indexes the entries of one map. */
  constructor(entries: PerfMapEntry[]) {
    this.#entries = [...entries].sort((
      x,
      y,
    ) => (x.start < y.start ? -1 : x.start > y.start ? 1 : 0));
    this.#overlaps = this.#entries.map(() => false);
    let reach = -1; // index of the entry reaching furthest so far
    for (let i = 0; i < this.#entries.length; i++) {
      const e = this.#entries[i]!;
      if (reach >= 0 && this.#entries[reach]!.end > e.start) {
        this.#overlaps[i] = true;
        this.#overlaps[reach] = true;
        // every earlier entry that reaches past e.start overlaps e too
        for (let j = i - 1; j >= 0; j--) {
          if (this.#entries[j]!.end > e.start) this.#overlaps[j] = true;
        }
      }
      if (reach < 0 || e.end > this.#entries[reach]!.end) reach = i;
    }
  }

  /** Entries in the map. */
  get size(): number {
    return this.#entries.length;
  }

  /**
   * The name perf gives `ip`, `[unknown]` when no entry holds it, or why perf's answer is
   * not certain: the entry that holds it overlaps another (perf then answers with whichever
   * its search meets first).
   *
   * @example
   * ```ts
   * import { parsePerfMap, PerfMapIndex } from "./perf_script_jit.ts";
   * const map = new PerfMapIndex(parsePerfMap("1000 100 JS:*a\n2000 10 JS:*b\n"));
   * console.log(map.lookup(0x1010n)); // { name: "JS:*a" }
   * console.log(map.lookup(0x1800n)); // { unknown: true }
   * ```
   */
  lookup(ip: bigint): PerfMapAnswer {
    const e = this.#entries;
    // the last entry starting at or before ip
    let lo = 0, hi = e.length;
    while (lo < hi) {
      const mid = (lo + hi) >> 1;
      if (e[mid]!.start <= ip) lo = mid + 1;
      else hi = mid;
    }
    const holders: number[] = [];
    for (let i = lo - 1; i >= 0; i--) {
      if (e[i]!.end > ip) holders.push(i);
      // without overlaps no earlier entry reaches ip
      if (!this.#overlaps[i]) break;
    }
    if (holders.length === 0) return { unknown: true };
    if (holders.length === 1 && !this.#overlaps[holders[0]!]) return { name: e[holders[0]!]!.name };
    return {
      ambiguous: `0x${ip.toString(16)} lies in ${holders.length} overlapping entr${
        holders.length === 1 ? "y" : "ies"
      } (${holders.map((i) => e[i]!.name).join("; ")})`,
    };
  }
}

/** What {@linkcode resolvePerfMapFrames} did. */
export interface ResolvedPerfScript {
  /** The text with every frame in a perf map named from the map's final contents. */
  text: string;
  /** Frames in a perf map. */
  frames: number;
  /** Of those, frames whose symbol changed (most often `[unknown]` now named). */
  renamed: number;
  /** The perf maps read, with their entries. */
  maps: { path: string; entries: number }[];
  /**
   * Set when perf's answer for some frame depends on the shape of its symbol tree, or when
   * perf named a frame that no entry of the map holds now (not the file perf read): the text
   * is then not certain to be what `perf script` prints, and the caller runs it.
   */
  ambiguous?: string;
}

// "\t    7f3c0a1b2c3d NAME (/tmp/perf-123.map)": the DSO is last, the name may hold anything.
const FRAME_RE = /^(\s+)([0-9a-fA-F]+) (.*) \((\/tmp\/perf-\d+\.map)\)$/;

/**
 * Names again every frame of `perf script` output (`-F ...,ip,sym,dso`, no `symoff`) whose
 * DSO is a perf map, from `readMap(path)`: the map's text at the end of the run, or
 * `undefined` when there is none (perf then names nothing in it either).
 *
 * @example
 * ```ts
 * import { resolvePerfMapFrames } from "./perf_script_jit.ts";
 * const live = "deno 7/7 1.000000: 1 cpu-clock:\n\t    1010 [unknown] (/tmp/perf-7.map)\n\n";
 * const r = resolvePerfMapFrames(live, () => "1000 100 JS:*loop\n");
 * console.log(r.text.split("\n")[1]); // "\t    1010 JS:*loop (/tmp/perf-7.map)"
 * ```
 */
export function resolvePerfMapFrames(
  script: string,
  readMap: (path: string) => string | undefined,
): ResolvedPerfScript {
  const maps = new Map<string, PerfMapIndex>();
  let frames = 0, renamed = 0;
  let ambiguous: string | undefined;
  const lines = script.split("\n");
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i]!;
    if (!line.endsWith(".map)")) continue;
    const m = FRAME_RE.exec(line);
    if (!m) continue;
    const [, indent, ip, sym, path] = m as unknown as [string, string, string, string, string];
    let map = maps.get(path);
    if (!map) {
      map = new PerfMapIndex(parsePerfMap(readMap(path) ?? ""));
      maps.set(path, map);
    }
    frames++;
    const answer = map.lookup(BigInt(`0x${ip}`));
    if ("ambiguous" in answer) {
      ambiguous ??= `${path}: ${answer.ambiguous}`;
      continue;
    }
    if ("unknown" in answer && sym !== "[unknown]") {
      // perf named it from the map as it was, and no entry of the map as read now holds it:
      // this is not the file perf read (another pid namespace's /tmp), or it was cut
      ambiguous ??= `${path}: 0x${ip} was named ${sym} and is in no entry of the map now`;
      continue;
    }
    const name = "name" in answer ? answer.name : "[unknown]";
    if (name === sym) continue;
    renamed++;
    lines[i] = `${indent}${ip} ${name} (${path})`;
  }
  return {
    text: renamed > 0 ? lines.join("\n") : script,
    frames,
    renamed,
    maps: [...maps].map(([path, m]) => ({ path, entries: m.size })),
    ...(ambiguous ? { ambiguous } : {}),
  };
}

/**
 * Reads a perf map for {@linkcode resolvePerfMapFrames}: its text, or `undefined` when it
 * cannot be opened (perf's `fopen()` failing: no symbols). Throws when it is not UTF-8, whose
 * names as text would not be the bytes perf prints.
 */
export function readPerfMapFile(path: string): string | undefined {
  let bytes: Uint8Array;
  try {
    bytes = Deno.readFileSync(path);
  } catch {
    return undefined;
  }
  try {
    return new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    throw new Error(`${path} is not UTF-8`);
  }
}
