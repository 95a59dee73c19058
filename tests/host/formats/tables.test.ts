import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import { readFileSync } from "node:fs";
import {
  drmToGst,
  drmToV4l2,
  findFormat,
  formatInfo,
  FORMATS,
  fourccCode,
  fourccString,
  gstToDrm,
  lookupV4l2,
  ModifierVendor,
  NAMED_MODIFIERS,
  v4l2ToDrm,
} from "../../../lib/formats/mod.ts";
import { drmFourccHeader, fourccDefines, inCI, videodev2Header } from "./_headers.ts";

const drmHeader = drmFourccHeader();
const v4l2Header = videodev2Header();

Deno.test("fourccCode() packs characters little-endian and pads with spaces", () => {
  strictEqual(fourccCode("NV12"), 0x3231564e);
  strictEqual(fourccCode("R8"), 0x20203852);
  strictEqual(fourccString(0x20203852), "R8");
  strictEqual(fourccString(fourccCode("NV12") | 0x80000000), "NV12 (big-endian)");
  strictEqual(fourccString(0), "0x00000000");
  throws(() => fourccCode(""), RangeError);
  throws(() => fourccCode("NV123"), RangeError);
  throws(() => fourccCode("N\u00e912"), /non-ASCII/);
  throws(() => fourccString(-(2 ** 31) - 1), RangeError);
  throws(() => fourccString(1.5), RangeError);
  throws(() => fourccString(2 ** 32), RangeError);
});

Deno.test("fourccString() inverts fourccCode() for every table entry", () => {
  for (const f of FORMATS) strictEqual(fourccString(fourccCode(f.fourcc)), f.fourcc);
});

Deno.test("format table has unique DRM names, fourccs, GStreamer and V4L2 names", () => {
  const uniq = (xs: string[]) => strictEqual(new Set(xs).size, xs.length, xs.join(","));
  uniq(FORMATS.map((f) => f.drm));
  uniq(FORMATS.map((f) => f.fourcc));
  uniq(FORMATS.flatMap((f) => (f.gst ? [f.gst] : [])));
  uniq(FORMATS.flatMap((f) => f.v4l2.map((v) => v.name)));
  uniq(FORMATS.flatMap((f) => f.v4l2.map((v) => v.fourcc)));
  ok(FORMATS.length >= 30);
  ok(Object.isFrozen(FORMATS) && Object.isFrozen(FORMATS[0]));
});

Deno.test("format table covers the formats this field uses", () => {
  for (
    const name of [
      "NV12",
      "NV21",
      "NV16",
      "P010",
      "YUYV",
      "UYVY",
      "RGB888",
      "BGR888",
      "XRGB8888",
      "ARGB8888",
      "ABGR8888",
      "XBGR8888",
      "R8",
    ]
  ) ok(findFormat(name), name);
});

Deno.test("findFormat() accepts DRM names, prefixed names, fourccs and codes", () => {
  strictEqual(findFormat("DRM_FORMAT_XRGB8888")?.fourcc, "XR24");
  strictEqual(findFormat("XR24")?.drm, "XRGB8888");
  strictEqual(findFormat("R8  ")?.drm, "R8");
  strictEqual(findFormat(fourccCode("YU12"))?.drm, "YUV420");
  strictEqual(findFormat("NOPE"), undefined);
  strictEqual(findFormat("toolongname"), undefined);
  throws(() => formatInfo("NV99"), /unknown pixel format "NV99"; known DRM formats: NV12/);
  throws(() => formatInfo(123), /unknown pixel format 0x0000007b/);
  // deno-lint-ignore no-explicit-any
  throws(() => formatInfo(null as any), TypeError);
});

Deno.test("packed RGB names agree: DRM word order reversed is the memory order GStreamer names", () => {
  let checked = 0;
  for (const f of FORMATS) {
    if (!f.memoryOrder) continue;
    const letters = f.drm.replace(/\d+$/, "").replace("X", "x");
    strictEqual([...letters].reverse().join(""), f.memoryOrder, f.drm);
    strictEqual(f.gst, f.memoryOrder, f.drm);
    checked++;
  }
  ok(checked >= 10);
});

Deno.test("32-bit RGB V4L2 formats share the DRM fourcc of the same bytes", () => {
  for (const f of FORMATS.filter((f) => f.memoryOrder?.length === 4)) {
    strictEqual(f.v4l2[0]?.fourcc, f.fourcc, f.drm);
  }
});

Deno.test("drmToGst() and gstToDrm() are inverse on every mapped format", () => {
  for (const f of FORMATS) {
    if (!f.gst) {
      strictEqual(drmToGst(f.drm), undefined);
      continue;
    }
    strictEqual(gstToDrm(drmToGst(f.drm)!)?.drm, f.drm);
  }
  strictEqual(drmToGst("ARGB8888"), "BGRA");
  strictEqual(drmToGst("BGR888"), "RGB");
  strictEqual(drmToGst("YUYV"), "YUY2");
  strictEqual(drmToGst("P010"), "P010_10LE");
  strictEqual(gstToDrm("GRAY8")?.drm, "R8");
  strictEqual(gstToDrm("NV12_4L4"), undefined);
  // deno-lint-ignore no-explicit-any
  throws(() => gstToDrm(1 as any), TypeError);
});

