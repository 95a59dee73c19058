/**
 * The NVMM handle contract (docs/design.md#the-nvmm-handle-contract): the fields a CUDA consumer
 * needs to read an NvBufSurface frame in place, as one frozen, validated value.
 *
 * Invariants checked on every handle:
 * - the pointer is non-zero, width/height/pitch/size/batch size positive;
 * - `pitch ≥ width × bytes per pixel` of the first plane;
 * - the colour format has one pitch for every plane (NV12 and friends, packed
 *   formats), because the handle carries a single pitch;
 * - `size` covers the layout: for NV12, `pitch × height` of luma plus
 *   `pitch × ⌈height / 2⌉` of interleaved chroma;
 * - the layout is pitch-linear: block-linear surfaces cannot be addressed with
 *   pitch arithmetic.
 *
 * Lifetime (not checkable here, documented for users): the producer owns the
 * buffer; a consumer that keeps the data past one frame must copy it.
 *
 * @module
 */

import { z } from "../_deps.ts";
import { type NvBufColorFormat, nvbufColorFormat } from "./color_format.ts";

/** A validated NVMM frame handle. */
export interface NvmmHandle {
  /** Device address of the first plane (`surfaceList[0].dataPtr`). */
  readonly gpuPtr: bigint;
  /** Width in pixels. */
  readonly width: number;
  /** Height in pixels (rows of the first plane). */
  readonly height: number;
  /** Bytes from one row to the next, every plane. */
  readonly pitch: number;
  /** Pixel layout of the surface (`colorFormat`). */
  readonly colorFormat: NvBufColorFormat;
  /** Bytes of one surface (`dataSize`). */
  readonly size: number;
  /** Surfaces in the batch. */
  readonly batchSize: number;
}

/** One plane of an NVMM frame, relative to `gpuPtr`. */
export interface NvmmPlane {
  /** Bytes from `gpuPtr` to the plane's first row. */
  readonly offset: number;
  /** Bytes from one row to the next. */
  readonly pitch: number;
  /** Bytes of a row that hold samples. */
  readonly rowBytes: number;
  /** Rows of the plane (fewer than `height` for subsampled chroma). */
  readonly rows: number;
  /** `pitch × rows`. */
  readonly size: number;
}

const U32 = 0xffffffff;
const dim = z.number().int().positive().max(U32);

const pointer = z.union([
  z.bigint(),
  z.number(),
  z.string().regex(/^(0[xX][0-9a-fA-F]{1,16}|[0-9]{1,20})$/, "a decimal or 0x-hex address"),
]).transform((v, ctx) => {
  if (typeof v === "number" && !Number.isSafeInteger(v)) {
    ctx.addIssue({
      code: "custom",
      message: Number.isInteger(v)
        ? "above 2^53: the address lost precision as a JSON number; send it as a string"
        : "must be an integer address",
    });
    return z.NEVER;
  }
  return BigInt(v);
});

/**
 * The wire form: the Python side's `NvBufSurfaceHandle` dump (snake_case), or
 * the same fields in camelCase.
 */
const wire = z.object({
  gpu_ptr: pointer,
  width: dim,
  height: dim,
  pitch: dim,
  color_format: z.union([z.number().int(), z.string()]),
  size: z.number().int().positive().max(Number.MAX_SAFE_INTEGER),
  batch_size: dim,
  layout: z.enum(["pitch", "block-linear"]).default("pitch"),
}).strict();

const CAMEL: Record<string, string> = {
  gpuPtr: "gpu_ptr",
  colorFormat: "color_format",
  batchSize: "batch_size",
};

/**
 * Validates a handle (snake_case as the contract dumps it, or camelCase) and
 * returns it frozen. Throws a TypeError for wrong types or unknown fields and a
 * RangeError for broken invariants, each listing every problem.
 *
 * @example A 1080p NV12 frame with a 2048-byte pitch
 * ```ts
 * import { parseNvmmHandle } from "./handle.ts";
 * import { strictEqual, throws } from "node:assert/strict";
 * const h = parseNvmmHandle({
 *   gpu_ptr: "0x7f12a4000000", width: 1920, height: 1080, pitch: 2048,
 *   color_format: "NVBUF_COLOR_FORMAT_NV12", size: 2048 * 1620, batch_size: 1,
 * });
 * strictEqual(h.colorFormat.value, 6);
 * throws(() => parseNvmmHandle({ ...h, gpuPtr: h.gpuPtr, colorFormat: 6, pitch: 1900 }), RangeError);
 * ```
 */
export function parseNvmmHandle(input: unknown): NvmmHandle {
  const normalized = normalizeKeys(input);
  const parsed = wire.safeParse(normalized);
  if (!parsed.success) {
    const issues = parsed.error.issues.map((i) =>
      `${i.path.length ? i.path.join(".") : "handle"}: ${i.message}`
    );
    throw new TypeError(`invalid NVMM handle: ${issues.join("; ")}`);
  }
  const w = parsed.data;
  let colorFormat: NvBufColorFormat;
  try {
    colorFormat = nvbufColorFormat(w.color_format);
  } catch (e) {
    throw new RangeError(`invalid NVMM handle: color_format: ${(e as Error).message}`);
  }
  const handle: NvmmHandle = Object.freeze({
    gpuPtr: w.gpu_ptr,
    width: w.width,
    height: w.height,
    pitch: w.pitch,
    colorFormat,
    size: w.size,
    batchSize: w.batch_size,
  });
  const problems = checkInvariants(handle, w.layout);
  if (problems.length > 0) {
    throw new RangeError(`NVMM handle breaks its contract: ${problems.join("; ")}`);
  }
  return handle;
}

