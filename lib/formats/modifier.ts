/**
 * DRM format modifiers: the 64-bit token describing how pixels are laid out in
 * memory (linear, tiled, compressed). The top 8 bits name the vendor, the low 56
 * bits are the vendor's own encoding.
 *
 * Two values are special and easy to confuse: `LINEAR` (0) is an explicit promise
 * of a row-by-row layout; `INVALID` (0x00ffffffffffffff) means "no modifier known",
 * the implicit-modifier case, where the driver decides the layout privately.
 *
 * @module
 */

/** Plain row-major layout (`DRM_FORMAT_MOD_LINEAR`). */
export const MOD_LINEAR = 0n;
/** No explicit modifier (`DRM_FORMAT_MOD_INVALID`): layout is implementation-defined. */
export const MOD_INVALID = 0x00ffffffffffffffn;

/** Vendor codes of the modifier's top byte (`DRM_FORMAT_MOD_VENDOR_*`). */
export const ModifierVendor = {
  NONE: 0x00,
  INTEL: 0x01,
  AMD: 0x02,
  NVIDIA: 0x03,
  SAMSUNG: 0x04,
  QCOM: 0x05,
  VIVANTE: 0x06,
  BROADCOM: 0x07,
  ARM: 0x08,
  ALLWINNER: 0x09,
  AMLOGIC: 0x0a,
} as const;

const VALUE_MASK = 0x00ffffffffffffffn;
const U64_MAX = 0xffffffffffffffffn;

/**
 * Builds a modifier from a vendor code and the vendor's 56-bit value
 * (`fourcc_mod_code`).
 *
 * @example
 * ```ts
 * import { modifierCode, ModifierVendor } from "./modifier.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(modifierCode(ModifierVendor.INTEL, 1n), 0x0100000000000001n);
 * ```
 */
export function modifierCode(vendor: number, value: bigint): bigint {
  if (!Number.isInteger(vendor) || vendor < 0 || vendor > 0xff) {
    throw new RangeError(`modifier vendor ${vendor} must be an integer 0..255`);
  }
  if (typeof value !== "bigint" || value < 0n) {
    throw new RangeError(`modifier value must be a non-negative bigint`);
  }
  return (BigInt(vendor) << 56n) | (value & VALUE_MASK);
}

/**
 * The vendor code in a modifier's top byte.
 *
 * @example
 * ```ts
 * import { modifierVendor } from "./modifier.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(modifierVendor(0x0300000000606015n), 3);
 * ```
 */
export function modifierVendor(modifier: bigint): number {
  checkModifier(modifier);
  return Number(modifier >> 56n);
}

/** Parameters of NVIDIA's generalized block-linear layout. */
export interface NvidiaBlockLinear {
  /** log2 of the block height in GOBs (0..15); 4 means 16 GOBs. */
  readonly h: number;
  /** Page kind (0..255); 0 is remapped to 0xfe by drivers. */
  readonly k: number;
  /** GOB height / page-kind generation: 0 Fermi..Volta & Tegra K1+, 1 G80..GT2XX, 2 Turing+. */
  readonly g: number;
  /** Sector layout: 0 Tegra K1..Parker (TX2), 1 desktop and Tegra Xavier and later. */
  readonly s: number;
  /** Lossless compression: 0 none, 1/2 ROP/3D layouts, 3/4 CDE. */
  readonly c: number;
}

/**
 * NVIDIA's block-linear 2D modifier (`DRM_FORMAT_MOD_NVIDIA_BLOCK_LINEAR_2D(c, s, g, k, h)`):
 * pixels grouped in GOBs (64 bytes × 8 rows, 4 rows on G80..GT2XX), GOBs stacked
 * into blocks 2^h GOBs tall.
 *
 * @example Orin-style 16-GOB block, generic kind
 * ```ts
 * import { formatModifier, nvidiaBlockLinear } from "./modifier.ts";
 * import { strictEqual } from "node:assert/strict";
 * const mod = nvidiaBlockLinear({ c: 0, s: 1, g: 2, k: 0xfe, h: 4 });
 * strictEqual(formatModifier(mod), "0x03000000006fe014");
 * ```
 */
