/**
 * Who holds a dma-buf: fd references (`/proc/<pid>/fd` links to `/dmabuf:<name>`, with
 * fdinfo giving inode and exporter) and CPU mappings ("map refs": `/dmabuf:` lines of
 * `/proc/<pid>/maps`). There is no `mmap_count` anywhere in the kernel; this is how a CPU
 * mapping of a frame is found.
 *
 * @module
 */
import { type DmaBufFdInfo, dmaBufFdInfo, parseFdinfo } from "../../core/fdinfo.ts";
import { ParseError } from "../parse/parse_error.ts";

/** A CPU mapping of a dma-buf. */
export interface DmaBufMapRef {
  /** Start and end virtual address (hex as printed). */
  start: string;
  end: string;
  /** Length in bytes. */
  bytes: number;
  /** Permissions, e.g. `rw-s`. */
  perms: string;
  /** The dma-buf's inode (the maps inode column). */
  inode: number;
  /** The buffer name after `/dmabuf:` (may be empty). */
  name: string;
}

/**
 * The dma-buf mappings in the text of a `/proc/<pid>/maps` file.
 *
 * @example
 * ```ts
 * import { parseDmaBufMaps } from "./dmabuf_refs.ts";
 * const refs = parseDmaBufMaps(
 *   "7f7c75305000-7f7c75405000 rw-s 00000000 00:0b 13                         /dmabuf:frame-3\n",
 * );
 * if (refs[0]?.inode !== 13 || refs[0].bytes !== 0x100000) throw new Error();
 * ```
 */
export function parseDmaBufMaps(text: string, source = "maps"): DmaBufMapRef[] {
  if (typeof text !== "string") throw new TypeError("parseDmaBufMaps(): text must be a string");
  const out: DmaBufMapRef[] = [];
  text.split("\n").forEach((l, i) => {
    if (l.trim() === "") return;
    const m = /^([0-9a-f]+)-([0-9a-f]+)\s+(\S{4})\s+[0-9a-f]+\s+[0-9a-f]+:[0-9a-f]+\s+(\d+)\s*(.*)$/
      .exec(l);
    if (!m) throw new ParseError("not a maps line", { source, line: i + 1, text: l });
    const path = m[5]!;
    if (!path.startsWith("/dmabuf:")) return;
    out.push({
      start: m[1]!,
      end: m[2]!,
      bytes: parseInt(m[2]!, 16) - parseInt(m[1]!, 16),
      perms: m[3]!,
      inode: Number(m[4]),
      name: path.slice("/dmabuf:".length).replace(/ \(deleted\)$/, ""),
    });
  });
  return out;
}

/** A dma-buf fd a process holds. */
export interface DmaBufFdRef extends DmaBufFdInfo {
  fd: number;
}

/** What one process holds. */
export interface ProcessDmaBufRefs {
  pid: number;
  fds: DmaBufFdRef[];
  maps: DmaBufMapRef[];
  /** Problems reading single entries (fds closing under us are normal, not listed). */
  errors: string[];
}

/**
 * Reads the dma-buf fd refs and map refs of a live process. Fds that close while being read
 * are skipped silently; a process that is gone yields empty lists and an error.
 *
 * @example
 * ```ts ignore
 * import { scanProcess } from "./dmabuf_refs.ts";
 * const refs = await scanProcess(Deno.pid);
 * console.log(refs.fds.length, refs.maps.length);
 * ```
 */
export async function scanProcess(pid: number, procRoot = "/proc"): Promise<ProcessDmaBufRefs> {
  if (!Number.isInteger(pid) || pid <= 0) {
    throw new RangeError(`scanProcess(): pid must be a positive integer, got ${pid}`);
  }
  const out: ProcessDmaBufRefs = { pid, fds: [], maps: [], errors: [] };
  try {
    for await (const e of Deno.readDir(`${procRoot}/${pid}/fd`)) {
      const fd = Number(e.name);
      try {
        const target = await Deno.readLink(`${procRoot}/${pid}/fd/${e.name}`);
        if (!target.startsWith("/dmabuf:")) continue;
        const info = dmaBufFdInfo(
          parseFdinfo(await Deno.readTextFile(`${procRoot}/${pid}/fdinfo/${e.name}`)),
        );
        if (info) out.fds.push({ fd, ...info });
      } catch (err) {
        if (!(err instanceof Deno.errors.NotFound)) {
          out.errors.push(`fd ${fd}: ${(err as Error).message}`);
        }
      }
    }
    out.maps = parseDmaBufMaps(
      await Deno.readTextFile(`${procRoot}/${pid}/maps`),
      `${procRoot}/${pid}/maps`,
    );
  } catch (err) {
    out.errors.push(`pid ${pid}: ${(err as Error).message}`);
  }
  return out;
}
