/**
 * Running `perf record` on the workload's processes. Without a PMU (QEMU/TCG, many VMs)
 * `cycles` is not supported; perf then falls back to nothing useful, so the event is chosen
 * up front: `cycles` when `perf stat -e cycles` counts, `cpu-clock` otherwise, and the
 * choice is reported.
 *
 * @module
 */

/** Which sampling event was chosen, and why. */
export interface PerfEventChoice {
  /** `cycles` when a hardware counter counts, else `cpu-clock`. */
  event: "cycles" | "cpu-clock";
  /** Human-readable reason, e.g. `"cycles <not supported> (no PMU): using cpu-clock"`. */
  reason: string;
}

/**
 * Decides between `cycles` and `cpu-clock` from the CSV output of
 * `perf stat -x, -e cycles true` and its exit code. Pure, for tests.
 *
 * @example
 * ```ts
 * import { choosePerfEvent } from "./perf_record.ts";
 * console.log(choosePerfEvent("<not supported>,,cycles,0,100.00,,\n", 0).event); // "cpu-clock"
 * console.log(choosePerfEvent("1234567,,cycles,800000,100.00,,\n", 0).event); // "cycles"
 * ```
 */
export function choosePerfEvent(statOutput: string, exitCode: number): PerfEventChoice {
  const line = statOutput.split("\n").find((l) => /(^|,)cycles(:\w+)?(,|$)/.test(l));
  if (exitCode !== 0) {
    return {
      event: "cpu-clock",
      reason: `perf stat -e cycles failed (exit ${exitCode}): using cpu-clock`,
    };
  }
  if (!line) {
    return { event: "cpu-clock", reason: "perf stat printed no cycles count: using cpu-clock" };
  }
  const value = line.split(",")[0]!.trim();
  if (/^\d+$/.test(value) && Number(value) > 0) {
    return { event: "cycles", reason: "hardware cycles counter available" };
  }
  return {
    event: "cpu-clock",
    reason: `cycles ${value || "not counted"} (no PMU): using cpu-clock`,
  };
}

/**
 * Probes the PMU with `perf stat -x, -e cycles true`.
 *
 * @example
 * ```ts ignore
 * import { probePerfEvent } from "./perf_record.ts";
 * console.log((await probePerfEvent()).reason);
 * ```
 */
export async function probePerfEvent(perf = "perf"): Promise<PerfEventChoice> {
  let out: Deno.CommandOutput;
  try {
    out = await new Deno.Command(perf, {
      args: ["stat", "-x", ",", "-e", "cycles", "true"],
      stdout: "piped",
      stderr: "piped",
    }).output();
  } catch (e) {
    throw new Error(`cannot run '${perf}' (${(e as Error).message}): install linux-perf`, {
      cause: e,
    });
  }
  const text = new TextDecoder().decode(out.stderr) + new TextDecoder().decode(out.stdout);
  return choosePerfEvent(text, out.code);
}

/** Options of {@linkcode PerfRecording.start}. */
export interface PerfRecordOptions {
  /** perf binary (default `perf`). */
  perf?: string;
  /** Output file (put it on tmpfs, not 9p/NFS). */
  output: string;
  /** Sampling event. */
  event: "cycles" | "cpu-clock";
  /** Processes to record. */
  pids: number[];
  /** Sampling frequency in Hz (default 999). */
  frequency?: number;
  /** Unwinder (default `fp`; `dwarf` shows a leaf memcpy's caller at a much higher cost). */
  callGraph?: "fp" | "dwarf" | "lbr";
  /** How long to wait for perf to start recording (default 120000 ms). */
  startTimeoutMs?: number;
  /**
   * Stream the samples as perf records them (default false): perf writes its pipe format to
   * stdout with small ring buffers ({@linkcode STREAM_MMAP_PAGES}), so that they reach the
   * reader every fraction of a second instead of when perf stops; the recording still writes
   * `output` (`perf script -i` and `perf report -i` read the pipe format from a file) and
   * hands the same bytes to {@linkcode PerfRecording.live}.
   */
  stream?: boolean;
  /**
   * Run `perf script` beside the recording, in child processes only (exclusive with
   * `stream`): perf writes its pipe format into a FIFO, `tee` copies it into `output` and into
   * `perf script -i -` ({@linkcode PERF_SCRIPT_ARGS}), whose text goes to `script` and its
   * errors to `stderr`. No byte of the recording passes through the calling process, so a
   * recording of that process (verify's builtin workload) samples none of its own I/O; what
   * is left when perf stops is the tail. {@linkcode PerfRecording.script} settles when
   * `perf script` has printed its last line.
   */
  scriptBeside?: { script: string; stderr: string };
}

