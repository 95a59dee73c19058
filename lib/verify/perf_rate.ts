/**
 * perf's sampling rate for a capture, chosen from what verify knows before the workload starts
 * (docs/verify.md#perfs-rate). I4 needs a number of samples (1,000 at the 1 % threshold,
 * `copies.ts`); with `cpu-clock` on a process (`perf record -p`) perf samples the process's
 * CPU time, so the samples a run gets are its CPU seconds times the rate. The rate is set so
 * that a run of the expected frames gets what I4 needs with a margin, and not many more:
 *
 * - a command or a process with known frames (`--frames`): `COMMAND_FRAME_HZ / frames`, but
 *   never faster than {@linkcode DEFAULT_PERF_HZ}: 999 Hz up to 250 frames, slower beyond. A
 *   command's start-up (a runtime loading its code, GStreamer registering its plugins) takes
 *   CPU whatever its frame count, so a short command already gets its samples, and sampling it
 *   faster would only add start-up samples;
 * - the builtin workload (a frame loop in verify's own process, little start-up): the faster of
 *   that and `BUILTIN_FRAME_HZ / frames`, so a short run samples faster (2,000 Hz for the
 *   default 60 frames), a run of 120 to 250 frames at 999 Hz as before, a long one slower;
 * - frames unknown: {@linkcode DEFAULT_PERF_HZ};
 * - an explicit rate (`perfFrequency`) as given.
 *
 * Every rate is at least {@linkcode MIN_PERF_HZ}, at most {@linkcode MAX_PERF_HZ} and at most
 * the kernel's `perf_event_max_sample_rate` at the start (perf would lower it to that itself,
 * with a warning on its stderr); the choice says when a limit capped it.
 *
 * @module
 */

/** The rate when verify knows nothing of the run's length: perf's traditional `-F 999`. */
export const DEFAULT_PERF_HZ = 999;

/** The slowest rate: one sample a second. */
export const MIN_PERF_HZ = 1;

/**
 * The fastest rate verify asks for: perf's own default frequency (4,000 Hz). Each sample is an
 * interrupt and a stack walk charged to the workload; faster would cost the workload more than
 * a margin on I4 is worth.
 */
export const MAX_PERF_HZ = 4000;

/**
 * Frames × Hz of a short builtin run: 2,000 Hz for the default 60 frames. In the arm64 TCG guest
 * at 999 Hz the builtin's 60 frames gave 1,449–1,941 samples on a quiet host and 482 on a loaded
 * one, where I4 needs 1,000; at 2,000 Hz a fresh guest gave 1,908, about twice what I4 needs,
 * not ten times.
 */
export const BUILTIN_FRAME_HZ = 120_000;

/**
 * Frames × Hz of a command with known frames: 999 Hz up to 250 frames, slower beyond. The
 * pipelines of the suite (60–300 frames) gave 7–11 samples per frame at 999 Hz in the TCG
 * guests (gst_nvmm_metis: 1,090 for 150 frames, 1,640 for 250; kmssink: 1,993 for 300).
 */
export const COMMAND_FRAME_HZ = 250_000;

/** Where the kernel says how fast perf may sample. */
export const MAX_SAMPLE_RATE_PATH = "/proc/sys/kernel/perf_event_max_sample_rate";

/** What {@linkcode choosePerfRate} chose, and why: capture.json's and result.json's record. */
export interface PerfRate {
  /** Samples per second perf is asked for (`-F`). */
  hz: number;
  /** The rule, in words, e.g. `"builtin: 120000 / 60 frames"`. */
  rule: string;
  /** The kernel's `perf_event_max_sample_rate` when verify read it, before perf started. */
  maxSampleRate?: number;
  /** What capped the rule's rate, when something did. */
  cappedBy?: "perf_event_max_sample_rate" | "max" | "min";
}

/** Options of {@linkcode choosePerfRate}. */
export interface PerfRateInput {
  /** `builtin-…`, `command`, `pid` (the workload's kind). */
  kind: string;
  /** Frames the workload will submit, when known. */
  frames?: number;
  /** A rate asked for explicitly (`perfFrequency`). */
  explicitHz?: number;
  /** The kernel's `perf_event_max_sample_rate`, when it could be read. */
  maxSampleRate?: number;
}

/**
 * The rate for a capture (see the module doc). Pure, for tests.
 *
 * @example
 * ```ts
 * import { choosePerfRate } from "./perf_rate.ts";
 * console.log(choosePerfRate({ kind: "builtin-zero-copy", frames: 60 }).hz); // 2000
 * console.log(choosePerfRate({ kind: "builtin-zero-copy", frames: 240 }).hz); // 999
 * console.log(choosePerfRate({ kind: "builtin-zero-copy", frames: 20000 }).hz); // 13
 * console.log(choosePerfRate({ kind: "command", frames: 40 }).hz); // 999
 * console.log(choosePerfRate({ kind: "command", frames: 2000 }).hz); // 125
 * console.log(choosePerfRate({ kind: "builtin-zero-copy", frames: 60, maxSampleRate: 1500 }).cappedBy);
 * // "perf_event_max_sample_rate"
 * ```
 */
