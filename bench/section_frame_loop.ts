/**
 * Bench section 4, one VM run: the C frame loop against the Deno loops over the same shim and
 * device, and verify's overhead beyond its workload.
 *
 * @module
 */
import { summarize, type Summary } from "./_stats.ts";
import type { FrameLoopVmResults, MeasuredRun } from "./frame_loop_vm.ts";
import type { OverheadRun } from "./verify_overhead.ts";
import { log, results, sh, work } from "./_results.ts";

export interface LoopRow {
  impl: string;
  mode: string;
  cpuNsPerFrame: Summary;
  rusageUserNsPerFrame: Summary;
  tracedUserNsPerFrame?: Summary;
  syscallsPerFrame?: number;
  /** Traced user time minus the calibrated per-syscall boundary cost, all threads. */
  userNsPerFrame?: Summary;
  /** The same for the thread that runs the loop alone (no GC or worker threads). */
  mainUserNsPerFrame?: Summary;
}

export interface LoopRatio {
  deno: string;
  c: string;
  cpuRatio: number;
  userRatio?: number;
  /** Loop thread only. */
  mainUserRatio?: number;
  extraCpuUsPerFrame: number;
}

/**
 * Rows (median over rounds) and ratios to C of `runs`: the steady-state runs by default, or
 * e.g. `vm.cold`.
 */
export function loopRows(
  vm: FrameLoopVmResults,
  runs: MeasuredRun[] = vm.runs,
): { rows: LoopRow[]; ratios: LoopRatio[] } {
  const key = (r: MeasuredRun) => `${r.impl} ${r.mode}`;
  const groups = new Map<string, MeasuredRun[]>();
  for (const r of runs) groups.set(key(r), [...groups.get(key(r)) ?? [], r]);
  const boundary = vm.syscallBoundaryNs ?? 0;
  const rows: LoopRow[] = [];
  for (const [k, group] of groups) {
    const [impl, mode] = k.split(" ") as [string, string];
    const plain = group.filter((r) => !r.traced);
    const traced = group.filter((r) => r.traced);
    const row: LoopRow = {
      impl,
      mode,
      cpuNsPerFrame: summarize(plain.map((r) => r.cpuNs / r.frames)),
      rusageUserNsPerFrame: summarize(plain.map((r) => r.utimeNs / r.frames)),
    };
    if (traced.length) {
      row.tracedUserNsPerFrame = summarize(traced.map((r) => r.traced!.userNs / r.frames));
      row.syscallsPerFrame = traced.reduce((a, r) => a + r.traced!.syscalls / r.frames, 0) /
        traced.length;
      row.userNsPerFrame = summarize(
        traced.map((r) =>
          Math.max(0, (r.traced!.userNs - r.traced!.syscalls * boundary) / r.frames)
        ),
      );
      // The loop thread makes nearly all the system calls: all are charged to it.
      row.mainUserNsPerFrame = summarize(traced.map((r) => {
        const main = r.traced!.userNsByTid?.[String(r.pid)] ?? 0;
        return Math.max(0, (main - r.traced!.syscalls * boundary) / r.frames);
      }));
    }
    rows.push(row);
  }
  const find = (impl: string, mode: string) => rows.find((r) => r.impl === impl && r.mode === mode);
  const ratios: LoopRatio[] = [];
  for (
    const [d, c] of [
      ["lean-core", "core"],
      ["lean-full", "full"],
      ["lib", "full"],
      ["lib-fused", "full"],
      ["workload", "full"],
      ["workload-async", "full"],
    ]
  ) {
    const dr = find("deno", d!), cr = find("c", c!);
    if (!dr || !cr) continue;
    const ratio: LoopRatio = {
      deno: d!,
      c: c!,
      cpuRatio: dr.cpuNsPerFrame.median / cr.cpuNsPerFrame.median,
      extraCpuUsPerFrame: (dr.cpuNsPerFrame.median - cr.cpuNsPerFrame.median) / 1e3,
    };
    if (dr.userNsPerFrame && cr.userNsPerFrame && cr.userNsPerFrame.median > 0) {
      ratio.userRatio = dr.userNsPerFrame.median / cr.userNsPerFrame.median;
    }
    if (dr.mainUserNsPerFrame && cr.mainUserNsPerFrame && cr.mainUserNsPerFrame.median > 0) {
      ratio.mainUserRatio = dr.mainUserNsPerFrame.median / cr.mainUserNsPerFrame.median;
    }
    ratios.push(ratio);
  }
  return { rows, ratios };
}

