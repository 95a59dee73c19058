/**
 * A tracefs capture session for one verification run: a private instance under
 * `instances/` with the `dma_fence:*` and `axl:*` events and, where the kernel has it,
 * function_graph limited to the dma-buf attach/map/export functions. Every file it changes
 * is read first and written back on {@linkcode TraceSession.close} — also on errors, SIGINT,
 * SIGTERM and process exit — and the instance is removed. What it found is recorded in the
 * process's state file (`tracefs_journal.ts`) before each change, so that the next run or
 * `axl reset` can put it back after a SIGKILL. The top-level buffer is used only
 * when the kernel cannot do the job in an instance, and the session says so.
 *
 * Undo steps are synchronous on purpose: they must also run from an `unload` handler.
 *
 * @module
 */
import { type CpuBufferStats, parsePerCpuStats } from "../parse/per_cpu_stats.ts";
import { pathExists } from "../../core/path_exists.ts";
import { type JournalRecord, TracefsJournal } from "./tracefs_journal.ts";
import type { UndoStep } from "./tracefs_state_file.ts";
import { applyUndo } from "./tracefs_undo.ts";

/** The dma-buf functions function_graph is limited to (those absent in the kernel are skipped). */
export const DMABUF_GRAPH_FUNCTIONS: readonly string[] = [
  "dma_buf_attach",
  "dma_buf_dynamic_attach",
  "dma_buf_detach",
  "dma_buf_map_attachment",
  "dma_buf_map_attachment_unlocked",
  "dma_buf_unmap_attachment",
  "dma_buf_unmap_attachment_unlocked",
  "dma_buf_export",
  "dma_buf_fd",
];

/** The events a verification run needs. */
export const VERIFY_EVENTS: readonly string[] = ["dma_fence:*", "axl:*"];

/**
 * Events a run records when the kernel has them, and does not miss when it has not:
 * nvmap's dma-buf events (a Jetson's nvmap, or the rig's nvmap-sim). They name buffers by
 * their `struct dma_buf` pointer (`dmabuf=%p`), so a session that enables them clears the
 * `hash-ptr` option of its buffer (journalled and restored like every change), and the
 * pointers print as the kprobes' `buf=` values do.
 */
export const OPTIONAL_VERIFY_EVENTS: readonly string[] = ["nvmap:*"];

/** Options of {@linkcode TraceSession.open}. */
export interface TraceSessionOptions {
  /** tracefs mount point; default the first of /sys/kernel/tracing, /sys/kernel/debug/tracing. */
  tracefs?: string;
  /** `system:event` or `system:*` specs; default {@linkcode VERIFY_EVENTS}. */
  events?: readonly string[];
  /**
   * Specs enabled only when the kernel has them (never in `missingEvents`); default
   * {@linkcode OPTIONAL_VERIFY_EVENTS}.
   */
  optionalEvents?: readonly string[];
  /** Functions for function_graph; `false` disables it. Default {@linkcode DMABUF_GRAPH_FUNCTIONS}. */
  graphFunctions?: readonly string[] | false;
  /** Per-CPU buffer size in KiB (see {@linkcode sizeBufferKb}). */
  bufferSizeKb: number;
  /** Trace clock; default `mono` (CLOCK_MONOTONIC, comparable with fence timestamps). */
  clock?: string;
  /** Instance name; default `axl-verify-<pid>`. */
  instanceName?: string;
  /** Use the top-level buffer even when an instance would work. */
  topLevel?: boolean;
  /** Restore on SIGINT/SIGTERM and exit (130/143). Default true. */
  handleSignals?: boolean;
  /**
   * Turn on the `record-tgid` option, so that each line names the thread's process
   * (`comm-TID (TGID) [cpu]`). Default false: the line's format stays as the trace scanners
   * have always read it.
   */
  recordTgid?: boolean;
  /**
   * Event filters by `system:event` (the kernel's filter syntax, e.g. `magic == 0x444d4142`),
   * set before the events are enabled and cleared when the session closes.
   */
  filters?: Readonly<Record<string, string>>;
}

