/**
 * The state file of a run that changes global tracefs state: what it found, written before
 * each change, so that a run killed with SIGKILL (or by the OOM killer) can be undone by the
 * next one. One file per process, `tracefs-<pid>-<starttime>.json` under `/run/axl/` (or
 * `$AXL_STATE_DIR`): the owner's pid and its start time (field 22 of `/proc/<pid>/stat`, clock
 * ticks since boot) tell a live owner from a dead one whose pid was reused.
 *
 * This module is the format and the pure decisions on it; the journal that writes it is
 * `tracefs_journal.ts`, the restore of abandoned files `tracefs_restore.ts`.
 *
 * @module
 */

/** Where state files go unless `$AXL_STATE_DIR` says otherwise. */
export const DEFAULT_STATE_DIR = "/run/axl";

/**
 * The directory state files go to: `$AXL_STATE_DIR` when set, else {@linkcode DEFAULT_STATE_DIR}.
 *
 * @example
 * ```ts
 * import { stateDirectory } from "./tracefs_state_file.ts";
 * console.log(stateDirectory()); // "/run/axl" unless AXL_STATE_DIR names another
 * ```
 */
export function stateDirectory(): string {
  return Deno.env.get("AXL_STATE_DIR") || DEFAULT_STATE_DIR;
}

/** One step that puts back what a change replaced. */
export type UndoStep =
  /** Write `value` back to the tracefs file `path`. */
  | { op: "write"; path: string; value: string }
  /** Remove the tracefs instance directory `path`. */
  | { op: "rmdir"; path: string }
  /** Remove the kprobe events of `group` from `tracefs/kprobe_events`. */
  | { op: "kprobes"; tracefs: string; group: string }
  /** SIGKILL a helper process (a `trace_pipe` reader) if it is still the one started. */
  | { op: "kill"; pid: number; startTime: string; command: string };

/** One recorded change, oldest first in the file. */
export interface StateEntry {
  /** What was changed, for messages. */
  what: string;
  /** How to put it back. */
  undo: UndoStep;
}

/** The content of a state file. */
export interface StateFile {
  /** Format version. */
  version: 1;
  /** The owning process. */
  pid: number;
  /** Its start time, clock ticks after boot (`/proc/<pid>/stat` field 22). */
  startTime: string;
  /** `/proc/sys/kernel/random/boot_id` when it was written ("" when unknown). */
  bootId: string;
  /** The owner's command line, for messages. */
  command: string;
  /** ISO time the owner started recording. */
  since: string;
  /** The changes, in the order they were made. */
  entries: StateEntry[];
}

/**
 * The name of the state file of `pid` started at `startTime`.
 *
 * @example
 * ```ts
 * import { stateFileName } from "./tracefs_state_file.ts";
 * console.log(stateFileName(42, "1234")); // "tracefs-42-1234.json"
 * ```
 */
export function stateFileName(pid: number, startTime: string): string {
  return `tracefs-${pid}-${startTime}.json`;
}

/**
 * Whether `name` is a state file's name (not a temporary file being written, not the lock).
 *
 * @example
 * ```ts
 * import { isStateFileName } from "./tracefs_state_file.ts";
 * console.log(isStateFileName("tracefs-42-1234.json")); // true
 * console.log(isStateFileName("restore.lock")); // false
 * ```
 */
export function isStateFileName(name: string): boolean {
  return /^tracefs-\d+-\d+\.json$/.test(name);
}

/**
 * The start time (field 22, clock ticks after boot) in the text of `/proc/<pid>/stat`. The
 * command name (field 2) is in parentheses and may itself hold spaces and parentheses, so
 * the fields are counted after its last `)`.
 *
 * @example
 * ```ts
 * import { procStartTime } from "./tracefs_state_file.ts";
 * const stat = "77 (a) b) S 1 77 77 0 -1 4194560 1 0 0 0 0 0 0 0 20 0 1 0 8812 0 0";
 * console.log(procStartTime(stat)); // "8812"
 * ```
 */
export function procStartTime(statText: string): string {
  const close = statText.lastIndexOf(")");
  if (close < 0) throw new Error(`not a /proc/<pid>/stat line: '${statText.slice(0, 60)}'`);
  // Field 3 (state) is the first after the name: field 22 is the 20th from there.
  const fields = statText.slice(close + 1).trim().split(/\s+/);
  const start = fields[19];
  if (start === undefined || !/^\d+$/.test(start)) {
    throw new Error(`no start time (field 22) in /proc/<pid>/stat: '${statText.slice(0, 60)}'`);
  }
  return start;
}

/** Whether a state file's owner still runs, and if not why the file is abandoned. */
export type OwnerStatus =
  | { live: true }
  | { live: false; why: "exited" | "pid reused" | "previous boot" };

