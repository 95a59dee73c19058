/**
 * {@linkcode Heap}: DMA-BUF heaps under `/dev/dma_heap` (`system`, `linux,cma`, ...) and
 * allocation from them.
 *
 * @module
 */
import { unwrap } from "./errors.ts";
import { DmaBuf } from "./dmabuf.ts";
import { cString, shim } from "./_shim.ts";

/** Directory the kernel creates heap nodes in. */
export const HEAP_DIR = "/dev/dma_heap";

/**
 * The names the kernel gives the CMA heap, in order of preference: it is named after its CMA
 * area, `linux,cma` for a device tree's reserved-memory node (the Jetson, the arm64 VM rig),
 * `reserved` for the area made from `cma=` or `CONFIG_CMA_SIZE_MBYTES`. Its buffers are
 * physically contiguous, and each buffer's exporter name is the heap's name.
 */
export const CMA_HEAP_NAMES: readonly string[] = Object.freeze(["linux,cma", "reserved"]);

/**
 * The CMA heap among `heaps` (names under /dev/dma_heap), or undefined when there is none.
 *
 * @example
 * ```ts
 * import { cmaHeapName } from "./heap.ts";
 * import { strictEqual } from "node:assert/strict";
 * strictEqual(cmaHeapName(["reserved", "system"]), "reserved");
 * strictEqual(cmaHeapName(["system"]), undefined);
 * ```
 */
export function cmaHeapName(heaps: readonly string[]): string | undefined {
  return CMA_HEAP_NAMES.find((name) => heaps.includes(name));
}

/**
 * The heap camera frames come from on this machine: the CMA heap when there is one
 * (`linux,cma` on the Jetson and the arm64 VM rig, `reserved` where `cma=` made the area),
 * whose physically contiguous buffers any camera DMA can take, else `system`.
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
