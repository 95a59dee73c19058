import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import { readFileSync } from "node:fs";
import { NVBUF_COLOR_FORMATS, nvbufColorFormat } from "../../../lib/nvmm/color_format.ts";
import {
  nvmmHandleToWire,
  nvmmImportParams,
  nvmmPlanes,
  parseNvmmHandle,
} from "../../../lib/nvmm/handle.ts";
import { planeLayout } from "../../../lib/formats/mod.ts";
import { fourccDefines } from "../formats/_headers.ts";
import { intIn, pick, seededRandom } from "../formats/_rand.ts";

const NV12_1080 = {
  gpu_ptr: 0x7f12a4000000,
  width: 1920,
  height: 1080,
  pitch: 2048,
  color_format: 6,
  size: 2048 * 1620,
  batch_size: 1,
};

Deno.test("parseNvmmHandle() accepts the contract's snake_case dump and returns a frozen handle", () => {
  const h = parseNvmmHandle(NV12_1080);
  strictEqual(h.gpuPtr, 0x7f12a4000000n);
  strictEqual(h.colorFormat.name, "NV12");
  strictEqual(h.colorFormat.drm.drm, "NV12");
  ok(Object.isFrozen(h));
  throws(() => {
    (h as { pitch: number }).pitch = 1;
  }, TypeError);
  // camelCase, pointer as hex string or bigint, colour format by name.
  const again = parseNvmmHandle({
    gpuPtr: "0x7f12a4000000",
    width: 1920,
    height: 1080,
    pitch: 2048,
    colorFormat: "NVBUF_COLOR_FORMAT_NV12",
    size: 2048 * 1620,
    batchSize: 1,
  });
  deepStrictEqual(again, h);
  deepStrictEqual(parseNvmmHandle({ ...NV12_1080, gpu_ptr: 0x7f12a4000000n }), h);
});

Deno.test("parseNvmmHandle() enforces pitch >= width and names the numbers", () => {
  throws(
    () => parseNvmmHandle({ ...NV12_1080, pitch: 1900 }),
    /pitch 1900 < 1920 bytes a row of 1920 NV12 pixels needs/,
  );
  throws(
    () => parseNvmmHandle({ ...NV12_1080, color_format: "RGBA", size: 1 << 24 }),
    /pitch 2048 < 7680 bytes/,
  );
  strictEqual(
    parseNvmmHandle({ ...NV12_1080, color_format: "RGBA", pitch: 7680, size: 7680 * 1080 })
      .colorFormat.drm.drm,
    "ABGR8888",
  );
});

Deno.test("parseNvmmHandle() checks size against NV12 plane arithmetic", () => {
  throws(
    () => parseNvmmHandle({ ...NV12_1080, size: 2048 * 1620 - 1 }),
    /size 3317759 < 3317760 bytes the NV12 planes need at pitch 2048/,
  );
  const odd = parseNvmmHandle({ ...NV12_1080, height: 1081, size: 2048 * (1081 + 541) });
  deepStrictEqual(nvmmPlanes(odd).map((p) => [p.offset, p.rows, p.size]), [
    [0, 1081, 2048 * 1081],
    [2048 * 1081, 541, 2048 * 541],
  ]);
});

Deno.test("parseNvmmHandle() refuses block-linear, NULL, multi-pitch formats and unknown colour formats", () => {
  throws(
    () => parseNvmmHandle({ ...NV12_1080, layout: "block-linear" }),
    /block-linear.*NVBUF_LAYOUT_PITCH/,
  );
  throws(() => parseNvmmHandle({ ...NV12_1080, gpu_ptr: 0 }), /gpu_ptr is NULL/);
  throws(
    () => parseNvmmHandle({ ...NV12_1080, color_format: "YUV420" }),
    /YUV420 planes have different row sizes/,
  );
  throws(() => parseNvmmHandle({ ...NV12_1080, color_format: 999 }), RangeError);
  throws(
    () => parseNvmmHandle({ ...NV12_1080, color_format: "NV99" }),
    /unknown NvBufSurface colour format "NV99"/,
  );
  // Several problems are reported together.
  throws(() => parseNvmmHandle({ ...NV12_1080, gpu_ptr: 0, pitch: 100 }), /NULL; pitch 100/);
});

