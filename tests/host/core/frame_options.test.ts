// The checks Device.import and Device.submit make without zod for options of the common
// shape, against the schemas: whatever a check accepts the schema accepts with the same
// values, and whatever the schema refuses the check refuses too (so the schema's error
// message is the one thrown).
import assert from "node:assert/strict";
import { ImportOptions, SubmitOptions } from "../../../lib/core/device.ts";
import {
  commonImport,
  commonSubmit,
  importArgs,
  submitArgs,
} from "../../../lib/core/_frame_options.ts";

const buf = { fd: 3 };

const importCases: unknown[] = [
  { width: 640, height: 480 },
  { width: 640, height: 480, format: "NV12" },
  { width: 8, height: 8, format: "GREY", stride: 64, direction: "from-device" },
  { width: 16, height: 2, format: "YUYV", direction: "bidirectional" },
  { width: 4096, height: 1, format: "RAW", stride: 0 },
  { width: 0xffff_ffff, height: 1 },
  { width: 640, height: 480, format: undefined, stride: undefined, direction: undefined },
  Object.assign(Object.create(null), { width: 2, height: 2 }),
  { width: 0, height: 480 },
  { width: 640, height: 480.5 },
  { width: 0x1_0000_0000, height: 1 },
  { width: NaN, height: 1 },
  { width: "640", height: 480 },
  { height: 480 },
  { width: 640, height: 480, format: "nv12" },
  { width: 640, height: 480, format: null },
  { width: 640, height: 480, stride: -1 },
  { width: 640, height: 480, direction: "up" },
  { width: 640, height: 480, colour: 1 },
  { width: 640, height: 480, planes: [{ offset: 0, pitch: 640 }, { offset: 307200, pitch: 640 }] },
  { width: 640, height: 480, modifier: 0n },
  new (class {
    width = 640;
    height = 480;
  })(),
  [640, 480],
  null,
  undefined,
  640,
];

Deno.test("commonImport() accepts only what ImportOptions accepts, with the same values", () => {
  let accepted = 0;
  for (const c of importCases) {
    const schema = ImportOptions.safeParse(c);
    if (!commonImport(c)) {
      // Refused here: valid only with planes/modifier/a class instance, or refused by zod too.
      continue;
    }
    accepted++;
    assert.ok(schema.success, `accepted what the schema refuses: ${Deno.inspect(c)}`);
    assert.deepEqual({ ...importArgs }, schema.data, Deno.inspect(c));
  }
  assert.equal(accepted, 8);
});

Deno.test("commonImport() refuses every options object the schema refuses", () => {
  for (const c of importCases) {
    if (!ImportOptions.safeParse(c).success) assert.equal(commonImport(c), false, Deno.inspect(c));
  }
});

const submitCases: unknown[] = [
  { result: buf },
  { result: buf, model: 3, timeoutMs: 2000 },
  { result: buf, model: undefined, timeoutMs: 10_000 },
  { result: buf, timeoutMs: 0 },
  { result: 3 },
  { result: null },
  { result: {} },
  { model: 1 },
  { result: buf, model: -1 },
  { result: buf, model: null },
  { result: buf, timeoutMs: 10_001 },
  { result: buf, timeoutMs: 1.5 },
  { result: buf, timeoutMs: -1 },
  { result: buf, extra: true },
  null,
];

Deno.test("commonSubmit() accepts only what SubmitOptions accepts, with the same values", () => {
  let accepted = 0;
  for (const c of submitCases) {
    const schema = SubmitOptions.safeParse(c);
    assert.equal(commonSubmit(c), schema.success, Deno.inspect(c));
    if (!schema.success) continue;
    accepted++;
    assert.deepEqual({ ...submitArgs }, schema.data, Deno.inspect(c));
    assert.equal(submitArgs.result, buf);
  }
  assert.equal(accepted, 4);
});

Deno.test("commonImport() reads each option once, so a getter cannot change it between checks", () => {
  let reads = 0;
  const o = {
    height: 2,
    get width() {
      return ++reads === 1 ? 4 : 0;
    },
  };
  assert.equal(commonImport(o), true);
  assert.equal(importArgs.width, 4);
  assert.equal(reads, 1);
});
