/**
 * A verify result in the Prometheus text exposition format, for node_exporter's textfile
 * collector (a fleet's dashboards and alerts): one gauge series per invariant and status
 * (1 for the status it has, 0 for the others, so an alert matches `== 1` on FAIL), the
 * run's status, the CPU copy share, frames submitted and traced, lost trace events and
 * the latency percentiles, every series labelled with the device and the kernel.
 *
 * @module
 */
import type { VerifyResult } from "../schema.ts";
import { invariantsOf, STATUSES } from "./_result_view.ts";

/** Options of {@linkcode prometheusMetrics}. */
export interface MetricsOptions {
  /** When the run was judged: `axl_verify_timestamp_seconds` (absent: not written). */
  timestamp?: Date;
}

/**
 * Escapes a label value: backslash, double quote and newline, as the exposition format
 * requires.
 *
 * @example
 * ```ts
 * import { labelValue } from "./metrics.ts";
 * console.log(labelValue('a"b\\c\nd')); // a\"b\\c\nd — quote, backslash and newline escaped
 * ```
 */
export function labelValue(value: string): string {
  return value.replace(/[\\"\n]/g, (c) => c === "\n" ? "\\n" : `\\${c}`);
}

type Labels = Record<string, string>;

/** One metric family: its help, and its samples. */
interface Family {
  name: string;
  help: string;
  samples: { labels?: Labels; value: number }[];
}

function series(name: string, labels: Labels, value: number): string {
  const text = Object.entries(labels).map(([k, v]) => `${k}="${labelValue(v)}"`).join(",");
  // 15 significant digits: a unit change (µs to s, percent to ratio) leaves no binary noise
  const shown = Number.isFinite(value)
    ? String(Number(value.toPrecision(15)))
    : value > 0
    ? "+Inf"
    : "NaN";
  return `${name}{${text}} ${shown}`;
}

function families(result: VerifyResult, options: MetricsOptions): Family[] {
  const a = result.axl;
  const status = (is: string) =>
    STATUSES.map((s) => ({ labels: { status: s }, value: s === is ? 1 : 0 }));
  const list: Family[] = [
    {
      name: "axl_verify_status",
      help: "Verdict of the run: 1 for the status it has, 0 for the others.",
      samples: status(a.status),
    },
    {
      name: "axl_verify_invariant_status",
      help: "Verdict of each invariant: 1 for the status it has, 0 for the others.",
      samples: invariantsOf(result).flatMap((i) =>
        status(i.status).map((s) => ({ ...s, labels: { invariant: i.id, ...s.labels } }))
      ),
    },
    {
      name: "axl_verify_frames_submitted",
      help: "Frames the workload submitted (absent when the count is unknown).",
      samples: a.frames.submitted === null ? [] : [{ value: a.frames.submitted }],
    },
    {
      name: "axl_verify_frames_traced",
      help: "Frames the trace followed from import to release.",
      samples: [{ value: a.frames.traced }],
    },
    {
      name: "axl_verify_trace_lost_events",
      help: "Trace events the kernel dropped during the run (any makes the run INCONCLUSIVE).",
      samples: [{ value: a.trace.lost_events }],
    },
    {
      name: "axl_verify_copy_share_ratio",
      help: "Share of perf samples in CPU copy routines (0.01 is 1 %; absent without perf).",
      samples: a.perf.available ? [{ value: a.perf.copy_percent / 100 }] : [],
    },
    {
      name: "axl_verify_frame_latency_seconds",
      help: "Per-frame latency of the run at the 50th, 90th and 99th percentile.",
      samples: ([["50", a.latency.p50], ["90", a.latency.p90], ["99", a.latency.p99]] as const)
        .filter(([, us]) => a.latency.count > 0 && us !== undefined)
        .map(([p, us]) => ({ labels: { percentile: p }, value: us! / 1e6 })),
    },
  ];
  if (options.timestamp) {
    list.push({
      name: "axl_verify_timestamp_seconds",
      help: "When the run was judged, in seconds since the epoch.",
      samples: [{ value: Math.floor(options.timestamp.getTime() / 1000) }],
    });
  }
  return list;
}

/**
 * The metrics of `result` in the Prometheus text format (version 0.0.4), ending in a
 * newline. Write it to `<dir>/axl_verify.prom` of node_exporter's textfile collector
 * (`--collector.textfile.directory`), through a temporary file and a rename.
 *
 * @example
 * ```ts ignore
 * import { prometheusMetrics } from "./metrics.ts";
 * await Deno.writeTextFile("axl_verify.prom", prometheusMetrics(result));
 * ```
 */
export function prometheusMetrics(result: VerifyResult, options: MetricsOptions = {}): string {
  const env = result.axl.environment;
  const base: Labels = { device: env.device, kernel: env.kernel };
  const lines: string[] = [];
  for (const f of families(result, options)) {
    if (f.samples.length === 0) continue;
    lines.push(`# HELP ${f.name} ${f.help}`, `# TYPE ${f.name} gauge`);
    for (const s of f.samples) lines.push(series(f.name, { ...base, ...s.labels }, s.value));
  }
  return lines.join("\n") + "\n";
}
