/**
 * Mapping between DRM formats and V4L2 pixel formats, both ways.
 *
 * @module
 */

import { fourccCode } from "./fourcc.ts";
import { type FormatInfo, formatInfo, FORMATS, type V4l2Format } from "./table.ts";

const byV4l2 = new Map<string, { format: FormatInfo; v4l2: V4l2Format }>();
const byV4l2Code = new Map<number, { format: FormatInfo; v4l2: V4l2Format }>();
for (const format of FORMATS) {
  for (const v4l2 of format.v4l2) {
    byV4l2.set(v4l2.name, { format, v4l2 });
    byV4l2Code.set(fourccCode(v4l2.fourcc), { format, v4l2 });
  }
}

/**
 * The V4L2 format for a DRM format: the single-buffer variant by default, the
 * `*M` (one buffer per plane) variant with `separatePlanes: true`. Undefined when
 * V4L2 has no such format.
 *
 * @example
 * ```ts
 * import { drmToV4l2 } from "./v4l2.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(drmToV4l2("BGR888")?.name, "RGB24");
 * strictEqual(drmToV4l2("NV12", { separatePlanes: true })?.fourcc, "NM12");
 * ```
 */
export function drmToV4l2(
  format: string | number | FormatInfo,
  options: { separatePlanes?: boolean } = {},
): V4l2Format | undefined {
  const info = formatInfo(format);
  const wanted = options.separatePlanes ?? false;
  return info.v4l2.find((v) => v.separatePlanes === wanted);
}

/**
 * The DRM format for a V4L2 format given as its macro suffix (`RGB24`,
 * `V4L2_PIX_FMT_NV12M`), its fourcc (`RGB3`) or its fourcc value.
 *
 * @example
 * ```ts
 * import { v4l2ToDrm } from "./v4l2.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(v4l2ToDrm("RGB24")?.drm, "BGR888");
 * strictEqual(v4l2ToDrm("GREY")?.drm, "R8");
 * strictEqual(v4l2ToDrm("V4L2_PIX_FMT_NV12M")?.drm, "NV12");
 * ```
 */
export function v4l2ToDrm(v4l2: string | number): FormatInfo | undefined {
  return lookupV4l2(v4l2)?.format;
}

/**
 * Full V4L2 entry (name, fourcc, plane mode) for a V4L2 name, fourcc or value.
 *
 * @example
 * ```ts
 * import { lookupV4l2 } from "./v4l2.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(lookupV4l2("NM12")?.v4l2.separatePlanes, true);
 * ```
 */
export function lookupV4l2(
  v4l2: string | number,
): { format: FormatInfo; v4l2: V4l2Format } | undefined {
  if (typeof v4l2 === "number") return byV4l2Code.get(v4l2);
  if (typeof v4l2 !== "string") {
    throw new TypeError(`V4L2 format must be a name, fourcc or code, got ${typeof v4l2}`);
  }
  const name = v4l2.startsWith("V4L2_PIX_FMT_") ? v4l2.slice("V4L2_PIX_FMT_".length) : v4l2;
  const hit = byV4l2.get(name);
  if (hit) return hit;
  if (name.length >= 1 && name.length <= 4) {
    try {
      return byV4l2Code.get(fourccCode(name));
    } catch {
      return undefined;
    }
  }
  return undefined;
}