/**
 * Whether the owner of `state` is alive, given its `/proc/<pid>/stat` text (`undefined` when
 * there is no such process) and the current boot id (`""` when unknown). A file from another
 * boot is abandoned whatever the pid: tracefs started afresh with that boot.
 *
 * @example
 * ```ts
 * import { ownerStatus } from "./tracefs_state_file.ts";
 * const state = { version: 1, pid: 7, startTime: "500", bootId: "b", command: "axl verify",
 *   since: "", entries: [] } as const;
 * const stat = "7 (deno) S 1 7 7 0 -1 0 0 0 0 0 0 0 0 0 20 0 1 0 501 0 0";
 * const s = ownerStatus({ ...state, entries: [] }, stat, "b");
 * console.log(s); // { live: false, why: "pid reused" }
 * ```
 */
export function ownerStatus(
  state: StateFile,
  statText: string | undefined,
  bootId: string,
): OwnerStatus {
  if (state.bootId && bootId && state.bootId !== bootId) {
    return { live: false, why: "previous boot" };
  }
  if (statText === undefined) return { live: false, why: "exited" };
  return procStartTime(statText) === state.startTime
    ? { live: true }
    : { live: false, why: "pid reused" };
}

/**
 * One line saying what `step` puts back.
 *
 * @example
 * ```ts
 * import { describeUndo } from "./tracefs_state_file.ts";
 * const s = describeUndo({ op: "write", path: "/t/current_tracer", value: "nop" });
 * console.log(s); // "/t/current_tracer = nop"
 * ```
 */
export function describeUndo(step: UndoStep): string {
  switch (step.op) {
    case "write": {
      const v = step.value.trim();
      return `${step.path} = ${v === "" ? "(empty)" : v.replaceAll("\n", ",")}`;
    }
    case "rmdir":
      return `removed instance ${step.path}`;
    case "kprobes":
      return `removed kprobe events ${step.group}`;
    case "kill":
      return `stopped ${step.command} (pid ${step.pid})`;
  }
}

function fail(path: string, what: string): never {
  throw new Error(
    `${path}: not an axl tracefs state file (${what}); ` +
      "restore tracefs by hand (see docs/reset.md) and remove the file",
  );
}

function isUndo(u: unknown): u is UndoStep {
  if (typeof u !== "object" || u === null) return false;
  const s = u as Record<string, unknown>;
  switch (s.op) {
    case "write":
      return typeof s.path === "string" && typeof s.value === "string";
    case "rmdir":
      return typeof s.path === "string";
    case "kprobes":
      return typeof s.tracefs === "string" && typeof s.group === "string" &&
        /^\w+$/.test(s.group);
    case "kill":
      return Number.isInteger(s.pid) && typeof s.startTime === "string" &&
        typeof s.command === "string";
    default:
      return false;
  }
}

/**
 * Parses a state file's text; throws an error naming `path` and what is wrong with it.
 *
 * @example
 * ```ts
 * import { parseStateFile } from "./tracefs_state_file.ts";
 * const s = parseStateFile(JSON.stringify({ version: 1, pid: 7, startTime: "9", bootId: "",
 *   command: "axl verify", since: "", entries: [{ what: "x", undo: { op: "rmdir",
 *   path: "/sys/kernel/tracing/instances/axl-verify-7" } }] }), "tracefs-7-9.json");
 * console.log(s.entries.length); // 1
 * ```
 */
export function parseStateFile(text: string, path: string): StateFile {
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch (e) {
    fail(path, `bad JSON: ${(e as Error).message}`);
  }
  if (typeof raw !== "object" || raw === null) fail(path, "not an object");
  const s = raw as Record<string, unknown>;
  if (s.version !== 1) fail(path, `version ${JSON.stringify(s.version)}, want 1`);
  if (!Number.isInteger(s.pid) || (s.pid as number) <= 0) fail(path, "no pid");
  if (typeof s.startTime !== "string" || !/^\d+$/.test(s.startTime)) fail(path, "no startTime");
  if (!Array.isArray(s.entries)) fail(path, "no entries");
  const entries = (s.entries as unknown[]).map((e, i) => {
    const entry = e as Record<string, unknown> | null;
    if (typeof entry?.what !== "string" || !isUndo(entry.undo)) {
      fail(path, `entry ${i} is malformed`);
    }
    return { what: entry.what, undo: entry.undo };
  });
  return {
    version: 1,
    pid: s.pid as number,
    startTime: s.startTime,
    bootId: typeof s.bootId === "string" ? s.bootId : "",
    command: typeof s.command === "string" ? s.command : "",
    since: typeof s.since === "string" ? s.since : "",
    entries,
  };
}
