/**
 * Sampling debugfs `dma_buf/bufinfo` while a workload runs, and folding the samples into
 * per-inode observations: the evidence for "some frame had two devices attached" (I1).
 *
 * @module
 */
import { type BufinfoSnapshot, parseBufinfo } from "../parse/bufinfo.ts";
import { ParseError } from "../parse/parse_error.ts";
import { type LineSource, readLines } from "../parse/lines.ts";

/** The default location of bufinfo. */
export const BUFINFO_PATH = "/sys/kernel/debug/dma_buf/bufinfo";

/** What was seen of one dma-buf inode over all samples. */
export interface InodeObservation {
  inode: number;
  exporter: string;
  name: string;
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
  /** Time of the first and last sample that listed it (ms, the sampler's clock). */
  firstSeenMs: number;
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
}

/**
 * An empty summary to fold samples into with {@linkcode addSample}.
 *
 * @example
 * ```ts
 * import { emptySummary } from "./bufinfo_sampler.ts";
 * if (emptySummary().samples !== 0) throw new Error();
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
 * import { addSample, emptySummary } from "./bufinfo_sampler.ts";
 * const s = addSample(emptySummary(), {
 *   buffers: [{ size: 4096, flags: 2, mode: 7, count: 3, exporter: "system", inode: 9,
 *     name: "", devices: ["vgem", "0000:00:03.0"], fences: [], line: 3 }],
 * }, 0);
 * if (s.inodes.get(9)?.maxDevices !== 2) throw new Error();
 * ```
 */
export function addSample(
  summary: BufinfoSummary,
  snap: BufinfoSnapshot,
  atMs: number,
): BufinfoSummary {
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

/** Options of {@linkcode BufinfoSampler}. */
export interface BufinfoSamplerOptions {
  /** bufinfo path; default {@linkcode BUFINFO_PATH}. */
  path?: string;
  /** Pause between samples in ms (default 20). */
  intervalMs?: number;
  /** Raw samples are appended here, each after a `### sample N <ms>` line. */
  rawOutput?: string;
}

/**
 * Reads bufinfo repeatedly until {@linkcode BufinfoSampler.stop} is called.
 *
 * @example
 * ```ts ignore
 * import { BufinfoSampler } from "./bufinfo_sampler.ts";
 * const sampler = new BufinfoSampler({ intervalMs: 10 });
 * sampler.start();
 * // ... run the workload ...
 * const summary = await sampler.stop();
 * console.log(summary.samples, [...summary.inodes.values()].filter((o) => o.maxDevices >= 2));
 * ```
 */
export class BufinfoSampler {
  #path: string;
  #interval: number;
  #raw: string | undefined;
  #summary = emptySummary();
  #running: Promise<void> | undefined;
  #stop = false;

  /** Checks the options; nothing is read until {@linkcode start}. */
  constructor(options: BufinfoSamplerOptions = {}) {
    const interval = options.intervalMs ?? 20;
    if (!Number.isFinite(interval) || interval < 0) {
      throw new RangeError(`BufinfoSampler: intervalMs must be >= 0, got ${interval}`);
    }
    this.#path = options.path ?? BUFINFO_PATH;
    this.#interval = interval;
    this.#raw = options.rawOutput;
  }

  /**
   * Fails with a clear message when bufinfo cannot be read (debugfs not mounted, not root).
   */
  async probe(): Promise<void> {
    try {
      await Deno.readTextFile(this.#path);
    } catch (e) {
      throw new Error(
        `cannot read ${this.#path} (${(e as Error).message}): mount debugfs ` +
          "(mount -t debugfs none /sys/kernel/debug) and run as root",
        { cause: e },
      );
    }
  }

  /** Starts sampling in the background; one sample is taken at once. */
  start(): void {
    if (this.#running) throw new Error("BufinfoSampler.start(): already started");
    this.#running = this.#loop();
  }

  /** Takes one more sample, stops, and returns the summary. Idempotent. */
  async stop(): Promise<BufinfoSummary> {
    this.#stop = true;
    if (this.#running) await this.#running;
    this.#running = undefined;
    return this.#summary;
  }

  /** The summary so far (live object). */
  get summary(): BufinfoSummary {
    return this.#summary;
  }

  async #loop(): Promise<void> {
    let n = 0;
    while (true) {
      const last = this.#stop;
      await this.#sampleOnce(n++);
      if (last) return;
      await new Promise((r) => setTimeout(r, this.#interval));
    }
  }

  async #sampleOnce(n: number): Promise<void> {
    const at = Date.now();
    let text: string;
    try {
      text = await Deno.readTextFile(this.#path);
    } catch (e) {
      this.#summary.errors.push(`sample ${n}: read ${this.#path}: ${(e as Error).message}`);
      return;
    }
    if (this.#raw) {
      await Deno.writeTextFile(this.#raw, `### sample ${n} ${at}\n${text}`, { append: true });
    }
    try {
      addSample(this.#summary, parseBufinfo(text, `${this.#path} (sample ${n})`), at);
    } catch (e) {
      this.#summary.errors.push((e as Error).message);
    }
  }
}

/**
 * Folds a file of samples written by {@linkcode BufinfoSampler} (or any text of
 * `### sample N <time>` headers each followed by a bufinfo dump) into a summary. The time is
 * taken as ms; a fractional time (seconds of uptime) is converted to ms.
 *
 * @example
 * ```ts
 * import { parseBufinfoSamples } from "./bufinfo_sampler.ts";
 * const s = await parseBufinfoSamples(["### sample 0 7.75\n\nDma-buf Objects:\n"]);
 * if (s.samples !== 1) throw new Error();
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
