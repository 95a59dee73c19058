// Private: exact user-space CPU time of a process from a syscall/scheduler/IRQ trace.
//
// The kernel's own user/system split (getrusage, /proc/<pid>/stat) is sampled or, with
// nohz_full, flushed in whole ticks (4 ms at HZ=250): far too coarse for the microseconds a
// frame loop spends in user space. A trace of raw_syscalls, sched_switch and interrupts gives
// it exactly: a thread runs user code from a sys_exit to its next sys_enter, minus interrupts
// taken meanwhile and time it was switched out.
import { type FtraceEvent, parseFtrace } from "../lib/trace/parse/ftrace.ts";
import type { LineSource } from "../lib/trace/parse/lines.ts";
import { TraceSession } from "../lib/trace/capture/tracefs.ts";

/** The events the accounting needs (interrupt systems that are absent are skipped). */
export const UTRACE_EVENTS: readonly string[] = [
  "raw_syscalls:sys_enter",
  "raw_syscalls:sys_exit",
  "sched:sched_switch",
  "irq_vectors:*",
  "irq:irq_handler_entry",
  "irq:irq_handler_exit",
  "irq:softirq_entry",
  "irq:softirq_exit",
  "exceptions:page_fault_user",
];

/** User time the trace shows for a set of threads. */
export interface TracedUserTime {
  /** User-space ns, summed over the threads. */
  userNs: number;
  /** User-space ns per thread id. */
  userNsByTid: Record<string, number>;
  /** Interrupt ns taken while one of the threads was in user space (excluded). */
  irqNs: number;
  /** User page faults of the threads (their handling time counts as user: no exit event). */
  pageFaults: number;
  /** Syscalls the threads entered. */
  syscalls: number;
  /** Threads seen. */
  threads: number;
  /** Lines of the trace. */
  events: number;
}

interface ThreadState {
  userSince?: number;
  preemptedInUser?: boolean;
  userNs: number;
}

/**
 * Sums the user time of the threads `tids` over a trace of {@linkcode UTRACE_EVENTS}.
 *
 * @example
 * ```ts
 * import { tracedUserTime } from "./_utrace.ts";
 * const t = await tracedUserTime([
 *   " x-7 [001] ..... 1.000000: sys_exit: NR 0 = 0",
 *   " x-7 [001] d.h.. 1.000002: local_timer_entry: vector=236",
 *   " x-7 [001] d.h.. 1.000003: local_timer_exit: vector=236",
 *   " x-7 [001] ..... 1.000010: sys_enter: NR 0 (0, 0, 0, 0, 0, 0)",
 * ].join("\n"), new Set([7]));
 * if (t.userNs !== 9000 || t.irqNs !== 1000) throw new Error(JSON.stringify(t));
 * ```
 */
