// Writes ffi/src/gst/nvbufsurface_layout.h from lib/nvmm/surface_layout.ts, the one source of
// the NvBufSurface offsets (tests/host/nvmm/surface_layout.test.ts fails while they differ).
//
//   deno run --allow-write scripts/gen-nvmm-layout.ts
import { nvbufSurfaceLayoutHeader } from "../lib/nvmm/surface_layout.ts";

const out = new URL("../ffi/src/gst/nvbufsurface_layout.h", import.meta.url);
Deno.writeTextFileSync(out, nvbufSurfaceLayoutHeader());
console.log(`wrote ${out.pathname}`);
