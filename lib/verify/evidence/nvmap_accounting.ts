/**
 * I3 from nvmap's own events (`nvmap_events.ts`), beside the kprobes: a Jetson's nvmap (and the
 * rig's nvmap-sim) traces every attach of one of its buffers by a device and every map call
 * the dma-buf core makes to it, naming the buffer by its `struct dma_buf` pointer. Two uses:
 *
 * - **Counting** where the probes cannot tell frames from other buffers (they carry no inode:
 *   no BTF argument names and no measured offsets), or there are none (no kprobe events in the
 *   kernel): nvmap's events name which of the
 *   importer's buffers are nvmap's (the camera's, and any other nvmap surface: like the probes
 *   without inodes, they cannot tell a converter's nvmap output from a camera frame; I1 and the
 *   chain do). A frame is counted on an attach of an nvmap buffer by the importer, never on an
 *   IOMMU map. Per frame: at least one attach per frame
 *   submitted, each detached again. Held: fewer attaches than frames, each nvmap buffer the
 *   importer attached attached once, mapped, detached once, and as many such buffers as bufinfo
 *   listed nvmap buffers that the workload held (every buffer a frame could travel in; on a
 *   Jetson nvmap also exports the display's and other apps' buffers, which are ignored and
 *   counted: `held_mappings.ts`'s `heldPool()`).
 * - **Cross-checking** where the probes carry inodes and judged: every frame buffer nvmap saw
 *   the importer attach during the trace (its pointer joined to the inode through the probes'
 *   `buf=`/`ino=`) and the probes saw it map, nvmap saw it map too, and the reverse, and nvmap
 *   never saw more map calls of a buffer than the probes saw `dma_buf_map_attachment()` calls
 *   (the core maps an attachment once when the exporter sets `cache_sgt_mapping`, as nvmap
 *   does, and hands the same table to later calls; so a buffer attached before the trace is not
 *   compared).
 *
 * nvmap of L4T R35/R36 maps each attachment once through the core's cache, so an importer that
 * holds its attachment shows one attach and one map per buffer, however many frames.
 *
 * @module
 */
import type { BufinfoSummary } from "../../trace/parse/bufinfo_summary.ts";
import type { DeviceUse } from "./dmabuf_probes.ts";
import type { NvmapFacts } from "./nvmap_events.ts";
import { heldPool, sparsePoolProblem } from "./held_mappings.ts";

/** The exporter names of nvmap's buffers (newer and older L4T releases). */
export const NVMAP_EXPORTERS: ReadonlySet<string> = new Set(["nvmap_dmabuf", "nvmap"]);

/** I3 counted from nvmap's events. */
export interface NvmapCount {
  /** PASS when every frame reached the importer as an nvmap buffer; FAIL or INCONCLUSIVE else. */
  status: "PASS" | "FAIL" | "INCONCLUSIVE";
  /** One sentence. */
  summary: string;
  /** The shape judged, when one was. */
  shape?: "per-frame" | "held";
  /** The importer's attaches of nvmap buffers (imports). */
  imports: number;
  /** Its detaches of them (releases). */
  releases: number;
  /** For I3's evidence. */
  evidence: Record<string, unknown>;
}

/**
 * Counts the importer's imports of nvmap buffers from nvmap's events; undefined when nvmap's
 * events show no attach by it (nothing to count from: the caller keeps its verdict).
 * `sparseMs`: bufinfo's interval where it was read slowly (the held count's pool must then
 * come from the workload's fd scans: `held_mappings.ts`), else undefined. `refsDoubt`: why the
 * workload's refs may be incomplete (`refsDoubt()` of `held_mappings.ts`), else undefined.
 *
 * @example
 * ```ts
 * import { NvmapFacts } from "./nvmap_events.ts";
 * import { countNvmapImports } from "./nvmap_accounting.ts";
 * const f = (o: Record<string, string>) => ({ field: (k: string) => o[k] });
 * const n = new NvmapFacts();
 * for (const e of ["attach", "map_dma_buf", "unmap_dma_buf", "detach"]) {
 *   n.add(`nvmap_dmabuf_${e}`, 7, f({ dmabuf: "ffff000012340000", device: "edu" }));
 * }
 * console.log(countNvmapImports(n, "edu", 1, { unavailable: "no debugfs" })?.status); // "PASS"
 * ```
 */
