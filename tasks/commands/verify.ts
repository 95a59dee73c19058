/**
 * `axl verify`: proves the zero-copy frame path on this machine (invariants I1–I4) and
 * writes an artifacts directory with the raw evidence, result.json, a Perfetto trace and an
 * HTML report.
 *
 * @module
 */
import { z } from "zod";
import { type Command, ExitCode } from "../command.ts";
import { Device, type DeviceInfo } from "../../lib/device.ts";
import { HeapProducer } from "../../lib/producers/heap_producer.ts";
import type { Producer } from "../../lib/producers/producer.ts";
import { listCaptureDevices, V4l2Producer } from "../../lib/producers/v4l2_producer.ts";
import { builtinWorkload } from "../../lib/verify/builtin_workload.ts";
import { runVerify } from "../../lib/verify/run.ts";
import { commandWorkload, pidWorkload, type WorkloadSpec } from "../../lib/verify/workload.ts";
import { DEFAULT_ACCEPTED_EXPORTERS } from "../../lib/verify/judge.ts";
import type { Status } from "../../lib/verify/schema.ts";
import { parseOptions, printJson, runCommand, UsageError } from "../_cli.ts";
import { chooseImporter } from "../../lib/verify/evidence/importer.ts";
import { EVIDENCE_MODES, type EvidenceMode } from "../../lib/verify/evidence/source.ts";
import { systemAt } from "../../lib/doctor/system.ts";

/** The config file of a command workload (`--config FILE`). */
const ConfigSchema = z.object({
  /** argv of the workload, e.g. the GStreamer pipeline of seed 000. */
  command: z.array(z.string()).min(1),
  /** Frames the command is expected to run (sizes the trace buffer). */
  frames: z.number().int().positive().optional(),
  acceptExporters: z.array(z.string()).optional(),
});

const EXIT: Record<Status, number> = {
  PASS: ExitCode.Ok,
  FAIL: ExitCode.Fail,
  INCONCLUSIVE: ExitCode.Inconclusive,
  SKIP: ExitCode.Inconclusive,
};