/**
 * Ring-buffer pages per event when streaming: 32 KiB. The kernel wakes perf record when half of
 * a ring buffer is full (its default watermark) and perf record writes only then, so the size
 * sets how often samples reach `perf script`: 16 KiB is some tens of samples with frame-pointer
 * call chains, a fraction of a second of a sampled process at the rates verify chooses. perf's
 * default (512 KiB) holds many seconds of samples, and 64 KiB still came in 32 KiB steps
 * seconds apart for one process in an earlier try.
 */
export const STREAM_MMAP_PAGES = 8;

/**
 * A running `perf record -g -p PIDS`; {@linkcode PerfRecording.start} resolves once perf
 * acknowledged that it records. Stop it with {@linkcode PerfRecording.stop} (SIGINT,
 * as perf expects) before reading the data.
 *
 * @example
 * ```ts ignore
 * import { PerfRecording } from "./perf_record.ts";
 * const rec = await PerfRecording.start({ output: "/tmp/perf.data", event: "cpu-clock", pids: [1234] });
 * // ... workload runs ...
 * await rec.stop();
 * ```
 */
export class PerfRecording {
  #child: Deno.ChildProcess;
  #stderr: Promise<string>;
  #done: Promise<Deno.CommandStatus>;
  /** The command line, for reports. */
  readonly argv: string[];
  #stderrText = "";
  #written: Promise<void> | undefined;
  /**
   * With `stream`: the recording's bytes as perf writes them (pipe format), for
   * `perf script -i -` ({@linkcode perfScriptLive}); consume or cancel it.
   */
  readonly live: ReadableStream<Uint8Array> | undefined;
  #beside: Deno.ChildProcess | undefined;
  #besideErr: Promise<string> | undefined;
  /**
   * With `scriptBeside`: settles when `perf script` beside the recording has ended, with the
   * path of its text; rejects when the pipeline failed (its error in the message).
   */
  readonly script: Promise<string> | undefined;

  /** What perf printed on stderr (after {@linkcode stop}). */
  get stderr(): string {
    return this.#stderrText;
  }

  private constructor(
    child: Deno.ChildProcess,
    argv: string[],
    output?: string,
    beside?: { child: Deno.ChildProcess; script: string; stderr: string },
  ) {
    this.#child = child;
    this.argv = argv;
    this.#stderr = new Response(child.stderr).text();
    this.#done = child.status;
    if (beside) {
      this.#beside = beside.child;
      const err = new Response(beside.child.stderr).text();
      this.#besideErr = err;
      this.script = beside.child.status.then(async (st) => {
        if (st.success) return beside.script;
        const perfErr = await Deno.readTextFile(beside.stderr).catch(() => "");
        throw new Error(
          `perf script beside perf record failed (exit ${st.code}${
            st.signal ? `, ${st.signal}` : ""
          }): ${((await err) + perfErr).trim().slice(-2000)}`,
        );
      });
      this.script.catch(() => {}); // the caller reads it
    }
    if (output !== undefined) {
      const [toFile, live] = child.stdout.tee();
      this.#written = writeStream(output, toFile);
      this.#written.catch(() => {}); // stop() reports it
      this.live = live;
    }
  }

