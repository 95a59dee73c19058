/**
 * Where the camera → card chain of buffers held or broke, from evidence verify captures
 * anyway: which buffers the camera filled (attached by a V4L2 device the workload had open in
 * bufinfo or the dma-buf probe events, or exported by videobuf2), which buffers the card
 * imported (mapped by the importer in the probe events, or attached to it in bufinfo), their
 * exporters, whether they are the same buffers, and which process mapped the camera's buffers
 * and the card's on the CPU (/proc/PID/maps), with the CPU time perf saw in the workload.
 *
 * A client that transforms each camera frame on the CPU into a buffer of its own (a colour
 * convert, a resize, a normalise: per-pixel loops, not `memcpy`) passes no copy routine to
 * I4; this section still names the break: the card imported buffers no camera filled, and one
 * process mapped both. It is information beside the invariants and changes no verdict.
 *
 * @module
 */
import type { BufinfoSummary, InodeObservation } from "../trace/parse/bufinfo_summary.ts";
import type { DmaBufMapRef } from "../trace/parse/dmabuf_maps.ts";
import type { PerfSummary } from "../trace/parse/perf_script.ts";
import type { DmabufProbeFacts } from "./evidence/dmabuf_probes.ts";
import type { NvmapFacts } from "./evidence/nvmap_events.ts";
import type { Chain, ChainBuffer, ChainCpuTouch, ChainProcess } from "./chain_schema.ts";
import { round } from "./_invariant.ts";

/** Everything the chain is read from. */
export interface ChainInput {
  /** The importing device as bufinfo names it; null when none was chosen. */
  importer: string | null;
  /** The bufinfo samples, or why there are none. */
  bufinfo: BufinfoSummary | { unavailable: string };
  /** The dma-buf probe events folded per device, when the capture had them. */
  probes?: DmabufProbeFacts;
  /** Map refs of dma-bufs in the workload's processes (/proc/PID/maps). */
  mapRefs: ReadonlyArray<{ pid: number } & DmaBufMapRef>;
  /** The devices owning the V4L2 nodes the workload had open (`vivid.0`, a PCI address). */
  cameraDevices: readonly string[];
  /** The workload: its kind, its command line and its processes. */
  workload: { kind: string; description: string; pids: readonly number[] };
  /** perf's summary of the workload's processes, when perf ran. */
  perf?: PerfSummary;
  /** Symbols at or above this self share (percent) are listed (default 1). */
  hotThresholdPercent?: number;
  /** nvmap's events folded, when the capture had them: their CPU touches join the section. */
  nvmap?: NvmapFacts;
}

/** Symbols listed at most in `hot`. */
const HOT_SYMBOLS = 5;

/**
 * Builds the chain section.
 *
 * @example The card imported a buffer no camera filled; one process mapped both
 * ```ts
 * import { analyzeChain } from "./chain.ts";
 * const obs = (inode: number, exporter: string, name: string, devices: string[]) => ({
 *   inode, exporter, name, size: 4096, maxDevices: devices.length, devicesAtMax: devices,
 *   devicesSeen: devices, samples: 1, multiAttachSamples: 0, firstSeenMs: 0, lastSeenMs: 0,
 * });
 * const ref = (inode: number, perms: string) =>
 *   ({ pid: 7, start: "0", end: "1000", bytes: 4096, perms, inode, name: "" });
 * const chain = analyzeChain({
 *   importer: "0000:00:02.0",
 *   bufinfo: { samples: 1, errors: [], inodes: new Map([
 *     [1, obs(1, "system", "cam-0", ["vivid.0"])],
 *     [2, obs(2, "system", "pool-0", ["0000:00:02.0"])],
 *   ]) },
 *   mapRefs: [ref(1, "r--s"), ref(2, "rw-s")],
 *   cameraDevices: ["vivid.0"],
 *   workload: { kind: "command", description: "/usr/bin/client --x", pids: [7] },
 * });
 * console.log(chain.status); // "broken"
 * console.log(chain.between[0]?.comm); // "client"
 * ```
 */
