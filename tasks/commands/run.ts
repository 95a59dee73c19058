/**
 * `axl run`: the builtin workload (producer → import → submit → wait → result →
 * release) with per-frame latency from fence timestamps.
 *
 * @module
 */
import { type Command, ExitCode } from "../command.ts";
import type { PixelFormat } from "../../lib/core/device.ts";
import { HeapProducer } from "../../lib/frames/producers/heap_producer.ts";
import type { Producer } from "../../lib/frames/producers/producer.ts";
import { V4l2Producer } from "../../lib/frames/producers/v4l2_producer.ts";
import { runWorkload, type WorkloadMode } from "../../lib/frames/workload.ts";
import { parseOptions, printJson, runCommand, UsageError } from "../_cli.ts";

const ms = (ns: number): string => (ns / 1e6).toFixed(2);

/** The `run` command. */
export const command: Command = {
  name: "run",
  summary: "run the builtin frame workload against the NPU and report latency",
  help: `Usage: axl run [options]

Runs N frames through the NPU: take a frame from the producer, import it
(AXL_IOCTL_IMPORT_FD), submit it, wait for its fence, read the result, release.
Latency is the fence's signal time minus the driver's submit time.

Options:
  --frames N        frames to run (default 30)
  --mode MODE       zero-copy (default) or copy: CPU-copy every frame into a
                    staging buffer first (the negative control for verify's I4)
  --producer P      heap (default: test pattern from a DMA heap) or v4l2
  --camera PATH     V4L2 device for --producer v4l2 (default: first capture device)
  --heap NAME       DMA heap for frames and results (default system)
  --format F        NV12 (default), GREY or YUYV (heap producer)
  --size WxH        frame size (default 640x480)
  --device PATH     NPU device node (default $AXL_DEVICE or /dev/axl)
  --timeout-ms N    per-job timeout (default 2000)
  --json            print the whole report as JSON
  --quiet           no per-frame lines

Exit codes: 0 every frame completed with a correct result, 1 a frame failed or
a result did not match, 3 could not run (no device, no heap: the message says
what to do). Ctrl-C stops after the current frame and still releases everything.`,
  run(args: string[]): Promise<number> {
    return runCommand("run", async () => {
      const { values } = parseOptions("run", args, {
        frames: { type: "string", default: "30" },
        mode: { type: "string", default: "zero-copy" },
        producer: { type: "string", default: "heap" },
        camera: { type: "string" },
        heap: { type: "string", default: "system" },
        format: { type: "string", default: "NV12" },
        size: { type: "string", default: "640x480" },
        device: { type: "string" },
        "timeout-ms": { type: "string", default: "2000" },
        json: { type: "boolean", default: false },
        quiet: { type: "boolean", default: false },
      });
      const frames = Number(values.frames);
      if (!Number.isInteger(frames) || frames < 1) {
        throw new UsageError(`run: --frames must be a positive integer`);
      }
      if (values.mode !== "zero-copy" && values.mode !== "copy") {
        throw new UsageError(`run: --mode must be zero-copy or copy, got '${values.mode}'`);
      }
      const size = /^(\d+)x(\d+)$/.exec(values.size);
      if (!size) throw new UsageError(`run: --size must look like 640x480, got '${values.size}'`);
      const [width, height] = [Number(size[1]), Number(size[2])];
      if (!["NV12", "GREY", "YUYV"].includes(values.format)) {
        throw new UsageError(`run: --format must be NV12, GREY or YUYV, got '${values.format}'`);
      }
      let producer: Producer;
      if (values.producer === "heap") {
        producer = HeapProducer.open({
          heap: values.heap,
          format: values.format as PixelFormat,
          width,
          height,
        });
      } else if (values.producer === "v4l2") {
        producer = V4l2Producer.open({ device: values.camera, heap: values.heap, width, height });
      } else {
        throw new UsageError(`run: --producer must be heap or v4l2, got '${values.producer}'`);
      }
      using _producer = producer;
      const ctl = new AbortController();
      const onSignal = (): void => ctl.abort();
      Deno.addSignalListener("SIGINT", onSignal);
      try {
        const report = await runWorkload({
          frames,
          mode: values.mode as WorkloadMode,
          producer,
          heap: values.heap,
          device: values.device,
          timeoutMs: Number(values["timeout-ms"]),
          signal: ctl.signal,
          onFrame: values.json || values.quiet ? undefined : (f) =>
            console.log(
              `frame ${f.index} seq ${f.seqno} inode ${f.inode} latency ${
                ms(Number(f.latencyNs))
              } ms ` +
                `cpu ${ms(f.cpuNs)} ms crc32 ${f.crc32.toString(16).padStart(8, "0")}` +
                (f.resultOk === false ? " MISMATCH" : ""),
            ),
        });
        if (values.json) {
          printJson(report);
        } else {
          const l = report.latencyNs;
          console.log(
            `${report.completed}/${report.framesRequested} frames (${report.mode}, ${report.producer}) on ` +
              `${report.device.engine} ${report.device.device}: latency p50 ${ms(l.p50)} ms, p99 ${
                ms(l.p99)
              } ms; ` +
              `cpu ${ms(report.cpuNsPerFrame.p50)} ms/frame; imports ${report.imports}, releases ` +
              `${report.releases}, mismatches ${report.mismatches}${
                report.aborted ? " (interrupted)" : ""
              }`,
          );
        }
        const ok = report.completed === report.framesRequested && report.mismatches === 0;
        return ok ? ExitCode.Ok : ExitCode.Fail;
      } finally {
        Deno.removeSignalListener("SIGINT", onSignal);
      }
    });
  },
};