/** The `verify` command. */
export const command: Command = {
  name: "verify",
  summary: "prove the zero-copy frame path (I1–I4) with ftrace, bufinfo and perf",
  help: `Usage: axl verify [options]

Captures a private tracefs instance (dma_fence:*, axl:*, function_graph on the
dma-buf functions), samples debugfs dma_buf/bufinfo, scans the workload's
/dmabuf: map refs and records perf call graphs while a workload runs, then
judges four invariants:
  I1 a frame buffer was shared by two devices during the run
  I2 its exporter is in the accepted set
  I3 imports equal frames submitted and releases balance (counted from the
     axl tracepoints, else kprobes on the dma-buf functions, else bufinfo)
  I4 no CPU copy routine at or above the threshold (default 1% self)
tracefs is restored afterwards, also on errors and Ctrl-C. Needs root.

Workload (one of):
  (default)         the builtin workload on the NPU device; where the device is
                    simulated (metis-sim) this is said on the first line
  --config FILE     JSON {"command": [argv...], "frames": N, "acceptExporters": [...]}
                    e.g. the GStreamer pipeline on a Jetson
  --pid PID         an existing process, for --duration seconds

Options:
  --frames N            builtin frames (default 60)
  --mode MODE           zero-copy (default) or copy (negative control: fails I4)
  --producer P          auto (default: v4l2 when a capture device exists, else
                        heap), v4l2 or heap
  --camera PATH         V4L2 capture device for the v4l2 producer
  --device PATH         NPU device node (default $AXL_DEVICE or /dev/axl)
  --duration S          seconds to observe --pid (default 10)
  --artifacts DIR       output directory (default artifacts/verify)
  --buffer-kb N         trace buffer per CPU in KiB (default: sized for the run)
  --bufinfo-interval MS bufinfo sampling interval (default 20)
  --accept-exporter E   add an accepted exporter (repeatable; default
                        ${DEFAULT_ACCEPTED_EXPORTERS.join(", ")})
  --threshold PCT       I4 copy-routine threshold in percent self (default 1)
  --importer DEV        the importing device as bufinfo names it (a PCI address
                        such as 0000:01:00.0, vivid.0, vgem); default the axl
                        device, else the Metis bound to Axelera's metis.ko
  --evidence E          where imports are counted from: auto (default: the best
                        source: axl tracepoints, kprobes on the dma-buf
                        functions, bufinfo), axl, or generic (never our
                        tracepoints)
  --no-probes           no kprobe events on the dma-buf functions
  --no-graph            no function_graph
  --no-perf             no perf (I4 is then SKIP)
  --json                print result.json instead of the summary

Artifacts: trace.txt, per_cpu_stats.txt, bufinfo_samples.txt, perf.script,
capture.json, result.json, trace.json (open in ui.perfetto.dev), report.html.

Exit codes: 0 PASS (all four invariants), 1 FAIL (an invariant failed; the
diagnosis says why and what to do), 2 INCONCLUSIVE or SKIP (lost trace events,
too few samples, a missing capability), 3 could not run (not root, no tracefs,
no device, bad options: the message says what to do).`,
  run(args: string[]): Promise<number> {
    return runCommand("verify", async () => {
      const { values } = parseOptions("verify", args, {
        frames: { type: "string", default: "60" },
        mode: { type: "string", default: "zero-copy" },
        producer: { type: "string", default: "auto" },
        camera: { type: "string" },
        device: { type: "string" },
        config: { type: "string" },
        pid: { type: "string" },
        duration: { type: "string", default: "10" },
        artifacts: { type: "string", default: "artifacts/verify" },
        "buffer-kb": { type: "string" },
        "bufinfo-interval": { type: "string", default: "20" },
        "accept-exporter": { type: "string", multiple: true },
        threshold: { type: "string", default: "1" },
        importer: { type: "string" },
        evidence: { type: "string", default: "auto" },
        "no-probes": { type: "boolean", default: false },
        "no-graph": { type: "boolean", default: false },
        "no-perf": { type: "boolean", default: false },
        json: { type: "boolean", default: false },
      });
      const int = (name: string, v: string | undefined, min: number): number | undefined => {
        if (v === undefined) return undefined;
        const n = Number(v);
        if (!Number.isInteger(n) || n < min) {
          throw new UsageError(`verify: --${name} must be an integer >= ${min}`);
        }
        return n;
      };
      const frames = int("frames", values.frames, 1)!;
      const threshold = Number(values.threshold);
      if (!(threshold > 0 && threshold <= 100)) {
        throw new UsageError("verify: --threshold must be in (0, 100]");
      }
      if (values.mode !== "zero-copy" && values.mode !== "copy") {
        throw new UsageError(`verify: --mode must be zero-copy or copy, got '${values.mode}'`);
      }
      const evidence = values.evidence as EvidenceMode;
      if (!EVIDENCE_MODES.includes(evidence)) {
        throw new UsageError(
          `verify: --evidence must be ${EVIDENCE_MODES.join(", ")}, got '${values.evidence}'`,
        );
      }
      if (values.config && values.pid) {
        throw new UsageError("verify: --config and --pid exclude each other");
      }
      let accepted = [...DEFAULT_ACCEPTED_EXPORTERS, ...(values["accept-exporter"] ?? [])];

      const stack = new DisposableStack();
      try {
        let workload: WorkloadSpec;
        let info: DeviceInfo | undefined;
        let headline: string;
        if (values.config) {
          let raw: unknown;
          try {
            raw = JSON.parse(await Deno.readTextFile(values.config));
          } catch (e) {
            throw new UsageError(
              `verify: cannot read --config ${values.config}: ${(e as Error).message}`,
            );
          }
          const cfg = ConfigSchema.safeParse(raw);
          if (!cfg.success) {
            const i = cfg.error.issues[0]!;
            throw new UsageError(
              `verify: --config ${values.config}: ${i.path.join(".") || "(root)"}: ${i.message}`,
            );
          }
          accepted = [...accepted, ...(cfg.data.acceptExporters ?? [])];
          workload = commandWorkload(cfg.data.command, cfg.data.frames ?? 300);
          headline = `axl verify: command workload from ${values.config}: ${
            cfg.data.command.join(" ")
          }`;
        } else if (values.pid) {
          const pid = int("pid", values.pid, 1)!;
          const seconds = Number(values.duration);
          if (!(seconds > 0)) throw new UsageError("verify: --duration must be > 0 seconds");
          workload = pidWorkload(pid, seconds * 1000);
          headline = `axl verify: observing pid ${pid} for ${seconds} s`;
        } else {
          const dev = stack.use(Device.open(values.device));
          info = dev.info();
          const producer = stack.use(openProducer(values.producer, values.camera));
          workload = builtinWorkload(
            { frames, mode: values.mode as "zero-copy" | "copy", producer, device: dev },
            `builtin workload, ${frames} frames, ${values.mode}, producer ${producer.name}`,
          );
          headline = info.caps.includes("simulated")
            ? `axl verify: no NPU here: builtin workload against the SIMULATED device (${info.engine} on ${info.device}, ${Deno.osRelease()})`
            : `axl verify: builtin workload on ${info.engine} ${info.device}`;
        }
        const importer = chooseImporter(systemAt("/"), {
          ...(values.importer !== undefined ? { explicit: values.importer } : {}),
          ...(info ? { axlDevice: info.device } : {}),
        });
        console.log(headline);
        const tty = Deno.stderr.isTerminal();
        const { result, artifacts } = await runVerify({
          artifacts: values.artifacts,
          workload,
          headline,
          graph: !values["no-graph"],
          perf: !values["no-perf"],
          bufinfoIntervalMs: int("bufinfo-interval", values["bufinfo-interval"], 0)!,
          ...(values["buffer-kb"]
            ? { bufferSizeKb: int("buffer-kb", values["buffer-kb"], 1)! }
            : {}),
          ...(info
            ? {
              device: {
                name: `${info.engine} ${info.device}`,
                simulated: info.caps.includes("simulated"),
              },
            }
            : {}),
          importer,
          probes: !values["no-probes"],
          judge: { acceptedExporters: accepted, copyThresholdPercent: threshold, evidence },
          onProgress: tty ? (m) => console.error(`  … ${m}`) : undefined,
        });
        if (values.json) {
          printJson(result);
        } else {
          const a = result.axl;
          for (const i of Object.values(a.invariants)) {
            console.log(`${i.id} ${i.status.padEnd(12)} ${i.summary}`);
          }
          if (a.evidence) {
            console.log(
              `evidence: ${a.evidence.source} (importer ${a.evidence.importer ?? "unknown"}: ` +
                `${a.evidence.importer_reason})`,
            );
          }
          if (a.latency.count > 0) {
            console.log(
              `latency (${a.latency.source}): p50 ${a.latency.p50} µs, p90 ${a.latency.p90} µs, p99 ${a.latency.p99} µs over ${a.latency.count} frames`,
            );
          }
          for (const d of a.diagnosis) {
            console.log(
              `diagnosis [${d.invariant}] ${d.symptom}\n  cause: ${d.cause}\n  fix:   ${d.fix}`,
            );
          }
          for (const n of a.notes) console.log(`note: ${n}`);
          console.log(`${a.status}  (artifacts: ${artifacts.dir}; report: ${artifacts.html})`);
        }
        return EXIT[result.axl.status];
      } catch (e) {
        if (e instanceof UsageError || e instanceof TypeError || e instanceof RangeError) throw e;
        if ((e as Error)?.name === "AxlError") throw e;
        // tracefs missing, not root, perf/debugfs trouble before the run: cannot run.
        console.error(`axl verify: could not run: ${(e as Error)?.message ?? e}`);
        return ExitCode.CannotRun;
      } finally {
        stack.dispose();
      }
    });
  },
};

function openProducer(kind: string, camera: string | undefined): Producer {
  if (kind === "heap") return HeapProducer.open();
  if (kind === "v4l2") return V4l2Producer.open({ device: camera });
  if (kind !== "auto") {
    throw new UsageError(`verify: --producer must be auto, v4l2 or heap, got '${kind}'`);
  }
  let cams: ReturnType<typeof listCaptureDevices> = [];
  try {
    cams = listCaptureDevices();
  } catch { /* no V4L2 here */ }
  return cams.length > 0 || camera
    ? V4l2Producer.open({ device: camera ?? cams[0]!.path })
    : HeapProducer.open();
}
