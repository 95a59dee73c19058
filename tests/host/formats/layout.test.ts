import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import {
  alignUp,
  checkLayout,
  FORMATS,
  MOD_INVALID,
  modifierCode,
  ModifierVendor,
  nvidiaBlockLinear,
  planeLayout,
} from "../../../lib/formats/mod.ts";
import { intIn, pick, seededRandom } from "./_rand.ts";

const spans = (l: ReturnType<typeof planeLayout>) =>
  l.planes.map((p) => ({ offset: p.offset, stride: p.stride, size: p.size }));

Deno.test("planeLayout() gives NV12 1920x1080 the 3110400 bytes of the original design's import trace", () => {
  const l = planeLayout("NV12", 1920, 1080);
  deepStrictEqual(spans(l), [
    { offset: 0, stride: 1920, size: 2073600 },
    { offset: 2073600, stride: 1920, size: 1036800 },
  ]);
  strictEqual(l.size, 3110400);
  strictEqual(l.paddedHeight, 1080);
});

Deno.test("planeLayout() pads 1080 lines to 1088 with heightAlign 16 and keeps height 1080", () => {
  const l = planeLayout("NV12", 1920, 1080, { heightAlign: 16 });
  strictEqual(l.height, 1080);
  strictEqual(l.paddedHeight, 1088);
  deepStrictEqual(spans(l), [
    { offset: 0, stride: 1920, size: 1920 * 1088 },
    { offset: 1920 * 1088, stride: 1920, size: 1920 * 544 },
  ]);
  strictEqual(l.size, 3133440);
});

Deno.test("planeLayout() aligns strides and plane starts", () => {
  const l = planeLayout("NV12", 1000, 1000, { strideAlign: 256, planeAlign: 4096 });
  strictEqual(l.planes[0]!.stride, 1024);
  strictEqual(l.planes[0]!.rowBytes, 1000);
  strictEqual(l.planes[1]!.offset, alignUp(1024 * 1000, 4096));
  strictEqual(l.planes[1]!.rows, 500);
});

Deno.test("planeLayout() rounds chroma up for odd sizes (I420 641x481)", () => {
  const l = planeLayout("YUV420", 641, 481);
  deepStrictEqual(l.planes.map((p) => [p.rowBytes, p.rows]), [[641, 481], [321, 241], [321, 241]]);
  strictEqual(l.size, 641 * 481 + 2 * 321 * 241);
});

Deno.test("planeLayout() handles packed, 16-bit and RGB formats", () => {
  strictEqual(planeLayout("YUYV", 1920, 1080).planes[0]!.stride, 3840);
  strictEqual(planeLayout("YUYV", 641, 1).planes[0]!.stride, 1284);
  const p010 = planeLayout("P010", 1920, 1080);
  deepStrictEqual(p010.planes.map((p) => [p.stride, p.rows]), [[3840, 1080], [3840, 540]]);
  strictEqual(planeLayout("RGB888", 1920, 1080).size, 1920 * 1080 * 3);
  strictEqual(planeLayout("XRGB8888", 1920, 1080).planes[0]!.stride, 7680);
  strictEqual(planeLayout("R8", 640, 480).size, 307200);
  strictEqual(planeLayout("NV16", 1920, 1080).planes[1]!.rows, 1080);
  strictEqual(planeLayout("NV24", 1920, 1080).planes[1]!.stride, 3840);
});

Deno.test("planeLayout() pads NVIDIA block-linear planes to whole GOBs and blocks", () => {
  // 16 GOBs of 8 rows: blocks are 128 rows tall; GOBs are 64 bytes wide.
  const mod = nvidiaBlockLinear({ c: 0, s: 1, g: 2, k: 0xfe, h: 4 });
  const l = planeLayout("NV12", 1918, 1080, { modifier: mod });
  deepStrictEqual(l.planes.map((p) => [p.stride, p.rows]), [[1920, 1152], [1920, 640]]);
  // Generation 1 (G80..GT2XX) GOBs are 4 rows tall.
  const g1 = planeLayout("R8", 64, 5, {
    modifier: nvidiaBlockLinear({ c: 0, s: 0, g: 1, k: 0, h: 0 }),
  });
  strictEqual(g1.planes[0]!.rows, 8);
});