export function nvidiaBlockLinear(p: NvidiaBlockLinear): bigint {
  const field = (name: string, v: number, max: number) => {
    if (!Number.isInteger(v) || v < 0 || v > max) {
      throw new RangeError(`NVIDIA block-linear ${name}=${v} must be an integer 0..${max}`);
    }
    return BigInt(v);
  };
  const value = 0x10n | field("h", p.h, 0xf) | (field("k", p.k, 0xff) << 12n) |
    (field("g", p.g, 3) << 20n) | (field("s", p.s, 1) << 22n) | (field("c", p.c, 7) << 23n);
  return modifierCode(ModifierVendor.NVIDIA, value);
}

/**
 * The legacy Tegra 16Bx2 block-linear modifier with 2^v GOBs per block
 * (`DRM_FORMAT_MOD_NVIDIA_16BX2_BLOCK(v)`, v = 0..5).
 *
 * @example
 * ```ts
 * import { nvidia16Bx2Block } from "./modifier.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(nvidia16Bx2Block(4), 0x0300000000000014n);
 * ```
 */
export function nvidia16Bx2Block(v: number): bigint {
  if (!Number.isInteger(v) || v < 0 || v > 5) {
    throw new RangeError(`16Bx2 block height v=${v} must be 0..5 (1 to 32 GOBs)`);
  }
  return nvidiaBlockLinear({ c: 0, s: 0, g: 0, k: 0, h: v });
}

/**
 * Decodes NVIDIA block-linear fields, or returns undefined when the modifier is
 * not an NVIDIA block-linear one (bit 4 clear, or another vendor).
 *
 * @example
 * ```ts
 * import { decodeNvidiaBlockLinear } from "./modifier.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(decodeNvidiaBlockLinear(0x03000000006fe014n)?.h, 4);
 * ```
 */
export function decodeNvidiaBlockLinear(modifier: bigint): NvidiaBlockLinear | undefined {
  checkModifier(modifier);
  if (modifierVendor(modifier) !== ModifierVendor.NVIDIA) return undefined;
  const v = modifier & VALUE_MASK;
  if ((v & 0x10n) === 0n) return undefined;
  return {
    h: Number(v & 0xfn),
    k: Number((v >> 12n) & 0xffn),
    g: Number((v >> 20n) & 0x3n),
    s: Number((v >> 22n) & 0x1n),
    c: Number((v >> 23n) & 0x7n),
  };
}

/**
 * Canonical form for comparing modifiers: NVIDIA block-linear modifiers with page
 * kind 0 (the 16Bx2 family) are the same layout as kind 0xfe, and drivers remap
 * them (`drm_fourcc_canonicalize_nvidia_format_mod`). Other modifiers are unchanged.
 *
 * @example
 * ```ts
 * import { canonicalModifier, nvidia16Bx2Block } from "./modifier.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(canonicalModifier(nvidia16Bx2Block(0)), 0x03000000000fe010n);
 * ```
 */
export function canonicalModifier(modifier: bigint): bigint {
  const bl = decodeNvidiaBlockLinear(modifier);
  if (!bl || bl.k !== 0) return modifier;
  return modifier | (0xfen << 12n);
}