  /** Starts perf; fails fast when it cannot be spawned. */
  static async start(options: PerfRecordOptions): Promise<PerfRecording> {
    if (options.pids.length === 0) throw new RangeError("PerfRecording.start(): no pids to record");
    for (const p of options.pids) {
      if (!Number.isInteger(p) || p <= 0) {
        throw new RangeError(`PerfRecording.start(): bad pid ${p}`);
      }
    }
    // perf starts with events disabled and is enabled through a control FIFO; its "ack"
    // says it is really recording (attaching can take tens of seconds under QEMU/TCG).
    if (options.stream && options.scriptBeside) {
      throw new RangeError("PerfRecording.start(): stream and scriptBeside exclude each other");
    }
    const beside = options.scriptBeside;
    const fifoDir = await Deno.makeTempDir({ prefix: "axl-perf-" });
    const ctl = `${fifoDir}/ctl`, ack = `${fifoDir}/ack`, pipe = `${fifoDir}/data`;
    const mk = await new Deno.Command("mkfifo", {
      args: [ctl, ack, ...(beside ? [pipe] : [])],
    }).output();
    if (mk.code !== 0) throw new Error(`mkfifo failed: ${new TextDecoder().decode(mk.stderr)}`);
    const argv = [
      options.perf ?? "perf",
      "record",
      "-q",
      // No copies of the sampled binaries into ~/.debug: on a fresh machine that copies
      // the whole deno binary when perf stops, and perf script reads them where they are.
      "--no-buildid-cache",
      "-e",
      options.event,
      "-F",
      String(options.frequency ?? 999),
      "--call-graph",
      options.callGraph ?? "fp",
      "-D",
      "-1",
      `--control=fifo:${ctl},${ack}`,
      ...(options.stream || beside
        ? ["--mmap-pages", String(STREAM_MMAP_PAGES), "-o", "-"]
        : ["-o", options.output]),
      "-p",
      options.pids.join(","),
    ];
    let child: Deno.ChildProcess;
    let reader: Deno.ChildProcess | undefined;
    try {
      if (beside) {
        // In a session of its own, so that a Ctrl-C at the terminal does not cut perf script
        // short: it ends when perf record closes the FIFO (perf record exits, stopped or because
        // the processes it records are gone), and tee ignores SIGINT as well.
        reader = new Deno.Command("setsid", {
          args: [
            "sh",
            "-c",
            'data=$1 pipe=$2 out=$3 err=$4; shift 4; tee -i -- "$data" < "$pipe" | "$@" > "$out" 2> "$err"',
            "sh",
            options.output,
            pipe,
            beside.script,
            beside.stderr,
            options.perf ?? "perf",
            "script",
            "-i",
            "-",
            ...PERF_SCRIPT_ARGS,
          ],
          stdin: "null",
          stdout: "null",
          stderr: "piped",
        }).spawn();
      }
      // With scriptBeside, the shell opens the FIFO as perf's stdout and becomes perf record
      // (exec): the child's pid is perf's, for SIGINT.
      child = new Deno.Command(beside ? "sh" : argv[0]!, {
        args: beside
          ? ["-c", 'pipe=$1; shift; exec "$@" > "$pipe"', "sh", pipe, ...argv]
          : argv.slice(1),
        stdin: "null",
        stdout: options.stream ? "piped" : "null",
        stderr: "piped",
      }).spawn();
    } catch (e) {
      if (reader) {
        reader.kill("SIGKILL");
        await reader.status;
        await reader.stderr.cancel().catch(() => {});
      }
      await Deno.remove(fifoDir, { recursive: true });
      // The reader is spawned first: without it, setsid (or sh) is what could not run.
      const [what, missing] = beside && !reader
        ? ["setsid", "setsid (util-linux) or sh, which run perf script beside perf record"]
        : [argv[0], "linux-perf"];
      throw new Error(`cannot run '${what}' (${(e as Error).message}): install ${missing}`, {
        cause: e,
      });
    }
    const rec = new PerfRecording(
      child,
      argv,
      options.stream ? options.output : undefined,
      reader && beside ? { child: reader, ...beside } : undefined,
    );
    const timeoutMs = options.startTimeoutMs ?? 120_000;
    let timer: ReturnType<typeof setTimeout> | undefined;
    try {
      const enabled = (async () => {
        const w = await Deno.open(ctl, { write: true });
        await w.write(new TextEncoder().encode("enable\n"));
        const r = await Deno.open(ack, { read: true });
        const buf = new Uint8Array(16);
        const n = await r.read(buf);
        r.close();
        w.close();
        return new TextDecoder().decode(buf.subarray(0, n ?? 0));
      })();
      const exited = rec.#done.then((st) => `exited:${st.code}`);
      const timedOut = new Promise<string>((res) =>
        timer = setTimeout(() => res("timeout"), timeoutMs)
      );
      const got = await Promise.race([enabled, exited, timedOut]);
      if (!got.startsWith("ack")) {
        try {
          child.kill("SIGKILL");
        } catch { /* gone */ }
        await rec.#done;
        await rec.live?.cancel();
        await rec.#written?.catch(() => {});
        if (rec.#beside) {
          // Its shell may still wait for the FIFO's writer, which is gone.
          try {
            rec.#beside.kill("SIGKILL");
          } catch { /* gone */ }
          await rec.script?.catch(() => {});
        }
        const err = await rec.#stderr;
        throw new Error(
          `${argv.join(" ")} did not start (${
            got === "timeout" ? `no ack in ${timeoutMs} ms` : got
          }): ${err.trim()}`,
        );
      }
    } finally {
      clearTimeout(timer);
      await Deno.remove(fifoDir, { recursive: true }).catch(() => {});
    }
    return rec;
  }

