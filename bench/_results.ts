// The results.json of a bench run, which every section fills, and the helpers the sections
// share: running a command, noting the machine's load, formatting numbers.
import type { Summary } from "./_stats.ts";
import type { OverheadRun } from "./verify_overhead.ts";
import type { StartupResult } from "./startup.ts";
import type { runSoakVm } from "./soak_vm.ts";
import type { runGraphVm } from "./graph_vm.ts";
import type { VerdictResults } from "./verdict_vm.ts";
import type { ObserverBenchResults } from "./observer_bench.ts";
import type { CallComparison } from "./section_ffi.ts";
import type { SizeRow } from "./section_trace.ts";
import type { LoopRatio, LoopRow } from "./section_frame_loop.ts";

export const root = decodeURIComponent(new URL("..", import.meta.url).pathname).replace(/\/$/, "");
export const work = `${root}/build/bench`;

/** A target and whether this run met it. */
export interface Target {
  name: string;
  target: string;
  value: string;
  met: boolean | null;
  note?: string;
  /** The measured ratios the target judges, by name (`fps`, `cpu`, ...), for programs. */
  ratios?: Record<string, number>;
}

/** The host's load at one moment of the run. */
export interface Noise {
  /** 1, 5 and 15 minute load averages. */
  loadavg: number[];
  /** QEMU processes running that this bench did not start. */
  otherQemu: number;
  /**
   * At a section's end: the most QEMU processes this bench did not start seen while the
   * section ran (sampled every 10 s). Absent in older results and at a section's start.
   */
  otherQemuDuring?: number;
  /** When it was noted (ISO 8601); absent in older results. */
  at?: string;
}

/** One `deno bench` result: its times, or why it failed. */
export interface DenoBenchRow {
  name: string;
  group: string | null;
  avgNs?: number;
  minNs?: number;
  p75Ns?: number;
  p99Ns?: number;
  maxNs?: number;
  n?: number;
  error?: string;
}

/** Section 1: FFI per call. */
export interface FfiResults {
  comparisons: CallComparison[];
  /** Absent when `deno bench` failed (the problem is listed). */
  denoBench: DenoBenchRow[] | undefined;
}

/** Section 3: trace analysis at each size. */
export interface TraceResults {
  template: string;
  sizes: SizeRow[];
}

/** Section 4: the frame loops in the VM. */
export interface FrameLoopResults {
  config: {
    kernel: string;
    icount: boolean;
    nohzFull: string;
    affinity: string;
    moduleParams: Record<string, string>;
    width: number;
    height: number;
    frames: number;
    warmup: number;
    rounds: number;
    tracedRounds: number;
    traceEvents: string[];
    vmWallS: number;
    /** Fresh-process runs of `coldFrames` frames each loop made (0: none). */
    coldRuns: number;
    coldFrames: number;
  };
  syscallBoundaryNs: number | undefined;
  /** Steady state: `frames` frames after `warmup`, per round. */
  rows: LoopRow[];
  ratios: LoopRatio[];
  /** Cold: the first `coldFrames` frames of a fresh process (process CPU only). */
  cold?: { rows: LoopRow[]; ratios: LoopRatio[] };
  getInfoPerCall: { impl: string; ns: Summary }[];
  raw: string;
}

/** Section 4: verify's cost beyond its workload. */
export interface VerifyOverheadResults {
  frames: number;
  runs: OverheadRun[];
  workloadWallMs: number;
  overheadWallMs: Record<string, number>;
}

/** Everything `bench/results.json` holds; a section that did not run is undefined. */
export interface BenchResults {
  version: number;
  /** The command line of the run, as a user would type it. */
  command: string;
  startedAt: string;
  finishedAt: string;
  host: { deno: string; arch: string; cpus: number; kernel: string };
  noise: Record<string, Noise>;
  ffi: FfiResults | undefined;
  startup: StartupResult[] | undefined;
  trace: TraceResults | undefined;
  frameLoop: FrameLoopResults | undefined;
  verifyOverhead: VerifyOverheadResults | undefined;
  graph: Awaited<ReturnType<typeof runGraphVm>> | undefined;
  /** Time from the builtin verify's workload end to its verdict, stage by stage. */
  verdict?: VerdictResults;
  /** The same workload alone and under verify. */
  observer?: ObserverBenchResults;
  soak: Awaited<ReturnType<typeof runSoakVm>> | undefined;
  targets: Target[];
  problems: string[];
}

