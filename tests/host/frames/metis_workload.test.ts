// The Metis workload's order of calls, without a card: nothing before the frames (no
// attach to check a buffer first), then per frame one attach, one transfer of the frame's bytes and one
// detach, the frame recycled whatever happens, and a failed transfer's error kept. The card
// and producer are recorders; the device suite runs the workload on the simulator's node.
import assert from "node:assert/strict";
import type { DmaBuf } from "../../../lib/core/dmabuf.ts";
import type { MetisDevice, TransferOptions } from "../../../lib/core/metis/device.ts";
import { prepareMetisWorkload } from "../../../lib/frames/metis_workload.ts";
import type { Frame } from "../../../lib/frames/frame.ts";
import { frameLayout } from "../../../lib/frames/frame.ts";
import type { Producer } from "../../../lib/frames/producers/producer.ts";
import { metisWorkloadFrames } from "../../../lib/verify/metis_builtin_workload.ts";

const layout = frameLayout("NV12", 64, 32);

function buffers(n: number): DmaBuf[] {
  return Array.from({ length: n }, (_, i) => ({ inode: 100 + i, size: 1 << 20 }) as DmaBuf);
}

function recorder(failTransfer = false) {
  const calls: string[] = [];
  let attached: DmaBuf | undefined;
  const card = {
    path: "/dev/axl-metis-0-0-2",
    attach(buf: DmaBuf) {
      calls.push(`attach ${buf.inode}`);
      attached = buf;
    },
    detach() {
      if (failTransfer && calls.at(-1)?.startsWith("transfer")) {
        throw new Error("EBUSY: a transfer is in flight");
      }
      calls.push(`detach ${attached?.inode}`);
      attached = undefined;
    },
    transfer(o: TransferOptions) {
      calls.push(`transfer ${attached?.inode} ${o.direction} ${o.size}`);
      return failTransfer ? Promise.reject(new Error("ETIMEDOUT")) : Promise.resolve({});
    },
  } as unknown as MetisDevice;
  return { card, calls };
}

function ring(bufs: DmaBuf[], calls: string[], listed = true): Producer {
  let sequence = 0;
  return {
    name: "ring",
    ...(listed ? { buffers: () => bufs } : {}),
    next: () =>
      Promise.resolve({ ...layout, buffer: bufs[sequence % bufs.length]!, sequence: sequence++ }),
    recycle: (f: Frame) => void calls.push(`recycle ${f.buffer.inode}`),
    close() {},
    [Symbol.dispose]() {},
  };
}

Deno.test("prepareMetisWorkload() attaches nothing before the frames, then one attach per frame", async () => {
  const { card, calls } = recorder();
  const bufs = buffers(2);
  using work = prepareMetisWorkload({ card, producer: ring(bufs, calls), frames: 3 });
  assert.deepEqual(calls, []);
  const report = await work.run();
  const frame = (ino: number) => [
    `attach ${ino}`,
    `transfer ${ino} to-card ${layout.size}`,
    `detach ${ino}`,
    `recycle ${ino}`,
  ];
  assert.deepEqual(calls, [...frame(100), ...frame(101), ...frame(100)]);
  assert.deepEqual(
    [report.attaches, report.transfers, report.detaches, report.aborted],
    [3, 3, 3, false],
  );
  const frames = metisWorkloadFrames(report);
  assert.deepEqual(frames.map((f) => f.inode), [100, 101, 100]);
  assert.ok(frames.every((f) => f.signalNs! >= f.submitNs!));
});

Deno.test("prepareMetisWorkload() runs a producer that lists no buffers", async () => {
  const { card, calls } = recorder();
  using work = prepareMetisWorkload({
    card,
    producer: ring(buffers(1), calls, false),
    frames: 1,
  });
  assert.deepEqual(calls, []);
  assert.equal((await work.run()).transfers, 1);
});

Deno.test("a failed transfer keeps its own error, and the frame is still recycled", async () => {
  const { card, calls } = recorder(true);
  using work = prepareMetisWorkload({ card, producer: ring(buffers(1), calls), frames: 2 });
  await assert.rejects(work.run(), /ETIMEDOUT/);
  assert.equal(calls.at(-1), "recycle 100");
});

Deno.test("prepareMetisWorkload() refuses a frame count below 1 and an unknown mode", () => {
  const { card, calls } = recorder();
  const producer = ring(buffers(1), calls);
  assert.throws(() => prepareMetisWorkload({ card, producer, frames: 0 }), RangeError);
  assert.throws(
    () => prepareMetisWorkload({ card, producer, mode: "fast" as "copy" }),
    /unknown mode 'fast'/,
  );
  assert.deepEqual(calls, []);
});

Deno.test("an aborted run stops between frames", async () => {
  const { card, calls } = recorder();
  using work = prepareMetisWorkload({ card, producer: ring(buffers(1), calls), frames: 5 });
  const abort = new AbortController();
  abort.abort();
  const report = await work.run(abort.signal);
  assert.equal(report.aborted, true);
  assert.equal(report.attaches, 0);
});
