/**
 * Where a GStreamer pipeline's frames leave the camera's dma-buf memory, from the tracer's
 * per-pad record (`../trace/parse/gst_pads.ts`): the pipeline is followed from its source
 * pads downstream, pad by pad through the links the tracer saw; the camera's buffers are the
 * dma-bufs (plain or NVMM surfaces') its source pushed, and the first pad that pushes a buffer
 * in anything else (system memory, a dma-buf that is not the camera's, an NVMM surface without
 * one) is where the zero-copy chain breaks. That element did work on the CPU (or on some
 * other engine) and put its output in new memory: `videoconvert0:src pushed system memory`.
 *
 * The verdict is the result's `pipeline` section; a FAIL there makes the run FAIL.
 *
 * @module
 */
import {
  type GstPadsLog,
  type PadMemory,
  type PadRecord,
  parsePadMemory,
} from "../trace/parse/gst_pads.ts";
import type { PipelineSection } from "./pipeline_schema.ts";
import type { VerifyResult } from "./schema.ts";

/**
 * A pad's memory in words for people: `system memory (SystemMemory)`, `a dma-buf (inode 3,
 * not the camera's, exported by vkms)`. `camera` marks the camera's inodes; `exporterOf` names
 * the exporter of an inode that is not the camera's.
 */
export function describeMemory(
  m: PadMemory,
  camera?: ReadonlySet<number>,
  exporterOf?: (inode: number) => string | undefined,
): string {
  switch (m.kind) {
    case "dmabuf":
    case "nvmm": {
      const what = m.kind === "nvmm" ? "an NVMM surface's dma-buf" : "a dma-buf";
      const exporter = exporterOf?.(m.inode);
      const whose = !camera
        ? ""
        : camera.has(m.inode)
        ? ", the camera's"
        : `, not the camera's${exporter ? `, exported by ${exporter}` : ""}`;
      return `${what} (inode ${m.inode}${whose})`;
    }
    case "nvmm-nofd":
      return `NVMM memory with no dma-buf (NvBufSurface memType ${m.memType})`;
    case "nvmm-bad":
      return `an NVMM buffer whose NvBufSurface could not be read (${m.reason})`;
    case "sys":
      return `system memory (${m.memType})`;
    case "none":
      return "a buffer with no memory";
  }
}

/** The pads of the process that pushed the most buffers, in pipeline order from the sources. */
function pipelineOrder(log: GstPadsLog): { pads: PadRecord[]; sinks: string[] } {
  const byPid = new Map<number, PadRecord[]>();
  for (const p of log.pads.values()) byPid.set(p.pid, [...(byPid.get(p.pid) ?? []), p]);
  const pads =
    [...byPid.values()].sort((a, b) =>
      b.reduce((n, p) => n + p.lines, 0) - a.reduce((n, p) => n + p.lines, 0)
    )[0] ?? [];
  const elementOf = (padName: string) => padName.slice(0, padName.lastIndexOf(":"));
  const downstream = new Set(pads.map((p) => elementOf(p.peer)));
  const sources = pads.filter((p) => !downstream.has(p.element));
  const order: PadRecord[] = [];
  const seen = new Set<PadRecord>();
  const queue = [...sources];
  while (queue.length > 0) {
    const pad = queue.shift()!;
    if (seen.has(pad)) continue;
    seen.add(pad);
    order.push(pad);
    queue.push(...pads.filter((p) => p.element === elementOf(pad.peer)));
  }
  // Pads no source reaches (e.g. a loop the tracer saw only partly) keep their push order.
  for (const p of pads) if (!seen.has(p)) order.push(p);
  const pushing = new Set(pads.map((p) => p.element));
  const sinks = [
    ...new Set(pads.map((p) => elementOf(p.peer)).filter((e) => e !== "?" && !pushing.has(e))),
  ];
  return { pads: order, sinks };
}

/** The memory of a pad that is not the camera's dma-buf, or undefined when all of it is. */
function offending(pad: PadRecord, camera: ReadonlySet<number>): PadMemory | undefined {
  for (const token of pad.memory.keys()) {
    const m = parsePadMemory(token);
    if ((m.kind === "dmabuf" || m.kind === "nvmm") && camera.has(m.inode)) continue;
    return m;
  }
  return undefined;
}

/** How many of a pad's buffers carried memory other than the camera's dma-bufs. */
function offendingBuffers(pad: PadRecord, camera: ReadonlySet<number>): number {
  let n = 0;
  for (const [token, count] of pad.memory) {
    const m = parsePadMemory(token);
    if ((m.kind === "dmabuf" || m.kind === "nvmm") && camera.has(m.inode)) continue;
    n += count;
  }
  return Math.min(n, pad.lines);
}

/**
 * Judges the tracer's record of a pipeline.
 *
 * @example
 * ```ts
 * import { judgePipeline } from "./pipeline.ts";
 * import { parseGstPads } from "../trace/parse/gst_pads.ts";
 * import { strictEqual } from "node:assert/strict";
 * const s = judgePipeline(parseGstPads([
 *   "pad pid=1 pad=v4l2src0:src element=v4l2src0 factory=v4l2src peer=videoconvert0:sink",
 *   "pad pid=1 pad=videoconvert0:src element=videoconvert0 factory=videoconvert peer=fakesink0:sink",
 *   "buf pid=1 pad=v4l2src0:src n=1 t=1 m=dmabuf:42",
 *   "buf pid=1 pad=videoconvert0:src n=1 t=2 m=sys:SystemMemory",
 * ].join("\n")));
 * strictEqual(s.status, "FAIL");
 * strictEqual(s.broke_at!.pad, "videoconvert0:src");
 * strictEqual(s.summary.startsWith("videoconvert0:src pushed system memory"), true);
 * ```
 */
