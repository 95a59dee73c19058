// perf during a capture: probe the event, attach to the workload, stop, write `perf.script`.
// Whatever goes wrong becomes the reason perf is unavailable, never an exception.
import { join } from "node:path";
import {
  PerfRecording,
  perfScript,
  perfScriptLive,
  probePerfEvent,
  writeStream,
} from "../trace/capture/perf_record.ts";
import { parsePerfScript, type PerfSummary, summarizePerf } from "../trace/parse/perf_script.ts";
import {
  readPerfMapFile,
  type ResolvedPerfScript,
  resolvePerfMapFrames,
} from "../trace/parse/perf_script_jit.ts";
import { choosePerfRate, describePerfRate, type PerfRate, readMaxSampleRate } from "./perf_rate.ts";

/** perf's rate as capture.json records it: the choice, and the kernel's limit once perf stopped. */
export interface PerfRateRecord extends PerfRate {
  /**
   * The kernel's `perf_event_max_sample_rate` once perf stopped, when it was lower than at the
   * start: the kernel lowered it during the run because perf's interrupts took too long, and
   * throttled the samples.
   */
  maxSampleRateAfter?: number;
}

/** Options of {@linkcode PerfCapture.probe}. */
export interface PerfCaptureOptions {
  /** False: perf is "disabled (--no-perf)". */
  enabled: boolean;
  /** perf binary (default `perf`). */
  binary?: string;
  /** Samples per second asked for; default: chosen from the workload (`perf_rate.ts`). */
  frequency?: number;
  /** The workload's kind (`builtin-…`, `command`, `pid`), for the rate. */
  kind: string;
  /** The frames the workload will submit, when known, for the rate. */
  frames?: number;
  /** Where the kernel says how fast perf may sample (default: procfs). */
  maxSampleRatePath?: string;
  /** Where `perf record` writes (a temporary directory: not 9p, not the artifacts). */
  data: string;
  /**
   * Where `perf.script` and `perf-script.err` go. Given, perf script reads the samples as
   * perf records them (pipe mode), so that what is left when the workload ends is the tail;
   * its frames in a JIT's perf map are then named again from the map's final contents
   * ({@linkcode resolvePerfMapFrames}) before the text is saved and folded. Absent, perf
   * script runs on the data file after perf stops.
   */
  live?: string;
  /** Reads a JIT's perf map at the end of a live run (default: the file, `/tmp/perf-PID.map`). */
  readPerfMap?: (path: string) => string | undefined;
  say: (message: string) => void;
  /** Capture notes (the event chosen when it is not `cycles`). */
  notes: string[];
}

/** perf script reading perf's output while it records: its bytes, held, and their fold. */
interface LivePerfScript {
  pids: number[];
  printed: Promise<Uint8Array>;
  /** Absent when perf script ran beside perf record (the workload runs in verify's process). */
  folded?: Promise<PerfSummary>;
}

/**
 * How perf script met the samples (capture.json's `perf.script`): `streamed`, perf's pipe
 * output through verify into perf script, whose text verify folded as it came; `beside`, the
 * same pipe mode in child processes only (`tee` and `perf script` writing files), read and
 * folded by verify after perf stopped; `after`, perf script on the data file after perf stopped.
 */
export type PerfScriptMode = "streamed" | "beside" | "after";

/** One capture's perf recording. */
export class PerfCapture {
  /** The event perf records, once probed. */
  event: { event: "cycles" | "cpu-clock"; reason: string } | undefined;
  /** Why there is no perf evidence, once something failed. */
  unavailable: string | undefined;
  #o: PerfCaptureOptions;
  #recording: PerfRecording | undefined;
  #live: LivePerfScript | undefined;
  /** With a live run, once its output was saved: what naming its JIT frames again did. */
  resolved: Omit<ResolvedPerfScript, "text"> | undefined;
  /**
   * With a live run, once its output was saved: whether the summary is the fold made while
   * perf script printed (true: naming the JIT frames again changed nothing) or a fold of the
   * saved text (false).
   */
  foldedLive: boolean | undefined;
  /** The rate perf records at, once probed. */
  rate: PerfRateRecord | undefined;
  /** How perf script runs, once perf records. */
  scriptMode: PerfScriptMode | undefined;

  private constructor(o: PerfCaptureOptions) {
    this.#o = o;
    this.unavailable = o.enabled ? undefined : "disabled (--no-perf)";
  }

