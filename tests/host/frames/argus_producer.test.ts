// What of the Argus path runs without a Jetson: the options ArgusProducer refuses before it
// asks Argus for anything (an unbounded or negative wait, an odd NV12 size), the words the shim's
// acquire writes, and the NV12 layout a ring slot's NvBufSurface metadata must describe.
import assert from "node:assert/strict";
import { argusFrameLayout, ArgusProducer } from "../../../lib/frames/producers/argus_producer.ts";
import { type ArgusFrame, argusFrame, checkArgusTimeout } from "../../../lib/core/argus.ts";
import { thrownAxlError } from "../_thrown.ts";

/** NV12 1920x1080 as an NvBuffer lays it out: pitch 2048, luma padded to 1088 lines. */
const SLOT: ArgusFrame = Object.freeze({
  fd: 9,
  slot: 2,
  pitch: 2048,
  chromaOffset: 2048 * 1088,
  chromaPitch: 2048,
  sensorTimestampNs: 123_456_789n,
  size: 2048 * 1088 + 2048 * 544,
  colorFormat: 7, // NVBUF_COLOR_FORMAT_NV12_ER
});

Deno.test("ArgusProducer.open() refuses an unbounded, negative or fractional timeout first", () => {
  for (const timeoutMs of [-1, 60_001, 2 ** 31, 1.5, Number.NaN]) {
    assert.throws(
      () => ArgusProducer.open({ timeoutMs }),
      (err: unknown) => err instanceof RangeError && /from 0 to 60000/.test(err.message),
      `timeoutMs ${timeoutMs}`,
    );
  }
  // The bounds themselves pass the check and reach Argus, which is not here.
  for (const timeoutMs of [0, 60_000]) {
    assert.equal(thrownAxlError(() => ArgusProducer.open({ timeoutMs })).code, "ENOSYS");
  }
});

Deno.test("ArgusProducer.open() refuses an odd or empty NV12 size and a negative sensor", () => {
  assert.throws(() => ArgusProducer.open({ width: 1921 }), /width must be a positive even/);
  assert.throws(() => ArgusProducer.open({ height: 0 }), /height must be a positive even/);
  assert.throws(() => ArgusProducer.open({ sensor: -1 }), /sensor must be an index/);
});

Deno.test("checkArgusTimeout() holds the shim's 60 s bound", () => {
  checkArgusTimeout(0);
  checkArgusTimeout(60_000);
  assert.throws(() => checkArgusTimeout(60_001), RangeError);
  assert.throws(() => checkArgusTimeout(-1), RangeError);
});

Deno.test("argusFrame() reads the acquire words: slot, plane 1, sensor time (0: none)", () => {
  const words = [9n, 2048n, 123_456_789n, 3_342_336n, 7n, 2n, 2_228_224n, 2048n];
  assert.deepEqual(argusFrame(new BigUint64Array(words)), SLOT);
  words[2] = 0n;
  assert.equal(argusFrame(new BigUint64Array(words)).sensorTimestampNs, undefined);
  assert.throws(() => argusFrame(new BigUint64Array(6)), /8 words, got 6/);
});

Deno.test("argusFrameLayout() puts NV12's chroma plane where the NvBuffer says", () => {
  const l = argusFrameLayout(SLOT, 1920, 1080);
  assert.equal(l.format, "NV12");
  assert.deepEqual(l.planes.map((p) => [p.offset, p.stride]), [[0, 2048], [2048 * 1088, 2048]]);
  assert.equal(l.size, 2048 * 1088 + 2048 * 540); // the chroma plane ends inside dataSize
});

Deno.test("argusFrameLayout() refuses another format, overlapping planes, planes past dataSize", () => {
  assert.throws(
    () => argusFrameLayout({ ...SLOT, colorFormat: 19 }, 1920, 1080),
    /RGBA, not an NV12 format/,
  );
  assert.throws(
    () => argusFrameLayout({ ...SLOT, chromaOffset: 2048 * 1000 }, 1920, 1080),
    /overlaps the luma plane/,
  );
  assert.throws(
    () => argusFrameLayout({ ...SLOT, size: 2048 * 1088 }, 1920, 1080),
    /past its 2228224-byte surface/,
  );
  assert.throws(() => argusFrameLayout({ ...SLOT, pitch: 1900 }, 1920, 1080), /stride 1900/);
});