export function judgePipeline(log: GstPadsLog): PipelineSection {
  const { pads, sinks } = pipelineOrder(log);
  const downstream = new Set(pads.map((p) => p.peer.slice(0, p.peer.lastIndexOf(":"))));
  const sources = pads.filter((p) => !downstream.has(p.element));
  const camera = new Set(sources.flatMap((p) => [...p.inodes]));
  const exporters = [...new Set([...camera].map((i) => log.dmabufs.get(i)?.exporter ?? "?"))];
  let broke: { pad: PadRecord; memory: PadMemory } | undefined;
  for (const pad of pads) {
    const m = offending(pad, camera);
    if (m) {
      broke = { pad, memory: m };
      break;
    }
  }
  const exporterOf = (inode: number) => log.dmabufs.get(inode)?.exporter;
  const rows = pads.map((p) => padRow(p, camera, broke?.pad === p, exporterOf));
  const drawing = [
    ...pads.filter((p, i) => pads.findIndex((q) => q.element === p.element) === i)
      .map((p) => (p === broke?.pad ? `[${p.element} ✗ ${kindWord(broke.memory)}]` : p.element)),
    ...sinks,
  ]
    .join(" ! ");
  const base = {
    source: "gst-tracer" as const,
    camera: sources.length === 0 ? null : {
      pads: sources.map((p) => p.pad),
      factories: [...new Set(sources.map((p) => p.factory))],
      dmabufs: camera.size,
      exporters: camera.size === 0 ? [] : exporters,
    },
    pads: rows,
    sinks,
    drawing,
  };
  if (pads.length === 0) {
    return {
      ...base,
      status: "INCONCLUSIVE",
      summary: "the GStreamer tracer was loaded but no pad pushed a buffer",
      broke_at: null,
    };
  }
  if (broke) {
    const what = describeMemory(broke.memory, camera, exporterOf);
    const isSource = sources.includes(broke.pad);
    return {
      ...base,
      status: "FAIL",
      summary: `${broke.pad.pad} pushed ${what}` +
        (isSource
          ? ": the source's own output is not a dma-buf, so no element downstream can import it"
          : `: ${broke.pad.element} (${broke.pad.factory}) is the first element whose output is ` +
            `no longer the camera's dma-buf (${camera.size} buffers of ${exporters.join(", ")})`),
      broke_at: {
        pad: broke.pad.pad,
        element: broke.pad.element,
        factory: broke.pad.factory,
        memory: what,
        buffers: offendingBuffers(broke.pad, camera),
        of: broke.pad.lines,
      },
    };
  }
  return {
    ...base,
    status: "PASS",
    summary: `every pad from ${sources.map((p) => p.pad).join(", ")} to ${
      sinks.join(", ") || "the sink"
    } pushed the camera's dma-bufs (${camera.size} buffers of ${exporters.join(", ")})`,
    broke_at: null,
  };
}

function kindWord(m: PadMemory): string {
  return m.kind === "sys"
    ? "system memory"
    : m.kind.startsWith("nvmm")
    ? "NVMM without the camera's dma-buf"
    : "another dma-buf";
}

function padRow(
  p: PadRecord,
  camera: ReadonlySet<number>,
  marked: boolean,
  exporterOf: (inode: number) => string | undefined,
) {
  const first = p.first[0];
  return {
    pad: p.pad,
    element: p.element,
    factory: p.factory,
    peer: p.peer,
    caps: p.caps.at(-1) ?? null,
    buffers: p.buffers,
    memory: first ? describeMemory(first, camera, exporterOf) : "no memory",
    camera_dmabuf: offending(p, camera) === undefined,
    marked,
  };
}

/**
 * The pipeline verdict added to a result: the `pipeline` section, and a FAIL there makes the
 * run FAIL (`pass` false). An INCONCLUSIVE section leaves the invariants' status alone.
 *
 * @example
 * ```ts ignore
 * import { withPipeline } from "./pipeline.ts";
 * const judged = withPipeline(result, judgePipeline(log));
 * ```
 */
export function withPipeline(result: VerifyResult, section: PipelineSection): VerifyResult {
  result.axl.pipeline = section;
  if (section.status === "FAIL") {
    result.axl.status = "FAIL";
    result.pass = false;
  }
  return result;
}

/**
 * The pipeline as lines for the text summary: the verdict, the pipeline drawn with the
 * breaking element marked, then each pad and its memory.
 *
 * @example
 * ```ts ignore
 * console.log(pipelineLines(result.axl.pipeline!).join("\n"));
 * ```
 */
export function pipelineLines(s: PipelineSection): string[] {
  const width = Math.max(0, ...s.pads.map((p) => p.pad.length));
  return [
    `pipeline ${s.status}: ${s.summary}`,
    `  ${s.drawing}`,
    ...s.pads.map((p) =>
      `  ${p.marked ? "✗" : " "} ${p.pad.padEnd(width)}  ${p.buffers} buffers, ${p.memory}`
    ),
  ];
}
