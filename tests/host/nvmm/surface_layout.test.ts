// The NvBufSurface offsets have one source, lib/nvmm/surface_layout.ts: the tracer's C header
// is generated from it, and NVIDIA's field order (nvbufsurface.h, declared here in a C test
// program of our own) compiled for x86_64 and aarch64 puts every field where the table says.
import assert from "node:assert/strict";
import {
  NVBUF_SURFACE_LAYOUT,
  nvbufSurfaceLayoutHeader,
} from "../../../lib/nvmm/surface_layout.ts";

const root = new URL("../../../", import.meta.url).pathname;
const HEADER = `${root}ffi/src/gst/nvbufsurface_layout.h`;

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
