// The typed V4L2 and Argus wrappers off a camera: opening what is not there, asking a node
// that is not a V4L2 device, and Argus on a shim built without it, each a clear error.
import assert from "node:assert/strict";
import { V4l2Device } from "../../../lib/core/v4l2.ts";
import { ArgusSession } from "../../../lib/core/argus.ts";
import { thrownAxlError } from "../_thrown.ts";

Deno.test("V4l2Device.open() names the node it could not open", () => {
  const err = thrownAxlError(() => V4l2Device.open("/dev/axl-no-such-video"));
  assert.equal(err.code, "ENOENT");
  assert.match(err.message, /v4l2\.open\(\/dev\/axl-no-such-video\)/);
  assert.equal(V4l2Device.tryOpen("/dev/axl-no-such-video"), undefined);
});

Deno.test("V4l2Device on a node that is not V4L2: no capability, ioctls fail by name", () => {
  using dev = V4l2Device.open("/dev/null");
  assert.equal(dev.queryCapability(), undefined);
  assert.throws(() => dev.requestBuffers(2), /v4l2\.reqbufs\(\/dev\/null, 2\)/);
  assert.throws(() => dev.streamOn(), /v4l2\.streamon\(\/dev\/null\)/);
  assert.throws(() => dev.setFrameRate(60), /v4l2\.setFrameRate\(\/dev\/null, 60\)/);
  assert.throws(() => dev.setFrameRate(0), /whole number of frames per second >= 1, got 0/);
  assert.throws(() => dev.setFrameRate(29.97), RangeError);
  dev.close();
  dev.close();
});

Deno.test("ArgusSession off a Jetson: unavailable, and open() says why", () => {
  assert.equal(ArgusSession.available(), false);
  const err = thrownAxlError(() => ArgusSession.open(0, 1920, 1080));
  assert.equal(err.op, "argus.open");
  assert.match(err.message, /no Argus support/);
});
