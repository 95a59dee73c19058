/**
 * I1, attachments: some frame buffer was shared by two devices in a bufinfo sample taken
 * while the run imported frames (attachments cannot be read afterwards:
 * docs/design.md#attachments-come-from-bufinfo-sampled-during-the-run). Sharing has two shapes:
 *
 * - an allocator exports (a DMA heap, nvmap) and the producer and the consumer device both
 *   attach: ≥ 2 distinct devices attached;
 * - the producer device exports its own buffers (V4L2's vb2 exporters, see
 *   {@linkcode DEVICE_EXPORTERS}) and only the consumer attaches: the exporter plus ≥ 1
 *   attached device.
 *
 * Devices are counted by name, once per sample: one device attached twice is one device.
 * vivid's capture and output devices share the parent `vivid.0`, so both count as one: a vb2
 * buffer that `vivid.0`'s capture exports and its output imports is not shared by two devices
 * (the owners of the workload's V4L2 nodes tell the exporter, `v4l2_devices.ts`).
 *
 * @module
 */
import type { BufinfoSummary, InodeObservation } from "../trace/parse/bufinfo_summary.ts";
import { diagnosis } from "./diagnosis.ts";
import type { Diagnosis } from "./schema.ts";
import { invariant, type Verdict } from "./_invariant.ts";

/**
 * Exporters that are the producer device itself (vb2's allocators, by module name): their
 * buffers are shared as soon as one other device attaches.
 */
export const DEVICE_EXPORTERS: readonly string[] = [
  "videobuf2_dma_contig",
  "videobuf2_dma_sg",
  "videobuf2_vmalloc",
];

/**
 * Whether bufinfo's view of a buffer shows it shared by two devices (see the module doc).
 * `exporterDevices` are the devices that may have exported a vb2 buffer (the owners of the
 * V4L2 nodes the workload opened; empty: not known): a vb2 buffer attached only by the one
 * device that owns all of them stayed within that device.
 */
export function shared(o: InodeObservation, exporterDevices: readonly string[] = []): boolean {
  if (o.maxDevices >= 2) return true;
  if (!DEVICE_EXPORTERS.includes(o.exporter) || o.maxDevices < 1) return false;
  return exporterDevices.length === 0 ||
    o.devicesAtMax.some((a) => exporterDevices.some((e) => e !== a));
}

/** I1's verdict, with the frame inodes bufinfo listed (I2 judges their exporters). */
export interface AttachmentsVerdict extends Verdict {
  /** Frame inodes that appeared in some sample. */
  sampled: InodeObservation[];
  /** Those of them shared by two devices in some sample (see {@linkcode shared}). */
  multi: InodeObservation[];
}

/**
 * Judges I1 from the bufinfo samples of a run, the inodes of its frames, and the workload's
 * `/dmabuf:` map refs (named in the diagnosis when a frame had one device only).
 *
 * @example
 * ```ts
 * import { judgeAttachments } from "./attachments.ts";
 * import { addSample, emptySummary } from "../trace/parse/bufinfo_summary.ts";
 * const bufinfo = addSample(emptySummary(), {
 *   buffers: [{ size: 4096, flags: 2, mode: 7, count: 3, exporter: "system", inode: 9,
 *     name: "", devices: ["vivid", "0000:00:03.0"], fences: [], line: 3 }],
 * }, 0);
 * const v = judgeAttachments(bufinfo, new Set([9]), []);
 * console.log(v.invariant.status); // "PASS"
 * console.log(v.multi[0]?.inode); // 9
 * ```
 */
export function judgeAttachments(
  bufinfo: BufinfoSummary | { unavailable: string },
  frameInodes: ReadonlySet<number>,
  mapRefs: ReadonlyArray<{ pid: number; inode: number }>,
  frameInodesFrom = "axl_dmabuf_import",
  exporterDevices: readonly string[] = [],
): AttachmentsVerdict {
  if ("unavailable" in bufinfo) {
    return {
      invariant: invariant("I1", "SKIP", `bufinfo not sampled: ${bufinfo.unavailable}`, {}),
      diagnoses: [diagnosis("bufinfo-unavailable", bufinfo.unavailable)],
      sampled: [],
      multi: [],
    };
  }
  const sampled = [...bufinfo.inodes.values()].filter((x) => frameInodes.has(x.inode));
  const multi = sampled.filter((o) => shared(o, exporterDevices));
  const evidence = {
    samples: bufinfo.samples,
    frame_inodes: frameInodes.size,
    frame_inodes_from: frameInodesFrom,
    frame_inodes_sampled: sampled.length,
    multi_attach: multi.slice(0, 20).map((x) => ({
      inode: x.inode,
      exporter: x.exporter,
      devices: x.devicesAtMax,
      multi_attach_samples: x.multiAttachSamples,
    })),
    max_devices: Math.max(0, ...sampled.map((x) => x.maxDevices)),
    sample_errors: bufinfo.errors.length,
  };
  const diagnoses: Diagnosis[] = [];
  const verdict = (status: "PASS" | "FAIL" | "INCONCLUSIVE", summary: string) => ({
    invariant: invariant("I1", status, summary, evidence),
    diagnoses,
    sampled,
    multi,
  });
  if (frameInodes.size === 0) {
    return verdict("INCONCLUSIVE", `no frame inode is known (none from ${frameInodesFrom})`);
  }
  if (multi.length > 0) {
    const e = multi[0]!;
    const how = e.maxDevices >= 2
      ? `${e.devicesAtMax.join(", ")} attached`
      : `exported by the producer device (${e.exporter}), ${e.devicesAtMax.join(", ")} attached`;
    return verdict(
      "PASS",
      `${multi.length} of ${frameInodes.size} frame inodes were shared by two devices ` +
        `(e.g. inode ${e.inode}: ${how})`,
    );
  }
  const lent = sampled.find((o) => DEVICE_EXPORTERS.includes(o.exporter) && o.maxDevices >= 1);
  if (lent) {
    const dev = lent.devicesAtMax.join(", ");
    return verdict(
      "INCONCLUSIVE",
      `frame buffers exported by vb2 (${lent.exporter}) were attached by ${dev} only, which owns ` +
        "every V4L2 node the workload opened: exporter and importer are one device (e.g. a " +
        "capture and an output queue of one driver instance). The frames were imported without " +
        "a copy, but no second device shared them",
    );
  }
  if (sampled.length === 0) {
    diagnoses.push(diagnosis("attach-not-sampled", `${bufinfo.samples} samples`));
    return verdict(
      "INCONCLUSIVE",
      `none of ${frameInodes.size} frame inodes appeared in ${bufinfo.samples} bufinfo samples`,
    );
  }
  const ref = mapRefs[0];
  diagnoses.push(diagnosis(
    "attach-count-one",
    ref
      ? `${mapRefs.length} /dmabuf: map refs in the workload (e.g. pid ${ref.pid} inode ${ref.inode})`
      : "no /dmabuf: map refs seen",
  ));
  return verdict(
    "FAIL",
    `${sampled.length} frame inodes sampled, at most ${evidence.max_devices} distinct device ` +
      "attached and no producer-device exporter",
  );
}
