/**
 * Where the fields of NVIDIA's `NvBufSurface` and `NvBufSurfaceParams` (`nvbufsurface.h` of the
 * Jetson Multimedia API and DeepStream) sit in memory on a 64-bit Linux (LP64: x86_64 and
 * aarch64 alike). A GStreamer buffer with caps `video/x-raw(memory:NVMM)` holds an
 * `NvBufSurface` in its plain memory; the dma-buf fd of surface `i` is
 * `surfaceList[i].bufferDesc` when the batch's `memType` is `NVBUF_MEM_SURFACE_ARRAY` or
 * `NVBUF_MEM_HANDLE` (or `NVBUF_MEM_DEFAULT`, which is the surface array on a Jetson).
 *
 * This table is the one source of the offsets: the GStreamer tracer's C header
 * (`ffi/src/gst/nvbufsurface_layout.h`) is generated from it by
 * {@linkcode nvbufSurfaceLayoutHeader}, and a host test holds the committed header to it and
 * compiles NVIDIA's field order for x86_64 and aarch64 to check every offset.
 *
 * @module
 */

/** Byte offsets (and sizes) of the fields the tracer reads, on LP64 Linux. */
export interface NvBufSurfaceLayout {
  /** `NvBufSurface`: the batch. */
  readonly surface: {
    readonly size: number;
    readonly gpuId: number;
    readonly batchSize: number;
    readonly numFilled: number;
    readonly isContiguous: number;
    readonly memType: number;
    readonly surfaceList: number;
  };
  /** `NvBufSurfaceParams`: one surface of the batch (`surfaceList[i]`). */
  readonly params: {
    readonly size: number;
    readonly width: number;
    readonly height: number;
    readonly pitch: number;
    readonly colorFormat: number;
    readonly layout: number;
    readonly bufferDesc: number;
    readonly dataSize: number;
    readonly dataPtr: number;
    readonly planeParams: number;
    readonly mappedAddr: number;
    readonly paramex: number;
  };
  /** `NvBufSurfaceMemType` values. */
  readonly memType: {
    readonly DEFAULT: number;
    readonly CUDA_PINNED: number;
    readonly CUDA_DEVICE: number;
    readonly CUDA_UNIFIED: number;
    readonly SURFACE_ARRAY: number;
    readonly HANDLE: number;
    readonly SYSTEM: number;
  };
}

/**
 * The layout. `NvBufSurface`: three `uint32_t`, a `bool` (padded to 4), the `memType` enum,
 * then the `surfaceList` pointer at 24 and four reserved pointers: 64 bytes.
 * `NvBufSurfaceParams`: five 32-bit fields, `bufferDesc` (`uint64_t`) at 24, `dataSize`,
 * `dataPtr` at 40, `planeParams` (232 bytes), `mappedAddr` (72), `paramex` and three reserved
 * pointers: 384 bytes.
 *
 * @example
 * ```ts
 * import { NVBUF_SURFACE_LAYOUT } from "./surface_layout.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(NVBUF_SURFACE_LAYOUT.params.bufferDesc, 24);
 * strictEqual(NVBUF_SURFACE_LAYOUT.memType.SURFACE_ARRAY, 4);
 * ```
 */
export const NVBUF_SURFACE_LAYOUT: NvBufSurfaceLayout = Object.freeze({
  surface: Object.freeze({
    size: 64,
    gpuId: 0,
    batchSize: 4,
    numFilled: 8,
    isContiguous: 12,
    memType: 16,
    surfaceList: 24,
  }),
  params: Object.freeze({
    size: 384,
    width: 0,
    height: 4,
    pitch: 8,
    colorFormat: 12,
    layout: 16,
    bufferDesc: 24,
    dataSize: 32,
    dataPtr: 40,
    planeParams: 48,
    mappedAddr: 280,
    paramex: 352,
  }),
  memType: Object.freeze({
    DEFAULT: 0,
    CUDA_PINNED: 1,
    CUDA_DEVICE: 2,
    CUDA_UNIFIED: 3,
    SURFACE_ARRAY: 4,
    HANDLE: 5,
    SYSTEM: 6,
  }),
});

/** `surfaceList` → `SURFACE_LIST`, `bufferDesc` → `BUFFER_DESC`. */
function macroName(field: string): string {
  return field.replace(/([a-z])([A-Z])/g, "$1_$2").toUpperCase();
}

/**
 * The C header the GStreamer tracer includes: one `#define` per offset, size and memType
 * value of {@linkcode NVBUF_SURFACE_LAYOUT}.
 *
 * @example
 * ```ts
 * import { nvbufSurfaceLayoutHeader } from "./surface_layout.ts";
 * import { match } from "node:assert/strict";
 * match(nvbufSurfaceLayoutHeader(), /#define NVBUF_PARAMS_BUFFER_DESC 24\n/);
 * ```
 */
export function nvbufSurfaceLayoutHeader(): string {
  const l = NVBUF_SURFACE_LAYOUT;
  const defs = (prefix: string, o: Record<string, number>) =>
    Object.entries(o).map(([k, v]) => `#define ${prefix}_${macroName(k)} ${v}\n`).join("");
  return [
    "/* SPDX-License-Identifier: MIT */\n",
    "/*\n",
    " * Generated from lib/nvmm/surface_layout.ts by scripts/gen-nvmm-layout.ts: do not edit.\n",
    " * Byte offsets of NvBufSurface and NvBufSurfaceParams (nvbufsurface.h) on LP64 Linux.\n",
    " */\n",
    "#ifndef AXL_NVBUFSURFACE_LAYOUT_H\n",
    "#define AXL_NVBUFSURFACE_LAYOUT_H\n\n",
    defs("NVBUF_SURFACE", l.surface),
    "\n",
    defs("NVBUF_PARAMS", l.params),
    "\n",
    defs("NVBUF_MEM", l.memType),
    "\n#endif\n",
  ].join("");
}
