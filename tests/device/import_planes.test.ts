// AXL_IOCTL_IMPORT_FD2 through the typed API against the real driver: frames whose
// planes have their own offsets and pitches (an NvBufSurface, a V4L2 multi-planar
// buffer) come back with the result the TypeScript reference model computes.
import assert from "node:assert/strict";
import { AxlError, Device, Heap } from "../../mod.ts";
import type { FrameLayout, PixelFormat } from "../../mod.ts";
import { placedLayout } from "../../lib/core/frame_layout.ts";
import { importGeometryFor, planesEnd } from "../../lib/core/import_layout.ts";
import { fillPattern } from "../../lib/frames/producers/heap_producer.ts";
import { referenceResult } from "../../lib/frames/reference.ts";

const PAGE = 4096;
const pageAlign = (n: number) => Math.ceil(n / PAGE) * PAGE;

/** NV12 as an NvBufSurface lays it out: pitch 2048, luma padded to 1088 lines. */
const NVBUF = placedLayout("NV12", 1920, 1080, [
  { offset: 0, stride: 2048 },
  { offset: 2048 * 1088, stride: 2048 },
]);

/** NV12 640x480 as a V4L2 multi-planar buffer might be: a data offset, chroma on its own page. */
const MPLANE = placedLayout("NV12", 640, 480, [
  { offset: 256, stride: 640 },
  { offset: 311296, stride: 768 },
]);

function end(l: FrameLayout<PixelFormat>): number {
  return planesEnd(
    l.format,
    l.width,
    l.height,
    l.planes.map((p) => ({
      offset: p.offset,
      pitch: p.stride,
    })),
  );
}

async function roundTrip(layout: FrameLayout<PixelFormat>, seed: number): Promise<void> {
  using dev = Device.open();
  const heap = Heap.open("system");
  using frame = heap.allocate(pageAlign(end(layout)), { name: "planes-frame" });
  using result = heap.allocate(PAGE);
  let want;
  {
    using access = frame.cpuAccess({ read: true, write: true });
    access.bytes.fill(0x5a);
    fillPattern(access.bytes, layout, seed, 0);
    // bytes outside the payload must not count: dirty the padding and the gap
    for (const p of layout.planes) {
      for (let y = 0; y < p.rows; y++) {
        access.bytes.fill(
          0xc3,
          p.offset + y * p.stride + p.rowBytes,
          p.offset + (y + 1) * p.stride,
        );
      }
    }
    want = referenceResult(access.bytes, layout);
  }
  using imp = dev.import(frame, importGeometryFor(layout));
  assert.equal(imp.ioctl, "IMPORT_FD2");
  assert.deepEqual(imp.planes, layout.planes.map((p) => ({ offset: p.offset, pitch: p.stride })));
  assert.equal(imp.inode, frame.inode);
  using job = dev.submit(imp, { result, model: 3 });
  await job.wait(10_000);
  const got = job.readResult();
  assert.equal(got.status, 0);
  assert.equal(got.width, layout.width);
  assert.equal(got.height, layout.height);
  assert.equal(got.crc32, want.crc32);
  assert.equal(got.lumaMin, want.lumaMin);
  assert.equal(got.lumaMax, want.lumaMax);
  assert.equal(got.lumaSum, want.lumaSum);
  assert.deepEqual([...got.histogram], [...want.histogram]);
}

Deno.test("Device.import() of an NvBufSurface-shaped NV12 1080p frame matches the reference model", async () => {
  await roundTrip(NVBUF, 5);
});

Deno.test("Device.import() of a V4L2 multi-planar-like NV12 frame matches the reference model", async () => {
  await roundTrip(MPLANE, 6);
});

Deno.test("Device.import() refuses a tiled modifier with EOPNOTSUPP and bad planes with EINVAL", () => {
  using dev = Device.open();
  using buf = Heap.open("system").allocate(pageAlign(end(MPLANE)));
  const geometry = importGeometryFor(MPLANE);
  assert.throws(
    () => dev.import(buf, { ...geometry, modifier: 0x0300000000000014n }),
    (e: unknown) => e instanceof AxlError && e.code === "EOPNOTSUPP",
  );
  // chroma past the end of the buffer: only the driver knows the buffer's size
  assert.throws(
    () =>
      dev.import(buf, {
        format: "NV12",
        width: 640,
        height: 480,
        planes: [{ offset: 0, pitch: 640 }, { offset: buf.size, pitch: 640 }],
      }),
    (e: unknown) => e instanceof AxlError && e.code === "EINVAL",
  );
  assert.equal(dev.info().fileImports, 0);
});

Deno.test("Device.import() accepts a buffer that ends with the last line's payload (both ioctls)", () => {
  using dev = Device.open();
  // GREY 1024x5, stride 1792: 4 * 1792 + 1024 = 8192 bytes
  using buf = Heap.open("system").allocate(2 * PAGE);
  const v1 = dev.import(buf, { format: "GREY", width: 1024, height: 5, stride: 1792 });
  assert.equal(v1.ioctl, "IMPORT_FD");
  v1.release();
  const v2 = dev.import(buf, {
    format: "GREY",
    width: 1024,
    height: 5,
    planes: [{ offset: 0, pitch: 1792 }],
  });
  assert.equal(v2.ioctl, "IMPORT_FD2");
  v2.release();
  assert.throws(
    () => dev.import(buf, { format: "GREY", width: 1024, height: 6, stride: 1792 }),
    (e: unknown) => e instanceof AxlError && e.code === "EINVAL",
  );
});
