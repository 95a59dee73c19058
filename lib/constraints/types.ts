/**
 * What a buffer accessor (camera/ISP, NPU, CPU process, …) needs from a buffer
 * it shares with others, and what reconciling several of them produces: one
 * allocation every accessor can use, or the list of attributes they disagree on.
 *
 * @module
 */

import type { FrameLayout } from "../formats/layout.ts";

/**
 * How contiguous the memory must be for an accessor:
 * - `none`: scatter-gather is fine;
 * - `physical`: one physically contiguous range (no IOMMU in the way, or the
 *   engine's descriptors take a single physical address);
 * - `dma`: one contiguous range in the accessor's DMA address space; an IOMMU
 *   that maps scatter-gather (`iommu: true`) provides that for any memory.
 */
export type Contiguity = "none" | "physical" | "dma";

/** Access to the buffer: by the CPU (mapping) or by the device. */
export type Access = "none" | "read" | "write" | "readwrite";

/** One accessor's constraints. Unset fields constrain nothing. */
export interface AccessorConstraints {
  /** Who this is, for messages: `camera-isp`, `metis`, `telemetry`, … */
  readonly name: string;
  /** What contiguity its DMA needs (unset: none). */
  readonly contiguity?: Contiguity;
  /** The accessor's DMA goes through an IOMMU that maps scatter-gather lists. */
  readonly iommu?: boolean;
  /** Start address alignment in bytes, a power of two. */
  readonly alignment?: number;
  /** CPU mapping this accessor's process needs. */
  readonly cpuAccess?: Access;
  /** What the device (or process) does with the buffer. */
  readonly deviceAccess?: Access;
  /** Heaps (names as in /dev/dma_heap) this accessor accepts; unset = any. */
  readonly heaps?: readonly string[];
  /** Largest buffer the accessor can take, in bytes. */
  readonly maxSize?: number;
  /** Image rows: stride multiple of this many bytes, a power of two. */
  readonly strideAlign?: number;
  /** Image height padding: a multiple of this many rows, a power of two. */
  readonly heightAlign?: number;
  /** DRM formats this accessor handles (e.g. `NV12`); unset = any. */
  readonly formats?: readonly string[];
  /** Modifiers it handles; unset means LINEAR only. */
  readonly modifiers?: readonly bigint[];
}

/** What to allocate: raw bytes, or an image laid out by format. */
export type BufferRequest =
  | { readonly kind: "raw"; readonly size: number }
  | {
    readonly kind: "image";
    readonly format: string;
    readonly width: number;
    readonly height: number;
    /** A specific modifier; otherwise the first one every accessor takes. */
    readonly modifier?: bigint;
  };

/** What a heap provides. */
export interface HeapInfo {
  /** Name under /dev/dma_heap. */
  readonly name: string;
  /** Buffers are physically contiguous. */
  readonly contiguous: boolean;
  /** Buffers can be mmap()ed by the CPU. */
  readonly cpuMappable: boolean;
  /** One line for reports. */
  readonly description: string;
}

/** A successful reconciliation. */
export interface Allocation {
  /** Discriminates an allocation from {@linkcode Conflicts}. */
  readonly ok: true;
  /** Heap to allocate from (name under /dev/dma_heap). */
  readonly heap: string;
  /** Start alignment every accessor gets, in bytes. */
  readonly alignment: number;
  /** Bytes the data needs. */
  readonly size: number;
  /** Bytes to ask the heap for: size rounded up to whole pages. */
  readonly allocSize: number;
  /** Physically contiguous (the heap guarantees it). */
  readonly contiguous: boolean;
  /** Merged CPU access (`none` means no process needs to map it). */
  readonly cpuAccess: Access;
  /** Merged device access. */
  readonly deviceAccess: Access;
  /** For images: the layout with the merged stride and height alignment. */
  readonly layout: FrameLayout | undefined;
  /** For images: the modifier chosen. */
  readonly modifier: bigint | undefined;
  /** Names of the accessors that agreed on it, in the order given. */
  readonly accessors: readonly string[];
  /** Why this heap and these values, one line each. */
  readonly reasons: readonly string[];
}

/** One attribute the accessors disagree on. */
export interface Conflict {
  /** What the accessors disagree on. */
  readonly attribute:
    | "heap"
    | "contiguity"
    | "alignment"
    | "cpuAccess"
    | "format"
    | "modifier"
    | "size";
  /** The accessors involved and what each asks for. */
  readonly accessors: readonly { readonly name: string; readonly value: string }[];
  /** One sentence naming who wants what. */
  readonly message: string;
}

/** A failed reconciliation. */
export interface Conflicts {
  /** Discriminates conflicts from an {@linkcode Allocation}. */
  readonly ok: false;
  /** Each attribute the accessors disagree on. */
  readonly conflicts: readonly Conflict[];
}
