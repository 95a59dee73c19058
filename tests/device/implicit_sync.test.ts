// Implicit sync for the engine's jobs, against the real kernel: the driver publishes each job's
// fence in its result as a writer's (AXL_CAP_IMPLICIT_SYNC) and in its input as a reader's
// (AXL_CAP_IMPLICIT_SYNC_INPUT), on 6.12 as on the arm64 5.15 guest, so the result's reservation
// makes readers wait for the engine and the input's makes writers wait; Job.readResult() waits
// on the job's fence on every kernel. The engine runs each job for 100 ms here (latency_us), long enough to
// look at the buffers while the job is in flight.
import assert from "node:assert/strict";
import { Device, Heap, type Job } from "../../mod.ts";
import { frameLayout } from "../../lib/frames/frame.ts";
import { fillPattern } from "../../lib/frames/producers/heap_producer.ts";
import { referenceResult } from "../../lib/frames/reference.ts";
import { exportSyncFile } from "../../lib/core/implicit_sync.ts";
import { monotonicNs } from "../../lib/core/shim.ts";
import type { DmaBuf } from "../../lib/core/dmabuf.ts";
import { withModuleParam } from "./_module_param.ts";

const LATENCY_US = 100_000;
const REFCNT = "/sys/module/axl/refcnt";

/** DMA_BUF_IOCTL_IMPORT_SYNC_FILE and EXPORT_SYNC_FILE came with Linux 6.0. */
const [major] = Deno.osRelease().split(".").map(Number);
const hasSyncFileIoctls = major! >= 6;

const libc = Deno.dlopen("libc.so.6", {
  poll: { parameters: ["buffer", "u64", "i32"], result: "i32" },
});
const POLLOUT = 0x4;

/** poll() of `buf` for POLLOUT (every fence in its reservation signalled), waiting `ms`. */
function pollOut(buf: DmaBuf, ms: number): boolean {
  const pfd = new Int32Array([buf.fd, POLLOUT]); // struct pollfd { int fd; short events, revents; }
  const ret = libc.symbols.poll(pfd, 1n, ms);
  assert.ok(ret >= 0, `poll(inode ${buf.inode}) failed`);
  return ret === 1 && ((pfd[1]! >>> 16) & POLLOUT) !== 0;
}

/** A 640x480 NV12 heap frame with a test pattern, its expected CRC, and a result buffer. */
function frameAndResult(heap: Heap): { frame: DmaBuf; result: DmaBuf; crc32: number } {
  const layout = frameLayout("NV12", 640, 480);
  const frame = heap.allocate(layout.size, { name: "sync-frame" });
  let crc32;
  {
    using access = frame.cpuAccess({ read: true, write: true });
    fillPattern(access.bytes, layout, 3, 1);
    crc32 = referenceResult(access.bytes, layout).crc32;
  }
  return { frame, result: heap.allocate(4096, { name: "sync-result" }), crc32 };
}

/** What a test of one job gets: the device, a pattern frame, a result buffer, the frame's CRC. */
interface JobRig {
  dev: Device;
  frame: DmaBuf;
  result: DmaBuf;
  crc32: number;
}

/**
 * Runs `fn` with the engine taking 100 ms per job, a device opened with `options`, a system-heap
 * frame and a result buffer; closes all of them and restores the latency afterwards.
 */
function withJobRig(
  options: { implicitSync?: boolean },
  fn: (rig: JobRig) => void | Promise<void>,
): Promise<void> {
  return withModuleParam("latency_us", LATENCY_US, async () => {
    using dev = Device.open(undefined, options);
    const { frame, result, crc32 } = frameAndResult(Heap.open("system"));
    using _frame = frame;
    using _result = result;
    await fn({ dev, frame, result, crc32 });
  });
}

function submit(dev: Device, frame: DmaBuf, result: DmaBuf): Job {
  return dev.submit(dev.import(frame, { width: 640, height: 480 }), { result });
}

function refcnt(): number {
  return Number(Deno.readTextFileSync(REFCNT).trim());
}

/** Waits up to 5 s for the module's reference count to become `want` (cleanup is deferred). */
async function settleRefcnt(want: number): Promise<number> {
  const end = Date.now() + 5000;
  let n = refcnt();
  while (n !== want && Date.now() < end) {
    await new Promise((r) => setTimeout(r, 10));
    n = refcnt();
  }
  return n;
}

/**
 * One job through the calls a test is about to time, waited for: the first call of each
 * (FFI symbol binding, JIT) takes longer than the engine's 100 ms under TCG.
 */
function warmUp(dev: Device, frame: DmaBuf, result: DmaBuf): void {
  using job = submit(dev, frame, result);
  exportSyncFile(result, "read").close();
  exportSyncFile(frame, "write").close();
  pollOut(result, 0);
  job.fence.info();
  job.waitSync(5000);
  job.input.release();
}