/** Runs section 4 in one VM run into `results.frameLoop` and `results.verifyOverhead`. */
export async function vmSection(quick: boolean, icount: boolean): Promise<void> {
  const out = `${work}/vm`;
  // With icount, guest time counts guest instructions (1 ns each): CPU times measured inside
  // the guest then do not depend on how busy the host is. The guest TSC then ticks at 1 GHz;
  // the rig's tsc_early_khz (the host's TSC rate) would make sched_clock, and with it every
  // CPU time, run slow against CLOCK_MONOTONIC, so it is overridden (the last one wins).
  const icountArgs = ["--qemu-arg", "-icount", "--qemu-arg", "shift=0,sleep=on"];
  const qemuArgs = icount ? [...icountArgs, "--append", "tsc_early_khz=1000000"] : [];
  // Steady state: 3,000 warm-up frames, by when V8 has compiled the per-frame API functions
  // with TurboFan (before that they run as Maglev code, which makes no fast API calls in Deno
  // 2.9.5), then a window of 1,000. C gets the same. Cold: the first 60 frames of a fresh
  // process, what a user's short script feels, three times each.
  const loopArgs = quick
    ? "--rounds 1 --traced-rounds 1 --frames 200 --warmup 500 --cold-runs 1 --cold-frames 60 " +
      "--calls 500 --call-batches 5"
    : "--rounds 3 --traced-rounds 1 --frames 1000 --warmup 3000 --cold-runs 3 --cold-frames 60 " +
      "--calls 2000 --call-batches 15";
  const frames = quick ? 30 : 60;
  const guest = [
    "set -u",
    // One CPU for the measured processes: nohz_full keeps its tick out of their way.
    `taskset -c 1 deno run --no-check --allow-all bench/frame_loop_vm.ts ${loopArgs} ` +
    `--out "$AXL_RESULTS/frame_loop.json" || exit 3`,
    `deno run --no-check --allow-all bench/verify_overhead.ts --frames ${frames} ` +
    `--out "$AXL_RESULTS/verify_overhead.json" --keep "$AXL_RESULTS/verify-artifacts" ` +
    `${quick ? "--no-perf-only" : ""} || exit 3`,
  ].join("\n");
  log(`vm: booting (icount ${icount ? "on" : "off"}; about ${quick ? 4 : 11} minutes)`);
  const r = await sh([
    "bash",
    "scripts/vm/run.sh",
    "--results",
    out,
    "--timeout",
    "1500",
    "--module-param",
    "latency_us=200",
    "--append",
    "nohz_full=1",
    ...qemuArgs,
    "--",
    "bash",
    "-c",
    guest,
  ], { inherit: true });
  if (r.code !== 0) throw new Error(`VM run exited ${r.code} (console log: ${out}/console.log)`);
  const vm = JSON.parse(await Deno.readTextFile(`${out}/frame_loop.json`)) as FrameLoopVmResults;
  const { rows, ratios } = loopRows(vm);
  const runEnv = await Deno.readTextFile(`${out}/run.env`).catch(() => "");
  results.frameLoop = {
    config: {
      kernel: vm.kernel,
      icount,
      nohzFull: "1",
      affinity: vm.affinity,
      moduleParams: vm.params,
      width: vm.width,
      height: vm.height,
      frames: vm.frames,
      warmup: vm.warmup,
      rounds: vm.rounds,
      tracedRounds: vm.tracedRounds,
      traceEvents: vm.traceEvents,
      vmWallS: Number(/wall_s=([\d.]+)/.exec(runEnv)?.[1] ?? NaN),
      coldRuns: new Set(vm.cold.map((r) => r.round)).size,
      coldFrames: vm.coldFrames,
    },
    syscallBoundaryNs: vm.syscallBoundaryNs,
    rows,
    ratios,
    cold: vm.cold.length ? loopRows(vm, vm.cold) : undefined,
    getInfoPerCall: vm.calls.map((c) => ({ impl: c.impl, ns: summarize(c.perCallNs) })),
    raw: "build/bench/vm/frame_loop.json",
  };
  try {
    const vo = JSON.parse(await Deno.readTextFile(`${out}/verify_overhead.json`)) as {
      frames: number;
      runs: OverheadRun[];
    };
    const alone = vo.runs.filter((x) => x.what === "workload");
    const warm = alone.at(-1)!;
    results.verifyOverhead = {
      frames: vo.frames,
      runs: vo.runs,
      workloadWallMs: warm.wallMs,
      overheadWallMs: Object.fromEntries(
        vo.runs.filter((x) => x.what.startsWith("verify")).map((
          x,
        ) => [x.what, x.wallMs - warm.wallMs]),
      ),
    };
  } catch (e) {
    results.problems.push(`verify overhead: ${(e as Error).message}`);
  }
}
