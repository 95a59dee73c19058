/**
 * The dma-bufs of this process or of the whole system, the way Android's dmabuf_dump
 * shows them: per buffer its exporter, size and name, the devices attached to it
 * (debugfs bufinfo), and who holds it — fd refs (`/proc/<pid>/fd` + fdinfo) and map refs
 * (`/dmabuf:` lines of `/proc/<pid>/maps`).
 *
 * @module
 */
import { parseBufinfo } from "../trace/parse/bufinfo.ts";
import { BUFINFO_PATH } from "../trace/capture/bufinfo_sampler.ts";
import { scanProcess } from "../trace/capture/dmabuf_refs.ts";
import { formatBytes } from "./render.ts";

/** A process holding a dma-buf by fd. */
export interface FdRef {
  /** Process id. */
  pid: number;
  /** Command name (`/proc/<pid>/comm`). */
  comm: string;
  /** The fd number. */
  fd: number;
}

/** A process mapping a dma-buf. */
export interface MapRef {
  /** Process id. */
  pid: number;
  /** Command name. */
  comm: string;
  /** Mappings of the buffer in that process. */
  count: number;
  /** Bytes mapped. */
  bytes: number;
}

/** One dma-buf. */
export interface DmaBufEntry {
  /** Inode (the key in traces and bufinfo). */
  inode: number;
  /** Size in bytes. */
  size: number;
  /** Exporter name. */
  exporter: string;
  /** Buffer name, `""` when unset. */
  name: string;
  /** Attached devices from bufinfo; undefined when bufinfo could not be read. */
  attached?: string[];
  /** File reference count from bufinfo. */
  fileRefs?: number;
  /** Processes holding an fd. */
  fdRefs: FdRef[];
  /** Processes mapping it. */
  mapRefs: MapRef[];
}

/** Result of {@linkcode listDmaBufs}. */
export interface DmaBufListing {
  /** Buffers by inode. */
  buffers: DmaBufEntry[];
  /** Processes scanned. */
  processes: number[];
  /** Why bufinfo was not used, or undefined when it was. */
  bufinfoProblem?: string;
  /** Problems reading single processes or entries. */
  errors: string[];
}

/** Options of {@linkcode listDmaBufs}. */
export interface ListOptions {
  /** Every process and every buffer in bufinfo (default: this process only). */
  all?: boolean;
  /** Scan only these processes. */
  pids?: number[];
  /** procfs root (tests use a captured tree). Default `/proc`. */
  procRoot?: string;
  /** bufinfo path. Default {@linkcode BUFINFO_PATH}. */
  bufinfoPath?: string;
  /** This process's pid (default `Deno.pid`). */
  self?: number;
}

async function comm(procRoot: string, pid: number): Promise<string> {
  try {
    return (await Deno.readTextFile(`${procRoot}/${pid}/comm`)).trim();
  } catch {
    return "?";
  }
}

async function allPids(procRoot: string): Promise<number[]> {
  const pids: number[] = [];
  for await (const e of Deno.readDir(procRoot)) {
    if (/^\d+$/.test(e.name)) pids.push(Number(e.name));
  }
  return pids.sort((a, b) => a - b);
}

/**
 * Collects the dma-buf listing. Reading bufinfo needs root and debugfs; without it the
 * listing still has fd and map refs, and says why attachments are missing.
 *
 * @example
 * ```ts ignore
 * import { listDmaBufs } from "./dmabuf_listing.ts";
 * const l = await listDmaBufs({ all: true });
 * for (const b of l.buffers) console.log(b.inode, b.attached?.length, b.fdRefs.length);
 * ```
 */
