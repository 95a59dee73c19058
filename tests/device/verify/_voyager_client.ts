// A camera → Metis client shaped like Axelera's own (the Voyager SDK's axinferencenet), for
// `axl verify -- COMMAND` in the rig. Usage:
//
//   deno run --allow-all _voyager_client.ts MODE FRAMES CAMERA NODE [HEAP]
//
// HEAP is the DMA heap of the camera's buffers (default: the CMA heap if any, else system; the
// rig's nvmap stand-in is `nvmap-sim`).
//
// MODE `transform` does what Voyager's pre-processing does: per frame it maps the camera's
// buffer on the CPU, converts its NV12 pixels to normalised RGB in a per-pixel loop (no
// memcpy), writing into a buffer of its own pool allocated from /dev/dma_heap/system, and
// attaches *that* buffer to the card (DMA_ATTACH → DMA_XFER to the card → DMA_DETACH). MODE
// `direct` is its zero-copy twin: it attaches the camera's own buffer. Both print one line
// per run: `frames N mode M pool P`.
import { Heap } from "../../../lib/core/heap.ts";
import type { DmaBuf } from "../../../lib/core/dmabuf.ts";
import { MetisDevice } from "../../../lib/core/metis/device.ts";
import { V4l2Producer } from "../../../lib/frames/producers/v4l2_producer.ts";
import type { Frame } from "../../../lib/frames/frame.ts";

const [mode, framesArg, camera, node, cameraHeap] = Deno.args;
if ((mode !== "transform" && mode !== "direct") || !framesArg || !camera || !node) {
  console.error("usage: _voyager_client.ts transform|direct FRAMES CAMERA METIS_NODE [HEAP]");
  Deno.exit(2);
}
const frames = Number(framesArg);
/** Voyager's output pool holds a few buffers; four, like the camera's queue. */
const POOL = 4;
/** One order-8 chunk of the system heap: the pool buffer is contiguous, like vivid needs. */
const POOL_BYTES = 1 << 20;

/**
 * NV12 (BT.601 limited range) to RGB888, each channel scaled to [0, 255] from the model's
 * normalised range: a per-pixel colour convert, the shape of Voyager's CPU transform.
 */
function convertNv12ToRgb(src: Uint8Array, dst: Uint8Array, f: Frame): number {
  const { width: w, height: h } = f;
  const y0 = f.planes[0]!.offset, ys = f.planes[0]!.stride;
  const c0 = f.planes[1]!.offset, cs = f.planes[1]!.stride;
  let o = 0;
  for (let y = 0; y < h; y++) {
    const yr = y0 + y * ys, cr = c0 + (y >> 1) * cs;
    for (let x = 0; x < w; x++) {
      const l = 1.164 * (src[yr + x]! - 16);
      const ci = cr + (x & ~1);
      const u = src[ci]! - 128, v = src[ci + 1]! - 128;
      dst[o++] = clamp(l + 1.596 * v);
      dst[o++] = clamp(l - 0.392 * u - 0.813 * v);
      dst[o++] = clamp(l + 2.017 * u);
    }
  }
  return o;
}

function clamp(x: number): number {
  return x < 0 ? 0 : x > 255 ? 255 : x;
}

using camera_ = V4l2Producer.open({
  device: camera,
  width: 640,
  height: 480,
  ...(cameraHeap ? { heap: cameraHeap } : {}),
});
using card = MetisDevice.open(node);
const heap = Heap.open("system");
const pool: DmaBuf[] = [];
try {
  if (mode === "transform") {
    for (let i = 0; i < POOL; i++) {
      pool.push(heap.allocate(POOL_BYTES, { name: `voyager-pool-${i}` }));
    }
  }
  for (let n = 0; n < frames; n++) {
    const frame = await camera_.next();
    let target = frame.buffer, bytes = frame.buffer.size;
    if (mode === "transform") {
      target = pool[n % POOL]!;
      using src = frame.buffer.cpuAccess({ read: true });
      using dst = target.cpuAccess({ write: true });
      bytes = convertNv12ToRgb(src.bytes, dst.bytes, frame);
    }
    if (mode === "transform") camera_.recycle(frame);
    card.attach(target);
    try {
      await card.transfer({ direction: "to-card", card: 0, size: bytes });
    } finally {
      card.detach();
    }
    if (mode === "direct") camera_.recycle(frame);
  }
} finally {
  for (const b of pool) b.close();
}
console.log(`frames ${frames} mode ${mode} pool ${pool.length || "none"}`);