Deno.test("parseNvmmHandle() rejects wrong shapes with a TypeError naming the fields", () => {
  throws(() => parseNvmmHandle({ ...NV12_1080, batch_size: 0 }), /batch_size/);
  throws(() => parseNvmmHandle({ ...NV12_1080, width: 1.5 }), /width/);
  throws(() => parseNvmmHandle({ ...NV12_1080, extra: 1 }), TypeError);
  const { pitch: _p, ...noPitch } = NV12_1080;
  throws(() => parseNvmmHandle(noPitch), /pitch/);
  throws(() => parseNvmmHandle({ ...NV12_1080, gpu_ptr: 2 ** 60 }), /send it as a string/);
  throws(() => parseNvmmHandle({ ...NV12_1080, gpu_ptr: "0xZZ" }), TypeError);
  throws(() => parseNvmmHandle(null), TypeError);
  throws(() => parseNvmmHandle("handle"), TypeError);
});

Deno.test("nvmmHandleToWire() round-trips through JSON, 64-bit pointers included", () => {
  const h = parseNvmmHandle({ ...NV12_1080, gpu_ptr: "0xffffffff00001000" });
  const back = parseNvmmHandle(JSON.parse(JSON.stringify(nvmmHandleToWire(h))));
  deepStrictEqual(back, h);
  strictEqual(back.gpuPtr, 0xffffffff00001000n);
});

Deno.test("nvmmImportParams() gives the DRM fourcc the uapi header uses for AXL_PIXFMT_NV12", () => {
  const header = readFileSync(
    new URL("../../../kernel/include/uapi/linux/axl.h", import.meta.url),
    "utf8",
  );
  const nv12 = fourccDefines(header, "AXL_PIXFMT_", "axl_fourcc_code").get("NV12")!;
  const code = [...nv12].reduce((acc, c, i) => acc | (c.charCodeAt(0) << (8 * i)), 0) >>> 0;
  deepStrictEqual(
    nvmmImportParams(parseNvmmHandle({ ...NV12_1080, color_format: "NV12_709_ER" })),
    {
      width: 1920,
      height: 1080,
      fourcc: code,
      stride: 2048,
    },
  );
});

Deno.test("NvBufSurface colour formats map to DRM formats consistently", () => {
  const values = NVBUF_COLOR_FORMATS.map((f) => f.value);
  strictEqual(new Set(values).size, values.length);
  for (const f of NVBUF_COLOR_FORMATS) {
    // Range and matrix variants lay bytes out as their base format does.
    const base = f.name.replace(/(_ER|_709|_2020)+$/, "");
    strictEqual(f.drm, nvbufColorFormat(base).drm, f.name);
    // Packed RGB names are memory order, like GStreamer's.
    if (/^[RGBAx]{3,4}$/.test(f.name)) strictEqual(f.drm.gst, f.name);
  }
  strictEqual(nvbufColorFormat("NV12_10LE").drm.drm, "P010");
  strictEqual(nvbufColorFormat("GRAY8").drm.drm, "R8");
  // deno-lint-ignore no-explicit-any
  throws(() => nvbufColorFormat(null as any), TypeError);
});

Deno.test("NVMM plane arithmetic equals planeLayout() at the same pitch", () => {
  const { seed, next } = seededRandom("nvmm");
  const single = NVBUF_COLOR_FORMATS.filter((f) =>
    f.drm.planes.every((p) =>
      p.bytesPerBlock / p.blockWidth ===
        f.drm.planes[0]!.bytesPerBlock / f.drm.planes[0]!.blockWidth
    )
  );
  for (let i = 0; i < 1000; i++) {
    const f = pick(next, single);
    const width = intIn(next, 1, 4096) * (f.drm.planes.some((p) => p.blockWidth > 1) ? 2 : 1);
    const height = intIn(next, 1, 2160);
    const layout = planeLayout(f.drm, width, height, { strideAlign: pick(next, [64, 256, 512]) });
    const pitch = layout.planes[0]!.stride;
    const h = parseNvmmHandle({
      gpu_ptr: 4096,
      width,
      height,
      pitch,
      color_format: f.value,
      size: layout.size,
      batch_size: intIn(next, 1, 8),
    });
    deepStrictEqual(
      nvmmPlanes(h).map((p) => [p.offset, p.pitch, p.size]),
      layout.planes.map((p) => [p.offset, p.stride, p.size]),
      `AXL_TEST_SEED=${seed} ${f.name} ${width}x${height}`,
    );
  }
});
