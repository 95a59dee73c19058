// The typed device API against the real kernel in the VM rig: axl.ko with the
// metis-sim engine on QEMU's edu PCI device behind the Intel IOMMU.
import assert from "node:assert/strict";
import { allocateFor, AxlError, Device, Heap } from "../../mod.ts";
import { frameLayout } from "../../lib/frames/frame.ts";
import { referenceResult } from "../../lib/frames/reference.ts";
import { HeapProducer } from "../../lib/frames/producers/mod.ts";
import { fillPattern } from "../../lib/frames/producers/heap_producer.ts";
import { listCaptureDevices, V4l2Producer } from "../../lib/frames/producers/v4l2_producer.ts";
import { type FrameStat, runWorkload } from "../../lib/frames/workload.ts";
import { parseBufinfo } from "../../lib/trace/parse/bufinfo.ts";

const BUFINFO = "/sys/kernel/debug/dma_buf/bufinfo";

function attachedDevices(inode: number): string[] {
  const snap = parseBufinfo(Deno.readTextFileSync(BUFINFO));
  return snap.buffers.find((b) => b.inode === inode)?.devices ?? [];
}

Deno.test("Device.info() reports metis-sim on a PCI device behind the IOMMU", () => {
  using dev = Device.open();
  const info = dev.info();
  assert.equal(info.driver, "axl");
  assert.equal(info.engine, "metis-sim");
  assert.equal(info.timeline, "metis-0");
  assert.match(info.device, /^[0-9a-f]{4}:[0-9a-f]{2}:[0-9a-f]{2}\.\d$/);
  assert.deepEqual(info.caps, [
    "simulated",
    "iommu",
    "pci",
    "fence-stamp",
    "import-planes",
    "implicit-sync",
    "implicit-sync-input",
  ]);
  assert.equal(info.fileImports, 0);
});

Deno.test("a heap frame written from user space comes back with the result computed in TypeScript", async () => {
  using dev = Device.open();
  const heap = Heap.open("system");
  const layout = frameLayout("NV12", 640, 480);
  using frame = heap.allocate(layout.size, { name: "test-frame" });
  using result = heap.allocate(4096, { name: "test-result" });
  let want;
  {
    using access = frame.cpuAccess({ read: true, write: true });
    fillPattern(access.bytes, layout, 7, 3);
    want = referenceResult(access.bytes, layout);
  }
  assert.equal(frame.exporter, "system");
  assert.equal(frame.name, "test-frame");

  using imp = dev.import(frame, { width: 640, height: 480, format: "NV12" });
  assert.equal(imp.inode, frame.inode);
  assert.equal(imp.size, frame.size);
  assert.ok(imp.iova > 0n);
  // While imported, the NPU's PCI function is among the buffer's attached devices.
  assert.ok(attachedDevices(frame.inode).includes(dev.info().device), BUFINFO);
  assert.equal(dev.info().fileImports, 1);

  using job = dev.submit(imp, { result, model: 42 });
  const done = await job.wait(5000);
  assert.equal(done.fence.status, "signaled");
  assert.equal(done.fence.timeline, "axl:metis-0");
  assert.ok(done.signalNs > done.submitNs, "the fence signals after the submit");
  const got = job.readResult();
  assert.equal(got.status, 0);
  assert.equal(got.seqno, job.seqno);
  assert.equal(got.model, 42);
  assert.equal(got.width, 640);
  assert.equal(got.crc32, want.crc32);
  assert.equal(got.lumaMin, want.lumaMin);
  assert.equal(got.lumaMax, want.lumaMax);
  assert.equal(got.lumaSum, want.lumaSum);
  assert.deepEqual([...got.histogram], [...want.histogram]);

  job.close();
  imp.release();
  assert.deepEqual(attachedDevices(frame.inode), [], "released imports leave no attachment");
});

Deno.test("Import.release() refuses while a job still reads the import", () => {
  using dev = Device.open();
  const heap = Heap.open("system");
  using frame = heap.allocate(64 * 64);
  using result = heap.allocate(4096);
  const imp = dev.import(frame, { width: 64, height: 64, format: "GREY" });
  const job = dev.submit(imp, { result });
  assert.throws(() => imp.release(), /job\(s\) still use it/);
  job.waitSync(5000);
  imp.release();
  imp.release(); // idempotent
  job.close();
});