export function analyzeChain(input: ChainInput): Chain {
  const seen = input.bufinfo && "inodes" in input.bufinfo ? input.bufinfo.inodes : new Map();
  const v4l2 = [...new Set(input.cameraDevices)].sort();
  const cameraDevices = v4l2.length ? v4l2 : otherDevices(seen, input.probes, input.importer);
  const camera = cameraInodes(seen, input.probes, cameraDevices);
  const { inodes: card, from } = cardInodes(seen, input.probes, input.importer);
  const shared = [...card].filter((i) => camera.has(i)).sort((a, b) => a - b);
  const between = processesBetween(input, camera, card);
  const describe = (i: number) => bufferOf(i, seen.get(i), input.mapRefs);
  const chain: Chain = {
    status: "unknown",
    summary: "",
    camera: {
      devices: cameraDevices,
      devices_from: v4l2.length ? "v4l2" : "attachments",
      buffers: sorted(camera).map(describe),
    },
    card: { device: input.importer, buffers: sorted(card).map(describe), from },
    shared,
    between,
    hot: between.some((p) => p.camera.length > 0) ? hotSymbols(input) : [],
    ...(input.nvmap
      ? { cpu_touches: cpuTouches(input.nvmap, input.workload.pids, new Set([...camera, ...card])) }
      : {}),
  };
  chain.status = statusOf(chain);
  chain.summary = summarize(chain);
  return chain;
}

/** The workload's CPU touches of nvmap buffers, those of the chain's buffers first. */
function cpuTouches(
  nvmap: NvmapFacts,
  pids: readonly number[],
  chain: Set<number>,
): ChainCpuTouch[] {
  const mine = new Set(pids);
  return nvmap.cpuTouches()
    .filter((t) => t.pid !== undefined && mine.has(t.pid))
    .map((t) => ({
      pid: t.pid!,
      kind: t.kind,
      ...(t.inode !== undefined ? { inode: t.inode } : {}),
      in_chain: t.inode !== undefined && chain.has(t.inode),
      count: t.count,
    }))
    .sort((a, b) =>
      Number(b.in_chain) - Number(a.in_chain) || a.pid - b.pid || (a.inode ?? 0) - (b.inode ?? 0) ||
      a.kind.localeCompare(b.kind)
    );
}

function sorted(s: Set<number>): number[] {
  return [...s].sort((a, b) => a - b);
}

/**
 * Without the workload's V4L2 nodes (a capture that did not record them, a camera run by
 * another process): every device but the importer seen attaching or mapping a buffer.
 */
function otherDevices(
  seen: Map<number, InodeObservation>,
  probes: DmabufProbeFacts | undefined,
  importer: string | null,
): string[] {
  const out = new Set<string>();
  for (const o of seen.values()) for (const d of o.devicesSeen) out.add(d);
  for (const [d, use] of probes?.devices ?? []) if (use.maps > 0) out.add(d);
  if (importer !== null) out.delete(importer);
  return [...out].sort();
}

/** Buffers a camera device attached or mapped, and buffers videobuf2 exported. */
function cameraInodes(
  seen: Map<number, InodeObservation>,
  probes: DmabufProbeFacts | undefined,
  devices: readonly string[],
): Set<number> {
  const out = new Set<number>();
  for (const o of seen.values()) {
    if (!Number.isInteger(o.inode) || o.inode < 0) continue;
    if (o.exporter.startsWith("videobuf2") || o.devicesSeen.some((d) => devices.includes(d))) {
      out.add(o.inode);
    }
  }
  for (const d of devices) {
    for (const i of probes?.devices.get(d)?.mapsByInode.keys() ?? []) out.add(i);
  }
  return out;
}

/** Buffers the importer mapped (probe events) or had attached (bufinfo). */
function cardInodes(
  seen: Map<number, InodeObservation>,
  probes: DmabufProbeFacts | undefined,
  importer: string | null,
): { inodes: Set<number>; from: string[] } {
  const inodes = new Set<number>();
  const from: string[] = [];
  if (importer === null) return { inodes, from };
  const mapped = probes?.devices.get(importer)?.mapsByInode;
  if (mapped?.size) {
    from.push("kprobes");
    for (const i of mapped.keys()) inodes.add(i);
  }
  let attached = false;
  for (const o of seen.values()) {
    if (Number.isInteger(o.inode) && o.inode >= 0 && o.devicesSeen.includes(importer)) {
      inodes.add(o.inode);
      attached = true;
    }
  }
  if (attached) from.push("bufinfo");
  return { inodes, from };
}

