/**
 * Parser for GStreamer caps strings as `gst_caps_from_string()` reads them:
 * `video/x-raw(memory:NVMM), format=(string)NV12, width=(int)[ 1, 4096 ],
 * framerate=(fraction){ 30/1, 60/1 }; image/jpeg`.
 *
 * Untyped values are inferred the way GStreamer does: int, then double, then
 * fraction, then flagset, then boolean, else string. Every error is a
 * {@linkcode CapsSyntaxError} carrying the column.
 *
 * @module
 */

import { isSpace, isStringChar } from "./_chars.ts";
import { CapsSyntaxError } from "./errors.ts";
import {
  ANY_CAPS,
  type Caps,
  type CapsFeatures,
  type CapsField,
  type CapsStructure,
  type CapsValue,
  EMPTY_CAPS,
  type Fraction,
  type IntType,
  SYSTEM_MEMORY,
} from "./types.ts";

/** Where a parse happens: the text and the column its first character has. */
class Cursor {
  pos = 0;
  constructor(readonly text: string, readonly column0 = 1, readonly line = 1) {}

  peek(): string | undefined {
    return this.text[this.pos];
  }

  atEnd(): boolean {
    return this.pos >= this.text.length;
  }

  skipSpace(): void {
    while (isSpace(this.peek())) this.pos++;
  }

  fail(message: string, at = this.pos): never {
    throw new CapsSyntaxError(message, this.text, this.column0 + at, this.line);
  }

  expect(c: string, what: string): void {
    if (this.peek() !== c) {
      const got = this.atEnd() ? "end of input" : `"${this.peek()}"`;
      this.fail(`expected "${c}" ${what}, found ${got}`);
    }
    this.pos++;
  }

  token(): string {
    const start = this.pos;
    while (isStringChar(this.peek())) this.pos++;
    return this.text.slice(start, this.pos);
  }
}

/** Options for positions in error messages, when the text is part of a larger input. */
export interface ParsePosition {
  /** Column of the text's first character (default 1). */
  column?: number;
  /** Line of the text (default 1). */
  line?: number;
}

/**
 * Parses a caps string. `ANY`, `EMPTY`/`NONE` and the empty string are accepted.
 *
 * @example
 * ```ts
 * import { parseCaps } from "./parse.ts";
 * import { deepStrictEqual } from "node:assert/strict";
 * const caps = parseCaps("video/x-raw(memory:NVMM), format=NV12, framerate=30/1");
 * deepStrictEqual(caps.any ? null : caps.structures[0]!.features, ["memory:NVMM"]);
 * ```
 */
export function parseCaps(text: string, position: ParsePosition = {}): Caps {
  if (typeof text !== "string") {
    throw new TypeError(`parseCaps() expects a string, got ${typeof text}`);
  }
  const cur = new Cursor(text, position.column ?? 1, position.line ?? 1);
  cur.skipSpace();
  const rest = text.slice(cur.pos).trimEnd();
  if (rest === "ANY") return ANY_CAPS;
  if (rest === "EMPTY" || rest === "NONE" || rest === "") return EMPTY_CAPS;
  const structures: CapsStructure[] = [];
  while (true) {
    structures.push(parseStructureAt(cur));
    cur.skipSpace();
    if (cur.atEnd()) break;
    if (cur.peek() === ";") {
      cur.pos++;
      cur.skipSpace();
      if (cur.atEnd()) break;
      continue;
    }
    cur.fail(`expected ";" or end of caps after structure "${structures.at(-1)!.name}"`);
  }
  return Object.freeze({ any: false, structures: Object.freeze(structures) });
}

/**
 * Parses one structure (`name(features), field=value, …`) and nothing else.
 *
 * @example
 * ```ts
 * import { parseStructure } from "./parse.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(parseStructure("video/x-raw, width=640").fields.length, 1);
 * ```
 */
export function parseStructure(text: string, position: ParsePosition = {}): CapsStructure {
  const cur = new Cursor(text, position.column ?? 1, position.line ?? 1);
  const s = parseStructureAt(cur);
  cur.skipSpace();
  if (!cur.atEnd()) cur.fail("unexpected text after structure");
  return s;
}