/** Well-known modifiers by name (without the `DRM_FORMAT_MOD_` prefix). */
export const NAMED_MODIFIERS: ReadonlyMap<string, bigint> = new Map<string, bigint>([
  ["LINEAR", MOD_LINEAR],
  ["INVALID", MOD_INVALID],
  ["NVIDIA_TEGRA_TILED", modifierCode(ModifierVendor.NVIDIA, 1n)],
  ["NVIDIA_16BX2_BLOCK_ONE_GOB", nvidia16Bx2Block(0)],
  ["NVIDIA_16BX2_BLOCK_TWO_GOB", nvidia16Bx2Block(1)],
  ["NVIDIA_16BX2_BLOCK_FOUR_GOB", nvidia16Bx2Block(2)],
  ["NVIDIA_16BX2_BLOCK_EIGHT_GOB", nvidia16Bx2Block(3)],
  ["NVIDIA_16BX2_BLOCK_SIXTEEN_GOB", nvidia16Bx2Block(4)],
  ["NVIDIA_16BX2_BLOCK_THIRTYTWO_GOB", nvidia16Bx2Block(5)],
  ["I915_X_TILED", modifierCode(ModifierVendor.INTEL, 1n)],
  ["I915_Y_TILED", modifierCode(ModifierVendor.INTEL, 2n)],
  ["I915_Yf_TILED", modifierCode(ModifierVendor.INTEL, 3n)],
  ["I915_4_TILED", modifierCode(ModifierVendor.INTEL, 9n)],
  ["SAMSUNG_64_32_TILE", modifierCode(ModifierVendor.SAMSUNG, 1n)],
  ["SAMSUNG_16_16_TILE", modifierCode(ModifierVendor.SAMSUNG, 2n)],
  ["QCOM_COMPRESSED", modifierCode(ModifierVendor.QCOM, 1n)],
  ["VIVANTE_TILED", modifierCode(ModifierVendor.VIVANTE, 1n)],
  ["VIVANTE_SUPER_TILED", modifierCode(ModifierVendor.VIVANTE, 2n)],
  ["BROADCOM_VC4_T_TILED", modifierCode(ModifierVendor.BROADCOM, 1n)],
]);

/**
 * Parses a modifier written as hex (`0x0100000000000001`), decimal, or a name
 * (`LINEAR`, `DRM_FORMAT_MOD_LINEAR`). Throws a RangeError naming the input.
 *
 * @example
 * ```ts
 * import { parseModifier } from "./modifier.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(parseModifier("0x0100000000000001"), 0x0100000000000001n);
 * strictEqual(parseModifier("DRM_FORMAT_MOD_LINEAR"), 0n);
 * ```
 */
export function parseModifier(text: string | bigint | number): bigint {
  if (typeof text === "bigint") return checkModifier(text);
  if (typeof text === "number") {
    if (!Number.isSafeInteger(text) || text < 0) {
      throw new RangeError(`modifier ${text} is not a non-negative safe integer; pass a bigint`);
    }
    return BigInt(text);
  }
  if (typeof text !== "string") {
    throw new TypeError(`modifier must be a string, bigint or number, got ${typeof text}`);
  }
  const s = text.trim();
  const name = s.startsWith("DRM_FORMAT_MOD_") ? s.slice("DRM_FORMAT_MOD_".length) : s;
  const named = NAMED_MODIFIERS.get(name);
  if (named !== undefined) return named;
  if (/^0[xX][0-9a-fA-F]{1,16}$/.test(s) || /^[0-9]{1,20}$/.test(s)) {
    return checkModifier(BigInt(s), text);
  }
  throw new RangeError(
    `modifier "${text}" is not hex (0x + up to 16 digits), decimal, or a known name such as LINEAR`,
  );
}

/**
 * Prints a modifier the way GStreamer and drm_info do: `0x` and 16 lowercase hex digits.
 *
 * @example
 * ```ts
 * import { formatModifier } from "./modifier.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(formatModifier(1n << 56n | 1n), "0x0100000000000001");
 * ```
 */
export function formatModifier(modifier: bigint): string {
  checkModifier(modifier);
  return `0x${modifier.toString(16).padStart(16, "0")}`;
}

const VENDOR_NAMES = new Map<number, string>(
  Object.entries(ModifierVendor).map(([name, code]) => [code, name]),
);