export function countNvmapImports(
  nvmap: NvmapFacts,
  importer: string,
  framesSubmitted: number,
  bufinfo: BufinfoSummary | { unavailable: string },
  workloadBuffers?: ReadonlySet<number>,
  sparseMs?: number,
  refsDoubt?: string,
): NvmapCount | undefined {
  const u = nvmap.devices.get(importer);
  if (!u || u.attaches === 0) return undefined;
  const buffers = [...u.byBuffer].filter(([p]) => p !== "");
  const imports = u.attaches, releases = u.detaches;
  const evidence: Record<string, unknown> = {
    counted_from: "nvmap events",
    nvmap_attaches: u.attaches,
    nvmap_maps: u.maps,
    nvmap_detaches: u.detaches,
    nvmap_buffers: buffers.length,
  };
  const out = (status: NvmapCount["status"], summary: string, shape?: NvmapCount["shape"]) => ({
    status,
    summary,
    ...(shape ? { shape } : {}),
    imports,
    releases,
    evidence: { ...evidence, ...(shape ? { shape } : {}) },
  });
  const events = `(nvmap's events: ${u.attaches} attaches, ${u.maps} maps, ${u.detaches} detaches)`;
  if (u.attaches >= framesSubmitted) {
    if (u.detaches !== u.attaches) {
      return out(
        "FAIL",
        `${u.detaches} detaches for ${u.attaches} attaches of nvmap buffers by ${importer} ${events}`,
      );
    }
    return out(
      "PASS",
      `${importer} attached nvmap buffers ${u.attaches} times for ${framesSubmitted} frames ` +
        `submitted, each detached ${events}`,
      "per-frame",
    );
  }
  // Fewer attaches than frames: the held shape, or frames that never reached the importer.
  const odd = buffers.find(([, b]) => b.attaches !== 1 || b.maps < 1 || b.detaches !== 1);
  if (odd) {
    const [p, b] = odd;
    return out(
      "FAIL",
      `${importer} attached nvmap buffers ${u.attaches} times for ${framesSubmitted} frames ` +
        `submitted, and buffer ${p} ${b.attaches} times (mapped ${b.maps}, detached ` +
        `${b.detaches}), not once and held ${events}`,
    );
  }
  if ("unavailable" in bufinfo) {
    return out(
      "INCONCLUSIVE",
      `${importer} held an attachment of ${buffers.length} nvmap buffers for ${framesSubmitted} ` +
        `frames, but bufinfo is unavailable (${bufinfo.unavailable}), so whether nvmap had more ` +
        `buffers is unknown ${events}`,
    );
  }
  const all = [...bufinfo.inodes.values()].filter((o) => NVMAP_EXPORTERS.has(o.exporter));
  let { buffers: pool, pool: from } = heldPool(
    all,
    attachedInodes(nvmap, buffers),
    workloadBuffers,
  );
  if (from.from === "workload" && pool.length < buffers.length) {
    // Pointers that joined no inode were not checked against the scans: these missed some.
    from = {
      from: "exporter",
      ignored: 0,
      why: `the workload's fd and map scans saw ${pool.length} nvmap buffers, the importer ` +
        `attached ${buffers.length}`,
    };
    pool = all;
  }
  evidence.bufinfo_nvmap_buffers = pool.length;
  // Captures that recorded no fds of the workload judge as before, word for word.
  const ours = from.from === "workload";
  if (ours) evidence.held_pool = from;
  const listed = ours ? `the workload held ${pool.length}` : `bufinfo listed ${pool.length}`;
  const ignored = ours && from.ignored > 0
    ? ` (${from.ignored} other nvmap ${from.ignored === 1 ? "buffer" : "buffers"}, held by no ` +
      "process of the workload, ignored)"
    : "";
  if (pool.length > buffers.length) {
    return out(
      "FAIL",
      `${importer} held an attachment of ${buffers.length} nvmap buffers for ${framesSubmitted} ` +
        `frames, but ${listed}: frames in the others never reached it${ignored} ${events}`,
    );
  }
  if (pool.length < buffers.length) {
    return out(
      "INCONCLUSIVE",
      `${importer} held an attachment of ${buffers.length} nvmap buffers for ${framesSubmitted} ` +
        `frames, but ${ours ? listed : `bufinfo listed only ${pool.length}`} nvmap buffers` +
        `${ignored} ${events}`,
    );
  }
  // The known pool matches; buffers a slow bufinfo could not list would only add to it.
  const sparse = sparsePoolProblem(
    from,
    workloadBuffers,
    bufinfo.inodes,
    sparseMs,
    refsDoubt,
  );
  if (sparse) {
    return out(
      "INCONCLUSIVE",
      `${importer} held an attachment of ${buffers.length} nvmap buffers for ${framesSubmitted} ` +
        `frames, but ${sparse} ${events}`,
    );
  }
  return out(
    "PASS",
    `${importer} held an attachment of each of the ${buffers.length} nvmap buffers` +
      `${ours ? " the workload held" : ""} for ${framesSubmitted} frames${ignored} ${events}`,
    "held",
  );
}

/**
 * The inodes of the importer's nvmap buffers (`buffers`, by pointer) that joined one: what
 * {@linkcode heldPool} checks the workload's scans against. A pointer that joined no inode
 * cannot be checked; then the workload's nvmap buffers must be at least as many as the
 * importer's, or the scans missed some and the pool is every nvmap buffer.
 */
