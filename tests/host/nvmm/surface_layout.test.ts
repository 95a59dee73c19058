// The NvBufSurface offsets have one source, lib/nvmm/surface_layout.ts: the tracer's C header
// is generated from it, and NVIDIA's field order (nvbufsurface.h, declared here in a C test
// program of our own) compiled for x86_64 and aarch64 puts every field where the table says.
// The project's declaration of nvbufsurface.h for the Argus export is generated from the same
// table, and compiled (C and C++, both architectures) it puts every field at the table's offset.
import assert from "node:assert/strict";
import {
  NVBUF_SURFACE_LAYOUT,
  nvbufSurfaceDeclaration,
  nvbufSurfaceLayoutHeader,
} from "../../../lib/nvmm/surface_layout.ts";

const root = new URL("../../../", import.meta.url).pathname;
const HEADER = `${root}ffi/src/gst/nvbufsurface_layout.h`;
const DECLARATION = `${root}ffi/src/nvbufsurface/nvbufsurface.h`;
const L = NVBUF_SURFACE_LAYOUT;

Deno.test("nvbufSurfaceLayoutHeader() is the committed tracer header (regenerate: scripts/gen-nvmm-layout.ts)", async () => {
  assert.equal(
    await Deno.readTextFile(HEADER),
    nvbufSurfaceLayoutHeader(),
    "ffi/src/gst/nvbufsurface_layout.h differs from lib/nvmm/surface_layout.ts: run " +
      "'deno run --allow-write scripts/gen-nvmm-layout.ts'",
  );
});

/** NVIDIA's structs in their documented field order, checked against the generated header. */
const CHECK = `
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include "nvbufsurface_layout.h"
#define PLANES 4
#define PAD 4
typedef enum { MEM_A } mem_type;
typedef enum { COLOR_A } color_format;
typedef enum { LAYOUT_A } layout_kind;
struct plane_params {
  uint32_t num_planes, width[PLANES], height[PLANES], pitch[PLANES], offset[PLANES],
    psize[PLANES], bytes_per_pix[PLANES];
  void *reserved[PAD * PLANES];
};
struct mapped_addr { void *addr[PLANES]; void *egl_image; void *reserved[PAD]; };
struct params {
  uint32_t width, height, pitch;
  color_format color_format;
  layout_kind layout;
  uint64_t buffer_desc;
  uint32_t data_size;
  void *data_ptr;
  struct plane_params plane_params;
  struct mapped_addr mapped_addr;
  void *paramex;
  void *reserved[PAD - 1];
};
struct surface {
  uint32_t gpu_id, batch_size, num_filled;
  bool is_contiguous;
  mem_type mem_type;
  struct params *surface_list;
  void *reserved[PAD];
};
#define AT(t, f, m) _Static_assert(offsetof(struct t, f) == m, #t "." #f " is not at " #m)
AT(surface, gpu_id, NVBUF_SURFACE_GPU_ID);
AT(surface, batch_size, NVBUF_SURFACE_BATCH_SIZE);
AT(surface, num_filled, NVBUF_SURFACE_NUM_FILLED);
AT(surface, is_contiguous, NVBUF_SURFACE_IS_CONTIGUOUS);
AT(surface, mem_type, NVBUF_SURFACE_MEM_TYPE);
AT(surface, surface_list, NVBUF_SURFACE_SURFACE_LIST);
_Static_assert(sizeof(struct surface) == NVBUF_SURFACE_SIZE, "NvBufSurface size");
AT(params, width, NVBUF_PARAMS_WIDTH);
AT(params, height, NVBUF_PARAMS_HEIGHT);
AT(params, pitch, NVBUF_PARAMS_PITCH);
AT(params, color_format, NVBUF_PARAMS_COLOR_FORMAT);
AT(params, layout, NVBUF_PARAMS_LAYOUT);
AT(params, buffer_desc, NVBUF_PARAMS_BUFFER_DESC);
AT(params, data_size, NVBUF_PARAMS_DATA_SIZE);
AT(params, data_ptr, NVBUF_PARAMS_DATA_PTR);
AT(params, plane_params, NVBUF_PARAMS_PLANE_PARAMS);
AT(params, mapped_addr, NVBUF_PARAMS_MAPPED_ADDR);
AT(params, paramex, NVBUF_PARAMS_PARAMEX);
_Static_assert(sizeof(struct params) == NVBUF_PARAMS_SIZE, "NvBufSurfaceParams size");
AT(plane_params, num_planes, ${L.planeParams.numPlanes});
AT(plane_params, width, ${L.planeParams.width});
AT(plane_params, height, ${L.planeParams.height});
AT(plane_params, pitch, ${L.planeParams.pitch});
AT(plane_params, offset, ${L.planeParams.offset});
AT(plane_params, psize, ${L.planeParams.psize});
AT(plane_params, bytes_per_pix, ${L.planeParams.bytesPerPix});
_Static_assert(sizeof(struct plane_params) == ${L.planeParams.size}, "NvBufSurfacePlaneParams size");
AT(mapped_addr, addr, ${L.mappedAddr.addr});
AT(mapped_addr, egl_image, ${L.mappedAddr.eglImage});
_Static_assert(sizeof(struct mapped_addr) == ${L.mappedAddr.size}, "NvBufSurfaceMappedAddr size");
`;

