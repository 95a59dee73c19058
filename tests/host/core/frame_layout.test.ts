// The axl driver's frame layouts as formats' FrameLayout: frameLayout() for the single-stride
// layouts AXL_IOCTL_IMPORT_FD describes, placedLayout() for exporter-placed planes.
import assert from "node:assert/strict";
import { frameLayout, placedLayout } from "../../../lib/core/frame_layout.ts";
import { DRM_FORMAT, PIXEL_FORMATS } from "../../../lib/core/pixel_format.ts";
import { fourccCode, planeLayout } from "../../../lib/formats/mod.ts";
import { mulberry32 } from "../_rng.ts";

const shape = (l: ReturnType<typeof frameLayout>) =>
  l.planes.map((p) => [p.offset, p.stride, p.rows, p.rowBytes, p.size]);

Deno.test("frameLayout() keeps the driver's format name and carries the DRM fourcc", () => {
  const nv12 = frameLayout("NV12", 640, 480, 768);
  assert.equal(nv12.format, "NV12");
  assert.equal(nv12.fourcc, fourccCode("NV12"));
  assert.deepEqual(shape(nv12), [
    [0, 768, 480, 640, 768 * 480],
    [768 * 480, 768, 240, 640, 768 * 240],
  ]);
  assert.equal(nv12.size, 768 * 720);
  assert.equal(frameLayout("GREY", 10, 3).fourcc, fourccCode("R8"));
  assert.deepEqual(shape(frameLayout("YUYV", 320, 2)), [[0, 640, 2, 640, 1280]]);
  const raw = frameLayout("RAW", 100, 2);
  assert.equal(raw.format, "RAW");
  assert.deepEqual(shape(raw), [[0, 100, 2, 100, 200]]);
});

Deno.test("frameLayout() packed is planeLayout() of the same DRM format", () => {
  const rand = mulberry32(16);
  for (let i = 0; i < 200; i++) {
    const format = PIXEL_FORMATS[Math.floor(rand() * PIXEL_FORMATS.length)]!;
    const width = 2 * (1 + Math.floor(rand() * 960));
    const height = 2 * (1 + Math.floor(rand() * 540));
    const ours = frameLayout(format, width, height);
    const drm = planeLayout(DRM_FORMAT[format], width, height);
    assert.deepEqual(ours.planes, drm.planes, `${format} ${width}x${height}`);
    assert.equal(ours.size, drm.size);
  }
});

Deno.test("frameLayout() refuses what the driver refuses, naming the value", () => {
  assert.throws(() => frameLayout("NV12", 0, 480), /width must be a positive integer, got 0/);
  assert.throws(() => frameLayout("NV12", 641, 480), /NV12 needs even width and height/);
  assert.throws(() => frameLayout("YUYV", 3, 2), /YUYV needs an even width, got 3/);
  assert.throws(
    () => frameLayout("GREY", 640, 480, 600),
    /stride 600 is smaller than a line of GREY 640 px \(640 bytes\)/,
  );
});

Deno.test("placedLayout() moves the planes where the exporter put them", () => {
  const l = placedLayout("NV12", 640, 480, [{ offset: 256, stride: 640 }, {
    offset: 311296,
    stride: 768,
  }]);
  assert.deepEqual(shape(l), [[256, 640, 480, 640, 640 * 480], [311296, 768, 240, 640, 768 * 240]]);
  assert.equal(l.size, 311296 + 768 * 240);
  assert.throws(
    () => placedLayout("NV12", 640, 480, [{ offset: 0, stride: 640 }]),
    /NV12 has 2 plane\(s\), 1 given/,
  );
  assert.throws(
    () => placedLayout("GREY", 640, 480, [{ offset: 0, stride: 512 }]),
    /plane 0: stride 512 is below a line of 640 bytes/,
  );
});
