/**
 * Runs inside the VM rig: the time from the builtin verify's workload end to its verdict,
 * stage by stage (`timings.json`), against `perf report --stdio` alone on the same
 * `perf.data`; then `perf script` as verify runs it against variants of its options, each
 * timed and checked for the same perf summary (the only part of the output the judge uses).
 *
 * ```sh
 * scripts/vm/run.sh -- deno run --no-check --allow-all bench/verdict_time_vm.ts --frames 60
 * ```
 *
 * `--perf-script-after` runs perf script on the finished data file after perf stopped, as
 * verify did before perf script read perf's pipe output while recording: the same run's
 * "before". Without it, the builtin's perf script runs beside perf record in child processes
 * (`perfScript: "beside"`, from the run's `capture.json`).
 *
 * @module
 */
import { parseArgs } from "node:util";
import { join } from "node:path";
import { Device } from "../lib/core/device.ts";
import { HeapProducer } from "../lib/frames/producers/heap_producer.ts";
import { builtinWorkload } from "../lib/verify/builtin_workload.ts";
import { runVerify } from "../lib/verify/run.ts";
import type { VerifyTimings } from "../lib/verify/timings.ts";
import { parsePerfScript, summarizePerf } from "../lib/trace/parse/perf_script.ts";
import { PERF_SCRIPT_ARGS } from "../lib/trace/capture/perf_record.ts";
import type { CaptureRecord, PerfScriptMode } from "../lib/verify/capture.ts";

/** One perf command on the kept perf.data. */
export interface PerfCommandTime {
  what: string;
  argv: string[];
  ms: number;
  bytes: number;
  /** The judge's perf summary equals the one of verify's own `perf script`. */
  sameSummary?: boolean;
  /** The output is byte for byte the `perf.script` verify wrote. */
  samePerfScript?: boolean;
}

/** What the guest writes to `$AXL_RESULTS/verdict_time.json`. */
export interface VerdictTimeResults {
  frames: number;
  /**
   * How verify's perf script met the builtin's samples, as its `capture.json` says:
   * `beside` (perf's pipe output read by perf script in child processes while the workload
   * ran, verify's default for the builtin), `streamed` (through verify's own process), `after`
   * (on the data file after perf stopped, `--perf-script-after`); `not recorded` in captures
   * that do not say. Absent in results of earlier runs.
   */
  perfScript?: PerfScriptMode | "not recorded";
  /**
   * Results of earlier runs only: whether verify was asked to run perf script live. Until
   * `perfScript` was recorded the builtin did not stream even when this said true.
   */
  perfLive?: boolean;
  /** perf's rate, as result.json records it. */
  perfHz?: number;
  status: string;
  timings: VerifyTimings;
  perfSamples: number;
  perf: PerfCommandTime[];
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    frames: { type: "string", default: "60" },
    out: { type: "string" },
    "perf-script-after": { type: "boolean", default: false },
  },
});
const frames = Number(values.frames);
const results = Deno.env.get("AXL_RESULTS") ?? ".";
const out = values.out ?? `${results}/verdict_time.json`;
const tmp = await Deno.makeTempDir({ prefix: "axl-bench-verdict-" });
const data = join(tmp, "perf.data");

using dev = Device.open();
using producer = HeapProducer.open({});
const t0 = performance.now();
const { result, timings } = await runVerify({
  artifacts: join(tmp, "artifacts"),
  workload: builtinWorkload({ frames, producer, device: dev }),
  headline: "bench: time to verdict",
  perfData: data,
  perfLive: !values["perf-script-after"],
  onProgress: (m) => console.error(`[${Math.round(performance.now() - t0)} ms] ${m}`),
});
console.error(`verdict_time_vm.ts: ${result.axl.status}; ${JSON.stringify(timings)}`);
for (const i of Object.values(result.axl.invariants)) {
  console.error(`verdict_time_vm.ts:   ${i.id} ${i.status} ${i.summary}`);
}
if (result.axl.invariants.I4.status === "SKIP") {
  // No perf.data to time perf report and perf script on: say why instead of perf's own
  // "zero-sized data".
  throw new Error(
    `verdict_time_vm.ts: verify ran without perf, so there is nothing to compare with ` +
      `perf report (${result.axl.invariants.I4.summary}); rerun on a less loaded host`,
  );
}

async function timeCommand(what: string, args: string[]): Promise<PerfCommandTime> {
  const file = join(tmp, `${what.replaceAll(/\W+/g, "_")}.out`);
  const t = performance.now();
  const st = await new Deno.Command("bash", {
    args: ["-c", 'exec "$@" > "$0" 2> "$0.err"', file, "perf", ...args],
  }).output();
  const ms = Math.round(performance.now() - t);
  if (!st.success) {
    const err = await Deno.readTextFile(`${file}.err`).catch(() => "");
    throw new Error(`perf ${args.join(" ")} exited ${st.code}: ${err.trim().slice(-2000)}`);
  }
  const bytes = (await Deno.stat(file)).size;
  console.error(`verdict_time_vm.ts: ${what}: ${ms} ms, ${bytes} bytes`);
  return { what, argv: ["perf", ...args], ms, bytes };
}

const capture = JSON.parse(
  await Deno.readTextFile(join(tmp, "artifacts", "capture.json")),
) as CaptureRecord;

async function summaryOf(what: string) {
  const file = join(tmp, `${what.replaceAll(/\W+/g, "_")}.out`);
  return await summarizePerf(parsePerfScript((await Deno.open(file)).readable, file), {
    pids: capture.workload.pids,
  });
}

const perf: PerfCommandTime[] = [];
const FULL = ["-F", "comm,pid,tid,time,period,event,ip,sym,dso"];
perf.push(await timeCommand("perf report --stdio", ["report", "--stdio", "-i", data]));
perf.push(await timeCommand("perf script (verify)", ["script", "-i", data, ...PERF_SCRIPT_ARGS]));
perf.push(await timeCommand("perf script (full stacks)", ["script", "-i", data, ...FULL]));
const reference = JSON.stringify(await summaryOf("perf script (full stacks)"));
const saved = await Deno.readFile(join(tmp, "artifacts", "perf.script"));
for (const p of perf.slice(1)) {
  p.sameSummary = JSON.stringify(await summaryOf(p.what)) === reference;
}
const verifys = perf[1]!;
const printed = await Deno.readFile(join(tmp, `${verifys.what.replaceAll(/\W+/g, "_")}.out`));
verifys.samePerfScript = printed.length === saved.length && printed.every((b, i) => b === saved[i]);
console.error(
  `verdict_time_vm.ts: perf.script as perf script prints perf.data: ${verifys.samePerfScript}`,
);
const value: VerdictTimeResults = {
  frames,
  perfScript: ("script" in capture.perf ? capture.perf.script : undefined) ?? "not recorded",
  ...(result.axl.perf.rate ? { perfHz: result.axl.perf.rate.hz } : {}),
  status: result.axl.status,
  timings,
  perfSamples: (await summaryOf("perf script (verify)")).samples,
  perf,
};
await Deno.writeTextFile(out, JSON.stringify(value, null, 1) + "\n");
await Deno.remove(tmp, { recursive: true });
