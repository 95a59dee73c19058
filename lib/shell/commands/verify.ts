/**
 * `verify`: the zero-copy verification (lib/verify's runVerify, as `axl verify` runs it)
 * of the builtin workload on the session's device — private trace instance, bufinfo
 * samples, map-ref scans and perf around the frames, judged against invariants I1–I4,
 * artifacts written to a directory; the value is result.json.
 *
 * @module
 */
import { HeapProducer } from "../../producers/heap_producer.ts";
import type { Producer } from "../../producers/producer.ts";
import { listCaptureDevices, V4l2Producer } from "../../producers/v4l2_producer.ts";
import { builtinWorkload } from "../../verify/builtin_workload.ts";
import { DEFAULT_ACCEPTED_EXPORTERS } from "../../verify/judge.ts";
import { runVerify } from "../../verify/run.ts";
import type { Status, VerifyResult } from "../../verify/schema.ts";
import type { WorkloadMode } from "../../workload.ts";
import { AxlError } from "../../errors.ts";
import { parseCount } from "../args.ts";
import { CannotRunError, type ShellCommand, UsageError } from "../command.ts";
import { ExitCode } from "../exit_code.ts";
import type { Session } from "../session.ts";
import { chooseImporter } from "../../verify/evidence/importer.ts";
import { systemAt } from "../../doctor/system.ts";

const EXIT: Record<Status, number> = {
  PASS: ExitCode.Ok,
  FAIL: ExitCode.Fail,
  SKIP: ExitCode.Inconclusive,
  INCONCLUSIVE: ExitCode.Inconclusive,
};

// A session producer by variable, or one opened for this run (closed after it).
function producerFor(
  session: Session,
  word: string | undefined,
  camera: string | undefined,
): { producer: Producer; owned: boolean } {
  if (word !== undefined && Object.hasOwn(session.scope, word)) {
    const p = session.scope[word];
    if (session.kindOf(p) !== "producer") throw new UsageError(`verify: ${word} is not a producer`);
    return { producer: p as Producer, owned: false };
  }
  const kind = word ?? "auto";
  const heap = session.heap;
  if (kind === "heap") return { producer: HeapProducer.open({ heap }), owned: true };
  const cams = kind === "auto" && !camera ? listCaptureDevices() : [];
  if (kind === "v4l2" || camera || cams.length) {
    return {
      producer: V4l2Producer.open({ heap, device: camera ?? cams[0]?.path }),
      owned: true,
    };
  }
  if (kind !== "auto") {
    throw new UsageError(
      `verify: --producer is a producer variable, auto, v4l2 or heap, not '${kind}'`,
    );
  }
  return { producer: HeapProducer.open({ heap }), owned: true };
}

function resultText(result: VerifyResult, dir: string): string {
  const a = result.axl;
  const lines = [a.headline];
  for (const i of Object.values(a.invariants)) {
    lines.push(`${i.id} ${i.status.padEnd(12)} ${i.summary}`);
  }
  if (a.latency.count > 0) {
    lines.push(
      `latency (${a.latency.source}): p50 ${a.latency.p50} µs, p90 ${a.latency.p90} µs, ` +
        `p99 ${a.latency.p99} µs over ${a.latency.count} frames`,
    );
  }
  for (const d of a.diagnosis) {
    lines.push(
      `diagnosis [${d.invariant}] ${d.symptom}`,
      `  cause: ${d.cause}`,
      `  fix:   ${d.fix}`,
    );
  }
  for (const n of a.notes) lines.push(`note: ${n}`);
  lines.push(`${a.status}  (artifacts: ${dir})`);
  return lines.join("\n");
}

