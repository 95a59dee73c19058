/**
 * Splitting a shell command line into words (with quotes and backslash escapes, as a
 * POSIX shell does) and reading the numbers engineers type at the bench: sizes with
 * units, hex, `WxH` geometries.
 *
 * @module
 */

/** One word of a command line with where it came from. */
export interface Word {
  /** The word after quote removal. */
  value: string;
  /** Offset of its first character in the line. */
  start: number;
  /** Offset after its last character. */
  end: number;
  /** It was (partly) quoted. */
  quoted: boolean;
}

/** Result of {@linkcode splitWords}. */
export interface SplitLine {
  /** The words. */
  words: Word[];
  /** An opening quote was not closed (the last word runs to the end). */
  openQuote?: "'" | '"';
  /** The line ends in whitespace (completion starts a new word). */
  trailingSpace: boolean;
}

/**
 * Splits `line` into words: whitespace separates, `'...'` is literal, `"..."` allows
 * `\"` and `\\`, and a backslash outside quotes escapes the next character.
 *
 * @example
 * ```ts
 * import { splitWords } from "./args.ts";
 * const { words } = splitWords(`alloc 4096 --name "my frame" a\\ b`);
 * console.log(words.map((w) => w.value).join("|")); // "alloc|4096|--name|my frame|a b"
 * ```
 */
export function splitWords(line: string): SplitLine {
  if (typeof line !== "string") throw new TypeError("splitWords(): line must be a string");
  const words: Word[] = [];
  let cur: Word | undefined;
  let quote: "'" | '"' | undefined;
  for (let i = 0; i < line.length; i++) {
    const c = line[i]!;
    if (!quote && /\s/.test(c)) {
      if (cur) words.push(cur);
      cur = undefined;
      continue;
    }
    cur ??= { value: "", start: i, end: i, quoted: false };
    if (quote) {
      if (c === quote) quote = undefined;
      else if (quote === '"' && c === "\\" && (line[i + 1] === '"' || line[i + 1] === "\\")) {
        cur.value += line[++i];
      } else cur.value += c;
    } else if (c === "'" || c === '"') {
      quote = c;
      cur.quoted = true;
    } else if (c === "\\" && i + 1 < line.length) {
      cur.value += line[++i];
    } else {
      cur.value += c;
    }
    cur.end = i + 1;
  }
  if (cur) words.push(cur);
  const trailingSpace = !quote && line.length > 0 && /\s/.test(line[line.length - 1]!);
  return quote ? { words, openQuote: quote, trailingSpace } : { words, trailingSpace };
}

const UNITS: Record<string, number> = {
  "": 1,
  b: 1,
  k: 1024,
  kb: 1024,
  kib: 1024,
  m: 1024 ** 2,
  mb: 1024 ** 2,
  mib: 1024 ** 2,
  g: 1024 ** 3,
  gb: 1024 ** 3,
  gib: 1024 ** 3,
};

/**
 * Parses a byte count: `4096`, `0x1000`, `4K`, `4KiB`, `1.5M`, `2G` (binary units).
 * Throws RangeError naming the input when it is not a positive whole number of bytes.
 *
 * @example
 * ```ts
 * import { parseSize } from "./args.ts";
 * console.log(parseSize("4K")); // 4096
 * console.log(parseSize("0x100")); // 256
 * ```
 */
export function parseSize(text: string): number {
  const t = text.trim();
  let bytes: number;
  if (/^0x[0-9a-f]+$/i.test(t)) {
    bytes = parseInt(t, 16);
  } else {
    const m = /^(\d+(?:\.\d+)?)\s*([a-z]*)$/i.exec(t);
    const unit = m ? UNITS[m[2]!.toLowerCase()] : undefined;
    if (!m || unit === undefined) {
      throw new RangeError(`not a size: '${text}' (expected bytes like 4096, 0x1000, 4K, 1MiB)`);
    }
    bytes = Number(m[1]) * unit;
  }
  if (!Number.isSafeInteger(bytes) || bytes <= 0) {
    throw new RangeError(`not a positive whole number of bytes: '${text}'`);
  }
  return bytes;
}

/**
 * Parses a non-negative integer (decimal or 0x hex); `what` names it in the error.
 *
 * @example
 * ```ts
 * import { parseCount } from "./args.ts";
 * console.log(parseCount("0x10", "model")); // 16
 * ```
 */
export function parseCount(text: string, what: string): number {
  const t = text.trim();
  const n = /^0x[0-9a-f]+$/i.test(t) ? parseInt(t, 16) : /^\d+$/.test(t) ? Number(t) : NaN;
  if (!Number.isSafeInteger(n)) {
    throw new RangeError(`${what} must be a whole number, got '${text}'`);
  }
  return n;
}

/**
 * Parses a `WIDTHxHEIGHT` geometry such as `640x480`.
 *
 * @example
 * ```ts
 * import { parseGeometry } from "./args.ts";
 * const g = parseGeometry("1920x1080");
 * console.log(g.width); // 1920
 * console.log(g.height); // 1080
 * ```
 */
export function parseGeometry(text: string): { width: number; height: number } {
  const m = /^(\d+)[x×](\d+)$/i.exec(text.trim());
  if (!m || Number(m[1]) <= 0 || Number(m[2]) <= 0) {
    throw new RangeError(`not a frame size: '${text}' (expected WIDTHxHEIGHT, e.g. 640x480)`);
  }
  return { width: Number(m[1]), height: Number(m[2]) };
}
