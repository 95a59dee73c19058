/**
 * The bench's function_graph section (`deno task bench --only graph`): one VM run of
 * `bench/graph_filter_vm.ts`, the time to switch function_graph on and off and the frame
 * loop's cost per frame with every traceable function patched (before the filter) and with
 * only the dma-buf functions (`set_ftrace_filter`, after), as table lines.
 *
 * @module
 */
import type { FilterRun, GraphFilterResult } from "./graph_filter_vm.ts";
import { runGuestJson } from "./_vm_guest.ts";

/** Runs graph_filter_vm.ts in the VM rig; `out` receives the rig's results. */
export async function runGraphVm(
  root: string,
  out: string,
  frames: number,
): Promise<GraphFilterResult & { vmWallS: number }> {
  const { value, vmWallS } = await runGuestJson<GraphFilterResult>({
    root,
    out,
    guest: `deno run --no-check --allow-all bench/graph_filter_vm.ts --frames ${frames} ` +
      `> "$AXL_RESULTS/graph.json" || exit 3`,
    json: "graph.json",
    // Patching every function took 102 s (and 27 s to undo) in the x86 VM under load.
    timeoutS: 1500,
  });
  return { ...value, vmWallS };
}

const ms = (v: number): string => v >= 1000 ? `${(v / 1e3).toFixed(1)} s` : `${v} ms`;

function rowName(r: FilterRun): string {
  if (r.what === "none") return "nothing (no tracer)";
  return r.what === "all functions"
    ? `all ${r.functions} traceable functions (before)`
    : `the ${r.functions} dma-buf functions (after)`;
}

/**
 * The section's table lines: one row per way of tracing, then setup before → after.
 *
 * @example
 * ```ts
 * import { graphLines } from "./graph_vm.ts";
 * const run = (what: string, functions: number, on: number) => ({ what, functions,
 *   tracerOnMs: on, tracerOffMs: 1, wallUsPerFrame: 30000, cpuUsPerFrame: 29000 });
 * const lines = graphLines({ kernel: "6.12", frames: 200, filter: [], vmWallS: 300,
 *   runs: [run("none", 0, 0), run("dma-buf filter", 9, 170), run("all functions", 44986, 102000)] });
 * if (!lines.at(-1)!.includes("102.0 s before, 170 ms after")) throw new Error(lines.at(-1));
 * ```
 */
export function graphLines(g: GraphFilterResult & { vmWallS: number }): string[] {
  const lines = [
    `function_graph setup (VM, kernel ${g.kernel}, builtin loop of ${g.frames} heap frames; ` +
    `VM wall ${Math.round(g.vmWallS)} s)`,
    `  ${"function_graph on".padEnd(44)} ${"tracer on".padEnd(10)} ${"tracer off".padEnd(10)} ` +
    `${"wall/frame".padEnd(11)} CPU/frame`,
  ];
  for (const r of g.runs) {
    const on = r.what === "none" ? "-" : ms(r.tracerOnMs);
    const off = r.what === "none" ? "-" : ms(r.tracerOffMs);
    lines.push(
      `  ${rowName(r).padEnd(44)} ${on.padEnd(10)} ${off.padEnd(10)} ` +
        `${(r.wallUsPerFrame / 1e3).toFixed(1).padStart(7)} ms ${
          (r.cpuUsPerFrame / 1e3).toFixed(1).padStart(7)
        } ms`,
    );
  }
  const before = g.runs.find((r) => r.what === "all functions");
  const after = g.runs.find((r) => r.what === "dma-buf filter");
  if (before && after) {
    lines.push(
      `  tracer on: ${ms(before.tracerOnMs)} before, ${ms(after.tracerOnMs)} after ` +
        `(${(before.tracerOnMs / Math.max(after.tracerOnMs, 1)).toFixed(0)}× less)`,
    );
  }
  return lines;
}
