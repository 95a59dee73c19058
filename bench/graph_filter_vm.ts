/**
 * Runs inside the VM rig: what limiting function_graph to the dma-buf functions
 * (`set_ftrace_filter`, as verify's trace session does) saves. In a fresh tracefs instance,
 * three ways: no tracer, function_graph on the dma-buf functions the running kernel has
 * (`available_filter_functions`: the `_unlocked` variants on 6.2+), and function_graph on
 * every traceable function (no filter). For each: the time to switch the tracer on and off,
 * and the builtin frame loop's wall and process CPU per frame with tracing on. Prints JSON.
 *
 * ```sh
 * scripts/vm/run.sh -- deno run --no-check --allow-all bench/graph_filter_vm.ts --frames 200
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { Device } from "../lib/core/device.ts";
import { HeapProducer } from "../lib/frames/producers/heap_producer.ts";
import { runWorkload } from "../lib/frames/workload.ts";
import { DMABUF_GRAPH_FUNCTIONS, findTracefs } from "../lib/trace/capture/tracefs.ts";
import { cpuDelta, cpuSample } from "./_stats.ts";

/** One way of tracing, measured. */
export interface FilterRun {
  /** `none`, `dma-buf filter` or `all functions`. */
  what: string;
  /** Functions patched: the filter's size, or the kernel's traceable count. */
  functions: number;
  tracerOnMs: number;
  tracerOffMs: number;
  wallUsPerFrame: number;
  cpuUsPerFrame: number;
}

/** What one run printed. */
export interface GraphFilterResult {
  kernel: string;
  frames: number;
  /** The dma-buf functions the filter named (those the running kernel has). */
  filter: string[];
  runs: FilterRun[];
}

const { values } = parseArgs({
  args: Deno.args,
  options: { frames: { type: "string", default: "200" } },
});
const frames = Number(values.frames);
const root = findTracefs();
const available = Deno.readTextFileSync(`${root}/available_filter_functions`).split("\n")
  .map((l) => l.split(/\s/, 1)[0]!).filter((f) => f !== "");
const have = new Set(available);
const filter = DMABUF_GRAPH_FUNCTIONS.filter((f) => have.has(f));

using dev = Device.open();
using producer = HeapProducer.open({ format: "NV12", width: 160, height: 120 });

function timedWrite(path: string, value: string): number {
  const t0 = performance.now();
  Deno.writeTextFileSync(path, value);
  return performance.now() - t0;
}

async function measure(what: string, funcs: string[] | "all" | null): Promise<FilterRun> {
  const inst = `${root}/instances/axl-graph-filter-${Deno.pid}`;
  Deno.mkdirSync(inst);
  try {
    let on = 0;
    if (funcs !== null) {
      if (funcs !== "all") {
        Deno.writeTextFileSync(`${inst}/set_ftrace_filter`, funcs.join("\n") + "\n");
      }
      on = timedWrite(`${inst}/current_tracer`, "function_graph");
    }
    Deno.writeTextFileSync(`${inst}/tracing_on`, "1");
    const a = cpuSample();
    // The longest job deadline the driver takes: with every function patched on a busy TCG
    // host a job overran runWorkload's default 2 s (ETIMEDOUT), and this measures cost only.
    const r = await runWorkload({
      frames,
      producer,
      device: dev,
      syncWait: false,
      timeoutMs: 10_000,
    });
    const d = cpuDelta(a, cpuSample());
    Deno.writeTextFileSync(`${inst}/tracing_on`, "0");
    if (r.completed !== frames) throw new Error(`${what}: ${r.completed}/${frames} frames`);
    const off = funcs === null ? 0 : timedWrite(`${inst}/current_tracer`, "nop");
    return {
      what,
      functions: funcs === null ? 0 : funcs === "all" ? available.length : funcs.length,
      tracerOnMs: Math.round(on),
      tracerOffMs: Math.round(off),
      wallUsPerFrame: Math.round(d.wallNs / frames / 1e3),
      cpuUsPerFrame: Math.round(d.cpuNs / frames / 1e3),
    };
  } finally {
    Deno.removeSync(inst);
  }
}

// Warm-up (first imports, page faults), then each way; the unfiltered one last.
await runWorkload({ frames: 20, producer, device: dev, syncWait: false });
const runs = [
  await measure("none", null),
  await measure("dma-buf filter", filter),
  await measure("all functions", "all"),
  await measure("dma-buf filter", filter),
];
const result: GraphFilterResult = { kernel: Deno.osRelease(), frames, filter, runs };
console.log(JSON.stringify(result));
