/**
 * Parses what the GStreamer tracer `axlpads` (`ffi/src/gst/axl_gst_pads.c`) wrote: per pad,
 * the memory every buffer it pushed travelled in. Lines are words of `key=value` (a `caps`
 * line's caps run to the end of the line); a line this parser does not know is counted, never
 * fatal, so an older parser reads a newer tracer's file.
 *
 * @module
 */

/** The memory of one GstMemory of a pushed buffer. */
export type PadMemory =
  /** A dma-buf (GstDmaBufMemory, or fd memory whose fd is a dma-buf). */
  | { kind: "dmabuf"; inode: number }
  /** An NVMM surface whose `bufferDesc` is this dma-buf. */
  | { kind: "nvmm"; inode: number }
  /** An NVMM batch whose memType carries no dma-buf (CUDA or malloc memory). */
  | { kind: "nvmm-nofd"; memType: number }
  /** An NVMM buffer whose NvBufSurface could not be read. */
  | { kind: "nvmm-bad"; reason: string }
  /** System memory, named by its allocator's memory type (e.g. `SystemMemory`). */
  | { kind: "sys"; memType: string }
  /** A buffer with no memory at all (a gap). */
  | { kind: "none" };

/** One pad that pushed buffers. */
export interface PadRecord {
  /** The process that pushed. */
  pid: number;
  /** `element:pad`, e.g. `videoconvert0:src`. */
  pad: string;
  element: string;
  /** The element's factory, e.g. `videoconvert`. */
  factory: string;
  /** The pad it pushes into, `element:pad` (`?:?` when unlinked). */
  peer: string;
  /** Its caps, in the order they were set. */
  caps: string[];
  /** Buffers pushed (the highest sequence number seen). */
  buffers: number;
  /** Buffer lines written (the tracer writes every buffer up to its cap). */
  lines: number;
  /** Per memory token (`dmabuf:123`, `sys:SystemMemory`, …): buffers that carried it. */
  memory: Map<string, number>;
  /** Buffers with at least one memory that is not a dma-buf or an NVMM dma-buf. */
  notDmabuf: number;
  /** Inodes of the dma-bufs (plain or NVMM) it pushed. */
  inodes: Set<number>;
  /** The first buffer line's memories, for the report. */
  first: PadMemory[];
  /** Monotonic ns of its first buffer. */
  firstNs: number;
}

/** A dma-buf the tracer described once. */
export interface PadDmaBuf {
  inode: number;
  exporter: string;
  size: number;
}

/** Everything in one tracer file. */
export interface GstPadsLog {
  /** Processes that loaded the tracer (GStreamer's plugin scanner is one of them). */
  pids: number[];
  /** Pads that pushed, in the order they first pushed, keyed `pid/element:pad`. */
  pads: Map<string, PadRecord>;
  /** Dma-bufs by inode. */
  dmabufs: Map<number, PadDmaBuf>;
  /** Lines not understood. */
  unparsed: number;
}

/** `m=` token → memory. */
export function parsePadMemory(token: string): PadMemory {
  const colon = token.indexOf(":");
  const kind = colon < 0 ? token : token.slice(0, colon);
  const detail = colon < 0 ? "" : token.slice(colon + 1);
  switch (kind) {
    case "dmabuf":
    case "nvmm":
      return { kind, inode: Number(detail) };
    case "nvmm-nofd":
      return { kind, memType: Number(detail) };
    case "nvmm-bad":
      return { kind, reason: detail };
    case "sys":
      return { kind, memType: detail };
    default:
      return { kind: "none" };
  }
}

/** Whether a memory is a dma-buf the next element can import (plain or an NVMM surface's). */
export function isDmaBufMemory(m: PadMemory): m is { kind: "dmabuf" | "nvmm"; inode: number } {
  return m.kind === "dmabuf" || m.kind === "nvmm";
}

function fields(words: string[]): Map<string, string> {
  const out = new Map<string, string>();
  for (const w of words) {
    const eq = w.indexOf("=");
    if (eq > 0) out.set(w.slice(0, eq), w.slice(eq + 1));
  }
  return out;
}