for (const cc of ["cc", "aarch64-linux-gnu-gcc"]) {
  Deno.test(`the generated offsets are NVIDIA's field order compiled by ${cc}`, async () => {
    const dir = await Deno.makeTempDir();
    try {
      await Deno.writeTextFile(`${dir}/check.c`, CHECK);
      const out = await new Deno.Command(cc, {
        args: ["-std=gnu11", "-fsyntax-only", `-I${root}ffi/src/gst`, `${dir}/check.c`],
      }).output();
      assert.ok(out.success, new TextDecoder().decode(out.stderr));
    } finally {
      await Deno.remove(dir, { recursive: true });
    }
  });
}

Deno.test("a wrong offset in the table fails the compiled check", async () => {
  // The check can fail: the same program with bufferDesc claimed at 20 does not compile.
  const dir = await Deno.makeTempDir();
  try {
    const header = nvbufSurfaceLayoutHeader().replace(
      `NVBUF_PARAMS_BUFFER_DESC ${NVBUF_SURFACE_LAYOUT.params.bufferDesc}`,
      "NVBUF_PARAMS_BUFFER_DESC 20",
    );
    await Deno.writeTextFile(`${dir}/nvbufsurface_layout.h`, header);
    await Deno.writeTextFile(`${dir}/check.c`, CHECK);
    const out = await new Deno.Command("cc", {
      args: ["-std=gnu11", "-fsyntax-only", `-I${dir}`, `${dir}/check.c`],
    }).output();
    assert.equal(out.success, false);
    assert.match(new TextDecoder().decode(out.stderr), /params\.buffer_desc is not at/);
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
});

Deno.test("nvbufSurfaceDeclaration() is the committed ffi/src/nvbufsurface/nvbufsurface.h", async () => {
  assert.equal(
    await Deno.readTextFile(DECLARATION),
    nvbufSurfaceDeclaration(),
    "ffi/src/nvbufsurface/nvbufsurface.h differs from lib/nvmm/surface_layout.ts: run " +
      "'deno run --allow-write scripts/gen-nvmm-layout.ts'",
  );
});

/** `offsetof` checks of the declaration (NVIDIA's names) against the table, C and C++ alike. */
function declarationCheck(): string {
  const at = (type: string, field: string, offset: number) => `AT(${type}, ${field}, ${offset});\n`;
  const group = (type: string, o: Record<string, number>, prefix = "", base = 0) =>
    Object.entries(o).filter(([k]) => k !== "size")
      .map(([k, v]) => at(type, `${prefix}${k === "numPlanes" ? "num_planes" : k}`, base + v))
      .join("");
  return [
    "#include <stddef.h>\n",
    '#include "nvbufsurface.h"\n',
    "#ifdef __cplusplus\n#define SA static_assert\n#else\n#define SA _Static_assert\n#endif\n",
    '#define AT(t, f, m) SA(offsetof(t, f) == m, #t "." #f " is not at " #m)\n',
    group("NvBufSurface", L.surface),
    `SA(sizeof(NvBufSurface) == ${L.surface.size}, "NvBufSurface size");\n`,
    group("NvBufSurfaceParams", L.params),
    `SA(sizeof(NvBufSurfaceParams) == ${L.params.size}, "NvBufSurfaceParams size");\n`,
    group("NvBufSurfaceParams", L.planeParams, "planeParams.", L.params.planeParams),
    group("NvBufSurfaceParams", L.mappedAddr, "mappedAddr.", L.params.mappedAddr),
    `SA(sizeof(NvBufSurfaceColorFormat) == 4 && sizeof(NvBufSurfaceLayout) == 4 &&
       sizeof(NvBufSurfaceMemType) == 4, "the enums are 32-bit");\n`,
    `SA(NVBUF_MEM_SURFACE_ARRAY == ${L.memType.SURFACE_ARRAY}, "memType");\n`,
    `SA(NVBUF_LAYOUT_PITCH == ${L.layout.PITCH}, "layout");\n`,
  ].join("");
}

/** Compiles `source` (as `check.<ext>`) with `cc`; the include dir holds `header` when given. */
async function compileCheck(
  cc: string,
  ext: "c" | "cpp",
  source: string,
  header?: string,
): Promise<Deno.CommandOutput> {
  const dir = await Deno.makeTempDir();
  try {
    await Deno.writeTextFile(`${dir}/check.${ext}`, source);
    if (header !== undefined) await Deno.writeTextFile(`${dir}/nvbufsurface.h`, header);
    const inc = header === undefined ? `${root}ffi/src/nvbufsurface` : dir;
    const std = ext === "c" ? "-std=gnu11" : "-std=c++14";
    return await new Deno.Command(cc, {
      args: [std, "-Wall", "-Werror", "-fsyntax-only", `-I${inc}`, `${dir}/check.${ext}`],
    }).output();
  } finally {
    await Deno.remove(dir, { recursive: true });
  }
}

for (
  const [cc, ext] of [
    ["cc", "c"],
    ["aarch64-linux-gnu-gcc", "c"],
    ["c++", "cpp"],
    ["aarch64-linux-gnu-g++", "cpp"],
  ] as const
) {
  Deno.test(`the nvbufsurface.h declaration puts every field at the table's offset (${cc})`, async () => {
    const out = await compileCheck(cc, ext, declarationCheck());
    assert.ok(out.success, new TextDecoder().decode(out.stderr));
  });
}

Deno.test("a declaration with a field missing fails the offset check", async () => {
  const header = nvbufSurfaceDeclaration().replace("\tuint32_t dataSize;\n", "");
  const out = await compileCheck("cc", "c", declarationCheck(), header);
  assert.equal(out.success, false);
  assert.match(new TextDecoder().decode(out.stderr), /NvBufSurfaceParams\.dataPtr is not at 40/);
});