Deno.test("Device.import() rejects a frame larger than its buffer with EINVAL and bad options with TypeError/RangeError", () => {
  using dev = Device.open();
  using small = Heap.open("system").allocate(4096);
  assert.throws(
    () => dev.import(small, { width: 640, height: 480, format: "NV12" }),
    (e: unknown) => e instanceof AxlError && e.code === "EINVAL" && /device\.import/.test(e.op),
  );
  assert.throws(() => dev.import(small, { width: 0, height: 4 }), RangeError);
  // @ts-expect-error: an unknown format is a type error at run time too
  assert.throws(() => dev.import(small, { width: 4, height: 4, format: "MJPG" }), TypeError);
  // @ts-expect-error: unknown options are refused, not ignored
  assert.throws(() => dev.import(small, { width: 4, height: 4, colour: 1 }), TypeError);
});

Deno.test("Device.close() releases everything the file imported", () => {
  const dev = Device.open();
  using a = Heap.open("system").allocate(4096);
  using b = Heap.open("system").allocate(4096);
  dev.import(a, { width: 64, height: 64, format: "GREY" });
  dev.import(b, { width: 64, height: 64, format: "GREY" });
  assert.equal(dev.info().fileImports, 2);
  assert.ok(attachedDevices(a.inode).length === 1);
  dev.close();
  dev.close();
  assert.deepEqual(attachedDevices(a.inode), []);
  assert.deepEqual(attachedDevices(b.inode), []);
});

Deno.test("runWorkload() zero-copy: one import and one release per frame, every result correct", async () => {
  const frames: number[] = [];
  const report = await runWorkload({ frames: 12, onFrame: (f) => frames.push(f.index) });
  assert.equal(report.submitted, 12);
  assert.equal(report.completed, 12);
  assert.equal(report.imports, 12);
  assert.equal(report.releases, 12);
  assert.equal(report.mismatches, 0);
  assert.deepEqual(frames, [...Array(12).keys()]);
  assert.ok(report.perFrame.every((f) => f.resultOk === true && f.latencyNs > 0n));
  assert.ok(report.latencyNs.p50 > 0 && report.latencyNs.p50 <= report.latencyNs.max);
  assert.deepEqual(report.exporters, ["system"]);
  // Three ring buffers, imported directly: the NPU saw the producer's own inodes.
  assert.equal(report.inodes.length, 3);
  assert.ok(report.perFrame.every((f) => f.inode === f.frameInode));
});

Deno.test("runWorkload() copy mode imports the staging copy, and the results still match", async () => {
  const report = await runWorkload({ frames: 4, mode: "copy" });
  assert.equal(report.imports, 4);
  assert.equal(report.mismatches, 0);
  assert.equal(report.inodes.length, 1, "every frame went through one staging buffer");
  assert.ok(report.perFrame.every((f) => f.inode !== f.frameInode));
});

Deno.test("runWorkload() keepFrames keeps the first records and still counts every frame", async () => {
  const seen: FrameStat[] = [];
  const report = await runWorkload({ frames: 9, keepFrames: 3, onFrame: (f) => seen.push(f) });
  assert.equal(report.submitted, 9);
  assert.equal(report.completed, 9);
  assert.deepEqual(report.perFrame, seen.slice(0, 3));
  // The percentiles are over all nine frames, not the three kept.
  const all = seen.map((f) => Number(f.latencyNs));
  assert.equal(report.latencyNs.max, Math.max(...all));
  assert.equal(report.latencyNs.min, Math.min(...all));
  assert.equal(report.cpuNsPerFrame.max, Math.max(...seen.map((f) => f.cpuNs)));
  await assert.rejects(() => runWorkload({ frames: 1, keepFrames: -1 }), RangeError);
});

Deno.test("runWorkload() stops between frames when its signal aborts", async () => {
  const ctl = new AbortController();
  const report = await runWorkload({
    frames: 50,
    signal: ctl.signal,
    onFrame: (f) => f.index === 2 && ctl.abort(),
  });
  assert.equal(report.aborted, true);
  assert.equal(report.imports, 3);
  assert.equal(report.releases, 3);
});