function normalizeKeys(input: unknown): unknown {
  if (typeof input !== "object" || input === null || Array.isArray(input)) return input;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(input)) {
    out[CAMEL[k] ?? k] = k === "colorFormat" && typeof v === "object" && v !== null && "value" in v
      ? (v as { value: unknown }).value
      : v;
  }
  return out;
}

function checkInvariants(h: NvmmHandle, layout: "pitch" | "block-linear"): string[] {
  const problems: string[] = [];
  if (h.gpuPtr === 0n) problems.push("gpu_ptr is NULL");
  if (h.gpuPtr > 0xffffffffffffffffn) problems.push("gpu_ptr does not fit in 64 bits");
  if (layout === "block-linear") {
    problems.push(
      "layout is block-linear: the frame cannot be addressed with pitch arithmetic; ask the " +
        "producer for pitch-linear surfaces (NVBUF_LAYOUT_PITCH)",
    );
  }
  const planes = h.colorFormat.drm.planes;
  const luma = planes[0]!;
  const rowBytes = (p: typeof luma) => Math.ceil(h.width / p.blockWidth) * p.bytesPerBlock;
  if (planes.some((p) => rowBytes(p) !== rowBytes(luma))) {
    problems.push(
      `${h.colorFormat.name} planes have different row sizes, but the handle carries one pitch`,
    );
    return problems;
  }
  if (h.pitch < rowBytes(luma)) {
    problems.push(
      `pitch ${h.pitch} < ${rowBytes(luma)} bytes a row of ${h.width} ${h.colorFormat.name} ` +
        "pixels needs",
    );
  }
  const needed = nvmmPlanesOf(h).reduce((end, p) => Math.max(end, p.offset + p.size), 0);
  if (h.size < needed) {
    problems.push(
      `size ${h.size} < ${needed} bytes the ${h.colorFormat.name} planes need at pitch ${h.pitch}`,
    );
  }
  return problems;
}

function nvmmPlanesOf(h: NvmmHandle): NvmmPlane[] {
  let offset = 0;
  return h.colorFormat.drm.planes.map((p) => {
    const rows = Math.ceil(h.height / p.vsub);
    const plane = Object.freeze({
      offset,
      pitch: h.pitch,
      rowBytes: Math.ceil(h.width / p.blockWidth) * p.bytesPerBlock,
      rows,
      size: h.pitch * rows,
    });
    offset += plane.size;
    return plane;
  });
}

/**
 * The planes of a handle's frame, back to back from `gpuPtr`: for NV12, luma at
 * 0 (`pitch × height`), then interleaved CbCr (`pitch × ⌈height / 2⌉`).
 *
 * @example
 * ```ts
 * import { nvmmPlanes, parseNvmmHandle } from "./handle.ts";
 * import { deepStrictEqual } from "node:assert/strict";
 * const h = parseNvmmHandle({ gpu_ptr: 4096, width: 4, height: 3, pitch: 64,
 *   color_format: 6, size: 320, batch_size: 1 });
 * deepStrictEqual(nvmmPlanes(h).map((p) => [p.offset, p.rows]), [[0, 3], [192, 2]]);
 * ```
 */
export function nvmmPlanes(handle: NvmmHandle): readonly NvmmPlane[] {
  return Object.freeze(nvmmPlanesOf(handle));
}

/**
 * The handle in its wire form (snake_case, pointer as a hex string so it
 * survives JSON), which {@linkcode parseNvmmHandle} reads back.
 *
 * @example
 * ```ts
 * import { nvmmHandleToWire, parseNvmmHandle } from "./handle.ts";
 * import { deepStrictEqual } from "node:assert/strict";
 * const h = parseNvmmHandle({ gpu_ptr: 4096, width: 2, height: 2, pitch: 64,
 *   color_format: "NV12", size: 192, batch_size: 1 });
 * deepStrictEqual(parseNvmmHandle(JSON.parse(JSON.stringify(nvmmHandleToWire(h)))), h);
 * ```
 */
export function nvmmHandleToWire(handle: NvmmHandle): Record<string, string | number> {
  return {
    gpu_ptr: `0x${handle.gpuPtr.toString(16)}`,
    width: handle.width,
    height: handle.height,
    pitch: handle.pitch,
    color_format: handle.colorFormat.value,
    size: handle.size,
    batch_size: handle.batchSize,
  };
}

/**
 * What an axl import needs from an NVMM frame: width, height, the DRM fourcc
 * (the `AXL_PIXFMT_*` values are DRM fourccs) and the stride.
 *
 * @example
 * ```ts
 * import { nvmmImportParams, parseNvmmHandle } from "./handle.ts";
 * import { strictEqual } from "node:assert/strict";
 * const h = parseNvmmHandle({ gpu_ptr: 4096, width: 2, height: 2, pitch: 64,
 *   color_format: "NV12_ER", size: 192, batch_size: 1 });
 * strictEqual(nvmmImportParams(h).fourcc, 0x3231564e);
 * ```
 */
export function nvmmImportParams(
  handle: NvmmHandle,
): { width: number; height: number; fourcc: number; stride: number } {
  return {
    width: handle.width,
    height: handle.height,
    fourcc: handle.colorFormat.drm.code,
    stride: handle.pitch,
  };
}
