/**
 * I3 from evidence other than our tracepoints (see `source.ts`): an import is a map of a
 * frame buffer by the importing device (`dma_buf_map_attachment()`, what every importer
 * must call before its DMA), a release its unmap. I3 judges coverage: did every frame reach
 * the importer by dma-buf? Two shapes pass: per frame (at least one map per frame
 * submitted) and held (fewer maps than frames, but every buffer of the frames' exporter
 * mapped once and kept, `held_mappings.ts`); in both every map is undone by the end of the
 * run. Maps beyond one per frame (a layout probe, a preroll frame a video sink shows twice,
 * a retry) are maps of the same frame buffers: a note with their count, never a FAIL. Fewer
 * maps than frames outside the held shape, or a frame buffer the workload reported that the
 * importer never mapped, FAILs. A source that cannot count says so (INCONCLUSIVE or SKIP,
 * with the fix), never FAIL.
 *
 * nvmap's own events (`nvmap_accounting.ts`), when the trace has them: where the probes carry no
 * inode, or there are no probe events (bufinfo the source), they count the importer's imports of
 * nvmap buffers instead of leaving I3 INCONCLUSIVE; where the probes carry inodes, they must agree with the probes' maps, and a PASS
 * they contradict becomes INCONCLUSIVE, saying where.
 *
 * @module
 */
import { diagnosis } from "../diagnosis.ts";
import type { Diagnosis, Status } from "../schema.ts";
import { invariant } from "../_invariant.ts";
import type { AccountingVerdict } from "../accounting.ts";
import type { BufinfoSummary } from "../../trace/parse/bufinfo_summary.ts";
import type { DmabufProbeFacts } from "./dmabuf_probes.ts";
import type { FrameEvidence } from "./source.ts";
import { heldMappings } from "./held_mappings.ts";
import type { NvmapFacts } from "./nvmap_events.ts";
import {
  countNvmapImports,
  crossCheckNvmap,
  describeDisagreement,
  type NvmapCount,
} from "./nvmap_accounting.ts";

/** I3's verdict with the counts it rests on. */
export interface ImporterAccountingVerdict extends AccountingVerdict {
  imports: number;
  releases: number;
}

/** Frames per-frame coverage lists in the evidence, at most. */
const LISTED = 20;

/**
 * Judges I3 from a non-axl evidence source. `bufinfo` is what the held shape is checked
 * against; without it only the per-frame shape can pass. `workloadInodes` are the frame
 * buffers the workload itself reported (the builtin does; empty when unknown): each must
 * have been mapped. `nvmap`: nvmap's events of the run, when it has them. `workloadBuffers`:
 * the inodes of every dma-buf the workload's processes held (fds and mappings; undefined when
 * the capture did not record its fds): the held shape's pool is narrowed to them.
 * `sparseMs`: bufinfo's interval where it was read slowly (once a second), else undefined:
 * then a pool only bufinfo could list refuses the held shape as INCONCLUSIVE. `refsDoubt`: why
 * the workload's refs may miss a buffer (`refsDoubt()` of `held_mappings.ts`: process events
 * lost while the scans ran once a second), else undefined: then a held shape whose pool the
 * workload's refs narrowed is INCONCLUSIVE too.
 *
 * @example
 * ```ts
 * import { judgeImporterAccounting } from "./importer_accounting.ts";
 * const v = judgeImporterAccounting({
 *   source: "bufinfo",
 *   importer: { name: "vgem", axl: false, reason: "--importer" },
 *   passedOver: ["kprobes: no kprobe events"],
 *   frameInodes: new Set([5, 6]),
 *   frameInodesFrom: "bufinfo",
 * }, undefined, 30, false);
 * console.log(v.invariant.status); // "INCONCLUSIVE"
 * ```
 */
