/**
 * nvmap's dma-buf events (`events/nvmap/`: a Jetson's nvmap, or the rig's nvmap-sim) folded per
 * device and per buffer: attaches, maps, unmaps and detaches each device made, and the CPU
 * touches (`begin_cpu_access`, `mmap`, `vmap`) each task made.
 *
 * nvmap names a buffer by its `struct dma_buf` pointer (`dmabuf=%p`), never by inode; with
 * tracefs's `hash-ptr` option cleared (the capture clears it for its buffer) the pointer is the
 * raw address, the value the dma-buf kprobes record as `buf=` beside `ino=`: those pairs join a
 * pointer to its inode ({@linkcode NvmapFacts.notePointer}). A hashed pointer (the option set)
 * joins nothing and is reported as such.
 *
 * nvmap maps a buffer for a device once and keeps the mapping until the buffer's release (its
 * "stash"), so frames are counted on attaches, maps and transfers, never on IOMMU maps: the
 * events here are the exporter's map calls, not the IOMMU's.
 *
 * @module
 */

/** nvmap's dma-buf event names, by what they record. */
export const NVMAP_EVENTS = {
  attach: "nvmap_dmabuf_attach",
  detach: "nvmap_dmabuf_detach",
  map: "nvmap_dmabuf_map_dma_buf",
  unmap: "nvmap_dmabuf_unmap_dma_buf",
  mmap: "nvmap_dmabuf_mmap",
  vmap: "nvmap_dmabuf_vmap",
  vunmap: "nvmap_dmabuf_vunmap",
  begin: "nvmap_dmabuf_begin_cpu_access",
  end: "nvmap_dmabuf_end_cpu_access",
  make: "nvmap_make_dmabuf",
  release: "nvmap_dmabuf_release",
} as const;

/** What an nvmap event records. */
export type NvmapEventKind = keyof typeof NVMAP_EVENTS;

/** The CPU accesses a chain names as touches. */
export type NvmapCpuKind = "begin_cpu_access" | "mmap" | "vmap";

const KIND_OF = new Map<string, NvmapEventKind>(
  Object.entries(NVMAP_EVENTS).map(([k, v]) => [v, k as NvmapEventKind]),
);

const CPU_KIND: Partial<Record<NvmapEventKind, NvmapCpuKind>> = {
  begin: "begin_cpu_access",
  mmap: "mmap",
  vmap: "vmap",
};

/** The fields of one event, as the trace fold reads them. */
export interface NvmapFields {
  /** The raw value of field `key`, or undefined when the event has none. */
  field(key: string): string | undefined;
}

/** What one device did with nvmap buffers. */
export interface NvmapDeviceUse {
  /** Device name (`dev_name()`, as bufinfo prints it). */
  device: string;
  /** `nvmap_dmabuf_attach` events. */
  attaches: number;
  /** `nvmap_dmabuf_detach` events. */
  detaches: number;
  /** `nvmap_dmabuf_map_dma_buf` events (the exporter's map calls, not IOMMU maps). */
  maps: number;
  /** `nvmap_dmabuf_unmap_dma_buf` events. */
  unmaps: number;
  /** Buffers (normalised pointers) it attached or mapped. */
  buffers: Set<string>;
  /** Its attaches, maps, unmaps and detaches of each buffer, by normalised pointer. */
  byBuffer: Map<string, NvmapBufferUse>;
}

/** What one device did with one nvmap buffer. */
export interface NvmapBufferUse {
  /** `nvmap_dmabuf_attach` events. */
  attaches: number;
  /** `nvmap_dmabuf_detach` events. */
  detaches: number;
  /** `nvmap_dmabuf_map_dma_buf` events. */
  maps: number;
  /** `nvmap_dmabuf_unmap_dma_buf` events. */
  unmaps: number;
}

/** CPU accesses of one buffer by one task. */
export interface NvmapCpuTouch {
  /** What the task did. */
  kind: NvmapCpuKind;
  /** The task (thread id), when the trace printed it. */
  pid?: number;
  /** The buffer (normalised pointer). */
  buffer: string;
  /** Its inode, when a probe event joined the pointer. */
  inode?: number;
  /** How many times. */
  count: number;
}

