/**
 * The bench's time-to-verdict section (`deno task bench --only verdict`): one VM run of
 * `bench/verdict_time_vm.ts`, the builtin verify's stages from the workload's end to the
 * verdict against `perf report --stdio` alone on the same `perf.data`, as table lines and
 * targets.
 *
 * @module
 */
import type { Target } from "./_results.ts";
import { runGuestJson } from "./_vm_guest.ts";
import type { VerdictTimeResults } from "./verdict_time_vm.ts";

/** What the section keeps in `results.json`. */
export type VerdictResults = VerdictTimeResults & { vmWallS: number };

/** Runs verdict_time_vm.ts in the VM rig; `out` receives the rig's results. */
export async function runVerdictVm(
  root: string,
  out: string,
  frames: number,
): Promise<VerdictResults> {
  const { value, vmWallS } = await runGuestJson<VerdictTimeResults>({
    root,
    out,
    guest: `deno run --no-check --allow-all bench/verdict_time_vm.ts --frames ${frames} || exit 3`,
    json: "verdict_time.json",
    // About 4 minutes under load: the verify run, then perf report and two perf scripts.
    timeoutS: 1500,
  });
  return { ...value, vmWallS };
}

const s = (ms: number): string => `${(ms / 1e3).toFixed(1)} s`;

/** `perf report --stdio` on the run's perf.data, in ms (NaN when it did not run). */
function reportMs(v: VerdictTimeResults): number {
  return v.perf.find((p) => p.what === "perf report --stdio")?.ms ?? NaN;
}

/** How the run's perf script met the samples, in words (results of earlier runs say less). */
export function perfScriptRan(v: Pick<VerdictTimeResults, "perfScript" | "perfLive">): string {
  switch (v.perfScript) {
    case "beside":
      return "beside perf record (child processes)";
    case "streamed":
      return "streamed through verify";
    case "after":
      return "after perf stopped";
    default:
      return v.perfLive === false ? "after perf stopped" : "not recorded";
  }
}

/**
 * The section's table lines: each stage after the workload, then the perf commands.
 *
 * @example
 * ```ts
 * import { verdictLines } from "./verdict_vm.ts";
 * const lines = verdictLines({ frames: 60, status: "PASS", perfSamples: 10, perfScript: "beside",
 *   vmWallS: 200,
 *   timings: { workloadMs: 2000, toVerdictMs: 3000, stages: [{ stage: "drain", ms: 3000 }] },
 *   perf: [{ what: "perf report --stdio", argv: [], ms: 6000, bytes: 1 }] });
 * if (!lines.some((l) => l.includes("drain") && l.includes("3.0 s"))) throw new Error();
 * ```
 */
export function verdictLines(v: VerdictResults): string[] {
  const lines = [
    `Time to verdict (VM, builtin verify of ${v.frames} frames, ${v.status}, ` +
    `${v.perfSamples} perf samples, perf script ${perfScriptRan(v)}; ` +
    `VM wall ${Math.round(v.vmWallS)} s)`,
    `  ${"workload".padEnd(40)} ${s(v.timings.workloadMs)}`,
  ];
  for (const st of v.timings.stages) lines.push(`  ${`  ${st.stage}`.padEnd(40)} ${s(st.ms)}`);
  lines.push(`  ${"workload end → verdict".padEnd(40)} ${s(v.timings.toVerdictMs)}`);
  for (const p of v.perf) {
    const same = p.sameSummary === undefined
      ? ""
      : p.sameSummary
      ? ", same summary"
      : ", OTHER SUMMARY";
    lines.push(`  ${p.what.padEnd(40)} ${s(p.ms)} (${Math.round(p.bytes / 1e3)} KB${same})`);
  }
  return lines;
}

/** The bound on the time from the workload's end to the verdict, × the workload's run. */
export const VERDICT_BOUND = 1.5;

/**
 * The section's targets: the time to verdict within 2× `perf report --stdio` on the same
 * data, and within {@linkcode VERDICT_BOUND}× the workload's own run (the row named "workload
 * end → verdict / the workload's own run"); verify's perf script folds to the same
 * summary as the full call chains.
 *
 * @example
 * ```ts
 * import { verdictTargets } from "./verdict_vm.ts";
 * const t = verdictTargets({ frames: 60, status: "PASS", perfSamples: 10, perfScript: "beside",
 *   timings: { workloadMs: 2000, toVerdictMs: 3100, stages: [] },
 *   perf: [{ what: "perf report --stdio", argv: [], ms: 6000, bytes: 1 }] });
 * if (t[0]?.met !== true || t[1]?.met !== false) throw new Error();
 * ```
 */
export function verdictTargets(v: VerdictTimeResults): Target[] {
  const report = reportMs(v);
  const toVerdict = v.timings.toVerdictMs;
  const targets: Target[] = [
    {
      name: "verify: workload end → verdict / perf report --stdio on the same perf.data",
      target: "≤ 2×",
      value: `${(toVerdict / report).toFixed(2)}× (${s(toVerdict)} / ${s(report)})`,
      met: Number.isFinite(report) ? toVerdict <= 2 * report : null,
    },
    {
      name: "workload end → verdict / the workload's own run",
      target: `≤ ${VERDICT_BOUND}×`,
      value: `${(toVerdict / v.timings.workloadMs).toFixed(2)}× (${s(toVerdict)} / ${
        s(v.timings.workloadMs)
      })`,
      met: toVerdict <= VERDICT_BOUND * v.timings.workloadMs,
      ratios: { ratio: toVerdict / v.timings.workloadMs },
    },
  ];
  const verify = v.perf.find((p) => p.what === "perf script (verify)");
  if (verify?.sameSummary !== undefined) {
    targets.push({
      name: "verify: its perf script folds to the full call chains' perf summary",
      target: "same",
      value: verify.sameSummary ? "same" : "different",
      met: verify.sameSummary,
    });
  }
  return targets;
}