Deno.test({
  name: "right after a submit, EXPORT_SYNC_FILE and poll() on the result wait for the job",
  ignore: !hasSyncFileIoctls,
  fn: () =>
    withJobRig({}, ({ dev, frame, result }) => {
      warmUp(dev, frame, result);
      using job = submit(dev, frame, result);
      using readers = exportSyncFile(result, "read");
      using writers = exportSyncFile(frame, "write");
      const seen = readers.info(), seenInput = writers.info(), ready = pollOut(result, 0);
      // Only meaningful while the engine has not finished: checked after looking.
      assert.equal(
        job.fence.info().status,
        "active",
        "the job ended before the checks (host too slow?)",
      );
      assert.equal(seen.status, "active", "a reader of the result has the job's fence to wait for");
      assert.equal(seen.timeline, "axl:metis-0");
      assert.equal(seenInput.status, "active", "a writer of the input waits for the job's read");
      assert.equal(ready, false, "poll(POLLOUT) on the result does not return at once");
      assert.equal(dev.implicitSync, "on");
      assert.equal(job.syncError, undefined);

      const done = job.waitSync(5000);
      assert.ok(done.latencyNs >= BigInt(LATENCY_US) * 1000n, `latency ${done.latencyNs} ns`);
      assert.equal(readers.info().status, "signaled", "the exported fence is the job's");
      assert.equal(pollOut(result, 0), true, "poll(POLLOUT) returns at once once the job ended");
      using after = exportSyncFile(result, "read");
      assert.equal(after.info().status, "signaled");
      job.input.release();
    }),
});

Deno.test({
  name: "with the shim's publishing off the driver still publishes: the result waits for the job",
  ignore: !hasSyncFileIoctls,
  fn: () =>
    withJobRig({ implicitSync: false }, ({ dev, frame, result }) => {
      assert.ok(dev.info().caps.includes("implicit-sync"), "the driver publishes fences");
      assert.equal(dev.implicitSync, "on", "implicitSync: false cannot turn the driver's off");
      warmUp(dev, frame, result);
      using job = submit(dev, frame, result);
      using readers = exportSyncFile(result, "read");
      using writers = exportSyncFile(frame, "write");
      const seen = readers.info(), seenInput = writers.info(), ready = pollOut(result, 0);
      assert.equal(
        job.fence.info().status,
        "active",
        "the job ended before the checks (host too slow?)",
      );
      assert.equal(seen.status, "active", "a reader of the result has the job's fence to wait for");
      assert.equal(seenInput.status, "active", "a writer of the input waits for the job's read");
      assert.equal(ready, false, "poll(POLLOUT) on the result does not return at once");
      job.waitSync(5000);
      job.input.release();
    }),
});

Deno.test({
  name:
    "without DMA_BUF_IOCTL_IMPORT_SYNC_FILE (Linux < 6.0) the driver publishes: poll() on the result and POLLOUT on the input wait",
  ignore: hasSyncFileIoctls,
  fn: () =>
    withJobRig({}, ({ dev, frame, result }) => {
      assert.equal(dev.implicitSync, "on");
      assert.equal(dev.info().implicitSync, "on");
      // The warm-up without EXPORT_SYNC_FILE, which this kernel lacks.
      {
        using first = submit(dev, frame, result);
        pollOut(result, 0);
        first.fence.info();
        first.waitSync(5000);
        first.input.release();
      }
      using job = submit(dev, frame, result);
      const ready = pollOut(result, 0), writable = pollOut(frame, 0);
      assert.equal(
        job.fence.info().status,
        "active",
        "the job ended before the checks (host too slow?)",
      );
      assert.equal(ready, false, "poll(POLLOUT) on the result does not return at once");
      // The driver puts the job's fence in the input as a reader's (this kernel cannot take
      // the shim's import): a writer of the input waits for the job.
      assert.equal(writable, false, "poll(POLLOUT) on the input does not return at once");
      assert.equal(job.syncError, undefined);
      job.waitSync(5000);
      assert.equal(pollOut(result, 0), true, "poll(POLLOUT) returns at once once the job ended");
      job.input.release();
    }),
});

for (const implicitSync of [true, false]) {
  Deno.test(`Job.readResult() right after a submit waits for the job's fence (implicit sync ${implicitSync ? "on" : "off"})`, () =>
    withJobRig({ implicitSync }, ({ dev, frame, result, crc32 }) => {
      using job = submit(dev, frame, result);
      const got = job.readResult({ histogram: false });
      const readNs = BigInt(monotonicNs());
      assert.equal(got.seqno, job.seqno, "the result is this job's");
      assert.equal(got.crc32, crc32);
      assert.ok(job.done, "readResult waited for the job");
      assert.ok(readNs >= job.done.signalNs, "read after the fence signalled");
      assert.ok(
        readNs - job.submitNs >= BigInt(LATENCY_US) * 1000n,
        `read ${readNs - job.submitNs} ns after the submit, latency ${LATENCY_US} us`,
      );
      job.input.release();
    }));
}

Deno.test("Job.readResult() of a job closed before it was waited for throws EBADF, naming what to do", () =>
  withJobRig({}, ({ dev, frame, result }) => {
    const job = submit(dev, frame, result);
    job.close();
    assert.throws(
      () => job.readResult(),
      /EBADF.*closed before it was waited for.*waitSync\(\) before job\.close\(\)/s,
    );
    // Closing the device releases the import: the job holds its own reference until it ends.
  }));

Deno.test("a buffer holding a published fence keeps a reference to axl until the buffer is freed", async () => {
  const heap = Heap.open("system");
  // The driver publishes whether the shim's fallback is on or off.
  for (const implicitSync of [true, false]) {
    const dev = Device.open(undefined, { implicitSync });
    const { frame, result } = frameAndResult(heap);
    const base = refcnt();
    const job = submit(dev, frame, result);
    job.waitSync(5000);
    job.closeAndRelease(); // the job's fence fd is closed
    dev.close();
    // base counts the open device file; the fence in both buffers counts one, whatever the
    // job's deferred cleanup still holds.
    const held = await settleRefcnt(base);
    result.close();
    frame.close();
    const freed = await settleRefcnt(base - 1);
    assert.deepEqual(
      { held, freed },
      { held: base, freed: base - 1 },
      `implicit sync ${implicitSync ? "on" : "off"}: refcnt with the buffers alive, then freed`,
    );
  }
});