function padOf(log: GstPadsLog, pid: number, pad: string): PadRecord {
  const key = `${pid}/${pad}`;
  let rec = log.pads.get(key);
  if (!rec) {
    const element = pad.slice(0, pad.lastIndexOf(":"));
    rec = {
      pid,
      pad,
      element,
      factory: "?",
      peer: "?:?",
      caps: [],
      buffers: 0,
      lines: 0,
      memory: new Map(),
      notDmabuf: 0,
      inodes: new Set(),
      first: [],
      firstNs: 0,
    };
    log.pads.set(key, rec);
  }
  return rec;
}

/**
 * Parses a tracer file's text.
 *
 * @example
 * ```ts
 * import { parseGstPads } from "./gst_pads.ts";
 * import { strictEqual } from "node:assert/strict";
 * const log = parseGstPads([
 *   "axlpads version=1 pid=7",
 *   "pad pid=7 pad=v4l2src0:src element=v4l2src0 factory=v4l2src peer=videoconvert0:sink",
 *   "dmabuf pid=7 ino=42 exp=videobuf2_dma_contig size=614400",
 *   "buf pid=7 pad=v4l2src0:src n=1 t=100 m=dmabuf:42",
 * ].join("\n"));
 * strictEqual(log.pads.get("7/v4l2src0:src")!.inodes.has(42), true);
 * strictEqual(log.dmabufs.get(42)!.exporter, "videobuf2_dma_contig");
 * ```
 */
export function parseGstPads(text: string): GstPadsLog {
  const log: GstPadsLog = { pids: [], pads: new Map(), dmabufs: new Map(), unparsed: 0 };
  for (const line of text.split("\n")) {
    if (line === "") continue;
    const sp = line.indexOf(" ");
    const kind = sp < 0 ? line : line.slice(0, sp);
    if (kind === "caps") {
      const at = line.indexOf(" caps=");
      const f = fields(line.slice(0, at < 0 ? line.length : at).split(" "));
      const pid = Number(f.get("pid")), pad = f.get("pad");
      if (at < 0 || !pad || !Number.isInteger(pid)) {
        log.unparsed++;
        continue;
      }
      padOf(log, pid, pad).caps.push(line.slice(at + 6));
      continue;
    }
    const words = line.split(" ");
    const f = fields(words);
    const pid = Number(f.get("pid"));
    if (!Number.isInteger(pid)) {
      log.unparsed++;
      continue;
    }
    if (kind === "axlpads") {
      if (!log.pids.includes(pid)) log.pids.push(pid);
    } else if (kind === "pad" && f.has("pad")) {
      const rec = padOf(log, pid, f.get("pad")!);
      rec.element = f.get("element") ?? rec.element;
      rec.factory = f.get("factory") ?? rec.factory;
      rec.peer = f.get("peer") ?? rec.peer;
    } else if (kind === "dmabuf" && f.has("ino")) {
      const inode = Number(f.get("ino"));
      log.dmabufs.set(inode, {
        inode,
        exporter: f.get("exp") ?? "?",
        size: Number(f.get("size") ?? 0),
      });
    } else if (kind === "buf" && f.has("pad")) {
      bufferLine(padOf(log, pid, f.get("pad")!), f, words);
    } else {
      log.unparsed++;
    }
  }
  return log;
}

function bufferLine(rec: PadRecord, f: Map<string, string>, words: string[]): void {
  const memories = words.filter((w) => w.startsWith("m=")).map((w) => w.slice(2));
  const parsed = memories.map(parsePadMemory);
  const n = Number(f.get("n"));
  if (rec.lines === 0) {
    rec.first = parsed;
    rec.firstNs = Number(f.get("t") ?? 0);
  }
  rec.lines++;
  rec.buffers = Number.isInteger(n) ? Math.max(rec.buffers, n) : rec.buffers + 1;
  for (const token of new Set(memories)) rec.memory.set(token, (rec.memory.get(token) ?? 0) + 1);
  if (parsed.length === 0 || !parsed.every(isDmaBufMemory)) rec.notDmabuf++;
  for (const m of parsed) if (isDmaBufMemory(m)) rec.inodes.add(m.inode);
}
