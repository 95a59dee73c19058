// Random caps for property tests. `gstSafe` limits values to what a
// gst-launch-1.0 caps filter can carry on its command line.

import type {
  Caps,
  CapsFeatures,
  CapsField,
  CapsStructure,
  CapsValue,
} from "../../../lib/caps/mod.ts";
import { intIn, pick } from "../formats/_rand.ts";

type Rand = () => number;

const FORMATS = ["NV12", "I420", "YUY2", "BGRx", "RGBA", "P010_10LE", "GRAY8"];
const DRM = ["NV12", "NV12:0x0100000000000001", "AR24:0x0300000000606014", "YUYV", "AB24"];

function fraction(r: Rand): { num: number; den: number } {
  return { num: intIn(r, 0, 120), den: pick(r, [1, 1, 1, 2, 1001]) };
}

function fixedOf(r: Rand, field: string, gstSafe: boolean): CapsValue {
  switch (field) {
    case "format":
      return { kind: "string", value: pick(r, FORMATS) };
    case "drm-format":
      return { kind: "string", value: pick(r, DRM) };
    case "width":
    case "height":
      return { kind: "int", type: "int", value: pick(r, [1, 320, 640, 1920, 4096, 40000]) };
    case "framerate":
    case "pixel-aspect-ratio":
      return { kind: "fraction", value: fraction(r) };
    case "interlaced":
      return { kind: "boolean", value: r() < 0.5 };
    case "gain":
      return { kind: "double", type: "double", value: pick(r, [0, 0.5, 1.25, 3, -2.5]) };
    case "mask":
      return { kind: "bitmask", value: BigInt(pick(r, [0, 3, 0xff, 0x8000000000000001])) };
    case "flags":
      return {
        kind: "flagset",
        type: "flagset",
        flags: pick(r, [0, 1, 5]),
        // Partial masks make fakesrc fail to preroll, which costs a timeout.
        mask: gstSafe ? 0xffffffff : pick(r, [0xffffffff, 1, 4]),
        names: "",
      };
    case "label":
      return gstSafe ? { kind: "string", value: pick(r, ["a", "b-c", "x.y"]) } : {
        kind: "string",
        value: pick(r, ["plain", "with space", 'q"uote', "back\\slash", "", "é"]),
      };
    case "big":
      return {
        kind: "int",
        type: pick(r, ["int64", "uint"] as const),
        value: intIn(r, 0, 1 << 30),
      };
    default:
      throw new Error(field);
  }
}

function valueOf(r: Rand, field: string, gstSafe: boolean): CapsValue {
  const roll = r();
  if ((field === "width" || field === "height") && roll < 0.4) {
    const min = pick(r, [1, 16, 320]);
    const max = min + pick(r, [0, 1, 100, 32766, 2147483647 - min]);
    if (max === min) return { kind: "int", type: "int", value: min };
    const step = r() < 0.2 ? pick(r, [1, 2, 4]) : 1;
    if (min % step !== 0 || max % step !== 0) {
      return { kind: "int-range", type: "int", min, max, step: 1 };
    }
    return { kind: "int-range", type: "int", min, max, step };
  }
  if ((field === "framerate" || field === "pixel-aspect-ratio") && roll < 0.4) {
    const a = fraction(r);
    const b = {
      num: a.num * pick(r, [1, 2]) + pick(r, [1, 30, 2147483647 - a.num * 2]),
      den: a.den,
    };
    return { kind: "fraction-range", min: a, max: b };
  }
  if (field === "gain" && roll < 0.3) {
    return { kind: "double-range", min: -1, max: pick(r, [0.5, 2, 10]) };
  }
  if (roll < 0.7 && field !== "flags" && field !== "mask") {
    const n = intIn(r, 2, 4);
    const items: CapsValue[] = [];
    for (let i = 0; i < n; i++) {
      const v = fixedOf(r, field, gstSafe);
      if (!items.some((x) => JSON.stringify(x, big) === JSON.stringify(v, big))) items.push(v);
    }
    if (items.length > 1) return { kind: "list", items };
    return items[0]!;
  }
  if (!gstSafe && roll > 0.95) {
    return { kind: "array", items: [fixedOf(r, "width", gstSafe), fixedOf(r, "width", gstSafe)] };
  }
  return fixedOf(r, field, gstSafe);
}

export function big(_k: string, v: unknown): unknown {
  return typeof v === "bigint" ? `${v}n` : v;
}

const FIELDS = [
  "format",
  "width",
  "height",
  "framerate",
  "pixel-aspect-ratio",
  "interlaced",
  "gain",
  "mask",
  "flags",
  "label",
  "big",
  "drm-format",
];

export function randomStructure(r: Rand, gstSafe: boolean): CapsStructure {
  const name = pick(r, ["video/x-raw", "video/x-raw", "video/x-raw", "image/jpeg"]);
  const features: CapsFeatures = pick(r, [
    [],
    [],
    ["memory:NVMM"],
    ["memory:DMABuf"],
    "ANY" as const,
    ["memory:DMABuf", "meta:GstVideoOverlayComposition"],
  ]);
  const fields: CapsField[] = [];
  const n = intIn(r, 0, 4);
  for (let i = 0; i < n; i++) {
    const f = pick(r, FIELDS);
    if (fields.some((x) => x.name === f)) continue;
    fields.push({ name: f, value: valueOf(r, f, gstSafe) });
  }
  return { name, features, fields };
}

export function randomCaps(r: Rand, gstSafe = false): Caps {
  const roll = r();
  if (!gstSafe && roll < 0.05) return { any: true };
  if (!gstSafe && roll < 0.1) return { any: false, structures: [] };
  const n = intIn(r, 1, gstSafe ? 2 : 3);
  const structures: CapsStructure[] = [];
  for (let i = 0; i < n; i++) structures.push(randomStructure(r, gstSafe));
  return { any: false, structures };
}
