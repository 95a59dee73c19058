/**
 * Parsing `/proc/<pid>/fdinfo/<fd>`: for a dma-buf the kernel prints `size`, `count`,
 * `flags`, `mode`, `exp_name`, `ino` and `name` after the generic `pos`/`flags`/`mnt_id`.
 *
 * @module
 */

/** The dma-buf fields of an fdinfo file; absent when the fd is not a dma-buf. */
export interface DmaBufFdInfo {
  /** Buffer size in bytes. */
  size: number;
  /** File reference count of the dma-buf. */
  count: number;
  /** Exporter name, e.g. `system` or `nvmap`. */
  exporter: string;
  /** Inode number, as in debugfs bufinfo. */
  inode: number;
  /** The buffer's name (DMA_BUF_SET_NAME), `""` when unset. */
  name: string;
}

/**
 * Parses fdinfo text into key/value pairs (keys as printed, values trimmed).
 *
 * @example
 * ```ts
 * import { parseFdinfo } from "./fdinfo.ts";
 * const kv = parseFdinfo("pos:\t0\nexp_name:\tsystem\n");
 * console.log(kv.get("exp_name")); // "system"
 * ```
 */
export function parseFdinfo(text: string): Map<string, string> {
  const out = new Map<string, string>();
  for (const line of text.split("\n")) {
    const colon = line.indexOf(":");
    if (colon <= 0) continue;
    out.set(line.slice(0, colon).trim(), line.slice(colon + 1).trim());
  }
  return out;
}

/**
 * The dma-buf fields of parsed fdinfo, or `undefined` when `exp_name` is missing
 * (the fd is not a dma-buf).
 *
 * @example
 * ```ts
 * import { dmaBufFdInfo, parseFdinfo } from "./fdinfo.ts";
 * const info = dmaBufFdInfo(parseFdinfo(
 *   "pos:\t0\nflags:\t02\nmnt_id:\t15\nino:\t1043\nsize:\t4096\ncount:\t1\n" +
 *     "exp_name:\tsystem\nname:\tframe-0\n",
 * ));
 * console.log(info?.inode); // 1043
 * ```
 */
export function dmaBufFdInfo(kv: Map<string, string>): DmaBufFdInfo | undefined {
  const exporter = kv.get("exp_name");
  if (exporter === undefined) return undefined;
  return {
    size: Number(kv.get("size") ?? 0),
    count: Number(kv.get("count") ?? 0),
    exporter,
    inode: Number(kv.get("ino") ?? 0),
    name: kv.get("name") ?? "",
  };
}
