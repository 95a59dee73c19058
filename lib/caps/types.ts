/**
 * The data model of GStreamer caps: a list of structures, each a media type
 * with caps features (`memory:NVMM`, `memory:DMABuf`, …) and typed fields whose
 * values may be fixed, ranges, lists or arrays.
 *
 * All values are plain frozen data so they can be compared, printed and
 * serialised to JSON (bigints excepted: see {@linkcode capsToJson}).
 *
 * @module
 */

/** A GStreamer fraction such as a frame rate, `30/1`. */
export interface Fraction {
  /** Numerator. */
  readonly num: number;
  /** Denominator. */
  readonly den: number;
}

/** Integer GTypes a caps field can hold. */
export type IntType = "int" | "uint" | "int64" | "uint64";

/** One field value. `kind` says which GStreamer value type it is. */
export type CapsValue =
  | { readonly kind: "int"; readonly type: IntType; readonly value: number }
  | { readonly kind: "double"; readonly type: "double" | "float"; readonly value: number }
  | { readonly kind: "string"; readonly value: string }
  | { readonly kind: "boolean"; readonly value: boolean }
  | { readonly kind: "fraction"; readonly value: Fraction }
  | {
    readonly kind: "int-range";
    readonly type: IntType;
    readonly min: number;
    readonly max: number;
    readonly step: number;
  }
  | { readonly kind: "double-range"; readonly min: number; readonly max: number }
  | { readonly kind: "fraction-range"; readonly min: Fraction; readonly max: Fraction }
  | { readonly kind: "list"; readonly items: readonly CapsValue[] }
  | { readonly kind: "array"; readonly items: readonly CapsValue[] }
  | { readonly kind: "bitmask"; readonly value: bigint }
  | {
    readonly kind: "flagset";
    /** `flagset` or a subtype name such as `GstVideoMultiviewFlagsSet`. */
    readonly type: string;
    readonly flags: number;
    readonly mask: number;
    /** The optional `/name/name` suffix, kept for printing. */
    readonly names: string;
  }
  | {
    /** Any other GType (enums, dates, …): compared by type name and text. */
    readonly kind: "other";
    readonly type: string;
    readonly text: string;
  };

/**
 * Caps features of one structure: `"ANY"`, or a list of feature names.
 * System memory is the empty list (GStreamer does not print it).
 */
export type CapsFeatures = "ANY" | readonly string[];

/** One field: name and value, in declaration order. */
export interface CapsField {
  /** Field name, e.g. `format`. */
  readonly name: string;
  /** Its value, with its type. */
  readonly value: CapsValue;
}

/** One caps structure: `video/x-raw(memory:NVMM), format=(string)NV12, …`. */
export interface CapsStructure {
  /** Media type, e.g. `video/x-raw`. */
  readonly name: string;
  /** Caps features in parentheses after the media type (memory and meta). */
  readonly features: CapsFeatures;
  /** The fields, in the order written. */
  readonly fields: readonly CapsField[];
}

/** Caps: `ANY`, or a list of structures (empty list = `EMPTY`). */
export type Caps =
  | { readonly any: true }
  | { readonly any: false; readonly structures: readonly CapsStructure[] };

/** The feature GStreamer uses for plain CPU memory. */
export const SYSTEM_MEMORY = "memory:SystemMemory";

/** `ANY` caps. */
export const ANY_CAPS: Caps = Object.freeze({ any: true });
/** `EMPTY` caps. */
export const EMPTY_CAPS: Caps = Object.freeze({ any: false, structures: Object.freeze([]) });

/**
 * True when caps can match nothing (`EMPTY`).
 *
 * @example
 * ```ts
 * import { EMPTY_CAPS, isEmptyCaps } from "./types.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(isEmptyCaps(EMPTY_CAPS), true);
 * ```
 */
export function isEmptyCaps(caps: Caps): boolean {
  return !caps.any && caps.structures.length === 0;
}

/**
 * Looks up a field's value in a structure.
 *
 * @example
 * ```ts
 * import { parseCaps } from "./parse.ts";
 * import { fieldValue } from "./types.ts";
 * import { strictEqual } from "node:assert/strict";
 * const caps = parseCaps("video/x-raw, width=640");
 * strictEqual(caps.any ? undefined : fieldValue(caps.structures[0]!, "width")?.kind, "int");
 * ```
 */
export function fieldValue(structure: CapsStructure, name: string): CapsValue | undefined {
  return structure.fields.find((f) => f.name === name)?.value;
}

/**
 * The memory a structure's features select: the `memory:*` feature, system
 * memory when there is none, or `ANY`.
 *
 * @example
 * ```ts
 * import { memoryOf } from "./types.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(memoryOf(["memory:NVMM"]), "memory:NVMM");
 * strictEqual(memoryOf([]), "memory:SystemMemory");
 * strictEqual(memoryOf(["meta:GstVideoOverlayComposition"]), "memory:SystemMemory");
 * ```
 */
export function memoryOf(features: CapsFeatures): string {
  if (features === "ANY") return "ANY";
  return features.find((f) => f.startsWith("memory:")) ?? SYSTEM_MEMORY;
}
