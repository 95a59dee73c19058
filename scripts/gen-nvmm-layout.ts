// Writes ffi/src/gst/nvbufsurface_layout.h (the GStreamer tracer's offsets) and
// ffi/src/nvbufsurface/nvbufsurface.h (the project's declaration of what ffi/src/argus.cpp uses
// from nvbufsurface.h) from lib/nvmm/surface_layout.ts, the one source of the NvBufSurface
// offsets (tests/host/nvmm/surface_layout.test.ts fails while they differ).
//
//   deno run --allow-write scripts/gen-nvmm-layout.ts
import { nvbufSurfaceDeclaration, nvbufSurfaceLayoutHeader } from "../lib/nvmm/surface_layout.ts";

for (
  const [path, text] of [
    ["../ffi/src/gst/nvbufsurface_layout.h", nvbufSurfaceLayoutHeader()],
    ["../ffi/src/nvbufsurface/nvbufsurface.h", nvbufSurfaceDeclaration()],
  ]
) {
  const out = new URL(path!, import.meta.url);
  Deno.writeTextFileSync(out, text!);
  console.log(`wrote ${out.pathname}`);
}