/**
 * Parses one field value, typed (`(int)[ 1, 5 ]`) or untyped (`30/1`).
 *
 * @example
 * ```ts
 * import { parseValue } from "./parse.ts";
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(parseValue("[ 0/1, 60/1 ]"), {
 *   kind: "fraction-range",
 *   min: { num: 0, den: 1 },
 *   max: { num: 60, den: 1 },
 * });
 * ```
 */
export function parseValue(text: string, position: ParsePosition = {}): CapsValue {
  const cur = new Cursor(text, position.column ?? 1, position.line ?? 1);
  const v = parseValueAt(cur, undefined);
  cur.skipSpace();
  if (!cur.atEnd()) cur.fail("unexpected text after value");
  return v;
}

/**
 * Parses a caps features string such as `memory:DMABuf, meta:Foo` or `ANY`.
 *
 * @example
 * ```ts
 * import { parseFeatures } from "./parse.ts";
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(parseFeatures("memory:SystemMemory"), []);
 * ```
 */
export function parseFeatures(text: string, position: ParsePosition = {}): CapsFeatures {
  const cur = new Cursor(text, position.column ?? 1, position.line ?? 1);
  return featureList(cur, text.length);
}

function parseStructureAt(cur: Cursor): CapsStructure {
  cur.skipSpace();
  const nameAt = cur.pos;
  const name = cur.token();
  if (name === "") {
    cur.fail(
      cur.atEnd()
        ? "expected a media type such as video/x-raw, found end of input"
        : `expected a media type such as video/x-raw, found "${cur.peek()}"`,
    );
  }
  if (!/^[A-Za-z]/.test(name)) cur.fail(`media type "${name}" must start with a letter`, nameAt);
  let features: CapsFeatures = [];
  if (cur.peek() === "(") {
    cur.pos++;
    const close = cur.text.indexOf(")", cur.pos);
    if (close < 0) cur.fail(`caps features of "${name}" are missing their closing ")"`);
    features = featureList(cur, close);
    cur.pos = close + 1;
  }
  const fields: CapsField[] = [];
  while (true) {
    cur.skipSpace();
    if (cur.peek() !== ",") break;
    cur.pos++;
    cur.skipSpace();
    // A trailing comma before ";" or the end is tolerated.
    if (cur.atEnd() || cur.peek() === ";") break;
    const fieldAt = cur.pos;
    const field = cur.token();
    if (field === "") {
      cur.fail(`expected a field name after "," in "${name}", found "${cur.peek()}"`);
    }
    if (!/^[A-Za-z]/.test(field)) {
      cur.fail(`field name "${field}" must start with a letter`, fieldAt);
    }
    cur.skipSpace();
    cur.expect("=", `after field name "${field}"`);
    const value = parseValueAt(cur, undefined);
    const existing = fields.findIndex((f) => f.name === field);
    const entry = Object.freeze({ name: field, value });
    // GStreamer keeps the last value of a repeated field.
    if (existing >= 0) fields[existing] = entry;
    else fields.push(entry);
  }
  return Object.freeze({ name, features, fields: Object.freeze(fields) });
}

function featureList(cur: Cursor, end: number): CapsFeatures {
  const start = cur.pos;
  const inner = cur.text.slice(start, end);
  if (inner.trim() === "ANY") return "ANY";
  const names: string[] = [];
  let offset = start;
  for (const part of inner.split(",")) {
    const trimmed = part.trim();
    const at = offset + part.indexOf(trimmed);
    if (!/^[A-Za-z][A-Za-z0-9_\-+.]*:[A-Za-z0-9_\-+.:/]+$/.test(trimmed)) {
      cur.fail(
        trimmed === ""
          ? "empty caps feature (features look like memory:NVMM)"
          : `caps feature "${trimmed}" is not of the form namespace:name (e.g. memory:NVMM)`,
        trimmed === "" ? offset : at,
      );
    }
    names.push(trimmed);
    offset += part.length + 1;
  }
  if (names.length === 1 && names[0] === SYSTEM_MEMORY) return Object.freeze([]);
  return Object.freeze(names);
}