export function judgeImporterAccounting(
  ev: FrameEvidence,
  dmabuf: DmabufProbeFacts | undefined,
  framesSubmitted: number | null,
  lossy: boolean,
  bufinfo: BufinfoSummary | { unavailable: string } = { unavailable: "not given" },
  workloadInodes: ReadonlySet<number> = new Set(),
  nvmap?: NvmapFacts,
  workloadBuffers?: ReadonlySet<number>,
  sparseMs?: number,
  refsDoubt?: string,
): ImporterAccountingVerdict {
  const v = fromProbes(
    ev,
    dmabuf,
    framesSubmitted,
    lossy,
    bufinfo,
    workloadInodes,
    nvmap,
    workloadBuffers,
    sparseMs,
    refsDoubt,
  );
  if (!nvmap || ev.source !== "kprobes" || !ev.use || ev.use.mapsByInode.size === 0) return v;
  if (v.invariant.evidence.counted_from !== undefined) return v;
  const check = crossCheckNvmap(nvmap, ev.importer.name ?? "", ev.frameInodes, ev.use);
  if (!check) return v;
  v.invariant.evidence.nvmap_check = check;
  if (check.agree) return v;
  const who = ev.importer.name ?? "the importer";
  const why = describeDisagreement(check, who);
  const notes = [...(v.notes ?? []), `I3: nvmap's events disagree with the probes: ${why}`];
  if (v.invariant.status === "PASS") {
    v.invariant.status = "INCONCLUSIVE";
    v.invariant.summary = `${v.invariant.summary}, but nvmap's events disagree (${why})`;
  }
  return { ...v, notes };
}