/** The `verify` command. */
export const command: ShellCommand = {
  name: "verify",
  summary: "prove the zero-copy path (I1–I4) on the builtin workload; value: result.json",
  positionals: [],
  options: {
    frames: {
      type: "string",
      short: "n",
      kind: "number",
      arg: "N",
      description: "frames (default 60)",
    },
    mode: {
      type: "string",
      kind: "choice",
      choices: ["zero-copy", "copy"],
      description: "zero-copy, or the copy negative control (must fail I4)",
    },
    producer: {
      type: "string",
      kind: "producer",
      arg: "P",
      description: "a producer variable, or auto (default), v4l2, heap",
    },
    camera: { type: "string", kind: "path", arg: "PATH", description: "V4L2 capture device" },
    artifacts: {
      type: "string",
      kind: "path",
      arg: "DIR",
      description: "output directory (default artifacts/verify)",
    },
    "accept-exporter": {
      type: "string",
      arg: "E,...",
      description: `more accepted exporters (default ${DEFAULT_ACCEPTED_EXPORTERS.join(", ")})`,
    },
    threshold: { type: "string", arg: "PCT", description: "I4 copy threshold, % self (default 1)" },
    "buffer-kb": {
      type: "string",
      kind: "number",
      arg: "KIB",
      description: "trace buffer per CPU",
    },
    "bufinfo-interval": {
      type: "string",
      kind: "number",
      arg: "MS",
      description: "bufinfo sampling interval (default 20)",
    },
    "no-graph": { type: "boolean", description: "no function_graph (faster to set up)" },
    "no-perf": { type: "boolean", description: "no perf (I4 is then SKIP)" },
  },
  details: "The same run as 'axl verify' (see its --help), on the session's device. Needs\n" +
    "root, tracefs and debugfs. Exit status 0 PASS, 1 FAIL, 2 SKIP or INCONCLUSIVE,\n" +
    "3 could not run. Ctrl-C stops the frames; the run is judged on what was captured\n" +
    "and tracefs is restored.",
  async run(ctx, args) {
    if (args.positionals.length) {
      throw new UsageError(`verify: unexpected '${args.positionals[0]}'`);
    }
    const v = args.values as Record<string, string | boolean | undefined>;
    const str = (k: string): string | undefined =>
      typeof v[k] === "string" ? v[k] as string : undefined;
    const mode = (str("mode") ?? "zero-copy") as WorkloadMode;
    if (mode !== "zero-copy" && mode !== "copy") {
      throw new UsageError(`verify: --mode is zero-copy or copy, not '${v.mode}'`);
    }
    const frames = str("frames") === undefined
      ? 60
      : parseCount(str("frames")!, "verify: --frames");
    if (frames < 1) throw new UsageError("verify: --frames must be at least 1");
    const threshold = str("threshold") === undefined ? 1 : Number(str("threshold"));
    if (!(threshold > 0 && threshold <= 100)) {
      throw new UsageError("verify: --threshold must be in (0, 100]");
    }
    const accepted = [
      ...DEFAULT_ACCEPTED_EXPORTERS,
      ...(str("accept-exporter")?.split(",").filter(Boolean) ?? []),
    ];

    const device = ctx.session.device();
    const info = device.info();
    const { producer, owned } = producerFor(ctx.session, str("producer"), str("camera"));
    try {
      const description = `builtin workload, ${frames} frames, ${mode}, producer ${producer.name}`;
      const inner = builtinWorkload(
        { frames, mode, device, producer, heap: ctx.session.heap },
        description,
      );
      // Ctrl-C stops the frames; the run is then judged on what was captured.
      const workload = {
        ...inner,
        start: () => {
          const running = inner.start();
          ctx.signal.addEventListener("abort", () => running.stop(), { once: true });
          return running;
        },
      };
      const headline = info.caps.includes("simulated")
        ? `axl verify: no NPU here: builtin workload against the SIMULATED device (${info.engine} on ${info.device}, ${Deno.osRelease()})`
        : `axl verify: builtin workload on ${info.engine} ${info.device}`;
      const artifactsDir = str("artifacts") ?? "artifacts/verify";
      let run;
      try {
        run = await runVerify({
          artifacts: artifactsDir,
          workload,
          headline,
          graph: v["no-graph"] !== true,
          perf: v["no-perf"] !== true,
          ...(str("bufinfo-interval") !== undefined
            ? {
              bufinfoIntervalMs: parseCount(str("bufinfo-interval")!, "verify: --bufinfo-interval"),
            }
            : {}),
          ...(str("buffer-kb") !== undefined
            ? { bufferSizeKb: parseCount(str("buffer-kb")!, "verify: --buffer-kb") }
            : {}),
          device: {
            name: `${info.engine} ${info.device}`,
            simulated: info.caps.includes("simulated"),
          },
          importer: chooseImporter(systemAt("/"), { axlDevice: info.device }),
          judge: { acceptedExporters: accepted, copyThresholdPercent: threshold },
          onProgress: (m) => ctx.note(`… ${m}`),
        });
      } catch (err) {
        if (err instanceof AxlError || err instanceof TypeError || err instanceof RangeError) {
          throw err;
        }
        // tracefs missing, not root, perf or debugfs trouble before the run.
        throw new CannotRunError(`verify: could not run: ${(err as Error)?.message ?? err}`, {
          cause: err,
        });
      }
      return {
        value: run.result,
        text: resultText(run.result, run.artifacts.dir),
        code: EXIT[run.result.axl.status],
      };
    } finally {
      if (owned) producer.close();
    }
  },
};
