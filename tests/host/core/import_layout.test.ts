// The import layout code: which ioctl an import uses, the planes it describes, where a
// frame ends, and the reference model on layouts with per-plane offsets and pitches.
import assert from "node:assert/strict";
import { ImportOptions } from "../../../lib/core/device.ts";
import { parseOptions } from "../../../lib/core/parse_options.ts";
import { frameLayout, placedLayout } from "../../../lib/core/frame_layout.ts";
import type { FrameLayout } from "../../../lib/formats/layout.ts";
import type { PixelFormat } from "../../../lib/core/pixel_format.ts";
import {
  FORMAT_MOD_LINEAR,
  importGeometryFor,
  importRequest,
  planesEnd,
  v1Planes,
} from "../../../lib/core/import_layout.ts";
import { crc32, referenceResult } from "../../../lib/frames/reference.ts";
import { mulberry32 } from "../_rng.ts";

/** An NvBufSurface-shaped NV12 1920x1080: pitch 2048, luma padded to 1088 lines. */
function nvbufLayout(): FrameLayout<PixelFormat> {
  return placedLayout("NV12", 1920, 1080, [
    { offset: 0, stride: 2048 },
    { offset: 2048 * 1088, stride: 2048 },
  ]);
}

Deno.test("v1Planes() lays planes out as AXL_IOCTL_IMPORT_FD documents", () => {
  assert.deepEqual(v1Planes("NV12", 640, 480), [
    { offset: 0, pitch: 640 },
    { offset: 640 * 480, pitch: 640 },
  ]);
  assert.deepEqual(v1Planes("YUYV", 320, 240, 1024), [{ offset: 0, pitch: 1024 }]);
  assert.deepEqual(v1Planes("GREY", 10, 3), [{ offset: 0, pitch: 10 }]);
});

Deno.test("planesEnd() stops at the last line's payload, not its padding", () => {
  assert.equal(planesEnd("GREY", 1024, 5, [{ offset: 0, pitch: 1792 }]), 8192);
  assert.equal(
    planesEnd("NV12", 1920, 1080, [{ offset: 0, pitch: 2048 }, {
      offset: 2048 * 1088,
      pitch: 2048,
    }]),
    2048 * 1088 + 2048 * 539 + 1920,
  );
  assert.equal(planesEnd("YUYV", 4, 2, [{ offset: 100, pitch: 16 }]), 100 + 16 + 8);
});

Deno.test("importRequest() uses IMPORT_FD for a stride and IMPORT_FD2 for planes or a modifier", () => {
  assert.deepEqual(importRequest({ format: "GREY", width: 64, height: 64, stride: 128 }), {
    ioctl: "IMPORT_FD",
    stride: 128,
    planes: [{ offset: 0, pitch: 128 }],
  });
  const nv = importRequest({
    format: "NV12",
    width: 1920,
    height: 1080,
    planes: [{ offset: 0, pitch: 2048 }, { offset: 2048 * 1088, pitch: 2048 }],
  });
  assert.equal(nv.ioctl, "IMPORT_FD2");
  assert.equal(nv.ioctl === "IMPORT_FD2" && nv.modifier, FORMAT_MOD_LINEAR);
  // a v1-shaped layout given as planes still goes through IMPORT_FD2: planes were asked for
  assert.equal(
    importRequest({ format: "GREY", width: 8, height: 8, planes: [{ offset: 0, pitch: 8 }] })
      .ioctl,
    "IMPORT_FD2",
  );
  const tiled = importRequest({ format: "GREY", width: 8, height: 8, modifier: 1n << 56n });
  assert.deepEqual(tiled, {
    ioctl: "IMPORT_FD2",
    planes: [{ offset: 0, pitch: 8 }],
    modifier: 1n << 56n,
  });
});

