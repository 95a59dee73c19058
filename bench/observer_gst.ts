/**
 * The GStreamer workload of the observer-effect bench: `gst-launch-1.0` from vivid's capture
 * (dma-bufs exported by vb2, `io-mode=dmabuf`) to `fakesink`, measured by GStreamer's own
 * `latency` and `rusage` tracers, so that the process verify watches is gst-launch itself
 * (the command execs it: perf and the map scans see its pid) and nothing but its log is added.
 * 320×180 at 60 fps by default: the smallest of the discrete sizes vivid's webcam input offers
 * (`webcam_sizes` in vivid-vid-cap.c), and the only one it offers at 60 fps.
 *
 * @module
 */
import type { ObserverSample } from "./observer_workload.ts";

/** The tracers the bench adds to whatever `GST_TRACERS` verify sets. */
const TRACERS = "latency;rusage";

/**
 * The command that runs the pipeline with the bench's tracers logging to `log`; the shell
 * execs gst-launch, so the pid a caller sees is the pipeline's.
 *
 * @example
 * ```ts
 * import { gstObserverCommand } from "./observer_gst.ts";
 * const argv = gstObserverCommand("/dev/video0", 60, "/tmp/gst.log");
 * if (argv[0] !== "sh" || !argv.includes("num-buffers=60")) throw new Error(argv.join(" "));
 * ```
 */
export function gstObserverCommand(
  device: string,
  frames: number,
  log: string,
  o: { width?: number; height?: number; fps?: number } = {},
): string[] {
  const caps = `video/x-raw,format=YUY2,width=${o.width ?? 320},height=${o.height ?? 180},` +
    `framerate=${o.fps ?? 60}/1`;
  return [
    "sh",
    "-c",
    `GST_TRACERS="\${GST_TRACERS:+\$GST_TRACERS;}${TRACERS}" GST_DEBUG=GST_TRACER:7 ` +
    `GST_DEBUG_NO_COLOR=1 GST_DEBUG_FILE="$0" exec "$@"`,
    log,
    "gst-launch-1.0",
    "-q",
    "v4l2src",
    `device=${device}`,
    "io-mode=dmabuf",
    `num-buffers=${frames}`,
    "!",
    caps,
    "!",
    "fakesink",
    // On the clock, fakesink would drop late frames; the bench counts what arrives.
    "sync=false",
  ];
}

function field(line: string, name: string): number | undefined {
  const m = new RegExp(`[ ,]${name}=\\(guint64\\)(\\d+)`).exec(line);
  return m ? Number(m[1]) : undefined;
}

function percentile(sorted: number[], p: number): number {
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Reads the tracers' log of one pipeline run: the frames that reached the sink after
 * `warmup` of them, their rate at the sink, the process CPU (proc-rusage) per frame between
 * the first and the last counted frame, and the src-to-sink latency (p50, p99) of each.
 *
 * @example
 * ```ts
 * import { gstObserverSample } from "./observer_gst.ts";
 * const lat = (ts: number) => `GST_TRACER :0:: latency, src-element=(string)v4l2src0, ` +
 *   `time=(guint64)1000, ts=(guint64)${ts};`;
 * const cpu = (ts: number, t: number) => `GST_TRACER :0:: proc-rusage, ` +
 *   `process-id=(guint64)1, ts=(guint64)${ts}, time=(guint64)${t};`;
 * const log = [cpu(0, 0), lat(1e9), cpu(1e9, 5e6), lat(2e9), cpu(2e9, 9e6), lat(3e9)].join("\n");
 * const s = gstObserverSample(log, 0);
 * if (s.frames !== 3 || s.fps !== 1 || s.cpuUsPerFrame !== 2000) throw new Error(JSON.stringify(s));
 * ```
 */
export function gstObserverSample(log: string, warmup: number): ObserverSample {
  const frames: { ts: number; latency: number }[] = [];
  const cpu: { ts: number; ns: number }[] = [];
  for (const line of log.split("\n")) {
    if (line.includes(" latency, src-element")) {
      const ts = field(line, "ts"), latency = field(line, "time");
      if (ts !== undefined && latency !== undefined) frames.push({ ts, latency });
    } else if (line.includes(" proc-rusage, ")) {
      const ts = field(line, "ts"), ns = field(line, "time");
      if (ts !== undefined && ns !== undefined) cpu.push({ ts, ns });
    }
  }
  const counted = frames.slice(warmup);
  if (counted.length < 2) {
    throw new Error(
      `gst log: ${frames.length} frames reached the sink, ${warmup} of them warm-up: too few ` +
        `to measure (is the latency tracer in GST_TRACERS and GST_DEBUG=GST_TRACER:7?)`,
    );
  }
  if (cpu.length === 0) throw new Error("gst log: no proc-rusage line (rusage tracer not loaded?)");
  // Process CPU at a time: the last proc-rusage record at or before it.
  const cpuAt = (ts: number) => {
    let ns = cpu[0]!.ns;
    for (const c of cpu) {
      if (c.ts > ts) break;
      ns = c.ns;
    }
    return ns;
  };
  const first = counted[0]!, last = counted.at(-1)!;
  const intervals = counted.length - 1;
  const latencies = counted.map((f) => f.latency).sort((a, b) => a - b);
  return {
    frames: counted.length,
    fps: intervals / ((last.ts - first.ts) / 1e9),
    cpuUsPerFrame: (cpuAt(last.ts) - cpuAt(first.ts)) / 1e3 / intervals,
    latencyP50Us: percentile(latencies, 50) / 1e3,
    latencyP99Us: percentile(latencies, 99) / 1e3,
  };
}

/** The `/dev/videoN` node whose V4L2 name is `name` (vivid's capture: `vivid-000-vid-cap`). */
export function videoNodeNamed(name: string): string {
  for (const e of Deno.readDirSync("/sys/class/video4linux")) {
    const n = Deno.readTextFileSync(`/sys/class/video4linux/${e.name}/name`).trim();
    if (n === name) return `/dev/${e.name}`;
  }
  throw new Error(`no video4linux device named ${name} (load vivid: scripts/vm/run.sh --vivid)`);
}

/**
 * GStreamer's environment for the pipeline: only the plugins it uses (core elements, the
 * core tracers, video4linux2) and a registry of its own in a temporary directory, since
 * scanning every installed plugin takes a minute under TCG; fails naming the packages when
 * v4l2src is missing.
 */
export async function gstObserverEnv(): Promise<Record<string, string>> {
  const dir = await Deno.makeTempDir({ prefix: "axl-bench-gst-" });
  const system = `/usr/lib/${Deno.build.arch}-linux-gnu/gstreamer-1.0`;
  await Deno.mkdir(`${dir}/plugins`);
  for (const p of ["coreelements", "coretracers", "video4linux2"]) {
    await Deno.symlink(`${system}/libgst${p}.so`, `${dir}/plugins/libgst${p}.so`);
  }
  const env = {
    GST_PLUGIN_SYSTEM_PATH_1_0: `${dir}/plugins`,
    GST_REGISTRY_1_0: `${dir}/registry.bin`,
  };
  const inspect = await new Deno.Command("gst-inspect-1.0", { args: ["v4l2src"], env }).output();
  if (!inspect.success) {
    throw new Error(
      `gst-inspect-1.0 v4l2src failed: ${new TextDecoder().decode(inspect.stderr)} ` +
        `(install gstreamer1.0-tools and gstreamer1.0-plugins-good)`,
    );
  }
  return env;
}
