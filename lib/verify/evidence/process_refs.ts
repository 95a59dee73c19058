/**
 * The workload's dma-buf fds and CPU mappings from the process probes' events
 * (`lib/trace/capture/process_probes.ts`) instead of its `/proc/PID/fd` and `/proc/PID/maps`
 * scans: each fd event (`fd_install()` of a dma-buf file) and each mmap entry, paired with
 * the next return of the same thread, is credited to the thread's process (the `record-tgid`
 * column). What it gives has the shape of the scans' `workload.fdRefs` and
 * `workload.mapRefs`: one fd ref per process and buffer (the first fd it got it under), one
 * map ref per process, buffer and start address.
 *
 * @module
 */
import type { FtraceEvent } from "../../trace/parse/ftrace_record.ts";
import { DMA_BUF_MAGIC, PROCESS_PROBE_EVENTS } from "../../trace/capture/process_probes.ts";
import type { DmaBufMapRef } from "../../trace/parse/dmabuf_maps.ts";

/** A dma-buf fd a process got, as the events say (they do not name the exporter). */
interface EventFdRef {
  pid: number;
  fd: number;
  inode: number;
}

/** Counts of what the fold read. */
export interface ProcessRefCounts {
  /** Events read. */
  events: number;
  /** mmap returns paired with their entry. */
  paired: number;
  /** mmap returns with no entry before them on their thread, and entries with no return. */
  unpaired: number;
  /** mmaps the exporter refused. */
  failed: number;
  /** fd events of a file that is no dma-buf (the instance's filter was not set). */
  notDmabuf: number;
  /** Events without the thread's process (no `record-tgid` column). */
  noProcess: number;
  /** Entries whose `ino` (or mapping) was not a number. */
  damaged: number;
}

/**
 * The counts of a fold that has read nothing.
 *
 * @example
 * ```ts
 * import { noProcessRefCounts } from "./process_refs.ts";
 * console.log({ ...noProcessRefCounts(), events: 2 }.paired); // 0
 * ```
 */
export function noProcessRefCounts(): ProcessRefCounts {
  return { events: 0, paired: 0, unpaired: 0, failed: 0, notDmabuf: 0, noProcess: 0, damaged: 0 };
}

/** `vm_flags` bits as `/proc/PID/maps` prints them (the same on 5.15 and 6.12). */
const VM_READ = 0x1, VM_WRITE = 0x2, VM_EXEC = 0x4, VM_MAYSHARE = 0x80;

/**
 * The permissions column of `/proc/PID/maps` for a mapping's `vm_flags`.
 *
 * @example
 * ```ts
 * import { mapsPerms } from "./process_refs.ts";
 * console.log(mapsPerms(0xfb)); // "rw-s"
 * console.log(mapsPerms(0x1)); // "r--p"
 * ```
 */
export function mapsPerms(flags: number): string {
  return (flags & VM_READ ? "r" : "-") + (flags & VM_WRITE ? "w" : "-") +
    (flags & VM_EXEC ? "x" : "-") + (flags & VM_MAYSHARE ? "s" : "p");
}

/** A decimal inode of at most 15 digits (an exact number), else undefined. */
function inodeOf(raw: string | undefined): number | undefined {
  return raw !== undefined && /^\d{1,15}$/.test(raw) ? Number(raw) : undefined;
}

/** An address as `/proc/PID/maps` prints it: lower-case hex, at least 8 digits, no `0x`. */
function mapsAddress(raw: string): string | undefined {
  const m = /^0x([0-9a-f]{1,16})$/i.exec(raw);
  return m ? m[1]!.toLowerCase().replace(/^0+(?=.)/, "").padStart(8, "0") : undefined;
}

/**
 * Folds the process probes' events, in trace order.
 *
 * @example
 * ```ts
 * import { ProcessRefFold } from "./process_refs.ts";
 * import { parseFtraceLine } from "../../trace/parse/ftrace.ts";
 * const fold = new ProcessRefFold();
 * for (const l of [
 *   " deno-7 (7) [000] ..... 1.000000: axl_kp_fd: (fd_install+0x4/0xe0) fd=5 ino=12 magic=0x444d4142",
 * ]) {
 *   const e = parseFtraceLine(l, 1);
 *   if (e?.kind === "event") fold.add(e);
 * }
 * console.log(fold.refs([7], () => ({ exporter: "system" })).fdRefs);
 * // [ { pid: 7, fd: 5, inode: 12, exporter: "system" } ]
 * ```
 */