export function choosePerfRate(input: PerfRateInput): PerfRate {
  const { kind, frames, explicitHz, maxSampleRate } = input;
  let hz: number, rule: string, ceiling = MAX_PERF_HZ;
  const known = frames !== undefined && frames > 0 ? frames : undefined;
  if (explicitHz !== undefined) {
    if (!(Number.isInteger(explicitHz) && explicitHz >= 1)) {
      throw new RangeError(
        `choosePerfRate(): the rate must be a whole number ≥ 1, got ${explicitHz}`,
      );
    }
    hz = explicitHz;
    rule = `asked for: ${explicitHz} Hz`;
    ceiling = Infinity;
  } else if (known === undefined) {
    hz = DEFAULT_PERF_HZ;
    rule = `${kind}: frames unknown, ${DEFAULT_PERF_HZ}`;
  } else {
    const long = Math.min(DEFAULT_PERF_HZ, Math.round(COMMAND_FRAME_HZ / known));
    const short = Math.round(BUILTIN_FRAME_HZ / known);
    if (kind.startsWith("builtin") && short > long) {
      hz = short;
      rule = `${kind}: ${BUILTIN_FRAME_HZ} / ${known} frames`;
    } else {
      hz = long;
      rule = `${kind}: ${COMMAND_FRAME_HZ} / ${known} frames, at most ${DEFAULT_PERF_HZ}`;
    }
  }
  const out: PerfRate = { hz, rule };
  if (maxSampleRate !== undefined) out.maxSampleRate = maxSampleRate;
  if (hz > ceiling && ceiling < (maxSampleRate ?? Infinity)) {
    out.cappedBy = "max";
    hz = ceiling;
  }
  if (maxSampleRate !== undefined && maxSampleRate >= 1 && hz > maxSampleRate) {
    out.cappedBy = "perf_event_max_sample_rate";
    hz = maxSampleRate;
  }
  if (hz < MIN_PERF_HZ) {
    out.cappedBy = "min";
    hz = MIN_PERF_HZ;
  }
  out.hz = hz;
  return out;
}

/**
 * The rate in words for the progress line and notes, e.g. `"2000 Hz (builtin: 120000 / 60
 * frames)"`, and what capped it.
 *
 * @example
 * ```ts
 * import { describePerfRate } from "./perf_rate.ts";
 * console.log(describePerfRate({ hz: 999, rule: "pid: frames unknown, 999" }));
 * // "999 Hz (pid: frames unknown, 999)"
 * ```
 */
export function describePerfRate(r: PerfRate): string {
  const cap = r.cappedBy === "perf_event_max_sample_rate"
    ? `, capped by the kernel's perf_event_max_sample_rate ${r.maxSampleRate}`
    : r.cappedBy === "max"
    ? `, capped at ${MAX_PERF_HZ}`
    : r.cappedBy === "min"
    ? `, raised to ${MIN_PERF_HZ}`
    : "";
  return `${r.hz} Hz (${r.rule}${cap})`;
}

/** The largest `perf_event_max_sample_rate` the kernel can hold (an `int`). */
export const MAX_SAMPLE_RATE_LIMIT = 2147483647;

/**
 * The kernel's `perf_event_max_sample_rate`, or undefined when it cannot be read (not Linux,
 * no perf events) or does not read as one. The kernel lowers it while perf's interrupts take
 * too long, and it stays lowered until the next boot or a write. It prints the limit as a
 * decimal `int` of at least 1: any other text (empty, a sign, hex, an exponent, more than an
 * `int` holds) is not its limit, and caps nothing; with `notes`, that (or a read error other
 * than a missing file) is said there, once.
 *
 * @example
 * ```ts ignore
 * import { readMaxSampleRate } from "./perf_rate.ts";
 * console.log(readMaxSampleRate()); // e.g. 100000
 * ```
 */
export function readMaxSampleRate(
  path = MAX_SAMPLE_RATE_PATH,
  notes?: string[],
): number | undefined {
  const say = (what: string) => {
    const note = `perf: ${what}: perf's rate is not capped by it`;
    if (notes && !notes.includes(note)) notes.push(note);
  };
  let text: string;
  try {
    text = Deno.readTextFileSync(path);
  } catch (e) {
    if (!(e instanceof Deno.errors.NotFound)) say(`cannot read ${path}: ${(e as Error).message}`);
    return undefined;
  }
  const t = text.trim();
  const n = /^\d{1,10}$/.test(t) ? Number(t) : NaN;
  if (n >= 1 && n <= MAX_SAMPLE_RATE_LIMIT) return n;
  say(
    `${path} reads ${JSON.stringify(t.length > 40 ? `${t.slice(0, 40)}…` : t)}, not a sample ` +
      `rate (a whole number from 1 to ${MAX_SAMPLE_RATE_LIMIT})`,
  );
  return undefined;
}
