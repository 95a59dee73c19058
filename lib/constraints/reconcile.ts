/**
 * Reconciles the constraints of every accessor of a buffer into one
 * allocation, the way NvSciBuf reconciles attribute lists: alignments merge to
 * the largest (all powers of two), CPU and device access merge to the union,
 * heap lists intersect, contiguity narrows the heaps, image formats and
 * modifiers must be common to all, and stride/height alignment merge to the
 * largest before the size is computed. Anything that cannot merge becomes a
 * conflict naming the accessors and what each asked for.
 *
 * @module
 */

import { findFormat, formatInfo } from "../formats/table.ts";
import { alignUp, type FrameLayout, planeLayout } from "../formats/layout.ts";
import { canonicalModifier, describeModifier, MOD_LINEAR } from "../formats/modifier.ts";
import { DEFAULT_HEAPS } from "./heaps.ts";
import { chooseHeap, type Findings } from "./heap_choice.ts";
import type {
  Access,
  AccessorConstraints,
  Allocation,
  BufferRequest,
  Conflict,
  Conflicts,
  HeapInfo,
} from "./types.ts";

/** Where the allocation happens. */
export interface ReconcileOptions {
  /** Heaps present (entries of /dev/dma_heap); unset = every heap in the table. */
  availableHeaps?: readonly string[];
  /** Heap table (default {@linkcode DEFAULT_HEAPS}); add vendor heaps here. */
  heaps?: readonly HeapInfo[];
  /** Page size in bytes (default 4096). */
  pageSize?: number;
}

/**
 * Reconciles accessors' constraints for one buffer.
 *
 * @example Camera and NPU share an NV12 frame
 * ```ts
 * import { reconcile } from "./reconcile.ts";
 * import { strictEqual } from "node:assert/strict";
 * const result = reconcile(
 *   [
 *     { name: "camera-isp", contiguity: "physical", deviceAccess: "write", heightAlign: 16 },
 *     { name: "metis", contiguity: "dma", iommu: true, deviceAccess: "read", alignment: 4096 },
 *   ],
 *   { kind: "image", format: "NV12", width: 1920, height: 1080 },
 * );
 * strictEqual(result.ok && result.heap, "linux,cma");
 * strictEqual(result.ok && result.size, 3133440);
 * ```
 */
export function reconcile(
  accessors: readonly AccessorConstraints[],
  request: BufferRequest,
  options: ReconcileOptions = {},
): Allocation | Conflicts {
  const heapTable = options.heaps ?? DEFAULT_HEAPS;
  const pageSize = powerOfTwo("pageSize", options.pageSize ?? 4096);
  validate(accessors, request, heapTable, options.availableHeaps);
  const out: Findings = { conflicts: [], reasons: [] };
  const { layout, modifier, size } = request.kind === "image"
    ? imageLayout(accessors, request, out)
    : { layout: undefined, modifier: undefined, size: request.size };
  const allocSize = size > 0 ? alignUp(size, pageSize) : 0;
  const alignment = maxOf(accessors, "alignment");
  if (alignment.value > 1) {
    out.reasons.push(`alignment ${alignment.value} bytes${by(alignment.from)}`);
  }
  const cpuAccess = unionAccess(accessors.map((a) => a.cpuAccess ?? "none"));
  const deviceAccess = unionAccess(accessors.map((a) => a.deviceAccess ?? "readwrite"));
  const heap = chooseHeap({
    accessors,
    heapTable,
    availableHeaps: options.availableHeaps,
    pageSize,
    alignment,
    allocSize,
    cpuAccess,
  }, out);
  checkMaxSize(accessors, allocSize, out.conflicts);
  if (out.conflicts.length > 0 || heap === undefined) {
    return Object.freeze({ ok: false, conflicts: Object.freeze(out.conflicts) });
  }
  return Object.freeze({
    ok: true,
    heap: heap.name,
    alignment: alignment.value,
    size,
    allocSize,
    contiguous: heap.contiguous,
    cpuAccess,
    deviceAccess,
    layout,
    modifier,
    accessors: Object.freeze(accessors.map((a) => a.name)),
    reasons: Object.freeze(out.reasons),
  });
}