Deno.test("drmToV4l2() and v4l2ToDrm() map both ways, with *M multi-buffer variants", () => {
  for (const f of FORMATS) {
    for (const v of f.v4l2) {
      strictEqual(v4l2ToDrm(v.name)?.drm, f.drm);
      strictEqual(v4l2ToDrm(v.fourcc)?.drm, f.drm);
      strictEqual(v4l2ToDrm(fourccCode(v.fourcc))?.drm, f.drm);
      deepStrictEqual(drmToV4l2(f.drm, { separatePlanes: v.separatePlanes }), v);
    }
  }
  strictEqual(drmToV4l2("BGR888")?.name, "RGB24");
  strictEqual(drmToV4l2("RGB888")?.name, "BGR24");
  strictEqual(drmToV4l2("NV12", { separatePlanes: true })?.name, "NV12M");
  strictEqual(drmToV4l2("YUV444"), undefined);
  strictEqual(drmToV4l2("BGR565"), undefined);
  strictEqual(v4l2ToDrm("V4L2_PIX_FMT_GREY")?.drm, "R8");
  strictEqual(lookupV4l2("MJPG"), undefined);
  strictEqual(lookupV4l2("way too long"), undefined);
});

Deno.test("DRM fourccs and modifier constants match the installed drm_fourcc.h", {
  ignore: !drmHeader && !inCI,
}, () => {
  if (!drmHeader) {
    throw new Error("drm_fourcc.h not found: install libdrm-dev or set AXL_DRM_FOURCC_H");
  }
  const defs = fourccDefines(drmHeader.text, "DRM_FORMAT_", "fourcc_code");
  ok(defs.size > 50, `parsed only ${defs.size} formats from ${drmHeader.path}`);
  for (const f of FORMATS) {
    strictEqual(
      defs.get(f.drm),
      f.fourcc.padEnd(4, " "),
      `DRM_FORMAT_${f.drm} in ${drmHeader.path}`,
    );
  }
  const vendors = new Map<string, number>();
  for (
    const m of drmHeader.text.matchAll(
      /^#define\s+DRM_FORMAT_MOD_VENDOR_(\w+)\s+(0x[0-9a-fA-F]+|\d+)/gm,
    )
  ) {
    vendors.set(m[1]!, Number(m[2]!));
  }
  for (const [name, code] of Object.entries(ModifierVendor)) {
    strictEqual(vendors.get(name), code, name);
  }
  // Modifiers written as fourcc_mod_code(VENDOR, n) in the header.
  let compared = 0;
  for (
    const m of drmHeader.text.matchAll(
      /^#define\s+(?:DRM_FORMAT_MOD_|(I915)_FORMAT_MOD_)(\w+)\s+fourcc_mod_code\((\w+),\s*(\d+)\)/gm,
    )
  ) {
    const name = m[1] ? `I915_${m[2]}` : m[2]!;
    const mine = NAMED_MODIFIERS.get(name);
    if (mine === undefined) continue;
    const vendor = vendors.get(m[3]!)!;
    strictEqual(mine, (BigInt(vendor) << 56n) | BigInt(m[4]!), name);
    compared++;
  }
  ok(compared >= 8, `compared ${compared} named modifiers`);
});

Deno.test("V4L2 fourccs match the installed linux/videodev2.h", {
  ignore: !v4l2Header && !inCI,
}, () => {
  if (!v4l2Header) throw new Error("linux/videodev2.h not found: install linux-libc-dev");
  const defs = fourccDefines(v4l2Header.text, "V4L2_PIX_FMT_", "v4l2_fourcc");
  ok(defs.size > 50);
  for (const f of FORMATS) {
    for (const v of f.v4l2) {
      strictEqual(defs.get(v.name), v.fourcc.padEnd(4, " "), `V4L2_PIX_FMT_${v.name}`);
    }
  }
});

Deno.test("AXL_PIXFMT_* codes in the uapi header are DRM fourccs the table knows", () => {
  const header = readFileSync(
    new URL("../../../kernel/include/uapi/linux/axl.h", import.meta.url),
    "utf8",
  );
  const defs = fourccDefines(header, "AXL_PIXFMT_", "axl_fourcc_code");
  ok(defs.size >= 3, "expected AXL_PIXFMT_NV12, GREY, YUYV");
  for (const [name, code] of defs) {
    const f = findFormat(code);
    ok(f, `AXL_PIXFMT_${name} = '${code}' is not in the format table`);
  }
});