type TypeName =
  | IntType
  | "double"
  | "float"
  | "string"
  | "boolean"
  | "fraction"
  | "bitmask"
  | { other: string };

const TYPE_ALIASES: Record<string, TypeName> = {
  i: "int",
  int: "int",
  gint: "int",
  u: "uint",
  uint: "uint",
  guint: "uint",
  int64: "int64",
  gint64: "int64",
  uint64: "uint64",
  guint64: "uint64",
  f: "float",
  float: "float",
  gfloat: "float",
  d: "double",
  double: "double",
  gdouble: "double",
  s: "string",
  str: "string",
  string: "string",
  gchararray: "string",
  b: "boolean",
  bool: "boolean",
  boolean: "boolean",
  gboolean: "boolean",
  fraction: "fraction",
  GstFraction: "fraction",
  bitmask: "bitmask",
  GstBitmask: "bitmask",
};

function parseValueAt(cur: Cursor, inherited: TypeName | undefined): CapsValue {
  cur.skipSpace();
  let type = inherited;
  if (cur.peek() === "(") {
    const open = cur.pos;
    cur.pos++;
    cur.skipSpace();
    const name = cur.token();
    cur.skipSpace();
    if (name === "" || cur.peek() !== ")") {
      cur.fail("expected a type name such as (int) or (string)", open);
    }
    cur.pos++;
    cur.skipSpace();
    type = TYPE_ALIASES[name] ?? { other: name };
  }
  const c = cur.peek();
  if (c === "[") return parseRange(cur, type);
  if (c === "{") return Object.freeze({ kind: "list", items: parseItems(cur, "{", "}", type) });
  if (c === "<") return Object.freeze({ kind: "array", items: parseItems(cur, "<", ">", type) });
  const at = cur.pos;
  let text: string;
  let quoted = false;
  if (c === '"') {
    text = quotedString(cur);
    quoted = true;
  } else {
    text = cur.token();
    if (text === "") {
      cur.fail(
        cur.atEnd() ? "expected a value, found end of input" : `expected a value, found "${c}"`,
      );
    }
  }
  return deserialize(cur, text, type, at, quoted);
}

function quotedString(cur: Cursor): string {
  const start = cur.pos;
  cur.pos++;
  let out = "";
  while (true) {
    const c = cur.peek();
    if (c === undefined) cur.fail("string is missing its closing quote", start);
    cur.pos++;
    if (c === '"') return out;
    if (c === "\\") {
      const e = cur.peek();
      if (e === undefined) cur.fail("string ends in a lone backslash", cur.pos - 1);
      // Octal escapes (\ooo) are how GStreamer writes non-printable bytes.
      if (/[0-7]/.test(e) && /^[0-7]{3}$/.test(cur.text.slice(cur.pos, cur.pos + 3))) {
        out += String.fromCharCode(parseInt(cur.text.slice(cur.pos, cur.pos + 3), 8));
        cur.pos += 3;
      } else {
        out += e;
        cur.pos++;
      }
      continue;
    }
    out += c;
  }
}

function parseItems(
  cur: Cursor,
  open: string,
  close: string,
  type: TypeName | undefined,
): readonly CapsValue[] {
  const start = cur.pos;
  cur.expect(open, "");
  const items: CapsValue[] = [];
  cur.skipSpace();
  if (cur.peek() === close) {
    cur.pos++;
    return Object.freeze(items);
  }
  while (true) {
    items.push(parseValueAt(cur, type));
    cur.skipSpace();
    const c = cur.peek();
    if (c === ",") {
      cur.pos++;
      continue;
    }
    if (c === close) {
      cur.pos++;
      return Object.freeze(items);
    }
    if (c === undefined) {
      cur.fail(`"${open}" opened at column ${cur.column0 + start} is not closed`);
    }
    cur.fail(`expected "," or "${close}" in a ${open === "{" ? "list" : "array"}, found "${c}"`);
  }
}