  /** Stops recording (SIGINT) and waits; rejects when perf failed. Idempotent. */
  async stop(): Promise<void> {
    try {
      this.#child.kill("SIGINT");
    } catch {
      // Already exited: its status tells.
    }
    const status = await this.#done;
    const err = await this.#stderr;
    this.#stderrText = err;
    // Streaming: the data file is complete once perf's stdout has ended; beside: once tee
    // and perf script have read to the end of the FIFO perf closed.
    await this.#written;
    await this.#beside?.status;
    await this.#besideErr;
    // perf exits 0 or 130 (SIGINT) after writing the file.
    if (status.code !== 0 && status.code !== 130 && status.signal !== "SIGINT") {
      throw new Error(`${this.argv.join(" ")} failed (exit ${status.code}): ${err.trim()}`);
    }
  }
}

/**
 * Writes `stream` to `path` chunk by chunk as it arrives. `Deno.writeFile()` with a stream
 * (Deno 2.9.5) writes nothing until the stream ends, so a file it writes cannot be read while
 * perf records.
 *
 * @example
 * ```ts ignore
 * import { writeStream } from "./perf_record.ts";
 * await writeStream("/tmp/out.txt", ReadableStream.from([new TextEncoder().encode("hi\n")]));
 * ```
 */
export async function writeStream(path: string, stream: ReadableStream<Uint8Array>): Promise<void> {
  using file = await Deno.open(path, { write: true, create: true, truncate: true });
  for await (const chunk of stream) {
    for (let done = 0; done < chunk.length;) done += await file.write(chunk.subarray(done));
  }
}

/**
 * The options of verify's `perf script`: the fields its parser reads (no "cpu" field:
 * per-process recordings (-p) do not sample the CPU number), and of each call chain only
 * the leaf and its caller, the two frames the perf summary uses. perf resolves a chain up
 * to `--max-stack` addresses, so the two frames printed are the first two of the full
 * chain; in the TCG guest that takes 7.7 s instead of 11.8 s for 1,889 samples, and prints
 * 340 KB instead of 2.5 MB for the fold to read.
 */
export const PERF_SCRIPT_ARGS: readonly string[] = [
  "-F",
  "comm,pid,tid,time,period,event,ip,sym,dso",
  "--max-stack",
  "2",
];

/**
 * Runs `perf script -i -` on a recording as it streams ({@linkcode PerfRecording.live}) and
 * returns its stdout, the same lines as {@linkcode perfScript} on the finished data file:
 * perf symbolises while the workload runs, and what is left when it stops is the tail. The
 * caller must consume or cancel the stream.
 *
 * @example
 * ```ts ignore
 * import { PerfRecording, perfScriptLive } from "./perf_record.ts";
 * const rec = await PerfRecording.start({ output: "/tmp/perf.data", event: "cpu-clock",
 *   pids: [1234], stream: true });
 * const lines = new Response(perfScriptLive(rec.live!)).text();
 * await rec.stop();
 * console.log(await lines);
 * ```
 */
export function perfScriptLive(
  input: ReadableStream<Uint8Array>,
  perf = "perf",
  stderrFile?: string,
): ReadableStream<Uint8Array> {
  const child = new Deno.Command(perf, {
    args: ["script", "-i", "-", ...PERF_SCRIPT_ARGS],
    stdin: "piped",
    stdout: "piped",
    stderr: stderrFile ? "piped" : "null",
  }).spawn();
  // perf script exiting early (its error is in stderrFile) cancels only this copy of the data.
  input.pipeTo(child.stdin).catch(() => {});
  if (stderrFile) {
    child.stderr.pipeTo(
      Deno.openSync(stderrFile, { write: true, create: true, truncate: true }).writable,
    );
  }
  return child.stdout;
}

/**
 * Runs `perf script` on a data file and returns its stdout as a stream (for
 * `parsePerfScript`). The caller must consume or cancel the stream.
 *
 * @example
 * ```ts ignore
 * import { perfScript } from "./perf_record.ts";
 * import { parsePerfScript } from "../parse/perf_script.ts";
 * for await (const s of parsePerfScript(perfScript("/tmp/perf.data"))) console.log(s.comm);
 * ```
 */
export function perfScript(
  data: string,
  perf = "perf",
  stderrFile?: string,
): ReadableStream<Uint8Array> {
  const child = new Deno.Command(perf, {
    args: ["script", "-i", data, ...PERF_SCRIPT_ARGS],
    stdin: "null",
    stdout: "piped",
    stderr: stderrFile ? "piped" : "null",
  }).spawn();
  if (stderrFile) {
    child.stderr.pipeTo(
      Deno.openSync(stderrFile, { write: true, create: true, truncate: true }).writable,
    );
  }
  return child.stdout;
}
