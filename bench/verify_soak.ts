/**
 * Runs inside the VM rig (or on a device): one long verify run with the trace drained to disk
 * while it records and a small ring buffer, on small vivid frames with the simulated engine's
 * latency set to 0 for the run. Prints one JSON line: the verdict, lost events, events drained
 * per second, bytes written, the peak RSS of this process (`VmHWM`, which is verify's: the
 * builtin workload runs in it), capture and analysis time. The soak device test and
 * `deno task bench --only soak` run it.
 *
 * ```sh
 * scripts/vm/run.sh --vivid -- deno run --no-check --allow-all bench/verify_soak.ts --frames 20000
 * ```
 *
 * @module
 */
import { parseArgs } from "node:util";
import { Device } from "../lib/core/device.ts";
import { listCaptureDevices, V4l2Producer } from "../lib/frames/producers/v4l2_producer.ts";
import { builtinWorkload } from "../lib/verify/builtin_workload.ts";
import { captureRun } from "../lib/verify/capture.ts";
import { judgeArtifacts } from "../lib/verify/replay.ts";
import { chooseImporter } from "../lib/verify/evidence/importer.ts";
import { systemAt } from "../lib/doctor/system.ts";

/** What one soak run measured. */
export interface SoakResult {
  frames: number;
  bufferKb: number;
  /** The frame interval vivid settled on, e.g. `1/60` (seconds per frame). */
  frameInterval: string;
  /** perf's sampling rate (Hz). */
  perfHz: number;
  status: string;
  invariants: Record<string, string>;
  /** Events lost by the ring buffer (per-CPU stats) and lost-event markers in the text. */
  overrun: number;
  lostMarkers: number;
  /** Events the drain consumed (`read events` of every CPU) and the rate over the capture. */
  eventsDrained: number;
  eventsPerSec: number;
  bytesWritten: number;
  peakRssKb: number;
  captureMs: number;
  analysisMs: number;
}

const { values } = parseArgs({
  args: Deno.args,
  options: {
    frames: { type: "string", default: "20000" },
    "buffer-kb": { type: "string", default: "1024" },
    "latency-us": { type: "string", default: "0" },
    artifacts: { type: "string" },
    // vivid paces its webcam input at 5 fps unless asked (VIDIOC_S_PARM); 60 is its fastest.
    fps: { type: "string", default: "60" },
    "no-perf": { type: "boolean", default: false },
    // Default: samplesPerRun's rate for the frames.
    "perf-hz": { type: "string" },
  },
});
const frames = Number(values.frames);

/**
 * perf's rate for a run of `frames`: as many samples as 2,000 frames at 99 Hz take (tens of
 * thousands in the x86 VM), whatever the length. Samples and their analysis grow with the
 * run, not the trace: at 99 Hz a 1,000-frame soak spent 29 of its 30 s of analysis and 60 s
 * of its 151 s of capture on perf, and I4 needs only 1,000 samples.
 */
function perfRateFor(frames: number): number {
  return Math.min(99, Math.max(1, Math.round((99 * 2000) / frames)));
}
const bufferKb = Number(values["buffer-kb"]);
const perfHz = values["perf-hz"] ? Number(values["perf-hz"]) : perfRateFor(frames);
const latencyParam = "/sys/module/axl/parameters/latency_us";
const artifacts = values.artifacts ??
  await Deno.makeTempDir({ prefix: "axl-soak-" });

const vivid = listCaptureDevices().find((c) => c.driver === "vivid");
if (!vivid) {
  console.error("verify_soak.ts: no vivid capture device (scripts/vm/run.sh --vivid)");
  Deno.exit(3);
}
const latencyBefore = Deno.readTextFileSync(latencyParam).trim();
Deno.writeTextFileSync(latencyParam, values["latency-us"]!);
try {
  using dev = Device.open();
  // The smallest frames vivid makes: the soak is about the trace, not the pixels.
  using cam = V4l2Producer.open({
    device: vivid.path,
    width: 160,
    height: 120,
    fps: Number(values.fps),
  });
  const t0 = performance.now();
  const { capture } = await captureRun({
    artifacts,
    // The driver's longest job deadline: on a starved TCG guest a job of a 20,000-frame run
    // overran the default 2 s (ETIMEDOUT at frame 18,698) and the run ended INCONCLUSIVE.
    workload: builtinWorkload({ frames, producer: cam, device: dev, timeoutMs: 10_000 }),
    headline: `soak: ${frames} frames`,
    bufferSizeKb: bufferKb,
    perf: !values["no-perf"],
    perfFrequency: perfHz,
    device: { name: "metis-sim", simulated: true },
    importer: chooseImporter(systemAt("/"), {}),
  });
  const t1 = performance.now();
  const result = await judgeArtifacts(capture);
  const t2 = performance.now();
  const eventsDrained = [...(capture.loss?.perCpu.values() ?? [])]
    .reduce((n, s) => n + s.readEvents, 0);
  const out: SoakResult = {
    frames,
    bufferKb,
    frameInterval: cam.frameInterval
      ? `${cam.frameInterval.numerator}/${cam.frameInterval.denominator}`
      : "?",
    perfHz,
    status: result.axl.status,
    invariants: Object.fromEntries(
      Object.values(result.axl.invariants).map((i) => [i.id, `${i.status}: ${i.summary}`]),
    ),
    overrun: result.axl.trace.overrun,
    lostMarkers: result.axl.trace.lost_events,
    eventsDrained,
    eventsPerSec: Math.round(eventsDrained / ((t1 - t0) / 1000)),
    bytesWritten: capture.record.drain?.bytes ?? 0,
    peakRssKb: Number(/^VmHWM:\s*(\d+)/m.exec(Deno.readTextFileSync("/proc/self/status"))?.[1]),
    captureMs: Math.round(t1 - t0),
    analysisMs: Math.round(t2 - t1),
  };
  console.log(JSON.stringify(out));
} finally {
  Deno.writeTextFileSync(latencyParam, latencyBefore);
  if (!values.artifacts) await Deno.remove(artifacts, { recursive: true });
}
