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
 * compiles NVIDIA's field order for x86_64 and aarch64 to check every offset. The project's own
 * declaration of the part of `nvbufsurface.h` the Argus export uses
 * (`ffi/src/nvbufsurface/nvbufsurface.h`, for compiling `ffi/src/argus.cpp` off a Jetson) is
 * generated from it too, by {@linkcode nvbufSurfaceDeclaration}.
 *
 * @module
 */
import { nvbufColorFormat } from "./color_format.ts";

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
  /** `NvBufSurfacePlaneParams` (`NvBufSurfaceParams.planeParams`): arrays of one entry a plane. */
  readonly planeParams: {
    readonly size: number;
    readonly numPlanes: number;
    readonly width: number;
    readonly height: number;
    readonly pitch: number;
    readonly offset: number;
    readonly psize: number;
    readonly bytesPerPix: number;
  };
  /** `NvBufSurfaceMappedAddr` (`NvBufSurfaceParams.mappedAddr`): CPU views of the planes. */
  readonly mappedAddr: {
    readonly size: number;
    readonly addr: number;
    readonly eglImage: number;
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
  /** `NvBufSurfaceLayout` values. */
  readonly layout: {
    readonly PITCH: number;
    readonly BLOCK_LINEAR: number;
  };
}

/**
 * The layout. `NvBufSurface`: three `uint32_t`, a `bool` (padded to 4), the `memType` enum,
 * then the `surfaceList` pointer at 24 and four reserved pointers: 64 bytes.
 * `NvBufSurfaceParams`: five 32-bit fields, `bufferDesc` (`uint64_t`) at 24, `dataSize`,
 * `dataPtr` at 40, `planeParams` (232 bytes), `mappedAddr` (72), `paramex` and three reserved
 * pointers: 384 bytes. `NvBufSurfacePlaneParams`: the plane count, then six arrays of four
 * `uint32_t` (width, height, pitch, offset, psize, bytesPerPix) and 16 reserved pointers from 104:
 * 232 bytes. `NvBufSurfaceMappedAddr`: four plane pointers, the EGLImage, four reserved: 72.
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
  planeParams: Object.freeze({
    size: 232,
    numPlanes: 0,
    width: 4,
    height: 20,
    pitch: 36,
    offset: 52,
    psize: 68,
    bytesPerPix: 84,
  }),
  mappedAddr: Object.freeze({
    size: 72,
    addr: 0,
    eglImage: 32,
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
  layout: Object.freeze({ PITCH: 0, BLOCK_LINEAR: 1 }),
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

/** The colour formats `ffi/src/argus.cpp` asks `createNvBuffer` for. */
const ARGUS_COLOR_FORMATS = ["NV12_ER"] as const;

/**
 * The project's declaration of what `ffi/src/argus.cpp` uses from NVIDIA's `nvbufsurface.h`
 * (libnvbufsurface's C API, whose header is not redistributable): the `NvBufSurface` structs
 * with NVIDIA's field names and order (their offsets are {@linkcode NVBUF_SURFACE_LAYOUT}'s,
 * which a host test compiles to check), the enumerators it passes, and the two functions it
 * calls. Off a Jetson it stands in for the real header in the Argus compile check; a Jetson
 * build compiles against the real one.
 *
 * @example
 * ```ts
 * import { nvbufSurfaceDeclaration } from "./surface_layout.ts";
 * import { match } from "node:assert/strict";
 * match(nvbufSurfaceDeclaration(), /int NvBufSurfaceDestroy\(NvBufSurface \*surf\);/);
 * ```
 */
