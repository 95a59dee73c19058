// Device.importAndSubmit() and Job.closeAndRelease() (one shim call for two steps each)
// against the real module: the same import, job and result as the unfused calls, and the
// same errors, with nothing left held in the driver after a failure.
import assert from "node:assert/strict";
import { AxlError, Device, Heap } from "../../mod.ts";
import { frameLayout } from "../../lib/frames/frame.ts";
import { fillPattern } from "../../lib/frames/producers/heap_producer.ts";
import { referenceResult } from "../../lib/frames/reference.ts";
import { parseBufinfo } from "../../lib/trace/parse/bufinfo.ts";

const BUFINFO = "/sys/kernel/debug/dma_buf/bufinfo";

function attachedDevices(inode: number): string[] {
  const snap = parseBufinfo(Deno.readTextFileSync(BUFINFO));
  return snap.buffers.find((b) => b.inode === inode)?.devices ?? [];
}

Deno.test("importAndSubmit() and closeAndRelease() give what import(), submit(), close() and release() give", () => {
  using dev = Device.open();
  const heap = Heap.open("system");
  const layout = frameLayout("NV12", 320, 240);
  using frame = heap.allocate(layout.size, { name: "fused-frame" });
  using result = heap.allocate(4096, { name: "fused-result" });
  let want;
  {
    using access = frame.cpuAccess({ read: true, write: true });
    fillPattern(access.bytes, layout, 5, 2);
    want = referenceResult(access.bytes, layout);
  }
  const geometry = { width: 320, height: 240, format: "NV12" } as const;

  const imp = dev.import(frame, { ...geometry });
  const job = dev.submit(imp, { result, model: 7, timeoutMs: 2000 });
  const done = job.waitSync(5000);
  const unfused = job.readResult();
  job.close();
  imp.release();

  const fused = dev.importAndSubmit(frame, { ...geometry }, { result, model: 7, timeoutMs: 2000 });
  const fimp = fused.input;
  assert.equal(dev.info().fileImports, 1);
  assert.ok(attachedDevices(frame.inode).includes(dev.info().device), BUFINFO);
  const fdone = fused.waitSync(5000);
  const got = fused.readResult();

  for (const k of ["size", "inode", "nents", "contiguous", "format", "width", "height"] as const) {
    assert.equal(fimp[k], imp[k], k);
  }
  assert.deepEqual(fimp.planes, imp.planes);
  assert.equal(fimp.ioctl, "IMPORT_FD");
  assert.equal(fdone.fence.status, done.fence.status);
  assert.equal(fdone.fence.timeline, "axl:metis-0");
  assert.ok(fdone.signalNs > fdone.submitNs);
  assert.equal(fused.seqno, job.seqno + 1n, "the next job on the timeline");
  assert.equal(got.seqno, BigInt.asIntN(64, fused.seqno));
  for (const k of ["model", "pixfmt", "width", "height", "status", "crc32", "lumaSum"] as const) {
    assert.equal(got[k], unfused[k], k);
  }
  assert.deepEqual(got.histogram, unfused.histogram);
  assert.equal(got.crc32, want.crc32);

  const fenceFd = fused.fence.fd;
  fused.closeAndRelease();
  assert.ok(fused.fence.closed && fimp.released);
  assert.throws(() => Deno.readLinkSync(`/proc/self/fd/${fenceFd}`), Deno.errors.NotFound);
  assert.deepEqual(dev.imports, []);
  assert.deepEqual(dev.jobs, []);
  const info = dev.info();
  assert.equal(info.fileImports, 0);
  assert.equal(info.fileJobs, 0);
  assert.deepEqual(attachedDevices(frame.inode), []);
  fused.closeAndRelease(); // idempotent, as close() and release() are
});

Deno.test("importAndSubmit() fails as import() and submit() do, and leaves no import behind", () => {
  using dev = Device.open();
  const heap = Heap.open("system");
  using small = heap.allocate(4096);
  using frame = heap.allocate(64 * 64);
  using result = heap.allocate(4096);
  // The import fails: the frame is larger than its buffer.
  const importError = (e: unknown) =>
    e instanceof AxlError && e.code === "EINVAL" && /device\.import/.test(e.op);
  assert.throws(() => dev.import(small, { width: 640, height: 480 }), importError);
  assert.throws(
    () => dev.importAndSubmit(small, { width: 640, height: 480 }, { result }),
    importError,
  );
  // The submit fails: the result is not a dma-buf (the device's own fd). The driver's error
  // for that, through the unfused calls first.
  const notBuf = { fd: dev.fd } as unknown as typeof result;
  const imp = dev.import(frame, { width: 64, height: 64, format: "GREY" });
  let code = "";
  assert.throws(() => dev.submit(imp, { result: notBuf }), (e: unknown) => {
    code = (e as AxlError).code;
    return e instanceof AxlError && /device\.submit/.test(e.op);
  });
  imp.release();
  assert.throws(
    () => dev.importAndSubmit(frame, { width: 64, height: 64, format: "GREY" }, { result: notBuf }),
    (e: unknown) => e instanceof AxlError && e.code === code && /device\.submit/.test(e.op),
  );
  assert.deepEqual(dev.imports, []);
  assert.equal(dev.info().fileImports, 0);
  assert.deepEqual(attachedDevices(frame.inode), []);
  // Bad options are refused before any call, with the schemas' errors.
  assert.throws(() => dev.importAndSubmit(frame, { width: 0, height: 4 }, { result }), RangeError);
  assert.throws(
    () => dev.importAndSubmit(frame, { width: 64, height: 64 }, { result, timeoutMs: -1 }),
    RangeError,
  );
  assert.throws(
    () => dev.importAndSubmit(frame, { width: 64, height: 64 }, { result: 3 as never }),
    /result must be a DmaBuf/,
  );
  assert.equal(dev.info().fileImports, 0);
});

Deno.test("closeAndRelease() refuses the release, as release() does, while another job reads the import", async () => {
  using dev = Device.open();
  const heap = Heap.open("system");
  using frame = heap.allocate(64 * 64);
  using result = heap.allocate(4096);
  const imp = dev.import(frame, { width: 64, height: 64, format: "GREY" });
  const a = dev.submit(imp, { result });
  // The driver takes one job per import at a time: a second one once the first has signalled,
  // which info() reads without counting the job as waited for.
  const deadline = Date.now() + 5000;
  while (a.fence.info().status === "active" && Date.now() < deadline) {
    await new Promise((r) => setTimeout(r, 1));
  }
  const b = dev.submit(imp, { result });
  assert.throws(() => a.closeAndRelease(), /1 job\(s\) still use it/);
  assert.ok(a.fence.closed && !imp.released);
  b.waitSync(5000);
  b.closeAndRelease();
  assert.ok(imp.released);
  assert.equal(dev.info().fileImports, 0);
});