Deno.test("HeapProducer frames carry their layout and distinct buffers", async () => {
  using p = HeapProducer.open({ format: "GREY", width: 128, height: 64, buffers: 2 });
  const a = await p.next();
  const b = await p.next();
  const c = await p.next();
  assert.notEqual(a.buffer.inode, b.buffer.inode);
  assert.equal(c.buffer, a.buffer);
  assert.equal(a.size, 128 * 64);
  assert.notEqual(p.expected(a).crc32, p.expected(b).crc32);
});

Deno.test({
  name:
    "V4l2Producer: a vivid frame is attached to the camera and the NPU at once, and the engine reads it",
  ignore: Deno.env.get("AXL_EXPECT_VIVID") !== "1",
  async fn() {
    const cams = listCaptureDevices();
    assert.ok(cams.some((c) => c.driver === "vivid"), "vivid capture device present");
    using dev = Device.open();
    using cam = V4l2Producer.open({
      device: cams.find((c) => c.driver === "vivid")!.path,
      width: 640,
      height: 480,
    });
    using result = Heap.open("system").allocate(4096);
    const frame = await cam.next();
    try {
      using imp = dev.import(frame.buffer, {
        width: frame.width,
        height: frame.height,
        format: "NV12",
        stride: frame.planes[0]!.stride,
      });
      const devices = attachedDevices(frame.buffer.inode);
      assert.equal(devices.length, 2, `two devices attached: ${devices.join(", ")}`);
      assert.ok(devices.includes(dev.info().device));
      using job = dev.submit(imp, { result });
      await job.wait(5000);
      const got = job.readResult();
      let want;
      {
        using access = frame.buffer.cpuAccess({ read: true });
        want = referenceResult(access.bytes, frame);
      }
      assert.equal(got.crc32, want.crc32);
      job.close();
    } finally {
      cam.recycle(frame);
    }
  },
});

Deno.test({
  name:
    "V4l2Producer fps: vivid settles on 1/60 s when asked for 60 fps, and its sequence counts at that rate",
  ignore: Deno.env.get("AXL_EXPECT_VIVID") !== "1",
  async fn() {
    const vivid = listCaptureDevices().find((c) => c.driver === "vivid");
    assert.ok(vivid, "vivid capture device present");
    using cam = V4l2Producer.open({ device: vivid.path, width: 160, height: 120, fps: 60 });
    assert.deepEqual(cam.frameInterval, { numerator: 1, denominator: 60, settable: true });
    // vivid numbers its frames from the time since streaming started, dropping those nobody
    // dequeued in time, so sequence over timestamp is its rate however slow this loop is.
    const seen: { sequence: number; timestampNs: bigint }[] = [];
    for (let i = 0; i < 20; i++) {
      const frame = await cam.next();
      assert.ok(frame.timestampNs !== undefined, "V4L2 frames carry the driver's timestamp");
      seen.push({ sequence: frame.sequence, timestampNs: frame.timestampNs });
      cam.recycle(frame);
    }
    const first = seen[2]!, last = seen.at(-1)!;
    const seconds = Number(last.timestampNs - first.timestampNs) / 1e9;
    const fps = (last.sequence - first.sequence) / seconds;
    assert.ok(fps > 45 && fps < 75, `vivid ran at ${fps.toFixed(1)} fps`);
  },
});

Deno.test("allocateFor() reconciles camera and NPU constraints into a frame the NPU imports: CMA when there is a CMA heap, else system", () => {
  // The camera needs contiguity: the CMA heap (linux,cma on the arm64 rig) when
  // the machine has one; the x86_64 rig has none, and its IOMMU makes system fine.
  const heaps = Heap.list();
  const expected = heaps.find((h) => h === "linux,cma" || h === "reserved") ?? "system";
  using frame = allocateFor({ kind: "image", format: "NV12", width: 640, height: 480 });
  assert.equal(frame.allocation.heap, expected);
  assert.ok(frame.buffer.size >= 640 * 480 * 3 / 2);
  assert.equal(frame.buffer.exporter, expected);
  using dev = Device.open();
  using imp = dev.import(frame.buffer, { width: 640, height: 480, format: "NV12" });
  assert.equal(imp.inode, frame.buffer.inode);
});