Deno.test("planeLayout() refuses layouts it cannot size and bad arguments", () => {
  throws(() => planeLayout("NV12", 64, 64, { modifier: MOD_INVALID }), /driver picks the layout/);
  throws(
    () => planeLayout("NV12", 64, 64, { modifier: modifierCode(ModifierVendor.INTEL, 2n) }),
    /no size model for I915_Y_TILED/,
  );
  throws(() => planeLayout("NV12", 0, 64), /width must be a positive integer, got 0/);
  throws(() => planeLayout("NV12", 64, 1.5), RangeError);
  throws(() => planeLayout("NV12", 64, 64, { strideAlign: 0 }), /strideAlign/);
  throws(() => planeLayout("NV12", 64, 64, { heightAlign: -16 }), /heightAlign/);
  throws(() => planeLayout("NOPE", 64, 64), /unknown pixel format/);
  throws(() => planeLayout("NV12", 2 ** 40, 2 ** 20), /too large/);
  // deno-lint-ignore no-explicit-any
  throws(() => planeLayout("NV12", 64, 64, { modifier: 0 as any }), TypeError);
  throws(() => alignUp(-1, 4), RangeError);
  throws(() => alignUp(1, 0), RangeError);
});

Deno.test("checkLayout() names stride, overflow, overlap and plane-count problems", () => {
  const ok1 = planeLayout("NV12", 1920, 1080);
  deepStrictEqual(checkLayout("NV12", 1920, 1080, ok1.planes, ok1.size), []);
  const problems = checkLayout("NV12", 1920, 1080, [
    { offset: 0, stride: 1900 },
    { offset: 1920 * 1080, stride: 1920 },
  ], 3110400);
  deepStrictEqual(problems, [
    "plane 0: stride 1900 is less than the 1920 bytes a row of 1920 pixels needs",
  ]);
  ok(
    checkLayout("NV12", 1920, 1080, ok1.planes, ok1.size - 1)[0]!.includes("past the 3110399-byte"),
  );
  ok(
    checkLayout(
      "NV12",
      1920,
      1080,
      [{ offset: 0, stride: 1920 }, { offset: 1000, stride: 1920 }],
      1e7,
    )
      .some((p) => p.includes("inside plane 0")),
  );
  deepStrictEqual(checkLayout("NV12", 64, 64, [{ offset: 0, stride: 64 }], 1e6), [
    "NV12 has 2 plane(s), the description has 1",
  ]);
  ok(checkLayout("NV12", 64, 64, [{ offset: -1, stride: 64 }, { offset: 0, stride: 64 }], 1e6)[0]!
    .includes("offset -1"));
  throws(() => checkLayout("NV12", 64, 64, [], -1), RangeError);
});

Deno.test("planeLayout() invariants hold for random formats, sizes and alignments", () => {
  const { seed, next } = seededRandom("layout");
  try {
    for (let i = 0; i < 2000; i++) {
      const f = pick(next, FORMATS);
      const w = intIn(next, 1, 4100);
      const h = intIn(next, 1, 2200);
      const strideAlign = 2 ** intIn(next, 0, 8);
      const heightAlign = pick(next, [1, 2, 8, 16, 32, 64]);
      const planeAlign = 2 ** intIn(next, 0, 12);
      const l = planeLayout(f, w, h, { strideAlign, heightAlign, planeAlign });
      let end = 0;
      for (const p of l.planes) {
        ok(p.stride >= p.rowBytes && p.stride % strideAlign === 0);
        ok(p.offset >= end && p.offset % planeAlign === 0);
        strictEqual(p.size, p.stride * p.rows);
        end = p.offset + p.size;
      }
      strictEqual(l.size, end);
      ok(
        l.paddedHeight >= h && l.paddedHeight % heightAlign === 0 &&
          l.paddedHeight - h < heightAlign,
      );
      deepStrictEqual(checkLayout(f, w, h, l.planes, l.size), [], `${f.drm} ${w}x${h}`);
    }
  } catch (e) {
    throw new Error(`failed with AXL_TEST_SEED=${seed}`, { cause: e });
  }
});
