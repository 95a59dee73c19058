// The packed argument block's layout in TypeScript (ffi/frame_args.ts) against the C struct
// (struct axl_shim_frame_args, ffi/src/axl_shim.h) compiled for x86_64 and aarch64.
import assert from "node:assert/strict";
import { ABI_TARGETS, compileLayout } from "../../../ffi/abi/check.ts";
import {
  FRAME_ARGS_BYTES,
  FRAME_ARGS_OFFSETS,
  FrameArgs,
  IMPORT_OUT_SLOTS,
  SUBMIT_OUT_SLOTS,
} from "../../../ffi/frame_args.ts";
import { loadShim } from "../../../ffi/loader.ts";

/** What the TypeScript side lays out, in the keys ffi/abi/shim_layout.c emits. */
function tsLayout(): Map<string, bigint> {
  const m = new Map<string, bigint>([
    ["sizeof", BigInt(FRAME_ARGS_BYTES)],
    ["imp_out slots", BigInt(IMPORT_OUT_SLOTS)],
    ["sub_out slots", BigInt(SUBMIT_OUT_SLOTS)],
  ]);
  for (const [k, v] of Object.entries(FRAME_ARGS_OFFSETS)) m.set(k, BigInt(v));
  return m;
}

for (const target of ABI_TARGETS) {
  Deno.test(`FRAME_ARGS_OFFSETS is struct axl_shim_frame_args's layout on ${target.arch}`, async () => {
    const c = await compileLayout(target, "ffi/abi/shim_layout.c");
    assert.deepEqual(Object.fromEntries(c), Object.fromEntries(tsLayout()));
  });
}

Deno.test("the loaded shim's struct axl_shim_frame_args is FRAME_ARGS_BYTES long", () => {
  assert.equal(loadShim().constant("sizeof_axl_shim_frame_args"), FRAME_ARGS_BYTES);
});

Deno.test("FrameArgs views the out-slots at their offsets in one block", () => {
  const a = new FrameArgs();
  a.impOut[0] = 0x1_0000_0002n;
  a.subOut[4] = 3n;
  const dv = new DataView(a.bytes.buffer);
  assert.equal(dv.getBigUint64(FRAME_ARGS_OFFSETS.imp_out, true), 0x1_0000_0002n);
  assert.equal(dv.getBigUint64(FRAME_ARGS_OFFSETS.sub_out + 4 * 8, true), 3n);
  assert.deepEqual([a.impOut32[0], a.impOut32[1]], [2, 1]);
  assert.equal(a.bytes.byteLength, FRAME_ARGS_BYTES);
  assert.equal(FRAME_ARGS_OFFSETS.sub_out + 8 * SUBMIT_OUT_SLOTS, FRAME_ARGS_BYTES);
});
