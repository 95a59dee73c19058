/**
 * The deprecated dma-buf sysfs statistics (`/sys/kernel/dmabuf/buffers/<inode>/`), read when
 * the kernel has them (CONFIG_DMABUF_SYSFS_STATS). They hold only `exporter_name` and
 * `size`: attachment counts were never merged, so I1 cannot come from here.
 *
 * @module
 */

/** The default sysfs directory. */
export const SYSFS_BUFFERS = "/sys/kernel/dmabuf/buffers";

/** One buffer's sysfs entry. */
export interface SysfsBuffer {
  /** The dma-buf's inode (the directory name). */
  inode: number;
  /** `exporter_name`. */
  exporter: string;
  /** `size` in bytes. */
  size: number;
}

/**
 * Whether the kernel exposes sysfs buffer stats.
 *
 * @example
 * ```ts
 * import { sysfsStatsPresent } from "./sysfs_stats.ts";
 * console.log(sysfsStatsPresent("/nonexistent")); // false
 * ```
 */
export function sysfsStatsPresent(dir = SYSFS_BUFFERS): boolean {
  try {
    return Deno.statSync(dir).isDirectory;
  } catch {
    return false;
  }
}

/**
 * Reads one buffer's entry; `undefined` when it is gone (buffers vanish when freed).
 *
 * @example
 * ```ts
 * import { readSysfsBuffer } from "./sysfs_stats.ts";
 * console.log(readSysfsBuffer(1, "/nonexistent")); // undefined
 * ```
 */
export function readSysfsBuffer(inode: number, dir = SYSFS_BUFFERS): SysfsBuffer | undefined {
  if (!Number.isInteger(inode) || inode < 0) {
    throw new RangeError(`readSysfsBuffer(): bad inode ${inode}`);
  }
  try {
    const exporter = Deno.readTextFileSync(`${dir}/${inode}/exporter_name`).trim();
    const size = Number(Deno.readTextFileSync(`${dir}/${inode}/size`).trim());
    return { inode, exporter, size };
  } catch {
    return undefined;
  }
}
