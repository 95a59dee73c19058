import { deepStrictEqual, ok, strictEqual, throws } from "node:assert/strict";
import {
  canonicalModifier,
  decodeNvidiaBlockLinear,
  describeModifier,
  formatModifier,
  MOD_INVALID,
  MOD_LINEAR,
  modifierCode,
  ModifierVendor,
  modifierVendor,
  nvidia16Bx2Block,
  nvidiaBlockLinear,
  parseModifier,
} from "../../../lib/formats/mod.ts";
import { intIn, seededRandom } from "./_rand.ts";

Deno.test("LINEAR is zero and INVALID is the reserved 56-bit value of vendor NONE", () => {
  strictEqual(MOD_LINEAR, 0n);
  strictEqual(MOD_INVALID, (1n << 56n) - 1n);
  strictEqual(modifierVendor(MOD_INVALID), ModifierVendor.NONE);
  ok(describeModifier(MOD_LINEAR).linear);
  ok(describeModifier(MOD_INVALID).implicit);
  ok(describeModifier(MOD_INVALID).text.startsWith("INVALID"));
});

Deno.test("parseModifier() reads hex, decimal and names, and rejects the rest with the input", () => {
  strictEqual(parseModifier("0x0100000000000001"), 0x0100000000000001n);
  strictEqual(parseModifier("72057594037927937"), 0x0100000000000001n);
  strictEqual(parseModifier("LINEAR"), 0n);
  strictEqual(parseModifier("DRM_FORMAT_MOD_INVALID"), MOD_INVALID);
  strictEqual(parseModifier("NVIDIA_16BX2_BLOCK_FOUR_GOB"), 0x0300000000000012n);
  strictEqual(parseModifier(5), 5n);
  strictEqual(parseModifier(7n), 7n);
  throws(() => parseModifier("0x0x0100000000000001"), /"0x0x0100000000000001" is not hex/);
  throws(() => parseModifier("0x10000000000000000"), RangeError);
  throws(() => parseModifier("99999999999999999999"), /does not fit in 64 bits/);
  throws(() => parseModifier(-1), RangeError);
  throws(() => parseModifier(-1n), RangeError);
  // deno-lint-ignore no-explicit-any
  throws(() => parseModifier({} as any), TypeError);
});

Deno.test("formatModifier() prints 16 hex digits and round-trips random 64-bit values", () => {
  strictEqual(formatModifier(0n), "0x0000000000000000");
  const { seed, next } = seededRandom("modifier");
  for (let i = 0; i < 1000; i++) {
    const m = (BigInt(intIn(next, 0, 0xffffffff)) << 32n) | BigInt(intIn(next, 0, 0xffffffff));
    const hex = formatModifier(m);
    strictEqual(hex.length, 18, `seed ${seed}`);
    strictEqual(parseModifier(hex), m, `seed ${seed}`);
    strictEqual(parseModifier(hex.toUpperCase().replace("0X", "0x")), m, `seed ${seed}`);
  }
  throws(() => formatModifier(1n << 64n), RangeError);
});

Deno.test("nvidiaBlockLinear() packs the fields decodeNvidiaBlockLinear() unpacks", () => {
  for (let c = 0; c < 8; c++) {
    for (let s = 0; s < 2; s++) {
      for (let g = 0; g < 4; g++) {
        for (const k of [0, 0x06, 0xfe, 0xff]) {
          for (let h = 0; h < 16; h++) {
            const m = nvidiaBlockLinear({ c, s, g, k, h });
            strictEqual(modifierVendor(m), ModifierVendor.NVIDIA);
            deepStrictEqual(decodeNvidiaBlockLinear(m), { c, s, g, k, h });
          }
        }
      }
    }
  }
  throws(() => nvidiaBlockLinear({ c: 8, s: 0, g: 0, k: 0, h: 0 }), /c=8/);
  throws(() => nvidiaBlockLinear({ c: 0, s: 0, g: 0, k: 256, h: 0 }), /k=256/);
  throws(() => nvidia16Bx2Block(6), /0\.\.5/);
});

Deno.test("decodeNvidiaBlockLinear() ignores other vendors and the Tegra tiled layout", () => {
  strictEqual(decodeNvidiaBlockLinear(modifierCode(ModifierVendor.NVIDIA, 1n)), undefined);
  strictEqual(decodeNvidiaBlockLinear(modifierCode(ModifierVendor.INTEL, 0x14n)), undefined);
  strictEqual(decodeNvidiaBlockLinear(MOD_LINEAR), undefined);
});

Deno.test("canonicalModifier() maps 16Bx2 (kind 0) to the generic kind 0xfe only", () => {
  const legacy = nvidia16Bx2Block(4);
  strictEqual(canonicalModifier(legacy), nvidiaBlockLinear({ c: 0, s: 0, g: 0, k: 0xfe, h: 4 }));
  const kinded = nvidiaBlockLinear({ c: 0, s: 1, g: 2, k: 0x06, h: 4 });
  strictEqual(canonicalModifier(kinded), kinded);
  strictEqual(canonicalModifier(MOD_LINEAR), MOD_LINEAR);
});

Deno.test("describeModifier() explains vendor layouts in one line", () => {
  const bl = describeModifier(nvidia16Bx2Block(4));
  strictEqual(bl.vendorName, "NVIDIA");
  strictEqual(bl.name, "NVIDIA_16BX2_BLOCK_SIXTEEN_GOB");
  ok(bl.text.includes("blocks of 16 GOB(s)"), bl.text);
  ok(bl.text.includes("Tegra K1..TX2"));
  strictEqual(describeModifier(0x0100000000000001n).text, "I915_X_TILED (INTEL layout)");
  ok(describeModifier(modifierCode(0x42, 5n)).text.startsWith("vendor 0x42 layout 0x5"));
  ok(describeModifier(modifierCode(ModifierVendor.ARM, 1n << 52n)).text.startsWith("ARM misc"));
  strictEqual(describeModifier(0x0800000000000000n).text.startsWith("ARM AFBC"), true);
  throws(() => modifierCode(256, 0n), RangeError);
  throws(() => modifierCode(1, -1n), RangeError);
});