/** An image's format, modifier and plane layout, agreed by every accessor. */
function imageLayout(
  accessors: readonly AccessorConstraints[],
  request: Extract<BufferRequest, { kind: "image" }>,
  out: Findings,
): { layout: FrameLayout | undefined; modifier: bigint | undefined; size: number } {
  const strideAlign = maxOf(accessors, "strideAlign");
  const heightAlign = maxOf(accessors, "heightAlign");
  const want = formatInfo(request.format);
  const refusing = accessors.filter((a) =>
    a.formats !== undefined && !a.formats.some((f) => findFormat(f) === want)
  );
  if (refusing.length > 0) {
    out.conflicts.push({
      attribute: "format",
      accessors: refusing.map((a) => ({ name: a.name, value: a.formats!.join(", ") })),
      message: `${want.drm} is not handled by ${
        refusing.map((a) => `${a.name} (takes ${a.formats!.join(", ")})`).join(", ")
      }`,
    });
  }
  const modifier = chooseModifier(accessors, request.modifier, out.conflicts);
  let layout: FrameLayout | undefined;
  if (modifier !== undefined && refusing.length === 0) {
    try {
      layout = planeLayout(want, request.width, request.height, {
        strideAlign: strideAlign.value,
        heightAlign: heightAlign.value,
        modifier,
      });
    } catch (e) {
      out.conflicts.push({ attribute: "modifier", accessors: [], message: (e as Error).message });
    }
  }
  if (layout) {
    out.reasons.push(
      `layout ${want.drm} ${request.width}x${request.height}: stride x${strideAlign.value}` +
        `${by(strideAlign.from)}, height padded to ${layout.paddedHeight} rows` +
        `${by(heightAlign.from)}, ${layout.size} bytes`,
    );
  }
  if (modifier !== undefined) out.reasons.push(`modifier ${modifierName(modifier)}`);
  return { layout, modifier, size: layout?.size ?? 0 };
}

/** A conflict when the buffer is larger than some accessor takes. */
function checkMaxSize(
  accessors: readonly AccessorConstraints[],
  allocSize: number,
  conflicts: Conflict[],
): void {
  if (allocSize <= 0) return;
  const tooSmall = accessors.filter((a) => a.maxSize !== undefined && a.maxSize < allocSize);
  if (tooSmall.length === 0) return;
  conflicts.push({
    attribute: "size",
    accessors: tooSmall.map((a) => ({ name: a.name, value: `at most ${a.maxSize} bytes` })),
    message: `the buffer needs ${allocSize} bytes; ${
      tooSmall.map((a) => `${a.name} takes at most ${a.maxSize}`).join(", ")
    }`,
  });
}

function chooseModifier(
  accessors: readonly AccessorConstraints[],
  wanted: bigint | undefined,
  conflicts: Conflict[],
): bigint | undefined {
  const sets = accessors.map((a) => ({
    name: a.name,
    mods: a.modifiers ?? [MOD_LINEAR],
  }));
  const takes = (mods: readonly bigint[], m: bigint) =>
    mods.some((x) => canonicalModifier(x) === canonicalModifier(m));
  if (wanted !== undefined) {
    const refusing = sets.filter((s) => !takes(s.mods, wanted));
    if (refusing.length === 0) return wanted;
    conflicts.push({
      attribute: "modifier",
      accessors: refusing.map((s) => ({
        name: s.name,
        value: s.mods.map(modifierName).join(", "),
      })),
      message: `modifier ${modifierName(wanted)} is not taken by ${
        refusing.map((s) => `${s.name} (takes ${s.mods.map(modifierName).join(", ")})`).join(", ")
      }`,
    });
    return undefined;
  }
  const first = sets.find((s) => accessors.find((a) => a.name === s.name)!.modifiers) ?? sets[0]!;
  const common = first.mods.filter((m) => sets.every((s) => takes(s.mods, m)));
  if (common.length > 0) return common[0];
  conflicts.push({
    attribute: "modifier",
    accessors: sets.map((s) => ({ name: s.name, value: s.mods.map(modifierName).join(", ") })),
    message: `no layout modifier is common to all: ${
      sets.map((s) => `${s.name} takes ${s.mods.map(modifierName).join(", ")}`).join("; ")
    }`,
  });
  return undefined;
}

function modifierName(m: bigint): string {
  const d = describeModifier(m);
  return d.name ?? d.hex;
}

function by(from: readonly string[]): string {
  return from.length > 0 ? ` (${from.join(", ")})` : "";
}

type NumericKey = "alignment" | "strideAlign" | "heightAlign";

function maxOf(
  accessors: readonly AccessorConstraints[],
  key: NumericKey,
): { value: number; from: string[] } {
  let value = 1;
  let from: string[] = [];
  for (const a of accessors) {
    const v = a[key];
    if (v === undefined || v < value) continue;
    if (v > value) {
      value = v;
      from = [a.name];
    } else if (v > 1) from.push(a.name);
  }
  return { value, from };
}

const ACCESS_BITS: Record<Access, number> = { none: 0, read: 1, write: 2, readwrite: 3 };
const ACCESS_NAMES: Access[] = ["none", "read", "write", "readwrite"];

function unionAccess(list: Access[]): Access {
  return ACCESS_NAMES[list.reduce((bits, a) => bits | ACCESS_BITS[a], 0)]!;
}

function powerOfTwo(name: string, v: number): number {
  if (!Number.isSafeInteger(v) || v <= 0 || (v & (v - 1)) !== 0) {
    throw new RangeError(`${name} must be a power of two, got ${v}`);
  }
  return v;
}

