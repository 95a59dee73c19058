/**
 * Where a run's frames, imports and releases come from: the best source the kernel offered,
 * in this order —
 *
 * 1. `axl-tracepoints`: our driver's `axl:axl_dmabuf_import/_release` (only when the
 *    importer is the axl device, and unless `--evidence generic`);
 * 2. `kprobes`: kprobe events on the kernel's dma-buf map/unmap functions, filtered to the
 *    importing device by name (`lib/trace/kprobe_events.ts`); any importer, any driver;
 * 3. `bufinfo`: the buffers bufinfo samples showed attached to the importer — which frames
 *    were imported, but no count of imports or releases;
 * 4. `none`.
 *
 * function_graph counts calls of the dma-buf functions but cannot say which device made
 * them, so it is reported beside the verdicts, never the source of one.
 *
 * @module
 */
import type { BufinfoSummary } from "../../trace/parse/bufinfo_summary.ts";
import type { DeviceUse, DmabufProbeFacts } from "./dmabuf_probes.ts";

/** How to pick the source: the best available, only ours, or never ours. */
export const EVIDENCE_MODES = ["auto", "axl", "generic"] as const;
/** `auto`, `axl` or `generic`. */
export type EvidenceMode = typeof EVIDENCE_MODES[number];

/** The sources, best first. */
export type EvidenceSource = "axl-tracepoints" | "kprobes" | "bufinfo" | "none";

/** The importing device as a run recorded it. */
export interface ImporterRecord {
  /** Device name as bufinfo prints it (`0000:00:02.0`, `vgem`); null when unknown. */
  name: string | null;
  /** Whether it is the axl device, whose imports our tracepoints record. */
  axl: boolean;
  /** How it was chosen (`--importer`, `the axl device`, `metis.ko's PCI function`). */
  reason: string;
}

/** What the selection looks at. */
export interface SourceInputs {
  mode: EvidenceMode;
  importer: ImporterRecord;
  /** The axl tracepoints were enabled in the capture. */
  axlEvents: boolean;
  /** The probe events were defined, or why not. */
  probes: { events: string[]; inode: boolean } | { unavailable: string } | undefined;
  dmabuf: DmabufProbeFacts | undefined;
  bufinfo: BufinfoSummary | { unavailable: string };
  /** Frame inodes the workload reported (the builtin does); empty when unknown. */
  workloadInodes: ReadonlySet<number>;
}

/** The chosen source and what it says about frames. */
export interface FrameEvidence {
  source: EvidenceSource;
  importer: ImporterRecord;
  /** Why each better source was not used. */
  passedOver: string[];
  /** Inodes of the frames the importer took (empty for `axl-tracepoints`: the join has them). */
  frameInodes: Set<number>;
  /** Where `frameInodes` came from. */
  frameInodesFrom: string;
  /** The importer's use of dma-bufs (kprobes only). */
  use?: DeviceUse;
}

/**
 * Picks the evidence source of a run.
 *
 * @example
 * ```ts
 * import { selectEvidence } from "./source.ts";
 * const e = selectEvidence({
 *   mode: "generic",
 *   importer: { name: "vgem", axl: false, reason: "--importer" },
 *   axlEvents: true,
 *   probes: { unavailable: "no kprobe events" },
 *   dmabuf: undefined,
 *   bufinfo: { unavailable: "no debugfs" },
 *   workloadInodes: new Set(),
 * });
 * console.log(e.source); // "none"
 * console.log(e.passedOver.length); // 3
 * ```
 */
export function selectEvidence(i: SourceInputs): FrameEvidence {
  const passedOver: string[] = [];
  const base = { importer: i.importer, passedOver, frameInodes: new Set<number>() };
  if (i.mode === "generic") passedOver.push("axl-tracepoints: ignored (--evidence generic)");
  else if (!i.axlEvents) passedOver.push("axl-tracepoints: not in tracefs (axl.ko not loaded)");
  else if (!i.importer.axl && i.mode === "auto") {
    passedOver.push(`axl-tracepoints: the importer ${i.importer.name} is not the axl device`);
  } else {
    return { ...base, source: "axl-tracepoints", frameInodesFrom: "axl_dmabuf_import" };
  }
  if (i.mode === "axl") {
    return { ...base, source: "axl-tracepoints", frameInodesFrom: "axl_dmabuf_import" };
  }
  const name = i.importer.name;
  if (name === null) {
    passedOver.push("kprobes, bufinfo: the importing device is unknown (pass --importer DEV)");
    return { ...base, source: "none", frameInodesFrom: "nothing" };
  }
  if (!i.probes || "unavailable" in i.probes) {
    passedOver.push(`kprobes: ${i.probes ? i.probes.unavailable : "not defined in this capture"}`);
  } else {
    return { ...base, ...probeFrames(i, name, i.probes.inode) };
  }
  if ("unavailable" in i.bufinfo) {
    passedOver.push(`bufinfo: ${i.bufinfo.unavailable}`);
    return { ...base, source: "none", frameInodesFrom: "nothing" };
  }
  return {
    ...base,
    source: "bufinfo",
    frameInodes: new Set(attachedTo(i.bufinfo, name)),
    frameInodesFrom: `bufinfo buffers with ${name} attached`,
  };
}

/** The frames of the kprobes source: inodes the importer mapped, else bufinfo's. */
function probeFrames(
  i: SourceInputs,
  name: string,
  inodes: boolean,
): Pick<FrameEvidence, "source" | "frameInodes" | "frameInodesFrom" | "use"> {
  const use = i.dmabuf?.devices.get(name);
  const workload = i.workloadInodes.size > 0;
  const mapped = use && inodes
    ? [...use.mapsByInode.keys()].filter((x) => !workload || i.workloadInodes.has(x))
    : [];
  const withUse = use ? { use } : {};
  if (mapped.length > 0) {
    return {
      source: "kprobes",
      frameInodes: new Set(mapped),
      frameInodesFrom: `inodes ${name} mapped (kprobes${
        workload ? ", the workload's frames" : ""
      })`,
      ...withUse,
    };
  }
  const why = !inodes ? "the probes carry no inode" : !use ? `${name} mapped nothing` : undefined;
  if (why) {
    return {
      source: "kprobes",
      frameInodes: new Set(attachedTo(i.bufinfo, name)),
      frameInodesFrom: `bufinfo buffers with ${name} attached (${why})`,
      ...withUse,
    };
  }
  return {
    source: "kprobes",
    frameInodes: new Set(),
    frameInodesFrom: `inodes ${name} mapped that are the workload's frames (none)`,
    ...withUse,
  };
}

/** Inodes bufinfo ever showed with `device` attached. */
function attachedTo(bufinfo: BufinfoSummary | { unavailable: string }, device: string): number[] {
  if ("unavailable" in bufinfo) return [];
  return [...bufinfo.inodes.values()]
    .filter((o) => o.inode >= 0 && o.devicesSeen.includes(device))
    .map((o) => o.inode);
}