/** A modifier taken apart for people. */
export interface ModifierDescription {
  /** The modifier as given. */
  readonly modifier: bigint;
  /** `0x`-prefixed 16-digit hex. */
  readonly hex: string;
  /** Vendor code from the top 8 bits. */
  readonly vendor: number;
  /** Vendor name (`NVIDIA`) or `vendor 0x..` when unknown. */
  readonly vendorName: string;
  /** Known name without prefix (`LINEAR`), if any. */
  readonly name: string | undefined;
  /** True for `LINEAR`. */
  readonly linear: boolean;
  /** True for `INVALID` (implicit modifier). */
  readonly implicit: boolean;
  /** NVIDIA block-linear fields, when applicable. */
  readonly nvidia: NvidiaBlockLinear | undefined;
  /** One line: what the layout is. */
  readonly text: string;
}

/**
 * Explains a modifier: vendor, known name, and for NVIDIA block-linear the
 * block height, page kind, generation, sector layout and compression.
 *
 * @example
 * ```ts
 * import { describeModifier } from "./modifier.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(describeModifier(0n).text, "LINEAR (plain row-major layout)");
 * strictEqual(describeModifier(0x0300000000000014n).vendorName, "NVIDIA");
 * ```
 */
export function describeModifier(modifier: bigint): ModifierDescription {
  checkModifier(modifier);
  const vendor = modifierVendor(modifier);
  const vendorName = VENDOR_NAMES.get(vendor) ?? `vendor 0x${vendor.toString(16).padStart(2, "0")}`;
  let name: string | undefined;
  for (const [n, v] of NAMED_MODIFIERS) if (v === modifier) name = n;
  const nvidia = decodeNvidiaBlockLinear(modifier);
  let text: string;
  if (modifier === MOD_LINEAR) text = "LINEAR (plain row-major layout)";
  else if (modifier === MOD_INVALID) {
    text = "INVALID (no explicit modifier: layout chosen privately by the driver)";
  } else if (nvidia) {
    const gob = nvidia.g === 1 ? 4 : 8;
    const comp = ["none", "ROP/3D layout 1", "ROP/3D layout 2", "CDE horizontal", "CDE vertical"][
      nvidia.c
    ] ?? `reserved (${nvidia.c})`;
    text = `NVIDIA block-linear 2D: blocks of ${2 ** nvidia.h} GOB(s) of 64 bytes x ${gob} rows, ` +
      `page kind 0x${nvidia.k.toString(16)}, generation ${nvidia.g}, ` +
      `sector layout ${nvidia.s === 1 ? "desktop/Xavier+" : "Tegra K1..TX2"}, compression ${comp}` +
      (name ? ` (${name})` : "");
  } else if (vendor === ModifierVendor.ARM) {
    const type = Number((modifier >> 52n) & 0xfn);
    text = `ARM ${type === 0 ? "AFBC" : type === 1 ? "misc" : `type ${type}`} layout, ` +
      `value 0x${(modifier & 0x000fffffffffffffn).toString(16)}`;
  } else if (name) text = `${name} (${vendorName} layout)`;
  else {
    text = `${vendorName} layout 0x${(modifier & VALUE_MASK).toString(16)} (vendor-specific)`;
  }
  return {
    modifier,
    hex: formatModifier(modifier),
    vendor,
    vendorName,
    name,
    linear: modifier === MOD_LINEAR,
    implicit: modifier === MOD_INVALID,
    nvidia,
    text,
  };
}

function checkModifier(modifier: bigint, shown: string | bigint = modifier): bigint {
  if (typeof modifier !== "bigint") {
    throw new TypeError(`modifier must be a bigint, got ${typeof modifier}`);
  }
  if (modifier < 0n || modifier > U64_MAX) {
    throw new RangeError(`modifier ${shown} does not fit in 64 bits`);
  }
  return modifier;
}