function parseRange(cur: Cursor, type: TypeName | undefined): CapsValue {
  const start = cur.pos;
  cur.pos++;
  cur.skipSpace();
  const minAt = cur.pos;
  const min = parseValueAt(cur, type);
  cur.skipSpace();
  cur.expect(",", "between the two ends of a range");
  // The upper end is read as the lower end's type, as GStreamer does.
  const maxType = type ?? typeOf(min);
  cur.skipSpace();
  const maxAt = cur.pos;
  const max = parseValueAt(cur, maxType);
  cur.skipSpace();
  let step: CapsValue | undefined;
  if (cur.peek() === ",") {
    cur.pos++;
    step = parseValueAt(cur, maxType);
    cur.skipSpace();
  }
  if (cur.peek() !== "]") {
    cur.fail(
      cur.atEnd()
        ? `range opened at column ${cur.column0 + start} is not closed with "]"`
        : `expected "]" to close the range, found "${cur.peek()}"`,
    );
  }
  cur.pos++;
  if (min.kind === "int" && max.kind === "int") {
    let s = 1;
    if (step) {
      if (step.kind !== "int" || step.value <= 0) {
        cur.fail("range step must be a positive integer", start);
      }
      s = step.value;
      if (min.value % s !== 0 || max.value % s !== 0) {
        cur.fail(
          `range ends ${min.value} and ${max.value} must be multiples of the step ${s}`,
          start,
        );
      }
    }
    if (min.value > max.value) {
      cur.fail(`range [ ${min.value}, ${max.value} ] is empty (min > max)`, minAt);
    }
    return Object.freeze({
      kind: "int-range",
      type: min.type,
      min: min.value,
      max: max.value,
      step: s,
    });
  }
  if (step) cur.fail("only integer ranges take a step", start);
  if (min.kind === "double" && max.kind === "double") {
    if (min.value > max.value) {
      cur.fail(`range [ ${min.value}, ${max.value} ] is empty (min > max)`, minAt);
    }
    return Object.freeze({ kind: "double-range", min: min.value, max: max.value });
  }
  if (min.kind === "fraction" && max.kind === "fraction") {
    if (compareFractions(min.value, max.value) > 0) {
      cur.fail("fraction range is empty (min > max)", minAt);
    }
    return Object.freeze({ kind: "fraction-range", min: min.value, max: max.value });
  }
  cur.fail(
    `a range needs two integers, doubles or fractions of the same type (got ${min.kind} and ${max.kind})`,
    min.kind === "int" || min.kind === "double" || min.kind === "fraction" ? maxAt : minAt,
  );
}

function typeOf(v: CapsValue): TypeName | undefined {
  switch (v.kind) {
    case "int":
      return v.type;
    case "double":
      return v.type;
    case "fraction":
      return "fraction";
    default:
      return undefined;
  }
}

const INT_LIMITS: Record<IntType, [number, number]> = {
  int: [-(2 ** 31), 2 ** 31 - 1],
  uint: [0, 2 ** 32 - 1],
  int64: [Number.MIN_SAFE_INTEGER, Number.MAX_SAFE_INTEGER],
  uint64: [0, Number.MAX_SAFE_INTEGER],
};

function parseInteger(text: string): number | undefined {
  const m = /^([+-]?)(0[xX][0-9a-fA-F]+|0[0-7]+|[1-9][0-9]*|0)$/.exec(text);
  if (!m) return undefined;
  const body = m[2]!;
  let n: number;
  if (/^0[xX]/.test(body)) n = parseInt(body.slice(2), 16);
  else if (body.length > 1 && body.startsWith("0")) n = parseInt(body.slice(1), 8);
  else n = parseInt(body, 10);
  return m[1] === "-" ? -n : n;
}

function parseDouble(text: string): number | undefined {
  if (!/^[+-]?(\d+\.?\d*|\.\d+)([eE][+-]?\d+)?$/.test(text)) return undefined;
  const n = Number(text);
  return Number.isFinite(n) ? n : undefined;
}

function parseFraction(text: string): Fraction | undefined {
  const m = /^([+-]?\d+)(?:\/(\d+))?$/.exec(text);
  if (!m) return undefined;
  const num = Number(m[1]);
  const den = m[2] === undefined ? 1 : Number(m[2]);
  if (den === 0 || !Number.isSafeInteger(num) || !Number.isSafeInteger(den)) return undefined;
  if (Math.abs(num) > 2 ** 31 - 1 || den > 2 ** 31 - 1) return undefined;
  return Object.freeze({ num, den });
}

