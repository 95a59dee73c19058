/**
 * Which devices had each dma-buf attached at once, from the kprobe events on
 * `dma_buf_dynamic_attach` and `dma_buf_detach` (`kprobe_events.ts`) instead of from bufinfo
 * read every 20 ms: every attachment is seen, however short, and debugfs is not read against
 * the pipeline. The events say which device attached which inode and, where the kernel lets
 * the probe read `dma_buf->exp_name`, the buffer's exporter: what I1 takes from bufinfo.
 *
 * The trace starts before the workload, but a buffer may have been attached before it (the
 * builtin workload queues its frames to vivid while it sets up): the attachments bufinfo
 * listed in its first sample are the fold's starting state, and a detach the events never saw
 * attach removes one of them. The folded view is merged into the bufinfo summary by
 * {@linkcode withAttachEvents}: nothing bufinfo saw is lost, the events only add.
 *
 * @module
 */
import type { BufinfoSummary, InodeObservation } from "../../trace/parse/bufinfo_summary.ts";

/** What the events said of one inode. */
export interface AttachObservation {
  /** The buffer's inode. */
  inode: number;
  /** Exporter name (`dma_buf->exp_name`) from the first attach event that carried it. */
  exporter: string;
  /** Most distinct devices attached at once. */
  maxDevices: number;
  /** Those devices, sorted. */
  devicesAtMax: string[];
  /** Every device seen attached (the first sample's included). */
  devicesSeen: string[];
  /** Attach events with two or more distinct devices attached after them. */
  multiAttachEvents: number;
}

/**
 * Folds attach and detach events, in trace order, into per-inode observations. Memory grows
 * with the distinct inodes and devices, not with the events.
 *
 * @example
 * ```ts
 * import { AttachFold } from "./attach_events.ts";
 * const fold = new AttachFold(new Map([[9, ["vivid.0"]]]));
 * fold.attach(9, "0000:00:02.0", "system");
 * fold.detach(9, "0000:00:02.0");
 * console.log(fold.observations().get(9)?.maxDevices); // 2
 * ```
 */
export class AttachFold {
  /** Attach events folded. */
  attaches = 0;
  /** Attach events that carried the exporter's name. */
  withExporter = 0;
  /** Detach events folded. */
  detaches = 0;
  /**
   * Detaches of an attachment neither the events nor bufinfo's first sample showed (attached
   * before both): counted here, changing nothing.
   */
  unmatchedDetaches = 0;
  /** Events whose inode was not one (negative, fractional, beyond 2^53): left out. */
  refused = 0;
  /** Attachments per inode and device right now. */
  readonly #live = new Map<number, Map<string, number>>();
  readonly #obs = new Map<number, AttachObservation>();

  /**
   * @param atStart The devices attached to each inode in bufinfo's first sample (one entry
   * per attachment, as bufinfo lists them); empty when the events are the only source.
   */
  constructor(atStart: ReadonlyMap<number, readonly string[]> = new Map()) {
    for (const [inode, devices] of atStart) {
      const live = this.#liveOf(inode);
      for (const d of devices) live.set(d, (live.get(d) ?? 0) + 1);
      this.#update(inode, live, "");
    }
  }

  /** Folds an attach of `inode` by `device`; `exporter` is "" when the event had none. */
  attach(inode: number, device: string, exporter: string): void {
    this.attaches++;
    if (!isInode(inode)) {
      this.refused++;
      return;
    }
    if (exporter) this.withExporter++;
    const live = this.#liveOf(inode);
    live.set(device, (live.get(device) ?? 0) + 1);
    const o = this.#update(inode, live, exporter);
    if (live.size >= 2) o.multiAttachEvents++;
  }

  /** Folds a detach of `inode` by `device`. */
  detach(inode: number, device: string): void {
    this.detaches++;
    if (!isInode(inode)) {
      this.refused++;
      return;
    }
    const live = this.#live.get(inode);
    const n = live?.get(device);
    if (live === undefined || n === undefined) {
      this.unmatchedDetaches++; // attached before the trace and bufinfo
      return;
    }
    if (n <= 1) live.delete(device);
    else live.set(device, n - 1);
  }

  /** The observations so far, by inode. */
  observations(): ReadonlyMap<number, AttachObservation> {
    return this.#obs;
  }

  #liveOf(inode: number): Map<string, number> {
    let live = this.#live.get(inode);
    if (!live) this.#live.set(inode, live = new Map());
    return live;
  }

  #update(inode: number, live: Map<string, number>, exporter: string): AttachObservation {
    let o = this.#obs.get(inode);
    if (!o) {
      o = {
        inode,
        exporter,
        maxDevices: 0,
        devicesAtMax: [],
        devicesSeen: [],
        multiAttachEvents: 0,
      };
      this.#obs.set(inode, o);
    }
    if (!o.exporter && exporter) o.exporter = exporter;
    for (const d of live.keys()) if (!o.devicesSeen.includes(d)) o.devicesSeen.push(d);
    if (live.size > o.maxDevices) {
      o.maxDevices = live.size;
      o.devicesAtMax = [...live.keys()].sort();
    }
    return o;
  }
}

/** Whether `n` can be an inode number: a whole number from 0 to 2^53 − 1. */
function isInode(n: number): boolean {
  return Number.isSafeInteger(n) && n >= 0;
}

/**
 * The bufinfo summary with the attach events' observations merged in: an inode's most
 * devices at once is the larger of the two views (bufinfo's devices at that point kept on a
 * tie), the devices seen are both views' together, and an inode only the events saw is added
 * with their exporter (its name and size unknown: `""` and 0, `samples` 0). A summary without
 * samples of bufinfo (`unavailable`) is returned as is: the events alone do not make I1.
 *
 * @example
 * ```ts
 * import { AttachFold, withAttachEvents } from "./attach_events.ts";
 * import { emptySummary } from "../../trace/parse/bufinfo_summary.ts";
 * const fold = new AttachFold();
 * fold.attach(7, "vivid.0", "system");
 * fold.attach(7, "0000:00:02.0", "system");
 * const merged = withAttachEvents(emptySummary(), fold);
 * console.log("inodes" in merged && merged.inodes.get(7)?.devicesAtMax); // ["0000:00:02.0", "vivid.0"]
 * ```
 */
export function withAttachEvents(
  bufinfo: BufinfoSummary | { unavailable: string },
  fold: AttachFold,
): BufinfoSummary | { unavailable: string } {
  if ("unavailable" in bufinfo) return bufinfo;
  const inodes = new Map<number, InodeObservation>();
  for (const [k, o] of bufinfo.inodes) inodes.set(k, { ...o });
  for (const [inode, e] of fold.observations()) {
    const o = inodes.get(inode);
    if (!o) {
      if (e.maxDevices === 0) continue;
      inodes.set(inode, {
        inode,
        exporter: e.exporter,
        name: "",
        size: 0,
        maxDevices: e.maxDevices,
        devicesAtMax: e.devicesAtMax,
        devicesSeen: [...e.devicesSeen],
        samples: 0,
        multiAttachSamples: 0,
        firstSeenMs: NaN,
        lastSeenMs: NaN,
      });
      continue;
    }
    if (!o.exporter && e.exporter) o.exporter = e.exporter;
    if (e.maxDevices > o.maxDevices) {
      o.maxDevices = e.maxDevices;
      o.devicesAtMax = e.devicesAtMax;
    }
    o.devicesSeen = [...o.devicesSeen, ...e.devicesSeen.filter((d) => !o.devicesSeen.includes(d))];
  }
  return { ...bufinfo, inodes };
}
