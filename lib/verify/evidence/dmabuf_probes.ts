/**
 * The dma-buf kprobe events of a trace (`lib/trace/kprobe_events.ts`) folded per importing
 * device: attaches, maps, unmaps and detaches, the buffers and inodes each device mapped,
 * and the attachments still mapped at the end; and per inode, which devices had it attached
 * at once (`attach_events.ts`). Memory grows with the distinct buffers and attachments of the
 * run, not with its events.
 *
 * @module
 */
import { DMABUF_PROBE_EVENTS } from "../../trace/capture/kprobe_events.ts";
import { AttachFold } from "./attach_events.ts";

/** The fields of one event, as the trace fold reads them. */
export interface ProbeFields {
  /** The raw value of field `key`, or undefined when the event has none. */
  field(key: string): string | undefined;
  /** Field `key` as a number; NaN when absent or not a number. */
  int(key: string): number;
}

/** What one device did with dma-bufs during the run. */
export interface DeviceUse {
  /** Name as bufinfo prints it (`dev_name()`). */
  device: string;
  /** Attachments it made (`axl_kp_attach` events). */
  attaches: number;
  /** Attachments it dropped (`axl_kp_detach` events). */
  detaches: number;
  /** Buffers it mapped for DMA (`axl_kp_map` events). */
  maps: number;
  /** Buffers it unmapped (`axl_kp_unmap` events). */
  unmaps: number;
  /** Maps per buffer inode (only when the events carry it). */
  mapsByInode: Map<number, number>;
  /** Unmaps per buffer inode. */
  unmapsByInode: Map<number, number>;
  /** Buffer pointers it mapped (identity while the buffer lives). */
  buffers: Set<string>;
  /** Maps minus unmaps per attachment; attachments at 0 are dropped. */
  openMaps: Map<string, number>;
}

const KIND_OF = new Map<string, "attach" | "map" | "unmap" | "detach">(
  Object.entries(DMABUF_PROBE_EVENTS).map(([k, v]) => [v, k as "attach"]),
);

/**
 * Per-device dma-buf use, folded from the probe events.
 *
 * @example
 * ```ts
 * import { DmabufProbeFacts } from "./dmabuf_probes.ts";
 * const facts = new DmabufProbeFacts();
 * const f = (o: Record<string, string>) => ({
 *   field: (k: string) => o[k],
 *   int: (k: string) => o[k] === undefined ? NaN : Number(o[k]),
 * });
 * facts.add("axl_kp_map", f({ att: "0x1", buf: "0x2", dev: "0000:00:02.0", dir: "1", ino: "7" }));
 * facts.add("axl_kp_unmap", f({ att: "0x1", buf: "0x2", dev: "0000:00:02.0", dir: "1", ino: "7" }));
 * const use = facts.devices.get("0000:00:02.0")!;
 * console.log(use.maps); // 1
 * console.log(use.unmaps); // 1
 * console.log(use.openMaps.size); // 0
 * ```
 */
export class DmabufProbeFacts {
  /** Probe events folded. */
  events = 0;
  /** Events without a device name (the kernel could not read it). */
  unnamed = 0;
  /** Whether any event carried the buffer's inode. */
  inodes = false;
  /**
   * Events whose `ino` was not a decimal inode (the probes fetch `i_ino` as `u64`, printed in
   * decimal: a sign, hex or more digits than an inode holds is damage): their inode is left out.
   */
  badInodes = 0;
  /** What each device did, by its bufinfo name. */
  readonly devices = new Map<string, DeviceUse>();
  /** The devices attached to each inode at once (events that carry the inode). */
  readonly attachments: AttachFold;

  /**
   * @param attachedAtStart The devices bufinfo listed attached to each inode in its first
   * sample: the attachments made before the trace (see `attach_events.ts`).
   */
  constructor(attachedAtStart?: ReadonlyMap<number, readonly string[]>) {
    this.attachments = new AttachFold(attachedAtStart);
  }

  /** Whether `name` is one of the probe events. */
  static isProbeEvent(name: string): boolean {
    return KIND_OF.has(name);
  }

  /** Folds one event; returns false for events that are not probe events. */
  add(name: string, f: ProbeFields): boolean {
    const kind = KIND_OF.get(name);
    if (!kind) return false;
    this.events++;
    const dev = f.field("dev");
    if (!dev || dev === "(fault)") {
      this.unnamed++;
      return true;
    }
    const use = this.#use(dev);
    const ino = probeInode(f);
    if (ino === undefined) this.badInodes++;
    const known = ino !== undefined && !Number.isNaN(ino);
    if (known) this.inodes = true;
    const att = f.field("att") ?? "";
    switch (kind) {
      case "attach": {
        use.attaches++;
        const exp = f.field("exp");
        if (known) this.attachments.attach(ino, dev, exp && exp !== "(fault)" ? exp : "");
        break;
      }
      case "detach":
        use.detaches++;
        if (known) this.attachments.detach(ino, dev);
        break;
      case "map":
        use.maps++;
        use.buffers.add(f.field("buf") ?? "");
        if (known) bump(use.mapsByInode, ino, 1);
        bump(use.openMaps, att, 1);
        break;
      case "unmap":
        use.unmaps++;
        if (known) bump(use.unmapsByInode, ino, 1);
        bump(use.openMaps, att, -1);
        break;
    }
    return true;
  }

  #use(device: string): DeviceUse {
    let u = this.devices.get(device);
    if (!u) {
      u = {
        device,
        attaches: 0,
        detaches: 0,
        maps: 0,
        unmaps: 0,
        mapsByInode: new Map(),
        unmapsByInode: new Map(),
        buffers: new Set(),
        openMaps: new Map(),
      };
      this.devices.set(device, u);
    }
    return u;
  }
}

/**
 * The `ino` field of a probe event: NaN when the event has none, undefined when it is not a
 * decimal inode (at most 15 digits, so that it stays an exact number).
 *
 * @example
 * ```ts
 * import { probeInode } from "./dmabuf_probes.ts";
 * const f = (ino?: string) => ({ field: (_: string) => ino, int: (_: string) => Number(ino) });
 * console.log(probeInode(f("349"))); // 349
 * console.log(probeInode(f("0x10"))); // undefined
 * console.log(probeInode(f())); // NaN
 * ```
 */
export function probeInode(f: ProbeFields): number | undefined {
  const raw = f.field("ino");
  if (raw === undefined) return NaN;
  return /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
}

function bump<K>(m: Map<K, number>, k: K, by: number): void {
  const v = (m.get(k) ?? 0) + by;
  if (v === 0) m.delete(k);
  else m.set(k, v);
}