/** I3 from the probes (and from nvmap's events where the probes carry no inode). */
function fromProbes(
  ev: FrameEvidence,
  dmabuf: DmabufProbeFacts | undefined,
  framesSubmitted: number | null,
  lossy: boolean,
  bufinfo: BufinfoSummary | { unavailable: string },
  workloadInodes: ReadonlySet<number>,
  nvmap: NvmapFacts | undefined,
  workloadBuffers: ReadonlySet<number> | undefined,
  sparseMs: number | undefined,
  refsDoubt: string | undefined,
): ImporterAccountingVerdict {
  const counts = importerCounts(ev);
  const evidence: Record<string, unknown> = {
    source: ev.source,
    importer: ev.importer.name,
    importer_reason: ev.importer.reason,
    passed_over: ev.passedOver,
    frame_inodes_from: ev.frameInodesFrom,
    imports: counts.imports,
    releases: counts.releases,
    frames_submitted: framesSubmitted,
    unreleased: counts.unreleased,
    devices_seen: [...(dmabuf?.devices.values() ?? [])].slice(0, 10).map((u) => ({
      device: u.device,
      attaches: u.attaches,
      maps: u.maps,
      unmaps: u.unmaps,
      detaches: u.detaches,
    })),
  };
  const verdict = (status: Status, summary: string, d?: Diagnosis, notes: string[] = []) => ({
    invariant: invariant("I3", status, summary, evidence),
    diagnoses: d ? [d] : [],
    submitted: framesSubmitted,
    imports: counts.imports,
    releases: counts.releases,
    ...(notes.length > 0 ? { notes } : {}),
  });
  const who = ev.importer.name ?? "the importer";
  // nvmap's events count the importer's imports of nvmap buffers (the camera's).
  const nvmapCount = (frames: number) =>
    nvmap && ev.importer.name !== null
      ? countNvmapImports(
        nvmap,
        ev.importer.name,
        frames,
        bufinfo,
        workloadBuffers,
        sparseMs,
        refsDoubt,
      )
      : undefined;
  if (ev.source === "none") {
    return verdict(
      "SKIP",
      `no evidence of imports: ${ev.passedOver.join("; ")}`,
      diagnosis("import-evidence-missing", ev.passedOver.join("; ")),
    );
  }
  if (ev.source === "bufinfo") {
    // Without probe events nvmap's own still count the importer's imports of nvmap buffers.
    const n = !lossy && framesSubmitted !== null ? nvmapCount(framesSubmitted) : undefined;
    if (n) {
      return fromNvmap(n, evidence, framesSubmitted!, [
        `I3: no probe events (${ev.passedOver.join("; ")}); nvmap's events counted ${who}'s ` +
        "imports of nvmap buffers",
      ]);
    }
    return verdict(
      "INCONCLUSIVE",
      `bufinfo showed ${ev.frameInodes.size} buffers attached to ${who}, but samples cannot ` +
        "count imports and releases",
      diagnosis("import-evidence-missing", ev.passedOver.join("; ")),
    );
  }
  if (lossy) {
    return verdict(
      "INCONCLUSIVE",
      `trace lost events: ${counts.imports} maps / ${counts.releases} unmaps by ${who} cannot be trusted`,
    );
  }
  if (framesSubmitted === null) {
    return verdict(
      "INCONCLUSIVE",
      `${who} mapped ${counts.imports} frame buffers and unmapped ${counts.releases}, but the ` +
        "number of frames submitted is unknown",
    );
  }
  if (counts.imports === 0) {
    const others = [...(dmabuf?.devices.keys() ?? [])].filter((d) => d !== ev.importer.name);
    return verdict(
      "FAIL",
      `${who} never mapped a frame buffer (${framesSubmitted} frames submitted)`,
      diagnosis(
        "importer-never-maps",
        others.length > 0 ? `devices that did: ${others.join(", ")}` : "no device mapped a dma-buf",
      ),
    );
  }
  if (counts.imports !== framesSubmitted && ev.use?.mapsByInode.size === 0) {
    // nvmap's events name which of the importer's buffers are nvmap's (the camera's).
    const n = nvmapCount(framesSubmitted);
    if (n) {
      evidence.probe_maps = counts.imports;
      return fromNvmap(n, evidence, framesSubmitted, [
        `I3: the probes carry no inode, so ${who}'s ${counts.imports} maps could not be told ` +
        "from maps of other buffers; nvmap's events named its nvmap buffers, and I3 counted " +
        "those",
      ]);
    }
    return verdict(
      "INCONCLUSIVE",
      `${who} mapped ${counts.imports} buffers for ${framesSubmitted} frames submitted, but the ` +
        "probes carry no inode, so output buffers it maps cannot be told from frames",
      diagnosis("probe-inode-missing", "maps of frames and of other buffers are counted together"),
    );
  }
  const unmapped = neverMapped(ev.use, workloadInodes);
  if (unmapped.length > 0) {
    evidence.never_mapped = unmapped.slice(0, LISTED);
    return verdict(
      "FAIL",
      `${who} never mapped ${unmapped.length} of the ${workloadInodes.size} frame buffers the ` +
        `workload submitted (inode ${unmapped.slice(0, 5).join(", ")})`,
      diagnosis(
        "maps-ne-frames",
        `inodes never mapped: ${unmapped.slice(0, 5).join(", ")}; ${counts.imports} maps, ` +
          `${framesSubmitted} frames`,
      ),
    );
  }
  if (counts.imports < framesSubmitted) {
    const shape = heldMappings(
      ev.use,
      ev.frameInodes,
      bufinfo,
      framesSubmitted,
      workloadBuffers,
      sparseMs,
      refsDoubt,
    );
    // Captures that recorded no fds of the workload judge as before, word for word.
    if (shape.pool?.from === "workload") evidence.held_pool = shape.pool;
    if (shape.held) {
      evidence.shape = "held";
      evidence.held_buffers = shape.buffers;
      const names = shape.exporters.join(", "), ignored = shape.pool.ignored;
      return verdict(
        "PASS",
        shape.pool.from === "workload"
          ? `${who} held a mapping of each of the ${shape.buffers.length} buffers of ${names} ` +
            `the workload held, for ${framesSubmitted} frames` +
            (ignored > 0
              ? ` (${ignored} other ${ignored === 1 ? "buffer" : "buffers"} of ${names}, ` +
                "held by no process of the workload, ignored)"
              : "") +
            `; ${counts.releases} unmaps (kprobes)`
          : `${who} held a mapping of each of the ${shape.buffers.length} buffers ` +
            `${names} exported for ${framesSubmitted} frames; ` +
            `${counts.releases} unmaps (kprobes)`,
      );
    }
    if (shape.pool?.from === "workload") evidence.not_held = shape.reason;
    if (shape.inconclusive) {
      evidence.not_held = shape.reason;
      return verdict(
        "INCONCLUSIVE",
        `${who} mapped frame buffers ${counts.imports} times for ${framesSubmitted} frames ` +
          `submitted, fewer maps than frames, and whether it held each buffer a frame could ` +
          `travel in cannot be told: ${shape.reason}`,
      );
    }
  }
  if (counts.imports < framesSubmitted) {
    return verdict(
      "FAIL",
      `${who} mapped frame buffers ${counts.imports} times for ${framesSubmitted} frames submitted`,
      diagnosis("maps-ne-frames", `${counts.imports} maps, ${framesSubmitted} frames`),
    );
  }
  if (counts.releases !== counts.imports || counts.unreleased > 0) {
    return verdict(
      "FAIL",
      `${counts.releases} unmaps for ${counts.imports} maps by ${who}`,
      diagnosis("releases-unbalanced", `${counts.releases}/${counts.imports} (kprobes)`),
    );
  }
  evidence.shape = "per-frame";
  const extra = counts.imports - framesSubmitted;
  if (extra === 0) {
    return verdict(
      "PASS",
      `${who} mapped ${counts.imports} frame buffers = ${framesSubmitted} frames submitted; ` +
        `${counts.releases} unmaps (kprobes)`,
    );
  }
  // Every frame had its map; the rest mapped the same frame buffers again.
  evidence.extra_maps = extra;
  evidence.maps_by_inode = mapsByInode(ev);
  return verdict(
    "PASS",
    `${who} mapped frame buffers ${counts.imports} times for ${framesSubmitted} frames ` +
      `submitted: every frame covered, ${extra} more ${extra === 1 ? "map" : "maps"} of the ` +
      `same buffers; ${counts.releases} unmaps (kprobes)`,
    undefined,
    [
      `I3: ${who} mapped the frame buffers ${extra} ${extra === 1 ? "time" : "times"} more ` +
      `than frames submitted (${counts.imports} maps for ${framesSubmitted} frames, each ` +
      "undone): extra maps of the same buffers, such as a layout probe, a preroll frame a " +
      "video sink shows twice or a retry, are counted here, not failed",
    ],
  );
}

