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
 * Where bufinfo was read slowly (once a second: the attach events stand in for its samples)
 * the pool's buffers come from the workload's fd scans, which name each buffer's exporter
 * ({@linkcode withWorkloadFds}), and from the attach events; what only bufinfo could say
 * refuses the shape as INCONCLUSIVE instead: the whole exporter as the pool (a short-lived
 * buffer falls between two reads), or a buffer the workload held whose exporter nothing named.
 *
 * @module
 */
import type { BufinfoSummary, InodeObservation } from "../../trace/parse/bufinfo_summary.ts";
import type { DeviceUse } from "./dmabuf_probes.ts";

/** A dma-buf the workload held by an fd, with the exporter fdinfo named. */
export interface HeldFd {
  inode: number;
  exporter: string;
}

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

/**
 * The held shape with the buffers it rests on, or why the run is not that shape
 * (`inconclusive`: the capture cannot tell, as where bufinfo was read slowly).
 */
export type HeldMappings =
  | { held: true; buffers: number[]; exporters: string[]; pool: HeldPool }
  | { held: false; reason: string; pool?: HeldPool; inconclusive?: boolean };

/**
 * The bufinfo summary with the buffers the workload held by an fd that no sample listed,
 * each added with the exporter its fdinfo named (name and size unknown, no device attached,
 * `samples` 0): where bufinfo was read once a second, a buffer that lived between two reads
 * is known from the workload's fd scans (every 200 ms) or its fd events. What bufinfo listed is
 * kept as is. A
 * summary without samples (`unavailable`) is returned as is.
 *
 * @example
 * ```ts
 * import { withWorkloadFds } from "./held_mappings.ts";
 * import { emptySummary } from "../../trace/parse/bufinfo_summary.ts";
 * const s = withWorkloadFds(emptySummary(), [{ inode: 12, exporter: "nvmap_dmabuf" }]);
 * console.log("inodes" in s && s.inodes.get(12)?.exporter); // "nvmap_dmabuf"
 * ```
 */
export function withWorkloadFds(
  bufinfo: BufinfoSummary | { unavailable: string },
  fds: readonly HeldFd[],
): BufinfoSummary | { unavailable: string } {
  if ("unavailable" in bufinfo) return bufinfo;
  const added = fds.filter((f) => f.inode > 0 && f.exporter !== "" && !bufinfo.inodes.has(f.inode));
  if (added.length === 0) return bufinfo;
  const inodes = new Map(bufinfo.inodes);
  for (const f of added) {
    if (inodes.has(f.inode)) continue;
    inodes.set(f.inode, {
      inode: f.inode,
      exporter: f.exporter,
      name: "",
      size: 0,
      maxDevices: 0,
      devicesAtMax: [],
      devicesSeen: [],
      samples: 0,
      multiAttachSamples: 0,
      firstSeenMs: NaN,
      lastSeenMs: NaN,
    });
  }
  return { ...bufinfo, inodes };
}

/**
 * Why a pool cannot be trusted where bufinfo was read every `sparseMs` (undefined: often
 * enough, or `sparseMs` undefined): the whole exporter as the pool (bufinfo's reads are all
 * that lists it), or a buffer the workload held whose exporter nothing named (`known`: the
 * summary's inodes, merged with the attach events and the workload's fds). Or, for a pool
 * narrowed to the workload's buffers, why the workload's refs may miss one (`refsDoubt`,
 * {@linkcode refsDoubt}): the pool may then lack a buffer a frame could travel in.
 *
 * @example
 * ```ts
 * import { sparsePoolProblem } from "./held_mappings.ts";
 * const pool = { from: "workload" as const, ignored: 0 };
 * console.log(sparsePoolProblem(pool, new Set([4]), new Map([[4, {}]]), undefined, "why"));
 * // "why"
 * ```
 */
