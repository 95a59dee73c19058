/**
 * The workload of the observer-effect bench, run as its own process so that verify's own
 * work never counts as the workload's: the builtin frame loop on the first V4L2 capture
 * device (vivid paces it, 160×120 at 60 fps by default), after a warm-up; it writes delivered fps, process CPU per frame
 * and fence latency to `--out`.
 *
 * ```sh
 * deno run --no-check --allow-all bench/observer_workload.ts --frames 300 --out /tmp/w.json
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { Device } from "../lib/core/device.ts";
import { V4l2Producer } from "../lib/frames/producers/v4l2_producer.ts";
import { runWorkload } from "../lib/frames/workload.ts";
import { cpuDelta, cpuSample } from "./_stats.ts";

/** What one workload run measured. */
export interface ObserverSample {
  frames: number;
  fps: number;
  cpuUsPerFrame: number;
  latencyP50Us: number;
  latencyP99Us: number;
  /**
   * CPU time of the bench's own process and of the processes it started other than the
   * workload, from the workload's start to its end (`/proc/PID/stat`, 10 ms ticks), and that
   * wall time: under verify, verify's own processes (verify runs in the bench's process).
   * Absent in older results.
   */
  observerCpu?: { cpuNs: number; wallNs: number };
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    frames: { type: "string", default: "300" },
    warmup: { type: "string", default: "30" },
    width: { type: "string", default: "160" },
    height: { type: "string", default: "120" },
    fps: { type: "string", default: "60" },
    out: { type: "string" },
  },
});
if (!values.out) throw new Error("observer_workload.ts: --out FILE is required");
using dev = Device.open();
// Small frames at 60 fps: vivid renders each one on the CPU, and the TCG guest cannot render
// larger ones 60 times a second.
using producer = V4l2Producer.open({
  width: Number(values.width),
  height: Number(values.height),
  fps: Number(values.fps),
});
await runWorkload({ frames: Number(values.warmup), producer, device: dev, syncWait: false });
const a = cpuSample();
const r = await runWorkload({
  frames: Number(values.frames),
  producer,
  device: dev,
  syncWait: false,
});
const d = cpuDelta(a, cpuSample());
const sample: ObserverSample = {
  frames: r.completed,
  fps: r.completed / (d.wallNs / 1e9),
  cpuUsPerFrame: d.cpuNs / 1e3 / r.completed,
  latencyP50Us: r.latencyNs.p50 / 1e3,
  latencyP99Us: r.latencyNs.p99 / 1e3,
};
await Deno.writeTextFile(values.out, JSON.stringify(sample) + "\n");
