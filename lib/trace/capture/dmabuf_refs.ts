/**
 * Who holds a dma-buf: fd references (`/proc/<pid>/fd` links to `/dmabuf:<name>`, with
 * fdinfo giving inode and exporter) and CPU mappings ("map refs": `/dmabuf:` lines of
 * `/proc/<pid>/maps`). There is no `mmap_count` anywhere in the kernel; this is how a CPU
 * mapping of a frame is found. The maps text is parsed by `../parse/dmabuf_maps.ts`.
 *
 * @module
 */
import { type DmaBufFdInfo, dmaBufFdInfo, parseFdinfo } from "../../core/fdinfo.ts";
import { type DmaBufMapRef, parseDmaBufMaps } from "../parse/dmabuf_maps.ts";

/** A dma-buf fd a process holds. */
export interface DmaBufFdRef extends DmaBufFdInfo {
  /** The file descriptor number in that process. */
  fd: number;
}

/** What one process holds. */
export interface ProcessDmaBufRefs {
  /** The process. */
  pid: number;
  /** Its dma-buf file descriptors. */
  fds: DmaBufFdRef[];
  /** Its CPU mappings of dma-bufs. */
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