/** What the session set up. */
export interface TraceSessionInfo {
  /** tracefs mount point. */
  tracefs: string;
  /** Directory the session writes to (the instance, or the mount point). */
  dir: string;
  /** Instance name, or `null` on the top-level buffer. */
  instance: string | null;
  /** Why the top-level buffer is used, when it is. */
  topLevelReason?: string;
  /** `function_graph` or `nop`. */
  tracer: string;
  /** Functions function_graph is limited to. */
  graphFunctions: string[];
  /** Why function_graph is not used, when it is not. */
  graphUnavailable?: string;
  /** `system:event` names enabled. */
  events: string[];
  /** Requested specs that matched nothing (e.g. `axl:*` without the module). */
  missingEvents: string[];
  /** Trace clock in use. */
  clock: string;
  /** Per-CPU buffer size the kernel actually set, in KiB. */
  bufferSizeKb: number;
  /** Things a reader of the report should know. */
  notes: string[];
}

/** One undoable change, as recorded in the state file. */
interface Change {
  what: string;
  undo: UndoStep;
  record: JournalRecord;
}

/**
 * A per-CPU buffer size (KiB) for a run of `frames` frames: events per frame times a
 * generous entry size, four times over (events bunch up on one CPU), clamped to
 * [1 MiB, 256 MiB].
 *
 * @example
 * ```ts
 * import { sizeBufferKb } from "./tracefs.ts";
 * console.log(sizeBufferKb({ frames: 300, graph: true })); // 4500
 * ```
 */
export function sizeBufferKb(
  opts: { frames: number; graph: boolean; perFrameEvents?: number },
): number {
  if (!Number.isFinite(opts.frames) || opts.frames < 0) {
    throw new RangeError(`sizeBufferKb(): frames must be >= 0, got ${opts.frames}`);
  }
  const perFrame = opts.perFrameEvents ?? (opts.graph ? 40 : 12);
  const bytes = opts.frames * perFrame * 96 * 4;
  return Math.min(256 * 1024, Math.max(1024, Math.ceil(bytes / 1024)));
}

/**
 * Finds the tracefs mount point.
 *
 * @example
 * ```ts ignore
 * import { findTracefs } from "./tracefs.ts";
 * console.log(await findTracefs());
 * ```
 */
export function findTracefs(
  candidates = ["/sys/kernel/tracing", "/sys/kernel/debug/tracing"],
): string {
  for (const c of candidates) {
    try {
      Deno.statSync(`${c}/trace`);
      return c;
    } catch {
      // try the next
    }
  }
  throw new Error(
    `tracefs is not mounted (looked in ${candidates.join(", ")}): ` +
      "mount -t tracefs nodev /sys/kernel/tracing, and run as root",
  );
}

function read(path: string): string {
  return Deno.readTextFileSync(path);
}

function write(path: string, value: string): void {
  try {
    Deno.writeTextFileSync(path, value);
  } catch (e) {
    const hint = e instanceof Deno.errors.PermissionDenied ? " (run as root)" : "";
    throw new Error(
      `write ${JSON.stringify(value.trim())} to ${path}: ${(e as Error).message}${hint}`,
      {
        cause: e,
      },
    );
  }
}

/** The bracketed choice of a tracefs selector file (`[local] global mono`). */
function selected(text: string): string | undefined {
  return /\[([^\]]+)\]/.exec(text)?.[1];
}

/** The expanded size of `buffer_size_kb` (`1408` or `7 (expanded: 1408)`). */
function bufferKb(text: string): number {
  const m = /expanded:\s*(\d+)/.exec(text) ?? /^\s*(\d+)/.exec(text);
  return m ? Number(m[1]) : NaN;
}

const openSessions = new Set<TraceSession>();
let unloadHooked = false;

/**
 * A capture session. Open it, start, run the workload, stop, read, close.
 *
 * @example
 * ```ts ignore
 * import { TraceSession } from "./tracefs.ts";
 * await using session = TraceSession.open({ bufferSizeKb: 4096 });
 * console.log(session.info);
 * session.start();
 * // ... workload ...
 * session.stop();
 * await Deno.writeFile("trace.txt", session.readTrace());
 * console.log(session.stats());
 * ```
 */
