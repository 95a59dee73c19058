/**
 * `ls`: the dma-bufs of a process or of the whole system with their attached devices,
 * fd refs and map refs (the view of Android's dmabuf_dump), once or, with `--watch`,
 * refreshed like top.
 *
 * @module
 */
import { ExitCode } from "./exit_code.ts";
import type { CommandSpec } from "./spec.ts";

/** The declaration of `ls`, shared by `axl ls` and the shell's `ls`. */
export const lsSpec: CommandSpec = {
  name: "ls",
  summary: "list dma-bufs: attached devices (bufinfo), fd refs and map refs",
  positionals: [],
  options: {
    all: { type: "boolean", short: "a", description: "every process and every buffer in bufinfo" },
    pid: {
      type: "string",
      kind: "number",
      arg: "PID",
      description: "one process instead of this one",
    },
    watch: {
      type: "boolean",
      short: "w",
      description: "refresh until Ctrl-C, marking buffers that gained (+) or lost (-) an\n" +
        "attachment and processes holding CPU mappings",
    },
    interval: {
      type: "string",
      kind: "number",
      arg: "S",
      description: "seconds between refreshes with --watch (default 1; fractions allowed)",
    },
    count: {
      type: "string",
      kind: "number",
      arg: "N",
      description: "stop after N refreshes (default: until Ctrl-C)",
    },
    json: {
      type: "boolean",
      description: "with --watch: one JSON object per refresh (NDJSON); else the listing",
      only: "cli",
    },
  },
  details: "Attachments come from debugfs dma_buf/bufinfo (root, debugfs mounted) and exist\n" +
    "only while a buffer is imported: a frame held by the camera and imported by the NPU\n" +
    "shows two devices. Map refs are CPU mappings (/proc/PID/maps '/dmabuf:' lines).\n" +
    "--watch (always system-wide unless --pid) redraws the table every --interval: a\n" +
    "'+DEV' or '-DEV' in the change column marks an attachment gained or lost (kept for 5\n" +
    "refreshes), 'new' a buffer that appeared, and the footer names the processes that\n" +
    "hold CPU mappings of dma-bufs. Ctrl-C restores the terminal and exits 0.",
  cli: {
    usage: [
      "axl ls [--all | --pid PID] [--json]",
      "axl ls --watch [--interval S] [--count N] [--json]",
    ],
    details: `Lists dma-bufs system-wide (as 'ls --all' in the shell; --pid narrows it to one
process). With --watch it is a top-like view refreshed every --interval seconds on the
terminal's alternate screen; with --json each refresh is one line of JSON (NDJSON:
{"refresh", "time", "buffers", "changes", "cpuMappers"}). Ctrl-C ends the view, puts the
terminal back and exits 0: stopping a watch is its normal end.`,
    exits: [
      [ExitCode.Ok, "ok (also after Ctrl-C ends --watch)"],
      [ExitCode.CannotRun, "bad usage"],
    ],
  },
};
