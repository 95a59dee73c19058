/**
 * The second shape I3 accepts from the kprobes: an importer that maps each buffer of the
 * frame pool once and keeps the mapping for the run (kmssink caches a DRM framebuffer per
 * buffer, so vkms maps each of v4l2src's buffers once), instead of mapping per frame.
 * Fewer maps than frames is then zero-copy only when every buffer a frame could travel in
 * was mapped: whichever buffer a frame travelled in, the importer had it mapped. So the
 * shape is judged strictly against bufinfo, and anything short of it keeps the per-frame
 * verdict.
 *
 * The pool is the frames' exporter's buffers that the workload held (`heldPool()`): a frame
 * reaches the importer only through a buffer some process of the workload handed it, so a
 * buffer no process of the workload ever held an fd or a mapping of (a display's surface,
 * another app's buffer: on a Jetson nvmap exports them all) carries none of its frames, and
 * is ignored and counted. A capture that did not record the workload's fds, or whose scans
 * missed a buffer the importer mapped, keeps the whole exporter as the pool.
 *
 * @module
 */
import type { BufinfoSummary, InodeObservation } from "../../trace/parse/bufinfo_summary.ts";
import type { DeviceUse } from "./dmabuf_probes.ts";

/** Where the pool came from, and how many of the exporter's buffers it left out. */
export interface HeldPool {
  /**
   * `workload`: the exporter's buffers the workload's processes held (fds or mappings);
   * `exporter`: every buffer of the exporter (the workload's were not recorded, or their
   * scans missed a buffer the importer mapped: `why` says which).
   */
  from: "workload" | "exporter";
  /** The exporter's buffers left out of the pool: held by no process of the workload. */
  ignored: number;
  /** Why the pool is the whole exporter, when it is. */
  why?: string;
}

/** The held shape with the buffers it rests on, or why the run is not that shape. */
export type HeldMappings =
  | { held: true; buffers: number[]; exporters: string[]; pool: HeldPool }
  | { held: false; reason: string; pool?: HeldPool };

/**
 * The buffers a frame could travel in: of `exporters`' buffers in bufinfo, those the workload
 * held (`workloadBuffers`: inodes of its fds and mappings; undefined when not recorded). The
 * narrowing is used only when the workload's buffers include every buffer the importer mapped
 * (`mapped`): else the scans missed buffers, and the whole exporter is the pool.
 *
 * @example
 * ```ts
 * import { heldPool } from "./held_mappings.ts";
 * const o = (inode: number) => ({ inode, exporter: "nvmap_dmabuf" });
 * const p = heldPool([o(1), o(2), o(9)], new Set([1, 2]), new Set([1, 2]));
 * console.log(p.buffers.length, p.pool); // 2 { from: "workload", ignored: 1 }
 * ```
 */
export function heldPool<T extends Pick<InodeObservation, "inode" | "exporter">>(
  exporterBuffers: T[],
  mapped: ReadonlySet<number>,
  workloadBuffers: ReadonlySet<number> | undefined,
): { buffers: T[]; pool: HeldPool } {
  const whole = (why: string) => ({
    buffers: exporterBuffers,
    pool: { from: "exporter" as const, ignored: 0, why },
  });
  if (!workloadBuffers) return whole("the capture did not record the workload's dma-buf fds");
  const missed = [...mapped].filter((i) => !workloadBuffers.has(i)).sort((a, b) => a - b);
  if (missed.length > 0) {
    return whole(
      `the workload's fd and map scans never saw inode ${missed.slice(0, 5).join(", ")}, ` +
        "which the importer mapped",
    );
  }
  const buffers = exporterBuffers.filter((o) => workloadBuffers.has(o.inode));
  return { buffers, pool: { from: "workload", ignored: exporterBuffers.length - buffers.length } };
}

/**
 * Whether the importer held one mapping of every buffer a frame could travel in during the
 * run (the frames' exporter's buffers the workload held, {@linkcode heldPool}): each such
 * buffer (by bufinfo) mapped exactly once and unmapped exactly once, and no more buffers than
 * frames.
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
  workloadBuffers?: ReadonlySet<number>,
): HeldMappings {
  const no = (reason: string, pool?: HeldPool): HeldMappings => ({
    held: false,
    reason,
    ...(pool ? { pool } : {}),
  });
  if ("unavailable" in bufinfo) return no(`bufinfo is unavailable (${bufinfo.unavailable})`);
  if (!use || use.mapsByInode.size === 0) return no("the probes carry no buffer inode");
  if (frameInodes.size === 0) return no("the importer mapped no frame buffer");
  const exporters = new Set<string>();
  for (const ino of frameInodes) {
    const seen = bufinfo.inodes.get(ino);
    if (!seen) return no(`bufinfo never listed inode ${ino}, so its exporter is unknown`);
    exporters.add(seen.exporter);
  }
  const all = [...bufinfo.inodes.values()].filter((o) => exporters.has(o.exporter));
  const narrowed = heldPool(all, frameInodes, workloadBuffers);
  const pool = narrowed.buffers;
  // A refusal names the pool only where the workload's buffers were given to narrow it.
  const from = workloadBuffers ? narrowed.pool : undefined;
  const unnamed = pool.find((o) => o.inode < 0);
  if (unnamed) return no(`bufinfo listed a buffer of ${unnamed.exporter} without an inode`, from);
  const buffers = pool.map((o) => o.inode).sort((a, b) => a - b);
  const names = [...exporters].join(", ");
  if (buffers.length > framesSubmitted) {
    return no(
      `${buffers.length} buffers of ${names}` +
        (from?.from === "workload" ? " the workload held" : "") + ` for ${framesSubmitted} frames`,
      from,
    );
  }
  for (const ino of buffers) {
    const maps = use.mapsByInode.get(ino) ?? 0, unmaps = use.unmapsByInode.get(ino) ?? 0;
    if (maps !== 1) return no(`inode ${ino} was mapped ${maps} times, not once`, from);
    if (unmaps !== 1) return no(`inode ${ino} was unmapped ${unmaps} times, not once`, from);
  }
  return { held: true, buffers, exporters: [...exporters].sort(), pool: narrowed.pool };
}
