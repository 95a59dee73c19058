// Host tests of the shim's implicit-sync probe (ffi/src/implicit_sync.c) on fds that are not
// dma-bufs. Publishing a job's fence and the probe on real dma-bufs run in the device suite
// (tests/device/implicit_sync.test.ts).
import assert from "node:assert/strict";
import { loadShim } from "../../../ffi/loader.ts";
import { errnoName } from "../../../lib/core/errors.ts";
import { probeImplicitSync } from "../../../lib/core/implicit_sync.ts";
import { DmaBuf } from "../../../lib/core/dmabuf.ts";

import { memfd, unusedFd } from "./_libc.ts";

const shim = loadShim();

Deno.test("axl_shim_implicit_sync_probe() refuses a memfd (DMA_BUF_IOCTL_SYNC: -ENOTTY) with -EBADF and learns nothing", () => {
  const fd = memfd(4096);
  try {
    assert.equal(shim.symbols.axl_shim_implicit_sync(), 0, "nothing learnt before");
    assert.equal(errnoName(shim.symbols.axl_shim_implicit_sync_probe(fd)), "EBADF");
    assert.equal(shim.symbols.axl_shim_implicit_sync(), 0, "a memfd says nothing of the kernel");
  } finally {
    shim.symbols.axl_shim_close(fd);
  }
});

Deno.test("axl_shim_implicit_sync_probe() of a closed fd returns -EBADF", () => {
  assert.equal(errnoName(shim.symbols.axl_shim_implicit_sync_probe(unusedFd())), "EBADF");
});

Deno.test("probeImplicitSync() names the buffer and says to use a dma-buf (memfd: -ENOTTY)", () => {
  const fd = memfd(4096);
  // A DmaBuf over a memfd, as a caller holding the wrong fd would have.
  const buf = Object.create(DmaBuf.prototype, {
    fd: { value: fd },
    inode: { value: 42 },
  }) as DmaBuf;
  try {
    assert.throws(() => probeImplicitSync(buf), (err: Error) => {
      assert.match(err.message, /implicitSync\.probe\(inode 42\)/);
      assert.match(err.message, /EBADF/);
      assert.match(err.message, /probe with a dma-buf/);
      return true;
    });
  } finally {
    shim.symbols.axl_shim_close(fd);
  }
});