function attachedInodes(nvmap: NvmapFacts, buffers: Array<[string, unknown]>): Set<number> {
  return new Set(buffers.flatMap(([p]) => {
    const ino = nvmap.inodeOf(p);
    return ino === undefined || ino < 0 ? [] : [ino];
  }));
}

/** Whether nvmap's events agree with the probes' maps of frame buffers by the importer. */
export interface NvmapCrossCheck {
  /** False when they disagree on a buffer both name. */
  agree: boolean;
  /**
   * Frame buffers (inodes) both sources were compared on: those nvmap saw the importer attach
   * during the trace, and those it saw the importer map.
   */
  checked: number;
  /** Inodes the probes saw the importer map and nvmap's events never did. */
  probes_only: number[];
  /** Inodes nvmap's events saw the importer map and the probes never did. */
  nvmap_only: number[];
  /** Inodes nvmap's events saw mapped more times than the probes saw map calls. */
  more_nvmap_maps: number[];
  /** The importer's nvmap buffers whose pointer joined no inode (not compared). */
  unjoined: number;
}

/**
 * Compares the probes' maps by the importer (per inode) with nvmap's (per pointer, joined to
 * inodes); undefined when nvmap's events name no buffer of the run's frames or of the importer
 * (nothing to compare).
 *
 * @example
 * ```ts
 * import { NvmapFacts } from "./nvmap_events.ts";
 * import { crossCheckNvmap } from "./nvmap_accounting.ts";
 * const f = (o: Record<string, string>) => ({ field: (k: string) => o[k] });
 * const n = new NvmapFacts();
 * n.notePointer("0xffff000012340000", 42);
 * n.add("nvmap_dmabuf_map_dma_buf", 7, f({ dmabuf: "ffff000012340000", device: "edu" }));
 * const probes = { mapsByInode: new Map([[42, 3]]) };
 * console.log(crossCheckNvmap(n, "edu", new Set([42]), probes)?.agree); // true
 * ```
 */
export function crossCheckNvmap(
  nvmap: NvmapFacts,
  importer: string,
  frameInodes: ReadonlySet<number>,
  probes: Pick<DeviceUse, "mapsByInode">,
): NvmapCrossCheck | undefined {
  const u = nvmap.devices.get(importer);
  const mappedByNvmap = new Map<number, number>();
  const attachedByNvmap = new Set<number>();
  let unjoined = 0;
  for (const [p, b] of u?.byBuffer ?? []) {
    const ino = nvmap.inodeOf(p);
    if (ino !== undefined && b.attaches > 0) attachedByNvmap.add(ino);
    if (b.maps === 0) continue;
    if (ino === undefined) unjoined++;
    else mappedByNvmap.set(ino, (mappedByNvmap.get(ino) ?? 0) + b.maps);
  }
  // Frame buffers nvmap saw the importer attach during the trace: one attached before it (a
  // `--pid` run) may be mapped through the core's cached table, which nvmap never sees.
  const frames = [...frameInodes].filter((i) => attachedByNvmap.has(i));
  if (frames.length === 0 && mappedByNvmap.size === 0 && unjoined === 0) return undefined;
  const probesOnly = frames.filter((i) => (probes.mapsByInode.get(i) ?? 0) > 0)
    .filter((i) => !mappedByNvmap.has(i));
  const nvmapOnly = [...mappedByNvmap.keys()].filter((i) => !probes.mapsByInode.has(i));
  const more = [...mappedByNvmap].filter(([i, m]) => m > (probes.mapsByInode.get(i) ?? 0))
    .map(([i]) => i).filter((i) => !nvmapOnly.includes(i));
  const sorted = (a: number[]) => a.sort((x, y) => x - y).slice(0, 20);
  return {
    agree: probesOnly.length === 0 && nvmapOnly.length === 0 && more.length === 0,
    checked: new Set([...frames, ...mappedByNvmap.keys()]).size,
    probes_only: sorted(probesOnly),
    nvmap_only: sorted(nvmapOnly),
    more_nvmap_maps: sorted(more),
    unjoined,
  };
}

/** The disagreement in words, for I3's summary and the notes. */
export function describeDisagreement(c: NvmapCrossCheck, importer: string): string {
  const parts = [
    c.probes_only.length
      ? `the probes saw ${importer} map inode ${c.probes_only.join(", ")}, nvmap's events never did`
      : "",
    c.nvmap_only.length
      ? `nvmap's events saw ${importer} map inode ${c.nvmap_only.join(", ")}, the probes never did`
      : "",
    c.more_nvmap_maps.length
      ? `nvmap's events saw more map calls of inode ${c.more_nvmap_maps.join(", ")} than the ` +
        "probes saw dma_buf_map_attachment() calls"
      : "",
  ].filter(Boolean);
  return parts.join("; ");
}
