/**
 * Captures the template of the scaled traces (`bench/fixtures/`): inside the VM rig, a
 * TraceSession set up as verify sets it up (instance, function_graph on the dma-buf functions
 * with abstime/proc/tail, `dma_fence:*` and `axl:*`, mono clock) around `runWorkload()`.
 * The raw `trace` file is written unchanged.
 *
 * ```sh
 * scripts/vm/run.sh --results build/bench/capture -- \
 *   deno run --no-check --allow-all bench/capture_trace.ts --frames 40
 * cp build/bench/capture/axl-frames.trace bench/fixtures/axl-frames-6.12-std.trace
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { sizeBufferKb, TraceSession } from "../lib/trace/capture/tracefs.ts";
import { runWorkload } from "../lib/frames/workload.ts";

const { values } = parseArgs({
  args: Deno.args,
  options: {
    frames: { type: "string", default: "40" },
    out: { type: "string" },
  },
});
const frames = Number(values.frames);
const out = values.out ?? `${Deno.env.get("AXL_RESULTS") ?? "."}/axl-frames.trace`;
const session = TraceSession.open({ bufferSizeKb: sizeBufferKb({ frames, graph: true }) });
try {
  session.start();
  const report = await runWorkload({ frames });
  session.stop();
  const file = await Deno.open(out, { write: true, create: true, truncate: true });
  await (await session.readTrace()).pipeTo(file.writable);
  console.error(
    `capture_trace.ts: ${report.completed}/${frames} frames; session ${
      JSON.stringify(session.info)
    }; wrote ${out}`,
  );
  console.error(`kernel ${Deno.osRelease()}`);
} finally {
  await session.close();
}
