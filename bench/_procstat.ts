// The machine's busy CPU time from /proc/stat, so that the observer bench can tell how much CPU
// everything but the workload took while it ran (verify's own processes, under verify).

/** /proc/stat counts in USER_HZ ticks, 100 a second on every Linux architecture's ABI. */
const TICK_NS = 1e7;

/**
 * Busy CPU time of all CPUs together, ns: user, nice, system, irq, softirq and steal of the
 * `cpu` line of `/proc/stat` (idle and iowait left out; guest time is already in user).
 *
 * @example
 * ```ts
 * import { busyCpuNs } from "./_procstat.ts";
 * const stat = "cpu  100 2 30 900 5 1 2 0 0 0\ncpu0 50 1 15 450 2 0 1 0 0 0\n";
 * if (busyCpuNs(stat) !== 135 * 1e7) throw new Error(String(busyCpuNs(stat)));
 * ```
 */
export function busyCpuNs(stat = Deno.readTextFileSync("/proc/stat")): number {
  const line = stat.split("\n").find((l) => l.startsWith("cpu "));
  const f = line?.trim().split(/\s+/).slice(1).map(Number);
  if (!f || f.length < 8 || f.some((x) => !Number.isFinite(x))) {
    throw new Error(`/proc/stat: no 'cpu' line with 8 counters: ${line ?? "(none)"}`);
  }
  const [user, nice, system, , , irq, softirq, steal] = f as number[];
  return (user! + nice! + system! + irq! + softirq! + steal!) * TICK_NS;
}

/** Busy CPU time and wall time at one moment, to subtract from a later one. */
export interface BusySample {
  busyNs: number;
  wallNs: number;
}

/** Now's {@linkcode BusySample} (wall time from `performance.now()`). */
export function busySample(): BusySample {
  return { busyNs: busyCpuNs(), wallNs: performance.now() * 1e6 };
}