function parseBoolean(text: string): boolean | undefined {
  const t = text.toLowerCase();
  if (t === "true" || t === "yes" || t === "t" || t === "1") return true;
  if (t === "false" || t === "no" || t === "f" || t === "0") return false;
  return undefined;
}

const FLAGSET = /^([0-9a-fA-F]{1,8}):([0-9a-fA-F]{1,8})(:?\/.*|)$/;

function deserialize(
  cur: Cursor,
  text: string,
  type: TypeName | undefined,
  at: number,
  quoted: boolean,
): CapsValue {
  if (type === undefined) {
    if (quoted) return Object.freeze({ kind: "string", value: text });
    const i = parseInteger(text);
    if (i !== undefined && i >= INT_LIMITS.int[0] && i <= INT_LIMITS.int[1]) {
      return Object.freeze({ kind: "int", type: "int", value: i });
    }
    const d = parseDouble(text);
    if (d !== undefined) return Object.freeze({ kind: "double", type: "double", value: d });
    const f = parseFraction(text);
    if (f !== undefined) return Object.freeze({ kind: "fraction", value: f });
    const fs = FLAGSET.exec(text);
    if (fs) return flagset("flagset", fs);
    const b = parseBoolean(text);
    if (b !== undefined) return Object.freeze({ kind: "boolean", value: b });
    return Object.freeze({ kind: "string", value: text });
  }
  const bad = (what: string): never => cur.fail(`"${text}" is not ${what}`, at);
  if (typeof type === "object") {
    const fs = FLAGSET.exec(text);
    if (fs && /flags?set$/i.test(type.other)) return flagset(type.other, fs);
    return Object.freeze({ kind: "other", type: type.other, text });
  }
  switch (type) {
    case "int":
    case "uint":
    case "int64":
    case "uint64": {
      const i = parseInteger(text);
      if (i === undefined) bad(`an integer (${type})`);
      const [lo, hi] = INT_LIMITS[type];
      if (i! < lo || i! > hi) bad(`within the ${type} range ${lo}..${hi}`);
      return Object.freeze({ kind: "int", type, value: i! });
    }
    case "double":
    case "float": {
      const d = parseDouble(text) ?? parseInteger(text);
      if (d === undefined) bad(`a number (${type})`);
      return Object.freeze({ kind: "double", type, value: d! });
    }
    case "string":
      return Object.freeze({ kind: "string", value: text });
    case "boolean": {
      const b = parseBoolean(text);
      if (b === undefined) bad("a boolean (true/false)");
      return Object.freeze({ kind: "boolean", value: b! });
    }
    case "fraction": {
      const f = parseFraction(text);
      if (f === undefined) bad("a fraction such as 30/1");
      return Object.freeze({ kind: "fraction", value: f! });
    }
    case "bitmask": {
      if (!/^(0[xX][0-9a-fA-F]{1,16}|[0-9]{1,20})$/.test(text)) bad("a 64-bit bitmask such as 0x3");
      const v = BigInt(text);
      if (v > 0xffffffffffffffffn) bad("a 64-bit bitmask");
      return Object.freeze({ kind: "bitmask", value: v });
    }
  }
}

function flagset(type: string, m: RegExpExecArray): CapsValue {
  return Object.freeze({
    kind: "flagset",
    type,
    flags: parseInt(m[1]!, 16),
    mask: parseInt(m[2]!, 16),
    names: m[3]!,
  });
}

/**
 * Compares two fractions by value: negative, zero or positive.
 *
 * @example
 * ```ts
 * import { compareFractions } from "./parse.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(compareFractions({ num: 1, den: 2 }, { num: 2, den: 4 }), 0);
 * ```
 */
export function compareFractions(a: Fraction, b: Fraction): number {
  // Cross-multiplication stays exact: both sides are below 2^62 < 2^63 as bigints.
  const l = BigInt(a.num) * BigInt(b.den);
  const r = BigInt(b.num) * BigInt(a.den);
  return l < r ? -1 : l > r ? 1 : 0;
}
