// Host tests of the shim's two-steps-in-one-call functions (ffi/src/frame_steps.c) on fds
// that need no device: which step runs, and which error comes back when a step fails.
// Their success paths run on every frame of the device suite.
import assert from "node:assert/strict";
import { loadShim } from "../../../ffi/loader.ts";
import { errnoName } from "../../../lib/core/errors.ts";
import { FRAME_ARGS_OFFSETS, FrameArgs } from "../../../ffi/frame_args.ts";

import { libc, memfd, unusedFd } from "./_libc.ts";

const shim = loadShim();

function eventfd(): number {
  const fd = libc.symbols.eventfd(0, 0o2000000 /* EFD_CLOEXEC */);
  assert.ok(fd >= 0, "eventfd failed");
  return fd;
}

function signal(fd: number): void {
  const one = new BigUint64Array([1n]);
  assert.equal(libc.symbols.write(fd, new Uint8Array(one.buffer), 8n), 8n);
}

Deno.test("axl_shim_fence_wait_info() times out as poll does and leaves the out-slots alone", () => {
  const fd = eventfd();
  try {
    const out = new BigInt64Array([7n, 7n, 7n, 7n]);
    const name = new Uint8Array(32);
    assert.equal(shim.symbols.axl_shim_fence_wait_info(fd, 0, out, name, 32n), 0);
    assert.equal(shim.symbols.axl_shim_fence_wait_info(fd, 20, out, name, 32n), 0);
    assert.deepEqual([...out], [7n, 7n, 7n, 7n]);
  } finally {
    shim.symbols.axl_shim_close(fd);
  }
});

Deno.test("axl_shim_fence_wait_info() reads the state once ready: the kernel's -ENOTTY for an eventfd", () => {
  const fd = eventfd();
  try {
    signal(fd);
    const ret = shim.symbols.axl_shim_fence_wait_info(fd, 1000, new BigInt64Array(4), null, 0n);
    assert.equal(errnoName(ret), "ENOTTY");
  } finally {
    shim.symbols.axl_shim_close(fd);
  }
});

Deno.test("axl_shim_fence_wait_info() on a closed fd returns -EBADF", () => {
  const fd = unusedFd();
  const ret = shim.symbols.axl_shim_fence_wait_info(fd, 0, new BigInt64Array(4), null, 0n);
  assert.equal(errnoName(ret), "EBADF");
});

Deno.test("axl_shim_result_read() does not decode when DMA_BUF_SYNC start fails (not a dma-buf)", () => {
  const fd = memfd(4096);
  try {
    const result = new Uint8Array(shim.constant("sizeof_axl_result"));
    const addr = BigInt(Deno.UnsafePointer.value(Deno.UnsafePointer.of(result)));
    const nums = new BigInt64Array(12).fill(-1n);
    const ret = shim.symbols.axl_shim_result_read(fd, addr, BigInt(result.length), nums, null);
    assert.equal(errnoName(ret), "ENOTTY");
    assert.deepEqual([...nums], new Array(12).fill(-1n), "decode ran although the sync failed");
  } finally {
    shim.symbols.axl_shim_close(fd);
  }
});

Deno.test("axl_shim_result_read() on a closed fd: DMA_BUF_SYNC returns -EBADF", () => {
  const ret = shim.symbols.axl_shim_result_read(-1, 0n, 0n, new BigInt64Array(12), null);
  assert.equal(errnoName(ret), "EBADF");
});

Deno.test("axl_shim_dev_import_submit() stops at the import when it fails (not a device: -ENOTTY): step 1", () => {
  const dev = memfd(4096), buf = memfd(4096);
  try {
    const a = new FrameArgs();
    a.setImport(
      dev,
      buf,
      64,
      32,
      shim.constant("AXL_PIXFMT_NV12"),
      0,
      shim.constant("AXL_IMPORT_TO_DEVICE"),
    );
    a.setSubmit(0, buf, 0, 0, shim.constant("AXL_SHIM_SUBMIT_IMPLICIT_SYNC"));
    a.subOut.fill(7n);
    a.i32[FRAME_ARGS_OFFSETS.step >> 2] = -1;
    const ret = shim.symbols.axl_shim_dev_import_submit(a.bytes);
    assert.equal(errnoName(ret), "ENOTTY");
    assert.equal(a.step, 1);
    assert.deepEqual([...a.subOut], [7n, 7n, 7n, 7n, 7n], "the submit ran");
  } finally {
    shim.symbols.axl_shim_close(dev);
    shim.symbols.axl_shim_close(buf);
  }
});

Deno.test("axl_shim_frame_submit() submits the block's handle on its dev: -ENOTTY, step 2, inputs untouched", () => {
  const dev = memfd(4096), buf = memfd(4096);
  try {
    const a = new FrameArgs();
    a.setFds(dev, buf);
    a.setSubmit(5, buf, 9, 1000, 0);
    const before = [...a.u32.subarray(0, FRAME_ARGS_OFFSETS.step >> 2)];
    assert.equal(errnoName(shim.symbols.axl_shim_frame_submit(a.bytes)), "ENOTTY");
    assert.equal(a.step, 2);
    assert.deepEqual([...a.u32.subarray(0, FRAME_ARGS_OFFSETS.step >> 2)], before);
  } finally {
    shim.symbols.axl_shim_close(dev);
    shim.symbols.axl_shim_close(buf);
  }
});

Deno.test("the packed frame calls refuse a missing block with -EINVAL", () => {
  for (
    const f of [
      "axl_shim_dev_import_submit",
      "axl_shim_frame_import",
      "axl_shim_frame_submit",
    ] as const
  ) {
    assert.equal(errnoName(shim.symbols[f](null)), "EINVAL", f);
  }
});

Deno.test("axl_shim_fence_close_release() closes the fence even when the release fails (-ENOTTY)", () => {
  const fence = eventfd(), dev = memfd(4096);
  try {
    assert.equal(errnoName(shim.symbols.axl_shim_fence_close_release(fence, dev, 1)), "ENOTTY");
    // The fence fd is closed: closing it again fails with EBADF.
    assert.equal(errnoName(shim.symbols.axl_shim_close(fence)), "EBADF");
  } finally {
    shim.symbols.axl_shim_close(dev);
  }
});
