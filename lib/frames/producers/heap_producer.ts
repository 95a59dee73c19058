/**
 * {@linkcode HeapProducer}: frames allocated from a DMA heap and filled with a known test
 * pattern through a CPU mapping. For tests and for driving the NPU without a camera.
 *
 * @module
 */
import type { PixelFormat } from "../../core/device.ts";
import type { DmaBuf } from "../../core/dmabuf.ts";
import { type Frame, frameLayout } from "../frame.ts";
import type { FrameLayout } from "../../formats/layout.ts";
import { defaultFrameHeap, Heap } from "../../core/heap.ts";
import { type ReferenceResult, referenceResult } from "../reference.ts";
import type { Producer } from "./producer.ts";

/** Options of {@linkcode HeapProducer.open}. */
export interface HeapProducerOptions {
  /** Heap to allocate from (default: the CMA heap if any, else `system`). */
  heap?: string;
  /** Pixel format (default NV12). */
  format?: PixelFormat;
  /** Width (default 640). */
  width?: number;
  /** Height (default 480). */
  height?: number;
  /** Buffers in the ring (default 3). */
  buffers?: number;
  /** Seed of the pattern (default 1). */
  seed?: number;
}

/**
 * Writes the test pattern for (`seed`, `index`) into `bytes`: a diagonal gradient with
 * a per-buffer offset, so every buffer has a different, reproducible content.
 *
 * @example
 * ```ts
 * import { fillPattern } from "./heap_producer.ts";
 * import { frameLayout } from "../frame.ts";
 * const a = new Uint8Array(16), b = new Uint8Array(16);
 * fillPattern(a, frameLayout("GREY", 4, 4), 1, 0);
 * fillPattern(b, frameLayout("GREY", 4, 4), 1, 0);
 * console.log(a.join() === b.join()); // true
 * ```
 */
export function fillPattern(
  bytes: Uint8Array,
  layout: FrameLayout,
  seed: number,
  index: number,
): void {
  const base = (seed * 37 + index * 53) & 0xff;
  for (const [p, plane] of layout.planes.entries()) {
    for (let y = 0; y < plane.rows; y++) {
      const row = plane.offset + y * plane.stride;
      for (let x = 0; x < plane.rowBytes; x++) {
        bytes[row + x] = (base + x + y * 3 + p * 101) & 0xff;
      }
      bytes.fill(0, row + plane.rowBytes, row + plane.stride);
    }
  }
}

/**
 * Frames from a DMA heap, filled once each with {@linkcode fillPattern}.
 *
 * @example
 * ```ts ignore
 * import { HeapProducer } from "./heap_producer.ts";
 * using p = HeapProducer.open({ format: "NV12", width: 640, height: 480 });
 * const frame = await p.next();
 * console.log(frame.buffer.inode, p.expected(frame).crc32);
 * p.recycle(frame);
 * ```
 */
export class HeapProducer implements Producer {
  /** What it produces, for reports: `heap:<heap> <format> <w>x<h> x<buffers>`. */
  readonly name: string;
  readonly #layout: FrameLayout<PixelFormat>;
  readonly #buffers: DmaBuf[];
  readonly #expected: ReferenceResult[];
  #sequence = 0;

  private constructor(
    name: string,
    layout: FrameLayout<PixelFormat>,
    buffers: DmaBuf[],
    expected: ReferenceResult[],
  ) {
    this.name = name;
    this.#layout = layout;
    this.#buffers = buffers;
    this.#expected = expected;
  }

  /** Allocates and fills the ring. */
  static open(options: HeapProducerOptions = {}): HeapProducer {
    const heapName = options.heap ?? defaultFrameHeap();
    const format = options.format ?? "NV12";
    const layout = frameLayout(format, options.width ?? 640, options.height ?? 480);
    const count = options.buffers ?? 3;
    if (!Number.isInteger(count) || count < 1 || count > 64) {
      throw new RangeError(`buffers must be 1..64, got ${count}`);
    }
    const seed = options.seed ?? 1;
    const heap = Heap.open(heapName);
    const buffers: DmaBuf[] = [];
    const expected: ReferenceResult[] = [];
    try {
      for (let i = 0; i < count; i++) {
        const buf = heap.allocate(layout.size, { name: `axl-frame-${i}` });
        buffers.push(buf);
        {
          using access = buf.cpuAccess({ read: true, write: true });
          fillPattern(access.bytes, layout, seed, i);
          expected.push(referenceResult(access.bytes, layout));
        }
        // Keep no CPU mapping of a frame: the NPU path must not need one.
        buf.unmap();
      }
    } catch (err) {
      for (const b of buffers) b.close();
      throw err;
    }
    const name = `heap:${heapName} ${format} ${layout.width}x${layout.height} x${count}`;
    return new HeapProducer(name, layout, buffers, expected);
  }

  /** The frame layout every buffer has. */
  get layout(): FrameLayout<PixelFormat> {
    return this.#layout;
  }

  /** The next buffer of the ring. */
  next(): Promise<Frame> {
    if (!this.#buffers.length) return Promise.reject(new TypeError(`${this.name}: closed`));
    const sequence = this.#sequence++;
    const buffer = this.#buffers[sequence % this.#buffers.length]!;
    return Promise.resolve({ ...this.#layout, buffer, sequence });
  }

  /** The buffers of the ring, in order (empty once closed). */
  buffers(): readonly DmaBuf[] {
    return this.#buffers;
  }

  /** Nothing to do: the ring reuses buffers in order. */
  recycle(_frame: Frame): void {}

  /** The result the engine must compute for `frame` (computed when the ring was filled). */
  expected(frame: Frame): ReferenceResult {
    const i = this.#buffers.indexOf(frame.buffer);
    if (i < 0) throw new TypeError("the frame does not come from this producer");
    return this.#expected[i]!;
  }

  /** Frees the ring. Idempotent. */
  close(): void {
    for (const b of this.#buffers) b.close();
    this.#buffers.length = 0;
  }

  /** Same as {@linkcode HeapProducer.close}. */
  [Symbol.dispose](): void {
    this.close();
  }
}
