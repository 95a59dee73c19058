/**
 * Where the time between the workload's end and the printed verdict goes: each stage of a
 * verification after the workload (stopping the samplers and perf, draining the trace,
 * restoring tracefs, `perf script`, reading the trace, folding perf samples, judging,
 * writing the report), measured with a monotonic clock and saved as `timings.json` next to
 * the artifacts. Kept out of `result.json` so that a replay of the same artifacts gives the
 * same result, byte for byte.
 *
 * @module
 */

/** One stage after the workload: its name and how long it took. */
export interface StageTime {
  stage: string;
  ms: number;
}

/** `timings.json`: the workload's wall time and the stages that followed it, in order. */
export interface VerifyTimings {
  /** From starting the workload to its end. */
  workloadMs: number;
  /** The stages from the workload's end to the verdict files written, in order. */
  stages: StageTime[];
  /** From the workload's end to the verdict files written (the stages' sum). */
  toVerdictMs: number;
  /**
   * Moments of work that runs beside the stages (perf record's exit, perf script's last
   * line), in ms after the workload's end: where a stage's wait comes from.
   */
  marks?: StageMark[];
}

/** A moment of background work, in ms after the workload's end. */
export interface StageMark {
  what: string;
  atMs: number;
}

/**
 * A stopwatch for stages that follow each other: {@linkcode StageClock.lap} closes the
 * current stage and opens the next one.
 *
 * @example
 * ```ts
 * import { StageClock } from "./timings.ts";
 * const clock = new StageClock();
 * clock.workloadStarted();
 * clock.workloadEnded();
 * clock.lap("drain");
 * const t = clock.timings();
 * console.log(t.stages[0]?.stage); // "drain"
 * console.log(t.toVerdictMs >= 0); // true
 * ```
 */
export class StageClock {
  #start = performance.now();
  #workloadEnd: number | undefined;
  #last = this.#start;
  #stages: StageTime[] = [];
  #marks: StageMark[] = [];

  /** Marks the workload's start (default: when the clock was made). */
  workloadStarted(): void {
    this.#start = this.#last = performance.now();
  }

  /** Marks the workload's end: the stages start here. */
  workloadEnded(): void {
    this.#workloadEnd = this.#last = performance.now();
  }

  /** Ends the stage `stage` now (it began at the previous lap or the workload's end). */
  lap(stage: string): void {
    const now = performance.now();
    this.#stages.push({ stage, ms: round(now - this.#last) });
    this.#last = now;
  }

  /** Notes that `what` happened now, beside the stages (after the workload's end). */
  mark(what: string): void {
    const end = this.#workloadEnd ?? this.#start;
    this.#marks.push({ what, atMs: round(performance.now() - end) });
  }

  /** The stages so far, and the workload's wall time. */
  timings(): VerifyTimings {
    const end = this.#workloadEnd ?? this.#start;
    return {
      workloadMs: round(end - this.#start),
      stages: [...this.#stages],
      toVerdictMs: round(this.#last - end),
      ...(this.#marks.length ? { marks: [...this.#marks] } : {}),
    };
  }
}

function round(ms: number): number {
  return Math.round(ms * 10) / 10;
}