export async function listDmaBufs(options: ListOptions = {}): Promise<DmaBufListing> {
  const procRoot = options.procRoot ?? "/proc";
  const self = options.self ?? Deno.pid;
  const pids = options.pids ?? (options.all ? await allPids(procRoot) : [self]);
  const byInode = new Map<number, DmaBufEntry>();
  const entry = (
    inode: number,
    init: Pick<DmaBufEntry, "size" | "exporter" | "name">,
  ): DmaBufEntry => {
    let e = byInode.get(inode);
    if (!e) {
      e = { inode, ...init, fdRefs: [], mapRefs: [] };
      byInode.set(inode, e);
    }
    return e;
  };
  const listing: DmaBufListing = { buffers: [], processes: pids, errors: [] };

  let attached: Map<number, { devices: string[]; count: number }> | undefined;
  try {
    const snap = parseBufinfo(
      await Deno.readTextFile(options.bufinfoPath ?? BUFINFO_PATH),
      options.bufinfoPath ?? BUFINFO_PATH,
    );
    attached = new Map();
    for (const b of snap.buffers) {
      if (b.inode === undefined) continue;
      attached.set(b.inode, { devices: b.devices, count: b.count });
      if (options.all) entry(b.inode, { size: b.size, exporter: b.exporter, name: b.name });
    }
  } catch (err) {
    listing.bufinfoProblem = err instanceof Deno.errors.NotFound
      ? `${options.bufinfoPath ?? BUFINFO_PATH} not found (mount debugfs; CONFIG_DEBUG_FS)`
      : err instanceof Deno.errors.PermissionDenied
      ? `${options.bufinfoPath ?? BUFINFO_PATH}: permission denied (run as root)`
      : `${options.bufinfoPath ?? BUFINFO_PATH}: ${(err as Error).message}`;
  }

  for (const pid of pids) {
    const refs = await scanProcess(pid, procRoot);
    // A process that exited between listing and scanning is not a problem.
    listing.errors.push(...refs.errors.filter((e) => !/No such file|not found/i.test(e)));
    if (!refs.fds.length && !refs.maps.length) continue;
    const name = await comm(procRoot, pid);
    for (const f of refs.fds) {
      entry(f.inode, { size: f.size, exporter: f.exporter, name: f.name }).fdRefs.push({
        pid,
        comm: name,
        fd: f.fd,
      });
    }
    const maps = new Map<number, MapRef>();
    for (const m of refs.maps) {
      const r = maps.get(m.inode) ?? { pid, comm: name, count: 0, bytes: 0 };
      r.count++;
      r.bytes += m.bytes;
      maps.set(m.inode, r);
      entry(m.inode, { size: m.bytes, exporter: "?", name: m.name });
    }
    for (const [inode, r] of maps) byInode.get(inode)!.mapRefs.push(r);
  }

  for (const e of byInode.values()) {
    const a = attached?.get(e.inode);
    if (a) {
      e.attached = a.devices;
      e.fileRefs = a.count;
    } else if (attached) {
      e.attached = [];
    }
  }
  listing.buffers = [...byInode.values()].sort((a, b) => a.inode - b.inode);
  return listing;
}

function refsText(refs: { pid: number; comm: string }[], each: (r: never) => string): string {
  return refs.map((r) => `${r.comm}:${r.pid}${each(r as never)}`).join(" ") || "-";
}

/**
 * The listing's warnings (processes or fds that could not be read), at most five lines,
 * each `warning: …`; `axl ls` prints them on stderr.
 *
 * @example
 * ```ts
 * import { listingWarnings } from "./dmabuf_listing.ts";
 * const lines = listingWarnings({ buffers: [], processes: [1], errors: ["fd 3: denied"] });
 * console.log(lines); // ["warning: fd 3: denied"]
 * ```
 */
export function listingWarnings(l: DmaBufListing): string[] {
  return l.errors.slice(0, 5).map((e) => `warning: ${e}`);
}

/**
 * A table of the listing, one buffer per line, then the totals and (unless `warnings` is
 * false) the warnings of `listingWarnings()`.
 *
 * @example
 * ```ts
 * import { listingText } from "./dmabuf_listing.ts";
 * const text = listingText({ buffers: [{ inode: 9, size: 4096, exporter: "system",
 *   name: "f", attached: ["vgem"], fdRefs: [{ pid: 1, comm: "deno", fd: 5 }], mapRefs: [] }],
 *   processes: [1], errors: [] });
 * console.log(text.includes("deno:1/fd5")); // true
 * console.log(text.includes("vgem")); // true
 * ```
 */
export function listingText(l: DmaBufListing, warnings = true): string {
  const rows = l.buffers.map((b) => [
    String(b.inode),
    formatBytes(b.size),
    b.exporter,
    b.name || "-",
    b.attached === undefined ? "?" : b.attached.join(",") || "-",
    refsText(b.fdRefs, (r: FdRef) => `/fd${r.fd}`),
    refsText(b.mapRefs, (r: MapRef) => (r.count > 1 ? `×${r.count}` : "")),
  ]);
  const head = ["inode", "size", "exporter", "name", "attached", "fd refs", "map refs"];
  const widths = head.map((h, i) => Math.max(h.length, ...rows.map((r) => r[i]!.length)));
  const fmt = (r: string[]): string =>
    r.map((c, i) => (i === r.length - 1 ? c : c.padEnd(widths[i]!))).join("  ").trimEnd();
  const total = l.buffers.reduce((a, b) => a + b.size, 0);
  const lines = l.buffers.length ? [fmt(head), ...rows.map(fmt)] : ["no dma-bufs"];
  lines.push(
    `${l.buffers.length} dma-buf(s), ${
      formatBytes(total)
    }; ${l.processes.length} process(es) scanned` +
      (l.bufinfoProblem ? `; attachments unknown: ${l.bufinfoProblem}` : ""),
  );
  if (warnings) lines.push(...listingWarnings(l));
  return lines.join("\n");
}
