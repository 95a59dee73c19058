/**
 * {@linkcode ShellTrace}: a trace capture started from the shell — a tracefs session
 * (lib/trace/capture/tracefs.ts: private instance, `dma_fence:*` and `axl:*` events, optional
 * function_graph on the dma-buf functions) that is read and restored when stopped, so
 * what it captured stays available after tracefs is put back.
 *
 * @module
 */
import { type FtraceEvent, parseFtrace } from "../trace/parse/ftrace.ts";
import { summarizeLoss } from "../trace/parse/per_cpu_stats.ts";
import {
  DMABUF_GRAPH_FUNCTIONS,
  TraceSession,
  type TraceSessionInfo,
} from "../trace/capture/tracefs.ts";
import type { Stoppable } from "./session.ts";

/** What a stopped capture holds. */
export interface TraceCapture {
  /** What the tracefs session set up (instance, tracer, events, clock, notes). */
  info: TraceSessionInfo;
  /** Every line of the `trace` file (line N of the file is `raw[N - 1]`). */
  raw: string[];
  /** Parsed events (function_graph calls are counted, not kept). */
  events: FtraceEvent[];
  /** Events per name. */
  counts: Record<string, number>;
  /** function_graph lines. */
  graphLines: number;
  /** Events the ring buffer lost (overrun + dropped), from per-CPU stats. */
  lost: number;
}

/** Options of {@linkcode ShellTrace.start}. */
export interface ShellTraceOptions {
  /** `system:event` specs (default `dma_fence:*`, `axl:*`). */
  events?: string[];
  /** Add function_graph on the dma-buf attach/map functions (slow to enable under TCG). */
  graph?: boolean;
  /** Per-CPU buffer size in KiB (default 4096). */
  bufferKb?: number;
  /** tracefs mount point (default: found). */
  tracefs?: string;
}

async function capture(session: TraceSession): Promise<TraceCapture> {
  const events: FtraceEvent[] = [];
  const counts: Record<string, number> = {};
  let graphLines = 0;
  const stream = await session.readTrace();
  const raw: string[] = [];
  for await (const rec of parseFtrace(tee(stream, raw), { strict: false })) {
    if (rec.kind === "event") {
      events.push(rec);
      counts[rec.name] = (counts[rec.name] ?? 0) + 1;
    } else if (rec.kind === "graph") graphLines++;
  }
  const lost = summarizeLoss(session.stats()).lost;
  return { info: session.info, raw, events, counts, graphLines, lost };
}

// Keeps the raw lines while the parser reads them.
async function* tee(
  stream: ReadableStream<Uint8Array>,
  keep: string[],
): AsyncGenerator<string> {
  const decoder = new TextDecoder();
  let pending = "";
  for await (const chunk of stream) {
    pending += decoder.decode(chunk, { stream: true });
    const nl = pending.lastIndexOf("\n");
    if (nl < 0) continue;
    const whole = pending.slice(0, nl + 1);
    pending = pending.slice(nl + 1);
    keep.push(...whole.slice(0, -1).split("\n"));
    yield whole;
  }
  pending += decoder.decode();
  if (pending) {
    keep.push(pending);
    yield pending;
  }
}

/**
 * A running or finished capture.
 *
 * @example
 * ```ts ignore
 * import { ShellTrace } from "./trace_capture.ts";
 * const t = ShellTrace.start({});          // root and tracefs needed
 * // ... import, submit, wait ...
 * const cap = await t.stop();
 * console.log(cap.counts);
 * ```
 */
export class ShellTrace implements Stoppable {
  #session: TraceSession | undefined;
  #capture: TraceCapture | undefined;
  readonly #info: TraceSessionInfo;

  private constructor(session: TraceSession) {
    this.#session = session;
    this.#info = session.info;
  }

  /** Opens a tracefs session and turns recording on. */
  static start(options: ShellTraceOptions = {}): ShellTrace {
    const session = TraceSession.open({
      bufferSizeKb: options.bufferKb ?? 4096,
      // The shell handles Ctrl-C itself; restoring happens on stop, release or exit.
      handleSignals: false,
      instanceName: `axl-shell-${Deno.pid}-${Date.now() % 100000}`,
      graphFunctions: options.graph ? DMABUF_GRAPH_FUNCTIONS : false,
      ...(options.events ? { events: options.events } : {}),
      ...(options.tracefs ? { tracefs: options.tracefs } : {}),
    });
    try {
      session.start();
    } catch (err) {
      session.close().catch(() => {});
      throw err;
    }
    return new ShellTrace(session);
  }

  /** What the session set up. */
  get info(): TraceSessionInfo {
    return this.#info;
  }

  /** One line about the capture. */
  get description(): string {
    const where = this.#info.instance ? `instance ${this.#info.instance}` : "top-level buffer";
    const state = this.#capture ? `stopped, ${this.#capture.events.length} events` : "recording";
    return `${where}, ${this.#info.events.length} events enabled, tracer ${this.#info.tracer}, ${state}`;
  }

  /** True once stopped. */
  get stopped(): boolean {
    return this.#session === undefined;
  }

  /** The capture, once stopped. */
  get capture(): TraceCapture | undefined {
    return this.#capture;
  }

  /** The trace so far, without stopping (reads the non-consuming `trace` file). */
  async peek(): Promise<TraceCapture> {
    if (!this.#session) return this.#capture!;
    return await capture(this.#session);
  }

  /**
   * Stops recording, reads the trace and the loss counters, and restores tracefs.
   * Idempotent: later calls return the same capture.
   */
  async stop(): Promise<TraceCapture> {
    const session = this.#session;
    if (!session) return this.#capture!;
    this.#session = undefined;
    try {
      session.stop();
      this.#capture = await capture(session);
    } finally {
      await session.close();
    }
    return this.#capture;
  }
}
