/**
 * The bench's soak section (`deno task bench --only soak`): one VM run of
 * `bench/verify_soak.ts` — a verify run of 200,000 small vivid frames (metis-sim latency 0)
 * through a 1 MiB-per-CPU ring buffer drained to disk — and its figures as table lines.
 * It takes as long as vivid needs for the frames: about 75 minutes for 200,000.
 *
 * @module
 */
import type { SoakResult } from "./verify_soak.ts";
import { runGuestJson } from "./_vm_guest.ts";

/** Runs the soak in the VM rig; `out` receives the rig's results. */
export async function runSoakVm(
  root: string,
  out: string,
  frames: number,
): Promise<SoakResult & { vmWallS: number }> {
  const { value, vmWallS } = await runGuestJson<SoakResult>({
    root,
    out,
    rigArgs: ["--vivid"],
    guest: `deno run --no-check --allow-all bench/verify_soak.ts --frames ${frames} ` +
      `--artifacts "$AXL_RESULTS/verify-soak" > "$AXL_RESULTS/soak.json" || exit 3`,
    json: "soak.json",
    // Generous: vivid delivers at most 60 frames a second, fewer on a busy TCG guest.
    timeoutS: Math.ceil(900 + frames / 10),
  });
  return { ...value, vmWallS };
}

/**
 * The soak's table lines.
 *
 * @example
 * ```ts
 * import { soakLines } from "./soak_vm.ts";
 * const lines = soakLines({ frames: 2, bufferKb: 1024, frameInterval: "1/60", perfHz: 10,
 *   status: "PASS",
 *   invariants: {},
 *   overrun: 0, lostMarkers: 0, eventsDrained: 10, eventsPerSec: 5, bytesWritten: 1e6,
 *   peakRssKb: 1000, captureMs: 2000, analysisMs: 100, vmWallS: 60 });
 * if (!lines[0]!.includes("2 frames")) throw new Error(lines[0]);
 * ```
 */
export function soakLines(s: SoakResult & { vmWallS: number }): string[] {
  return [
    `Soak (VM, verify of ${s.frames} frames, vivid at ${s.frameInterval} s per frame, ` +
    `${s.bufferKb} KiB ring buffer per CPU, drained)`,
    `  verdict ${s.status}; lost: ${s.overrun} overrun, ${s.lostMarkers} in markers; ` +
    `perf at ${s.perfHz} Hz`,
    `  events drained ${s.eventsDrained} (${s.eventsPerSec}/s over ${
      (s.captureMs / 1e3).toFixed(0)
    } s), bytes written ${(s.bytesWritten / 1e6).toFixed(1)} MB`,
    `  verify peak RSS ${(s.peakRssKb / 1024).toFixed(0)} MiB; analysis ${
      (s.analysisMs / 1e3).toFixed(1)
    } s; VM wall ${s.vmWallS.toFixed(0)} s`,
  ];
}
