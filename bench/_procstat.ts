// CPU time of this process and the processes it started, from /proc, so that the observer bench
// can tell how much CPU verify's own processes took while the workload ran.

/** /proc counts in USER_HZ ticks, 100 a second on every Linux architecture's ABI. */
const TICK_NS = 1e7;

/**
 * A process's CPU time (user and system, all its threads, not its reaped children), ns, from
 * the text of its `/proc/PID/stat`.
 *
 * @example
 * ```ts
 * import { statCpuNs } from "./_procstat.ts";
 * const stat = "42 (a b) S 1 42 42 0 -1 4194304 100 0 0 0 150 25 3 1 20 0 1 0 7 0 0";
 * if (statCpuNs(stat) !== 175 * 1e7) throw new Error(String(statCpuNs(stat)));
 * ```
 */
export function statCpuNs(stat: string): number {
  // pid (comm) state ppid ...: comm may hold spaces and parentheses, so count after the last ')'.
  const f = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  // Fields 14 and 15 of proc(5), utime and stime: the 12th and 13th after the comm.
  const utime = Number(f[11]), stime = Number(f[12]);
  if (!Number.isFinite(utime) || !Number.isFinite(stime)) {
    throw new Error(`/proc/PID/stat: no utime and stime in ${stat.slice(0, 80)}`);
  }
  return (utime + stime) * TICK_NS;
}

function ppidOf(stat: string): number {
  return Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
}

/**
 * CPU time of `root` (default this process) and of every process below it now, ns per pid.
 * A process that ended before this read is not there (its time went to its parent's reaped
 * children, which this does not count).
 */
export function treeCpuNs(root = Deno.pid): Map<number, number> {
  const stats = new Map<number, string>();
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      stats.set(Number(e.name), Deno.readTextFileSync(`/proc/${e.name}/stat`));
    } catch { /* gone */ }
  }
  const below = (pid: number) => {
    for (let p = pid, n = 0; p > 0 && n < 64; p = ppidOf(stats.get(p) ?? "() 0 0"), n++) {
      if (p === root) return true;
    }
    return false;
  };
  const out = new Map<number, number>();
  for (const [pid, stat] of stats) if (below(pid)) out.set(pid, statCpuNs(stat));
  return out;
}

/** CPU time of a process tree at one moment ({@linkcode treeCpuNs}) and the wall time. */
export interface TreeSample {
  cpuNs: Map<number, number>;
  wallNs: number;
}

/** Now's {@linkcode TreeSample} of this process's tree. */
export function treeSample(): TreeSample {
  return { cpuNs: treeCpuNs(), wallNs: performance.now() * 1e6 };
}

/**
 * CPU the tree took from `a` to `b`: each process's time at `b` less its time at `a` (0 for one
 * started since), and the wall time between.
 *
 * @example
 * ```ts
 * import { treeDelta } from "./_procstat.ts";
 * const d = treeDelta(
 *   { cpuNs: new Map([[1, 100], [2, 50]]), wallNs: 0 },
 *   { cpuNs: new Map([[1, 300], [3, 20]]), wallNs: 1e9 },
 * );
 * if (d.cpuNs !== 220 || d.wallNs !== 1e9) throw new Error(JSON.stringify(d));
 * ```
 */
export function treeDelta(a: TreeSample, b: TreeSample): { cpuNs: number; wallNs: number } {
  let cpuNs = 0;
  for (const [pid, ns] of b.cpuNs) cpuNs += ns - (a.cpuNs.get(pid) ?? 0);
  return { cpuNs, wallNs: b.wallNs - a.wallNs };
}
