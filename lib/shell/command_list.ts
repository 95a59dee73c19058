/**
 * The shell's command list: each command's name, aliases and one-line summary, and how
 * to load it. Classifying a line, `help` and completing command words need only this;
 * a command's module (and the library under it) loads on its first use, so the shell
 * reaches its first prompt without loading them. The host test
 * `tests/host/shell/command_list.test.ts` loads every entry and keeps this list equal to
 * the commands' own declarations.
 *
 * @module
 */
import type { ShellCommand } from "./command.ts";

/** A command of the shell before its module is loaded. */
export interface ShellCommandEntry {
  /** The word that runs it. */
  readonly name: string;
  /** Other words that run it. */
  readonly aliases?: readonly string[];
  /** One line for `help`. */
  readonly summary: string;
  /** Imports the command's module; resolves to the command. */
  load(): Promise<ShellCommand>;
}

/**
 * Every shell command, in the order `help` lists them.
 *
 * @example
 * ```ts
 * import { SHELL_COMMAND_LIST } from "./command_list.ts";
 * const alloc = SHELL_COMMAND_LIST.find((c) => c.name === "alloc")!;
 * console.log((await alloc.load()).name); // "alloc"
 * ```
 */
export const SHELL_COMMAND_LIST: readonly ShellCommandEntry[] = [
  {
    name: "info",
    summary: "show the NPU driver's ABI, engine, attach device and limits",
    load: async () => (await import("./commands/info.ts")).command,
  },
  {
    name: "doctor",
    summary: "check kernel config, heaps, CMA, tracing, perf, the NPU link and the driver ABI",
    load: async () => (await import("./commands/doctor.ts")).command,
  },
  {
    name: "heaps",
    summary: "list the DMA heaps under /dev/dma_heap",
    load: async () => (await import("./commands/heaps.ts")).command,
  },
  {
    name: "alloc",
    summary: "allocate a dma-buf: SIZE bytes, a FORMAT WxH frame, or a 'result' buffer",
    load: async () => (await import("./commands/alloc.ts")).command,
  },
  {
    name: "ls",
    summary: "list dma-bufs: attached devices (bufinfo), fd refs and map refs",
    load: async () => (await import("./commands/ls.ts")).command,
  },
  {
    name: "import",
    aliases: ["attach"],
    summary: "import (attach + IOMMU map) a buffer or frame into the NPU; value: the Import",
    load: async () => (await import("./commands/import.ts")).command,
  },
  {
    name: "submit",
    summary: "submit a job on an import; value: the Job (fence, seqno); 'wait' finishes it",
    load: async () => (await import("./commands/submit.ts")).command,
  },
  {
    name: "transfer",
    summary: "copy an attached buffer to card memory or back (Metis DMA_XFER); 'wait' finishes it",
    load: async () => (await import("./commands/transfer.ts")).command,
  },
  {
    name: "wait",
    summary: "wait for a job's fence (or a Metis transfer's poll) and check its result",
    load: async () => (await import("./commands/wait.ts")).command,
  },
  {
    name: "release",
    aliases: ["free", "detach"],
    summary:
      "release imports (detach on Metis), close buffers/jobs/producers, recycle frames, stop traces",
    load: async () => (await import("./commands/release.ts")).command,
  },
  {
    name: "produce",
    summary: "open a frame source (heap | v4l2 | argus), or take its next frame",
    load: async () => (await import("./commands/produce.ts")).command,
  },
  {
    name: "run",
    summary: "run the builtin workload (N frames import/submit/wait/release); value: the report",
    load: async () => (await import("./commands/run.ts")).command,
  },
  {
    name: "trace",
    summary: "capture the kernel's events: trace start, run things, trace stop, trace show",
    load: async () => (await import("./commands/trace.ts")).command,
  },
  {
    name: "verify",
    summary: "prove the zero-copy path (I1–I4) on the builtin workload; value: result.json",
    load: async () => (await import("./commands/verify.ts")).command,
  },
  {
    name: "caps",
    summary: "explain whether GStreamer caps negotiate, in which memory, and why not",
    load: async () => (await import("./commands/caps.ts")).command,
  },
  {
    name: "objects",
    summary: "list what this session created and still holds (everything released on exit)",
    load: async () => (await import("./commands/objects.ts")).command,
  },
  {
    name: "vars",
    summary: "list the session's variables ($1, names, and those JavaScript defined)",
    load: async () => (await import("./commands/vars.ts")).command,
  },
  {
    name: "sleep",
    summary: "wait MS milliseconds (Ctrl-C cancels)",
    load: async () => (await import("./commands/sleep.ts")).command,
  },
  {
    name: "help",
    aliases: ["?"],
    summary: "list the commands, or show one command's usage and options",
    load: async () => (await import("./commands/help.ts")).command,
  },
  {
    name: "exit",
    aliases: ["quit"],
    summary: "release everything the session created and leave (Ctrl-D does the same)",
    load: async () => (await import("./commands/exit.ts")).command,
  },
];
