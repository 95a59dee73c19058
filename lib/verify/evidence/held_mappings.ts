/**
 * The second shape I3 accepts from the kprobes: an importer that maps each buffer of the
 * frame pool once and keeps the mapping for the run (kmssink caches a DRM framebuffer per
 * buffer, so vkms maps each of v4l2src's buffers once), instead of mapping per frame.
 * Fewer maps than frames is then zero-copy only when every buffer the frame exporter had
 * was mapped: whichever buffer a frame travelled in, the importer had it mapped. So the
 * shape is judged strictly against bufinfo, and anything short of it keeps the per-frame
 * verdict.
 *
 * @module
 */
import type { BufinfoSummary } from "../../trace/parse/bufinfo_summary.ts";
import type { DeviceUse } from "./dmabuf_probes.ts";

/** The held shape with the buffers it rests on, or why the run is not that shape. */
export type HeldMappings =
  | { held: true; buffers: number[]; exporters: string[] }
  | { held: false; reason: string };

/**
 * Whether the importer held one mapping of every buffer its frames' exporter had during the
 * run: each such buffer (by bufinfo) mapped exactly once and unmapped exactly once, and no
 * more buffers than frames.
 *
 * @example
 * ```ts
 * import { heldMappings } from "./held_mappings.ts";
 * const r = heldMappings(undefined, new Set([4]), { unavailable: "no debugfs" }, 60);
 * console.log(r); // { held: false, reason: "bufinfo is unavailable (no debugfs)" }
 * ```
 */
export function heldMappings(
  use: DeviceUse | undefined,
  frameInodes: ReadonlySet<number>,
  bufinfo: BufinfoSummary | { unavailable: string },
  framesSubmitted: number,
): HeldMappings {
  const no = (reason: string): HeldMappings => ({ held: false, reason });
  if ("unavailable" in bufinfo) return no(`bufinfo is unavailable (${bufinfo.unavailable})`);
  if (!use || use.mapsByInode.size === 0) return no("the probes carry no buffer inode");
  if (frameInodes.size === 0) return no("the importer mapped no frame buffer");
  const exporters = new Set<string>();
  for (const ino of frameInodes) {
    const seen = bufinfo.inodes.get(ino);
    if (!seen) return no(`bufinfo never listed inode ${ino}, so its exporter is unknown`);
    exporters.add(seen.exporter);
  }
  const pool = [...bufinfo.inodes.values()].filter((o) => exporters.has(o.exporter));
  const unnamed = pool.find((o) => o.inode < 0);
  if (unnamed) return no(`bufinfo listed a buffer of ${unnamed.exporter} without an inode`);
  const buffers = pool.map((o) => o.inode).sort((a, b) => a - b);
  if (buffers.length > framesSubmitted) {
    return no(
      `${buffers.length} buffers of ${[...exporters].join(", ")} for ${framesSubmitted} frames`,
    );
  }
  for (const ino of buffers) {
    const maps = use.mapsByInode.get(ino) ?? 0, unmaps = use.unmapsByInode.get(ino) ?? 0;
    if (maps !== 1) return no(`inode ${ino} was mapped ${maps} times, not once`);
    if (unmaps !== 1) return no(`inode ${ino} was unmapped ${unmaps} times, not once`);
  }
  return { held: true, buffers, exporters: [...exporters].sort() };
}
