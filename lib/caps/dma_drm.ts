/**
 * GStreamer's DMA_DRM convention for dma-buf caps: inside `memory:DMABuf`,
 * `format=DMA_DRM` and `drm-format=FOURCC:MODIFIER`, where the pair is one
 * format, the modifier is `0x` + 16 hex digits, and a LINEAR modifier is never
 * written (`drm-format=NV12`, not `NV12:0x0000000000000000`).
 *
 * @module
 */

import { findFormat } from "../formats/table.ts";
import { fourccCode } from "../formats/fourcc.ts";
import { describeModifier, formatModifier, MOD_INVALID, MOD_LINEAR } from "../formats/modifier.ts";
import { drmToGst } from "../formats/gst.ts";
import type { Caps, CapsStructure, CapsValue } from "./types.ts";
import { fieldValue } from "./types.ts";

/** The memory feature of dma-buf caps. */
export const DMABUF_FEATURE = "memory:DMABuf";

/** A parsed `drm-format` entry. */
export interface DrmFormat {
  /** The four-character code as written, trailing spaces removed (`NV12`, `R8`). */
  readonly fourcc: string;
  /** Its 32-bit value. */
  readonly code: number;
  /** The modifier; LINEAR when none is written. */
  readonly modifier: bigint;
}

/**
 * Parses a `drm-format` value such as `NV12:0x0100000000000001` or `NV12`.
 * Throws a RangeError naming the rule broken: a written LINEAR modifier, a
 * doubled `0x`, a modifier that is not 16 hex digits, or an INVALID modifier.
 *
 * @example
 * ```ts
 * import { parseDrmFormat } from "./dma_drm.ts";
 * import { strictEqual, throws } from "node:assert/strict";
 * strictEqual(parseDrmFormat("NV12:0x0100000000000001").modifier, 0x0100000000000001n);
 * strictEqual(parseDrmFormat("NV12").modifier, 0n);
 * throws(() => parseDrmFormat("NV12:0x0000000000000000"), /write drm-format=NV12/);
 * ```
 */
export function parseDrmFormat(text: string): DrmFormat {
  if (typeof text !== "string") {
    throw new TypeError(`drm-format must be a string, got ${typeof text}`);
  }
  const colon = text.indexOf(":");
  const fourcc = (colon < 0 ? text : text.slice(0, colon)).trimEnd();
  if (!/^[\x21-\x7e][\x20-\x7e]{0,3}$/.test(fourcc)) {
    throw new RangeError(
      `drm-format "${text}": "${fourcc}" is not a DRM fourcc (1-4 printable characters such as NV12)`,
    );
  }
  const code = fourccCode(fourcc);
  if (colon < 0) return Object.freeze({ fourcc, code, modifier: MOD_LINEAR });
  const mod = text.slice(colon + 1);
  if (/^0[xX]0[xX]/.test(mod)) {
    throw new RangeError(`drm-format "${text}": the modifier has a doubled "0x" prefix`);
  }
  if (!/^0[xX][0-9a-fA-F]{16}$/.test(mod)) {
    throw new RangeError(
      `drm-format "${text}": modifier "${mod}" must be 0x followed by 16 hex digits`,
    );
  }
  const modifier = BigInt(mod);
  if (modifier === MOD_LINEAR) {
    throw new RangeError(
      `drm-format "${text}": a LINEAR modifier is never written; write drm-format=${fourcc}`,
    );
  }
  if (modifier === MOD_INVALID) {
    throw new RangeError(
      `drm-format "${text}": DRM_FORMAT_MOD_INVALID (implicit layout) cannot be negotiated; ` +
        "the producer must report its explicit modifier",
    );
  }
  return Object.freeze({ fourcc, code, modifier });
}

/**
 * Prints a `drm-format` value, leaving out a LINEAR modifier.
 *
 * @example
 * ```ts
 * import { printDrmFormat } from "./dma_drm.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(printDrmFormat("NV12", 0n), "NV12");
 * strictEqual(printDrmFormat("AR24", 0x0100000000000002n), "AR24:0x0100000000000002");
 * ```
 */
export function printDrmFormat(fourcc: string, modifier: bigint): string {
  fourccCode(fourcc);
  if (modifier === MOD_LINEAR) return fourcc.trimEnd();
  return `${fourcc.trimEnd()}:${formatModifier(modifier)}`;
}