/**
 * A pointer as one key: lowercase hex without `0x` and leading zeros (`%p` prints
 * `ffff…`, a kprobe's `x64` prints `0xffff…`; a trailing comma is dropped).
 *
 * @example
 * ```ts
 * import { normalizePointer } from "./nvmap_events.ts";
 * console.log(normalizePointer("0xFFFF0000C0DE0000")); // "ffff0000c0de0000"
 * console.log(normalizePointer("ffff0000c0de0000")); // "ffff0000c0de0000"
 * ```
 */
export function normalizePointer(p: string): string {
  // tracefs splits `dmabuf=%p, device=%s` on blanks: the comma stays with the pointer.
  const hex = p.trim().replace(/,$/, "").toLowerCase().replace(/^0x/, "").replace(/^0+(?=.)/, "");
  return /^[0-9a-f]+$/.test(hex) ? hex : "";
}

/**
 * Records in `pairs` that the buffer at `pointer` has `inode` (as a probe event's `buf=` and
 * `ino=`); pairs that are not a pointer and a positive inode are left out.
 *
 * @example
 * ```ts
 * import { notePointerInode } from "./nvmap_events.ts";
 * const pairs = new Map<string, number>();
 * notePointerInode(pairs, "0xffff000012340000", 42);
 * console.log(pairs.get("ffff000012340000")); // 42
 * ```
 */
export function notePointerInode(pairs: Map<string, number>, pointer: string, inode: number): void {
  const p = normalizePointer(pointer);
  if (!p || !Number.isInteger(inode) || inode <= 0) return;
  const before = pairs.get(p);
  // A `struct dma_buf` freed and another allocated at its address: the pointer names two
  // buffers in one run, so it joins neither ({@linkcode REUSED_POINTER}).
  pairs.set(p, before === undefined || before === inode ? inode : REUSED_POINTER);
}

/**
 * The inode a pointer joins when probe events recorded it with two different inodes (a buffer
 * freed and another allocated at the same address during the run): none.
 */
export const REUSED_POINTER = -1;

/**
 * Whether a normalised pointer is a hashed `%p` (tracefs `hash-ptr` set): a 32-bit value,
 * where a kernel address on a 64-bit machine has its top bits set.
 */
export function isHashedPointer(p: string): boolean {
  return p.length > 0 && p.length <= 8;
}

/**
 * The nvmap events of a trace, folded.
 *
 * @example
 * ```ts
 * import { NvmapFacts } from "./nvmap_events.ts";
 * const f = (o: Record<string, string>) => ({ field: (k: string) => o[k] });
 * const facts = new NvmapFacts();
 * facts.notePointer("0xffff000012340000", 42);
 * facts.add("nvmap_dmabuf_attach", 7, f({ dmabuf: "ffff000012340000", device: "0000:00:02.0" }));
 * facts.add("nvmap_dmabuf_map_dma_buf", 7, f({ dmabuf: "ffff000012340000", device: "0000:00:02.0" }));
 * facts.add("nvmap_dmabuf_mmap", 9, f({ dmabuf: "ffff000012340000" }));
 * console.log(facts.devices.get("0000:00:02.0")?.maps); // 1
 * console.log([...facts.inodesOf("0000:00:02.0")][0]); // 42
 * console.log(facts.cpuTouches()[0]?.inode); // 42
 * ```
 */
export class NvmapFacts {
  /** nvmap events folded. */
  events = 0;
  /** Events per kind. */
  readonly counts: Partial<Record<NvmapEventKind, number>> = {};
  /** Buffers exported (`nvmap_make_dmabuf`) during the trace. */
  readonly made = new Set<string>();
  /** Buffers released (`nvmap_dmabuf_release`) during the trace. */
  readonly released = new Set<string>();
  /** What each device did, by name. */
  readonly devices = new Map<string, NvmapDeviceUse>();
  /** Whether any pointer looked hashed (tracefs `hash-ptr` was set). */
  hashed = false;
  readonly #touches = new Map<string, NvmapCpuTouch>();
  readonly #inodeOf: Map<string, number>;

  /**
   * `pointerInodes`: normalised pointer → inode pairs, shared with whoever folds the probe
   * events (they may come before or after the nvmap events); default a map of its own.
   */
  constructor(pointerInodes: Map<string, number> = new Map()) {
    this.#inodeOf = pointerInodes;
  }

