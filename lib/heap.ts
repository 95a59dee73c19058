/**
 * {@linkcode Heap}: DMA-BUF heaps under `/dev/dma_heap` (`system`, `linux,cma`, ...) and
 * allocation from them.
 *
 * @module
 */
import { unwrap } from "./errors.ts";
import { DmaBuf } from "./dmabuf.ts";
import { cString, shim } from "./_shim.ts";
import {
  type AccessorConstraints,
  type Allocation,
  type BufferRequest,
  cmaHeapName,
  jetsonRoles,
  reconcileOrThrow,
  vmRoles,
} from "./constraints/mod.ts";

/** Directory the kernel creates heap nodes in. */
export const HEAP_DIR = "/dev/dma_heap";

/** Options of {@linkcode Heap.allocate}. */
export interface AllocateOptions {
  /** Name set on the buffer (shows in fdinfo, bufinfo and /proc/<pid>/maps). */
  name?: string;
}

/**
 * A DMA heap.
 *
 * @example List heaps and allocate a buffer
 * ```ts ignore
 * import { Heap } from "./heap.ts";
 * console.log(Heap.list());
 * using buf = Heap.open("system").allocate(1 << 20, { name: "scratch" });
 * console.log(buf.inode, buf.exporter);
 * ```
 */
export class Heap {
  /** Heap name, e.g. `system`. */
  readonly name: string;

  private constructor(name: string) {
    this.name = name;
  }

  /** Names of the heaps this kernel offers; empty when there is no heap directory. */
  static list(): string[] {
    try {
      return [...Deno.readDirSync(HEAP_DIR)].map((e) => e.name).sort();
    } catch (err) {
      if (err instanceof Deno.errors.NotFound) return [];
      throw err;
    }
  }

  /** A handle on heap `name`; allocation reports a missing heap with a hint. */
  static open(name: string): Heap {
    if (!name || name.includes("/") || name.length > 64) {
      throw new TypeError(`not a heap name: '${name}' (expected e.g. 'system' or 'linux,cma')`);
    }
    return new Heap(name);
  }

  /** Allocates `bytes` (rounded up to pages by the kernel) as a read-write dma-buf. */
  allocate(bytes: number, options: AllocateOptions = {}): DmaBuf {
    if (!Number.isSafeInteger(bytes) || bytes <= 0) {
      throw new RangeError(`allocation size must be a positive integer, got ${bytes}`);
    }
    const s = shim();
    const fd = unwrap(
      s.symbols.axl_shim_heap_alloc(
        cString(this.name),
        BigInt(bytes),
        s.constant("O_RDWR") | s.constant("O_CLOEXEC"),
        0n,
      ),
      `heap.alloc(${this.name}, ${bytes} bytes)`,
      "heap",
    );
    const buf = DmaBuf.fromFd(fd);
    if (options.name) {
      try {
        buf.setName(options.name);
      } catch (err) {
        buf.close();
        throw err;
      }
    }
    return buf;
  }
}

/** What {@linkcode allocateFor} returns. */
export interface ReconciledBuffer extends Disposable {
  /** The buffer. */
  buffer: DmaBuf;
  /** The reconciled allocation (heap, size, layout) and why. */
  allocation: Allocation;
}

/**
 * The heap camera frames come from on this machine: the CMA heap when there is one
 * (`linux,cma` on the Jetson and the arm64 VM rig, `reserved` where `cma=` made the
 * area), whose physically contiguous buffers any camera DMA can take, else `system`.
 *
 * @example
 * ```ts
 * import { defaultFrameHeap } from "./heap.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(defaultFrameHeap(["linux,cma", "system"]), "linux,cma");
 * strictEqual(defaultFrameHeap(["system"]), "system");
 * ```
 */
export function defaultFrameHeap(heaps: string[] = Heap.list()): string {
  return cmaHeapName(heaps) ?? "system";
}

/**
 * The accessors of a camera frame imported by the NPU on this machine: the Jetson's
 * (contiguous, from the CMA heap, `linux,cma` or `reserved`) when a CMA heap
 * exists, else the x86_64 VM rig's.
 */
export function defaultFrameAccessors(heaps: string[] = Heap.list()): AccessorConstraints[] {
  const cmaHeap = cmaHeapName(heaps);
  const roles = cmaHeap ? jetsonRoles({ cmaHeap }) : vmRoles();
  return [roles["camera-isp"], roles["npu-input"]];
}

/**
 * Allocates one buffer that satisfies every accessor: their constraints are
 * reconciled into a heap, alignment and size first; disagreements throw a
 * ReconcileError naming the accessors and attributes.
 *
 * @example A 1080p NV12 frame for the camera and the NPU
 * ```ts ignore
 * import { allocateFor } from "./heap.ts";
 * using frame = allocateFor({ kind: "image", format: "NV12", width: 1920, height: 1080 });
 * console.log(frame.allocation.heap, frame.allocation.reasons);
 * ```
 */
export function allocateFor(
  request: BufferRequest,
  accessors: AccessorConstraints[] = defaultFrameAccessors(),
  options: AllocateOptions = {},
): ReconciledBuffer {
  const allocation = reconcileOrThrow(accessors, request, { availableHeaps: Heap.list() });
  const buffer = Heap.open(allocation.heap).allocate(allocation.allocSize, options);
  return { buffer, allocation, [Symbol.dispose]: () => buffer.close() };
}