/**
 * Explains a `drm-format` entry in words: the format (with its GStreamer name)
 * and the layout.
 *
 * @example
 * ```ts
 * import { describeDrmFormat } from "./dma_drm.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(describeDrmFormat("AR24"), "AR24 (DRM ARGB8888, GStreamer BGRA), LINEAR");
 * ```
 */
export function describeDrmFormat(text: string): string {
  const f = parseDrmFormat(text);
  const info = findFormat(f.code);
  const name = info ? ` (DRM ${info.drm}${info.gst ? `, GStreamer ${drmToGst(info)}` : ""})` : "";
  const layout = f.modifier === MOD_LINEAR ? "LINEAR" : describeModifier(f.modifier).text;
  return `${f.fourcc}${name}, ${layout}`;
}

/** A broken DMA_DRM rule in some caps. */
export interface DmaDrmIssue {
  /** Index of the structure in the caps. */
  readonly structure: number;
  /** The field that breaks the rule. */
  readonly field: "format" | "drm-format";
  /** What is wrong, in one sentence. */
  readonly message: string;
}

/**
 * Checks caps against the DMA_DRM rules: `format=DMA_DRM` only with
 * `memory:DMABuf`, `drm-format` only with `format=DMA_DRM`, and every
 * `drm-format` entry well formed.
 *
 * @example
 * ```ts
 * import { checkDmaDrm } from "./dma_drm.ts";
 * import { parseCaps } from "./parse.ts";
 * import { strictEqual } from "node:assert/strict";
 * const issues = checkDmaDrm(parseCaps("video/x-raw, format=DMA_DRM, drm-format=NV12"));
 * strictEqual(issues[0]?.message.includes("memory:DMABuf"), true);
 * ```
 */
export function checkDmaDrm(caps: Caps): DmaDrmIssue[] {
  if (caps.any) return [];
  const issues: DmaDrmIssue[] = [];
  caps.structures.forEach((s, structure) => {
    const format = fieldValue(s, "format");
    const drm = fieldValue(s, "drm-format");
    const isDmaDrm = format !== undefined && stringsOf(format).includes("DMA_DRM");
    const dmabuf = s.features !== "ANY" && s.features.includes(DMABUF_FEATURE);
    if (isDmaDrm && !dmabuf && s.features !== "ANY") {
      issues.push({
        structure,
        field: "format",
        message: `format=DMA_DRM in "${s.name}" without memory:DMABuf: DMA_DRM formats ` +
          "only appear inside memory:DMABuf caps",
      });
    }
    if (drm !== undefined && !isDmaDrm && format !== undefined) {
      issues.push({
        structure,
        field: "drm-format",
        message: `drm-format is set but format is not DMA_DRM: dma-buf caps with a drm-format ` +
          "must say format=DMA_DRM",
      });
    }
    if (drm === undefined) return;
    const entries = drm.kind === "list" ? drm.items : [drm];
    for (const entry of entries) {
      if (entry.kind !== "string") {
        issues.push({
          structure,
          field: "drm-format",
          message: "drm-format entries must be strings",
        });
        continue;
      }
      try {
        parseDrmFormat(entry.value);
      } catch (e) {
        issues.push({ structure, field: "drm-format", message: (e as Error).message });
      }
    }
  });
  return issues;
}

/** The string values of a field (a string or a list of strings). */
export function stringsOf(v: CapsValue): string[] {
  if (v.kind === "string") return [v.value];
  if (v.kind === "list") return v.items.flatMap(stringsOf);
  return [];
}

/**
 * The `drm-format` entries a structure offers, parsed; invalid entries are skipped.
 *
 * @example
 * ```ts
 * import { drmFormatsOf } from "./dma_drm.ts";
 * import { parseStructure } from "./parse.ts";
 * import { strictEqual } from "node:assert/strict";
 * const s = parseStructure("video/x-raw(memory:DMABuf), format=DMA_DRM, drm-format={ NV12, AR24 }");
 * strictEqual(drmFormatsOf(s).length, 2);
 * ```
 */
export function drmFormatsOf(s: CapsStructure): DrmFormat[] {
  const v = fieldValue(s, "drm-format");
  if (!v) return [];
  const out: DrmFormat[] = [];
  for (const text of stringsOf(v)) {
    try {
      out.push(parseDrmFormat(text));
    } catch {
      // Reported by checkDmaDrm().
    }
  }
  return out;
}
