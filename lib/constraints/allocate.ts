/**
 * {@linkcode allocateFor}: one DMA-heap buffer for every accessor of a frame, with the heap,
 * size and layout the accessors' constraints reconcile to. Policy on top of the core
 * {@linkcode Heap}.
 *
 * @module
 */
import { type AllocateOptions, cmaHeapName, Heap } from "../core/heap.ts";
import type { DmaBuf } from "../core/dmabuf.ts";
import { reconcileOrThrow } from "./reconcile.ts";
import { jetsonRoles, vmRoles } from "./roles.ts";
import type { AccessorConstraints, Allocation, BufferRequest } from "./types.ts";

/** What {@linkcode allocateFor} returns. */
export interface ReconciledBuffer extends Disposable {
  /** The buffer. */
  buffer: DmaBuf;
  /** The reconciled allocation (heap, size, layout) and why. */
  allocation: Allocation;
}

/**
 * The accessors of a camera frame imported by the NPU on this machine: the Jetson's
 * (contiguous, from the CMA heap, `linux,cma` or `reserved`) when a CMA heap exists, else
 * the VM rig's.
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
 * import { allocateFor } from "./allocate.ts";
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