/** I3 as nvmap's events counted it (`nvmap_accounting.ts`), with the evidence so far. */
function fromNvmap(
  n: NvmapCount,
  evidence: Record<string, unknown>,
  framesSubmitted: number,
  notes: string[],
): ImporterAccountingVerdict {
  Object.assign(evidence, n.evidence);
  return {
    invariant: invariant("I3", n.status, n.summary, evidence),
    diagnoses: n.status === "FAIL"
      ? [
        diagnosis(
          "maps-ne-frames",
          `${n.imports} attaches of nvmap buffers, ${framesSubmitted} frames`,
        ),
      ]
      : [],
    submitted: framesSubmitted,
    imports: n.imports,
    releases: n.releases,
    notes,
  };
}

/** The workload's frame buffers the importer never mapped (only when the probes carry inodes). */
function neverMapped(
  use: FrameEvidence["use"],
  workloadInodes: ReadonlySet<number>,
): number[] {
  if (!use || use.mapsByInode.size === 0) return [];
  return [...workloadInodes].filter((ino) => !use.mapsByInode.has(ino)).sort((a, b) => a - b);
}

/** Maps per frame buffer, most first (at most {@linkcode LISTED}). */
function mapsByInode(ev: FrameEvidence): Array<{ inode: number; maps: number }> {
  const by = ev.use?.mapsByInode;
  if (!by || by.size === 0) return [];
  return [...ev.frameInodes].map((inode) => ({ inode, maps: by.get(inode) ?? 0 }))
    .sort((a, b) => b.maps - a.maps || a.inode - b.inode).slice(0, LISTED);
}

/** Maps and unmaps of frame buffers by the importer, and those left mapped. */
function importerCounts(
  ev: FrameEvidence,
): { imports: number; releases: number; unreleased: number } {
  const use = ev.use;
  if (!use) return { imports: 0, releases: 0, unreleased: 0 };
  if (use.mapsByInode.size === 0) {
    // No inodes in the events: every map by the importer counts.
    const unreleased = [...use.openMaps.values()].filter((n) => n > 0).length;
    return { imports: use.maps, releases: use.unmaps, unreleased };
  }
  let imports = 0, releases = 0, unreleased = 0;
  for (const ino of ev.frameInodes) {
    const m = use.mapsByInode.get(ino) ?? 0, u = use.unmapsByInode.get(ino) ?? 0;
    imports += m;
    releases += u;
    if (m > u) unreleased++;
  }
  return { imports, releases, unreleased };
}