  /** Whether `name` is one of nvmap's dma-buf events. */
  static isNvmapEvent(name: string): boolean {
    return KIND_OF.has(name);
  }

  /** A pointer and its inode, as a dma-buf probe event recorded them (`buf=`, `ino=`). */
  notePointer(pointer: string, inode: number): void {
    notePointerInode(this.#inodeOf, pointer, inode);
  }

  /**
   * The inode of a buffer pointer, when a probe event recorded the pair (none when the pointer
   * named two buffers in the run).
   */
  inodeOf(pointer: string): number | undefined {
    return this.#joined(normalizePointer(pointer));
  }

  /** Pointers the probe events recorded with two different inodes (freed and reused). */
  reusedPointers(): string[] {
    return [...this.#inodeOf].filter(([, ino]) => ino === REUSED_POINTER).map(([p]) => p);
  }

  /** Folds one event of task `pid`; false for events that are not nvmap's. */
  add(name: string, pid: number | undefined, f: NvmapFields): boolean {
    const kind = KIND_OF.get(name);
    if (!kind) return false;
    this.events++;
    this.counts[kind] = (this.counts[kind] ?? 0) + 1;
    const buffer = normalizePointer(f.field("dmabuf") ?? "");
    if (isHashedPointer(buffer)) this.hashed = true;
    const cpu = CPU_KIND[kind];
    if (cpu) return this.#touch(cpu, pid, buffer), true;
    if (kind === "make") this.made.add(buffer);
    else if (kind === "release") this.released.add(buffer);
    else if (kind !== "end" && kind !== "vunmap") this.#deviceEvent(kind, buffer, f);
    return true;
  }

  /** The inodes a device attached or mapped, where probe events joined the pointers. */
  inodesOf(device: string): Set<number> {
    const out = new Set<number>();
    for (const b of this.devices.get(device)?.buffers ?? []) {
      const ino = this.#joined(b);
      if (ino !== undefined) out.add(ino);
    }
    return out;
  }

  /** Every CPU touch, with the buffer's inode where known. */
  cpuTouches(): NvmapCpuTouch[] {
    return [...this.#touches.values()].map((t) => {
      const inode = this.#joined(t.buffer);
      return inode === undefined ? { ...t } : { ...t, inode };
    });
  }

  /** How many distinct buffers the events named, and how many of them joined an inode. */
  joined(): { buffers: number; withInode: number } {
    const all = this.#named();
    let withInode = 0;
    for (const b of all) if (this.#joined(b) !== undefined) withInode++;
    return { buffers: all.size, withInode };
  }

  #named(): Set<string> {
    const all = new Set<string>([...this.made, ...this.released]);
    for (const u of this.devices.values()) for (const b of u.buffers) all.add(b);
    for (const t of this.#touches.values()) all.add(t.buffer);
    all.delete("");
    return all;
  }

  #joined(pointer: string): number | undefined {
    const ino = this.#inodeOf.get(pointer);
    return ino === REUSED_POINTER ? undefined : ino;
  }

  #touch(kind: NvmapCpuKind, pid: number | undefined, buffer: string): void {
    const key = `${kind} ${pid ?? "?"} ${buffer}`;
    const t = this.#touches.get(key);
    if (t) t.count++;
    else {
      this.#touches.set(key, { kind, ...(pid !== undefined ? { pid } : {}), buffer, count: 1 });
    }
  }

  #deviceEvent(kind: NvmapEventKind, buffer: string, f: NvmapFields): void {
    const device = f.field("device");
    if (!device) return;
    let u = this.devices.get(device);
    if (!u) {
      u = {
        device,
        attaches: 0,
        detaches: 0,
        maps: 0,
        unmaps: 0,
        buffers: new Set(),
        byBuffer: new Map(),
      };
      this.devices.set(device, u);
    }
    let b = u.byBuffer.get(buffer);
    if (!b) u.byBuffer.set(buffer, b = { attaches: 0, detaches: 0, maps: 0, unmaps: 0 });
    if (buffer) u.buffers.add(buffer);
    if (kind === "attach") u.attaches++, b.attaches++;
    else if (kind === "detach") u.detaches++, b.detaches++;
    else if (kind === "map") u.maps++, b.maps++;
    else if (kind === "unmap") u.unmaps++, b.unmaps++;
  }
}