function validate(
  accessors: readonly AccessorConstraints[],
  request: BufferRequest,
  heaps: readonly HeapInfo[],
  available: readonly string[] | undefined,
): void {
  if (!Array.isArray(accessors) || accessors.length === 0) {
    throw new TypeError("reconcile() needs at least one accessor");
  }
  const names = new Set<string>();
  for (const a of accessors) {
    if (typeof a !== "object" || a === null || typeof a.name !== "string" || a.name === "") {
      throw new TypeError("every accessor needs a non-empty name");
    }
    if (names.has(a.name)) throw new RangeError(`accessor "${a.name}" is listed twice`);
    names.add(a.name);
    for (const key of ["alignment", "strideAlign", "heightAlign"] as const) {
      if (a[key] !== undefined) powerOfTwo(`${a.name}: ${key}`, a[key]);
    }
    if (a.contiguity !== undefined && !["none", "physical", "dma"].includes(a.contiguity)) {
      throw new RangeError(
        `${a.name}: contiguity must be none, physical or dma, got ${a.contiguity}`,
      );
    }
    for (const key of ["cpuAccess", "deviceAccess"] as const) {
      if (a[key] !== undefined && !(a[key] in ACCESS_BITS)) {
        throw new RangeError(
          `${a.name}: ${key} must be none, read, write or readwrite, got ${a[key]}`,
        );
      }
    }
    if (a.maxSize !== undefined && (!Number.isSafeInteger(a.maxSize) || a.maxSize <= 0)) {
      throw new RangeError(`${a.name}: maxSize must be a positive integer, got ${a.maxSize}`);
    }
    for (const h of a.heaps ?? []) {
      if (!heaps.some((x) => x.name === h)) {
        throw new RangeError(
          `${a.name}: unknown heap "${h}" (known: ${heaps.map((x) => x.name).join(", ")}); ` +
            "describe it in options.heaps",
        );
      }
    }
    for (const f of a.formats ?? []) formatInfo(f);
    for (const m of a.modifiers ?? []) {
      if (typeof m !== "bigint") throw new TypeError(`${a.name}: modifiers must be bigints`);
    }
  }
  if (available !== undefined && !Array.isArray(available)) {
    throw new TypeError("availableHeaps must be an array of heap names");
  }
  if (typeof request !== "object" || request === null) {
    throw new TypeError("reconcile() needs a buffer request");
  }
  if (request.kind === "raw") {
    if (!Number.isSafeInteger(request.size) || request.size <= 0) {
      throw new RangeError(`raw buffer size must be a positive integer, got ${request.size}`);
    }
  } else if (request.kind === "image") {
    formatInfo(request.format);
    for (const key of ["width", "height"] as const) {
      if (!Number.isSafeInteger(request[key]) || request[key] <= 0) {
        throw new RangeError(`image ${key} must be a positive integer, got ${request[key]}`);
      }
    }
  } else {
    throw new TypeError(`buffer request kind must be "raw" or "image"`);
  }
}

/**
 * Conflicts as text, one line per attribute.
 *
 * @example
 * ```ts
 * import { describeConflicts, reconcile } from "./reconcile.ts";
 * import { ok } from "node:assert/strict";
 * const r = reconcile(
 *   [{ name: "isp", heaps: ["linux,cma"] }, { name: "log", heaps: ["system"] }],
 *   { kind: "raw", size: 4096 },
 * );
 * ok(!r.ok && describeConflicts(r).startsWith("heap: no heap is acceptable"));
 * ```
 */
export function describeConflicts(c: Conflicts): string {
  return c.conflicts.map((x) => `${x.attribute}: ${x.message}`).join("\n");
}

/** Thrown by {@linkcode reconcileOrThrow}. */
export class ReconcileError extends Error {
  /** Exit status 1 (`failed`): the buffer's users cannot agree. */
  readonly exitKind = "failed";
  /** Each attribute the accessors disagree on. */
  readonly conflicts: readonly Conflict[];
  /** The message lists every conflict, one line each. */
  constructor(conflicts: Conflicts) {
    super(`buffer constraints conflict:\n${describeConflicts(conflicts)}`);
    this.name = "ReconcileError";
    this.conflicts = conflicts.conflicts;
  }
}

/**
 * Like {@linkcode reconcile}, but throws {@linkcode ReconcileError} on conflicts.
 *
 * @example
 * ```ts
 * import { reconcileOrThrow } from "./reconcile.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(reconcileOrThrow([{ name: "cpu", cpuAccess: "readwrite" }], { kind: "raw", size: 100 }).allocSize, 4096);
 * ```
 */
export function reconcileOrThrow(
  accessors: readonly AccessorConstraints[],
  request: BufferRequest,
  options: ReconcileOptions = {},
): Allocation {
  const r = reconcile(accessors, request, options);
  if (!r.ok) throw new ReconcileError(r);
  return r;
}
