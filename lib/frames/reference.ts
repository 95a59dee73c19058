/**
 * The reference model of the simulated engine: what metis-sim must write for a frame,
 * computed independently in TypeScript (CRC-32 as zlib, luma statistics, histogram).
 *
 * @module
 */
import type { FrameLayout } from "../formats/layout.ts";

const CRC_TABLE = (() => {
  const t = new Uint32Array(256);
  for (let n = 0; n < 256; n++) {
    let c = n;
    for (let k = 0; k < 8; k++) c = c & 1 ? 0xedb88320 ^ (c >>> 1) : c >>> 1;
    t[n] = c >>> 0;
  }
  return t;
})();

/**
 * Continues a CRC-32 (IEEE 802.3, zlib's `crc32()`) over `bytes`; start with 0.
 *
 * @example
 * ```ts
 * import { crc32 } from "./reference.ts";
 * console.log(crc32(new TextEncoder().encode("123456789")).toString(16)); // "cbf43926"
 * ```
 */
export function crc32(bytes: Uint8Array, crc = 0): number {
  let c = ~crc >>> 0;
  for (let i = 0; i < bytes.length; i++) c = CRC_TABLE[(c ^ bytes[i]!) & 0xff]! ^ (c >>> 8);
  return ~c >>> 0;
}

/** What the engine reports about a frame. */
export interface ReferenceResult {
  /** CRC-32 over every plane's payload bytes, line by line. */
  crc32: number;
  /** Smallest luma sample. */
  lumaMin: number;
  /** Largest luma sample. */
  lumaMax: number;
  /** Sum of luma samples. */
  lumaSum: bigint;
  /** 256-bin luma histogram. */
  histogram: Uint32Array;
}

/**
 * Computes the engine's result for the frame in `bytes` laid out as `layout`: each plane
 * at its own offset and stride (pitch), padding and gaps left out. Luma is the first plane
 * (every even byte for YUYV).
 *
 * @example
 * ```ts
 * import { frameLayout } from "./frame.ts";
 * import { referenceResult } from "./reference.ts";
 * const layout = frameLayout("GREY", 4, 2);
 * const r = referenceResult(new Uint8Array([0, 1, 2, 3, 4, 5, 6, 7]), layout);
 * console.log(r.lumaMax); // 7
 * console.log(r.lumaSum); // 28n
 * ```
 */
export function referenceResult(bytes: Uint8Array, layout: FrameLayout): ReferenceResult {
  // the frame ends with its last line's payload, as the driver counts it
  const last = layout.planes[layout.planes.length - 1]!;
  const end = last.offset + last.stride * (last.rows - 1) + last.rowBytes;
  if (bytes.length < end) {
    throw new RangeError(`frame needs ${end} bytes, buffer has ${bytes.length}`);
  }
  let crc = 0;
  for (const p of layout.planes) {
    for (let line = 0; line < p.rows; line++) {
      const start = p.offset + line * p.stride;
      crc = crc32(bytes.subarray(start, start + p.rowBytes), crc);
    }
  }
  const histogram = new Uint32Array(256);
  const luma = layout.planes[0]!;
  const step = layout.format === "YUYV" ? 2 : 1;
  let min = 255, max = 0, sum = 0;
  for (let line = 0; line < luma.rows; line++) {
    const start = luma.offset + line * luma.stride;
    for (let i = start; i < start + luma.rowBytes; i += step) {
      const v = bytes[i]!;
      histogram[v]!++;
      if (v < min) min = v;
      if (v > max) max = v;
      sum += v;
    }
  }
  return { crc32: crc, lumaMin: min, lumaMax: max, lumaSum: BigInt(sum), histogram };
}
