/**
 * Caps intersection with GStreamer's semantics: structures intersect when their
 * media types match, their caps features are equal as sets (`ANY` matches any
 * features, system memory is the empty set) and every field they share has a
 * common value; fields present on one side only are kept.
 *
 * @module
 */

import { compareFractions } from "./parse.ts";
import { printValue } from "./print.ts";
import {
  type Caps,
  type CapsFeatures,
  type CapsField,
  type CapsStructure,
  type CapsValue,
  EMPTY_CAPS,
  type Fraction,
} from "./types.ts";

/**
 * Intersects two values; undefined when they have nothing in common.
 *
 * @example
 * ```ts
 * import { intersectValue } from "./intersect.ts";
 * import { parseValue } from "./parse.ts";
 * import { deepStrictEqual } from "node:assert/strict";
 * deepStrictEqual(
 *   intersectValue(parseValue("[ 1, 32767 ]"), parseValue("{ 640, 40000 }")),
 *   parseValue("640"),
 * );
 * ```
 */
export function intersectValue(a: CapsValue, b: CapsValue): CapsValue | undefined {
  if (a.kind === "list") return fromItems(a.items.map((x) => intersectValue(x, b)));
  if (b.kind === "list") return fromItems(b.items.map((x) => intersectValue(a, x)));
  switch (a.kind) {
    case "int":
      if (b.kind === "int") return a.type === b.type && a.value === b.value ? a : undefined;
      if (b.kind === "int-range") return intInRange(a, b) ? a : undefined;
      return undefined;
    case "int-range":
      if (b.kind === "int") return intInRange(b, a) ? b : undefined;
      if (b.kind === "int-range") return intersectIntRanges(a, b);
      return undefined;
    case "double":
      if (b.kind === "double") return a.type === b.type && a.value === b.value ? a : undefined;
      if (b.kind === "double-range") return a.value >= b.min && a.value <= b.max ? a : undefined;
      return undefined;
    case "double-range":
      if (b.kind === "double") return b.value >= a.min && b.value <= a.max ? b : undefined;
      if (b.kind === "double-range") {
        const min = Math.max(a.min, b.min);
        const max = Math.min(a.max, b.max);
        if (min > max) return undefined;
        if (min === max) return Object.freeze({ kind: "double", type: "double", value: min });
        return Object.freeze({ kind: "double-range", min, max });
      }
      return undefined;
    case "fraction":
      if (b.kind === "fraction") return compareFractions(a.value, b.value) === 0 ? a : undefined;
      if (b.kind === "fraction-range") return fractionInRange(a.value, b) ? a : undefined;
      return undefined;
    case "fraction-range":
      if (b.kind === "fraction") return fractionInRange(b.value, a) ? b : undefined;
      if (b.kind === "fraction-range") {
        const min = compareFractions(a.min, b.min) >= 0 ? a.min : b.min;
        const max = compareFractions(a.max, b.max) <= 0 ? a.max : b.max;
        const c = compareFractions(min, max);
        if (c > 0) return undefined;
        if (c === 0) return Object.freeze({ kind: "fraction", value: min });
        return Object.freeze({ kind: "fraction-range", min, max });
      }
      return undefined;
    case "array": {
      if (b.kind !== "array" || a.items.length !== b.items.length) return undefined;
      const items: CapsValue[] = [];
      for (let i = 0; i < a.items.length; i++) {
        const r = intersectValue(a.items[i]!, b.items[i]!);
        if (!r) return undefined;
        items.push(r);
      }
      return Object.freeze({ kind: "array", items: Object.freeze(items) });
    }
    case "string":
      return b.kind === "string" && a.value === b.value ? a : undefined;
    case "boolean":
      return b.kind === "boolean" && a.value === b.value ? a : undefined;
    case "bitmask":
      return b.kind === "bitmask" && a.value === b.value ? a : undefined;
    case "flagset": {
      if (b.kind !== "flagset") return undefined;
      if (a.type !== b.type && a.type !== "flagset" && b.type !== "flagset") return undefined;
      // Bits both sides care about must agree; the result cares about either side's bits.
      if (((a.flags ^ b.flags) & a.mask & b.mask) !== 0) return undefined;
      if (a.flags === b.flags && a.mask === b.mask) return a.type === "flagset" ? b : a;
      return Object.freeze({
        kind: "flagset",
        type: a.type === "flagset" ? b.type : a.type,
        flags: ((a.flags & a.mask) | (b.flags & b.mask)) >>> 0,
        mask: (a.mask | b.mask) >>> 0,
        names: "",
      });
    }
    case "other":
      return b.kind === "other" && a.type === b.type && a.text === b.text ? a : undefined;
  }
}

function fromItems(results: (CapsValue | undefined)[]): CapsValue | undefined {
  const items: CapsValue[] = [];
  const seen = new Set<string>();
  for (const r of results) {
    if (!r) continue;
    for (const item of r.kind === "list" ? r.items : [r]) {
      const key = printValue(item);
      if (seen.has(key)) continue;
      seen.add(key);
      items.push(item);
    }
  }
  if (items.length === 0) return undefined;
  if (items.length === 1) return items[0];
  return Object.freeze({ kind: "list", items: Object.freeze(items) });
}