export class TraceSession {
  #changes: Change[] = [];
  #info: TraceSessionInfo;
  #closed = false;
  #signalHandlers: Array<[Deno.Signal, () => void]> = [];

  private constructor(info: TraceSessionInfo) {
    this.#info = info;
  }

  /** What was set up. */
  get info(): TraceSessionInfo {
    return this.#info;
  }

  /** Whether {@linkcode close} has run. */
  get closed(): boolean {
    return this.#closed;
  }

  /**
   * Sets everything up with tracing off. On any failure, what was already changed is
   * restored before the error is thrown.
   */
  static open(options: TraceSessionOptions): TraceSession {
    const kb = options.bufferSizeKb;
    if (!Number.isInteger(kb) || kb < 1) {
      throw new RangeError(
        `TraceSession.open(): bufferSizeKb must be a positive integer, got ${kb}`,
      );
    }
    const tracefs = options.tracefs ?? findTracefs();
    const info: TraceSessionInfo = {
      tracefs,
      dir: tracefs,
      instance: null,
      tracer: "nop",
      graphFunctions: [],
      events: [],
      missingEvents: [],
      clock: "",
      bufferSizeKb: 0,
      notes: [],
    };
    const s = new TraceSession(info);
    s.#register(options.handleSignals ?? true);
    try {
      s.#setup(options);
    } catch (e) {
      const restoreErrors = s.#restore();
      s.#unregister();
      if (restoreErrors.length > 0) {
        throw new Error(
          `${(e as Error).message}; restoring tracefs also failed: ${restoreErrors.join("; ")}`,
          {
            cause: e,
          },
        );
      }
      throw e;
    }
    return s;
  }

