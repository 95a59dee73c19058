/**
 * Sampling debugfs `dma_buf/bufinfo` while a workload runs: the I/O half of the bufinfo
 * evidence; the samples are folded by `../parse/bufinfo_summary.ts`.
 *
 * @module
 */
import { parseBufinfo } from "../parse/bufinfo.ts";
import { addSample, type BufinfoSummary, emptySummary } from "../parse/bufinfo_summary.ts";

/** The default location of bufinfo. */
export const BUFINFO_PATH = "/sys/kernel/debug/dma_buf/bufinfo";

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
  /** Ends the pause between two samples early: stop() takes the last sample at once. */
  #wake: (() => void) | undefined;

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

  /**
   * Starts sampling in the background; one sample is taken at once, and the promise returned
   * resolves when it is (a read error is kept in the summary's `errors`, like any sample's).
   */
  start(): Promise<void> {
    if (this.#running) throw new Error("BufinfoSampler.start(): already started");
    let first!: () => void;
    const taken = new Promise<void>((resolve) => first = resolve);
    this.#running = this.#loop(first);
    return taken;
  }

  /** Takes one more sample, stops, and returns the summary. Idempotent. */
  async stop(): Promise<BufinfoSummary> {
    this.#stop = true;
    this.#wake?.();
    if (this.#running) await this.#running;
    this.#running = undefined;
    return this.#summary;
  }

  /** The summary so far (live object). */
  get summary(): BufinfoSummary {
    return this.#summary;
  }

  async #loop(first: () => void): Promise<void> {
    let n = 0;
    while (true) {
      const last = this.#stop;
      try {
        await this.#sampleOnce(n++);
      } finally {
        first();
      }
      if (last) return;
      if (this.#stop) continue; // stopped while sampling: the last sample now
      await new Promise<void>((resolve) => {
        const timer = setTimeout(resolve, this.#interval);
        this.#wake = () => {
          clearTimeout(timer);
          resolve();
        };
      });
      this.#wake = undefined;
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