/** The bench's arguments without `--out FILE`, which says where, not what, it measured. */
function withoutOut(args: string[]): string[] {
  return args.filter((a, i) => !a.startsWith("--out") && args[i - 1] !== "--out");
}

export const results: BenchResults = {
  version: 1,
  command: ["deno task bench", ...withoutOut(Deno.args)].join(" "),
  startedAt: new Date().toISOString(),
  finishedAt: "",
  host: {
    deno: Deno.version.deno,
    arch: Deno.build.arch,
    cpus: navigator.hardwareConcurrency,
    kernel: Deno.osRelease(),
  },
  noise: {},
  ffi: undefined,
  startup: undefined,
  trace: undefined,
  frameLoop: undefined,
  verifyOverhead: undefined,
  graph: undefined,
  soak: undefined,
  targets: [],
  problems: [],
};

export async function sh(
  cmd: string[],
  opts: { env?: Record<string, string>; timeoutMs?: number; inherit?: boolean } = {},
): Promise<{ code: number; stdout: string; stderr: string; ms: number; timedOut: boolean }> {
  const t0 = performance.now();
  const child = new Deno.Command(cmd[0]!, {
    args: cmd.slice(1),
    cwd: root,
    stdout: "piped",
    stderr: opts.inherit ? "inherit" : "piped",
    stdin: "null",
    env: { NO_COLOR: "1", ...opts.env },
  }).spawn();
  let timedOut = false;
  const timer = opts.timeoutMs
    ? setTimeout(() => {
      timedOut = true;
      try {
        child.kill("SIGKILL");
      } catch { /* already gone */ }
    }, opts.timeoutMs)
    : undefined;
  const out = await child.output();
  clearTimeout(timer);
  const dec = new TextDecoder();
  return {
    code: out.code,
    stdout: dec.decode(out.stdout),
    stderr: opts.inherit ? "" : dec.decode(out.stderr),
    ms: performance.now() - t0,
    timedOut,
  };
}

/** QEMU processes running now that are not descendants of this process (other guests). */
export function otherQemu(): number {
  const parent = new Map<number, number>();
  const qemu: number[] = [];
  for (const e of Deno.readDirSync("/proc")) {
    if (!/^\d+$/.test(e.name)) continue;
    try {
      const stat = Deno.readTextFileSync(`/proc/${e.name}/stat`);
      // pid (comm) state ppid ...: comm may hold spaces, so split after its last ')'.
      const comm = stat.slice(stat.indexOf("(") + 1, stat.lastIndexOf(")"));
      const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
      parent.set(Number(e.name), ppid);
      if (comm.startsWith("qemu-system")) qemu.push(Number(e.name));
    } catch { /* gone */ }
  }
  const ours = (pid: number) => {
    for (let p = pid, n = 0; p > 1 && n < 64; p = parent.get(p) ?? 0, n++) {
      if (p === Deno.pid) return true;
    }
    return false;
  };
  return qemu.filter((p) => !ours(p)).length;
}

/** Notes the host's load now under `label` in `results.noise`. */
export function noise(label: string, otherQemuDuring?: number): void {
  results.noise[label] = {
    loadavg: Deno.loadavg().map((l) => Math.round(l * 100) / 100),
    otherQemu: otherQemu(),
    at: new Date().toISOString(),
    ...(otherQemuDuring === undefined ? {} : { otherQemuDuring }),
  };
}

/** Samples {@linkcode otherQemu} every `ms` until stopped; stop() gives the most seen. */
export function watchOtherQemu(ms = 10_000): { stop(): number } {
  let most = otherQemu();
  const timer = setInterval(() => most = Math.max(most, otherQemu()), ms);
  return {
    stop() {
      clearInterval(timer);
      return Math.max(most, otherQemu());
    },
  };
}

export function log(msg: string): void {
  console.error(`bench: ${msg}`);
}

export const fmt = (n: number, digits = 1): string =>
  Number.isFinite(n) ? n.toFixed(digits) : String(n);
export const spread = (s: Summary, scale = 1, digits = 1): string =>
  `${fmt(s.median * scale, digits)} [${fmt(s.min * scale, digits)}–${fmt(s.max * scale, digits)}]`;
export const mb = (bytes: number): string => `${fmt(bytes / 1e6, 0)} MB`;
