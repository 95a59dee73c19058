/**
 * The CPU mappings of dma-bufs ("map refs") in the text of `/proc/<pid>/maps`: its `/dmabuf:`
 * lines. Pure: `../capture/dmabuf_refs.ts` reads the file of a live process.
 *
 * @module
 */
import { ParseError } from "./parse_error.ts";

/** A CPU mapping of a dma-buf. */
export interface DmaBufMapRef {
  /** Start virtual address (hex as printed). */
  start: string;
  /** End virtual address, exclusive (hex as printed). */
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
 * import { parseDmaBufMaps } from "./dmabuf_maps.ts";
 * const refs = parseDmaBufMaps(
 *   "7f7c75305000-7f7c75405000 rw-s 00000000 00:0b 13                         /dmabuf:frame-3\n",
 * );
 * console.log(refs[0]?.inode); // 13
 * console.log(refs[0]?.bytes); // 1048576
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