  /** Chooses the event (cycles, else cpu-clock) unless perf is disabled. */
  static async probe(o: PerfCaptureOptions): Promise<PerfCapture> {
    const p = new PerfCapture(o);
    if (p.unavailable) return p;
    try {
      p.event = await probePerfEvent(o.binary);
      if (p.event.event === "cpu-clock") o.notes.push(`perf: ${p.event.reason}`);
      const max = readMaxSampleRate(o.maxSampleRatePath, o.notes);
      p.rate = choosePerfRate({
        kind: o.kind,
        ...(o.frames !== undefined ? { frames: o.frames } : {}),
        ...(o.frequency !== undefined ? { explicitHz: o.frequency } : {}),
        ...(max !== undefined ? { maxSampleRate: max } : {}),
      });
    } catch (e) {
      p.unavailable = (e as Error).message;
    }
    return p;
  }

  /** Starts `perf record` on `pids`. */
  async attach(pids: number[]): Promise<void> {
    if (!this.event || this.unavailable || pids.length === 0) return;
    try {
      const rate = this.rate!;
      // The builtin runs in verify's own process, which perf samples. Streamed, perf's bytes
      // would pass through this process into perf.data (and perf script's text be held and
      // folded here) while the frames run, and I4 would count those writes as the workload's
      // copies: for the builtin, tee and perf script do that I/O in child processes, which
      // perf does not record, and this process reads their output once perf has stopped.
      const inOurProcess = this.#o.kind.startsWith("builtin");
      const live = this.#o.live;
      const scriptFile = `${this.#o.data}.script`;
      this.#o.say(
        `attaching perf (${this.event.event} at ${describePerfRate(rate)}) to ${pids.join(",")}`,
      );
      this.#recording = await PerfRecording.start({
        output: this.#o.data,
        event: this.event.event,
        pids,
        frequency: rate.hz,
        ...(this.#o.binary ? { perf: this.#o.binary } : {}),
        ...(live && !inOurProcess ? { stream: true } : {}),
        ...(live && inOurProcess
          ? { scriptBeside: { script: scriptFile, stderr: join(live, "perf-script.err") } }
          : {}),
      });
      this.scriptMode = this.#recording.live
        ? "streamed"
        : this.#recording.script
        ? "beside"
        : "after";
      if (live && this.#recording.script) {
        // Read once perf script has ended, after perf stopped: nothing of it during the frames.
        const printed = this.#recording.script.then((path) => Deno.readFile(path));
        printed.catch(() => {}); // writeScript() reports it
        this.#live = { pids, printed };
      } else if (live && this.#recording.live) {
        const output = perfScriptLive(
          this.#recording.live,
          this.#o.binary,
          join(live, "perf-script.err"),
        );
        // Held until the end: perf script named the JIT's functions from the perf map as
        // it was when perf script first met the process, and they are named again from the
        // map's final contents before the text is saved and folded.
        // Folded as perf script prints it, while the workload runs (never the builtin's: see
        // above). The verdict takes this fold when naming the JIT frames again changes no byte
        // of the output.
        const [held, toFold] = output.tee();
        const printed = new Response(held).bytes();
        printed.catch(() => {}); // writeScript() reports it
        const folded = summarizePerf(parsePerfScript(toFold, join(live, "perf.script")), { pids });
        folded.catch(() => {}); // the output is folded again from its text then
        this.#live = { pids, printed, folded };
      }
    } catch (e) {
      this.unavailable = (e as Error).message;
    }
  }

  /** Stops recording; writes `perf-record.log` to `dir`; checks the data file. */
  async stop(dir: string): Promise<void> {
    const recording = this.#recording;
    if (!recording) return;
    try {
      await recording.stop();
    } catch (e) {
      this.unavailable = (e as Error).message;
    }
    const after = readMaxSampleRate(this.#o.maxSampleRatePath, this.#o.notes);
    const before = this.rate?.maxSampleRate;
    if (this.rate && after !== undefined && before !== undefined && after < before) {
      this.rate.maxSampleRateAfter = after;
      this.#o.notes.push(
        `perf: the kernel lowered perf_event_max_sample_rate from ${before} to ${after} during ` +
          `the run (perf's interrupts took too long)` +
          (after < this.rate.hz
            ? `: perf, asked for ${this.rate.hz} Hz, was held to ${after}`
            : ""),
      );
    }
    await Deno.writeTextFile(
      join(dir, "perf-record.log"),
      `${recording.argv.join(" ")}\n${recording.stderr}`,
    );
    try {
      const size = (await Deno.stat(this.#o.data)).size;
      if (size === 0) this.unavailable = "perf record wrote an empty file";
    } catch {
      this.unavailable = `perf record wrote no data file (see perf-record.log)`;
    }
  }

  /**
   * Writes `perf.script` (and `perf-script.err`) to `dir` when perf recorded, with a copy of
   * `perf.data` for whole call chains (`perf script -i perf.data`), and folds the
   * samples of `pids` as perf prints them, so that neither waits for the other; the path,
   * and the summary unless the output did not parse (the judge then reads the file and
   * names the line). When perf script already runs on the live recording into `dir`, this
   * waits for its tail, names its JIT frames again from the perf maps' final contents, and
   * folds the pids given to {@linkcode PerfCapture.attach}; where perf's naming from a map
   * would not be certain (entries that overlap), it runs perf script on the data file instead.
   */
  async writeScript(
    dir: string,
    pids: number[],
  ): Promise<{ path: string; summary?: PerfSummary } | undefined> {
    if (!this.scripting) return undefined;
    const live = this.#live && this.#o.live === dir ? this.#live : undefined;
    const path = join(dir, "perf.script");
    // perf.script holds two frames per sample: perf.data keeps the whole call chains.
    const afterTheRun = () =>
      saveAndFold(
        perfScript(this.#o.data, this.#o.binary, join(dir, "perf-script.err")),
        path,
        pids,
      );
    const [folded] = await Promise.all([
      live ? this.#resolveLive(live, path, afterTheRun) : afterTheRun(),
      Deno.copyFile(this.#o.data, join(dir, "perf.data")),
    ]);
    return { path, ...folded };
  }

  /** The live output with its JIT frames named again, saved and folded. */
  async #resolveLive(
    live: LivePerfScript,
    path: string,
    afterTheRun: () => Promise<{ summary?: PerfSummary }>,
  ): Promise<{ summary?: PerfSummary }> {
    let printed: Uint8Array;
    try {
      printed = await live.printed;
    } catch (e) {
      this.#o.say(`perf: ${(e as Error).message}: running perf script on the data file`);
      this.foldedLive = false;
      return await afterTheRun();
    }
    let resolved: ResolvedPerfScript;
    let script = "";
    try {
      // Not UTF-8 (perf prints names as their bytes): text would not give them back.
      script = new TextDecoder("utf-8", { fatal: true }).decode(printed);
      resolved = resolvePerfMapFrames(script, this.#o.readPerfMap ?? readPerfMapFile);
    } catch (e) {
      resolved = { text: "", frames: 0, renamed: 0, maps: [], ambiguous: (e as Error).message };
    }
    const { text, ...what } = resolved;
    this.resolved = what;
    if (resolved.ambiguous) {
      this.#o.say(
        `perf: the live output cannot be named again as perf script would ` +
          `(${resolved.ambiguous}): running perf script on the data file`,
      );
      return await afterTheRun();
    }
    if (what.renamed > 0) {
      this.#o.say(
        `perf: ${what.renamed} of ${what.frames} frames in a JIT's perf map named again from ` +
          `its final contents (${what.maps.map((m) => m.path).join(", ")})`,
      );
    }
    await Deno.writeTextFile(path, text);
    this.foldedLive = false;
    if (text === script && live.folded) {
      // The same bytes the live fold read: its summary is this text's.
      try {
        const summary = await live.folded;
        this.foldedLive = true;
        return { summary };
      } catch { /* folded again below, which names the line */ }
    }
    try {
      return { summary: await summarizePerf(parsePerfScript([text], path), { pids: live.pids }) };
    } catch {
      return {}; // the judge folds the file and names the line
    }
  }

  /** With a live run: settles when perf script has printed its last line. */
  get livePrinted(): Promise<unknown> | undefined {
    return this.#live?.printed;
  }

  /** Whether {@linkcode PerfCapture.writeScript} runs perf script (perf recorded). */
  get scripting(): boolean {
    return this.#recording !== undefined && !this.unavailable && this.event !== undefined;
  }

  /** The perf part of the capture record. */
  record():
    | { unavailable: string }
    | { event: string; reason: string; rate?: PerfRateRecord; script?: PerfScriptMode } {
    if (this.#recording && !this.unavailable && this.event) {
      return {
        event: this.event.event,
        reason: this.event.reason,
        ...(this.rate ? { rate: this.rate } : {}),
        ...(this.scriptMode ? { script: this.scriptMode } : {}),
      };
    }
    return { unavailable: this.unavailable ?? "not recorded" };
  }
}

/**
 * Writes `perf script` output to `path` and folds the samples of `pids` from the same bytes
 * as they arrive. The summary is absent when the output does not parse.
 */
export async function saveAndFold(
  output: ReadableStream<Uint8Array>,
  path: string,
  pids: number[],
): Promise<{ summary?: PerfSummary }> {
  const [toFile, toFold] = output.tee();
  const [written, folded] = await Promise.allSettled([
    writeStream(path, toFile),
    summarizePerf(parsePerfScript(toFold, path), { pids }),
  ]);
  if (written.status === "rejected") throw written.reason;
  return folded.status === "fulfilled" ? { summary: folded.value } : {};
}