  #setup(o: TraceSessionOptions): void {
    const info = this.#info;
    const root = info.tracefs;
    const wantGraph = o.graphFunctions !== false;
    const funcs = wantGraph
      ? this.#graphFunctionsAvailable(root, o.graphFunctions || DMABUF_GRAPH_FUNCTIONS)
      : [];
    if (wantGraph && funcs.length === 0 && !info.graphUnavailable) {
      info.graphUnavailable = "none of the dma-buf functions is in available_filter_functions";
    }
    // Read before an instance is tried: on 5.15, setting a tracer in a new instance marks
    // the ring buffers expanded without growing the unused top-level one, which then reads
    // as its minimal size, and restoring that would leave it tiny.
    const rootBufferText = read(`${root}/buffer_size_kb`);
    let dir = root;
    if (o.topLevel) {
      info.topLevelReason = "requested (topLevel option)";
    } else if (!pathExists(`${root}/instances`)) {
      info.topLevelReason = "this kernel has no tracefs instances";
    } else {
      const name = o.instanceName ?? `axl-verify-${Deno.pid}`;
      if (!/^[\w.-]+$/.test(name)) {
        throw new RangeError(`TraceSession.open(): bad instance name ${name}`);
      }
      const inst = `${root}/instances/${name}`;
      if (pathExists(inst)) {
        throw new Error(
          `tracefs instance ${inst} already exists (another run, or a crashed one): ` +
            `remove it with rmdir ${inst}`,
        );
      }
      const made = this.#push(`mkdir ${inst}`, { op: "rmdir", path: inst });
      try {
        Deno.mkdirSync(inst);
      } catch (e) {
        // Not made: the recorded rmdir must not remove someone else's instance.
        this.#changes.pop();
        TracefsJournal.current().forget(made.record);
        throw new Error(`mkdir ${inst}: ${(e as Error).message}`, { cause: e });
      }
      dir = inst;
      info.instance = name;
      if (funcs.length > 0) {
        const why = this.#graphInInstance(inst, funcs);
        if (why) {
          // The kernel cannot run function_graph in an instance: use the top-level buffer.
          this.#undoLast();
          dir = root;
          info.instance = null;
          info.topLevelReason = `function_graph cannot run in an instance on this kernel (${why})`;
        }
      }
    }
    info.dir = dir;
    if (dir === root) {
      info.notes.push(
        `using the top-level trace buffer: ${info.topLevelReason}; its previous contents are lost`,
      );
    }
    // Recorded even when already off: start() turns it on.
    this.#set(`${dir}/tracing_on`, "0", true);
    this.#setBufferSize(dir, o.bufferSizeKb, dir === root ? rootBufferText : undefined);
    this.#setClock(dir, o.clock ?? "mono");
    if (funcs.length > 0) {
      if (dir === root) {
        this.#set(`${dir}/current_tracer`, "nop");
        this.#setFilter(`${dir}/set_ftrace_filter`, funcs);
      }
      // Without abstime and proc, events inside a function_graph trace have no time or task.
      this.#setOption(dir, "funcgraph-abstime", "1");
      this.#setOption(dir, "funcgraph-proc", "1");
      this.#setOption(dir, "funcgraph-tail", "1");
      if (dir === root) this.#set(`${dir}/current_tracer`, "function_graph");
      info.tracer = "function_graph";
      info.graphFunctions = funcs;
    }
    if (o.recordTgid) this.#setOption(dir, "record-tgid", "1");
    for (const [spec, filter] of Object.entries(o.filters ?? {})) {
      this.#setFilterOf(dir, spec, filter);
    }
    this.#enableEvents(dir, o.events ?? VERIFY_EVENTS);
    this.#enableEvents(dir, o.optionalEvents ?? OPTIONAL_VERIFY_EVENTS, true);
    if (this.#info.events.some((e) => e.startsWith("nvmap:"))) {
      // nvmap's events print the buffer's pointer with %p: unhashed, it joins the probes' buf=.
      this.#setOption(dir, "hash-ptr", "0");
    }
    write(`${dir}/trace`, "");
  }

  #graphFunctionsAvailable(root: string, wanted: readonly string[]): string[] {
    if (!read(`${root}/available_tracers`).split(/\s+/).includes("function_graph")) {
      this.#info.graphUnavailable =
        "the kernel has no function_graph tracer (CONFIG_FUNCTION_GRAPH_TRACER)";
      return [];
    }
    let avail: string;
    try {
      avail = read(`${root}/available_filter_functions`);
    } catch (e) {
      this.#info.graphUnavailable = `cannot read available_filter_functions: ${
        (e as Error).message
      }`;
      return [];
    }
    const have = new Set<string>();
    for (const line of avail.split("\n")) {
      const f = line.split(/\s/, 1)[0]!;
      if (wanted.includes(f)) have.add(f);
    }
    return wanted.filter((f) => have.has(f));
  }

  /** Tries function_graph in the instance; returns why not, or undefined when it works. */
  #graphInInstance(inst: string, funcs: string[]): string | undefined {
    if (!pathExists(`${inst}/set_ftrace_filter`)) return "the instance has no set_ftrace_filter";
    try {
      write(`${inst}/set_ftrace_filter`, funcs.join("\n") + "\n");
    } catch (e) {
      return `set_ftrace_filter: ${(e as Error).message}`;
    }
    this.#push(`${inst}/current_tracer=function_graph`, {
      op: "write",
      path: `${inst}/current_tracer`,
      value: "nop",
    });
    try {
      write(`${inst}/current_tracer`, "function_graph");
    } catch (e) {
      return `current_tracer: ${(e as Error).message}`;
    }
    return undefined;
  }

  /** Records a change in the state file and on the undo stack; make the change after. */
  #push(what: string, undo: UndoStep): Change {
    const change = { what, undo, record: TracefsJournal.current().record(what, undo) };
    this.#changes.push(change);
    return change;
  }

  #set(path: string, value: string, always = false): void {
    const before = read(path).trim();
    if (before === value && !always) return;
    this.#push(`${path}=${value}`, { op: "write", path, value: before });
    write(path, value);
  }

  #setBufferSize(dir: string, kb: number, textAtOpen?: string): void {
    const path = `${dir}/buffer_size_kb`;
    const text = textAtOpen ?? read(path);
    const before = bufferKb(text);
    if (dir === this.#info.tracefs && /expanded/.test(text)) {
      // A top-level buffer that was never used is kept at a minimal size until tracing
      // starts; the kernel cannot go back to that state once it has expanded.
      this.#info.notes.push(
        `the top-level trace buffer was not yet expanded (${text.trim()}); tracing expands it ` +
          `for good, so it is restored to ${before} KiB, not to the unexpanded state`,
      );
    }
    if (before === kb) {
      this.#info.bufferSizeKb = before;
      return;
    }
    // The requested size also on the top-level buffer, smaller or not: the session
    // owns it while function_graph runs there (kernels before 6.x cannot run that
    // tracer in an instance), and the judge weighs lost events against this size.
    if (!Number.isNaN(before)) {
      this.#push(`${path}=${kb}`, { op: "write", path, value: String(before) });
    }
    write(path, String(kb));
    this.#info.bufferSizeKb = bufferKb(read(path));
  }

  #setClock(dir: string, clock: string): void {
    const path = `${dir}/trace_clock`;
    const text = read(path);
    const before = selected(text);
    const available = text.replace(/[[\]]/g, "").trim().split(/\s+/);
    const want = available.includes(clock) ? clock : before ?? "local";
    if (want !== clock) {
      this.#info.notes.push(`trace clock '${clock}' is not available; using '${want}'`);
    }
    if (before !== want) {
      if (before) this.#push(`${path}=${want}`, { op: "write", path, value: before });
      write(path, want);
    }
    this.#info.clock = want;
  }

  #setOption(dir: string, option: string, value: string): void {
    const path = `${dir}/options/${option}`;
    if (!pathExists(path)) {
      this.#info.notes.push(`option ${option} does not exist on this kernel`);
      return;
    }
    this.#set(path, value);
  }

  /** Sets the filter of event `spec` (`system:event`); "0" clears it again on close. */
  #setFilterOf(dir: string, spec: string, filter: string): void {
    const m = /^([\w-]+):([\w-]+)$/.exec(spec);
    if (!m) throw new RangeError(`TraceSession: bad event spec '${spec}' for a filter`);
    const path = `${dir}/events/${m[1]}/${m[2]}/filter`;
    this.#push(`${path}=${filter}`, { op: "write", path, value: "0" });
    write(path, filter);
  }

  #setFilter(path: string, funcs: string[]): void {
    const before = read(path);
    const all = before.includes("all functions enabled") || before.trim() === "";
    const lines = before.split("\n").filter((l) => l.trim() !== "" && !l.startsWith("#"));
    this.#push(`${path}=${funcs.join(",")}`, {
      op: "write",
      path,
      value: all ? "" : lines.map((l) => l.split(/\s/, 1)[0]).join("\n") + "\n",
    });
    write(path, funcs.join("\n") + "\n");
  }

  #enableEvents(dir: string, specs: readonly string[], optional = false): void {
    for (const spec of specs) {
      const m = /^([\w-]+):([\w*-]+)$/.exec(spec);
      if (!m) {
        throw new RangeError(
          `TraceSession: bad event spec '${spec}' (want system:event or system:*)`,
        );
      }
      const [, system, event] = m as unknown as [string, string, string];
      const sysDir = `${dir}/events/${system}`;
      if (!pathExists(sysDir)) {
        if (!optional) this.#info.missingEvents.push(spec);
        continue;
      }
      const names: string[] = [];
      if (event === "*") {
        for (const e of Deno.readDirSync(sysDir)) {
          if (e.isDirectory && pathExists(`${sysDir}/${e.name}/enable`)) names.push(e.name);
        }
        names.sort();
      } else if (pathExists(`${sysDir}/${event}/enable`)) {
        names.push(event);
      }
      if (names.length === 0) {
        if (!optional) this.#info.missingEvents.push(spec);
        continue;
      }
      for (const n of names) {
        this.#set(`${sysDir}/${n}/enable`, "1");
        this.#info.events.push(`${system}:${n}`);
      }
    }
  }

  /** Clears the buffer and turns recording on. */
  start(): void {
    this.#assertOpen("start");
    write(`${this.#info.dir}/trace`, "");
    write(`${this.#info.dir}/tracing_on`, "1");
  }

  /** Turns recording off (the buffer is kept for reading). */
  stop(): void {
    this.#assertOpen("stop");
    write(`${this.#info.dir}/tracing_on`, "0");
  }

  /** A stream of the (non-consuming) `trace` file. Read it before {@linkcode close}. */
  async readTrace(): Promise<ReadableStream<Uint8Array>> {
    this.#assertOpen("readTrace");
    return (await Deno.open(`${this.#info.dir}/trace`)).readable;
  }

  /** The raw `per_cpu/cpuN/stats` files, by CPU. */
  rawStats(): Map<number, string> {
    this.#assertOpen("rawStats");
    const out = new Map<number, string>();
    for (const e of Deno.readDirSync(`${this.#info.dir}/per_cpu`)) {
      const m = /^cpu(\d+)$/.exec(e.name);
      if (m) out.set(Number(m[1]), read(`${this.#info.dir}/per_cpu/${e.name}/stats`));
    }
    return new Map([...out].sort((a, b) => a[0] - b[0]));
  }

  /** Parsed per-CPU stats (overrun, dropped events). */
  stats(): Map<number, CpuBufferStats> {
    const out = new Map<number, CpuBufferStats>();
    for (const [cpu, text] of this.rawStats()) {
      out.set(cpu, parsePerCpuStats(text, `${this.#info.dir}/per_cpu/cpu${cpu}/stats`));
    }
    return out;
  }

  /**
   * Restores every change in reverse order and removes the instance. Idempotent; keeps
   * going past a failing step and throws one error listing all failures at the end.
   */
  close(): Promise<void> {
    if (this.#closed) return Promise.resolve();
    const errors = this.#restore();
    this.#unregister();
    if (errors.length > 0) {
      return Promise.reject(new Error(`restoring tracefs failed: ${errors.join("; ")}`));
    }
    return Promise.resolve();
  }

  /** Same as {@linkcode close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }

  #restore(): string[] {
    this.#closed = true;
    const errors: string[] = [];
    while (this.#changes.length > 0) {
      const c = this.#changes.pop()!;
      try {
        applyUndo(c.undo);
        TracefsJournal.current().forget(c.record);
      } catch (e) {
        // Kept in the state file: the next run or `axl reset` tries again.
        errors.push(`undo ${c.what}: ${(e as Error).message}`);
      }
    }
    return errors;
  }

  #undoLast(): void {
    // Undo everything back to and including the mkdir of the instance.
    while (this.#changes.length > 0) {
      const c = this.#changes.pop()!;
      applyUndo(c.undo);
      TracefsJournal.current().forget(c.record);
      if (c.undo.op === "rmdir") return;
    }
  }

  #assertOpen(op: string): void {
    if (this.#closed) throw new Error(`TraceSession.${op}(): the session is closed`);
  }

  #register(signals: boolean): void {
    openSessions.add(this);
    if (!unloadHooked) {
      unloadHooked = true;
      globalThis.addEventListener("unload", () => {
        for (const s of openSessions) s.#restore();
      });
    }
    if (!signals) return;
    for (const [sig, code] of [["SIGINT", 130], ["SIGTERM", 143]] as const) {
      const h = () => {
        const errors = this.#restore();
        this.#unregister();
        for (const e of errors) console.error(`axl: ${e}`);
        console.error(`axl: ${sig}: tracefs restored${errors.length ? " with errors" : ""}`);
        Deno.exit(code);
      };
      Deno.addSignalListener(sig, h);
      this.#signalHandlers.push([sig, h]);
    }
  }

  #unregister(): void {
    openSessions.delete(this);
    for (const [sig, h] of this.#signalHandlers) Deno.removeSignalListener(sig, h);
    this.#signalHandlers = [];
  }
}
