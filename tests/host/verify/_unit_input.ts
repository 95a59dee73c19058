// A judge() input with no device behind it: a unit test hands in the trace facts it built and
// the events and frame count it claims, and everything else is a quiet VM run without perf.
import type { JudgeInput } from "../../../lib/verify/judge.ts";
import { emptySummary } from "../../../lib/trace/parse/bufinfo_summary.ts";
import { emptyTraceFacts, type TraceFacts } from "../../../lib/verify/trace_facts.ts";

/** What a unit test sets; the rest of the input is the same for every unit test. */
export interface UnitInputOptions {
  trace?: TraceFacts;
  /** The tracing events asked for (default `axl:*`). */
  events?: string[];
  /** Frames the workload says it submitted (default 2). */
  framesSubmitted?: number;
}

/** A fresh {@linkcode JudgeInput} for `judge()` unit tests; callers may mutate it. */
export function unitJudgeInput(options: UnitInputOptions = {}): JudgeInput {
  return {
    headline: "unit",
    trace: options.trace ?? emptyTraceFacts(),
    setup: {
      instance: "t",
      tracer: "nop",
      graphFunctions: [],
      events: options.events ?? ["axl:*"],
      missingEvents: [],
      clock: "mono",
      bufferSizeKb: 1024,
    },
    bufinfo: emptySummary(),
    perf: { unavailable: "not installed" },
    workload: {
      kind: "pid",
      description: "",
      pids: [1],
      framesSubmitted: options.framesSubmitted ?? 2,
      exitCode: 0,
    },
    environment: {
      kernel: "6.12",
      preemptRt: false,
      machine: "x86_64",
      device: "",
      simulated: true,
      tracers: [],
      pmu: false,
    },
  };
}
