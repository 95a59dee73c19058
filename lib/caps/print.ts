/**
 * Printer for caps in GStreamer's own serialisation (`gst_caps_to_string()`
 * style): every value typed, lists of one type written `(string){ A, B }`,
 * system memory not printed. The output parses back to the same caps.
 *
 * @module
 */

import { isStringChar } from "./_chars.ts";
import type { Caps, CapsFeatures, CapsStructure, CapsValue, Fraction, IntType } from "./types.ts";

/**
 * Prints caps: `ANY`, `EMPTY`, or structures joined by `; `.
 *
 * @example
 * ```ts
 * import { parseCaps } from "./parse.ts";
 * import { printCaps } from "./print.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(
 *   printCaps(parseCaps("video/x-raw(memory:NVMM),format=NV12,framerate=30/1")),
 *   "video/x-raw(memory:NVMM), format=(string)NV12, framerate=(fraction)30/1",
 * );
 * ```
 */
export function printCaps(caps: Caps): string {
  if (caps.any) return "ANY";
  if (caps.structures.length === 0) return "EMPTY";
  return caps.structures.map(printStructure).join("; ");
}

/**
 * Prints one structure with its features and typed fields.
 *
 * @example
 * ```ts
 * import { printStructure } from "./print.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(
 *   printStructure({ name: "video/x-raw", features: "ANY", fields: [] }),
 *   "video/x-raw(ANY)",
 * );
 * ```
 */
export function printStructure(s: CapsStructure): string {
  let out = s.name + printFeatures(s.features);
  for (const f of s.fields) out += `, ${f.name}=${printValue(f.value)}`;
  return out;
}

/**
 * Prints features as they follow a media type: `(ANY)`, `(memory:NVMM)`, or
 * nothing for system memory.
 *
 * @example
 * ```ts
 * import { printFeatures } from "./print.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(printFeatures(["memory:DMABuf", "meta:Foo"]), "(memory:DMABuf, meta:Foo)");
 * strictEqual(printFeatures([]), "");
 * ```
 */
export function printFeatures(features: CapsFeatures): string {
  if (features === "ANY") return "(ANY)";
  return features.length === 0 ? "" : `(${features.join(", ")})`;
}

/**
 * Prints a value with its type, e.g. `(int)[ 1, 32767 ]`, `(string){ NV12, I420 }`.
 *
 * @example
 * ```ts
 * import { printValue } from "./print.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(printValue({ kind: "fraction", value: { num: 30, den: 1 } }), "(fraction)30/1");
 * ```
 */
export function printValue(v: CapsValue): string {
  switch (v.kind) {
    case "list":
    case "array": {
      const [open, close] = v.kind === "list" ? ["{", "}"] : ["<", ">"];
      if (v.items.length === 0) return `${open} ${close}`;
      const common = commonType(v.items);
      if (common) {
        return `(${common})${open} ${v.items.map(printBare).join(", ")} ${close}`;
      }
      return `${open} ${v.items.map(printValue).join(", ")} ${close}`;
    }
    default:
      return `(${typeName(v)})${printBare(v)}`;
  }
}

/**
 * Prints a value without its type prefix, as gst-inspect shows top-level fields.
 *
 * @example
 * ```ts
 * import { printBare } from "./print.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(printBare({ kind: "int-range", type: "int", min: 1, max: 8, step: 1 }), "[ 1, 8 ]");
 * ```
 */
export function printBare(v: CapsValue): string {
  switch (v.kind) {
    case "int":
      return String(v.value);
    case "double":
      return printDouble(v.value);
    case "string":
      return quoteString(v.value);
    case "boolean":
      return v.value ? "true" : "false";
    case "fraction":
      return printFraction(v.value);
    case "int-range":
      return v.step === 1 ? `[ ${v.min}, ${v.max} ]` : `[ ${v.min}, ${v.max}, ${v.step} ]`;
    case "double-range":
      return `[ ${printDouble(v.min)}, ${printDouble(v.max)} ]`;
    case "fraction-range":
      return `[ ${printFraction(v.min)}, ${printFraction(v.max)} ]`;
    case "list":
    case "array":
      return printValue(v);
    case "bitmask":
      return `0x${v.value.toString(16).padStart(16, "0")}`;
    case "flagset":
      return `${v.flags.toString(16)}:${v.mask.toString(16)}${v.names}`;
    case "other":
      return quoteString(v.text);
  }
}

/**
 * Quotes a string when it has characters an unquoted token cannot hold.
 *
 * @example
 * ```ts
 * import { quoteString } from "./print.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(quoteString("NV12"), "NV12");
 * strictEqual(quoteString('a "b"'), '"a \\"b\\""');
 * ```
 */
export function quoteString(s: string): string {
  if (s.length > 0 && [...s].every(isStringChar)) return s;
  return `"${s.replace(/[\\"]/g, (c) => `\\${c}`)}"`;
}

const INT_NAMES: Record<IntType, string> = {
  int: "int",
  uint: "uint",
  int64: "gint64",
  uint64: "guint64",
};

function typeName(v: CapsValue): string {
  switch (v.kind) {
    case "int":
    case "int-range":
      return INT_NAMES[v.type];
    case "double":
      return v.type;
    case "double-range":
      return "double";
    case "fraction":
    case "fraction-range":
      return "fraction";
    case "string":
      return "string";
    case "boolean":
      return "boolean";
    case "bitmask":
      return "bitmask";
    case "flagset":
    case "other":
      return v.type;
    case "list":
    case "array":
      throw new TypeError("lists and arrays have no single type name");
  }
}

// One type prefix for a whole list when every item is a fixed value of that type.
function commonType(items: readonly CapsValue[]): string | undefined {
  let common: string | undefined;
  for (const item of items) {
    if (item.kind === "list" || item.kind === "array") return undefined;
    if (item.kind.endsWith("range")) return undefined;
    const t = typeName(item);
    if (common === undefined) common = t;
    else if (common !== t) return undefined;
  }
  return common;
}

function printFraction(f: Fraction): string {
  return `${f.num}/${f.den}`;
}

function printDouble(n: number): string {
  if (!Number.isFinite(n)) throw new RangeError(`cannot print non-finite double ${n}`);
  return String(n);
}