export function sparsePoolProblem(
  pool: HeldPool,
  workloadBuffers: ReadonlySet<number> | undefined,
  known: ReadonlyMap<number, unknown>,
  sparseMs: number | undefined,
  refsDoubt?: string,
): string | undefined {
  if (refsDoubt !== undefined && pool.from === "workload") return refsDoubt;
  if (sparseMs === undefined) return undefined;
  const rate = `bufinfo was read every ${sparseMs} ms`;
  if (pool.from === "exporter") {
    return `${rate} and ${pool.why}, so the exporter's buffers during the run are not all known`;
  }
  const unknown = [...(workloadBuffers ?? [])].filter((i) => !known.has(i)).sort((a, b) => a - b);
  if (unknown.length === 0) return undefined;
  return `${rate}, and nothing named the exporter of inode ${unknown.slice(0, 5).join(", ")}, ` +
    "which the workload held (a mapping, no fd the scans saw), so whether a frame could " +
    "travel in it is unknown";
}

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
 * Why the workload's fd and map refs may miss a buffer it held, or undefined when they do not:
 * where the process probes stood in for the /proc scans (both parts placed, so the scans ran
 * once a second) and their ring buffer lost events (`lost` > 0), or its loss is unknown (a
 * string: why its stats were not read), or the fold could not read some events (`counts`:
 * damaged fields, an mmap entry or return without its pair), a buffer held only between two
 * scans can be in neither. `refEvents` is capture.json's (absent: no process probes; the scans
 * ran every 200 ms and are what they were).
 *
 * @example
 * ```ts
 * import { refsDoubt } from "./held_mappings.ts";
 * console.log(refsDoubt({ parts: ["fd", "mmap"], lost: 0 })); // undefined
 * console.log(refsDoubt({ parts: ["fd", "mmap"], lost: 12 })?.slice(0, 36));
 * // "the process probes lost 12 events wh"
 * const counts = { damaged: 1, unpaired: 0 };
 * console.log(refsDoubt({ parts: ["fd", "mmap"], lost: 0, counts })?.slice(0, 44));
 * // "the process probes' fold could not read 1 ev"
 * ```
 */
export function refsDoubt(
  refEvents: {
    parts: readonly string[];
    lost: number | string;
    counts?: { damaged: number; unpaired: number };
  } | undefined,
): string | undefined {
  if (!refEvents) return undefined;
  const { parts, lost, counts } = refEvents;
  if (!parts.includes("fd") || !parts.includes("mmap")) return undefined;
  const unread = (counts?.damaged ?? 0) + (counts?.unpaired ?? 0);
  if (lost === 0 && unread === 0) return undefined;
  const events = (n: number) => `${n} ${n === 1 ? "event" : "events"}`;
  const why = typeof lost === "string"
    ? `the process probes may have lost events (${lost})`
    : lost > 0
    ? `the process probes lost ${events(lost)} (their trace instance overran)`
    : `the process probes' fold could not read ${events(unread)} (${counts!.damaged} damaged, ` +
      `${counts!.unpaired} mmap entries or returns without their pair)`;
  return `${why} while the /proc scans ran once a second, so a buffer the workload held only ` +
    "between two scans may be missing from its refs and from the pool: run it again with " +
    "--no-process-probes (the scans every 200 ms, no events)";
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
 *
 * `sparseMs`: bufinfo's interval where it was read slowly (see the module doc), else
 * undefined. `refsDoubt`: why the workload's refs may be incomplete ({@linkcode refsDoubt}),
 * else undefined.
 */
export function heldMappings(
  use: DeviceUse | undefined,
  frameInodes: ReadonlySet<number>,
  bufinfo: BufinfoSummary | { unavailable: string },
  framesSubmitted: number,
  workloadBuffers?: ReadonlySet<number>,
  sparseMs?: number,
  refsDoubt?: string,
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
  // The known pool is held; buffers a slow bufinfo could not list would only add to it.
  const sparse = sparsePoolProblem(
    narrowed.pool,
    workloadBuffers,
    bufinfo.inodes,
    sparseMs,
    refsDoubt,
  );
  if (sparse) {
    return { held: false, reason: sparse, ...(from ? { pool: from } : {}), inconclusive: true };
  }
  return { held: true, buffers, exporters: [...exporters].sort(), pool: narrowed.pool };
}