export class ProcessRefFold {
  readonly counts: ProcessRefCounts = noProcessRefCounts();
  #pending = new Map<number, FtraceEvent>();
  #fds = new Map<string, EventFdRef>();
  #maps = new Map<string, { pid: number } & DmaBufMapRef>();

  /** Whether `name` is one of the process probes' events. */
  static isEvent(name: string): boolean {
    return (Object.values(PROCESS_PROBE_EVENTS) as string[]).includes(name);
  }

  /** Folds one event; false when it is not a process probe's. */
  add(e: FtraceEvent): boolean {
    if (!ProcessRefFold.isEvent(e.name)) return false;
    this.counts.events++;
    const tid = e.pid ?? NaN;
    if (e.name === PROCESS_PROBE_EVENTS.fd) {
      this.#fd(e);
    } else if (e.name === PROCESS_PROBE_EVENTS.mmap) {
      if (this.#pending.has(tid)) this.counts.unpaired++;
      this.#pending.set(tid, e);
    } else {
      const entry = this.#pending.get(tid);
      if (!entry) {
        this.counts.unpaired++;
        return true;
      }
      this.#pending.delete(tid);
      this.counts.paired++;
      this.#mmap(entry, e);
    }
    return true;
  }

  #fd(e: FtraceEvent): void {
    const f = e.fields;
    if (Number(f.magic) !== DMA_BUF_MAGIC) {
      this.counts.notDmabuf++;
      return;
    }
    const ino = inodeOf(f.ino);
    const fd = Number(f.fd);
    if (ino === undefined || !Number.isInteger(fd) || fd < 0) {
      this.counts.damaged++;
      return;
    }
    if (e.tgid === undefined) {
      this.counts.noProcess++;
      return;
    }
    const key = `${e.tgid}:${ino}`;
    if (!this.#fds.has(key)) this.#fds.set(key, { pid: e.tgid, fd, inode: ino });
  }

  #mmap(entry: FtraceEvent, r: FtraceEvent): void {
    const f = entry.fields;
    if (Number(r.fields.ret) !== 0) {
      this.counts.failed++;
      return;
    }
    const ino = inodeOf(f.ino);
    const start = mapsAddress(f.start ?? ""), end = mapsAddress(f.end ?? "");
    const flags = Number(f.flags);
    if (ino === undefined || !start || !end || !Number.isInteger(flags)) {
      this.counts.damaged++;
      return;
    }
    const pid = entry.tgid ?? r.tgid;
    if (pid === undefined) {
      this.counts.noProcess++;
      return;
    }
    const key = `${pid}:${ino}:${start}`;
    if (!this.#maps.has(key)) {
      this.#maps.set(key, {
        pid,
        start,
        end,
        bytes: parseInt(end, 16) - parseInt(start, 16),
        perms: mapsPerms(flags),
        inode: ino,
        name: "",
      });
    }
  }

  /**
   * The fd refs and map refs of the processes `pids`, shaped as the scans'. The events do
   * not name the exporter or the buffer's name: `known` does (bufinfo, the attach events,
   * the scans' fdinfo); an exporter nothing named is empty.
   */
  refs(
    pids: readonly number[],
    known: (inode: number) => { exporter?: string; name?: string } | undefined = () => undefined,
  ): {
    fdRefs: Array<{ pid: number; fd: number; inode: number; exporter: string }>;
    mapRefs: Array<{ pid: number } & DmaBufMapRef>;
  } {
    const want = new Set(pids);
    const fdRefs = [];
    for (const r of this.#fds.values()) {
      if (!want.has(r.pid)) continue;
      const exporter = known(r.inode)?.exporter ?? "";
      fdRefs.push({ pid: r.pid, fd: r.fd, inode: r.inode, exporter });
    }
    const mapRefs = [];
    for (const m of this.#maps.values()) {
      if (!want.has(m.pid)) continue;
      mapRefs.push({ ...m, name: known(m.inode)?.name ?? "" });
    }
    return { fdRefs, mapRefs };
  }

  /** Entries still waiting for their return (a call the trace stopped inside). */
  get open(): number {
    return this.#pending.size;
  }
}