export function nvbufSurfaceDeclaration(): string {
  const l = NVBUF_SURFACE_LAYOUT;
  const planes = l.mappedAddr.eglImage / 8;
  const enumerators = (prefix: string, o: Record<string, number>) =>
    Object.entries(o).map(([k, v]) => `\t${prefix}_${k} = ${v},\n`).join("");
  const colors = Object.fromEntries(
    ARGUS_COLOR_FORMATS.map((name) => [name, nvbufColorFormat(name).value]),
  );
  // Reserved pointers: what is left of each struct after its last named field.
  const reserved = (size: number, end: number) => (size - end) / 8;
  return [
    "/* SPDX-License-Identifier: MIT */\n",
    "/*\n",
    " * Generated from lib/nvmm/surface_layout.ts by scripts/gen-nvmm-layout.ts: do not edit.\n",
    " * The part of NVIDIA's nvbufsurface.h (libnvbufsurface) that ffi/src/argus.cpp uses, in\n",
    " * NVIDIA's names and field order, for compiling it where the real header is not installed.\n",
    " * A Jetson build compiles against the real header instead.\n",
    " */\n",
    "#ifndef AXL_NVBUFSURFACE_DECL_H\n",
    "#define AXL_NVBUFSURFACE_DECL_H\n\n",
    "#include <stdbool.h>\n",
    "#include <stdint.h>\n\n",
    "#ifdef __cplusplus\n",
    'extern "C" {\n',
    "#endif\n\n",
    `#define NVBUF_MAX_PLANES ${planes}\n\n`,
    "typedef enum {\n",
    enumerators("NVBUF_COLOR_FORMAT", colors),
    "} NvBufSurfaceColorFormat;\n\n",
    "typedef enum {\n",
    enumerators("NVBUF_LAYOUT", l.layout),
    "} NvBufSurfaceLayout;\n\n",
    "typedef enum {\n",
    enumerators("NVBUF_MEM", l.memType),
    "} NvBufSurfaceMemType;\n\n",
    "typedef struct NvBufSurfacePlaneParams {\n",
    "\tuint32_t num_planes;\n",
    "\tuint32_t width[NVBUF_MAX_PLANES];\n",
    "\tuint32_t height[NVBUF_MAX_PLANES];\n",
    "\tuint32_t pitch[NVBUF_MAX_PLANES];\n",
    "\tuint32_t offset[NVBUF_MAX_PLANES];\n",
    "\tuint32_t psize[NVBUF_MAX_PLANES];\n",
    "\tuint32_t bytesPerPix[NVBUF_MAX_PLANES];\n",
    `\tvoid *_reserved[${
      reserved(l.planeParams.size, alignUp8(l.planeParams.bytesPerPix + 4 * planes))
    }];\n`,
    "} NvBufSurfacePlaneParams;\n\n",
    "typedef struct NvBufSurfaceMappedAddr {\n",
    "\tvoid *addr[NVBUF_MAX_PLANES];\n",
    "\tvoid *eglImage;\n",
    `\tvoid *_reserved[${reserved(l.mappedAddr.size, l.mappedAddr.eglImage + 8)}];\n`,
    "} NvBufSurfaceMappedAddr;\n\n",
    "struct NvBufSurfaceParamsEx;\n\n",
    "typedef struct NvBufSurfaceParams {\n",
    "\tuint32_t width;\n",
    "\tuint32_t height;\n",
    "\tuint32_t pitch;\n",
    "\tNvBufSurfaceColorFormat colorFormat;\n",
    "\tNvBufSurfaceLayout layout;\n",
    "\tuint64_t bufferDesc;\n",
    "\tuint32_t dataSize;\n",
    "\tvoid *dataPtr; /* not valid for NVBUF_MEM_SURFACE_ARRAY */\n",
    "\tNvBufSurfacePlaneParams planeParams;\n",
    "\tNvBufSurfaceMappedAddr mappedAddr;\n",
    "\tstruct NvBufSurfaceParamsEx *paramex;\n",
    `\tvoid *_reserved[${reserved(l.params.size, l.params.paramex + 8)}];\n`,
    "} NvBufSurfaceParams;\n\n",
    "typedef struct NvBufSurface {\n",
    "\tuint32_t gpuId;\n",
    "\tuint32_t batchSize;\n",
    "\tuint32_t numFilled;\n",
    "\tbool isContiguous;\n",
    "\tNvBufSurfaceMemType memType;\n",
    "\tNvBufSurfaceParams *surfaceList;\n",
    `\tvoid *_reserved[${reserved(l.surface.size, l.surface.surfaceList + 8)}];\n`,
    "} NvBufSurface;\n\n",
    "/* The NvBufSurface behind a dma-buf fd of an NvBuffer; 0 on success, -1 on failure. */\n",
    "int NvBufSurfaceFromFd(int dmabuf_fd, void **buffer);\n",
    "/* Frees an NvBuffer (and its fd) found by NvBufSurfaceFromFd; 0 or -1. */\n",
    "int NvBufSurfaceDestroy(NvBufSurface *surf);\n\n",
    "#ifdef __cplusplus\n",
    "}\n",
    "#endif\n\n",
    "#endif\n",
  ].join("");
}

/** `n` rounded up to a pointer's alignment (8 on LP64). */
function alignUp8(n: number): number {
  return Math.ceil(n / 8) * 8;
}
