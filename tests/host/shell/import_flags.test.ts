// The shell's `import` flags for per-plane layouts (AXL_IOCTL_IMPORT_FD2).
import assert from "node:assert/strict";
import { UsageError } from "../../../lib/commands/spec.ts";
import { planesFromFlags } from "../../../lib/shell/commands/import.ts";

Deno.test("planesFromFlags() is undefined without --offsets or --pitches", () => {
  assert.equal(planesFromFlags("NV12", 640, 480, {}), undefined);
  assert.equal(planesFromFlags("NV12", 640, 480, { stride: "768" }), undefined);
});

Deno.test("planesFromFlags() reads an NvBufSurface layout", () => {
  assert.deepEqual(
    planesFromFlags("NV12", 1920, 1080, { offsets: "0,0x220000", pitches: "2048,2048" }),
    [{ offset: 0, pitch: 2048 }, { offset: 2048 * 1088, pitch: 2048 }],
  );
  // one pitch stands for every plane
  assert.deepEqual(
    planesFromFlags("NV12", 1920, 1080, { offsets: "0,2228224", pitches: "2048" }),
    [{ offset: 0, pitch: 2048 }, { offset: 2048 * 1088, pitch: 2048 }],
  );
});

Deno.test("planesFromFlags() derives the missing list", () => {
  assert.deepEqual(planesFromFlags("NV12", 640, 480, { pitches: "768" }), [
    { offset: 0, pitch: 768 },
    { offset: 768 * 480, pitch: 768 },
  ]);
  assert.deepEqual(planesFromFlags("YUYV", 320, 240, { offsets: "4160" }), [
    { offset: 4160, pitch: 640 },
  ]);
});

Deno.test("planesFromFlags() rejects wrong counts, --stride with planes and bad numbers", () => {
  assert.throws(() => planesFromFlags("GREY", 8, 8, { offsets: "0,64" }), UsageError);
  assert.throws(() => planesFromFlags("NV12", 8, 8, { offsets: "0" }), UsageError);
  assert.throws(() => planesFromFlags("NV12", 8, 8, { pitches: "8", stride: "8" }), UsageError);
  assert.throws(() => planesFromFlags("NV12", 8, 8, { pitches: "8,-1" }), RangeError);
});
