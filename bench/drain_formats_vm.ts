/**
 * Runs inside the VM rig: how fast a full trace buffer drains as text (`trace_pipe`, what
 * verify reads) and as binary pages (`per_cpu/cpuN/trace_pipe_raw`). A tracefs instance with
 * verify's events and function_graph on the dma-buf functions records the builtin frame loop
 * with tracing on, then is drained with tracing off by `dd` (non-blocking, so it ends when the
 * buffer is empty); the same is done again for the other format. Prints JSON: events, bytes,
 * ms, events/s and bytes per event for each.
 *
 * ```sh
 * scripts/vm/run.sh -- deno run --no-check --allow-all bench/drain_formats_vm.ts --frames 300
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { Device } from "../lib/core/device.ts";
import { HeapProducer } from "../lib/frames/producers/heap_producer.ts";
import { runWorkload } from "../lib/frames/workload.ts";
import { TraceSession } from "../lib/trace/capture/tracefs.ts";

/** One drain of a full buffer. */
export interface DrainRate {
  format: "text (trace_pipe)" | "binary (trace_pipe_raw)";
  events: number;
  bytes: number;
  ms: number;
  eventsPerSec: number;
  bytesPerEvent: number;
  /** Events still unread after the drain (a page the binary reader could not take). */
  left: number;
}

const { values } = parseArgs({
  args: Deno.args,
  options: { frames: { type: "string", default: "300" } },
});
const frames = Number(values.frames);
using dev = Device.open();
using producer = HeapProducer.open({ format: "NV12", width: 160, height: 120 });
const session = TraceSession.open({ bufferSizeKb: 32768 });
const dir = session.info.dir;
const cpus = [...session.rawStats().keys()];
const out = await Deno.makeTempDir({ prefix: "axl-drain-formats-" });

function unread(): number {
  return [...session.stats().values()].reduce((n, s) => n + s.entries, 0);
}

async function drain(format: DrainRate["format"]): Promise<DrainRate> {
  session.start();
  await runWorkload({ frames, producer, device: dev, syncWait: false });
  session.stop();
  const events = unread();
  const lost = [...session.stats().values()].reduce((n, s) => n + s.overrun, 0);
  if (lost > 0) throw new Error(`the ${frames}-frame fill overran the buffer (${lost} lost)`);
  const files = format.startsWith("text")
    ? [`${dir}/trace_pipe`]
    : cpus.map((c) => `${dir}/per_cpu/cpu${c}/trace_pipe_raw`);
  const t0 = performance.now();
  let bytes = 0;
  for (const [i, f] of files.entries()) {
    const dst = `${out}/${i}`;
    // Non-blocking: dd stops with EAGAIN once the buffer is empty (its exit status then 1).
    await new Deno.Command("dd", {
      args: [`if=${f}`, `of=${dst}`, "iflag=nonblock", "bs=65536", "status=none"],
      stderr: "null",
    }).output();
    bytes += Deno.statSync(dst).size;
  }
  const ms = performance.now() - t0;
  return {
    format,
    events,
    bytes,
    ms: Math.round(ms),
    eventsPerSec: Math.round(events / (ms / 1000)),
    bytesPerEvent: Math.round(bytes / events),
    left: unread(),
  };
}

try {
  const runs = [
    await drain("text (trace_pipe)"),
    await drain("binary (trace_pipe_raw)"),
    await drain("text (trace_pipe)"),
    await drain("binary (trace_pipe_raw)"),
  ];
  console.log(JSON.stringify({ kernel: Deno.osRelease(), frames, runs }));
} finally {
  await session.close();
  await Deno.remove(out, { recursive: true });
}
