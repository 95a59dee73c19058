// Host tests of libaxl_shim that need no device: errno mapping, mappings, polling.
import assert from "node:assert/strict";
import { loadShim } from "../../../ffi/loader.ts";
import { AxlError, errnoName, unwrap } from "../../../lib/core/errors.ts";
import { Heap } from "../../../lib/core/heap.ts";
import { DmaBuf } from "../../../lib/core/dmabuf.ts";
import { cstr, libc, memfd, unusedFd } from "./_libc.ts";

const shim = loadShim();

Deno.test("axl_shim_heap_alloc() returns -ENOENT for a heap that does not exist", () => {
  const ret = shim.symbols.axl_shim_heap_alloc(cstr("no-such-heap"), 4096n, 0, 0n);
  assert.equal(errnoName(ret), "ENOENT");
});

Deno.test("axl_shim_heap_alloc() rejects a heap name with a slash as -EINVAL", () => {
  const ret = shim.symbols.axl_shim_heap_alloc(cstr("../../etc/passwd"), 4096n, 0, 0n);
  assert.equal(errnoName(ret), "EINVAL");
});

Deno.test("Heap.allocate() throws AxlError with the op and a hint for a missing heap", () => {
  assert.throws(() => Heap.open("no-such-heap").allocate(4096), (e: unknown) => {
    assert.ok(e instanceof AxlError);
    assert.equal(e.code, "ENOENT");
    assert.equal(e.errno, 2);
    assert.match(e.op, /heap\.alloc\(no-such-heap, 4096 bytes\)/);
    assert.match(e.hint, /dma_heap/);
    return true;
  });
});

Deno.test("Heap.allocate() and Heap.open() reject bad arguments with TypeError/RangeError", () => {
  assert.throws(() => Heap.open("a/b"), TypeError);
  assert.throws(() => Heap.open("system").allocate(0), RangeError);
  assert.throws(() => Heap.open("system").allocate(1.5), RangeError);
});

Deno.test("axl_shim_dmabuf_sync() on a memfd returns the kernel's -ENOTTY", () => {
  const fd = memfd(4096);
  try {
    const ret = shim.symbols.axl_shim_dmabuf_sync(fd, BigInt(shim.constant("DMA_BUF_SYNC_START")));
    assert.equal(errnoName(ret), "ENOTTY");
    const named = shim.symbols.axl_shim_dmabuf_set_name(fd, cstr("x"));
    assert.equal(errnoName(named), "ENOTTY");
  } finally {
    shim.symbols.axl_shim_close(fd);
  }
});

Deno.test("axl_shim_close() of a closed fd returns -EBADF", () => {
  assert.equal(shim.symbols.axl_shim_close(memfd(16)), 0);
  assert.equal(errnoName(shim.symbols.axl_shim_close(unusedFd())), "EBADF");
});

Deno.test("DmaBuf.fromFd() refuses a memfd and leaves it open", () => {
  const fd = memfd(4096);
  try {
    assert.throws(
      () => DmaBuf.fromFd(fd),
      (e: unknown) => e instanceof AxlError && /not a dma-buf/.test(e.message),
    );
    assert.equal(shim.symbols.axl_shim_dup(fd) >= 0, true);
  } finally {
    shim.symbols.axl_shim_close(fd);
  }
});

Deno.test("axl_shim_mmap() maps a memfd shared: writes through one mapping show in another", () => {
  const fd = memfd(8192);
  const a = new BigUint64Array(1);
  const b = new BigUint64Array(1);
  const prot = shim.constant("PROT_READ") | shim.constant("PROT_WRITE");
  try {
    assert.equal(shim.symbols.axl_shim_mmap(fd, 8192n, prot, 0n, a), 0);
    assert.equal(shim.symbols.axl_shim_mmap(fd, 8192n, prot, 0n, b), 0);
    assert.notEqual(a[0], b[0]);
    const va = new Uint8Array(
      new Deno.UnsafePointerView(Deno.UnsafePointer.create(a[0]!)!).getArrayBuffer(8192),
    );
    const vb = new Uint8Array(
      new Deno.UnsafePointerView(Deno.UnsafePointer.create(b[0]!)!).getArrayBuffer(8192),
    );
    va[4097] = 0x5a;
    assert.equal(vb[4097], 0x5a);
    // The shim's memcpy copies between mappings.
    va.fill(7, 0, 100);
    assert.equal(shim.symbols.axl_shim_memcpy(b[0]! + 1000n, a[0]!, 100n), 0);
    assert.equal(va[1099], 7);
    assert.equal(va[1100], 0);
    assert.equal(shim.symbols.axl_shim_munmap(a[0]!, 8192n), 0);
    assert.equal(shim.symbols.axl_shim_munmap(b[0]!, 8192n), 0);
  } finally {
    shim.symbols.axl_shim_close(fd);
  }
});