Deno.test("importRequest() rejects plane counts, pitches and orders the driver would", () => {
  const base = { format: "NV12" as const, width: 640, height: 480 };
  const bad: [string, object, ErrorConstructor][] = [
    ["one plane for NV12", { planes: [{ offset: 0, pitch: 640 }] }, RangeError],
    [
      "pitch below the line",
      { planes: [{ offset: 0, pitch: 639 }, { offset: 1e6, pitch: 640 }] },
      RangeError,
    ],
    [
      "overlap",
      { planes: [{ offset: 0, pitch: 640 }, { offset: 640 * 480 - 1, pitch: 640 }] },
      RangeError,
    ],
    [
      "descending",
      { planes: [{ offset: 640 * 480, pitch: 640 }, { offset: 0, pitch: 640 }] },
      RangeError,
    ],
    [
      "negative offset",
      { planes: [{ offset: -1, pitch: 640 }, { offset: 1e6, pitch: 640 }] },
      RangeError,
    ],
    [
      "pitch over u32",
      { planes: [{ offset: 0, pitch: 2 ** 32 }, { offset: 2 ** 45, pitch: 640 }] },
      RangeError,
    ],
    ["stride and planes", {
      stride: 640,
      planes: [{ offset: 0, pitch: 640 }, { offset: 640 * 480, pitch: 640 }],
    }, TypeError],
  ];
  for (const [what, extra, type] of bad) {
    assert.throws(() => importRequest({ ...base, ...extra }), type, what);
  }
  // planes may touch: chroma starting right at the end of luma's last payload
  const tight = importRequest({
    ...base,
    planes: [{ offset: 0, pitch: 1024 }, { offset: 1024 * 479 + 640, pitch: 640 }],
  });
  assert.equal(tight.ioctl, "IMPORT_FD2");
});

Deno.test("importGeometryFor() keeps IMPORT_FD for layouts it can express", () => {
  assert.deepEqual(importGeometryFor(frameLayout("NV12", 640, 480, 768)), {
    format: "NV12",
    width: 640,
    height: 480,
    stride: 768,
  });
  assert.deepEqual(importGeometryFor(nvbufLayout()), {
    format: "NV12",
    width: 1920,
    height: 1080,
    planes: [{ offset: 0, pitch: 2048 }, { offset: 2048 * 1088, pitch: 2048 }],
  });
  assert.equal(importRequest(importGeometryFor(nvbufLayout())).ioctl, "IMPORT_FD2");
});

Deno.test("ImportOptions accepts planes and a bigint modifier, and bounds them", () => {
  const o = parseOptions(ImportOptions, {
    width: 4,
    height: 2,
    planes: [{ offset: 0, pitch: 8 }, { offset: 64, pitch: 8 }],
    modifier: 0n,
  }, "import");
  assert.deepEqual(o.planes, [{ offset: 0, pitch: 8 }, { offset: 64, pitch: 8 }]);
  assert.equal(o.modifier, 0n);
  assert.throws(
    () => parseOptions(ImportOptions, { width: 4, height: 2, planes: [] }, "i"),
    RangeError,
  );
  assert.throws(
    () =>
      parseOptions(ImportOptions, {
        width: 4,
        height: 2,
        planes: Array(5).fill({ offset: 0, pitch: 4 }),
      }, "i"),
    RangeError,
  );
  assert.throws(
    () => parseOptions(ImportOptions, { width: 4, height: 2, modifier: 1n << 64n }, "i"),
    RangeError,
  );
  assert.throws(
    () =>
      parseOptions(
        ImportOptions,
        { width: 4, height: 2, planes: [{ offset: 0, pitch: 4, x: 1 }] },
        "i",
      ),
    TypeError,
  );
});

Deno.test("referenceResult() reads each plane at its own offset and pitch", () => {
  const layout = nvbufLayout();
  const rand = mulberry32(7);
  const end = planesEnd("NV12", 1920, 1080, [{ offset: 0, pitch: 2048 }, {
    offset: 2048 * 1088,
    pitch: 2048,
  }]);
  const bytes = new Uint8Array(end); // exactly to the last payload byte
  for (let i = 0; i < bytes.length; i++) bytes[i] = Math.floor(rand() * 256);

  // the same pixels packed: the CRC covers payload only, so it must agree
  const packed = new Uint8Array(1920 * 1080 * 3 / 2);
  let o = 0;
  for (const p of layout.planes) {
    for (let l = 0; l < p.rows; l++) {
      packed.set(bytes.subarray(p.offset + l * p.stride, p.offset + l * p.stride + 1920), o);
      o += 1920;
    }
  }
  const r = referenceResult(bytes, layout);
  const q = referenceResult(packed, frameLayout("NV12", 1920, 1080));
  assert.equal(r.crc32, crc32(packed));
  assert.deepEqual(r, q);
  // padding and the gap between the planes do not count
  bytes[1920] = bytes[1920]! ^ 0xff;
  bytes[2048 * 1080 + 5] = bytes[2048 * 1080 + 5]! ^ 0xff;
  assert.deepEqual(referenceResult(bytes, layout), r);
  assert.throws(() => referenceResult(bytes.subarray(0, end - 1), layout), RangeError);
});