function bufferOf(
  inode: number,
  o: InodeObservation | undefined,
  refs: ChainInput["mapRefs"],
): ChainBuffer {
  if (o) {
    return {
      inode,
      exporter: o.exporter,
      name: o.name,
      size: o.size,
      devices: [...o.devicesSeen].sort(),
    };
  }
  const ref = refs.find((r) => r.inode === inode);
  return { inode, exporter: "", name: ref?.name ?? "", devices: [] };
}

/** The workload's processes that mapped camera buffers or buffers only the card imported. */
function processesBetween(
  input: ChainInput,
  camera: Set<number>,
  card: Set<number>,
): ChainProcess[] {
  const by = new Map<number, { camera: Set<number>; card: Set<number>; writable: Set<number> }>();
  for (const r of input.mapRefs) {
    const onCamera = camera.has(r.inode);
    const cardOnly = card.has(r.inode) && !onCamera;
    if (!onCamera && !cardOnly) continue;
    let p = by.get(r.pid);
    if (!p) by.set(r.pid, p = { camera: new Set(), card: new Set(), writable: new Set() });
    if (onCamera) p.camera.add(r.inode);
    if (cardOnly) {
      p.card.add(r.inode);
      if (r.perms.includes("w")) p.writable.add(r.inode);
    }
  }
  return [...by].sort(([a], [b]) => a - b).map(([pid, p]) => ({
    pid,
    comm: processName(pid, input.workload),
    camera: sorted(p.camera),
    card: sorted(p.card),
    card_writable: sorted(p.writable),
  }));
}

/** The name of a workload's first process: its command's file name; `""` otherwise. */
function processName(pid: number, w: ChainInput["workload"]): string {
  if (pid !== w.pids[0]) return "";
  if (w.kind.startsWith("builtin")) return "axl verify (builtin workload)";
  if (w.kind !== "command") return "";
  const argv0 = w.description.trim().split(/\s+/)[0] ?? "";
  return argv0.slice(argv0.lastIndexOf("/") + 1);
}

/**
 * The workload's top self symbols at or above the threshold. The tiers of one JIT-compiled
 * function (V8's `JS:^f`, `JS:*f`, `JS:o*f`, each with its source location) are one entry,
 * named `f (JIT)`.
 */
function hotSymbols(input: ChainInput): Chain["hot"] {
  const threshold = input.hotThresholdPercent ?? 1;
  const by = new Map<string, Chain["hot"][number]>();
  for (const s of input.perf?.symbols ?? []) {
    const symbol = jitFunction(s.symbol) ?? s.symbol;
    // A runtime thread's copies (V8's platform workers) stay apart from the frames' copies.
    const key = `${symbol}\u0000${symbol === s.symbol ? s.dso : "jit"}\u0000${
      s.runtimeThread ?? ""
    }`;
    const e = by.get(key);
    if (e) {
      e.self_percent += s.selfPercent;
      e.samples += s.samples;
      continue;
    }
    by.set(key, {
      symbol,
      dso: s.dso,
      self_percent: s.selfPercent,
      samples: s.samples,
      ...(s.copyRoutine ? { copy_routine: s.copyRoutine } : {}),
      ...(s.runtimeThread ? { runtime_thread: s.runtimeThread } : {}),
    });
  }
  return [...by.values()]
    .filter((h) => h.self_percent >= threshold)
    .sort((a, b) => b.self_percent - a.self_percent)
    .slice(0, HOT_SYMBOLS)
    .map((h) => ({ ...h, self_percent: round(h.self_percent) }));
}

/**
 * `convertNv12ToRgb (JIT)` for V8's `JS:*'convertNv12ToRgb file:///x.ts:26:30`: the marks
 * before the name are its tier (`~` interpreted, `^` baseline, `+` Maglev, `*` TurboFan,
 * a leading `o` for on-stack replacement, `'` for a context-specialised function).
 */