Deno.test("axl_shim_mmap() reports -EINVAL for a zero length and -EBADF for a closed fd", () => {
  const out = new BigUint64Array(1);
  assert.equal(errnoName(shim.symbols.axl_shim_mmap(3, 0n, 1, 0n, out)), "EINVAL");
  assert.equal(errnoName(shim.symbols.axl_shim_mmap(unusedFd(), 4096n, 1, 0n, out)), "EBADF");
});

Deno.test("axl_shim_poll_in() times out on a quiet eventfd and reports it ready once written", async () => {
  const fd = libc.symbols.eventfd(0, 0o2000000 /* EFD_CLOEXEC */);
  assert.ok(fd >= 0);
  try {
    assert.equal(shim.symbols.axl_shim_poll_in(fd, 0), 0);
    assert.equal(shim.symbols.axl_shim_poll_in(fd, 20), 0);
    const pending = shim.symbols.axl_shim_poll_in_async(fd, 5000);
    const one = new BigUint64Array([1n]);
    assert.equal(libc.symbols.write(fd, new Uint8Array(one.buffer), 8n), 8n);
    assert.equal(await pending, 1);
    assert.equal(shim.symbols.axl_shim_poll_in(fd, 0), 1);
  } finally {
    shim.symbols.axl_shim_close(fd);
  }
});

Deno.test("axl_shim_poll_in() sees a pipe's read end ready after a write, and -EBADF when closed", () => {
  const fds = new Int32Array(2);
  assert.equal(libc.symbols.pipe(new Uint8Array(fds.buffer)), 0);
  const [r, w] = [fds[0]!, fds[1]!];
  assert.equal(shim.symbols.axl_shim_poll_in(r, 0), 0);
  assert.equal(libc.symbols.write(w, cstr("x"), 1n), 1n);
  assert.equal(shim.symbols.axl_shim_poll_in(r, 0), 1);
  shim.symbols.axl_shim_close(r);
  shim.symbols.axl_shim_close(w);
  assert.equal(errnoName(shim.symbols.axl_shim_poll_in(r, 0)), "EBADF");
});

Deno.test("axl_shim_fence_info() on a non-sync_file fd returns the kernel's -ENOTTY", () => {
  const fd = memfd(16);
  try {
    const out = new BigInt64Array(4);
    assert.equal(errnoName(shim.symbols.axl_shim_fence_info(fd, out, null, 0n)), "ENOTTY");
  } finally {
    shim.symbols.axl_shim_close(fd);
  }
});

Deno.test("axl_shim_dev_info() on a non-axl fd returns -ENOTTY, which maps to the ABI-mismatch hint", () => {
  const fd = memfd(16);
  try {
    const ret = shim.symbols.axl_shim_dev_info(fd, new BigUint64Array(6), null, 0n);
    assert.equal(errnoName(ret), "ENOTTY");
    assert.throws(
      () => unwrap(ret, "device.info", "device"),
      (e: unknown) => e instanceof AxlError && /different\s+linux\/axl\.h/.test(e.hint),
    );
  } finally {
    shim.symbols.axl_shim_close(fd);
  }
});

Deno.test("axl_shim_const() knows the uapi constants and rejects unknown names", () => {
  // 'NV12' as a little-endian fourcc.
  assert.equal(shim.constant("AXL_PIXFMT_NV12"), 0x3231564e);
  assert.throws(() => shim.constant("NO_SUCH_CONSTANT"), RangeError);
});

Deno.test("axl_shim_argus_available() says -ENOSYS on a machine without the Multimedia API", () => {
  assert.equal(errnoName(shim.symbols.axl_shim_argus_available()), "ENOSYS");
});

Deno.test("every Argus entry point fails with -ENOSYS off a Jetson, release included", () => {
  const s = shim.symbols;
  const out = new BigUint64Array(shim.constant("AXL_ARGUS_OUT_WORDS"));
  assert.equal(errnoName(s.axl_shim_argus_open(0, 1920, 1080)), "ENOSYS");
  assert.equal(errnoName(s.axl_shim_argus_acquire_fd(0, 1000, out)), "ENOSYS");
  assert.equal(errnoName(s.axl_shim_argus_release(0, 0)), "ENOSYS");
  assert.equal(errnoName(s.axl_shim_argus_close(0)), "ENOSYS");
  assert.equal(shim.constant("AXL_ARGUS_RING_SLOTS"), 4);
  assert.equal(shim.constant("AXL_ARGUS_MAX_TIMEOUT_MS"), 60_000);
});

Deno.test("axl_shim_open() of a missing device returns -ENOENT", () => {
  assert.equal(errnoName(shim.symbols.axl_shim_open(cstr("/dev/axl-no-such"), 2)), "ENOENT");
});
