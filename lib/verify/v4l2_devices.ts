/**
 * The V4L2 devices a workload has open, by the device that owns each node (`vivid.0`,
 * a PCI address): a buffer exported by vb2 (`videobuf2_dma_contig`, …) belongs to one of
 * them, which is how I1 tells an export to another device from one device's capture queue
 * lending a buffer to its own output queue (vivid's capture and output share `vivid.0`).
 *
 * @module
 */

/** A V4L2 node open in a workload process. */
export interface V4l2DeviceRef {
  /** The node, e.g. `/dev/video0`. */
  node: string;
  /** The node's name in sysfs, e.g. `vivid-000-vid-cap`. */
  name: string;
  /** The device that owns it as bufinfo names devices (`dev_name()`), e.g. `vivid.0`. */
  device: string;
}

/**
 * The V4L2 nodes process `pid` has open. A process that is gone or unreadable has none.
 *
 * @example
 * ```ts
 * import { v4l2DevicesOf } from "./v4l2_devices.ts";
 * console.log(v4l2DevicesOf(Deno.pid)); // [] unless this process holds a V4L2 device open
 * ```
 */
export function v4l2DevicesOf(pid: number, procRoot = "/proc", sysRoot = "/sys"): V4l2DeviceRef[] {
  const out = new Map<string, V4l2DeviceRef>();
  let fds: Deno.DirEntry[];
  try {
    fds = [...Deno.readDirSync(`${procRoot}/${pid}/fd`)];
  } catch {
    return [];
  }
  for (const fd of fds) {
    let target: string;
    try {
      target = Deno.readLinkSync(`${procRoot}/${pid}/fd/${fd.name}`);
    } catch {
      continue; // closed meanwhile
    }
    const m = /^\/dev\/(video\d+)$/.exec(target);
    if (!m || out.has(target)) continue;
    const dir = `${sysRoot}/class/video4linux/${m[1]}`;
    try {
      const device = Deno.realPathSync(`${dir}/device`).split("/").at(-1)!;
      const name = Deno.readTextFileSync(`${dir}/name`).trim();
      out.set(target, { node: target, name, device });
    } catch { /* a node without a device link: nothing to tell */ }
  }
  return [...out.values()];
}