type IntRange = Extract<CapsValue, { kind: "int-range" }>;
type Int = Extract<CapsValue, { kind: "int" }>;

function intInRange(v: Int, r: IntRange): boolean {
  return v.type === r.type && v.value >= r.min && v.value <= r.max && v.value % r.step === 0;
}

function intersectIntRanges(a: IntRange, b: IntRange): CapsValue | undefined {
  if (a.type !== b.type) return undefined;
  const step = lcm(a.step, b.step);
  const min = Math.ceil(Math.max(a.min, b.min) / step) * step;
  const max = Math.floor(Math.min(a.max, b.max) / step) * step;
  if (min > max) return undefined;
  if (min === max) return Object.freeze({ kind: "int", type: a.type, value: min });
  return Object.freeze({ kind: "int-range", type: a.type, min, max, step });
}

function fractionInRange(f: Fraction, r: { min: Fraction; max: Fraction }): boolean {
  return compareFractions(f, r.min) >= 0 && compareFractions(f, r.max) <= 0;
}

function lcm(a: number, b: number): number {
  let x = a, y = b;
  while (y) [x, y] = [y, x % y];
  return (a / x) * b;
}

/**
 * Whether two feature sets match for intersection: `ANY` matches anything,
 * otherwise the sets must be equal (order does not matter).
 *
 * @example
 * ```ts
 * import { featuresMatch } from "./intersect.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(featuresMatch(["memory:NVMM"], "ANY"), true);
 * strictEqual(featuresMatch(["memory:NVMM"], []), false);
 * ```
 */
export function featuresMatch(a: CapsFeatures, b: CapsFeatures): boolean {
  if (a === "ANY" || b === "ANY") return true;
  if (a.length !== b.length) return false;
  return a.every((f) => b.includes(f));
}

/**
 * Intersects two structures; undefined when the media type, the features or a
 * shared field disagree.
 *
 * @example
 * ```ts
 * import { intersectStructure } from "./intersect.ts";
 * import { parseStructure } from "./parse.ts";
 * import { printStructure } from "./print.ts";
 * import { strictEqual } from "node:assert/strict";
 * const r = intersectStructure(
 *   parseStructure("video/x-raw(ANY), format={ NV12, I420 }"),
 *   parseStructure("video/x-raw(memory:NVMM), format=NV12, width=1920"),
 * );
 * strictEqual(printStructure(r!), "video/x-raw(memory:NVMM), format=(string)NV12, width=(int)1920");
 * ```
 */
export function intersectStructure(a: CapsStructure, b: CapsStructure): CapsStructure | undefined {
  if (a.name !== b.name || !featuresMatch(a.features, b.features)) return undefined;
  const fields: CapsField[] = [];
  for (const f of a.fields) {
    const other = b.fields.find((g) => g.name === f.name);
    if (!other) {
      fields.push(f);
      continue;
    }
    const value = intersectValue(f.value, other.value);
    if (!value) return undefined;
    fields.push(value === f.value ? f : Object.freeze({ name: f.name, value }));
  }
  for (const g of b.fields) if (!a.fields.some((f) => f.name === g.name)) fields.push(g);
  return Object.freeze({
    name: a.name,
    features: a.features === "ANY" ? b.features : a.features,
    fields: Object.freeze(fields),
  });
}

/**
 * Intersects two caps, keeping the first caps' order of preference.
 *
 * @example
 * ```ts
 * import { intersectCaps } from "./intersect.ts";
 * import { parseCaps } from "./parse.ts";
 * import { printCaps } from "./print.ts";
 * import { strictEqual } from "node:assert/strict";
 * const up = parseCaps("video/x-raw(memory:NVMM), format=NV12");
 * strictEqual(printCaps(intersectCaps(up, parseCaps("video/x-raw, format=NV12"))), "EMPTY");
 * strictEqual(printCaps(intersectCaps(up, parseCaps("ANY"))), printCaps(up));
 * ```
 */
export function intersectCaps(a: Caps, b: Caps): Caps {
  if (a.any) return b;
  if (b.any) return a;
  const out: CapsStructure[] = [];
  const seen = new Set<string>();
  for (const sa of a.structures) {
    for (const sb of b.structures) {
      const r = intersectStructure(sa, sb);
      if (!r) continue;
      const key = JSON.stringify(r, (_k, v) => typeof v === "bigint" ? v.toString() : v);
      if (seen.has(key)) continue;
      seen.add(key);
      out.push(r);
    }
  }
  if (out.length === 0) return EMPTY_CAPS;
  return Object.freeze({ any: false, structures: Object.freeze(out) });
}

/**
 * Whether two caps have anything in common.
 *
 * @example
 * ```ts
 * import { canIntersect } from "./intersect.ts";
 * import { parseCaps } from "./parse.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(canIntersect(parseCaps("video/x-raw"), parseCaps("video/x-raw(ANY)")), true);
 * ```
 */
export function canIntersect(a: Caps, b: Caps): boolean {
  const r = intersectCaps(a, b);
  return r.any || r.structures.length > 0;
}