export async function tracedUserTime(
  trace: LineSource | string,
  tids: ReadonlySet<number>,
): Promise<TracedUserTime> {
  const out: TracedUserTime = {
    userNs: 0,
    userNsByTid: {},
    irqNs: 0,
    pageFaults: 0,
    syscalls: 0,
    threads: 0,
    events: 0,
  };
  const threads = new Map<number, ThreadState>();
  const state = (tid: number): ThreadState => {
    let s = threads.get(tid);
    if (!s) threads.set(tid, s = { userNs: 0 });
    return s;
  };
  // Per CPU: nesting depth of interrupt handlers, and the user-mode thread they interrupted.
  const irq = new Map<number, { depth: number; since: number; tid?: number }>();
  const source = typeof trace === "string" ? [trace] : trace;
  for await (const r of parseFtrace(source, { strict: false })) {
    if (r.kind !== "event" || r.ts === undefined) continue;
    out.events++;
    step(r as FtraceEvent & { ts: number });
  }
  for (const [tid, s] of threads) {
    if (!tids.has(tid)) continue;
    out.threads++;
    out.userNs += s.userNs;
    out.userNsByTid[String(tid)] = s.userNs;
  }
  return out;

  function step(e: FtraceEvent & { ts: number }): void {
    const pid = e.pid ?? -1;
    const n = e.name;
    if (n === "sys_exit") {
      if (tids.has(pid)) state(pid).userSince = e.ts;
    } else if (n === "sys_enter") {
      if (!tids.has(pid)) return;
      const s = state(pid);
      out.syscalls++;
      if (s.userSince !== undefined) s.userNs += e.ts - s.userSince;
      s.userSince = undefined;
    } else if (n === "sched_switch") {
      const prev = Number(e.fields.prev_pid), next = Number(e.fields.next_pid);
      if (tids.has(prev)) {
        const s = state(prev);
        if (s.userSince !== undefined) {
          s.userNs += e.ts - s.userSince;
          s.userSince = undefined;
          s.preemptedInUser = true;
        }
      }
      if (tids.has(next)) {
        const s = state(next);
        if (s.preemptedInUser) s.userSince = e.ts;
        s.preemptedInUser = false;
      }
    } else if (n === "page_fault_user") {
      if (tids.has(pid)) out.pageFaults++;
    } else if (n.endsWith("_entry") && n !== "sys_enter") {
      const c = irq.get(e.cpu) ?? { depth: 0, since: 0 };
      if (c.depth++ === 0) {
        c.since = e.ts;
        c.tid = tids.has(pid) && threads.get(pid)?.userSince !== undefined ? pid : undefined;
      }
      irq.set(e.cpu, c);
    } else if (n.endsWith("_exit")) {
      const c = irq.get(e.cpu);
      if (!c || c.depth === 0) return;
      if (--c.depth === 0 && c.tid !== undefined) {
        const s = threads.get(c.tid);
        // The interrupt ran on the thread's time but in the kernel: move its user start on.
        if (s?.userSince !== undefined) {
          s.userSince += e.ts - c.since;
          out.irqNs += e.ts - c.since;
        }
        c.tid = undefined;
      }
    }
  }
}

/**
 * A tracefs session recording {@linkcode UTRACE_EVENTS}, switched on and off by the measured
 * process itself through {@linkcode UserTimeTracer.tracingOnPath}, so that only its
 * measured window is recorded.
 */
export class UserTimeTracer implements AsyncDisposable {
  readonly #session: TraceSession;

  private constructor(session: TraceSession) {
    this.#session = session;
  }

  /** Sets up the instance (tracing off). */
  static open(bufferSizeKb = 16384): UserTimeTracer {
    return new UserTimeTracer(
      TraceSession.open({
        events: UTRACE_EVENTS,
        graphFunctions: false,
        bufferSizeKb,
        clock: "mono",
        instanceName: `axl-bench-${Deno.pid}`,
      }),
    );
  }

  /** The `tracing_on` file the measured process writes `1` and `0` to. */
  get tracingOnPath(): string {
    return `${this.#session.info.dir}/tracing_on`;
  }

  /** Events that were enabled. */
  get events(): string[] {
    return this.#session.info.events;
  }

  /**
   * Reads the window's trace, accounts `tids`, checks for overruns and clears the buffer;
   * `save` keeps the raw trace in that file.
   */
  async collect(
    tids: ReadonlySet<number>,
    save?: string,
  ): Promise<TracedUserTime & { overrun: number }> {
    const text = await new Response(await this.#session.readTrace()).text();
    if (save) await Deno.writeTextFile(save, text);
    const t = await tracedUserTime(text, tids);
    let overrun = 0;
    for (const s of this.#session.stats().values()) overrun += s.overrun + (s.droppedEvents ?? 0);
    Deno.writeTextFileSync(`${this.#session.info.dir}/trace`, "");
    return { ...t, overrun };
  }

  /** Restores tracefs. */
  close(): Promise<void> {
    return this.#session.close();
  }

  /** Same as {@linkcode UserTimeTracer.close}. */
  [Symbol.asyncDispose](): Promise<void> {
    return this.close();
  }
}

/** The thread ids of process `pid` now. */
export function threadIds(pid: number): Set<number> {
  const out = new Set<number>();
  for (const e of Deno.readDirSync(`/proc/${pid}/task`)) out.add(Number(e.name));
  return out;
}
