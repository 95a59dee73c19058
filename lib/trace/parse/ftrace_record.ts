/**
 * The records the ftrace parser yields, one type per kind of line: events, function_graph
 * calls, lost-event markers, headers, buffer starts, context switches and lines not
 * understood. Shared by the parser and its scanner, so neither imports the other for them.
 *
 * @module
 */
/** A trace event, from an event line or a function_graph comment line. */
export interface FtraceEvent {
  /** Discriminates the record kinds. */
  kind: "event";
  /** 1-based line number. */
  line: number;
  /** Task name (`comm`), when printed: function_graph lines carry it only with funcgraph-proc. */
  task?: string;
  /** Thread id, when printed. */
  pid?: number;
  /** Thread-group id, when the `record-tgid` option printed it. */
  tgid?: number;
  /** CPU the event was recorded on. */
  cpu: number;
  /** The flag columns as printed (e.g. `d..1.`, RT `....1`); `""` when absent. */
  flags: string;
  /** Timestamp in ns of the trace clock; absent on function_graph lines without abstime. */
  ts?: number;
  /** Event name, e.g. `dma_fence_signaled`. */
  name: string;
  /** Everything after `name: `. */
  body: string;
  /** `key=value` pairs of the body (values unquoted). */
  fields: Record<string, string>;
}

/** A function_graph entry, exit or leaf call. */
export interface FtraceGraphCall {
  /** Discriminates the record kinds. */
  kind: "graph";
  /** 1-based line number. */
  line: number;
  /** CPU the call ran on (the graph's CPU column). */
  cpu: number;
  /** Task name, when the funcgraph-proc option printed it. */
  task?: string;
  /** Thread id, when the funcgraph-proc option printed it. */
  pid?: number;
  /** Timestamp in ns of the trace clock, when the funcgraph-abstime option printed it. */
  ts?: number;
  /** `entry` = `f() {`, `exit` = `}`, `leaf` = `f();`. */
  call: "entry" | "exit" | "leaf";
  /** Function name; on an exit only when the kernel printed `} /* name *\/`. */
  func?: string;
  /** Duration in ns (leaf and exit lines). */
  duration?: number;
  /** Nesting depth from the indentation (0 = outermost). */
  depth: number;
}

/** `CPU:N [LOST M EVENTS]` (count known) or `CPU:N [LOST EVENTS]` (count unknown). */
export interface FtraceLost {
  /** Discriminates the record kinds. */
  kind: "lost";
  /** 1-based line number. */
  line: number;
  /** CPU whose ring buffer lost the events. */
  cpu: number;
  /** Lost events, or `null` when the kernel did not say how many. */
  count: number | null;
}

/** A `#` header or comment line, with the facts some of them carry. */
export interface FtraceHeader {
  /** Discriminates the record kinds. */
  kind: "header";
  /** 1-based line number. */
  line: number;
  /** The whole line as printed, `#` included. */
  text: string;
  /** From `# tracer: NAME`. */
  tracer?: string;
  /** From `# entries-in-buffer/entries-written: X/Y   #P:N`. */
  entries?: { inBuffer: number; written: number; cpus?: number };
}

/** `##### CPU N buffer started ####`: earlier events of that CPU were overwritten. */
export interface FtraceBufferStarted {
  /** Discriminates the record kinds. */
  kind: "buffer-started";
  /** 1-based line number. */
  line: number;
  /** CPU whose buffer restarted. */
  cpu: number;
}

/** A function_graph context-switch marker (`0)  a-1  =>  b-2`). */
export interface FtraceSwitch {
  /** Discriminates the record kinds. */
  kind: "switch";
  /** 1-based line number. */
  line: number;
  /** CPU the switch happened on. */
  cpu: number;
  /** Task switched away from, as printed (`comm-pid`). */
  from: string;
  /** Task switched to, as printed (`comm-pid`). */
  to: string;
}

/** A line the parser did not understand (only yielded with `strict: false`). */
export interface FtraceUnparsed {
  /** Discriminates the record kinds. */
  kind: "unparsed";
  /** 1-based line number. */
  line: number;
  /** The line as read. */
  text: string;
  /** What the parser expected and did not find. */
  reason: string;
}

/** Everything the ftrace parser (`parseFtrace()`) yields. */
export type FtraceRecord =
  | FtraceEvent
  | FtraceGraphCall
  | FtraceLost
  | FtraceHeader
  | FtraceBufferStarted
  | FtraceSwitch
  | FtraceUnparsed;
