/**
 * Folding debugfs `dma_buf/bufinfo` samples into per-inode observations: the evidence for
 * "some frame had two devices attached" (I1). Pure: the sampler in `../capture/` reads.
 *
 * @module
 */
import { type BufinfoSnapshot, parseBufinfo } from "./bufinfo.ts";
import { ParseError } from "./parse_error.ts";
import { type LineSource, readLines } from "./lines.ts";

/** What was seen of one dma-buf inode over all samples. */
export interface InodeObservation {
  /** The buffer's inode; `-line` for a buffer listed without one. */
  inode: number;
  /** Exporter name as bufinfo prints it (the heap or driver). */
  exporter: string;
  /** Buffer name (`DMA_BUF_SET_NAME`), the last non-empty one seen. */
  name: string;
  /** Size in bytes. */
  size: number;
  /** Most distinct devices attached at once in one sample. */
  maxDevices: number;
  /** Attached device names at that sample. */
  devicesAtMax: string[];
  /** Every device name ever seen attached. */
  devicesSeen: string[];
  /** Samples that listed the buffer. */
  samples: number;
  /** Samples in which it had at least two distinct devices attached. */
  multiAttachSamples: number;
  /** Time of the first sample that listed it (ms, the sampler's clock). */
  firstSeenMs: number;
  /** Time of the last sample that listed it (ms, the sampler's clock). */
  lastSeenMs: number;
}

/** Everything a sampling run saw. */
export interface BufinfoSummary {
  /** Samples taken. */
  samples: number;
  /** Per inode (buffers without an inode column are keyed by `-line`, never merged). */
  inodes: Map<number, InodeObservation>;
  /** Errors reading or parsing a sample (the sample is skipped, the error kept). */
  errors: string[];
  /**
   * The devices attached to each inode in the first sample, one entry per attachment (absent
   * before a sample is folded): what was attached before events were recorded.
   */
  atStart?: Map<number, string[]>;
}

/**
 * An empty summary to fold samples into with {@linkcode addSample}.
 *
 * @example
 * ```ts
 * import { emptySummary } from "./bufinfo_summary.ts";
 * console.log(emptySummary().samples); // 0
 * ```
 */
export function emptySummary(): BufinfoSummary {
  return { samples: 0, inodes: new Map(), errors: [] };
}

/**
 * Folds one snapshot taken at `atMs` into `summary` (mutates and returns it).
 *
 * @example
 * ```ts
 * import { addSample, emptySummary } from "./bufinfo_summary.ts";
 * const s = addSample(emptySummary(), {
 *   buffers: [{ size: 4096, flags: 2, mode: 7, count: 3, exporter: "system", inode: 9,
 *     name: "", devices: ["vgem", "0000:00:03.0"], fences: [], line: 3 }],
 * }, 0);
 * console.log(s.inodes.get(9)?.maxDevices); // 2
 * ```
 */
export function addSample(
  summary: BufinfoSummary,
  snap: BufinfoSnapshot,
  atMs: number,
): BufinfoSummary {
  if (summary.samples === 0) {
    summary.atStart = new Map(
      snap.buffers.flatMap((b) => b.inode === undefined ? [] : [[b.inode, [...b.devices]]]),
    );
  }
  summary.samples++;
  for (const b of snap.buffers) {
    const key = b.inode ?? -b.line;
    let o = summary.inodes.get(key);
    if (!o) {
      o = {
        inode: key,
        exporter: b.exporter,
        name: b.name,
        size: b.size,
        maxDevices: 0,
        devicesAtMax: [],
        devicesSeen: [],
        samples: 0,
        multiAttachSamples: 0,
        firstSeenMs: atMs,
        lastSeenMs: atMs,
      };
      summary.inodes.set(key, o);
    }
    o.samples++;
    o.lastSeenMs = atMs;
    if (b.name) o.name = b.name;
    // One device attached twice to the same buffer is one device.
    const distinct = [...new Set(b.devices)];
    if (distinct.length >= 2) o.multiAttachSamples++;
    if (distinct.length > o.maxDevices) {
      o.maxDevices = distinct.length;
      o.devicesAtMax = distinct;
    }
    for (const d of b.devices) if (!o.devicesSeen.includes(d)) o.devicesSeen.push(d);
  }
  return summary;
}

/**
 * Folds a file of samples written by `BufinfoSampler` (or any text of
 * `### sample N <time>` headers each followed by a bufinfo dump) into a summary. The time is
 * taken as ms; a fractional time (seconds of uptime) is converted to ms.
 *
 * @example
 * ```ts
 * import { parseBufinfoSamples } from "./bufinfo_summary.ts";
 * const s = await parseBufinfoSamples(["### sample 0 7.75\n\nDma-buf Objects:\n"]);
 * console.log(s.samples); // 1
 * ```
 */
export async function parseBufinfoSamples(
  source: LineSource,
  name = "bufinfo samples",
): Promise<BufinfoSummary> {
  const summary = emptySummary();
  let body: string[] = [];
  let at = 0;
  let startLine = 0;
  const flush = () => {
    if (startLine === 0) return;
    addSample(summary, parseBufinfo(body.join("\n"), name, startLine + 1), at);
  };
  for await (const { text, line } of readLines(source)) {
    const m = /^### sample (\d+) (\d+(?:\.\d+)?)\s*$/.exec(text);
    if (m) {
      flush();
      body = [];
      startLine = line;
      at = m[2]!.includes(".") ? Number(m[2]) * 1000 : Number(m[2]);
      continue;
    }
    if (startLine === 0) {
      if (text.trim() === "") continue;
      throw new ParseError("expected '### sample N <time>' first", { source: name, line, text });
    }
    body.push(text);
  }
  flush();
  return summary;
}
