/**
 * The `axl` command list as `axl --help` prints it: each command's name and one-line
 * summary, without loading the commands. Loading them (the device API, verify, the shell
 * and their dependencies) cost `axl --help` most of its start-up; the host test
 * `tests/host/tasks/command_list.test.ts` keeps this list equal to `tasks/registry.ts`.
 *
 * @module
 */

/** Name and summary of every command, in the order `axl --help` lists them. */
export const COMMAND_LIST: readonly { name: string; summary: string }[] = [
  {
    name: "verify",
    summary: "prove the zero-copy frame path (I1–I4) with ftrace, bufinfo and perf",
  },
  { name: "run", summary: "run the builtin frame workload against the NPU and report latency" },
  {
    name: "shell",
    summary: "the device shell: commands and JavaScript, interactive or from a session file",
  },
  {
    name: "doctor",
    summary: "check kernel config, heaps, CMA, tracing, perf, the NPU link and the driver ABI",
  },
  { name: "reset", summary: "put back the tracefs state a killed verify left behind" },
  { name: "info", summary: "show the NPU driver's ABI, engine, attach device and limits" },
  { name: "ls", summary: "list dma-bufs: attached devices (bufinfo), fd refs and map refs" },
  { name: "heaps", summary: "list the DMA heaps under /dev/dma_heap" },
  {
    name: "caps",
    summary: "explain whether GStreamer caps negotiate, in which memory, and why not",
  },
];
