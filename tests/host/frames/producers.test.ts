// The producers' parts that need no camera and no heap: the test pattern, the buffer size a
// V4L2 capture allocates, and the errors of a producer that cannot open.
import assert from "node:assert/strict";
import { fillPattern } from "../../../lib/frames/producers/heap_producer.ts";
import { contiguousDefault, V4l2Producer } from "../../../lib/frames/producers/v4l2_producer.ts";
import { ArgusProducer } from "../../../lib/frames/producers/argus_producer.ts";
import { frameLayout } from "../../../lib/frames/frame.ts";
import { referenceResult } from "../../../lib/frames/reference.ts";
import { thrownAxlError } from "../_thrown.ts";

Deno.test("fillPattern() writes each plane's payload and zeroes its padding", () => {
  const layout = frameLayout("NV12", 4, 2, 6);
  const bytes = new Uint8Array(layout.size).fill(0xee);
  fillPattern(bytes, layout, 1, 0);
  const base = (1 * 37) & 0xff;
  assert.deepEqual([...bytes.subarray(0, 6)], [base, base + 1, base + 2, base + 3, 0, 0]);
  assert.deepEqual([...bytes.subarray(6, 12)], [base + 3, base + 4, base + 5, base + 6, 0, 0]);
  const chroma = (base + 101) & 0xff;
  assert.deepEqual([...bytes.subarray(12, 18)], [chroma, chroma + 1, chroma + 2, chroma + 3, 0, 0]);
});

Deno.test("fillPattern() gives every buffer index its own reproducible content", () => {
  const layout = frameLayout("GREY", 64, 16);
  const fill = (index: number) => {
    const bytes = new Uint8Array(layout.size);
    fillPattern(bytes, layout, 7, index);
    return referenceResult(bytes, layout).crc32;
  };
  assert.equal(fill(0), fill(0));
  assert.notEqual(fill(0), fill(1));
});

Deno.test("contiguousDefault(): 1 MiB from the system heap when a frame fits, else the frame", () => {
  assert.equal(contiguousDefault({ name: "system" }, { sizeImage: 640 * 480 * 3 / 2 }), 1 << 20);
  assert.equal(contiguousDefault({ name: "system" }, { sizeImage: 1 << 20 }), 1 << 20);
  assert.equal(contiguousDefault({ name: "system" }, { sizeImage: (1 << 20) + 1 }), 0);
  assert.equal(contiguousDefault({ name: "linux,cma" }, { sizeImage: 4096 }), 0);
});

Deno.test("V4l2Producer.open() of a missing node and ArgusProducer off a Jetson fail clearly", () => {
  const v4l2 = thrownAxlError(() => V4l2Producer.open({ device: "/dev/axl-no-video" }));
  assert.match(v4l2.message, /v4l2\.open\(\/dev\/axl-no-video\)/);
  assert.equal(ArgusProducer.available(), false);
  const argus = thrownAxlError(() => ArgusProducer.open());
  assert.equal(argus.code, "ENOSYS");
});