function jitFunction(symbol: string): string | undefined {
  const m = /^JS:(?:o(?=[~^+*]))?[~^+*']*([A-Za-z_$#][\w$.#]*)/.exec(symbol);
  return m ? `${m[1]} (JIT)` : undefined;
}

/**
 * `broken` when the card imported no camera buffer; `partial` when it imported some, and a
 * process also mapped camera buffers and buffers only the card imported (a CPU path beside
 * the direct one); else `whole` (the card may import buffers of its own too, e.g. results).
 */
function statusOf(c: Chain): Chain["status"] {
  if (c.camera.buffers.length === 0 || c.card.buffers.length === 0) return "unknown";
  if (c.shared.length === 0) return "broken";
  return c.between.some((p) => p.camera.length > 0 && p.card.length > 0) ? "partial" : "whole";
}

/** `4 buffers exported by system (voyager-pool-0, …)`. */
function buffersPhrase(buffers: readonly ChainBuffer[]): string {
  const exporters = [...new Set(buffers.map((b) => b.exporter || "an unknown exporter"))];
  const names = buffers.map((b) => b.name).filter(Boolean);
  const shown = names.slice(0, 4).join(", ") + (names.length > 4 ? ", …" : "");
  return `${buffers.length} buffer${buffers.length === 1 ? "" : "s"} exported by ` +
    `${exporters.join(" and ")}${shown ? ` (${shown})` : ""}`;
}

function summarize(c: Chain): string {
  const card = c.card.device ?? "the card";
  const cams = c.camera.devices.length ? c.camera.devices.join(", ") : "videobuf2";
  switch (c.status) {
    case "unknown":
      if (c.card.buffers.length === 0) {
        return c.card.device === null
          ? "no importing device was chosen, so the card's buffers are unknown"
          : `no import by ${card} was seen (no map in the probe events, no attachment in bufinfo)`;
      }
      return `no camera buffer was seen (${
        c.camera.devices_from === "v4l2"
          ? "no buffer attached to a V4L2 device the workload had open"
          : "the workload had no V4L2 node open and no device but the card attached a buffer"
      }, none exported by videobuf2); ${card} imported ${buffersPhrase(c.card.buffers)}`;
    case "whole": {
      const camBufs = c.card.buffers.filter((b) => c.shared.includes(b.inode));
      const own = c.card.buffers.filter((b) => !c.shared.includes(b.inode));
      return `the card imported the camera's buffers: ${card} imported ` +
        `${buffersPhrase(camBufs)}, filled by ${cams}` +
        (own.length ? `; it also imported ${buffersPhrase(own)} that no camera filled` : "");
    }
    case "partial":
    case "broken": {
      const own = c.card.buffers.filter((b) => !c.shared.includes(b.inode));
      const head = c.status === "broken"
        ? `the card never imported a camera buffer: ${card} imported ${buffersPhrase(own)}`
        : `the card imported ${c.shared.length} camera buffer${c.shared.length === 1 ? "" : "s"} ` +
          `and ${buffersPhrase(own)} ` +
          "that no camera filled";
      return `${head}; ${cams} filled ${buffersPhrase(c.camera.buffers)}; ${betweenPhrase(c)}`;
    }
  }
}

function betweenPhrase(c: Chain): string {
  const p = c.between.find((x) => x.camera.length > 0 && x.card.length > 0) ??
    c.between.find((x) => x.camera.length > 0);
  if (!p) return "no process of the workload had a camera buffer mapped (/proc/PID/maps)";
  const who = `pid ${p.pid}${p.comm ? ` (${p.comm})` : ""}`;
  const n = c.camera.buffers.length;
  const cam = p.camera.length === n
    ? `each of the camera's ${n} buffers`
    : `${p.camera.length} of the camera's ${n} buffers`;
  const k = p.card.length, w = p.card_writable.length;
  const wrote = k === 0
    ? ", but none of the card's"
    : w === k
    ? ` and each of the card's ${k} writable`
    : ` and the card's ${k}${w ? ` (${w} of them writable)` : " (read-only)"}`;
  const named = c.hot.filter((h) => h.symbol !== "[unknown]").slice(0, 3);
  const hot = named.length
    ? `; top self symbols in the workload: ${
      named.map((h) =>
        `${h.symbol} ${h.self_percent}%${
          h.runtime_thread ? " (V8's own copy)" : h.copy_routine ? " (copy)" : ""
        }`
      )
        .join(", ")
    }`
    : "";
  return `${who} mapped ${cam}${wrote}${hot}`;
}
